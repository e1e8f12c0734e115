//! join_conditional_assignments (not in the reference): "if `f` is `s1` then `n = s1`", where
//! `n` already holds the only other value `f` can have, becomes the copy `n = f`.
//!
//! Pattern at a node `p`: the edges `p → x: f == s1`, `x → q: n = s1` and `p → q: f != s1`
//! (`s1` a symbol, written directly or as a constant; the comparisons' sides in either order),
//! where `x` has no other edge and is not `begin`, `end` or a check's start or end; the values
//! `f` can have (its type with casts erased, as the interpreter erases them) are `s1` and one
//! other symbol `s0`; and ConstantsAnalysis knows that `n` (a whole variable, not `player`,
//! `goals` or `visible`) holds `s0` at `p`. The edge `p → q` becomes `n = T(f)` (`T` the declared
//! type of `n`) and the other two are deleted. Typical source: the next-state rules of GDL
//! translations, which reset `n` to its default and then set it where a rule holds.
//!
//! Why the game tree is kept: in every state at `p` exactly one of the two routes was passable
//! and both end at `q` with no tag and no move boundary on the way. If `f` is `s1`, the old route
//! set `n` to `s1`, as `n = f` does; otherwise `f` is `s0`, the old route changed nothing, and `n`
//! already held `s0`, which `n = f` stores again. `f` is evaluated in the same state as before.
//!
//! Complexity: a structural scan, O(E); one solve of ConstantsAnalysis only when the scan finds
//! a candidate (and the game is not too large for it).

use super::inline_assignment::replacement;
use super::meta;
use super::reorder_comparisons::erased_type;
use crate::analysis::constants::{self, Constants};
use crate::analysis::values::Known;
use crate::util::{NodeMap, edge_ids};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId, Symbol};
use std::collections::HashSet;

#[derive(Debug)]
pub(crate) struct JoinConditionalAssignments;

/// One match: the test edge `p → x`, the store `x → q`, the other route `p → q`, the tested
/// expression `f`, its values `s1` (tested) and `s0`, and the stored variable `n`.
struct Candidate {
    test: EdgeId,
    store: EdgeId,
    other: EdgeId,
    f: ExprId,
    s0: Symbol,
    n: Symbol,
}

/// `f == s1` as `(f, s1)` (either order), with `s1` the symbol the other side evaluates to
/// without any knowledge of the state.
fn equality(g: &Game, c: &Constants<'_>, label: &Label) -> Option<(ExprId, Symbol, bool)> {
    let Label::Compare { lhs, rhs, negated } = *label else {
        return None;
    };
    let none = constants::Facts::default();
    let sym = |e: ExprId| match c.eval(g, e, &none) {
        Some(Known::Sym(s)) => Some(s),
        _ => None,
    };
    match (sym(lhs), sym(rhs)) {
        (None, Some(s)) => Some((g.strip_casts(lhs), s, negated)),
        (Some(s), None) => Some((g.strip_casts(rhs), s, negated)),
        _ => None,
    }
}

/// The candidates of `g` (without the knowledge about `n`).
fn candidates(g: &Game, c: &Constants<'_>, is_check: &NodeMap<bool>) -> Vec<Candidate> {
    let env = TypeEnv::new(g);
    let wk = g.well_known();
    let special = [wk.player, wk.goals, wk.visible];
    let mut out = Vec::new();
    for test in edge_ids(g) {
        let d = g.edge(test);
        let (p, x) = (d.from, d.to);
        let Some((f, s1, false)) = equality(g, c, &d.label) else {
            continue;
        };
        if x == p || is_check[x] || Some(x) == g.begin() || Some(x) == g.end() {
            continue;
        }
        let ([t], [store]) = (g.incoming(x), g.outgoing(x)) else {
            continue;
        };
        debug_assert_eq!(*t, test);
        let ds = g.edge(*store);
        let q = ds.to;
        let Label::Assign { lhs, rhs } = ds.label else {
            continue;
        };
        let ExprData::Ref(n) = g.expr(g.strip_casts(lhs)) else {
            continue;
        };
        let stored = match c.eval(g, rhs, &constants::Facts::default()) {
            Some(Known::Sym(s)) => s,
            _ => continue,
        };
        if stored != s1 || special.contains(&n) || g.variable(n).is_none() || q == x {
            continue;
        }
        let Some(other) = g.outgoing(p).iter().copied().find(|&o| {
            g.edge(o).to == q
                && equality(g, c, &g.edge(o).label)
                    .is_some_and(|(f2, s2, negated)| negated && f2 == f && s2 == s1)
        }) else {
            continue;
        };
        // The values of `f`: `s1` and exactly one other symbol.
        let Some(Ok(Resolved::Set(members))) = erased_type(&env, f).map(|t| env.resolve_ty(t))
        else {
            continue;
        };
        let mut others: Vec<Symbol> = members
            .as_slice()
            .iter()
            .copied()
            .filter(|&m| m != s1)
            .collect();
        others.dedup();
        let ([s0], true) = (others.as_slice(), members.contains(s1)) else {
            continue;
        };
        out.push(Candidate {
            test,
            store: *store,
            other,
            f,
            s0: *s0,
            n,
        });
    }
    out
}

impl Pass for JoinConditionalAssignments {
    meta!(
        "join_conditional_assignments",
        "\"if f is s1 then n = s1\" where n holds the other value of f becomes n = f",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let c = Constants { values: &values };
        let found = candidates(g, &c, &cx.check_nodes(g));
        if found.is_empty() {
            return Ok(false);
        }
        let Some(facts) = constants::solve_facts(g, &c, cx, self.name()) else {
            return Ok(false);
        };
        let mut changed = false;
        let mut used: HashSet<NodeId> = HashSet::new();
        for cand in found {
            let p = g.edge(cand.test).from;
            let holds_s0 = g
                .exprs()
                .find(&ExprData::Ref(cand.n))
                .and_then(|r| facts[p].as_ref()?.get(r))
                == Some(Known::Sym(cand.s0));
            // One rewrite per source node and run (two candidates there may share the route
            // `p → q`); the knowledge stays true after a rewrite, which keeps the game.
            if !holds_s0 || !used.insert(p) {
                continue;
            }
            let lhs = match g.edge(cand.store).label {
                Label::Assign { lhs, .. } => lhs,
                _ => continue,
            };
            let rhs = replacement(g, cand.n, cand.f);
            g.set_label(cand.other, Label::Assign { lhs, rhs });
            g.remove_edge(cand.store);
            g.remove_edge(cand.test);
            changed = true;
        }
        Ok(changed)
    }
}
