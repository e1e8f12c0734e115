//! `add_builtins`: makes the implicit built-in definitions explicit (`Bool`,
//! `Goals`, `Visibility`, `PlayerOrSystem`, `goals`, `player`, `visible`), so that later passes
//! and the validators can resolve them.
//!
//! The definitions and their checks are rg-core's ([`rg_core::builtins::add_builtins`], the
//! step every loader runs); this pass only makes that step the first pass of a
//! pipeline. A definition that exists is never added again, so the pass is a no-op on a game
//! that already has them (the CLI adds them while loading, to report problems with source
//! spans, and the manager then skips the setup phase).
//!
//! Game tree: unchanged — RG defines these names implicitly, the pass only writes them out.
//! Complexity: linear in the number of declarations.

use super::meta;
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Violation};

#[derive(Debug)]
pub(crate) struct AddBuiltins;

/// Adds the missing built-in definitions; returns whether anything was added, or the first
/// definition that conflicts with a built-in one.
pub(crate) fn add(game: &mut Game) -> Result<bool, Box<Violation>> {
    let (types, vars) = (game.typedefs.len(), game.variables.len());
    rg_core::builtins::add_builtins(game)?;
    // Definitions are only ever appended (rg-core marks the game modified either way).
    Ok((types, vars) != (game.typedefs.len(), game.variables.len()))
}

impl Pass for AddBuiltins {
    meta!(
        "add_builtins",
        "add the implicit built-in types and variables (Bool, Goals, Visibility, PlayerOrSystem, goals, player, visible)",
        Safe,
        Setup,
        Setup
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        add(g).map_err(|v| PassError {
            pass: "add_builtins",
            message: v.message,
        })
    }
}
