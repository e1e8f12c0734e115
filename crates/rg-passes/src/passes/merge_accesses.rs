//! `merge_accesses`: a lookup in a constant map whose index is a lookup in a
//! constant map becomes one lookup in a precomputed composed map.
//!
//! Every assignment and comparison is rewritten bottom-up; at an access `L[R]` whose index
//! (uncast) is an access, with `A` the constant at the root of `L` and `B` the constant at the
//! root of `R`, three shapes are recognised (`X`, `Y`, `Z` any expressions):
//!
//! | shape | types | new constant `__gen_A_B` | becomes |
//! |---|---|---|---|
//! | `A[B[X]]` | `A: K -> V`, `B: J -> K` | `J -> V`: `j ↦ A[B[j]]` | `__gen_A_B[X]` |
//! | `A[X][B[Y]]` | `A: C -> (K -> V)`, `B: J -> K` | `C -> (J -> V)`: `c ↦ j ↦ A[c][B[j]]` | `__gen_A_B[X][Y]` |
//! | `A[B[Y][Z]]` | `A: K -> V`, `B: J -> (I -> K)` | `J -> (I -> V)`: `j ↦ i ↦ A[B[j][i]]` | `__gen_A_B[Y][Z]` |
//!
//! The composed map is computed from `B`'s entries and default (so a key outside `B`'s keys
//! still reads `A` of `B`'s default); entries equal to the new default are left out (the new
//! constant is only ever read through an access, where that makes no difference). A shape
//! fails when a value it needs is not a symbol that can be written literally. A composed
//! constant is reused when one with the same type and value exists; a name already taken by
//! something else gets a numeric suffix.
//!
//! Why the game tree is kept: constants never change, so `A[B[x]]` and `(A∘B)[x]` are equal in
//! every state (the interpreter reads a map's default for a missing key on both sides).
//!
//! Complexity: O(E · |label|) to rewrite, plus O(|B| · |A's inner map|) per composed constant.

use super::meta;
use crate::analysis::values::{Known, NameKind, Values};
use crate::util::{edge_ids, label_well_typed};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::TypeEnv;
use rg_core::{
    Constant, EdgeId, ExprData, ExprId, Game, Label, MapEntry, Spans, Symbol, TypeId, ValueData,
    ValueId,
};
use std::collections::HashMap;

/// Nested lookups in constant maps become one lookup in a composed constant map.
#[derive(Debug)]
pub(crate) struct MergeAccesses;

/// Which of the three shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Shape {
    /// `A[B[X]]`
    Plain,
    /// `A[X][B[Y]]`
    Inner,
    /// `A[B[Y][Z]]`
    Curried,
}

struct Merger<'a> {
    values: &'a Values,
    /// Composed constants made or found in this run.
    made: HashMap<(Symbol, Symbol, Shape), Option<Symbol>>,
}

/// The entries of a map value: (key, value) with `None` for the default, values resolved.
fn entries(g: &Game, values: &Values, m: Known) -> Option<Vec<(Option<Symbol>, Known)>> {
    let Known::Map(id, ctx) = m else { return None };
    let ValueData::Map(es) = g.value(id) else {
        return None;
    };
    es.iter()
        .map(|e| Some((e.key, values.value(g, e.value, ctx)?)))
        .collect()
}

/// A map value as (default, keyed entries) of symbols, if every entry is a symbol.
fn symbol_map(g: &Game, values: &Values, m: Known) -> Option<(Symbol, Vec<(Symbol, Symbol)>)> {
    let mut default = None;
    let mut keyed = Vec::new();
    for (k, v) in entries(g, values, m)? {
        let Known::Sym(s) = v else { return None };
        match k {
            Some(k) => keyed.push((k, s)),
            None => default = Some(s),
        }
    }
    Some((default?, keyed))
}

/// A map of maps built row by row: `rows` maps each entry of `outer` (a map value) to a new
/// inner map; rows equal to the new default row are left out.
fn map_of_rows(
    g: &mut Game,
    values: &Values,
    outer: Known,
    row: &mut dyn FnMut(&mut Game, Known) -> Option<ValueId>,
) -> Option<ValueId> {
    let mut rows = Vec::new();
    for (k, v) in entries(g, values, outer)? {
        rows.push((k, row(g, v)?));
    }
    let default = rows.iter().find(|(k, _)| k.is_none())?.1;
    let mut out: Vec<MapEntry> = rows
        .iter()
        .filter(|(k, v)| k.is_some() && *v != default)
        .map(|&(key, value)| MapEntry { key, value })
        .collect();
    out.push(MapEntry {
        key: None,
        value: default,
    });
    Some(g.value_map(out))
}

/// The arrow `K -> V` a (possibly named) type resolves to.
fn arrow(env: &TypeEnv<'_>, t: TypeId) -> Option<(TypeId, TypeId)> {
    match env.resolve(t).ok()? {
        rg_core::typeck::Resolved::Arrow(k, v) => Some((k, v)),
        rg_core::typeck::Resolved::Set(_) => None,
    }
}

impl Merger<'_> {
    /// The constant at the root of `e` (through casts), with its index.
    fn root_constant(&self, g: &Game, e: ExprId) -> Option<(Symbol, usize)> {
        match g.expr(g.strip_casts(e)) {
            ExprData::Ref(s) => match self.values.kind(s) {
                NameKind::Constant(i) => Some((s, i)),
                _ => None,
            },
            _ => None,
        }
    }

    /// A value of a composed map: `A` (a map of symbols) applied to symbol `k`.
    fn apply(&self, g: &Game, a: Known, k: Symbol) -> Option<Symbol> {
        match self.values.lookup(g, a, k)? {
            Known::Sym(s) if self.values.is_literal(s) => Some(s),
            _ => None,
        }
    }

    /// The composed map `j ↦ f(B[j])` over `B`'s keys and default.
    fn compose(
        &self,
        g: &mut Game,
        b: &(Symbol, Vec<(Symbol, Symbol)>),
        f: &mut dyn FnMut(&mut Game, Symbol) -> Option<ValueId>,
    ) -> Option<ValueId> {
        let default = f(g, b.0)?;
        let mut entries = Vec::new();
        for &(k, v) in &b.1 {
            let value = f(g, v)?;
            if value != default {
                entries.push(MapEntry {
                    key: Some(k),
                    value,
                });
            }
        }
        entries.push(MapEntry {
            key: None,
            value: default,
        });
        Some(g.value_map(entries))
    }

    /// The composed constant for `A` and `B` in a shape, creating it if needed.
    fn composed(&mut self, g: &mut Game, a: Symbol, b: Symbol, shape: Shape) -> Option<Symbol> {
        if let Some(&s) = self.made.get(&(a, b, shape)) {
            return s;
        }
        let made = self.make(g, a, b, shape);
        self.made.insert((a, b, shape), made);
        made
    }

    fn make(&self, g: &mut Game, a: Symbol, b: Symbol, shape: Shape) -> Option<Symbol> {
        let values = self.values;
        let NameKind::Constant(ai) = values.kind(a) else {
            return None;
        };
        let NameKind::Constant(bi) = values.kind(b) else {
            return None;
        };
        let (a_ty, b_ty) = (g.constants[ai].ty, g.constants[bi].ty);
        let a_val = values.constant_value(g, ai)?;
        let b_val = values.constant_value(g, bi)?;
        let env = TypeEnv::new(g);
        let (ty, value);
        match shape {
            Shape::Plain => {
                let (_, v) = arrow(&env, a_ty)?;
                let (j, _) = arrow(&env, b_ty)?;
                if arrow(&env, v).is_some() {
                    return None;
                }
                drop(env);
                let bm = symbol_map(g, values, b_val)?;
                value = self.compose(g, &bm, &mut |g, k| {
                    self.apply(g, a_val, k).map(|s| g.value_elem(s))
                })?;
                ty = g.type_arrow(j, v);
            }
            Shape::Inner => {
                let (c, inner) = arrow(&env, a_ty)?;
                let (_, v) = arrow(&env, inner)?;
                let (j, _) = arrow(&env, b_ty)?;
                if arrow(&env, v).is_some() {
                    return None;
                }
                drop(env);
                let bm = symbol_map(g, values, b_val)?;
                // Row `c` of the result is row `c` of A composed with B.
                value = map_of_rows(g, values, a_val, &mut |g, r| {
                    self.compose(g, &bm, &mut |g, k| {
                        self.apply(g, r, k).map(|s| g.value_elem(s))
                    })
                })?;
                let inner_ty = g.type_arrow(j, v);
                ty = g.type_arrow(c, inner_ty);
            }
            Shape::Curried => {
                let (_, v) = arrow(&env, a_ty)?;
                let (j, inner) = arrow(&env, b_ty)?;
                let (i, _) = arrow(&env, inner)?;
                if arrow(&env, v).is_some() {
                    return None;
                }
                drop(env);
                // Row `j` of the result is A composed with row `j` of B.
                value = map_of_rows(g, values, b_val, &mut |g, r| {
                    let bm = symbol_map(g, values, r)?;
                    self.compose(g, &bm, &mut |g, k| {
                        self.apply(g, a_val, k).map(|s| g.value_elem(s))
                    })
                })?;
                let inner_ty = g.type_arrow(i, v);
                ty = g.type_arrow(j, inner_ty);
            }
        }
        Some(declare(g, a, b, ty, value))
    }

    /// `e` with every matching nested access merged, bottom-up.
    fn rewrite(&mut self, g: &mut Game, e: ExprId) -> ExprId {
        match g.expr(e) {
            ExprData::Ref(_) => e,
            ExprData::Cast(t, x) => {
                let x = self.rewrite(g, x);
                g.expr_cast(t, x)
            }
            ExprData::Access(l, r) => {
                let l = self.rewrite(g, l);
                let r = self.rewrite(g, r);
                self.merge(g, l, r).unwrap_or_else(|| g.expr_access(l, r))
            }
        }
    }

    /// `L[R]` as one access, if it has one of the shapes.
    fn merge(&mut self, g: &mut Game, l: ExprId, r: ExprId) -> Option<ExprId> {
        let ExprData::Access(rm, ri) = g.expr(g.strip_casts(r)) else {
            return None;
        };
        if let Some((a, _)) = self.root_constant(g, l) {
            if let Some((b, _)) = self.root_constant(g, rm) {
                // A[B[X]]
                let c = self.composed(g, a, b, Shape::Plain)?;
                let c = g.expr_ref(c);
                return Some(g.expr_access(c, ri));
            }
            if let ExprData::Access(bm, y) = g.expr(g.strip_casts(rm))
                && let Some((b, _)) = self.root_constant(g, bm)
            {
                // A[B[Y][Z]]
                let c = self.composed(g, a, b, Shape::Curried)?;
                let c = g.expr_ref(c);
                let c = g.expr_access(c, y);
                return Some(g.expr_access(c, ri));
            }
            return None;
        }
        // A[X][B[Y]]
        let ExprData::Access(am, x) = g.expr(g.strip_casts(l)) else {
            return None;
        };
        let (a, _) = self.root_constant(g, am)?;
        let (b, _) = self.root_constant(g, rm)?;
        let c = self.composed(g, a, b, Shape::Inner)?;
        let c = g.expr_ref(c);
        let c = g.expr_access(c, x);
        Some(g.expr_access(c, ri))
    }
}

/// Declares `__gen_A_B` (or reuses a constant with that type and value); returns its name.
/// The value holds only literal symbols, so its meaning does not depend on where it is
/// declared.
fn declare(g: &mut Game, a: Symbol, b: Symbol, ty: TypeId, value: ValueId) -> Symbol {
    if let Some(c) = g.constants.iter().find(|c| c.ty == ty && c.value == value) {
        return c.name;
    }
    // A name never seen in this game, so the new constant cannot capture any existing use.
    let base = format!("__gen_{}_{}", g.name(a), g.name(b));
    let mut name = base.clone();
    let mut n = 1;
    while g.find_sym(&name).is_some() {
        n += 1;
        name = format!("{base}_{n}");
    }
    let sym = g.sym(&name);
    g.constants.push(Constant {
        name: sym,
        ty,
        value,
        spans: Spans::default(),
    });
    sym
}

impl Pass for MergeAccesses {
    meta!(
        "merge_accesses",
        "a lookup in a constant map indexed by a lookup in a constant map becomes one lookup",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let mut m = Merger {
            values: &values,
            made: HashMap::new(),
        };
        let mark = g.mark();
        let mut rewrites: Vec<(EdgeId, Label)> = Vec::new();
        for e in edge_ids(g) {
            let label = g.edge(e).label;
            let new = match label {
                Label::Assign { lhs, rhs } => Label::Assign {
                    lhs: rewrite_lhs(&mut m, g, lhs),
                    rhs: m.rewrite(g, rhs),
                },
                Label::Compare { lhs, rhs, negated } => Label::Compare {
                    lhs: m.rewrite(g, lhs),
                    rhs: m.rewrite(g, rhs),
                    negated,
                },
                _ => continue,
            };
            if new != label {
                rewrites.push((e, new));
            }
        }
        let env = TypeEnv::new(g);
        rewrites.retain(|(_, l)| label_well_typed(&env, l));
        drop(env);
        let changed = !rewrites.is_empty();
        for (e, l) in rewrites {
            g.set_label(e, l);
        }
        // Composed constants nobody uses (a rewrite that did not type check) are dropped.
        if !changed {
            g.rollback(mark);
        }
        Ok(changed)
    }
}

/// A left side: only the index parts can match (the root is a variable).
fn rewrite_lhs(m: &mut Merger<'_>, g: &mut Game, e: ExprId) -> ExprId {
    match g.expr(e) {
        ExprData::Ref(_) => e,
        ExprData::Cast(t, x) => {
            let x = rewrite_lhs(m, g, x);
            g.expr_cast(t, x)
        }
        ExprData::Access(l, r) => {
            let l = rewrite_lhs(m, g, l);
            let r = m.rewrite(g, r);
            g.expr_access(l, r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> String {
        let mut g = test_game(text);
        assert!(
            MergeAccesses
                .run(&mut g, &mut PassContext::default())
                .expect("runs")
        );
        rg_core::print(&g)
            .lines()
            .filter(|l| !l.starts_with("type ") && !l.starts_with("var "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_example_of_the_spec() {
        let out = run("type T = {p, q, r};\n\
             type U = {u1, u2};\n\
             const nxt: T -> T = {p: q, q: r, :p};\n\
             const lab: T -> U = {r: u2, :u1};\n\
             var v: T = p;\n\
             var w: U = u1;\n\
             begin, a: v = T(*);\n\
             a, b: w == lab[nxt[v]];\n\
             b, c: v = nxt[nxt[v]];\n\
             c, end: player = keeper;");
        assert_eq!(
            out,
            "const nxt: T -> T = { p: q, q: r, :p };\n\
             const lab: T -> U = { r: u2, :u1 };\n\
             const __gen_lab_nxt: T -> U = { q: u2, :u1 };\n\
             const __gen_nxt_nxt: T -> T = { p: r, q: p, :q };\n\
             begin, a: v = T(*);\n\
             a, b: w == __gen_lab_nxt[v];\n\
             b, c: v = __gen_nxt_nxt[v];\n\
             c, end: player = keeper;"
        );
    }

    #[test]
    fn the_two_curried_shapes() {
        let out = run("type T = {p, q};\n\
             const f: T -> T = {p: q, :p};\n\
             const m: T -> T -> T = {p: {q: q, :p}, :{:q}};\n\
             var v: T = p;\n\
             var w: T = p;\n\
             begin, a: w = m[v][f[w]];\n\
             a, b: w = f[m[v][w]];\n\
             b, end: player = keeper;");
        assert!(
            out.contains("const __gen_m_f: T -> T -> T = { p: { p: q, :p }, :{ :q } };"),
            "{out}"
        );
        assert!(
            out.contains("const __gen_f_m: T -> T -> T = { p: { q: p, :q }, :{ :p } };"),
            "{out}"
        );
        assert!(out.contains("begin, a: w = __gen_m_f[v][w];"), "{out}");
        assert!(out.contains("a, b: w = __gen_f_m[v][w];"), "{out}");
    }
}
