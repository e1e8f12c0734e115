//! Which variables may hold different values on two walks of one move that have shown the same
//! tags so far. A proper game's walks with the same labelling end in the same state (rg.md §11,
//! move unambiguity), but on the way they may differ: an untagged loop `k = kn[k]` runs a
//! different number of times on each, and only a later `k = k1` makes them agree again. Removing
//! that store (dead or inlined) would leave them apart at the end of the move, so the optimised
//! game would have more moves (inline_assignment asks this analysis first).
//!
//! A forward may-analysis over every node. A variable becomes walk-dependent when it is assigned
//! on a *cyclic silent edge* (an edge that is neither a tag nor a `player` assignment, inside a
//! strongly connected component of such edges) or by `T(*)`, and when it is assigned from an
//! expression that reads a walk-dependent variable (a cell assignment also when the map already
//! is). It stops being one when it is shown (`$$ v`), assigned as a whole from an expression that
//! reads none, or compared equal to such an expression; every variable stops being one when a
//! move ends (`player` is assigned). Paths meet by union.
//!
//! Not covered: two untagged branches that are passable together and store different values
//! without a loop; the lowerings guard such branches with exclusive conditions, which this
//! analysis does not read.
//!
//! Complexity: O(N + E) for the components and O(E · R / 64) per pass of the worklist for the
//! R variables that can become walk-dependent at all (none in most games: then nothing runs).

use crate::util::{assigns_player, reads};
use petgraph::graph::{DiGraph, NodeIndex};
use rg_core::{EdgeData, ExprData, Game, Label, NodeId, Symbol};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub(crate) struct WalkDependent {
    bit: HashMap<Symbol, usize>,
    words: usize,
    at: Vec<u64>,
}

impl WalkDependent {
    /// Whether `v` may differ at `n` between two walks of one move with the same tags so far.
    pub(crate) fn may_differ(&self, n: NodeId, v: Symbol) -> bool {
        self.bit
            .get(&v)
            .is_some_and(|&b| self.at[n.0 as usize * self.words + b / 64] & (1 << (b % 64)) != 0)
    }
}

fn silent(g: &Game, d: &EdgeData) -> bool {
    !d.label.is_tag() && !assigns_player(g, &d.label)
}

/// Marks the silent edges that lie on a cycle of silent edges.
fn cyclic_edges(g: &Game) -> Vec<bool> {
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(g.node_capacity(), g.edge_count());
    for _ in 0..g.node_capacity() {
        graph.add_node(());
    }
    for (_, d) in g.edges() {
        if silent(g, d) {
            graph.add_edge(
                NodeIndex::new(d.from.0 as usize),
                NodeIndex::new(d.to.0 as usize),
                (),
            );
        }
    }
    let mut component = vec![usize::MAX; g.node_capacity()];
    for (i, scc) in petgraph::algo::tarjan_scc(&graph).into_iter().enumerate() {
        for n in scc {
            component[n.index()] = i;
        }
    }
    let mut out = vec![false; g.edge_entries().len()];
    for (e, d) in g.edges() {
        out[e.0 as usize] =
            silent(g, d) && component[d.from.0 as usize] == component[d.to.0 as usize];
    }
    out
}

pub(crate) fn walk_dependent(g: &Game) -> WalkDependent {
    let cyclic = cyclic_edges(g);
    let root_of = |d: &EdgeData| match d.label {
        Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => Some(g.expr_root(lhs)),
        _ => None,
    };
    // The variables that can become walk-dependent: the seeds, closed under assignment.
    let mut bit: HashMap<Symbol, usize> = HashMap::new();
    for (e, d) in g.edges() {
        if let Some(v) = root_of(d)
            && (cyclic[e.0 as usize] || matches!(d.label, Label::AssignAny { .. }))
            && !assigns_player(g, &d.label)
        {
            let next = bit.len();
            bit.entry(v).or_insert(next);
        }
    }
    if bit.is_empty() {
        return WalkDependent::default();
    }
    loop {
        let before = bit.len();
        for (_, d) in g.edges() {
            let Some(v) = root_of(d) else { continue };
            if bit.contains_key(&v) || assigns_player(g, &d.label) {
                continue;
            }
            let mut tainted = false;
            reads(g, &d.label, &mut |s| tainted |= bit.contains_key(&s));
            if tainted {
                let next = bit.len();
                bit.insert(v, next);
            }
        }
        if bit.len() == before {
            break;
        }
    }
    let words = bit.len().div_ceil(64);
    let mut at = vec![0u64; g.node_capacity() * words];
    let mut queued = vec![true; g.node_capacity()];
    let mut work: Vec<NodeId> = (0..g.node_capacity() as u32).map(NodeId).collect();
    let mut out = vec![0u64; words];
    let set = |w: &mut [u64], b: usize, on: bool| {
        if on {
            w[b / 64] |= 1 << (b % 64);
        } else {
            w[b / 64] &= !(1 << (b % 64));
        }
    };
    while let Some(n) = work.pop() {
        queued[n.0 as usize] = false;
        for &e in g.outgoing(n) {
            let d = g.edge(e);
            let base = n.0 as usize * words;
            out.copy_from_slice(&at[base..base + words]);
            let input = &at[base..base + words];
            let has = |s: Symbol| {
                bit.get(&s)
                    .is_some_and(|&b| input[b / 64] & (1 << (b % 64)) != 0)
            };
            let reads_dependent = |label: &Label| {
                let mut any = false;
                reads(g, label, &mut |s| any |= has(s));
                any
            };
            if assigns_player(g, &d.label) {
                out.fill(0);
            } else {
                match d.label {
                    Label::TagVar(v) => {
                        if let Some(&b) = bit.get(&v) {
                            set(&mut out, b, false);
                        }
                    }
                    Label::Assign { lhs, .. } => {
                        if let Some(&b) = bit.get(&g.expr_root(lhs)) {
                            set(
                                &mut out,
                                b,
                                cyclic[e.0 as usize] || reads_dependent(&d.label),
                            );
                        }
                    }
                    Label::AssignAny { lhs, .. } => {
                        if let Some(&b) = bit.get(&g.expr_root(lhs)) {
                            set(&mut out, b, true);
                        }
                    }
                    Label::Compare {
                        lhs,
                        rhs,
                        negated: false,
                    } => {
                        // After `v == r` every walk still here has `v` equal to `r`.
                        for (a, other) in [(lhs, rhs), (rhs, lhs)] {
                            if let ExprData::Ref(v) = g.expr(g.strip_casts(a))
                                && let Some(&b) = bit.get(&v)
                            {
                                let mut any = false;
                                crate::util::names_of(g, other, &mut |s| any |= has(s));
                                if !any {
                                    set(&mut out, b, false);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            let tb = d.to.0 as usize * words;
            let mut grew = false;
            for (t, o) in at[tb..tb + words].iter_mut().zip(&out) {
                if *t | o != *t {
                    *t |= o;
                    grew = true;
                }
            }
            if grew && !queued[d.to.0 as usize] {
                queued[d.to.0 as usize] = true;
                work.push(d.to);
            }
        }
    }
    WalkDependent { bit, words, at }
}
