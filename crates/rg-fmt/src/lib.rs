//! Emitters for RG games (the back-ends that turn a checked, optimised `Game` into text): canonical
//! RG text, Graphviz DOT and JSON. Emitters are pure functions of the game and never panic on an
//! inconsistent game (a dangling id is printed visibly), so they can dump a game that just failed
//! validation.

pub mod dot;
pub mod json;
pub mod rg;
pub mod view;

use rg_core::Game;
use std::io::Write;
use thiserror::Error;

/// Writing an emitted game failed.
#[derive(Debug, Error)]
pub enum EmitError {
    /// The output could not be written.
    #[error("could not write output: {0}")]
    Io(#[from] std::io::Error),
}

/// An output format for games.
pub trait Emitter {
    /// The format's name as used by `--emit` (`"rg"`, `"dot"`, `"json"`).
    fn name(&self) -> &'static str;
    /// The usual file extension (without the dot).
    fn extension(&self) -> &'static str;
    /// Writes `game` to `out`.
    fn emit(&self, game: &Game, out: &mut dyn Write) -> Result<(), EmitError>;
}

/// Every emitter, in `--emit` order.
pub fn emitters() -> [&'static dyn Emitter; 3] {
    [&rg::RgEmitter, &dot::DotEmitter, &json::JsonEmitter]
}

/// The emitter named `name`.
pub fn emitter(name: &str) -> Option<&'static dyn Emitter> {
    emitters().into_iter().find(|e| e.name() == name)
}

/// Emits into a string (all emitters produce UTF-8).
pub fn emit_to_string(emitter: &dyn Emitter, game: &Game) -> String {
    let mut buf = Vec::new();
    emitter
        .emit(game, &mut buf)
        .expect("writing to a Vec cannot fail");
    String::from_utf8(buf).expect("emitters write UTF-8")
}
