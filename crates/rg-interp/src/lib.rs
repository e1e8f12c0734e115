//! RG interpreter: flat runtime form, legal moves, perft, seeded random playouts, equivalence oracle.
//!
//! [`Program::new`] compiles a checked game once; a [`Machine`] runs searches on it (rg.md §12):
//! legal moves, applying moves, perft (§12.11), random playouts (§12.12) and bounded checks of
//! the proper-game conditions (§11). [`equiv`] compares two games by playing them.

mod error;
mod path;
mod program;
mod search;
mod seen;

pub use error::{CompileError, Fault, PathError, RuntimeError, format_path};
pub use path::parse_path;
pub use program::{CompileOptions, Program};
pub use search::{Machine, Moves, State};
