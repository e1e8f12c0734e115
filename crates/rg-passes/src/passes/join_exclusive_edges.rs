//! `join_exclusive_edges`: alternative routes from `n` to `t` whose conditions
//! together always hold are replaced by one skip `n → t`.
//!
//! A *route* of `n` is an outgoing edge followed by the chain behind it: while the current node
//! has exactly one incoming and one outgoing edge and is neither `begin`, `end` nor a check node,
//! its outgoing edge is appended. A route is *pure* when, apart from skips, it carries only
//! comparisons and checks (outside the main automaton tags are ignored as well: they never reach
//! a move). Its conditions are the set of those labels.
//!
//! The rewrite: a pure route `R0` from `n` to `t` whose conditions are `{¬c1, …, ¬ck}`, together
//! with, for each `ci`, a pure route to the same `t` whose only condition is `ci`, become a skip
//! `n → t` (all their edges are deleted). This covers the reference's phase 1 (`k = 1`: a
//! condition against its negation) and phase 2 (one chain against several single edges) without
//! its defects: D7 — a chain `c ∧ d` against `¬c ∧ ¬d` is not a tautology and never matches here,
//! because every route but `R0` must have a single condition; D8 — all routes must end at the same
//! target.
//!
//! Why the game tree is kept: if some `ci` holds, its route is passable; otherwise every `¬ci`
//! holds and `R0` is passable. So in every state at least one of the routes leads from `n` to `t`,
//! with no effect on the state and no tag — exactly what the skip does. Several passable routes
//! reach `t` in the same state with the same tags and are merged by the interpreter's visited-state
//! check (a search does not enter a node twice in the same state), so the number of moves does not
//! change. Interior nodes of the routes have no other edges and are not named by any check, so
//! deleting them affects nothing else.
//!
//! Complexity: every edge belongs to at most one route, so building the routes of all nodes is
//! O(E); matching uses a hash map per node. One rewrite per node per run.

use super::meta;
use crate::util::NodeMap;
use crate::util::{FxHashMap, FxHashSet, negate};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, NodeId};
use std::ops::Range;

#[derive(Debug)]
pub(crate) struct JoinExclusiveEdges;

/// A route to join: its edges and end node.
struct Route {
    edges: Vec<EdgeId>,
    end: NodeId,
}

/// A pure route: its edges, end node and (deduplicated, sorted by first occurrence)
/// conditions, the edges and conditions as ranges of the buffers of [`Scratch`].
struct RouteRef {
    edges: Range<usize>,
    end: NodeId,
    conditions: Range<usize>,
}

/// Buffers reused from node to node: most nodes have no join, and allocating two vectors per
/// outgoing edge was most of the pass on large GDL translations.
#[derive(Default)]
struct Scratch {
    edges: Vec<EdgeId>,
    conditions: Vec<Label>,
    routes: Vec<RouteRef>,
    single: FxHashMap<(NodeId, Label), usize>,
    /// The conditions of the current route, once it has more than [`SCAN_CONDITIONS`].
    seen: FxHashSet<Label>,
}

/// Routes with at most this many distinct conditions are deduplicated by a linear search; longer
/// ones through [`Scratch::seen`] (a search per edge was quadratic in the route's length, and
/// GDL translations have routes of hundreds of conditions).
const SCAN_CONDITIONS: usize = 16;

impl Scratch {
    fn edges(&self, r: &RouteRef) -> &[EdgeId] {
        &self.edges[r.edges.clone()]
    }
    fn conditions(&self, r: &RouteRef) -> &[Label] {
        &self.conditions[r.conditions.clone()]
    }
}

/// The route starting with edge `e`, if it is pure; its edges and conditions are appended to
/// the buffers of `s`.
fn route(
    g: &Game,
    e: EdgeId,
    protected: &NodeMap<bool>,
    in_main: bool,
    s: &mut Scratch,
) -> Option<RouteRef> {
    let (e0, c0) = (s.edges.len(), s.conditions.len());
    crate::util::reset_set(&mut s.seen);
    let mut end = g.edge(e).from;
    let mut next = Some(e);
    while let Some(e) = next {
        let d = g.edge(e);
        match d.label {
            Label::Skip => {}
            Label::Tag(_) | Label::TagVar(_) if !in_main => {}
            Label::Compare { .. } | Label::Reach { .. } => {
                let known = &s.conditions[c0..];
                let new = if known.len() <= SCAN_CONDITIONS {
                    !known.contains(&d.label)
                } else {
                    if s.seen.is_empty() {
                        s.seen.extend(known.iter().copied());
                    }
                    s.seen.insert(d.label)
                };
                if new {
                    s.conditions.push(d.label);
                }
            }
            _ => {
                s.edges.truncate(e0);
                s.conditions.truncate(c0);
                return None;
            }
        }
        s.edges.push(e);
        end = d.to;
        let n = d.to;
        next = None;
        // An interior node is entered only by the route, so the route cannot run into a cycle
        // (it would need a node with two incoming edges); it stops at `n` at the latest.
        if !protected[n] && g.incoming(n).len() == 1 && g.outgoing(n).len() == 1 {
            next = Some(g.outgoing(n)[0]);
        }
    }
    Some(RouteRef {
        edges: e0..s.edges.len(),
        end,
        conditions: c0..s.conditions.len(),
    })
}

/// The routes of `n` to join, if any: the negated route first, then the single-condition ones.
fn find_join(
    g: &Game,
    n: NodeId,
    protected: &NodeMap<bool>,
    in_main: bool,
    s: &mut Scratch,
) -> Option<Vec<Route>> {
    s.edges.clear();
    s.conditions.clear();
    let mut routes = std::mem::take(&mut s.routes);
    routes.clear();
    for &e in g.outgoing(n) {
        if let Some(r) = route(g, e, protected, in_main, s)
            && r.end != n
            && !r.conditions.is_empty()
        {
            routes.push(r);
        }
    }
    let found = match_routes(s, &routes);
    let out = found.map(|parts| {
        parts
            .iter()
            .map(|&j| Route {
                edges: s.edges(&routes[j]).to_vec(),
                end: routes[j].end,
            })
            .collect()
    });
    s.routes = routes;
    out
}

/// The indices of the routes to join: one whose conditions are `{¬c1, …, ¬ck}` first, then a
/// single-condition route per `ci`, all to the same end.
fn match_routes(s: &mut Scratch, routes: &[RouteRef]) -> Option<Vec<usize>> {
    if routes.len() < 2 {
        return None;
    }
    let mut single = std::mem::take(&mut s.single);
    crate::util::reset_map(&mut single);
    for (i, r) in routes.iter().enumerate() {
        if let [c] = s.conditions(r) {
            single.entry((r.end, *c)).or_insert(i);
        }
    }
    let mut found = None;
    for (i, r) in routes.iter().enumerate() {
        let conditions = s.conditions(r);
        let mut parts = vec![i];
        for c in conditions {
            match single.get(&(r.end, negate(c).expect("conditions only"))) {
                Some(&j) if j != i && !parts.contains(&j) => parts.push(j),
                _ => break,
            }
        }
        if parts.len() == conditions.len() + 1 {
            found = Some(parts);
            break;
        }
    }
    s.single = single;
    found
}

impl Pass for JoinExclusiveEdges {
    meta!(
        "join_exclusive_edges",
        "routes between two nodes whose conditions together always hold become one skip",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut protected = (*cx.check_nodes(g)).clone();
        for n in [g.begin(), g.end()].into_iter().flatten() {
            protected[n] = true;
        }
        let main = cx.reachable_nodes(g, false);
        let mut joins: Vec<(NodeId, Vec<Route>)> = Vec::new();
        let mut scratch = Scratch::default();
        for n in g.nodes().ids() {
            if g.outgoing(n).len() < 2 {
                continue;
            }
            if let Some(routes) = find_join(g, n, &protected, main[n], &mut scratch) {
                joins.push((n, routes));
            }
        }
        let changed = !joins.is_empty();
        for (n, routes) in joins {
            let t = routes[0].end;
            for r in &routes {
                for &e in &r.edges {
                    g.remove_edge(e);
                }
            }
            if !g
                .outgoing(n)
                .iter()
                .any(|&e| g.edge(e).to == t && g.edge(e).label == Label::Skip)
            {
                g.add_edge(n, t, Label::Skip);
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::JoinExclusiveEdges;
    use crate::testing::{edges, run};

    #[test]
    fn complementary_routes_become_a_skip() {
        // The reference's example: a check against its negation, and `v == p`, `v == q` against
        // the chain `v != p`, `v != q`.
        let text = "type T = { p, q, r };\nvar v: T = p;\nbegin, a: ? s -> t;\nbegin, a: ! s -> t;\n\
                    a, b: v == p;\na, b: v == q;\na, m: v != p;\nm, b: v != q;\n\
                    b, end: player = keeper;\ns, t: v == r;\n";
        let (_, after, changed, _) = run(&JoinExclusiveEdges, text);
        assert!(changed);
        let e = edges(&after);
        assert_eq!(
            e,
            [
                "b, end: player = keeper;",
                "s, t: v == r;",
                "begin, a: ;",
                "a, b: ;"
            ]
        );
    }

    #[test]
    fn two_conditions_against_their_negations_are_not_a_tautology() {
        // Defect D7: for `p = a, q = b` neither route is passable.
        let text = "type T = { a, b };\nvar p: T = a;\nvar q: T = b;\nbegin, s: player = x;\n\
                    s, a1: p == a;\na1, t: q == a;\ns, b1: p != a;\nb1, t: q != a;\n\
                    s, t: p == b;\nt, end: player = keeper;\n";
        let (_, _, changed, _) = run(&JoinExclusiveEdges, text);
        assert!(!changed);
    }

    #[test]
    fn single_edges_to_other_targets_are_kept() {
        // Defect D8: the simple group goes to `y` and `z`; the route to `z` must not vanish.
        let text = "type T = { a, b };\nvar p: T = a;\nvar q: T = a;\nbegin, s: player = x;\n\
                    s, m: p == a;\nm, y: q == a;\ns, y: p != a;\ns, z: q != a;\n\
                    y, end: player = keeper;\nz, end: player = keeper;\n";
        let (_, _, changed, _) = run(&JoinExclusiveEdges, text);
        assert!(!changed);
    }
}
