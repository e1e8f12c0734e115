//! `compact_comparisons`: a disjunction of equalities of one expression with
//! several symbols becomes the shorter conjunction of inequalities with the other symbols of its
//! type.
//!
//! At node `n`, take the first `==` comparison (edge order) whose left side `e` — or else right
//! side — satisfies: at least two comparisons leaving `n` have `e` as a side; all of them go to
//! one target `t`, are `==`, and compare `e` with a literal symbol (casts aside), the set `I`;
//! `e`'s type resolves to a set containing `I`; and the other members `M` of that set are at
//! most half as many as `I` (the reference asks only for fewer: with |M| ≥ 2 the chain's
//! |M| − 1 inner nodes would then cost more than the |I| − |M| edges it saves). Those edges are replaced by a chain `n → f1: e != T(m1)`, …, `fk → t:` (a final
//! skip) through fresh nodes (just a skip when `M` is empty), `T` being `e`'s type name (a bare
//! symbol when the type has no name). At most one expression per node per run.
//!
//! Why the game tree is kept: a value of `e` is a member of its type, so `e ∈ I` exactly when
//! `e ∉ M`; the original edges are parallel and at most one of them holds (the symbols of `I`
//! are distinct), so one walk through the chain stands for the one walk through the old edge.
//! No tag is involved.
//!
//! Complexity: O(Σ deg(n)²) for the grouping (degrees are small), O(|T|) per rewrite.

use super::meta;
use crate::analysis::values::Values;
use crate::util::{FxHashSet, label_well_typed};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, Ty, TypeEnv};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId, Symbol, TypeData};

/// Equalities with most symbols of a type become inequalities with the others.
#[derive(Debug)]
pub(crate) struct CompactComparisons;

/// A planned rewrite at one node.
struct Compaction {
    from: NodeId,
    to: NodeId,
    /// The replaced edges.
    edges: Vec<EdgeId>,
    e: ExprId,
    /// The type name for casts, if `e`'s type has one.
    cast: Option<Symbol>,
    /// The symbols not compared with.
    missing: Vec<Symbol>,
}

/// The other side of comparison `x` when it is `e == s` or `s == e` (either order) for a
/// literal symbol `s` (casts aside): `Err(())` when `x` compares `e` otherwise, `Ok(None)` when
/// `x` does not mention `e`.
fn literal_side(
    g: &Game,
    values: &Values,
    e: ExprId,
    x: EdgeId,
) -> Result<Option<(NodeId, Symbol)>, ()> {
    let d = g.edge(x);
    let Label::Compare { lhs, rhs, negated } = d.label else {
        return Ok(None);
    };
    let other = if lhs == e {
        rhs
    } else if rhs == e {
        lhs
    } else {
        return Ok(None);
    };
    if negated {
        return Err(());
    }
    match g.expr(g.strip_casts(other)) {
        ExprData::Ref(s) if values.is_literal(s) => Ok(Some((d.to, s))),
        _ => Err(()),
    }
}

/// The compaction of `e` at node `n`, if the pattern holds.
/// `mentioning` are the comparisons leaving `n` with `e` on a side, in `n`'s edge order;
/// `seen` is scratch space.
fn compaction(
    g: &Game,
    env: &TypeEnv<'_>,
    values: &Values,
    n: NodeId,
    e: ExprId,
    mentioning: &[EdgeId],
    seen: &mut FxHashSet<Symbol>,
) -> Option<Compaction> {
    // The pattern first, without allocating: most expressions of most nodes fail it.
    let mut to = None;
    let mut count = 0;
    for &x in mentioning {
        let Some((t, _)) = literal_side(g, values, e, x).ok()? else {
            continue;
        };
        if to.is_some_and(|to| to != t) {
            return None;
        }
        to = Some(t);
        count += 1;
    }
    if count < 2 {
        return None;
    }
    let mut edges = Vec::with_capacity(count);
    let mut names: Vec<Symbol> = Vec::new();
    crate::util::reset_set(seen);
    for &x in mentioning {
        if let Ok(Some((_, s))) = literal_side(g, values, e, x) {
            if seen.insert(s) {
                names.push(s);
            }
            edges.push(x);
        }
    }
    let ty = env.infer(e).ok()?;
    let Resolved::Set(members) = env.resolve_ty(ty).ok()? else {
        return None;
    };
    // The chain costs |M| edges and |M| - 1 nodes (its last skip is contracted) instead of |I|
    // edges: rewrite only when it saves more edges than it adds nodes. (The reference rewrites
    // whenever |M| < |I|.) One walk over the members finds `M` (in member order) and which
    // symbols of `I` are members; it stops as soon as `M` is too large, which on a type much
    // larger than `I` is long before its end (asking `contains` of every symbol of `I` was
    // O(|I| · |T|)).
    let mut missing: Vec<Symbol> = Vec::new();
    let mut missing_seen: FxHashSet<Symbol> = FxHashSet::default();
    let mut found: FxHashSet<Symbol> = FxHashSet::default();
    for &m in members.as_slice() {
        // `seen` holds exactly the symbols of `I` here.
        if seen.contains(&m) {
            found.insert(m);
        } else if missing_seen.insert(m) {
            missing.push(m);
            if 2 * missing.len() > names.len() {
                return None;
            }
        }
    }
    if found.len() != names.len() {
        return None;
    }
    let cast = match ty {
        Ty::Id(t) => match g.ty(t) {
            TypeData::Name(name) => Some(*name),
            _ => None,
        },
        Ty::Singleton(_) => None,
    };
    Some(Compaction {
        from: n,
        to: to?,
        edges,
        e,
        cast,
        missing,
    })
}

impl Pass for CompactComparisons {
    meta!(
        "compact_comparisons",
        "equalities with most symbols of a type become inequalities with the others",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let mut plans = Vec::new();
        {
            let env = TypeEnv::new(g);
            // The comparisons of a node grouped by the expressions on their sides, once per
            // node: trying each edge against all its siblings was quadratic in the out-degree
            // (GDL translations have nodes with thousands of comparisons). The groups are runs
            // of (expression, position, edge) sorted, kept in buffers reused across nodes.
            let mut sides: Vec<(ExprId, usize, EdgeId)> = Vec::new();
            let mut group: Vec<EdgeId> = Vec::new();
            let mut tried: FxHashSet<ExprId> = FxHashSet::default();
            let mut seen: FxHashSet<Symbol> = FxHashSet::default();
            for n in g.nodes().ids() {
                let out = g.outgoing(n);
                // A compaction replaces two or more equalities.
                let equalities = out
                    .iter()
                    .filter(|&&x| matches!(g.edge(x).label, Label::Compare { negated: false, .. }))
                    .take(2)
                    .count();
                if equalities < 2 {
                    continue;
                }
                sides.clear();
                crate::util::reset_set(&mut tried);
                for (i, &x) in out.iter().enumerate() {
                    if let Label::Compare { lhs, rhs, .. } = g.edge(x).label {
                        sides.push((lhs, i, x));
                        if rhs != lhs {
                            sides.push((rhs, i, x));
                        }
                    }
                }
                sides.sort_unstable();
                let mut attempt = |e: ExprId| {
                    if !tried.insert(e) {
                        return None;
                    }
                    let first = sides.partition_point(|&(x, _, _)| x < e);
                    group.clear();
                    group.extend(
                        sides[first..]
                            .iter()
                            .take_while(|&&(x, _, _)| x == e)
                            .map(|&(_, _, edge)| edge),
                    );
                    compaction(g, &env, &values, n, e, &group, &mut seen)
                };
                let found = g.outgoing(n).iter().find_map(|&x| match g.edge(x).label {
                    Label::Compare {
                        lhs,
                        rhs,
                        negated: false,
                    } => attempt(lhs).or_else(|| attempt(rhs)),
                    _ => None,
                });
                plans.extend(found);
            }
        }
        if plans.is_empty() {
            return Ok(false);
        }
        let mut fresh = cx.fresh_nodes(g);
        let mut changed = false;
        // The replaced edges, removed together after the loop (one at a time is quadratic at a
        // target entered by many of them; nothing below reads them).
        let mut removed: Vec<EdgeId> = Vec::new();
        for p in plans {
            // Build the chain's labels first; give up on this node if one does not type check.
            let ty = p.cast.map(|t| g.type_name(t));
            let labels: Vec<Label> = p
                .missing
                .iter()
                .map(|&m| {
                    let sym = g.expr_ref(m);
                    let rhs = match ty {
                        Some(t) => g.expr_cast(t, sym),
                        None => sym,
                    };
                    Label::Compare {
                        lhs: p.e,
                        rhs,
                        negated: true,
                    }
                })
                .collect();
            let env = TypeEnv::new(g);
            if !labels.iter().all(|l| label_well_typed(&env, l)) {
                continue;
            }
            removed.extend(p.edges);
            let mut at = p.from;
            for l in labels {
                let next = fresh.node(g);
                g.add_edge(at, next, l);
                at = next;
            }
            g.add_edge(at, p.to, Label::Skip);
            changed = true;
        }
        g.remove_edges(&removed);
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> Option<String> {
        let mut g = test_game(text);
        let changed = CompactComparisons
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        changed.then(|| {
            rg_core::print(&g)
                .lines()
                .filter(|l| l.contains(": ") && !l.starts_with("type ") && !l.starts_with("var "))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    #[test]
    fn the_example_of_the_spec() {
        let out = run("type T = {p, q, r, s};\n\
             var v: T = p;\n\
             begin, a: v == p;\n\
             begin, a: v == q;\n\
             begin, a: T(r) == v;\n\
             a, end: player = keeper;");
        assert_eq!(
            out.as_deref(),
            Some("a, end: player = keeper;\nbegin, 1: v != T(s);\n1, a: ;")
        );
    }

    #[test]
    fn every_symbol_becomes_a_skip_and_other_targets_block() {
        let all = run("type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: v == p;\n\
             begin, a: v == q;\n\
             a, end: player = keeper;");
        assert_eq!(
            all.as_deref(),
            Some("a, end: player = keeper;\nbegin, a: ;")
        );
        let split = run("type T = {p, q, r};\n\
             var v: T = p;\n\
             begin, a: v == p;\n\
             begin, a: v == q;\n\
             begin, b: v == r;\n\
             a, end: player = keeper;\n\
             b, end: player = keeper;");
        assert_eq!(split, None);
        let half = run("type T = {p, q, r, s};\n\
             var v: T = p;\n\
             begin, a: v == p;\n\
             begin, a: v == q;\n\
             a, end: player = keeper;");
        assert_eq!(half, None);
        // Three equalities against two inequalities and one inner node: no gain.
        let costly = run("type T = {p, q, r, s, t};\n\
             var v: T = p;\n\
             begin, a: v == p;\n\
             begin, a: v == q;\n\
             begin, a: v == r;\n\
             a, end: player = keeper;");
        assert_eq!(costly, None);
    }
}
