//! Analyses of the automaton that passes share (passes.md §2 and the analyses the `rgt` rules of
//! §3 call for), one file each.

pub(crate) mod search_starts;
pub(crate) mod tag_skeleton;
pub(crate) mod type_keys;
