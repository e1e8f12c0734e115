//! The reference toolchain's `@unique`/`@repeat` inference (the reference's ReachingAssignments
//! analysis and its calculate_repeats_and_uniques pass), for comparing pragma counts only: it is
//! not sound in general (it forgets everything at every tag and at every assignment to `player`,
//! as if each tag sequence arose from one place), so no pass uses it and the interpreter never sees its output.
//!
//! [`reference_pragmas`] follows the spec's description: records per tracked variable (only
//! `coord` in a game with `@translatedFromRbg`) and for *none* (any non-tag step), with the
//! conditions passed since the record was made, whether two of them are disjoint, whether the
//! same source node was reached twice with compatible conditions, and the source nodes. The
//! solve starts from `begin` and does not enter checks; a node it never reaches has the empty
//! map (the reference's bottom), so every node only checks reach is unique.

use crate::util::NodeMap;
use crate::util::{assigns_player, negation_pair};
use rg_core::{
    EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, PragmaKind, Symbol, ValueData,
};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// What the reference would add: the `@unique` nodes and, per other node reached, the
/// variables its `@repeat` would list.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct ReferencePragmas {
    pub unique: Vec<NodeId>,
    pub repeat: Vec<(NodeId, Vec<Symbol>)>,
}

/// A record key: a tracked variable or *none*.
type Key = Option<Symbol>;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Record {
    conditions: BTreeSet<EdgeId>,
    conflicting: bool,
    repeated: bool,
    sources: BTreeSet<NodeId>,
}

type Domain = BTreeMap<Key, Record>;

struct Analysis<'g> {
    g: &'g Game,
    tracked: HashSet<Symbol>,
    /// Per node: the targets its `@disjoint`/`@disjointExhaustive` pragmas list.
    disjoint: NodeMap<Vec<NodeId>>,
}

impl Analysis<'_> {
    fn disjoint(&self, a: EdgeId, b: EdgeId) -> bool {
        let (da, db) = (self.g.edge(a), self.g.edge(b));
        if negation_pair(&da.label, &db.label) {
            return true;
        }
        a != b
            && da.from == db.from
            && self.disjoint[da.from].contains(&da.to)
            && self.disjoint[da.from].contains(&db.to)
    }

    fn add_condition(&self, r: &mut Record, e: EdgeId) {
        if r.conflicting {
            return;
        }
        if r.conditions.iter().any(|&c| self.disjoint(c, e)) {
            r.conflicting = true;
            return;
        }
        r.conditions.insert(e);
    }

    fn transfer(&self, k: &Domain, e: EdgeId) -> Domain {
        let g = self.g;
        let d = g.edge(e);
        let mut k = k.clone();
        // kill
        if assigns_player(g, &d.label) || d.label.is_tag() {
            k.clear();
        } else if let Label::Compare {
            lhs,
            rhs,
            negated: false,
        } = d.label
        {
            for side in [lhs, rhs] {
                if let ExprData::Ref(v) = g.expr(side) {
                    k.remove(&Some(v));
                }
            }
        }
        for r in k.values_mut() {
            if !r.conflicting {
                r.repeated = false;
            }
        }
        // gen
        match d.label {
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => {
                let v = g.expr_root(lhs);
                if self.tracked.contains(&v) {
                    let r = k.entry(Some(v)).or_default();
                    if !r.repeated && !r.sources.insert(d.from) {
                        r.repeated = true;
                    }
                }
            }
            Label::Tag(_) | Label::TagVar(_) => {}
            _ => {
                k.entry(None).or_insert_with(|| Record {
                    sources: BTreeSet::from([d.from]),
                    ..Record::default()
                });
                if d.label != Label::Skip {
                    for r in k.values_mut() {
                        self.add_condition(r, e);
                    }
                }
            }
        }
        k
    }

    fn join(&self, acc: &mut Domain, other: &Domain) -> bool {
        let mut changed = false;
        for (key, o) in other {
            let Some(a) = acc.get_mut(key) else {
                acc.insert(*key, o.clone());
                changed = true;
                continue;
            };
            let old = a.clone();
            let clash = a
                .conditions
                .iter()
                .any(|&x| o.conditions.iter().any(|&y| self.disjoint(x, y)));
            a.conflicting |= o.conflicting || clash;
            if !a.conflicting {
                a.conditions.extend(o.conditions.iter().copied());
            }
            let meet = a.sources.intersection(&o.sources).next().is_some();
            a.repeated |= o.repeated || (!a.conflicting && meet);
            if !a.repeated {
                a.sources.extend(o.sources.iter().copied());
            }
            changed |= *a != old;
        }
        changed
    }
}

/// The pragmas the reference's `calculate_repeats_and_uniques` would add to `g` (existing `@unique`
/// nodes stay unique).
#[doc(hidden)]
pub fn reference_pragmas(g: &Game) -> ReferencePragmas {
    reference_pragmas_within(g, usize::MAX).expect("no step limit")
}

/// [`reference_pragmas`], or `None` when the solve takes more than `max_steps` edge
/// transfers (its records of passed conditions make it slow on long GDL moves).
#[doc(hidden)]
pub fn reference_pragmas_within(g: &Game, max_steps: usize) -> Option<ReferencePragmas> {
    let mut steps = 0usize;
    let wk = *g.well_known();
    let rbg = g
        .pragmas
        .iter()
        .any(|p| matches!(p.kind, PragmaKind::TranslatedFromRbg));
    let tracked: HashSet<Symbol> = g
        .variables
        .iter()
        .map(|v| v.name)
        .filter(|&v| {
            if rbg {
                g.name(v) == "coord"
            } else {
                ![wk.goals, wk.player, wk.visible].contains(&v)
            }
        })
        .collect();
    let mut disjoint = NodeMap::from_elem(Vec::new(), g.node_capacity());
    let mut already = NodeMap::from_elem(false, g.node_capacity());
    for p in &g.pragmas {
        match &p.kind {
            PragmaKind::Disjoint { node, nodes }
            | PragmaKind::DisjointExhaustive { node, nodes } => {
                disjoint[*node].extend(nodes.iter().copied());
            }
            PragmaKind::Unique(ns) => ns.iter().for_each(|n| already[*n] = true),
            _ => {}
        }
    }
    let a = Analysis {
        g,
        tracked,
        disjoint,
    };
    let mut at: NodeMap<Option<Domain>> = NodeMap::from_elem(None, g.node_capacity());
    let main = crate::util::reachable_nodes(g, false);
    if let Some(begin) = g.begin() {
        at[begin] = Some(Domain::new());
        let mut work = vec![begin];
        let mut queued = NodeMap::from_elem(false, g.node_capacity());
        queued[begin] = true;
        while let Some(n) = work.pop() {
            queued[n] = false;
            let here = at[n].clone().expect("queued nodes have a value");
            for &e in g.outgoing(n) {
                steps += 1;
                if steps > max_steps {
                    return None;
                }
                let next = a.transfer(&here, e);
                let to = g.edge(e).to;
                let changed = match &mut at[to] {
                    Some(old) => a.join(old, &next),
                    slot @ None => {
                        *slot = Some(next);
                        true
                    }
                };
                if changed && !std::mem::replace(&mut queued[to], true) {
                    work.push(to);
                }
            }
        }
    }
    let cyclic = on_cycle(g);
    let mut out = ReferencePragmas::default();
    for n in g.nodes().ids() {
        if g.outgoing(n).is_empty() && g.incoming(n).is_empty() {
            continue; // not a node of the automaton
        }
        let empty_map = Domain::new();
        let k = at[n].as_ref().unwrap_or(&empty_map);
        if already[n] || g.outgoing(n).is_empty() {
            out.unique.push(n);
            continue;
        }
        let empty = k.get(&None).is_some_and(|r| r.repeated);
        let vars: Vec<Symbol> = k
            .iter()
            .filter_map(|(key, r)| Some((key.as_ref()?, r)))
            .filter(|(_, r)| empty || r.repeated)
            .map(|(v, _)| *v)
            .collect();
        // Rule 3 (nothing repeats), or rule 4 (a check's node on no cycle).
        if (!empty && vars.is_empty()) || (!main[n] && !cyclic[n]) {
            out.unique.push(n);
        } else {
            out.repeat.push((n, vars));
        }
    }
    Some(out)
}

/// Whether each node lies on a cycle of the whole graph.
fn on_cycle(g: &Game) -> NodeMap<bool> {
    let comp = crate::analysis::search_starts::components(g, |_| true);
    let mut size = std::collections::HashMap::new();
    for n in g.nodes().ids() {
        *size.entry(comp[n.index()]).or_insert(0usize) += 1;
    }
    let mut out = NodeMap::from_elem(false, g.node_capacity());
    for n in g.nodes().ids() {
        out[n] = size[&comp[n.index()]] > 1 || g.outgoing(n).iter().any(|&e| g.edge(e).to == n);
    }
    out
}

/// The symbols `values(e)` of the reference's `calculate_disjoints`: a symbol is itself; a constant
/// its element value or every entry value of a map (`None` if an entry is a map); a variable every
/// member of its type (`None` for an arrow); an access the values of its root name.
fn switch_values(g: &Game, env: &rg_core::typeck::TypeEnv<'_>, e: ExprId) -> Option<Vec<Symbol>> {
    let s = g.expr_root(e);
    if let Some(v) = g.variable(s) {
        return match env.resolve(v.ty).ok()? {
            rg_core::typeck::Resolved::Set(ms) => Some(ms.as_slice().to_vec()),
            rg_core::typeck::Resolved::Arrow(..) => None,
        };
    }
    let Some(c) = g.constant(s) else {
        return Some(vec![s]);
    };
    match g.value(c.value) {
        ValueData::Element(v) => Some(vec![*v]),
        ValueData::Map(entries) => entries
            .iter()
            .map(|m| match g.value(m.value) {
                ValueData::Element(v) => Some(*v),
                ValueData::Map(_) => None,
            })
            .collect(),
    }
}

/// The nodes the reference's `calculate_disjoints` (its defects included)
/// gives a `@disjoint` or `@disjointExhaustive` pragma, with whether it is exhaustive.
#[doc(hidden)]
pub fn reference_disjoints(g: &Game) -> Vec<(NodeId, bool)> {
    let env = rg_core::typeck::TypeEnv::new(g);
    let mut out = Vec::new();
    for n in g.nodes().ids() {
        let edges = g.outgoing(n);
        if edges.len() < 2 {
            continue;
        }
        // Switch detection: `==` edges in reverse order with known right-side values.
        let eqs: Vec<(ExprId, NodeId, Vec<Symbol>)> = edges
            .iter()
            .rev()
            .filter_map(|&e| match g.edge(e).label {
                Label::Compare {
                    lhs,
                    rhs,
                    negated: false,
                } => Some((
                    g.strip_casts(lhs),
                    g.edge(e).to,
                    switch_values(g, &env, rhs)?,
                )),
                _ => None,
            })
            .collect();
        let mut best: Option<(usize, bool)> = None;
        for (i, (lhs, to, values)) in eqs.iter().enumerate() {
            let mut nodes = vec![*to];
            let mut symbols: HashSet<Symbol> = values.iter().copied().collect();
            for (j, (l2, t2, v2)) in eqs.iter().enumerate() {
                if i == j || l2 != lhs {
                    continue;
                }
                let mut new = false;
                for &s in v2 {
                    new |= symbols.insert(s);
                }
                if new {
                    nodes.push(*t2);
                }
            }
            if nodes.len() < 2 {
                continue;
            }
            let size = env
                .infer(*lhs)
                .ok()
                .and_then(|t| env.resolve_ty(t).ok())
                .and_then(|r| match r {
                    rg_core::typeck::Resolved::Set(ms) => Some(ms.len()),
                    rg_core::typeck::Resolved::Arrow(..) => None,
                });
            let cand = (nodes.len(), size == Some(nodes.len()));
            if best.is_none_or(|b| cand > b) {
                best = Some(cand);
            }
        }
        if let Some((_, exhaustive)) = best {
            out.push((n, exhaustive));
            continue;
        }
        // If-else detection.
        if edges.len() == 2 {
            let (a, b) = (g.edge(edges[0]), g.edge(edges[1]));
            if a.to != b.to && negation_pair(&a.label, &b.label) {
                out.push((n, true));
            }
            continue;
        }
        let mut by_target: BTreeMap<NodeId, Vec<Label>> = BTreeMap::new();
        let mut order = Vec::new();
        for &e in edges {
            let d = g.edge(e);
            if !by_target.contains_key(&d.to) {
                order.push(d.to);
            }
            by_target.entry(d.to).or_default().push(d.label);
        }
        let covers =
            |xs: &[Label], ys: &[Label]| xs.iter().all(|x| ys.iter().any(|y| negation_pair(x, y)));
        let found = order.iter().enumerate().any(|(i, a)| {
            order[i + 1..].iter().any(|b| {
                covers(&by_target[a], &by_target[b]) && covers(&by_target[b], &by_target[a])
            })
        });
        if found {
            out.push((n, true));
        }
    }
    out
}

/// The nodes the reference's `calculate_tag_indexes` gives `@tagIndex` and
/// `@tagMaxIndex`: searches start only at the targets of `player` assignments, and index 150
/// forgets only the node reached with it and stops that search.
#[doc(hidden)]
pub fn reference_tag_indexes(g: &Game) -> (Vec<NodeId>, Vec<NodeId>) {
    let mut indexes: BTreeMap<NodeId, BTreeSet<usize>> = BTreeMap::new();
    let mut forgotten: HashSet<NodeId> = HashSet::new();
    let starts: Vec<NodeId> = g
        .edges()
        .filter(|(_, d)| assigns_player(g, &d.label))
        .map(|(_, d)| d.to)
        .collect();
    for s in starts {
        let mut seen: HashSet<(NodeId, usize)> = HashSet::new();
        let mut work = vec![(s, 0usize)];
        while let Some((n, i)) = work.pop() {
            if !seen.insert((n, i)) {
                continue;
            }
            if i >= 150 {
                forgotten.insert(n);
                break;
            }
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if d.label.is_tag() {
                    indexes.entry(n).or_default().insert(i);
                    work.push((d.to, i + 1));
                } else if !assigns_player(g, &d.label) {
                    work.push((d.to, i));
                }
            }
        }
    }
    let (mut exact, mut max) = (Vec::new(), Vec::new());
    for (n, is) in indexes {
        if forgotten.contains(&n) {
            continue;
        }
        let top = *is.iter().next_back().expect("recorded");
        if top >= 100 {
            continue;
        }
        if is.len() == 1 {
            exact.push(n);
        } else {
            max.push(n);
        }
    }
    (exact, max)
}
