//! ConstantsAnalysis (the reference's): which expressions have a known value at each node.
//!
//! The knowledge at a node is a set of facts `expression ↦ value`, each true on every walk
//! that reaches the node. Differences from the reference, all sound:
//!
//! - values are compared as the interpreter compares them (a constant name and the symbol it
//!   stands for are one value), so joins keep more facts;
//! - the solver starts from "not reached" instead of the empty map (see `dataflow`), so a fact
//!   survives a loop that does not undo it;
//! - a comparison whose two sides are known and disagree cannot be walked: its target learns
//!   nothing from it (the pass then removes the edge);
//! - names resolve as in the interpreter (a constant shadows a variable of the same name).
//!
//! Transfer over `l = r`: evaluate `r`, forget every fact mentioning the assigned variable,
//! then record `l ↦ value`. Over `l == r` with one side known: record the other side. Over
//! `x != s` with `x` a variable whose type has exactly two values: record `x ↦` the other one
//! (not in the reference; a variable holds a value of its type in a proper game, which
//! compact_comparisons relies on too). Over an any-assignment: forget the assigned variable.
//! Everything else keeps the knowledge.
//!
//! Complexity: facts are kept sorted by expression id, so a lookup is O(log F) and a join or a
//! copy O(F) for F facts at a node; forgetting a variable is a binary search plus a scan of the
//! facts about compound expressions only (see [`Facts`]). The solver needs O(E · F) transfers
//! at most.

use super::values::{Known, NameKind, Values};
use crate::PassContext;
use crate::dataflow::{Analysis, solve_within};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, Symbol};

/// One fact `expression ↦ value` packed into a `u128`: the expression id in the top 32 bits,
/// then the kind of value (0: a symbol, 1: a map value), then the value's two `u32` fields.
/// Lists of facts sorted by the packed number are sorted by expression id, and comparing or
/// merging them compares plain integers (the solver spends most of its time merging lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fact(u128);

impl Fact {
    fn new(e: ExprId, v: Known) -> Fact {
        let (kind, a, b) = match v {
            Known::Sym(s) => (0u128, s.0, 0),
            Known::Map(m, context) => (1, m.0, context),
        };
        Fact((u128::from(e.0) << 96) | (kind << 64) | (u128::from(a) << 32) | u128::from(b))
    }

    /// The smallest packed fact about `e`: a fact about `e` or a later expression is `>=` it.
    fn key(e: ExprId) -> Fact {
        Fact(u128::from(e.0) << 96)
    }

    fn expr(self) -> ExprId {
        ExprId((self.0 >> 96) as u32)
    }

    fn value(self) -> Known {
        let a = (self.0 >> 32) as u32;
        if (self.0 >> 64) as u32 == 0 {
            Known::Sym(Symbol(a))
        } else {
            Known::Map(rg_core::ValueId(a), self.0 as u32)
        }
    }
}

/// Facts `expression ↦ value`, in two lists sorted by expression id: facts about a bare name
/// (`Ref`) and facts about any other expression. Expressions are hash-consed, so the only bare
/// name mentioning a variable `v` is `v` itself: forgetting `v` removes at most one fact of the
/// first list (a binary search) and scans only the second, which is usually short.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    names: Vec<Fact>,
    others: Vec<Fact>,
}

impl Clone for Facts {
    /// A copy with room for one more fact in each list: the solver copies the knowledge to
    /// apply a transfer, which usually records one fact (growing an exact-size copy copied it
    /// again).
    fn clone(&self) -> Self {
        let copy = |l: &Vec<Fact>| {
            let mut c = Vec::with_capacity(l.len() + 1);
            c.extend_from_slice(l);
            c
        };
        Facts {
            names: copy(&self.names),
            others: copy(&self.others),
        }
    }
}

/// The position of the fact about `e` in a sorted list, or where it would go.
fn position(list: &[Fact], e: ExprId) -> Result<usize, usize> {
    let key = Fact::key(e);
    let i = list.partition_point(|f| *f < key);
    match list.get(i) {
        Some(f) if f.expr() == e => Ok(i),
        _ => Err(i),
    }
}

/// The value recorded for `e` in a sorted list.
fn find(list: &[Fact], e: ExprId) -> Option<Known> {
    position(list, e).ok().map(|i| list[i].value())
}

/// The length of the longest common prefix of `a` and `b`.
fn common_prefix(a: &[Fact], b: &[Fact]) -> usize {
    // Chunks first: lists that agree over long runs are the rule, and comparing packed facts
    // chunk by chunk is a few vector compares.
    const CHUNK: usize = 8;
    let n = a.len().min(b.len());
    let mut k = 0;
    while k + CHUNK <= n {
        let differ = a[k..k + CHUNK]
            .iter()
            .zip(&b[k..k + CHUNK])
            .fold(0, |d, (x, y)| d | (x.0 ^ y.0));
        if differ != 0 {
            break;
        }
        k += CHUNK;
    }
    while k < n && a[k] == b[k] {
        k += 1;
    }
    k
}

/// Keeps the facts of `list` that are `extra` or present with the same value in `other` (both
/// sorted): `list ∩ (other ∪ {extra})`. A merge that steps over the runs the two lists share
/// in one go (knowledge usually reaches a node along every path with few differences).
fn intersect(list: &mut Vec<Fact>, other: &[Fact], extra: Option<Fact>) {
    let n = list.len();
    let (mut i, mut j, mut w) = (0, 0, 0);
    while i < n {
        let run = common_prefix(&list[i..], &other[j..]);
        if run > 0 {
            if w != i {
                list.copy_within(i..i + run, w);
            }
            i += run;
            j += run;
            w += run;
            continue;
        }
        let f = list[i];
        // Facts about one expression come after all facts about smaller ones.
        let key = Fact::key(f.expr());
        while j < other.len() && other[j] < key {
            j += 1;
        }
        let keep = if j < other.len() && other[j] == f {
            j += 1;
            true
        } else {
            extra == Some(f)
        };
        if keep {
            list[w] = f;
            w += 1;
        }
        i += 1;
    }
    list.truncate(w);
}

impl Facts {
    /// The value recorded for exactly this expression.
    pub(crate) fn get(&self, e: ExprId) -> Option<Known> {
        find(&self.names, e).or_else(|| find(&self.others, e))
    }

    /// The number of facts.
    pub(crate) fn len(&self) -> usize {
        self.names.len() + self.others.len()
    }

    /// Records `e ↦ v`.
    pub(crate) fn set(&mut self, g: &Game, e: ExprId, v: Known) {
        let list = match g.expr(e) {
            ExprData::Ref(_) => &mut self.names,
            _ => &mut self.others,
        };
        let f = Fact::new(e, v);
        match position(list, e) {
            Ok(i) => list[i] = f,
            Err(i) => list.insert(i, f),
        }
    }

    /// Keeps the facts present with the same value in both; returns whether any was dropped.
    fn intersect(&mut self, other: &Facts) -> bool {
        let before = (self.names.len(), self.others.len());
        intersect(&mut self.names, &other.names, None);
        intersect(&mut self.others, &other.others, None);
        (self.names.len(), self.others.len()) != before
    }

    /// Intersects with the knowledge `other` after forgetting `forgotten` and recording
    /// `extra` (a fact about an expression `other` knows nothing about) — the join of a
    /// transfer's result without building it; returns whether any fact was dropped.
    fn intersect_transferred(
        &mut self,
        g: &Game,
        other: &Facts,
        forgotten: Option<Symbol>,
        extra: Option<(ExprId, Known)>,
    ) -> bool {
        let before = (self.names.len(), self.others.len());
        let (extra_name, extra_other) = match extra {
            Some((e, v)) if matches!(g.expr(e), ExprData::Ref(_)) => (Some(Fact::new(e, v)), None),
            Some((e, v)) => (None, Some(Fact::new(e, v))),
            None => (None, None),
        };
        intersect(&mut self.names, &other.names, extra_name);
        intersect(&mut self.others, &other.others, extra_other);
        if let Some(v) = forgotten {
            // The only bare name mentioning `v` is `v` itself (expressions are hash-consed).
            if let Some(e) = g.exprs().find(&ExprData::Ref(v))
                && let Ok(i) = position(&self.names, e)
                && Some(self.names[i]) != extra_name
            {
                self.names.remove(i);
            }
            if !self.others.is_empty() {
                self.others
                    .retain(|&f| Some(f) == extra_other || !mentions(g, f.expr(), v));
            }
        }
        (self.names.len(), self.others.len()) != before
    }

    /// Drops every fact mentioning `v`.
    fn forget(&mut self, g: &Game, v: Symbol) {
        if let Some(e) = g.exprs().find(&ExprData::Ref(v))
            && let Ok(i) = position(&self.names, e)
        {
            self.names.remove(i);
        }
        self.others.retain(|f| !mentions(g, f.expr(), v));
    }
}

/// Whether `e` mentions the name `v` anywhere.
pub(crate) fn mentions(g: &Game, e: ExprId, v: Symbol) -> bool {
    match g.expr(e) {
        ExprData::Ref(s) => s == v,
        ExprData::Cast(_, x) => mentions(g, x, v),
        ExprData::Access(m, i) => mentions(g, m, v) || mentions(g, i, v),
    }
}

/// A solve keeps up to one fact per variable at every node and copies them along every edge.
/// Passes that solve skip games with more (node, variable) pairs than this: a 650k-edge GDL
/// translation with 1464 variables (racer.kif) took minutes and gigabytes. The corpus's RBG
/// and HRG games stay far below it.
const FACT_BUDGET: usize = 4_000_000;

/// Whether `g` is too large for a solve of [`Constants`] (see [`FACT_BUDGET`]).
pub(crate) fn too_large(g: &Game) -> bool {
    g.node_capacity().saturating_mul(g.variables.len()) > FACT_BUDGET
}

/// The solver starts from "not reached" and so walks the game roughly turn by turn until the
/// knowledge settles: the corpus's games settle within 3 visits per node, but a GDL translation
/// where pieces move slowly (checkersTiny.kif: 7053 nodes, 464 variables) needed 85 visits per
/// node and most of a 13 s translation. Beyond this many visits per node a solve gives up.
const VISITS_PER_NODE: usize = 16;

/// The knowledge at every node (see [`solve`](crate::dataflow::solve)) for `pass`, or `None`
/// when the game is [`too_large`] or the solve did not settle within [`VISITS_PER_NODE`] visits
/// per node; the latter records a warning in `cx`. The limit counts worklist visits, so the
/// outcome does not depend on timing. Solved once per game version (cached in `cx`).
pub(crate) fn solve_facts(
    g: &Game,
    c: &Constants<'_>,
    cx: &mut PassContext,
    pass: &str,
) -> Option<std::sync::Arc<crate::ConstantFacts>> {
    let facts = solve_facts_quietly(g, c, cx);
    if facts.is_none() && !too_large(g) {
        cx.warnings.push(format!(
            "{pass}: skipped, constant analysis did not settle within {VISITS_PER_NODE} visits \
             per node"
        ));
    }
    facts
}

/// [`solve_facts`] without a warning when the solve does not settle (for a pass that only
/// refines its results with the knowledge).
pub(crate) fn solve_facts_quietly(
    g: &Game,
    c: &Constants<'_>,
    cx: &mut PassContext,
) -> Option<std::sync::Arc<crate::ConstantFacts>> {
    if too_large(g) {
        return None;
    }
    let max_visits = g.node_capacity().max(1).saturating_mul(VISITS_PER_NODE);
    cx.constant_facts(g, || solve_within(g, c, max_visits))
}

/// The analysis, over the name resolution and constant values of one game.
pub(crate) struct Constants<'v> {
    pub(crate) values: &'v Values,
}

impl Constants<'_> {
    /// The value of `e` in a state satisfying `k` (§2.6 `eval`), or `None` when unknown.
    pub(crate) fn eval(&self, g: &Game, e: ExprId, k: &Facts) -> Option<Known> {
        if let Some(v) = k.get(e) {
            return Some(v);
        }
        match g.expr(e) {
            ExprData::Ref(s) => match self.values.kind(s) {
                NameKind::Variable => None,
                NameKind::Constant(i) => self.values.constant_value(g, i),
                NameKind::Symbol => Some(Known::Sym(s)),
            },
            ExprData::Cast(_, x) => self.eval(g, x, k),
            ExprData::Access(m, i) => {
                let Known::Sym(key) = self.eval(g, i, k)? else {
                    return None;
                };
                match (self.eval(g, m, k), g.expr(m)) {
                    (Some(map), _) => self.values.lookup(g, map, key),
                    (None, ExprData::Ref(name)) => self.values.outside_key(name, key),
                    (None, _) => None,
                }
            }
        }
    }

    /// The fact learnt when `e != s` held: if `e` is a variable with two values, it holds the
    /// other one.
    fn other_value(&self, g: &Game, e: ExprId, s: Symbol) -> Option<(ExprId, Known)> {
        match g.expr(e) {
            ExprData::Ref(v) => Some((e, Known::Sym(self.values.other_value(v, s)?))),
            _ => None,
        }
    }

    /// Records [`Self::other_value`] in `k`.
    fn refine_other(&self, g: &Game, k: &mut Facts, e: ExprId, s: Symbol) {
        if let Some((e, v)) = self.other_value(g, e, s) {
            k.set(g, e, v);
        }
    }
}

impl Analysis for Constants<'_> {
    type Domain = Facts;

    fn extreme(&self, g: &Game) -> Facts {
        let mut k = Facts::default();
        for v in &g.variables {
            if !self.values.is_variable(v.name) {
                continue;
            }
            if let (Some(e), Some(value)) = (
                g.exprs().find(&ExprData::Ref(v.name)),
                self.values.initial_value(g, v.init),
            ) && k.get(e).is_none()
            {
                k.set(g, e, value);
            }
        }
        k
    }

    fn transfer(&self, g: &Game, k: &mut Facts, edge: Option<EdgeId>) -> bool {
        let Some(edge) = edge else {
            return true;
        };
        match g.edge(edge).label {
            Label::Assign { lhs, rhs } => {
                let v = g.expr_root(lhs);
                let value = self.eval(g, rhs, k);
                k.forget(g, v);
                if let Some(value) = value
                    && self.values.is_variable(v)
                {
                    k.set(g, g.strip_casts(lhs), value);
                }
            }
            Label::AssignAny { lhs, .. } => k.forget(g, g.expr_root(lhs)),
            Label::Compare { lhs, rhs, negated } => {
                let (l, r) = (g.strip_casts(lhs), g.strip_casts(rhs));
                match (self.eval(g, l, k), self.eval(g, r, k)) {
                    (Some(a), Some(b)) if self.values.equal(a, b) == Some(negated) => {
                        return false;
                    }
                    (Some(a), None) if !negated => k.set(g, r, a),
                    (None, Some(b)) if !negated => k.set(g, l, b),
                    (Some(Known::Sym(s)), None) if negated => self.refine_other(g, k, r, s),
                    (None, Some(Known::Sym(s))) if negated => self.refine_other(g, k, l, s),
                    _ => {}
                }
            }
            Label::Reach { .. } | Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
        }
        true
    }

    fn join(&self, acc: &mut Facts, other: &Facts) -> bool {
        acc.intersect(other)
    }

    /// `transfer` then `join`, without copying `src`: the transfer's result is `src` less the
    /// facts mentioning an assigned variable, plus at most one new fact.
    fn flow_into(&self, g: &Game, src: &Facts, edge: Option<EdgeId>, dst: &mut Facts) -> bool {
        let Some(edge) = edge else {
            return dst.intersect(src);
        };
        match g.edge(edge).label {
            Label::Assign { lhs, rhs } => {
                let v = g.expr_root(lhs);
                let extra = self
                    .eval(g, rhs, src)
                    .filter(|_| self.values.is_variable(v))
                    .map(|value| (g.strip_casts(lhs), value));
                dst.intersect_transferred(g, src, Some(v), extra)
            }
            Label::AssignAny { lhs, .. } => {
                dst.intersect_transferred(g, src, Some(g.expr_root(lhs)), None)
            }
            Label::Compare { lhs, rhs, negated } => {
                let (l, r) = (g.strip_casts(lhs), g.strip_casts(rhs));
                let extra = match (self.eval(g, l, src), self.eval(g, r, src)) {
                    (Some(a), Some(b)) if self.values.equal(a, b) == Some(negated) => {
                        return false;
                    }
                    (Some(a), None) if !negated => Some((r, a)),
                    (None, Some(b)) if !negated => Some((l, b)),
                    (Some(Known::Sym(s)), None) if negated => self.other_value(g, r, s),
                    (None, Some(Known::Sym(s))) if negated => self.other_value(g, l, s),
                    _ => None,
                };
                dst.intersect_transferred(g, src, None, extra)
            }
            Label::Reach { .. } | Label::Skip | Label::Tag(_) | Label::TagVar(_) => {
                dst.intersect(src)
            }
        }
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::solve;
    use crate::testing::test_game;

    fn facts_at(g: &mut Game, node: &str, expr: &str) -> Option<Known> {
        let values = Values::new(g);
        let facts = solve(g, &Constants { values: &values });
        let n = g.find_node(g.find_sym(node).unwrap()).unwrap();
        let s = g.find_sym(expr).unwrap();
        let e = g.exprs().find(&ExprData::Ref(s))?;
        let k = facts[n].as_ref()?;
        Constants { values: &values }.eval(g, e, k)
    }

    #[test]
    fn the_example_of_the_spec_and_a_comparison_known_to_fail() {
        let text = "type T = {p, q, r};\n\
                    const nxt: T -> T = {p: q, q: r, :p};\n\
                    var v: T = p;\n\
                    var w: T = p;\n\
                    begin, a: v = q;\n\
                    a, b: w != nxt[v];\n\
                    a, f: w == nxt[v];\n\
                    f, end: player = keeper;\n\
                    b, c: w = T(*);\n\
                    c, d: v == q;\n\
                    d, end: player = keeper;";
        let mut g = test_game(text);
        let sym = |g: &Game, n: &str| Known::Sym(g.find_sym(n).unwrap());
        assert_eq!(facts_at(&mut g, "a", "v"), Some(sym(&g, "q")));
        assert_eq!(facts_at(&mut g, "a", "w"), Some(sym(&g, "p")));
        assert_eq!(facts_at(&mut g, "c", "w"), None);
        assert_eq!(facts_at(&mut g, "d", "v"), Some(sym(&g, "q")));
        // `w == nxt[v]` is `p == r`: known false, so nothing flows into f.
        assert_eq!(facts_at(&mut g, "f", "v"), None);
    }

    #[test]
    fn a_fact_survives_a_loop_that_does_not_touch_it() {
        let text = "type T = {p, q};\n\
                    var v: T = p;\n\
                    var w: T = p;\n\
                    begin, l: ;\n\
                    l, a: w = T(*);\n\
                    a, l: w != q;\n\
                    a, z: v != q;\n\
                    z, end: player = keeper;";
        let mut g = test_game(text);
        let p = Known::Sym(g.find_sym("p").unwrap());
        assert_eq!(facts_at(&mut g, "l", "v"), Some(p));
        assert_eq!(facts_at(&mut g, "end", "v"), Some(p));
        assert_eq!(facts_at(&mut g, "end", "w"), None);
    }

    #[test]
    fn begin_with_predecessors_keeps_the_initial_state() {
        // The reference forgets that `v` is `a` in the first move.
        let text = "type T = {a, b};\n\
                    var v: T = a;\n\
                    begin, m: player = x;\n\
                    m, k: $ t;\n\
                    k, c1: v == a;\n\
                    c1, y2: v = b;\n\
                    y2, begin: player = keeper;\n\
                    k, c2: v == b;\n\
                    c2, end: player = keeper;";
        let mut g = test_game(text);
        let sym = |g: &Game, n: &str| Known::Sym(g.find_sym(n).unwrap());
        assert_eq!(facts_at(&mut g, "k", "v"), None);
        assert_eq!(facts_at(&mut g, "c1", "v"), Some(sym(&g, "a")));
        assert_eq!(facts_at(&mut g, "c2", "v"), Some(sym(&g, "b")));
    }
    #[test]
    fn flow_into_is_transfer_then_join_on_every_edge() {
        // Every kind of label, a two-valued `!=` among them, and a join point (`j`).
        let text = "type T = {p, q};\n\
                    type U = {p, q, r};\n\
                    var v: T = p;\n\
                    var w: U = p;\n\
                    var m: T -> U = {:p};\n\
                    begin, a: w = U(*);\n\
                    a, b: v != p;\n\
                    a, c: w == q;\n\
                    b, j: m[v] = r;\n\
                    c, j: w != r;\n\
                    j, k: $ t;\n\
                    k, l: v = T(*);\n\
                    l, begin: player = keeper;";
        let g = test_game(text);
        let values = Values::new(&g);
        let c = Constants { values: &values };
        let facts = solve(&g, &c);
        // The knowledge at each node and after each edge's transfer: the targets to join into.
        let mut known: Vec<Facts> = facts.values().flatten().cloned().collect();
        for e in crate::util::edge_ids(&g) {
            if let Some(src) = &facts[g.edge(e).from] {
                let mut moved = src.clone();
                if c.transfer(&g, &mut moved, Some(e)) {
                    known.push(moved);
                }
            }
        }
        let mut compared = 0;
        for e in crate::util::edge_ids(&g) {
            let Some(src) = facts[g.edge(e).from].as_ref() else {
                continue;
            };
            for dst in &known {
                let mut flowed = dst.clone();
                let changed = c.flow_into(&g, src, Some(e), &mut flowed);
                let mut moved = src.clone();
                let mut joined = dst.clone();
                let expected_change =
                    c.transfer(&g, &mut moved, Some(e)) && c.join(&mut joined, &moved);
                assert_eq!(flowed, joined, "edge {e:?}");
                assert_eq!(changed, expected_change, "edge {e:?}");
                compared += 1;
            }
        }
        assert!(compared > 20);
    }
}
