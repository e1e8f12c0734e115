//! passes.md §3.17 prune_self_loops.

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
