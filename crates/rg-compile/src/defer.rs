//! Moves whose last check is evaluated only when the move is applied.
//!
//! Translations of games whose turns hand over to the keeper (RBG's `->>`, for one) end a move
//! with a pair of complementary checks: `? a -> b` leads to one assignment to `player`,
//! `! a -> b` to another (typically "the keeper can go on" and "the game ends"). Exactly one of
//! the two holds in every state, and nothing after them emits a tag, so the pair decides only
//! where the move leads, never whether it exists or what its tags are. Listing the moves of a
//! state evaluated the check once per move, and most listed moves are never applied: a random
//! playout applies one of them.
//!
//! A node `X` is *deferred* when the listing can stop there and record the move as pending at
//! `X`, to be finished (the check evaluated, the assignment made) by `apply`:
//!
//! 1. `X` is in a move search and is not a node where a state can be between moves (so a
//!    pending state is recognisable by its node);
//! 2. its outgoing edges are exactly `? a -> b` and `! a -> b` (same `a`, `b`), to two
//!    different nodes `p` and `q` other than `X`;
//! 3. `p` and `q` each have exactly one outgoing edge, an assignment `player = e` (one move,
//!    not one per member of a type);
//! 4. the visited-state checks at `p` and `q` never drop a walk: `X` expands every state (with
//!    its tags) at most once in a search (its own check, or a proof or pragma that none is
//!    needed — not a cycle-counting check), the checks lead there without changing the state,
//!    and no other node a walk of the same move searches can reach enters `p` or `q`. Neither
//!    `p` nor `q` has an `@repeat` list (the interpreter would compare only those variables).
//!
//! Then the number, order, tags and successor states of the moves are those of the full search.

use crate::search::{SearchPlan, Visit, assigns_player};
use crate::visits::{Check, Visits};
use rg_core::{EntityId, Game, Label, NodeId};
use std::collections::HashSet;

/// Node visits allowed for the region tests of all candidates together.
const WORK_BUDGET: u64 = 4_000_000;

/// The deferred nodes (indexed by node).
pub(crate) fn analyse(game: &Game, plan: &SearchPlan, visits: &Visits) -> Vec<bool> {
    let n = plan.moves.len();
    let mut deferred = vec![false; n];
    let mut incoming: Option<Vec<Vec<NodeId>>> = None;
    let mut budget = WORK_BUDGET;
    for x in 0..n {
        if !plan.moves[x] || plan.starts[x] {
            continue;
        }
        let Some((p, q)) = check_pair(game, plan, NodeId::new(x)) else {
            continue;
        };
        if !ends_move(game, plan, p) || !ends_move(game, plan, q) {
            continue;
        }
        if matches!(plan.visit[p.index()], Visit::Vars(_))
            || matches!(plan.visit[q.index()], Visit::Vars(_))
            || matches!(visits.moves.det(x), Check::Loop { .. })
        {
            continue;
        }
        let incoming = incoming.get_or_insert_with(|| {
            let mut inc = vec![Vec::new(); n];
            for (_, e) in game.edges() {
                inc[e.to.index()].push(e.from);
            }
            inc
        });
        let x = NodeId::new(x);
        let mut ok = true;
        for t in [p, q] {
            if incoming[t.index()].iter().all(|&m| m == x) {
                continue;
            }
            // In scopes that are all determined, walks of different scope events have
            // different tags: only the walks of X's own scope events can meet at `t`.
            let scoped = !visits.moves.nondet(t.index());
            if !entered_only_from(game, plan, incoming, x, t, scoped, &mut budget) {
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        deferred[x.index()] = true;
    }
    deferred
}

/// The targets of `? a -> b` and `! a -> b`, when these are exactly the edges of `x`.
fn check_pair(game: &Game, plan: &SearchPlan, x: NodeId) -> Option<(NodeId, NodeId)> {
    let out = &plan.out[x.index()];
    if out.len() != 2 {
        return None;
    }
    let (e1, e2) = (game.edge(out[0]), game.edge(out[1]));
    let (
        Label::Reach {
            from: f1,
            to: t1,
            negated: n1,
        },
        Label::Reach {
            from: f2,
            to: t2,
            negated: n2,
        },
    ) = (e1.label, e2.label)
    else {
        return None;
    };
    if f1 != f2 || t1 != t2 || n1 == n2 || e1.to == e2.to || e1.to == x || e2.to == x {
        return None;
    }
    Some((e1.to, e2.to))
}

/// Whether `t` has exactly one edge, an assignment of one value to `player`.
fn ends_move(game: &Game, plan: &SearchPlan, t: NodeId) -> bool {
    match plan.out[t.index()].as_slice() {
        [e] => {
            let label = &game.edge(*e).label;
            matches!(label, Label::Assign { .. }) && assigns_player(game, label)
        }
        _ => false,
    }
}

/// Whether `x` is the only node with an edge into `t` among the nodes that walks of the move
/// searches reaching `x` can visit (`scoped`: of the scope events reaching `x`, which begin at
/// the starts of move searches and after tag edges). False when over budget.
fn entered_only_from(
    game: &Game,
    plan: &SearchPlan,
    incoming: &[Vec<NodeId>],
    x: NodeId,
    t: NodeId,
    scoped: bool,
    budget: &mut u64,
) -> bool {
    let is_tag = |l: &Label| matches!(l, Label::Tag(_) | Label::TagVar(_));
    let follows = |l: &Label| !(assigns_player(game, l) || scoped && is_tag(l));
    // Edges from `p` to `m` that a walk of the same search (scope) follows.
    let walks = |p: NodeId, m: NodeId| {
        plan.out[p.index()].iter().any(|&e| {
            let d = game.edge(e);
            d.to == m && follows(&d.label)
        })
    };
    // Where a search (scope event) can begin: a search start, or after a tag edge.
    let begins = |m: NodeId| {
        plan.starts[m.index()]
            || (scoped
                && incoming[m.index()].iter().any(|&p| {
                    plan.moves[p.index()]
                        && plan.out[p.index()].iter().any(|&e| {
                            let d = game.edge(e);
                            d.to == m && is_tag(&d.label)
                        })
                }))
    };
    // The beginnings whose walks reach `x`: backwards over the edges walks follow.
    // Sets, not tables over all nodes: a large game has many candidates, each walking a little.
    let mut back: HashSet<NodeId> = HashSet::from([x]);
    let mut work = vec![x];
    let mut starts = Vec::new();
    while let Some(m) = work.pop() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        if begins(m) {
            starts.push(m);
        }
        for &p in &incoming[m.index()] {
            if !back.contains(&p) && plan.moves[p.index()] && walks(p, m) {
                back.insert(p);
                work.push(p);
            }
        }
    }
    // Everything walks from there can visit.
    let mut fwd: HashSet<NodeId> = starts.iter().copied().collect();
    let mut work = starts;
    while let Some(m) = work.pop() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        for &e in &plan.out[m.index()] {
            let d = game.edge(e);
            if follows(&d.label) && fwd.insert(d.to) {
                work.push(d.to);
            }
        }
    }
    incoming[t.index()]
        .iter()
        .all(|&m| m == x || !fwd.contains(&m))
}
