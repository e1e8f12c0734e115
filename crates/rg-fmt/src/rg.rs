//! Canonical RG text (one layout per game, so printing a printed game again gives the same
//! bytes), delegating to the printer of `rg-core`.

use crate::{EmitError, Emitter};
use rg_core::Game;
use std::io::Write;

/// Emits canonical RG text.
#[derive(Clone, Copy, Debug, Default)]
pub struct RgEmitter;

impl Emitter for RgEmitter {
    fn name(&self) -> &'static str {
        "rg"
    }

    fn extension(&self) -> &'static str {
        "rg"
    }

    fn emit(&self, game: &Game, out: &mut dyn Write) -> Result<(), EmitError> {
        out.write_all(rg_core::print(game).as_bytes())?;
        Ok(())
    }
}
