//! `inline_reachability`: a check whose subautomaton is a single deterministic
//! chain is replaced by the chain's conditions, evaluated in place.
//!
//! For a check `p, q: ? a -> b` (or `! a -> b`) the walk from `a` is followed while every node
//! has exactly one outgoing edge (duplicates collapse). Its outcome is one of:
//!
//! * *never*: the walk dies at a sink or runs into a cycle before reaching `b` — no walk from `a`
//!   reaches `b` in any state;
//! * *conditions* `c1 … ck`: the walk reaches `b`, and it does so exactly when every `ci` holds,
//!   where `ci` is the i-th comparison or nested check of the chain with the chain's earlier
//!   assignments substituted into it (`x = up[x]; x != null; board[x] == e` gives
//!   `X(up[x]) != null` and `board[X(up[x])] == e`, `X` the declared type of `x`);
//! * *refused*: the walk branches, or a condition reads what cannot be substituted (a map cell
//!   or any-assignment assigned earlier on the chain), or a nested check follows an assignment
//!   (the nested search would see the changed state).
//!
//! Rewrites: a positive check with conditions becomes the chain `p → … → q` of the conditions (a
//! skip when there are none), with fresh interior nodes; a negative check over no condition never
//! holds and is deleted, over one condition it becomes that condition negated (over more it is
//! kept: the disjunction would need more edges than the check — unless the check's source already
//! starts a chain of exactly those conditions, each interior node entered only from the chain and
//! no check node; then the check becomes that chain's exits: `¬c1` from the source and `¬ci` from
//! the node after `c(i-1)`, all to the check's target). A positive check that never holds
//! is deleted; a negative one becomes a skip. Like the reference, a positive check is kept when
//! its negative twin `! a -> b` exists and cannot be inlined (so `join_exclusive_edges` can still
//! cancel the pair).
//!
//! Why the game tree is kept: a deterministic chain has one candidate walk, so "a walk from `a`
//! reaches `b`" is "every condition of the chain holds, each evaluated after the chain's earlier
//! assignments", which is what the substituted conditions compute on the unchanged state (casts
//! do not change values). A check changes nothing in the state, and the copy assigns nothing, so
//! no variable is changed and no tag is added: unlike the reference, which copies the chain's
//! assignments into the automaton and must prove them dead, this copy has no side effects at
//! all (which also fixes defect D6: `goals`, `player` and `visible` writes inside the chain are
//! never copied). A walk through the copy reaches `q` in exactly the state (and with the tags) a
//! walk through the check did, so the interpreter merges walks there as before and the number of
//! moves is unchanged. Conditions are evaluated in the chain's order, so an access is only evaluated
//! when the conditions that guarded it in the chain hold.
//! The exits of an existing chain: comparisons change nothing, so a walk at the chain's i-th
//! node is in the check's state with `c1 … c(i-1)` true; the exits `¬c1`, `c1 ∧ ¬c2`, … are
//! pairwise exclusive and together say `¬(c1 ∧ … ∧ ck)`, so the target is reached by at most one
//! walk, in the check's state, exactly when the negative check held. No other walk can use an
//! exit: the interior nodes are entered only through the chain and are no check's start or end.
//!
//! Before that, an assignment on an edge into a check end that is a sink (and not `end`) becomes a
//! skip: a walk that arrives there stops, and whether it arrived is all a check asks; a walk of a
//! move dies there anyway (`player` assignments, which finish a move, are kept). This makes the
//! typical "is there still a legal move" checks of the RBG translation, whose branches end with
//! the move's last assignment, chains or exclusive pairs.
//!
//! Complexity: one walk per distinct `(a, b)`, cached, each at most the length of the chain:
//! O(E) per run, plus the size of the substituted expressions (hash-consed).

use super::meta;
use crate::util::NodeMap;
use crate::util::{FreshNodes, FxHashMap, FxHashSet, assigns_player, negate, reset_set};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId, Symbol, TypeData, TypeId};

#[derive(Debug)]
pub(crate) struct InlineReachability;

/// What the walk from a check's start finds.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// No walk reaches the end.
    Never,
    /// A walk reaches the end iff all of these hold (in the checking state).
    Conditions(Vec<Label>),
    /// Not a chain, or not expressible without assignments.
    Refused,
}

/// The unique outgoing edge of `n` (parallel duplicates collapse); `None` for zero or several.
fn unique_out(g: &Game, n: NodeId) -> Option<Option<EdgeId>> {
    let out = g.outgoing(n);
    let first = *out.first()?;
    let d = g.edge(first);
    out[1..]
        .iter()
        .all(|&e| g.edge(e).label == d.label && g.edge(e).to == d.to)
        .then_some(Some(first))
        .or(Some(None))
}

/// The substitution built along a chain: variables with their value in terms of the state at
/// the chain's start, and variables whose value cannot be expressed (map cells, `T(*)`).
struct Subst<'a> {
    /// Variables whose assignments can be substituted, with the type name to cast to.
    castable: &'a FxHashMap<Symbol, TypeId>,
    values: FxHashMap<Symbol, ExprId>,
    opaque: FxHashSet<Symbol>,
}

impl Subst<'_> {
    /// `e` with every substituted variable replaced; `None` if it reads an opaque variable.
    fn apply(&self, g: &mut Game, e: ExprId) -> Option<ExprId> {
        match g.expr(e) {
            ExprData::Ref(s) => {
                if self.opaque.contains(&s) {
                    return None;
                }
                Some(self.values.get(&s).copied().unwrap_or(e))
            }
            ExprData::Cast(t, x) => {
                let x2 = self.apply(g, x)?;
                Some(if x2 == x { e } else { g.expr_cast(t, x2) })
            }
            ExprData::Access(m, i) => {
                let (m2, i2) = (self.apply(g, m)?, self.apply(g, i)?);
                Some(if (m2, i2) == (m, i) {
                    e
                } else {
                    g.expr_access(m2, i2)
                })
            }
        }
    }

    /// Records the assignment `lhs = rhs` (`rhs == None` for `lhs = T(*)`).
    fn assign(&mut self, g: &mut Game, lhs: ExprId, rhs: Option<ExprId>) {
        let var = g.expr_root(lhs);
        let whole = g.expr(lhs) == ExprData::Ref(var);
        let value = match (whole, rhs, self.castable.get(&var)) {
            (true, Some(rhs), Some(&ty)) => self.apply(g, rhs).map(|r| match g.expr(r) {
                ExprData::Cast(t, _) if t == ty => r,
                _ => g.expr_cast(ty, r),
            }),
            _ => None,
        };
        match value {
            Some(v) => {
                self.opaque.remove(&var);
                self.values.insert(var, v);
            }
            None => {
                self.values.remove(&var);
                self.opaque.insert(var);
            }
        }
    }
}

/// Follows the walk from `a` to `b` (see the module doc).
/// (`visited` is scratch space, reused across walks.)
fn walk(
    g: &mut Game,
    a: NodeId,
    b: NodeId,
    castable: &FxHashMap<Symbol, TypeId>,
    visited: &mut FxHashSet<NodeId>,
) -> Outcome {
    let mut subst = Subst {
        castable,
        values: FxHashMap::default(),
        opaque: FxHashSet::default(),
    };
    let mut conditions = Vec::new();
    reset_set(visited);
    let mut cur = a;
    loop {
        if cur == b {
            return Outcome::Conditions(conditions);
        }
        if !visited.insert(cur) {
            return Outcome::Never;
        }
        let e = match unique_out(g, cur) {
            None => return Outcome::Never,
            Some(None) => return Outcome::Refused,
            Some(Some(e)) => e,
        };
        let d = g.edge(e);
        let (label, next) = (d.label, d.to);
        match label {
            Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
            Label::Assign { lhs, rhs } => subst.assign(g, lhs, Some(rhs)),
            Label::AssignAny { lhs, .. } => subst.assign(g, lhs, None),
            Label::Compare { lhs, rhs, negated } => {
                let (Some(lhs), Some(rhs)) = (subst.apply(g, lhs), subst.apply(g, rhs)) else {
                    return Outcome::Refused;
                };
                conditions.push(Label::Compare { lhs, rhs, negated });
            }
            Label::Reach { .. } => {
                if !subst.values.is_empty() || !subst.opaque.is_empty() {
                    return Outcome::Refused;
                }
                conditions.push(label);
            }
        }
        cur = next;
    }
}

/// Variables declared with a type name that resolves to a set: their values can be written as
/// `T(e)`.
fn castable_variables(g: &Game) -> FxHashMap<Symbol, TypeId> {
    let env = TypeEnv::new(g);
    g.variables
        .iter()
        .filter(|v| matches!(g.ty(v.ty), TypeData::Name(_)))
        .filter(|v| matches!(env.resolve(v.ty), Ok(Resolved::Set(_))))
        .map(|v| (v.name, v.ty))
        .collect()
}

/// Assignments into a check end that is a sink (not `end`) become skips: a walk that reaches the
/// sink stops there, and whether it reached it is all a check asks (a walk of a move dies there).
/// Assignments to `player` are kept (they finish a move). Returns whether anything changed.
fn skip_final_stores(g: &mut Game, checks: &[(EdgeId, NodeId, NodeId, bool)]) -> bool {
    let mut ends: Vec<NodeId> = checks.iter().map(|c| c.2).collect();
    ends.sort_unstable();
    ends.dedup();
    let mut changed = false;
    for b in ends {
        if Some(b) == g.end() || !g.outgoing(b).is_empty() {
            continue;
        }
        for e in g.incoming(b).to_vec() {
            let l = g.edge(e).label;
            if matches!(l, Label::Assign { .. } | Label::AssignAny { .. }) && !assigns_player(g, &l)
            {
                g.set_label(e, Label::Skip);
                changed = true;
            }
        }
    }
    changed
}

/// The chain of comparison edges `p → n1 → … → nk` labelled `conditions` that already leaves
/// `p`, if any: its interior nodes `n1 … n(k-1)` are returned, each entered only by the chain
/// edge before it and not the start or end of any check (so a walk there has passed the
/// conditions before it, and new edges leaving it change no check). The first matching edge is
/// taken at every step.
fn existing_chain(
    g: &Game,
    is_check: &NodeMap<bool>,
    p: NodeId,
    conditions: &[Label],
) -> Option<Vec<NodeId>> {
    let mut nodes = Vec::new();
    let mut cur = p;
    for (i, c) in conditions.iter().enumerate() {
        if !matches!(c, Label::Compare { .. }) {
            return None;
        }
        let last = i + 1 == conditions.len();
        let next = g.outgoing(cur).iter().map(|&f| g.edge(f)).find(|d| {
            d.label == *c
                && (last
                    || (g.incoming(d.to).len() == 1
                        && !is_check[d.to]
                        && Some(d.to) != g.begin()
                        && d.to != p))
        })?;
        if !last {
            nodes.push(next.to);
            cur = next.to;
        }
    }
    Some(nodes)
}

/// Replaces check edge `e` (`p → q`) by the chain of `conditions` from `p` to `q`; the edge
/// itself carries the first condition, so it keeps its place in the edge list. The new targets
/// of the chain's edges are pushed to `retarget` (moved in one batch: `q` may be entered by
/// thousands of check edges).
fn splice(
    g: &mut Game,
    fresh: &mut FreshNodes,
    e: EdgeId,
    conditions: &[Label],
    retarget: &mut Vec<(EdgeId, NodeId)>,
) {
    let q = g.edge(e).to;
    let Some((first, rest)) = conditions.split_first() else {
        g.set_label(e, Label::Skip);
        return;
    };
    g.set_label(e, *first);
    let mut last = e;
    for &c in rest {
        let n = fresh.node(g);
        retarget.push((last, n));
        last = g.add_edge(n, q, c);
    }
}

impl Pass for InlineReachability {
    meta!(
        "inline_reachability",
        "a check over a deterministic chain becomes the chain's conditions, evaluated in place",
        Safe,
        Loop,
        Reachability
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let checks: Vec<(EdgeId, NodeId, NodeId, bool)> = g
            .edges()
            .filter_map(|(e, d)| match d.label {
                Label::Reach { from, to, negated } => Some((e, from, to, negated)),
                _ => None,
            })
            .collect();
        if checks.is_empty() {
            return Ok(false);
        }
        let mut changed = skip_final_stores(g, &checks);
        let castable = castable_variables(g);
        let mut outcomes: FxHashMap<(NodeId, NodeId), Outcome> = FxHashMap::default();
        let mut visited = FxHashSet::default();
        for &(_, a, b, _) in &checks {
            if let std::collections::hash_map::Entry::Vacant(slot) = outcomes.entry((a, b)) {
                slot.insert(walk(g, a, b, &castable, &mut visited));
            }
        }
        // A negative check over several conditions is inlined only where its source already
        // starts a chain of exactly those conditions: it becomes the exits of that chain.
        // Otherwise it is kept, and then its positive twins too, so that the pair can still
        // cancel out.
        let is_check = cx.check_nodes(g);
        let mut exits: FxHashMap<EdgeId, Vec<NodeId>> = FxHashMap::default();
        for &(e, a, b, negated) in &checks {
            if let (true, Outcome::Conditions(c)) = (negated, &outcomes[&(a, b)])
                && c.len() > 1
                && let Some(nodes) = existing_chain(g, &is_check, g.edge(e).from, c)
            {
                exits.insert(e, nodes);
            }
        }
        let blocked: FxHashSet<(NodeId, NodeId)> = checks
            .iter()
            .filter(|&&(e, a, b, negated)| {
                negated
                    && matches!(&outcomes[&(a, b)], Outcome::Conditions(c) if c.len() > 1)
                    && !exits.contains_key(&e)
            })
            .map(|&(_, a, b, _)| (a, b))
            .collect();
        // Made when the first chain is spliced in (finding the highest numbered node reads
        // every node's name, and most runs splice nothing).
        let mut fresh: Option<FreshNodes> = None;
        // Removals and moved targets, applied together after the loop (one at a time is
        // quadratic at a target entered by many check edges; nothing below reads them).
        let mut removed: Vec<EdgeId> = Vec::new();
        let mut retarget: Vec<(EdgeId, NodeId)> = Vec::new();
        for (e, a, b, negated) in checks {
            match (&outcomes[&(a, b)], negated) {
                (Outcome::Refused, _) => continue,
                (Outcome::Never, false) => removed.push(e),
                (Outcome::Never, true) => g.set_label(e, Label::Skip),
                (Outcome::Conditions(c), false) => {
                    if blocked.contains(&(a, b)) {
                        continue;
                    }
                    let c = c.clone();
                    let fresh = fresh.get_or_insert_with(|| cx.fresh_nodes(g));
                    splice(g, fresh, e, &c, &mut retarget);
                }
                (Outcome::Conditions(c), true) => match c.as_slice() {
                    [] => removed.push(e),
                    [c] => g.set_label(e, negate(c).expect("a condition")),
                    c => {
                        let Some(nodes) = exits.get(&e) else {
                            continue;
                        };
                        // ¬(c1 ∧ … ∧ ck) = ¬c1 ∨ (c1 ∧ ¬c2) ∨ …: the i-th exit leaves the chain
                        // where c1 … c(i-1) have held.
                        let (q, c) = (g.edge(e).to, c.to_vec());
                        g.set_label(e, negate(&c[0]).expect("a condition"));
                        for (&n, ci) in nodes.iter().zip(&c[1..]) {
                            g.add_edge(n, q, negate(ci).expect("a condition"));
                        }
                    }
                },
            }
            changed = true;
        }
        g.set_targets(&retarget);
        g.remove_edges(&removed);
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::InlineReachability;
    use crate::testing::{edges, run};

    const VARS: &str = "type T = { p, q };\nvar v: T = p;\nvar w: T = p;\n";

    #[test]
    fn a_positive_chain_becomes_its_conditions() {
        // The reference's first example.
        let text = format!(
            "{VARS}begin, a: ? s -> t;\na, end: player = keeper;\ns, s1: v == p;\ns1, t: w != q;\n"
        );
        let (_, after, changed, _) = run(&InlineReachability, &text);
        assert!(changed);
        let e = edges(&after);
        assert!(e.contains(&"begin, 1: v == p;".into()), "{e:?}");
        assert!(e.contains(&"1, a: w != q;".into()), "{e:?}");
    }

    #[test]
    fn a_negative_check_over_one_condition_becomes_its_negation() {
        // The reference's second example.
        let text = format!(
            "{VARS}begin, a: ! s -> t;\nbegin, b: ? s -> t;\na, end: player = keeper;\n\
             b, end: player = keeper;\ns, t: v == q;\n"
        );
        let (_, after, _, _) = run(&InlineReachability, &text);
        let e = edges(&after);
        assert_eq!(e[..2], ["begin, a: v != q;", "begin, b: v == q;"], "{e:?}");
    }

    #[test]
    fn observable_stores_inside_a_check_are_not_copied() {
        // Defect D6: the reference copies `goals[x] = 1` into the automaton, changing the score.
        let text = "begin, a: ? s -> t;\na, end: player = keeper;\ns, t: goals[x] = 1;\n";
        let (_, after, _, _) = run(&InlineReachability, text);
        let e = edges(&after);
        assert_eq!(e[0], "begin, a: ;");
        assert!(
            !e.iter()
                .any(|l| l.starts_with("begin") && l.contains("goals"))
        );
    }

    #[test]
    fn assignments_are_substituted_into_later_conditions() {
        let text = "type T = { p, q, r };\nconst nxt: T -> T = { p: q, q: r, :p };\n\
                    var v: T = p;\nvar w: T = p;\nbegin, a: ? s -> t;\na, end: player = keeper;\n\
                    s, s1: w = nxt[v];\ns1, s2: w = nxt[w];\ns2, t: w == r;\n";
        let (_, after, _, _) = run(&InlineReachability, text);
        assert_eq!(edges(&after)[0], "begin, a: T(nxt[T(nxt[v])]) == r;");
        // `w` itself is never assigned outside the check.
        assert!(
            !edges(&after)
                .iter()
                .any(|l| l.starts_with("begin") && l.contains("w ="))
        );
    }

    #[test]
    fn what_cannot_be_substituted_is_left_alone() {
        // A map cell written on the chain and read later; a nested check after an assignment;
        // a branching subautomaton.
        let text = "type T = { p, q };\nvar m: T -> T = { :p };\nvar v: T = p;\n\
                    begin, a: ? s -> t;\na, b: ? u -> w;\nb, c: ? k -> l;\nc, end: player = keeper;\n\
                    s, s1: m[p] = q;\ns1, t: m[p] == q;\n\
                    u, u1: v = q;\nu1, w: ? s -> t;\n\
                    k, l: v == p;\nk, l: v == q;\n";
        let (before, after, changed, _) = run(&InlineReachability, text);
        assert!(!changed);
        assert_eq!(edges(&before), edges(&after));
    }

    #[test]
    fn a_walk_into_a_sink_or_a_cycle_never_reaches_the_end() {
        let text = format!(
            "{VARS}begin, a: ? s -> t;\nbegin, a: ! s -> t;\na, b: ! c1 -> c9;\nb, end: player = keeper;\n\
             s, s1: v == p;\nc1, c2: ;\nc2, c1: ;\nc3, c9: ;\n"
        );
        let (_, after, _, _) = run(&InlineReachability, &text);
        let e = edges(&after);
        assert_eq!(e[..2], ["begin, a: ;", "a, b: ;"], "{e:?}");
    }
}
