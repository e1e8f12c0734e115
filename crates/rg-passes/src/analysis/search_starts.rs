//! The interpreter's searches (rg.md §12.5) seen from the automaton: where they start and what
//! they can change before arriving at a node. The pragma passes use it to promise only what
//! holds for every search (`@unique`, `@repeat`, `@tagIndex`).
//!
//! * A *move search* starts at `begin` (the initial state) or at the target of an assignment to
//!   `player` (the state after a move) and never walks past an assignment to `player`.
//! * A *reach search* starts at the start node of a reachability check and walks every edge.
//!
//! A check edge is an ordinary edge for the search that evaluates it (its own sub-search is a
//! search of its own, with its own visited set).

use crate::dataflow::reverse_postorder;
use crate::util::{assigned, assigns_player};
use rg_core::EntityId;
use rg_core::{EdgeId, Game, Label, NodeId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Search start nodes.
#[derive(Debug, Default)]
pub(crate) struct Starts {
    /// `begin` and the targets of assignments to `player`.
    pub(crate) moves: Vec<NodeId>,
    /// The start nodes of reachability checks.
    pub(crate) reach: Vec<NodeId>,
}

impl Starts {
    pub(crate) fn of(g: &Game) -> Starts {
        let mut s = Starts::default();
        let mut seen_m = vec![false; g.node_capacity()];
        let mut seen_r = vec![false; g.node_capacity()];
        let add = |v: &mut Vec<NodeId>, seen: &mut [bool], n: NodeId| {
            if !std::mem::replace(&mut seen[n.index()], true) {
                v.push(n);
            }
        };
        if let Some(b) = g.begin() {
            add(&mut s.moves, &mut seen_m, b);
        }
        for (_, e) in g.edges() {
            if assigns_player(g, &e.label) {
                add(&mut s.moves, &mut seen_m, e.to);
            }
            if let Label::Reach { from, .. } = e.label {
                add(&mut s.reach, &mut seen_r, from);
            }
        }
        s
    }
}

/// A set of variables, as a bit set over the positions in `Game::variables`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarSet(Vec<u64>);

impl VarSet {
    pub(crate) fn empty(n: usize) -> Self {
        VarSet(vec![0; n.div_ceil(64)])
    }

    /// Adds `i`; whether it was new.
    fn add(&mut self, i: usize) -> bool {
        let (w, bit) = (&mut self.0[i / 64], 1u64 << (i % 64));
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// The number of variables in the set.
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The positions in the set, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| k * 64 + b)
        })
    }

    /// `self ∪= other`; whether `self` grew.
    fn union(&mut self, other: &VarSet) -> bool {
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let old = *a;
            *a |= b;
            grew |= *a != old;
        }
        grew
    }
}

/// What searches can do before arriving at each node.
#[derive(Debug)]
pub(crate) struct Arrivals {
    /// For every node a search can arrive at: the variables that some walk from the start of
    /// such a search to the node may assign (`None` for nodes no search visits). Two arrivals at
    /// a node in one search with equal values of these variables (and equal tags) have equal
    /// states: every other variable still has the value it had when the search started.
    pub(crate) assigned: Vec<Option<VarSet>>,
    /// Whether a reach search can arrive at the node (only reach searches walk past an
    /// assignment to `player`).
    pub(crate) in_reach: Vec<bool>,
}

/// The [`Arrivals`] of the searches of `g`.
pub(crate) fn arrivals(g: &Game) -> Arrivals {
    let position: HashMap<_, usize> = g
        .variables
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (v.name, i))
        .collect();
    let n = g.variables.len();
    let starts = Starts::of(g);
    let mut out: Vec<Option<VarSet>> = vec![None; g.node_capacity()];
    let mut in_reach = Vec::new();
    // Move searches stop at assignments to `player`; reach searches do not.
    for (roots, stop_at_player) in [(&starts.moves, true), (&starts.reach, false)] {
        // Nodes are taken earliest in a reverse postorder first, so acyclic parts settle in
        // one visit per node.
        let rank = reverse_postorder(g, roots, &[]);
        let mut at: Vec<Option<VarSet>> = vec![None; g.node_capacity()];
        let mut queued = vec![false; g.node_capacity()];
        let mut work = BinaryHeap::new();
        for &r in roots {
            if at[r.index()].is_none() {
                at[r.index()] = Some(VarSet::empty(n));
                queued[r.index()] = true;
                work.push(Reverse((rank[r.index()], r)));
            }
        }
        while let Some(Reverse((_, u))) = work.pop() {
            queued[u.index()] = false;
            let mut here = at[u.index()].take().expect("queued nodes have a value");
            let mut requeue_self = false;
            for &e in g.outgoing(u) {
                let d = g.edge(e);
                if stop_at_player && assigns_player(g, &d.label) {
                    continue;
                }
                let bit = assigned(g, &d.label).and_then(|v| position.get(&v).copied());
                let grew = if d.to == u {
                    let grew = bit.is_some_and(|i| here.add(i));
                    requeue_self |= grew;
                    grew
                } else {
                    match &mut at[d.to.index()] {
                        Some(old) => old.union(&here) | bit.is_some_and(|i| old.add(i)),
                        slot @ None => {
                            let mut next = here.clone();
                            if let Some(i) = bit {
                                next.add(i);
                            }
                            *slot = Some(next);
                            true
                        }
                    }
                };
                if grew && d.to != u && !std::mem::replace(&mut queued[d.to.index()], true) {
                    work.push(Reverse((rank[d.to.index()], d.to)));
                }
            }
            at[u.index()] = Some(here);
            if requeue_self {
                queued[u.index()] = true;
                work.push(Reverse((rank[u.index()], u)));
            }
        }
        if !stop_at_player {
            in_reach = at.iter().map(Option::is_some).collect();
        }
        for (o, a) in out.iter_mut().zip(at) {
            match (o, a) {
                (Some(o), Some(a)) => {
                    o.union(&a);
                }
                (o @ None, a) => *o = a,
                (Some(_), None) => {}
            }
        }
    }
    Arrivals {
        assigned: out,
        in_reach,
    }
}

/// Whether each node lies on a cycle (of any edges; a self-loop counts).
pub(crate) fn on_cycle(g: &Game) -> Vec<bool> {
    let comp = components(g, |_| true);
    let mut size = vec![0usize; g.node_capacity()];
    for &c in comp.iter().filter(|&&c| c != usize::MAX) {
        size[c] += 1;
    }
    let mut out = vec![false; g.node_capacity()];
    for n in g.nodes().ids() {
        out[n.index()] =
            size[comp[n.index()]] > 1 || g.outgoing(n).iter().any(|&e| g.edge(e).to == n);
    }
    out
}

/// The strongly connected component of every node (an index per component; `usize::MAX` for
/// unused node slots) in the graph of the edges `keep` accepts.
pub(crate) fn components(g: &Game, keep: impl Fn(EdgeId) -> bool) -> Vec<usize> {
    // Iterative Tarjan.
    let cap = g.node_capacity();
    let mut index = vec![usize::MAX; cap];
    let mut low = vec![0usize; cap];
    let mut on_stack = vec![false; cap];
    let mut stack: Vec<NodeId> = Vec::new();
    let mut comp = vec![usize::MAX; cap];
    let mut comps = 0usize;
    let mut next = 0usize;
    for root in g.nodes().ids() {
        if index[root.index()] != usize::MAX {
            continue;
        }
        // (node, position in its outgoing list)
        let mut frames: Vec<(NodeId, usize)> = vec![(root, 0)];
        index[root.index()] = next;
        low[root.index()] = next;
        next += 1;
        stack.push(root);
        on_stack[root.index()] = true;
        while let Some(&mut (u, ref mut i)) = frames.last_mut() {
            let outs = g.outgoing(u);
            if *i < outs.len() {
                let e = outs[*i];
                *i += 1;
                if !keep(e) {
                    continue;
                }
                let w = g.edge(e).to;
                if index[w.index()] == usize::MAX {
                    index[w.index()] = next;
                    low[w.index()] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w.index()] = true;
                    frames.push((w, 0));
                } else if on_stack[w.index()] {
                    low[u.index()] = low[u.index()].min(index[w.index()]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(p, _)) = frames.last() {
                low[p.index()] = low[p.index()].min(low[u.index()]);
            }
            if low[u.index()] == index[u.index()] {
                loop {
                    let w = stack.pop().expect("the component's nodes are on the stack");
                    on_stack[w.index()] = false;
                    comp[w.index()] = comps;
                    if w == u {
                        break;
                    }
                }
                comps += 1;
            }
        }
    }
    comp
}
