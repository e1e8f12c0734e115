//! Which variables may hold different values on two walks of one move that have shown the same tags
//! so far. A proper game's walks with the same labelling end in the same state (a move is
//! determined by its labels), but on the way they may differ: an untagged loop `k = kn[k]` runs a
//! different number of times on each, and only a later `k = k1` makes them agree again. Removing
//! that store (dead or inlined) would leave them apart at the end of the move, so the optimised
//! game would have more moves (inline_assignment asks this analysis first).
//!
//! A forward may-analysis on `crate::dataflow` (checks included). A variable becomes walk-dependent when it is assigned
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
//! Complexity: O(N + E) for the components, then one solve whose domain is a bit set over the R
//! variables that can become walk-dependent at all (none in most games: then nothing runs), so
//! O(E · R · R / 64).

use crate::dataflow;
use crate::util::NodeMap;
use crate::util::{assigns_player, names_of, reads, strongly_connected_components};
use rg_core::{EdgeData, EdgeId, ExprData, Game, Label, NodeId, Symbol};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub(crate) struct WalkDependent {
    bit: HashMap<Symbol, usize>,
    at: NodeMap<Option<Box<[u64]>>>,
}

impl WalkDependent {
    /// Whether `v` may differ at `n` between two walks of one move with the same tags so far.
    pub(crate) fn may_differ(&self, n: NodeId, v: Symbol) -> bool {
        let Some(&b) = self.bit.get(&v) else {
            return false;
        };
        self.at[n]
            .as_ref()
            .is_some_and(|k| k[b / 64] & (1 << (b % 64)) != 0)
    }
}

fn silent(g: &Game, d: &EdgeData) -> bool {
    !d.label.is_tag() && !assigns_player(g, &d.label)
}

/// Marks the silent edges that lie on a cycle of silent edges.
fn cyclic_edges(g: &Game) -> Vec<bool> {
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); g.node_capacity()];
    for (_, d) in g.edges() {
        if silent(g, d) {
            succ[d.from.0 as usize].push(d.to.0);
        }
    }
    let component = strongly_connected_components(&succ);
    let mut out = vec![false; g.edge_entries().len()];
    for (e, d) in g.edges() {
        out[e.0 as usize] =
            silent(g, d) && component[d.from.0 as usize] == component[d.to.0 as usize];
    }
    out
}

/// The analysis on the framework of `crate::dataflow`: the walk-dependent variables as bits over
/// the variables that can become walk-dependent at all.
struct Analysis<'a> {
    bit: &'a HashMap<Symbol, usize>,
    cyclic: Vec<bool>,
}

impl Analysis<'_> {
    fn has(&self, k: &[u64], s: Symbol) -> bool {
        self.bit
            .get(&s)
            .is_some_and(|&b| k[b / 64] & (1 << (b % 64)) != 0)
    }

    fn set(&self, k: &mut [u64], v: Symbol, on: bool) {
        if let Some(&b) = self.bit.get(&v) {
            if on {
                k[b / 64] |= 1 << (b % 64);
            } else {
                k[b / 64] &= !(1 << (b % 64));
            }
        }
    }
}

impl dataflow::Analysis for Analysis<'_> {
    type Domain = Box<[u64]>;

    fn extreme(&self, _: &Game) -> Box<[u64]> {
        vec![0; self.bit.len().div_ceil(64)].into_boxed_slice()
    }

    fn transfer(&self, g: &Game, k: &mut Box<[u64]>, edge: Option<EdgeId>) -> bool {
        let Some(e) = edge else { return true };
        let d = g.edge(e);
        if assigns_player(g, &d.label) {
            k.fill(0);
            return true;
        }
        match d.label {
            Label::TagVar(v) => self.set(k, v, false),
            Label::Assign { lhs, .. } => {
                let mut dependent = self.cyclic[e.0 as usize];
                reads(g, &d.label, &mut |s| dependent |= self.has(k, s));
                self.set(k, g.expr_root(lhs), dependent);
            }
            Label::AssignAny { lhs, .. } => self.set(k, g.expr_root(lhs), true),
            Label::Compare {
                lhs,
                rhs,
                negated: false,
            } => {
                // After `v == r` every walk still here has `v` equal to `r`.
                for (a, other) in [(lhs, rhs), (rhs, lhs)] {
                    if let ExprData::Ref(v) = g.expr(g.strip_casts(a)) {
                        let mut dependent = false;
                        names_of(g, other, &mut |s| dependent |= self.has(k, s));
                        if !dependent {
                            self.set(k, v, false);
                        }
                    }
                }
            }
            _ => {}
        }
        true
    }

    fn join(&self, acc: &mut Box<[u64]>, other: &Box<[u64]>) -> bool {
        let mut grew = false;
        for (a, b) in acc.iter_mut().zip(other.iter()) {
            grew |= *a | b != *a;
            *a |= b;
        }
        grew
    }

    fn with_reachability(&self) -> bool {
        true
    }
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
    let at = dataflow::solve(g, &Analysis { bit: &bit, cyclic });
    WalkDependent { bit, at }
}
