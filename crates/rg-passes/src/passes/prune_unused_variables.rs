//! `prune_unused_variables`: removes the variables that never influence anything, and their
//! assignments become skips.
//!
//! Applies to a variable other than `player`, `goals` and `visible` that no label reads except
//! its own assignments (`x = x[k]` reads `x` only to assign `x`). `$$ v` counts as a read (the
//! reference forgot it and broke the moves of such games).
//!
//! Why the game tree is kept: the value of such a variable never reaches a comparison, a check,
//! a tag or another variable, so no choice of the automaton depends on it; its assignments
//! become skips, which take the same paths without writing.
//!
//! ```text
//! before:  var count: N = 0;  a, b: count = Succ[count];  b, c: $ m;
//! after:   a, b: ;  b, c: $ m;
//! ```
//!
//! Complexity: linear in the size of the labels.

use super::meta;
use crate::util::{assigned, edge_ids, reads};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label, Symbol};
use std::collections::HashSet;

/// Variables that never influence anything (only read by their own assignments) are removed,
/// and their assignments become skips. `$$ v` counts as a use (the reference's defect fixed).
#[derive(Debug)]
pub(crate) struct PruneUnusedVariables;

impl Pass for PruneUnusedVariables {
    meta!(
        "prune_unused_variables",
        "remove variables that never influence the game; their assignments become skips",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let wk = *g.well_known();
        let mut used: HashSet<Symbol> = [wk.player, wk.goals, wk.visible].into_iter().collect();
        for (_, e) in g.edges() {
            let own = assigned(g, &e.label);
            reads(g, &e.label, &mut |s| {
                if Some(s) != own {
                    used.insert(s);
                }
            });
        }
        let unused: HashSet<Symbol> = g
            .variables
            .iter()
            .map(|v| v.name)
            .filter(|n| !used.contains(n))
            .collect();
        if unused.is_empty() {
            return Ok(false);
        }
        for e in edge_ids(g) {
            if let Some(v) = assigned(g, &g.edge(e).label)
                && unused.contains(&v)
            {
                g.set_label(e, Label::Skip);
            }
        }
        g.variables.retain(|v| !unused.contains(&v.name));
        Ok(true)
    }
}
