//! Where the interpreter's searches (the walks that find the moves of one player) start, sets of
//! variables, and strongly connected components: shared by the pragma passes (see also
//! [`super::searches`]).
//!
//! * A *move search* starts at `begin` (the initial state) or at the target of an assignment to
//!   `player` (the state after a move) and never walks past an assignment to `player`.
//! * A *reach search* starts at the start node of a reachability check.

use crate::util::NodeMap;
use crate::util::assigns_player;
use rg_core::EntityId;
use rg_core::{EdgeId, Game, Label, NodeId};

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
        let mut seen_m = NodeMap::from_elem(false, g.node_capacity());
        let mut seen_r = NodeMap::from_elem(false, g.node_capacity());
        let add = |v: &mut Vec<NodeId>, seen: &mut NodeMap<bool>, n: NodeId| {
            if !std::mem::replace(&mut seen[n], true) {
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
    pub(crate) fn add(&mut self, i: usize) -> bool {
        let (w, bit) = (&mut self.0[i / 64], 1u64 << (i % 64));
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Whether `i` is in the set.
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// The positions in the set, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| k * 64 + b)
        })
    }

    /// Whether every member of `self` is in `other`.
    pub(crate) fn is_subset(&self, other: &VarSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    /// `self ∪= other`; whether `self` grew.
    pub(crate) fn union(&mut self, other: &VarSet) -> bool {
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let old = *a;
            *a |= b;
            grew |= *a != old;
        }
        grew
    }
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
    // (node, position in its outgoing list); one allocation for all roots.
    let mut frames: Vec<(NodeId, usize)> = Vec::new();
    for root in g.nodes().ids() {
        if index[root.index()] != usize::MAX {
            continue;
        }
        frames.push((root, 0));
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
