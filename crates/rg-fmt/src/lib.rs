//! Emitters for RG games.
