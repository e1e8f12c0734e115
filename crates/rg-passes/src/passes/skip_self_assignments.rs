//! passes.md §3.13 skip_self_assignments.

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
