//! Analyses of the automaton that passes share (the reference's data-flow analyses and the ones
//! `rgt`'s own passes need), one file each; the data-flow ones on the framework of
//! `crate::dataflow`.

pub(crate) mod checks;
pub(crate) mod constants;
pub(crate) mod definitions;
pub(crate) mod search_starts;
pub(crate) mod searches;
pub(crate) mod symbolic;
pub(crate) mod tag_skeleton;
pub(crate) mod type_keys;
pub(crate) mod values;
pub(crate) mod walk_dependent;
