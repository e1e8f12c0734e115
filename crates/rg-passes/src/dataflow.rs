//! The forward data-flow framework of the passes (a worklist over nodes to a fixed point): an
//! [`Analysis`] describes the knowledge attached to nodes, [`solve`] computes it for every node of
//! a game.
//!
//! The flow graph is the automaton's edges plus, for analyses with reachability, a synthetic
//! skip from the source of every check to the check's start (what holds where a check is
//! evaluated holds at the start of its sub-automaton). Differences from the reference's solver,
//! all deliberate:
//!
//! - The entry value is `join(extreme, transfer over every predecessor of begin)`; the
//!   reference overwrites `extreme` when `begin` has predecessors (a defect: the initial values
//!   are lost).
//! - A node that no walk reaches yet has no value (`None`), which is the identity of `join`,
//!   instead of contributing `bot`. For "must" analyses (constants) this computes the greatest
//!   fixed point: a fact survives a loop head when the loop does not undo it (the optimistic
//!   variant: only walks that do reach a node can contradict a fact there). For "may" analyses
//!   (reaching definitions) it is the usual least fixed point, and `Any` (a definition that some
//!   incoming walks carry while others have not been reached yet) never arises.
//! - A transfer may report that an edge can never be walked with the knowledge at its source
//!   (e.g. a comparison known to be false); its target then receives nothing along that edge.
//! - Values only move in one direction: every update is `value[n] := join(value[n], incoming)`.
//!   Termination therefore needs only a domain of finite height, even when a transfer is not
//!   monotone, and a node is revisited only when a predecessor's value changed.
//!
//! Complexity: every change of a node's value re-runs the transfers of its outgoing edges, so a
//! solve costs O(E · H · T), with H the height of the domain at one node and T the cost of one
//! transfer and join; successor lists and a reverse postorder are built once per solve in
//! O(E). The worklist takes nodes in reverse postorder (a priority queue), which settles
//! acyclic regions in one visit per node; results are deterministic.

use crate::util::NodeMap;
use rg_core::{EdgeId, Game, Label, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One forward analysis: a domain of knowledge per node, its initial value at `begin`, a join
/// and a transfer over each edge.
pub(crate) trait Analysis {
    type Domain: Clone + PartialEq;
    /// Knowledge at `begin` before anything happens.
    fn extreme(&self, g: &Game) -> Self::Domain;
    /// Updates `k` to the knowledge after walking `edge` (`None`: the synthetic skip from a
    /// check's source into its start). Returns `false` when the edge can never be walked in a
    /// state that satisfies `k`.
    fn transfer(&self, g: &Game, k: &mut Self::Domain, edge: Option<EdgeId>) -> bool;
    /// Adds the knowledge of another incoming path to `acc`; returns whether `acc` changed.
    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain) -> bool;
    /// Joins the knowledge after walking `edge` from a node with knowledge `src` into `dst`;
    /// returns whether `dst` changed. Analyses override it to avoid the copy of `src`.
    fn flow_into(
        &self,
        g: &Game,
        src: &Self::Domain,
        edge: Option<EdgeId>,
        dst: &mut Self::Domain,
    ) -> bool {
        let mut k = src.clone();
        self.transfer(g, &mut k, edge) && self.join(dst, &k)
    }
    /// Whether knowledge flows from a check's source into the check's start.
    fn with_reachability(&self) -> bool;
}

/// The knowledge at every node, indexed by node id; `None` for nodes no walk reaches.
pub(crate) fn solve<A: Analysis>(g: &Game, a: &A) -> NodeMap<Option<A::Domain>> {
    let mut value = NodeMap::new();
    solve_into(g, a, usize::MAX, &mut value);
    value
}

/// [`solve`] taking at most `max_visits` nodes off the worklist; `None` when the values have
/// not settled by then. The count of visits depends only on the game, so the answer is
/// deterministic.
pub(crate) fn solve_within<A: Analysis>(
    g: &Game,
    a: &A,
    max_visits: usize,
) -> Option<NodeMap<Option<A::Domain>>> {
    let mut value = NodeMap::new();
    solve_into(g, a, max_visits, &mut value).then_some(value)
}

/// Fills `value` with the solution; returns `false` when `max_visits` ran out first.
fn solve_into<A: Analysis>(
    g: &Game,
    a: &A,
    max_visits: usize,
    value: &mut NodeMap<Option<A::Domain>>,
) -> bool {
    let n = g.node_capacity();
    *value = NodeMap::from_elem(None, n);
    let Some(begin) = g.begin() else {
        return true;
    };
    // Starts of the checks leaving each node (the synthetic edges), built once.
    let mut check_starts: NodeMap<Vec<NodeId>> = NodeMap::from_elem(Vec::new(), n);
    if a.with_reachability() {
        for (_, e) in g.edges() {
            if let Label::Reach { from, .. } = e.label {
                check_starts[e.from].push(from);
            }
        }
    }
    // Reverse postorder of the flow graph from `begin`: the worklist always takes the node
    // earliest in it, so values settle in few sweeps (one per loop nesting level, roughly).
    let rank = reverse_postorder(g, &[begin], &check_starts);
    value[begin] = Some(a.extreme(g));
    let mut queued = NodeMap::from_elem(false, n);
    let mut work = BinaryHeap::from([Reverse((rank[begin], begin))]);
    queued[begin] = true;
    // Joins the knowledge after `edge` (from `node`, whose value is `k`) into `to`.
    let flow = |value: &mut NodeMap<Option<A::Domain>>,
                work: &mut BinaryHeap<Reverse<(u32, NodeId)>>,
                queued: &mut NodeMap<bool>,
                k: &A::Domain,
                edge: Option<EdgeId>,
                to: NodeId| {
        let changed = match &mut value[to] {
            Some(old) => a.flow_into(g, k, edge, old),
            slot @ None => {
                let mut new = k.clone();
                let walkable = a.transfer(g, &mut new, edge);
                if walkable {
                    *slot = Some(new);
                }
                walkable
            }
        };
        if changed && !queued[to] {
            queued[to] = true;
            work.push(Reverse((rank[to], to)));
        }
    };
    let mut visits = 0usize;
    while let Some(Reverse((_, node))) = work.pop() {
        if visits == max_visits {
            return false;
        }
        visits += 1;
        queued[node] = false;
        // The node's value is taken out while it flows to the successors; it is copied only
        // when a self loop or a check starting here joins into the node itself (copying it on
        // every visit was most of a solve with large values).
        let into_itself = g.outgoing(node).iter().any(|&e| g.edge(e).to == node)
            || check_starts[node].contains(&node);
        let taken = if into_itself {
            value[node].clone()
        } else {
            value[node].take()
        };
        let Some(k) = taken else {
            continue;
        };
        for &e in g.outgoing(node) {
            flow(value, &mut work, &mut queued, &k, Some(e), g.edge(e).to);
        }
        for &start in &check_starts[node] {
            flow(value, &mut work, &mut queued, &k, None, start);
        }
        if !into_itself {
            value[node] = Some(k);
        }
    }
    true
}

/// The position of every node in a reverse postorder of the flow graph from `begin` (edges and
/// the synthetic edges into check starts); nodes not reached come last.
/// The rank of every node in a reverse postorder of the graph searched depth-first from `roots`
/// in turn, over the edges and, per node, the extra successors `check_starts` (may be empty);
/// `u32::MAX` for nodes not reached.
pub(crate) fn reverse_postorder(
    g: &Game,
    roots: &[NodeId],
    check_starts: &NodeMap<Vec<NodeId>>,
) -> NodeMap<u32> {
    let n = g.node_capacity();
    let succ = |x: NodeId, i: usize| {
        let out = g.outgoing(x);
        match out.get(i) {
            Some(&e) => Some(g.edge(e).to),
            None => check_starts
                .get(x)
                .and_then(|c| c.get(i - out.len()))
                .copied(),
        }
    };
    let mut seen = NodeMap::from_elem(false, n);
    let mut post = Vec::with_capacity(n);
    for &root in roots {
        if seen[root] {
            continue;
        }
        // Iterative DFS: (node, index of the next successor to look at).
        let mut stack = vec![(root, 0usize)];
        seen[root] = true;
        while let Some(&mut (x, ref mut i)) = stack.last_mut() {
            match succ(x, *i) {
                Some(y) => {
                    *i += 1;
                    if !seen[y] {
                        seen[y] = true;
                        stack.push((y, 0));
                    }
                }
                None => {
                    post.push(x);
                    stack.pop();
                }
            }
        }
    }
    let mut rank = NodeMap::from_elem(u32::MAX, n);
    for (r, x) in post.iter().rev().enumerate() {
        rank[*x] = r as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    /// Which nodes a walk reaches, counting the edges walked to get there (saturating at 3).
    struct Count;

    impl Analysis for Count {
        type Domain = u32;
        fn extreme(&self, _g: &Game) -> u32 {
            0
        }
        fn transfer(&self, g: &Game, k: &mut u32, edge: Option<EdgeId>) -> bool {
            if let Some(e) = edge
                && g.edge(e).label == Label::Skip
            {
                // Skips are "impossible" in this toy analysis.
                return false;
            }
            *k = (*k + 1).min(3);
            true
        }
        fn join(&self, acc: &mut u32, other: &u32) -> bool {
            let old = *acc;
            *acc = (*acc).max(*other);
            *acc != old
        }
        fn with_reachability(&self) -> bool {
            true
        }
    }

    fn value_at(g: &Game, v: &NodeMap<Option<u32>>, name: &str) -> Option<u32> {
        v[g.find_node(g.find_sym(name).unwrap()).unwrap()]
    }

    #[test]
    fn begin_keeps_its_extreme_value_and_joins_its_predecessors() {
        let g = test_game(
            "begin, a: $ x; a, begin: $ y; a, b: ; b, c: $ z; begin, end: $ w;\
             c, d: ? s -> t; s, t: $ u;",
        );
        let v = solve(&g, &Count);
        // begin: join(0, a + 1), a: begin + 1, saturating at 3.
        assert_eq!(value_at(&g, &v, "begin"), Some(3));
        assert_eq!(value_at(&g, &v, "a"), Some(3));
        // b is reached only over a skip, which the analysis rules out.
        assert_eq!(value_at(&g, &v, "b"), None);
        assert_eq!(value_at(&g, &v, "c"), None);
        assert_eq!(value_at(&g, &v, "s"), None);
    }

    #[test]
    fn a_solve_gives_up_when_the_visits_run_out() {
        // The loop begin ↔ a needs several visits before the counts saturate.
        let g = test_game("begin, a: $ x; a, begin: $ y; a, end: $ w;");
        let full = solve(&g, &Count);
        assert_eq!(solve_within(&g, &Count, 2), None);
        assert_eq!(solve_within(&g, &Count, 100), Some(full));
    }

    #[test]
    fn check_sources_flow_into_check_starts() {
        let g = test_game("begin, c: ? s -> t; c, end: $ e; s, t: $ u;");
        let v = solve(&g, &Count);
        assert_eq!(value_at(&g, &v, "s"), Some(1));
        assert_eq!(value_at(&g, &v, "t"), Some(2));
    }
}
