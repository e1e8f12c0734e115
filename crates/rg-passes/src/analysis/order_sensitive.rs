//! Where the order in which a search takes its walks can change the game.
//!
//! A search merges two walks that arrive at the same node with the same tags and the same values
//! of the ordinary variables: the one taken from the pending stack first goes on, the other is
//! dropped. `goals`, `player` and `visible` are not part of that comparison, so two walks that
//! differ only in them are merged too, and which of them survives depends on the order the
//! search takes them in — that is, on the order of the edges. A pass that reorders the walks
//! leaving a node (by moving edges to another source, which places them by edge number among
//! that node's edges) keeps the game only where no two walks leaving that node can come to
//! differ in those variables.
//!
//! This analysis marks the nodes from which a walk of one search can walk an assignment to
//! `goals` or `visible`, or, in a reachability check's search (which does not stop at moves), an
//! assignment to `player`. Walks that pass an unmarked node share all three variables from there
//! on, so their order cannot matter. It over-approximates over the search graphs of
//! [`SearchGraph`]: O(N + E) per kind of search.

use super::searches::SearchGraph;
use crate::util::assigns_player;
use rg_core::{EntityId, Game, Label, NodeId};

/// Per node: some walk of one search from there may come to differ from another only in
/// `goals`, `visible` or (in a check's search) `player`.
pub(crate) fn order_sensitive(g: &Game) -> Vec<bool> {
    let mut marked = vec![false; g.node_capacity()];
    for (sg, reach) in [
        (SearchGraph::moves(g), false),
        (SearchGraph::reach(g), true),
    ] {
        let mut stack: Vec<NodeId> = Vec::new();
        for (e, d) in g.edges() {
            if sg.walked[e.index()] && diverges(g, &d.label, reach) && !marked[d.from.index()] {
                marked[d.from.index()] = true;
                stack.push(d.from);
            }
        }
        while let Some(n) = stack.pop() {
            for e in sg.entering(g, n) {
                let from = g.edge(e).from;
                if !std::mem::replace(&mut marked[from.index()], true) {
                    stack.push(from);
                }
            }
        }
    }
    marked
}

/// Whether walking `label` can make two walks differ in a variable the visited-state key leaves
/// out.
fn diverges(g: &Game, label: &Label, reach: bool) -> bool {
    let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = *label else {
        return false;
    };
    if reach && assigns_player(g, label) {
        return true;
    }
    let known = g.well_known();
    let root = g.expr_root(lhs);
    root == known.goals || root == known.visible
}
