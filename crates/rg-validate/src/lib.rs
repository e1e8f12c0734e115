//! Validators for RG games: every reference check plus static lints, as spanned diagnostics.
