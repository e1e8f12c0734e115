//! The analyses the passes share (passes.md §2), one per file, on the framework of
//! `crate::dataflow`.

pub(crate) mod checks;
pub(crate) mod constants;
pub(crate) mod definitions;
pub(crate) mod values;
