//! `prune_unreachable_nodes`: removes the edges no walk can reach, then one layer of edges into
//! dead ends.
//!
//! Applies to (1) every edge whose source is not reachable from `begin`, where the sub-automata
//! of reachability checks count as reachable from their start node; (2) every edge into a node
//! other than `end` that has no outgoing edge and is not a node a check names. Step 2 removes
//! one layer per run; the pass manager runs it again until nothing changes.
//!
//! Why the game tree is kept: an edge that no walk reaches is never taken. A walk that enters a
//! dead end (not `end`, no way on) can never finish a move or reach `end`, so it contributes
//! no move; a check that names the node still sees it through the node entry, which stays.
//!
//! ```text
//! before:  begin, a: ;  a, end: ;  z, a: x = 1;  a, d: y = 2;
//! after:   begin, a: ;  a, end: ;
//! ```
//! (`z` is unreachable from `begin`; `d` is a dead end.)
//!
//! Complexity: linear in the number of nodes and edges.

use super::meta;
use crate::util::NodeMap;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game};

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
        let seen = cx.reachable_nodes(g, true);
        let unreachable: Vec<EdgeId> = g
            .edges()
            .filter(|(_, d)| !seen[d.from])
            .map(|(e, _)| e)
            .collect();
        let mut changed = !unreachable.is_empty();
        g.remove_edges(&unreachable);
        let checks = cx.check_nodes(g);
        let end = g.end();
        // Edges into dead ends, in edge order, as if each were removed at once: a removal can
        // make its source a dead end for the edges after it. The out-degrees are counted down
        // instead, and the edges removed together (one at a time cost a hub's whole list each).
        let mut out_degree: NodeMap<u32> = g
            .nodes()
            .ids()
            .map(|n| g.outgoing(n).len() as u32)
            .collect();
        let mut dead: Vec<EdgeId> = Vec::new();
        for (e, d) in g.edges() {
            let to = d.to;
            if Some(to) != end && out_degree[to] == 0 && !checks[to] {
                dead.push(e);
                out_degree[d.from] -= 1;
            }
        }
        changed |= !dead.is_empty();
        g.remove_edges(&dead);
        Ok(changed)
    }
}
