//! The forward data-flow framework of passes.md §2: an [`Analysis`] describes the knowledge
//! attached to nodes, [`solve`] computes it for every node of a game.
//!
//! The flow graph is the automaton's edges plus, for analyses with reachability, a synthetic
//! skip from the source of every check to the check's start (§2.2). Differences from the
//! reference's solver, all deliberate:
//!
//! - The entry value is `join(extreme, transfer over every predecessor of begin)`; the
//!   reference overwrites `extreme` when `begin` has predecessors (§2.3, defect D1).
//! - A node that no walk reaches yet has no value (`None`), which is the identity of `join`,
//!   instead of contributing `bot`. For "must" analyses (constants) this computes the greatest
//!   fixed point: a fact survives a loop head when the loop does not undo it, which §2.6 allows
//!   as the optimistic variant. For "may" analyses (reaching definitions) it is the usual least
//!   fixed point, and `Any` (§2.7) never arises.
//! - A transfer may report that an edge can never be walked with the knowledge at its source
//!   (e.g. a comparison known to be false); its target then receives nothing along that edge.
//! - Values only move in one direction: every update is `value[n] := join(value[n], incoming)`.
//!   Termination therefore needs only a domain of finite height, even when a transfer is not
//!   monotone, and a node is revisited only when a predecessor's value changed.
//!
//! Complexity: every change of a node's value re-runs the transfers of its outgoing edges, so a
//! solve costs O(E · H · T), with H the height of the domain at one node and T the cost of one
//! transfer and join; successor lists are built once per solve in O(E). The worklist is FIFO,
//! seeded with `begin`, so results are deterministic.

use rg_core::{EdgeId, EntityId, Game, Label, NodeId};
use std::collections::VecDeque;

/// One forward analysis (§2.1).
pub(crate) trait Analysis {
    type Domain: Clone + PartialEq;
    /// Knowledge at `begin` before anything happens.
    fn extreme(&self, g: &Game) -> Self::Domain;
    /// Updates `k` to the knowledge after walking `edge` (`None`: the synthetic skip from a
    /// check's source into its start). Returns `false` when the edge can never be walked in a
    /// state that satisfies `k`.
    fn transfer(&self, g: &Game, k: &mut Self::Domain, edge: Option<EdgeId>) -> bool;
    /// Adds the knowledge of another incoming path to `acc`.
    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain);
    /// Whether knowledge flows from a check's source into the check's start.
    fn with_reachability(&self) -> bool;
}

/// The knowledge at every node, indexed by node id; `None` for nodes no walk reaches.
pub(crate) fn solve<A: Analysis>(g: &Game, a: &A) -> Vec<Option<A::Domain>> {
    let n = g.node_capacity();
    let mut value: Vec<Option<A::Domain>> = vec![None; n];
    let Some(begin) = g.begin() else {
        return value;
    };
    // Starts of the checks leaving each node (the synthetic edges), built once.
    let mut check_starts: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    if a.with_reachability() {
        for (_, e) in g.edges() {
            if let Label::Reach { from, .. } = e.label {
                check_starts[e.from.index()].push(from);
            }
        }
    }
    value[begin.index()] = Some(a.extreme(g));
    let mut queued = vec![false; n];
    let mut work = VecDeque::from([begin]);
    queued[begin.index()] = true;
    let flow = |value: &mut Vec<Option<A::Domain>>,
                    work: &mut VecDeque<NodeId>,
                    queued: &mut [bool],
                    to: NodeId,
                    k: A::Domain| {
        let slot = &mut value[to.index()];
        let changed = match slot {
            None => {
                *slot = Some(k);
                true
            }
            Some(old) => {
                let before = old.clone();
                a.join(old, &k);
                *old != before
            }
        };
        if changed && !queued[to.index()] {
            queued[to.index()] = true;
            work.push_back(to);
        }
    };
    while let Some(node) = work.pop_front() {
        queued[node.index()] = false;
        let Some(k) = value[node.index()].clone() else {
            continue;
        };
        for &e in g.outgoing(node) {
            let mut out = k.clone();
            if a.transfer(g, &mut out, Some(e)) {
                flow(&mut value, &mut work, &mut queued, g.edge(e).to, out);
            }
        }
        for &start in &check_starts[node.index()] {
            let mut out = k.clone();
            if a.transfer(g, &mut out, None) {
                flow(&mut value, &mut work, &mut queued, start, out);
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::test_game;

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
        fn join(&self, acc: &mut u32, other: &u32) {
            *acc = (*acc).max(*other);
        }
        fn with_reachability(&self) -> bool {
            true
        }
    }

    fn value_at(g: &Game, v: &[Option<u32>], name: &str) -> Option<u32> {
        v[g.find_node(g.find_sym(name).unwrap()).unwrap().index()]
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
    fn check_sources_flow_into_check_starts() {
        let g = test_game("begin, c: ? s -> t; c, end: $ e; s, t: $ u;");
        let v = solve(&g, &Count);
        assert_eq!(value_at(&g, &v, "s"), Some(1));
        assert_eq!(value_at(&g, &v, "t"), Some(2));
    }
}
