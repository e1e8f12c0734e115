//! Analyses shared by several passes (passes.md §2), one file each.

pub(crate) mod search_starts;
pub(crate) mod type_keys;
