//! passes.md §3.14 skip_self_comparisons.

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
