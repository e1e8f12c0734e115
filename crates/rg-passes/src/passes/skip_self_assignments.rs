//! `skip_self_assignments`: an assignment of a location to itself (`x = x`, `m[k] = m[k]`,
//! casts ignored) becomes a skip.
//!
//! Applies to every assignment whose two sides are the same reference up to casts.
//!
//! Why the game tree is kept: the assignment writes the value the location already holds, so
//! the state after it is the state before; a skip takes the same edge without writing.
//!
//! ```text
//! before:  a, b: x = Bool(x);
//! after:   a, b: ;
//! ```
//!
//! Complexity: linear in the number of edges.

use super::meta;
use crate::util::{edge_ids, same_reference};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label};

/// `x = x` (same reference, casts ignored) becomes a skip.
#[derive(Debug)]
pub(crate) struct SkipSelfAssignments;

impl Pass for SkipSelfAssignments {
    meta!(
        "skip_self_assignments",
        "an assignment of a location to itself becomes a skip",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        for e in edge_ids(g) {
            if let Label::Assign { lhs, rhs } = g.edge(e).label
                && same_reference(g, lhs, rhs)
            {
                g.set_label(e, Label::Skip);
                changed = true;
            }
        }
        Ok(changed)
    }
}
