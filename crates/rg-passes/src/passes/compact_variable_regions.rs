//! compact_variable_regions (not in the reference; an RG-level form of the RBG translator's
//! summary of shift runs): a part of the automaton that only moves one
//! variable through constant maps becomes one any-assignment.
//!
//! A *region* is found from an entry node `A`: the nodes reached from `A` over *local* edges —
//! skips, assignments `v = e` and comparisons whose expressions read only `v`, constants and
//! symbols, for one variable `v` — must have exactly one node `B ≠ A` with other edges (or none,
//! or a node a check or `begin`/`end` names); every other node of the region is entered only
//! from the region. Each value `c` of `v`'s type is then run through the region (a search over
//! (node, value) pairs) to get the set `R(c)` of values `v` can have on arrival at `B`.
//!
//! When the values split into *plain* ones, all with the same `R(c) = Q`, and at most two
//! *special* ones that the region either lets through unchanged or stops (typically `null`),
//! the region's edges are replaced by `A → B: v == z` for each special value let through and the
//! chain `A → …: v != z` (each special value) `… → B: v = T(*)`, `T` a declared type whose
//! members are `Q`, or a new one (`RegionN`) when none is declared (`v = T(q)` when
//! `Q = {q}`) — provided that uses fewer edges and nodes. Entries are nodes entered by an edge
//! that is not local, and the starts of checks.
//!
//! Why the game tree is kept: the region changes nothing but `v` and has no tag, so a walk
//! through it from `A` is only its arrival at `B` with some value of `v`; the interpreter
//! continues every (node, tags, values) state once, so the new edges, which arrive at `B` with
//! exactly the values of `R(c)`, let through the same states.
//!
//! Complexity: per candidate entry a search over the region, then |type of v| · |region| steps;
//! at most [`BUDGET`] steps per run, counted inside each candidate's search as well (over it:
//! the rest is left as it is, with a warning).

use super::meta;
use crate::analysis::constants::{Constants, Facts};
use crate::analysis::values::{Known, NameKind, Values};
use crate::util::{NodeMap, label_well_typed, names_of};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, Symbol, TypeId};
use std::collections::{HashMap, HashSet};

/// Steps (region searches and simulations) per run. Yavalath's regions take more than 25 000
/// (at 25 000 its -O2 automaton kept 132 nodes instead of 86 and its compiled model played 5x
/// slower); the pass runs every round of the fixed point, so a budget the largest games
/// exhaust is paid in each (gess at -O2: 13 s user at 25 000, 17 s at 100 000, 34 s at 10^6).
/// A fuzzed game that needed 73 s without a bound stops at this one in 0.1 s.
pub(crate) const BUDGET: usize = 100_000;

/// Regions that only move one variable through constant maps become one any-assignment.
#[derive(Debug)]
pub(crate) struct CompactVariableRegions;

/// How a label relates to regions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Local {
    /// Not local: it ends a region.
    No,
    /// A skip or a comparison of constants.
    Any,
    /// Reads (and possibly assigns) only this variable.
    Var(Symbol),
}

struct Finder<'a> {
    g: &'a Game,
    values: &'a Values,
    protected: NodeMap<bool>,
    /// [`Finder::local`] of every edge's label, by edge index.
    locals: Vec<Local>,
    steps: usize,
}

/// A region: entry, exit, inner nodes, edges, variable.
struct Region {
    a: NodeId,
    b: NodeId,
    nodes: Vec<NodeId>,
    edges: Vec<EdgeId>,
    v: Symbol,
}

impl Finder<'_> {
    /// The variables an expression reads; `None` if it reads a variable that is built in.
    fn only_var(&self, e: ExprId, var: &mut Option<Symbol>) -> bool {
        let mut ok = true;
        names_of(self.g, e, &mut |s| {
            if self.values.kind(s) == NameKind::Variable {
                match var {
                    Some(v) if *v != s => ok = false,
                    _ => *var = Some(s),
                }
            }
        });
        ok
    }

    fn local(&self, label: &Label) -> Local {
        let wk = self.g.well_known();
        let mut var = None;
        let ok = match *label {
            Label::Skip => true,
            Label::Assign { lhs, rhs } => match self.g.expr(self.g.strip_casts(lhs)) {
                ExprData::Ref(v) => {
                    var = Some(v);
                    self.values.kind(v) == NameKind::Variable && self.only_var(rhs, &mut var)
                }
                _ => false,
            },
            Label::Compare { lhs, rhs, .. } => {
                self.only_var(lhs, &mut var) && self.only_var(rhs, &mut var)
            }
            _ => false,
        };
        match (ok, var) {
            (false, _) => Local::No,
            (true, Some(v)) if [wk.player, wk.goals, wk.visible].contains(&v) => Local::No,
            (true, Some(v)) => Local::Var(v),
            (true, None) => Local::Any,
        }
    }

    /// How the label of edge `e` relates to regions.
    fn edge_local(&self, e: EdgeId) -> Local {
        self.locals[e.index()]
    }

    /// The region entered at `a`, if there is one. The search gives up as soon as the region
    /// has a second exit or an inner node is entered by an edge that is not local (its source
    /// then has another edge out, so it is outside the region).
    fn region(&mut self, a: NodeId) -> Option<Region> {
        let g = self.g;
        let mut var = None;
        let mut seen: HashSet<NodeId> = HashSet::from([a]);
        let mut order = vec![a];
        let mut exits = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let n = order[i];
            i += 1;
            let out = g.outgoing(n);
            let stops = out.is_empty()
                || (n != a && self.protected[n])
                || out.iter().any(|&e| self.edge_local(e) == Local::No);
            if stops {
                if exits.len() == 1 {
                    return None;
                }
                exits.push(n);
                continue;
            }
            if n != a
                && g.incoming(n)
                    .iter()
                    .any(|&e| self.edge_local(e) == Local::No)
            {
                return None;
            }
            if self.steps > BUDGET {
                return None;
            }
            for &e in out {
                self.steps += 1;
                if let Local::Var(v) = self.edge_local(e) {
                    if var.is_some_and(|x| x != v) {
                        return None;
                    }
                    var = Some(v);
                }
                let to = g.edge(e).to;
                if seen.insert(to) {
                    order.push(to);
                }
            }
        }
        let (&[b], Some(v)) = (&exits[..], var) else {
            return None;
        };
        if b == a {
            return None;
        }
        let nodes: Vec<NodeId> = order.into_iter().filter(|&n| n != b).collect();
        let inside: HashSet<NodeId> = nodes.iter().copied().collect();
        let entered_inside = nodes[1..].iter().all(|&n| {
            g.incoming(n)
                .iter()
                .all(|&e| inside.contains(&g.edge(e).from))
        });
        if !entered_inside {
            return None;
        }
        let edges: Vec<EdgeId> = nodes.iter().flat_map(|&n| g.outgoing(n).to_vec()).collect();
        Some(Region {
            a,
            b,
            nodes,
            edges,
            v,
        })
    }
}

/// The values of `v` on arrival at `b` for each value of `v` at `a` (`None`: not computable).
fn outcomes(
    g: &Game,
    c: &Constants<'_>,
    r: &Region,
    domain: &[Symbol],
    steps: &mut usize,
) -> Option<Vec<Vec<Symbol>>> {
    let v_ref = g.exprs().find(&ExprData::Ref(r.v))?;
    let fact = |s: Symbol| {
        let mut k = Facts::default();
        k.set(g, v_ref, Known::Sym(s));
        k
    };
    let mut out = Vec::with_capacity(domain.len());
    for &start in domain {
        let mut seen: HashSet<(NodeId, Symbol)> = HashSet::from([(r.a, start)]);
        let mut stack = vec![(r.a, start)];
        let mut at_b: Vec<Symbol> = Vec::new();
        while let Some((n, val)) = stack.pop() {
            if n == r.b {
                if !at_b.contains(&val) {
                    at_b.push(val);
                }
                continue;
            }
            let k = fact(val);
            for &e in g.outgoing(n) {
                *steps += 1;
                if *steps > BUDGET {
                    // One candidate may not take more than the run's budget (its domain times
                    // its region can be far larger): the run stops here.
                    return None;
                }
                let d = g.edge(e);
                let next = match d.label {
                    Label::Skip => Some(val),
                    Label::Assign { rhs, .. } => match c.eval(g, rhs, &k)? {
                        Known::Sym(s) => Some(s),
                        Known::Map(..) => return None,
                    },
                    Label::Compare { lhs, rhs, negated } => {
                        let (l, rr) = (c.eval(g, lhs, &k)?, c.eval(g, rhs, &k)?);
                        (c.values.equal(l, rr)? != negated).then_some(val)
                    }
                    _ => return None,
                };
                if let Some(s) = next
                    && seen.insert((d.to, s))
                {
                    stack.push((d.to, s));
                }
            }
        }
        out.push(at_b);
    }
    Some(out)
}

/// The new edges for a region: (special values let through, special values, `Q`).
struct Summary {
    through: Vec<Symbol>,
    special: Vec<Symbol>,
    q: Vec<Symbol>,
}

/// Splits the outcomes into plain values with one common `Q` and at most two special ones.
fn summarise(domain: &[Symbol], outcomes: &[Vec<Symbol>]) -> Option<Summary> {
    let mut through = Vec::new();
    let mut special = Vec::new();
    let mut q: Option<Vec<Symbol>> = None;
    for (&c, r) in domain.iter().zip(outcomes) {
        let mut r = r.clone();
        r.sort_unstable();
        let plain = match &q {
            Some(q) => *q == r,
            None => r.len() > 1 || r.first().is_some_and(|&x| x != c),
        };
        if plain {
            q.get_or_insert(r);
            continue;
        }
        match r[..] {
            [] => special.push(c),
            [x] if x == c => {
                special.push(c);
                through.push(c);
            }
            _ => return None,
        }
    }
    if special.len() > 2 {
        return None;
    }
    Some(Summary {
        through,
        special,
        q: q.unwrap_or_default(),
    })
}

/// A declared type whose members are exactly `q`, else a new one (`Region1`, `Region2`, … —
/// the first names not used anywhere in the game), declared last.
fn type_with(g: &mut Game, q: &[Symbol]) -> Symbol {
    let found = {
        let env = TypeEnv::new(g);
        g.typedefs.iter().find_map(|t| {
            let ms = env.values(t.ty).ok()??;
            let mut ms = ms.as_slice().to_vec();
            ms.sort_unstable();
            ms.dedup();
            (ms == q).then_some(t.name)
        })
    };
    if let Some(t) = found {
        return t;
    }
    let name = (1..)
        .map(|i| format!("Region{i}"))
        .find(|n| g.find_sym(n).is_none())
        .expect("an unused name");
    let name = g.sym(&name);
    let ty = g.type_set(q.iter().copied());
    g.typedefs.push(rg_core::Typedef {
        name,
        ty,
        spans: rg_core::Spans::default(),
    });
    name
}

/// The labels and inner nodes of the summary: (labels of parallel edges `A → B`, chain labels).
fn encode(g: &mut Game, r: &Region, s: &Summary, v_ty: TypeId) -> Option<(Vec<Label>, Vec<Label>)> {
    let v = g.expr_ref(r.v);
    let cast = |g: &mut Game, sym: Symbol| {
        let x = g.expr_ref(sym);
        g.expr_cast(v_ty, x)
    };
    let mut parallel = Vec::new();
    for &z in &s.through {
        let rhs = cast(g, z);
        parallel.push(Label::Compare {
            lhs: v,
            rhs,
            negated: false,
        });
    }
    let mut chain = Vec::new();
    if !s.q.is_empty() {
        for &z in &s.special {
            let rhs = cast(g, z);
            chain.push(Label::Compare {
                lhs: v,
                rhs,
                negated: true,
            });
        }
        let last = if let [q] = s.q[..] {
            Label::Assign {
                lhs: v,
                rhs: cast(g, q),
            }
        } else {
            let t = type_with(g, &s.q);
            Label::AssignAny {
                lhs: v,
                ty: g.type_name(t),
            }
        };
        chain.push(last);
    }
    Some((parallel, chain))
}

impl Pass for CompactVariableRegions {
    meta!(
        "compact_variable_regions",
        "a part of the automaton that only moves one variable through constant maps becomes one assignment",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let c = Constants { values: &values };
        let mut protected = (*cx.check_nodes(g)).clone();
        for n in [g.begin(), g.end()].into_iter().flatten() {
            protected[n] = true;
        }
        for p in &g.pragmas {
            p.kind.for_each_node(|n| protected[n] = true);
        }
        let mut finder = Finder {
            g,
            values: &values,
            protected,
            locals: Vec::new(),
            steps: 0,
        };
        let capacity = g.edges().map(|(e, _)| e.index() + 1).max().unwrap_or(0);
        let mut locals = vec![Local::No; capacity];
        for (e, d) in g.edges() {
            locals[e.index()] = finder.local(&d.label);
        }
        finder.locals = locals;
        let mut plans: Vec<(Region, Summary)> = Vec::new();
        let mut used: HashSet<NodeId> = HashSet::new();
        let mut domains: HashMap<Symbol, Option<Vec<Symbol>>> = HashMap::new();
        let check_starts: HashSet<NodeId> = g
            .edges()
            .filter_map(|(_, d)| match d.label {
                Label::Reach { from, .. } => Some(from),
                _ => None,
            })
            .collect();
        let env = TypeEnv::new(g);
        for a in g.nodes().ids() {
            if finder.steps > BUDGET {
                cx.warnings.push(format!(
                    "compact_variable_regions: stopped after {BUDGET} steps"
                ));
                break;
            }
            // Entries: nodes with an edge in that is not local (inner nodes have only local
            // ones), and the starts of checks (a subautomaton may start with a region).
            if used.contains(&a)
                || g.outgoing(a).is_empty()
                || !(check_starts.contains(&a)
                    || g.incoming(a)
                        .iter()
                        .any(|&e| finder.edge_local(e) == Local::No))
            {
                continue;
            }
            let Some(r) = finder.region(a) else {
                continue;
            };
            if r.edges.len() < 3 || r.nodes.iter().chain([&r.b]).any(|n| used.contains(n)) {
                continue;
            }
            let Some(domain) = domains
                .entry(r.v)
                .or_insert_with(|| match env.resolve(g.variable(r.v)?.ty).ok()? {
                    Resolved::Set(ms) => Some(ms.as_slice().to_vec()),
                    Resolved::Arrow(..) => None,
                })
                .clone()
            else {
                continue;
            };
            let Some(out) = outcomes(g, &c, &r, &domain, &mut finder.steps) else {
                continue;
            };
            let Some(s) = summarise(&domain, &out) else {
                continue;
            };
            let new_edges = s.through.len()
                + if s.q.is_empty() {
                    0
                } else {
                    s.special.len() + 1
                };
            let new_nodes = if s.q.is_empty() { 0 } else { s.special.len() };
            if new_edges >= r.edges.len() || new_nodes >= r.nodes.len() {
                continue;
            }
            used.extend(r.nodes.iter().copied());
            used.insert(r.b);
            plans.push((r, s));
        }
        drop(env);
        let mut fresh = cx.fresh_nodes(g);
        let mut changed = false;
        for (r, s) in plans {
            let Some(v_ty) = g.variable(r.v).map(|v| v.ty) else {
                continue;
            };
            let mark = g.mark();
            let Some((parallel, chain)) = encode(g, &r, &s, v_ty) else {
                continue;
            };
            let typed = {
                let env = TypeEnv::new(g);
                parallel
                    .iter()
                    .chain(&chain)
                    .all(|l| label_well_typed(&env, l))
            };
            if !typed {
                // A type declared for the summary goes with it.
                g.rollback(mark);
                continue;
            }
            for &e in &r.edges {
                g.remove_edge(e);
            }
            for l in parallel {
                g.add_edge(r.a, r.b, l);
            }
            let mut at = r.a;
            let n = chain.len();
            for (i, l) in chain.into_iter().enumerate() {
                let to = if i + 1 == n { r.b } else { fresh.node(g) };
                g.add_edge(at, to, l);
                at = to;
            }
            changed = true;
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> Option<String> {
        let mut g = test_game(text);
        let changed = CompactVariableRegions
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        changed.then(|| {
            rg_core::print(&g)
                .lines()
                .filter(|l| l.contains(": ") && !l.starts_with("type ") && !l.starts_with("const "))
                .filter(|l| !l.starts_with("var "))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    const LINE: &str = "type Coord = {c1, c2, c3};\n\
        type CoordOrNull = {null, c1, c2, c3};\n\
        const up: CoordOrNull -> CoordOrNull = {c1: c2, c2: c3, :null};\n\
        const down: CoordOrNull -> CoordOrNull = {c2: c1, c3: c2, :null};\n\
        var coord: CoordOrNull = c1;\n";

    /// `up*` or `down*` from the start, then a tag of `coord` (over any line of `CoordOrNull`).
    const UP_OR_DOWN: &str = "begin, a: player = x;\n\
        a, u: ;\n\
        u, u1: coord = up[coord];\n\
        u1, u: coord != null;\n\
        u, b: ;\n\
        a, d: ;\n\
        d, d1: coord = down[coord];\n\
        d1, d: coord != null;\n\
        d, b: ;\n\
        b, c: $$ coord;\n\
        c, end: player = keeper;";

    #[test]
    fn any_square_by_stars_of_shifts_is_one_any_assignment() {
        // (up* + down*): every square from every square; `null` passes unchanged.
        let out = run(&format!("{LINE}{UP_OR_DOWN}"));
        // up* ∪ down* from c2 is everything, but from c1 only c1, c2, c3 too: all plain.
        assert_eq!(
            out.as_deref(),
            Some(
                "begin, a: player = x;\nb, c: $$ coord;\nc, end: player = keeper;\n\
                 a, b: coord == CoordOrNull(null);\na, 1: coord != CoordOrNull(null);\n\
                 1, b: coord = Coord(*);"
            )
        );
    }

    /// The budget holds inside one candidate: a fuzzed RBG game spent 73 s in this pass (0.00 s
    /// at -O0) on one region, searching it once per value of its variable. Here `up*` and
    /// `down*` over a line of 1 500 squares compact as over 3 (the test above), but the search
    /// per value walks the line: 1 500 searches of up to 3 000 steps are over the budget, so
    /// the region is left as it is.
    #[test]
    fn a_region_over_a_large_domain_stops_at_the_budget() {
        let n = 1500;
        let values: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let up: Vec<String> = (0..n - 1).map(|i| format!("c{i}: c{}", i + 1)).collect();
        let down: Vec<String> = (0..n - 1).map(|i| format!("c{}: c{i}", i + 1)).collect();
        let text = format!(
            "type CoordOrNull = {{null, {}}};\n\
             const up: CoordOrNull -> CoordOrNull = {{{}, :null}};\n\
             const down: CoordOrNull -> CoordOrNull = {{{}, :null}};\n\
             var coord: CoordOrNull = c0;\n\
             {UP_OR_DOWN}",
            values.join(", "),
            up.join(", "),
            down.join(", ")
        );
        assert_eq!(run(&text), None);
    }

    #[test]
    fn a_check_starting_with_a_region_gets_a_new_type_for_its_values() {
        // In the check: down to the bottom, then up*, then neither `c3` nor off the board:
        // `c1` or `c2`, for which no type is declared; `Region1` is.
        let mut g = test_game(&format!(
            "{LINE}begin, a: player = x;\n\
             a, b: ? s -> t;\n\
             b, end: player = keeper;\n\
             s, s: coord = down[coord];\n\
             s, s1: down[coord] == null;\n\
             s1, s1: coord = up[coord];\n\
             s1, s2: coord != c3;\n\
             s2, s3: coord != null;\n\
             s3, t: $$ coord;"
        ));
        let before = g.clone();
        assert!(
            CompactVariableRegions
                .run(&mut g, &mut PassContext::default())
                .expect("runs")
        );
        let text = rg_core::print(&g);
        assert!(text.contains("type Region1 = { c1, c2 };"), "{text}");
        assert!(!text.contains("s, s1:"), "{text}");
        rg_interp::equiv::check_equivalent(&before, &g, &Default::default())
            .expect("the same game");
    }

    #[test]
    fn a_region_with_a_tag_or_two_variables_stays() {
        let tag = run(&format!(
            "{LINE}begin, a: player = x;\n\
             a, u: ;\n\
             u, u1: coord = up[coord];\n\
             u1, u: $ t;\n\
             u, b: ;\n\
             b, c: $$ coord;\n\
             c, end: player = keeper;"
        ));
        assert_eq!(tag, None);
    }
}
