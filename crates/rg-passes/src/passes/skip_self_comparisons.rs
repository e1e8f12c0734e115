//! `skip_self_comparisons`: `e == e` becomes a skip and `e != e` is removed.
//!
//! Applies to every comparison whose two sides are the same reference up to casts.
//!
//! Why the game tree is kept: evaluating an expression has no side effect and reads one state,
//! so `e == e` always holds (a skip passes just the same) and `e != e` never holds (the edge
//! can never be taken, so removing it removes no walk).
//!
//! ```text
//! before:  a, b: m[x] == m[x];  a, c: x != x;
//! after:   a, b: ;
//! ```
//!
//! Complexity: linear in the number of edges.

use super::meta;
use crate::util::{edge_ids, same_reference};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label};

/// `e == e` becomes a skip; `e != e` is removed.
#[derive(Debug)]
pub(crate) struct SkipSelfComparisons;

impl Pass for SkipSelfComparisons {
    meta!(
        "skip_self_comparisons",
        "`e == e` becomes a skip and `e != e` is removed",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        for e in edge_ids(g) {
            if let Label::Compare { lhs, rhs, negated } = g.edge(e).label
                && same_reference(g, lhs, rhs)
            {
                if negated {
                    g.remove_edge(e);
                } else {
                    g.set_label(e, Label::Skip);
                }
                changed = true;
            }
        }
        Ok(changed)
    }
}
