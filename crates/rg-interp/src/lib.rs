//! RG interpreter: flat runtime form, legal moves, perft, seeded random playouts, equivalence
//! oracle.
//!
//! [`Program::new`] compiles a checked game once; a [`Machine`] runs searches on it with the
//! semantics of the RG reference interpreter: legal moves, applying moves and paths of moves,
//! perft, seeded random playouts and bounded checks of the conditions of a proper game. [`equiv`]
//! compares two games by playing them: the oracle every translation and every pass is tested with.
//!
//! Run-time errors are values ([`RuntimeError`], with the edge, its span and the move path),
//! never panics.

mod check;
pub mod equiv;
mod error;
mod memo;
mod path;
mod perft;
mod play;
mod program;
mod search;
mod seen;
pub mod verify;

pub use check::{CheckOptions, Condition, ProperViolation, check_pragmas};
pub use error::{CompileError, Fault, PathError, RuntimeError, SearchBudget, format_path};
pub use memo::CheckMemoMode;
pub use path::parse_path;
pub use perft::DeadEnd;
pub use play::{PLAY_LIMIT, PlayError, PlayStats, Rng, Summary};
pub use program::{CompileOptions, DEFAULT_SEARCH_LIMIT, Program, SearchLimit};
pub use search::{Machine, Moves, State};
pub use verify::{Verified, VerifyOptions, verify_pragmas};
