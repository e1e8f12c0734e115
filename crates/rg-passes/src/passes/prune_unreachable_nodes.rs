//! passes.md §3.19 prune_unreachable_nodes.

use super::meta;
use crate::util::{check_nodes, edge_ids};
use crate::{Pass, PassContext, PassError};
use rg_core::Game;

/// Edges that can never be walked, and one layer of dead ends, are removed.
#[derive(Debug)]
pub(crate) struct PruneUnreachableNodes;

impl Pass for PruneUnreachableNodes {
    meta!(
        "prune_unreachable_nodes",
        "remove edges no walk can reach and edges into dead ends",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        let seen = cx.reachable_nodes(g, true);
        for e in edge_ids(g) {
            if !seen[g.edge(e).from.0 as usize] {
                g.remove_edge(e);
                changed = true;
            }
        }
        let checks = check_nodes(g);
        let end = g.end();
        for e in edge_ids(g) {
            let to = g.edge(e).to;
            if Some(to) != end && g.outgoing(to).is_empty() && !checks[to.0 as usize] {
                g.remove_edge(e);
                changed = true;
            }
        }
        Ok(changed)
    }
}
