//! `prune_self_loops`: removes every edge `n, n: L;` whose label `L` is a comparison, a
//! reachability check or a skip.
//!
//! Applies to self-loops with those labels only; a self-loop that assigns or tags is kept (it
//! changes the state or the move).
//!
//! Why the game tree is kept: such an edge changes neither the state nor the move, so a walk
//! that takes it is back at `n` with the same state and the same labels — every move it makes
//! is also made without the loop. Removing it removes no move and adds none.
//!
//! ```text
//! before:  a, a: x == 1;  a, a: ? b -> c;  a, a: ;  a, b: x = 2;
//! after:   a, b: x = 2;
//! ```
//!
//! Complexity: linear in the number of edges.

use super::meta;
use crate::util::edge_ids;
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label};

/// Self-loops that are comparisons, checks or skips are removed.
#[derive(Debug)]
pub(crate) struct PruneSelfLoops;

impl Pass for PruneSelfLoops {
    meta!(
        "prune_self_loops",
        "remove self-loops labelled with a comparison, a check or a skip",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        for e in edge_ids(g) {
            let d = g.edge(e);
            if d.from == d.to
                && matches!(
                    d.label,
                    Label::Compare { .. } | Label::Reach { .. } | Label::Skip
                )
            {
                g.remove_edge(e);
                changed = true;
            }
        }
        Ok(changed)
    }
}
