//! ReachingDefinitions (the reference's), as sets: for every variable, which assignment edges
//! (or the initial value) may have written its current value at a node.
//!
//! The reference keeps one of `All(edge)`, `Any(edge)` and `Mixed` per variable, which tells
//! whether *one* definition reaches a node but not which definitions reach a node where several
//! do; `inline_assignment` then has to search forward from every definition for its usages
//! (O(A · E)). Sets answer both questions, so the def-use chains come out of one solve. A set
//! that would grow beyond [`CAP`] definitions becomes [`Defs::ANY`] ("any definition").
//!
//! Every assignment and any-assignment to a variable or to one of its cells defines it (a cell
//! assignment produces a new value of the whole variable). The analysis flows into check
//! subautomata (a check's walk starts in the state of its source).
//!
//! Complexity: O(V) per transfer and join for V variables; a set only grows, so the solver does
//! O(E · V · CAP) transfers at most.
//!
//! [`solve_sets`] computes the same solution with one bit per definition (and per variable's
//! initial value) at every node: a transfer clears the bits of the assigned variable's
//! definitions and sets one, a join is a bitwise or, and a set is read as [`Defs`] (or
//! [`Defs::ANY`] beyond [`CAP`]) only when asked for. The cap commutes with union and with the
//! transfers, so reading the capped set from the exact one gives the capped analysis's least
//! fixed point. With D definitions this is O(E · (D + V) / 64) per sweep instead of
//! O(E · V · 28 bytes): a GDL translation (tron_10x10.kif: 786 variables, 1203 assignments,
//! 4530 nodes) copied 100 MB per sweep before.

use crate::analysis::values::Values;
use crate::dataflow::{Analysis, solve};
use crate::util::NodeMap;
use rg_core::{EdgeId, EntityId, Game, Label, NodeId, Symbol};
use std::collections::HashMap;

/// The most definitions a set holds before it becomes "any definition".
pub(crate) const CAP: usize = 6;

/// A definition: an assignment edge, or the initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Def(u32);

impl Def {
    /// The initial value.
    pub(crate) const INIT: Def = Def(u32::MAX);

    /// The definition by an assignment edge.
    pub(crate) fn edge(e: EdgeId) -> Def {
        Def(e.0)
    }

    /// The assignment edge, unless this is the initial value.
    pub(crate) fn as_edge(self) -> Option<EdgeId> {
        (self != Def::INIT).then_some(EdgeId(self.0))
    }
}

/// The definitions of one variable that may reach a node, sorted; or "any definition" when
/// more than [`CAP`] may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Defs {
    /// Number of items, or [`Defs::MANY`].
    len: u8,
    items: [Def; CAP],
}

impl Defs {
    const MANY: u8 = u8::MAX;

    /// Any definition may reach.
    pub(crate) const ANY: Defs = Defs {
        len: Defs::MANY,
        items: [Def::INIT; CAP],
    };

    pub(crate) fn one(d: Def) -> Defs {
        let mut items = [Def::INIT; CAP];
        items[0] = d;
        Defs { len: 1, items }
    }

    /// The definitions, or `None` when any may reach.
    pub(crate) fn items(&self) -> Option<&[Def]> {
        (self.len != Defs::MANY).then(|| &self.items[..self.len as usize])
    }

    /// The set of sorted, distinct `defs` ([`Defs::ANY`] beyond [`CAP`]).
    fn from_sorted(defs: impl Iterator<Item = Def>) -> Defs {
        let mut items = [Def::INIT; CAP];
        let mut len = 0;
        for d in defs {
            if len == CAP {
                return Defs::ANY;
            }
            items[len] = d;
            len += 1;
        }
        Defs {
            len: len as u8,
            items,
        }
    }

    /// The single definition, if exactly one reaches.
    pub(crate) fn single(&self) -> Option<Def> {
        (self.len == 1).then_some(self.items[0])
    }

    /// Adds the definitions of `other`; returns whether `self` changed.
    fn union(&mut self, other: &Defs) -> bool {
        let (Some(a), Some(b)) = (self.items(), other.items()) else {
            let changed = self.len != Defs::MANY;
            *self = Defs::ANY;
            return changed;
        };
        // Merge two sorted lists.
        let mut items = [Def::INIT; CAP];
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    i += 1;
                    j += 1;
                    *x
                }
                (Some(x), Some(y)) if x < y => {
                    i += 1;
                    *x
                }
                (Some(x), None) => {
                    i += 1;
                    *x
                }
                (_, Some(y)) => {
                    j += 1;
                    *y
                }
                (None, None) => break,
            };
            if n == CAP {
                *self = Defs::ANY;
                return true;
            }
            items[n] = next;
            n += 1;
        }
        let changed = n != a.len();
        *self = Defs {
            len: n as u8,
            items,
        };
        changed
    }
}

/// The analysis: one slot per variable.
pub(crate) struct ReachingDefinitions {
    slots: HashMap<Symbol, usize>,
}

impl ReachingDefinitions {
    pub(crate) fn new(g: &Game, values: &Values) -> Self {
        let mut slots = HashMap::new();
        for v in &g.variables {
            if values.is_variable(v.name) {
                let n = slots.len();
                slots.entry(v.name).or_insert(n);
            }
        }
        ReachingDefinitions { slots }
    }

    /// The slot and definition set written by an edge, if it assigns a variable.
    fn defines(&self, g: &Game, edge: Option<EdgeId>) -> Option<(usize, Defs)> {
        let e = edge?;
        let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = g.edge(e).label else {
            return None;
        };
        Some((self.slot(g.expr_root(lhs))?, Defs::one(Def::edge(e))))
    }

    /// The slot of a variable (`None` for names that are not variables).
    /// The number of tracked variables (slots of the domain).
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn slot(&self, v: Symbol) -> Option<usize> {
        self.slots.get(&v).copied()
    }
}

impl Analysis for ReachingDefinitions {
    type Domain = Box<[Defs]>;

    fn extreme(&self, _g: &Game) -> Self::Domain {
        vec![Defs::one(Def::INIT); self.slots.len()].into_boxed_slice()
    }

    fn transfer(&self, g: &Game, k: &mut Self::Domain, edge: Option<EdgeId>) -> bool {
        if let Some((i, d)) = self.defines(g, edge) {
            k[i] = d;
        }
        true
    }

    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain) -> bool {
        let mut changed = false;
        for (a, b) in acc.iter_mut().zip(other.iter()) {
            if a != b {
                changed |= a.union(b);
            }
        }
        changed
    }

    fn flow_into(
        &self,
        g: &Game,
        src: &Self::Domain,
        edge: Option<EdgeId>,
        dst: &mut Self::Domain,
    ) -> bool {
        let def = self.defines(g, edge);
        let mut changed = false;
        for (i, (a, b)) in dst.iter_mut().zip(src.iter()).enumerate() {
            let b = match def {
                Some((j, d)) if j == i => d,
                _ => *b,
            };
            if *a != b {
                changed |= a.union(&b);
            }
        }
        changed
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

/// The solution of [`ReachingDefinitions`] at every node.
pub(crate) enum Solution {
    /// As the generic solver computes it.
    Dense(NodeMap<Option<Box<[Defs]>>>),
    /// One bit per definition (see [`solve_sets`]).
    Bits(BitSolution),
}

impl Solution {
    /// Whether some walk reaches `n`.
    pub(crate) fn reached(&self, n: NodeId) -> bool {
        match self {
            Solution::Dense(at) => at[n].is_some(),
            Solution::Bits(b) => b.reached(n),
        }
    }

    /// The definitions of the variable in `slot` that may reach `n` (`None`: no walk reaches
    /// `n`).
    pub(crate) fn defs(&self, n: NodeId, slot: usize) -> Option<Defs> {
        match self {
            Solution::Dense(at) => at[n].as_ref().map(|k| k[slot]),
            Solution::Bits(b) => b.defs(n, slot),
        }
    }
}

/// Reaching definitions as bit sets: bit `i` of a node is definition `def[i]`; the bits of
/// slot `s` are `start[s]..start[s + 1]`, in increasing [`Def`] order (the initial value last).
pub(crate) struct BitSolution {
    rows: NodeMap<Option<Box<[u64]>>>,
    start: Vec<usize>,
    def: Vec<Def>,
}

impl BitSolution {
    fn reached(&self, n: NodeId) -> bool {
        self.rows[n].is_some()
    }

    fn defs(&self, n: NodeId, slot: usize) -> Option<Defs> {
        let row = self.rows[n].as_ref()?;
        let set = (self.start[slot]..self.start[slot + 1])
            .filter(|&i| row[i / 64] >> (i % 64) & 1 == 1)
            .map(|i| self.def[i]);
        Some(Defs::from_sorted(set))
    }
}

/// The bits of `a..b` that lie in word `w`.
fn range_mask(w: usize, a: usize, b: usize) -> u64 {
    let (lo, hi) = (a.max(w * 64), b.min(w * 64 + 64));
    if lo >= hi {
        return 0;
    }
    let len = hi - lo;
    let ones = if len == 64 { !0 } else { (1u64 << len) - 1 };
    ones << (lo - w * 64)
}

/// [`ReachingDefinitions`] over bit sets, for the generic solver: a definition edge clears the
/// bits `a..b` of its slot and sets its own `bit`.
struct DefBits {
    /// Per edge: `(a, b, bit)` when it defines a slot.
    edge_bit: Vec<Option<(usize, usize, usize)>>,
    /// The initial values' bits.
    init: Box<[u64]>,
}

impl Analysis for DefBits {
    type Domain = Box<[u64]>;

    fn extreme(&self, _: &Game) -> Box<[u64]> {
        self.init.clone()
    }

    fn transfer(&self, _: &Game, k: &mut Box<[u64]>, edge: Option<EdgeId>) -> bool {
        if let Some((a, b, bit)) = edge.and_then(|e| self.edge_bit[e.index()]) {
            for w in a / 64..b.div_ceil(64) {
                k[w] &= !range_mask(w, a, b);
            }
            k[bit / 64] |= 1 << (bit % 64);
        }
        true
    }

    fn join(&self, acc: &mut Box<[u64]>, other: &Box<[u64]>) -> bool {
        let mut changed = false;
        for (d, s) in acc.iter_mut().zip(other.iter()) {
            changed |= *s & !*d != 0;
            *d |= s;
        }
        changed
    }

    /// `transfer` then `join`, word by word without a copy of `src`.
    fn flow_into(
        &self,
        _: &Game,
        src: &Box<[u64]>,
        edge: Option<EdgeId>,
        dst: &mut Box<[u64]>,
    ) -> bool {
        let Some((a, b, bit)) = edge.and_then(|e| self.edge_bit[e.index()]) else {
            return self.join(dst, src);
        };
        let mut changed = false;
        for (w, (d, s)) in dst.iter_mut().zip(src.iter()).enumerate() {
            let mut s = s & !range_mask(w, a, b);
            if w == bit / 64 {
                s |= 1 << (bit % 64);
            }
            changed |= s & !*d != 0;
            *d |= s;
        }
        changed
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

/// The most bits [`solve_sets`] stores (64 MB); beyond, or when the bits would take more room
/// than the dense sets, it uses the generic solver on [`Defs`].
const BIT_BUDGET: usize = 1 << 29;

/// Solves `rd` on `g`, by bit sets when they are smaller than the dense sets (always, unless
/// variables have hundreds of definitions each).
pub(crate) fn solve_sets(g: &Game, rd: &ReachingDefinitions) -> Solution {
    // The definitions of each slot, in edge order (increasing `Def`), the initial value last.
    let mut per_slot: Vec<Vec<Def>> = vec![Vec::new(); rd.len()];
    let mut edge_def: Vec<Option<(usize, Def)>> = vec![None; g.edge_entries().len()];
    for (e, _) in g.edges() {
        if let Some((slot, d)) = rd.defines(g, Some(e)) {
            let d = d.single().expect("one definition");
            per_slot[slot].push(d);
            edge_def[e.index()] = Some((slot, d));
        }
    }
    let total: usize = per_slot.iter().map(|d| d.len() + 1).sum();
    let words = total.div_ceil(64).max(1);
    if g.node_capacity().saturating_mul(words).saturating_mul(64) > BIT_BUDGET
        || words * 8 > rd.len() * size_of::<Defs>()
    {
        return Solution::Dense(solve(g, rd));
    }
    let mut start = Vec::with_capacity(rd.len() + 1);
    let mut def = Vec::with_capacity(total);
    for defs in &per_slot {
        start.push(def.len());
        def.extend_from_slice(defs);
        def.push(Def::INIT);
    }
    start.push(def.len());
    // The bit of each definition edge, and the bits its slot owns.
    let edge_bit = edge_def
        .iter()
        .map(|x| {
            x.map(|(slot, d)| {
                let (a, b) = (start[slot], start[slot + 1]);
                let bit = a + def[a..b]
                    .binary_search(&d)
                    .expect("a definition of its slot");
                (a, b, bit)
            })
        })
        .collect();
    let mut init = vec![0u64; words].into_boxed_slice();
    for &end in &start[1..] {
        let i = end - 1;
        init[i / 64] |= 1 << (i % 64);
    }
    let rows = solve(g, &DefBits { edge_bit, init });
    Solution::Bits(BitSolution { rows, start, def })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::solve;
    use crate::testing::test_game;

    #[test]
    fn sets_of_definitions_join_and_saturate() {
        let g = test_game(
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: v = q;\n\
             begin, a: ;\n\
             a, b: v = T(*);\n\
             b, c: ;\n\
             a, c: $ t;\n\
             c, end: player = keeper;",
        );
        let values = Values::new(&g);
        let rd = ReachingDefinitions::new(&g, &values);
        let r = solve(&g, &rd);
        let v = rd.slot(g.find_sym("v").unwrap()).unwrap();
        let at = |n: &str| r[g.find_node(g.find_sym(n).unwrap()).unwrap()].clone();
        let e = |i: usize| Def::edge(EdgeId(i as u32));
        assert_eq!(at("a").unwrap()[v].items(), Some(&[e(0), Def::INIT][..]));
        assert_eq!(at("b").unwrap()[v].single(), Some(e(2)));
        assert_eq!(
            at("c").unwrap()[v].items(),
            Some(&[e(0), e(2), Def::INIT][..])
        );
        let mut many = Defs::one(Def::INIT);
        for i in 0..CAP {
            assert!(many.union(&Defs::one(e(i))));
        }
        assert_eq!(many, Defs::ANY);
        assert!(!many.union(&Defs::one(e(1))));
        assert_eq!(many.items(), None);
    }

    /// Every (node, variable) of both solutions.
    fn all_defs(g: &Game, rd: &ReachingDefinitions, sol: &Solution) -> Vec<Option<Defs>> {
        g.nodes()
            .ids()
            .flat_map(|n| (0..rd.len()).map(move |s| (n, s)))
            .map(|(n, s)| sol.defs(n, s))
            .collect()
    }

    #[test]
    fn bit_sets_give_the_solution_of_the_generic_solver() {
        // A loop with more than CAP definitions of `v`, a cell assignment, a check whose
        // subautomaton assigns, and a node no walk reaches.
        let g = test_game(
            "type T = {p, q};\n\
             type I = {0, 1, 2, 3, 4, 5, 6, 7};\n\
             var v: I = 0;\n\
             var w: T = p;\n\
             var m: T -> T = {:p};\n\
             begin, a: player = x;\n\
             a, b0: v = 1;\n\
             a, b0: v = 2;\n\
             a, b0: v = 3;\n\
             b0, b: ;\n\
             b, c: v = 4;\n\
             b, c: v = 5;\n\
             b, c: ;\n\
             c, d: v = 6;\n\
             c, d: v = 0;\n\
             c, d: ;\n\
             c, d: m[w] = q;\n\
             d, a: v = 7;\n\
             d, e: ? s -> t;\n\
             s, t: w = q;\n\
             e, end: player = keeper;\n\
             z, end: w = p;",
        );
        let values = Values::new(&g);
        let rd = ReachingDefinitions::new(&g, &values);
        let bits = solve_sets(&g, &rd);
        assert!(matches!(bits, Solution::Bits(_)));
        let dense = Solution::Dense(solve(&g, &rd));
        let (x, y) = (all_defs(&g, &rd, &bits), all_defs(&g, &rd, &dense));
        assert_eq!(x, y);
        // The test is not vacuous: some set saturated, some node is not reached.
        assert!(x.iter().any(|d| d.is_some_and(|d| d.items().is_none())));
        assert!(x.iter().any(|d| d.is_none()));
        assert!(
            x.iter()
                .any(|d| d.is_some_and(|d| d.items().is_some_and(|i| i.len() > 1)))
        );
    }
}
