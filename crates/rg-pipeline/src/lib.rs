//! `rg-pipeline`: the `rgt` toolchain as a library.
//!
//! A game written in any supported General Game Playing language — Regular Games (`.rg`),
//! High-level Regular Games (`.hrg`), Regular Boardgames (`.rbg`), GDL in KIF (`.kif`, `.gdl`)
//! or LineGames (`.lg`) — goes through one pipeline:
//!
//! 1. **read** the source ([`read_source`]) and register it in a [`rg_core::SourceMap`], so
//!    diagnostics can point into it;
//! 2. **translate** it with its front-end ([`Lang::lower`]) into an RG [`rg_core::Game`];
//! 3. **complete** it with RG's built-in definitions and **validate** it ([`check`]);
//! 4. **optimise** it at an [`OptLevel`] ([`optimise`]);
//! 5. **emit** it as RG text, DOT or JSON ([`emit`]), compile it to a native forward model
//!    ([`native`]), or **play** it ([`Playable`]).
//!
//! Nothing here prints. Every step returns its result together with typed diagnostics
//! ([`Diagnostic`], see [`diag`]), or an [`Error`]; [`render`] turns diagnostics into the text
//! `rgt` shows. `--allow CODE` and `--deny warnings` are a [`LintConfig`] in [`Options`]; they
//! apply to the diagnostics of every front-end and validator alike.
//!
//! # Embedding
//!
//! ```
//! use rg_pipeline::{Lang, Options, OptLevel, Pipeline, Playable};
//!
//! let mut pipeline = Pipeline::new(Options { opt: OptLevel::O2, ..Options::default() });
//! let text = "type Player = { solo };
//! type Score = { 0, 100 };
//! var goals: Player -> Score = { :0 };
//! begin, a: player = solo;
//! a, b: $ go;
//! b, c: goals[solo] = 100;
//! c, end: player = keeper;";
//! let loaded = pipeline.load_text(Lang::Rg, "solo.rg", text).map_err(|e| pipeline.render_error(&e)).unwrap();
//! let play = Playable::new(&loaded.game).unwrap();
//! let mut pos = play.initial();
//! let mut moves = 0;
//! while let Some(m) = play.moves(&pos).unwrap().into_iter().next() {
//!     pos = play.apply(&m);
//!     moves += 1;
//! }
//! assert!(play.is_final(&pos));
//! assert_eq!(play.goals(&pos)[0].value, rg_pipeline::GoalValue::Int(100));
//! # let _ = moves;
//! ```
//!
//! `examples/embed.rs` is a complete program doing the same from a file.

pub mod codes;
pub mod diag;
pub mod error;
pub mod lang;
pub mod native;
pub mod pipeline;
pub mod play;
pub mod render;

/// The stack a thread needs to run the pipeline on the deepest input it accepts. Parsers and
/// walks over input are iterative or limited in depth (e.g. 1000 nested brackets); this leaves
/// room for the deepest accepted input whatever the platform's default stack (`rgt` runs every
/// command on a thread with this stack; embedders with deep inputs should too).
pub const STACK_SIZE: usize = 512 << 20;

pub use diag::{Diagnostic, LintConfig, Severity};
pub use error::Error;
pub use lang::Lang;
pub use pipeline::{
    Emit, Loaded, OptLevel, Options, Pipeline, check, emit, generated_hrg, load_text, optimise,
    pass_failure, read_source, stats_json, translate_text,
};
pub use play::{Goal, GoalValue, Move, Playable, Position};
