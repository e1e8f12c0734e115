//! skip_redundant_comparisons (not in the reference; `rgt`'s generalisation of the RBG
//! translator's removal of `coord != null` checks): an inequality `x != s`
//! becomes a skip when every walk that it stops would die anyway, without effect, a few steps
//! later.
//!
//! For an edge `a → b: x != s` (`s` known, `x` not known at `a`), the walks from `b` are explored
//! in the knowledge of ConstantsAnalysis at `a` plus the hypothesis `x ↦ s`; when `x` is a lookup
//! `m[v]` in a known map at a variable `v`, once per value `u` of `v`'s type with `m[u]` possibly
//! `s`, with `v ↦ u` (the walks after `dir[coord] != null` then know where `coord` is, and that
//! `lookup[coord]` is `null` too). The comparison is redundant when every explored walk reaches
//! a comparison known to fail, and on the way:
//!
//! - ends no move (no assignment to `player`) and reaches no check's end node (inside a check
//!   that would make the check hold);
//! - evaluates no check (its walk would start in the hypothetical state);
//! - stores into no map cell whose key is not known to be in the map's domain (the interpreter
//!   cannot store outside a domain);
//! - stays within a budget of [`BUDGET`] edges, fewer when the knowledge has more than 16 facts
//!   ([`FACT_BUDGET`] facts copied; over it: kept, with a warning); a node met again
//!   with the same knowledge is not explored again.
//!
//! Reads of a map at a key outside its declared key type (typically `board[null]` once the null
//! check before it is gone) read the map's default, as in the interpreter; to keep the game proper
//! (in a proper game every key read lies within the map's source type), the declared key type of
//! such a map — a variable or constant accessed directly — is widened to the smallest declared set
//! type that also holds the key (`Coord -> Piece` becomes `CoordOrNull -> Piece`). Without such a
//! type the comparison is kept. A comparison that another removal in the same run relies on is
//! kept.
//!
//! Why the game tree is kept: a walk over the new skip where the comparison used to fail only
//! assigns variables and collects tags before dying, so it produces no move and makes no check
//! hold; walks where the comparison held are unchanged. States such a walk records as visited
//! have the hypothetical value of `x`, so they never block a walk of the original game. Widening
//! a key type changes no value: a key absent from a map reads the default either way.
//!
//! Complexity: one solve of ConstantsAnalysis, then at most [`BUDGET`] edge steps per `!=` edge.

use super::meta;
use crate::analysis::constants::{self, Constants, Facts};
use crate::analysis::values::{Known, NameKind, Values};
use crate::dataflow::Analysis;
use crate::util::edge_ids;
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, Symbol, TypeId};
use std::collections::{HashMap, HashSet};

/// Edges explored per comparison before giving up.
pub(crate) const BUDGET: usize = 256;
/// Facts copied per comparison at most: each explored edge copies the knowledge, so with many
/// facts (large GDL translations) fewer edges are explored.
const FACT_BUDGET: usize = 16 * BUDGET;

/// Inequalities whose failing walks die anyway become skips.
#[derive(Debug)]
pub(crate) struct SkipRedundantComparisons;

/// Why an exploration failed.
enum Stop {
    /// A walk may have an effect or survive.
    Kept,
    /// The budget ran out.
    Budget,
}

struct Explorer<'a> {
    g: &'a Game,
    env: &'a TypeEnv<'a>,
    c: &'a Constants<'a>,
    check_ends: &'a [bool],
    /// Edges already turned into skips in this run.
    skipped: &'a HashSet<EdgeId>,
    /// The failing comparisons the walks died at.
    relied: Vec<EdgeId>,
    /// Maps read at a key outside their key type: (map name, key).
    outside: Vec<(Symbol, Symbol)>,
    steps: usize,
    /// Edges this exploration may step over.
    budget: usize,
}

impl Explorer<'_> {
    /// The members of the key type of map expression `m`, if it is a map.
    fn key_members(&self, m: ExprId) -> Option<Vec<Symbol>> {
        let t = self.env.infer(m).ok()?;
        let Resolved::Arrow(k, _) = self.env.resolve_ty(t).ok()? else {
            return None;
        };
        Some(self.env.values(k).ok()??.as_slice().to_vec())
    }

    /// Records the accesses of `e` at keys outside their map's domain; `Err` when such an
    /// access is not to a map named directly (only those can be widened).
    fn reads(&mut self, e: ExprId, k: &Facts) -> Result<(), Stop> {
        match self.g.expr(e) {
            ExprData::Ref(_) => Ok(()),
            ExprData::Cast(_, x) => self.reads(x, k),
            ExprData::Access(m, i) => {
                self.reads(m, k)?;
                self.reads(i, k)?;
                let Some(Known::Sym(key)) = self.c.eval(self.g, i, k) else {
                    return Ok(());
                };
                let members = self.key_members(m).ok_or(Stop::Kept)?;
                if members.contains(&key) {
                    return Ok(());
                }
                match self.g.expr(m) {
                    ExprData::Ref(name)
                        if matches!(
                            self.c.values.kind(name),
                            NameKind::Variable | NameKind::Constant(_)
                        ) =>
                    {
                        self.outside.push((name, key));
                        Ok(())
                    }
                    _ => Err(Stop::Kept),
                }
            }
        }
    }

    /// Whether the cell `lhs` (a left side) has a key known to be in its map's domain.
    fn store_in_domain(&self, lhs: ExprId, k: &Facts) -> bool {
        match self.g.expr(self.g.strip_casts(lhs)) {
            ExprData::Ref(_) => true,
            ExprData::Cast(_, x) => self.store_in_domain(x, k),
            ExprData::Access(m, i) => {
                self.store_in_domain(m, k)
                    && matches!(self.c.eval(self.g, i, k), Some(Known::Sym(key))
                        if self.key_members(m).is_some_and(|ms| ms.contains(&key)))
            }
        }
    }

    /// Explores every walk from `n` in knowledge `k`; `Ok` when all of them die.
    fn explore(&mut self, start: NodeId, k: Facts) -> Result<(), Stop> {
        let g = self.g;
        let player = g.well_known().player;
        // A node met again with the same knowledge has been (or is being) explored: every walk
        // from there is covered.
        let mut visited: HashMap<NodeId, Vec<Facts>> = HashMap::new();
        let mut stack = vec![(start, k)];
        while let Some((n, k)) = stack.pop() {
            if self.check_ends[n.index()] {
                return Err(Stop::Kept);
            }
            let seen = visited.entry(n).or_default();
            if seen.contains(&k) {
                continue;
            }
            seen.push(k.clone());
            for &f in g.outgoing(n) {
                self.steps += 1;
                if self.steps > self.budget {
                    return Err(Stop::Budget);
                }
                let label = if self.skipped.contains(&f) {
                    Label::Skip
                } else {
                    g.edge(f).label
                };
                match label {
                    Label::Compare { lhs, rhs, .. } => {
                        self.reads(lhs, &k)?;
                        self.reads(rhs, &k)?;
                    }
                    Label::Assign { lhs, rhs } => {
                        if g.expr_root(lhs) == player || !self.store_in_domain(lhs, &k) {
                            return Err(Stop::Kept);
                        }
                        self.reads(rhs, &k)?;
                        if let ExprData::Access(_, i) = g.expr(g.strip_casts(lhs)) {
                            self.reads(i, &k)?;
                        }
                    }
                    Label::AssignAny { lhs, .. } => {
                        if g.expr_root(lhs) == player || !self.store_in_domain(lhs, &k) {
                            return Err(Stop::Kept);
                        }
                    }
                    Label::Reach { .. } => return Err(Stop::Kept),
                    Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
                }
                let mut next = k.clone();
                let walkable = if matches!(label, Label::Skip) {
                    true
                } else {
                    self.c.transfer(g, &mut next, Some(f))
                };
                if walkable {
                    stack.push((g.edge(f).to, next));
                } else {
                    self.relied.push(f);
                }
            }
        }
        Ok(())
    }
}

/// The inequality `x != s` of a label, with `x` unknown and `s` known at the edge's source.
fn guard(g: &Game, c: &Constants<'_>, label: Label, k: &Facts) -> Option<(ExprId, Symbol)> {
    let Label::Compare {
        lhs,
        rhs,
        negated: true,
    } = label
    else {
        return None;
    };
    let (l, r) = (g.strip_casts(lhs), g.strip_casts(rhs));
    match (c.eval(g, l, k), c.eval(g, r, k)) {
        (None, Some(Known::Sym(s))) => Some((l, s)),
        (Some(Known::Sym(s)), None) => Some((r, s)),
        _ => None,
    }
}

/// The most cases a lookup is split into (see [`Cases`]).
const MAX_CASES: usize = 32;

/// The cases in which the walks of a failing `x != s` are explored, each `k` plus `x ↦ s`:
/// when `x` is a lookup `m[v]` in a known map at an unknown variable `v`, one case per value `u`
/// of `v`'s type for which `m[u]` may be `s` (at most [`MAX_CASES`] of them), with `v ↦ u` too
/// (the comparison fails exactly in those states, since `v` holds a value of its type), so that
/// what follows can use the key: after `dir[coord] != null` fails, the walks know where `coord`
/// is, and that `lookup[coord]` is `null` as well. Otherwise one case. Each case's knowledge is
/// built only when it is explored.
enum Cases {
    One,
    Keys(ExprId, Vec<Symbol>),
}

impl Cases {
    fn of(g: &Game, env: &TypeEnv<'_>, c: &Constants<'_>, k: &Facts, x: ExprId, s: Symbol) -> Self {
        Self::split(g, env, c, k, x, s).unwrap_or(Self::One)
    }

    /// The cases of a lookup, or `None` when `x` is not one that can be split.
    fn split(
        g: &Game,
        env: &TypeEnv<'_>,
        c: &Constants<'_>,
        k: &Facts,
        x: ExprId,
        s: Symbol,
    ) -> Option<Self> {
        let ExprData::Access(m, key) = g.expr(x) else {
            return None;
        };
        let key = g.strip_casts(key);
        let ExprData::Ref(v) = g.expr(key) else {
            return None;
        };
        if !c.values.is_variable(v) || c.eval(g, key, k).is_some() {
            return None;
        }
        let map = c.eval(g, m, k)?;
        let members = env.values(g.variable(v)?.ty).ok()??;
        let members = members.as_slice();
        let mut keys = Vec::new();
        for (&u, value) in members.iter().zip(c.values.lookup_each(g, map, members)) {
            match value {
                Some(Known::Sym(y)) if y != s => {}
                _ if keys.len() == MAX_CASES => return None,
                _ => keys.push(u),
            }
        }
        Some(Self::Keys(key, keys))
    }

    /// Explores the walks from `to` in each case, stopping at the first that does not die.
    fn explore(
        self,
        ex: &mut Explorer<'_>,
        k: &Facts,
        x: ExprId,
        s: Symbol,
        to: NodeId,
    ) -> Result<(), Stop> {
        let g = ex.g;
        let case = |u: Option<(ExprId, Symbol)>| {
            let mut h = k.clone();
            if let Some((key, u)) = u {
                h.set(g, key, Known::Sym(u));
            }
            h.set(g, x, Known::Sym(s));
            h
        };
        match self {
            Self::One => ex.explore(to, case(None)),
            Self::Keys(key, keys) => keys
                .into_iter()
                .try_for_each(|u| ex.explore(to, case(Some((key, u))))),
        }
    }
}

/// The smallest declared set type holding `members`, by name.
fn widest_fit(g: &Game, env: &TypeEnv<'_>, members: &[Symbol]) -> Option<Symbol> {
    g.typedefs
        .iter()
        .filter_map(|t| {
            let ms = env.values(t.ty).ok()??;
            members
                .iter()
                .all(|m| ms.contains(*m))
                .then_some((ms.len(), t.name))
        })
        .min_by_key(|(n, _)| *n)
        .map(|(_, name)| name)
}

/// The declared type of a variable or constant, by kind.
fn declared_type(g: &Game, values: &Values, name: Symbol) -> Option<TypeId> {
    match values.kind(name) {
        NameKind::Constant(i) => Some(g.constants[i].ty),
        NameKind::Variable => g.variable(name).map(|v| v.ty),
        NameKind::Symbol => None,
    }
}

/// The new declared types making every recorded key part of its map's key type, or `None`
/// when one cannot be found.
fn widenings(
    g: &mut Game,
    values: &Values,
    outside: &[(Symbol, Symbol)],
) -> Option<Vec<(Symbol, TypeId)>> {
    let mut keys: HashMap<Symbol, Vec<Symbol>> = HashMap::new();
    for &(m, k) in outside {
        let e = keys.entry(m).or_default();
        if !e.contains(&k) {
            e.push(k);
        }
    }
    let mut names: Vec<Symbol> = keys.keys().copied().collect();
    names.sort_unstable();
    let mut plan = Vec::new();
    for m in names {
        let ty = declared_type(g, values, m)?;
        let (key_ty, value_ty, wide) = {
            let env = TypeEnv::new(g);
            let Resolved::Arrow(k, v) = env.resolve(ty).ok()? else {
                return None;
            };
            let mut members = env.values(k).ok()??.as_slice().to_vec();
            members.extend(keys[&m].iter().copied());
            (k, v, widest_fit(g, &env, &members)?)
        };
        let wide_ty = g.type_name(wide);
        if wide_ty != key_ty {
            plan.push((m, g.type_arrow(wide_ty, value_ty)));
        }
    }
    Some(plan)
}

impl Pass for SkipRedundantComparisons {
    meta!(
        "skip_redundant_comparisons",
        "an inequality whose failing walks die anyway without effect becomes a skip",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let c = Constants { values: &values };
        let Some(facts) = constants::solve_facts(g, &c, cx, self.name()) else {
            return Ok(false);
        };
        let mut check_ends = vec![false; g.node_capacity()];
        for (_, d) in g.edges() {
            if let Label::Reach { to, .. } = d.label {
                check_ends[to.index()] = true;
            }
        }
        let mut skipped: HashSet<EdgeId> = HashSet::new();
        let mut relied: HashSet<EdgeId> = HashSet::new();
        let mut outside: Vec<(Symbol, Symbol)> = Vec::new();
        let mut over_budget = 0usize;
        {
            let env = TypeEnv::new(g);
            for e in edge_ids(g) {
                let d = g.edge(e);
                if relied.contains(&e) {
                    continue;
                }
                let Some(k) = &facts[d.from] else {
                    continue;
                };
                let Some((x, s)) = guard(g, &c, d.label, k) else {
                    continue;
                };
                let cases = Cases::of(g, &env, &c, k, x, s);
                let mut ex = Explorer {
                    g,
                    env: &env,
                    c: &c,
                    check_ends: &check_ends,
                    skipped: &skipped,
                    relied: Vec::new(),
                    outside: Vec::new(),
                    steps: 0,
                    budget: BUDGET.min(FACT_BUDGET / (1 + k.len())),
                };
                let verdict = cases.explore(&mut ex, k, x, s, d.to);
                match verdict {
                    Ok(()) => {
                        relied.extend(ex.relied);
                        outside.extend(ex.outside);
                        skipped.insert(e);
                    }
                    Err(Stop::Budget) => over_budget += 1,
                    Err(Stop::Kept) => {}
                }
            }
        }
        if over_budget > 0 {
            cx.warnings.push(format!(
                "skip_redundant_comparisons: kept {over_budget} comparison(s) whose walks were \
                 not explored within their budget of edges"
            ));
        }
        if skipped.is_empty() {
            return Ok(false);
        }
        let Some(plan) = widenings(g, &values, &outside) else {
            // A key type cannot be widened: keep everything rather than make the game improper.
            return Ok(false);
        };
        for (name, ty) in plan {
            if let Some(i) = g.constants.iter().position(|c| c.name == name)
                && values.kind(name) == NameKind::Constant(i)
            {
                g.constants.update(i, |c| c.ty = ty);
            } else if let Some(i) = g.variables.iter().position(|v| v.name == name) {
                g.variables.update(i, |v| v.ty = ty);
            }
        }
        let mut skipped: Vec<EdgeId> = skipped.into_iter().collect();
        skipped.sort_unstable();
        for e in skipped {
            g.set_label(e, Label::Skip);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> (bool, String) {
        let mut g = test_game(text);
        let changed = SkipRedundantComparisons
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        (changed, rg_core::print(&g))
    }

    const BOARD: &str = "type Player = {x};\n\
        type Coord = {c1, c2, c3};\n\
        type CoordOrNull = {null, c1, c2, c3};\n\
        type Piece = {e, w};\n\
        const up: Coord -> CoordOrNull = {c1: c2, c2: c3, :null};\n\
        var board: Coord -> Piece = {c1: w, :e};\n\
        var coord: CoordOrNull = c1;\n";

    #[test]
    fn a_null_check_before_a_shift_and_another_null_check_goes() {
        let (changed, out) = run(&format!(
            "{BOARD}begin, a0: player = x;\n\
             a0, a: coord = Coord(*);\n\
             a, b: coord = up[coord];\n\
             b, c: coord != null;\n\
             c, d: coord = up[coord];\n\
             d, f: coord != null;\n\
             f, g: board[coord] == e;\n\
             g, h: $$ coord;\n\
             h, end: player = keeper;"
        ));
        assert!(changed);
        assert!(out.contains("b, c: ;"), "{out}");
        assert!(out.contains("d, f: coord != null;"), "{out}");
        // `up` is read at `null` now: its key type is widened.
        assert!(
            out.contains("const up: CoordOrNull -> CoordOrNull"),
            "{out}"
        );
    }

    #[test]
    fn a_null_check_before_a_piece_test_goes_and_widens_the_board() {
        // The board is unknown after the store, but `null` is outside its key type: it reads
        // the initial default `e` there.
        let mut g = test_game(&format!(
            "{BOARD}begin, a00: player = x;\n\
             a00, a0: board[c2] = w;\n\
             a0, a: coord = Coord(*);\n\
             a, b: coord = up[coord];\n\
             b, c: coord != null;\n\
             c, d: board[coord] == w;\n\
             d, h: $$ coord;\n\
             h, end: player = keeper;"
        ));
        assert!(
            SkipRedundantComparisons
                .run(&mut g, &mut PassContext::default())
                .expect("runs")
        );
        let text = rg_core::print(&g);
        assert!(text.contains("var board: CoordOrNull -> Piece"), "{text}");
        assert!(text.contains("b, c: ;"), "{text}");
    }

    #[test]
    fn checks_with_effects_stay() {
        // A tag followed by the end of the move: the walk would survive.
        let (changed, _) = run(&format!(
            "{BOARD}begin, a0: player = x;\n\
             a0, a: coord = Coord(*);\n\
             a, b: coord = up[coord];\n\
             b, c: coord != null;\n\
             c, d: $$ coord;\n\
             d, end: player = keeper;"
        ));
        assert!(!changed);
        // A store at the hypothetical key.
        let (changed, _) = run(&format!(
            "{BOARD}begin, a0: player = x;\n\
             a0, a: coord = Coord(*);\n\
             a, b: coord = up[coord];\n\
             b, c: coord != null;\n\
             c, d: board[coord] = w;\n\
             d, f: coord == c1;\n\
             f, end: player = keeper;"
        ));
        assert!(!changed);
        // The piece test holds for `null` (the board's default): the walk survives.
        let (changed, _) = run(&format!(
            "{BOARD}begin, a0: player = x;\n\
             a0, a: coord = Coord(*);\n\
             a, b: coord = up[coord];\n\
             b, c: coord != null;\n\
             c, d: board[coord] == e;\n\
             d, h: $$ coord;\n\
             h, end: player = keeper;"
        ));
        assert!(!changed);
    }
}
