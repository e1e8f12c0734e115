//! Which nodes get which generated search functions, and what each node's pragmas allow.
//!
//! * **Move searches** start at `begin` and at the target of every assignment to `player` (the
//!   only nodes a state can be at between moves) and stop at assignments to `player`. Every node
//!   they can walk to gets a move-search function `M<n>`.
//! * **Reachability searches** `? a -> b` start at `a`, follow every edge (assignments to
//!   `player` included) and return at the first arrival at `b`. They only need the nodes that
//!   lie on some walk from a check's start to `b`; for every target `b` each such node gets a
//!   function `R<b>_<n>`, shared by all checks with that target.
//! * Per node, the pragmas the interpreter trusts: `@unique` (no
//!   visited-state check), `@repeat` (the check compares only the listed variables), and a
//!   covering `@disjoint`/`@disjointExhaustive` (stop after the first edge that succeeds).

use rg_core::{EdgeId, EntityId, ExprData, Game, Label, NodeId, PragmaKind};
use std::collections::BTreeMap;

/// The visited-state check of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// `@unique`: none.
    None,
    /// The whole ordinary part of the state.
    Full,
    /// `@repeat`: only these variables (names of ordinary variables, in pragma order).
    Vars(Vec<rg_core::Symbol>),
}

/// Search facts of one game.
#[derive(Debug)]
pub(crate) struct SearchPlan {
    /// Outgoing edges of each node, in edge-list order.
    pub out: Vec<Vec<EdgeId>>,
    /// Nodes that get a move-search function.
    pub moves: Vec<bool>,
    /// Nodes a state can be at (`begin` and the targets of edges that end a move), where move
    /// searches start.
    pub starts: Vec<bool>,
    /// Per check target `b`: the nodes that get a function `R<b>_<n>`.
    pub reach: BTreeMap<NodeId, Vec<bool>>,
    pub visit: Vec<Visit>,
    /// A covering `@disjoint` (and whether one of them is exhaustive).
    pub disjoint: Vec<Option<bool>>,
    /// Whether the trusted pragmas are ignored.
    pub ignore_pragmas: bool,
}

/// Whether `label` assigns the variable `player` itself (the end of a move).
pub(crate) fn assigns_player(game: &Game, label: &Label) -> bool {
    let lhs = match label {
        Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => *lhs,
        _ => return false,
    };
    matches!(game.expr(game.strip_casts(lhs)), ExprData::Ref(s) if s == game.well_known().player)
}

impl SearchPlan {
    pub fn new(game: &Game, ignore_pragmas: bool) -> SearchPlan {
        let n = game.node_capacity();
        let mut out: Vec<Vec<EdgeId>> = vec![Vec::new(); n];
        for (i, o) in out.iter_mut().enumerate() {
            let mut es = game.outgoing(NodeId::new(i)).to_vec();
            es.sort_unstable();
            *o = es;
        }

        // Move searches.
        let mut starts = vec![false; n];
        if let Some(b) = game.begin() {
            starts[b.index()] = true;
        }
        for (_, e) in game.edges() {
            if assigns_player(game, &e.label) {
                starts[e.to.index()] = true;
            }
        }
        let mut moves = vec![false; n];
        let mut work: Vec<NodeId> = (0..n).filter(|&i| starts[i]).map(NodeId::new).collect();
        for w in &work {
            moves[w.index()] = true;
        }
        while let Some(q) = work.pop() {
            for &e in &out[q.index()] {
                let d = game.edge(e);
                if assigns_player(game, &d.label) {
                    continue;
                }
                if !moves[d.to.index()] {
                    moves[d.to.index()] = true;
                    work.push(d.to);
                }
            }
        }

        // Reachability searches, per target.
        let mut incoming: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut by_target: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
        for (_, e) in game.edges() {
            incoming[e.to.index()].push(e.from);
            if let Label::Reach { from, to, .. } = e.label
                && from != to
            {
                by_target.entry(to).or_default().push(from);
            }
        }
        let mut reach = BTreeMap::new();
        for (&b, froms) in &by_target {
            let mut fwd = vec![false; n];
            let mut work: Vec<NodeId> = Vec::new();
            for &a in froms {
                if !fwd[a.index()] {
                    fwd[a.index()] = true;
                    work.push(a);
                }
            }
            while let Some(q) = work.pop() {
                if q == b {
                    continue; // the search returns here
                }
                for &e in &out[q.index()] {
                    let t = game.edge(e).to;
                    if !fwd[t.index()] {
                        fwd[t.index()] = true;
                        work.push(t);
                    }
                }
            }
            let mut back = vec![false; n];
            back[b.index()] = true;
            let mut work = vec![b];
            while let Some(q) = work.pop() {
                for &p in &incoming[q.index()] {
                    if p != b && !back[p.index()] {
                        back[p.index()] = true;
                        work.push(p);
                    }
                }
            }
            let nodes: Vec<bool> = (0..n).map(|i| fwd[i] && back[i]).collect();
            reach.insert(b, nodes);
        }

        // Pragmas, exactly as the interpreter reads them.
        let mut visit = vec![Visit::Full; n];
        let mut disjoint = vec![None; n];
        if !ignore_pragmas {
            let wk = game.well_known();
            let special = |s| s == wk.goals || s == wk.player || s == wk.visible;
            let mut unique = vec![false; n];
            for p in &game.pragmas {
                match &p.kind {
                    PragmaKind::Unique(ns) => {
                        for q in ns {
                            unique[q.index()] = true;
                        }
                    }
                    PragmaKind::Repeat {
                        nodes: ns,
                        variables,
                    } => {
                        let vars: Vec<_> = variables
                            .iter()
                            .copied()
                            .filter(|&v| !special(v) && game.variable(v).is_some())
                            .collect();
                        for q in ns {
                            visit[q.index()] = Visit::Vars(vars.clone());
                        }
                    }
                    PragmaKind::Disjoint { node, nodes: ts }
                    | PragmaKind::DisjointExhaustive { node, nodes: ts }
                        if out[node.index()].len() == ts.len() =>
                    {
                        let exhaustive = matches!(p.kind, PragmaKind::DisjointExhaustive { .. });
                        let d = &mut disjoint[node.index()];
                        *d = Some(d.unwrap_or(false) || exhaustive);
                    }
                    _ => {}
                }
            }
            for (i, u) in unique.iter().enumerate() {
                if *u {
                    visit[i] = Visit::None;
                }
            }
        }

        SearchPlan {
            out,
            moves,
            starts,
            reach,
            visit,
            disjoint,
            ignore_pragmas,
        }
    }

    /// For every check target, the targets of the checks its search can evaluate (indices into
    /// the targets in order).
    fn target_calls(&self, game: &Game) -> (Vec<NodeId>, Vec<std::collections::BTreeSet<usize>>) {
        use std::collections::{BTreeSet, HashMap};
        let targets: Vec<NodeId> = self.reach.keys().copied().collect();
        let index: HashMap<NodeId, usize> =
            targets.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut callees: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); targets.len()];
        for (i, b) in targets.iter().enumerate() {
            for (q, &on) in self.reach[b].iter().enumerate() {
                if !on || q == b.index() {
                    continue;
                }
                for &e in &self.out[q] {
                    if let Label::Reach { from, to, .. } = game.edge(e).label
                        && from != to
                        && let Some(&j) = index.get(&to)
                    {
                        callees[i].insert(j);
                    }
                }
            }
        }
        (targets, callees)
    }

    /// Targets reachable from target `start` in the call graph (itself included).
    fn called_closure(callees: &[std::collections::BTreeSet<usize>], start: usize) -> Vec<bool> {
        let mut seen = vec![false; callees.len()];
        let mut work = vec![start];
        seen[start] = true;
        while let Some(t) = work.pop() {
            for &u in &callees[t] {
                if !seen[u] {
                    seen[u] = true;
                    work.push(u);
                }
            }
        }
        seen
    }

    /// The check edges whose search can come back to them (directly or through nested
    /// checks): only these need the guard that reports a check needing itself.
    pub fn recursive_checks(&self, game: &Game) -> std::collections::BTreeSet<EdgeId> {
        let (targets, callees) = self.target_calls(game);
        let index: std::collections::HashMap<NodeId, usize> =
            targets.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut closures: std::collections::HashMap<usize, Vec<bool>> = Default::default();
        let mut out = std::collections::BTreeSet::new();
        for (id, e) in game.edges() {
            let Label::Reach { from, to, .. } = e.label else {
                continue;
            };
            if from == to {
                continue;
            }
            let Some(&start) = index.get(&to) else {
                continue;
            };
            let reach = closures
                .entry(start)
                .or_insert_with(|| Self::called_closure(&callees, start));
            let recursive = (0..targets.len()).any(|t| {
                reach[t] && self.reach[&targets[t]][e.from.index()] && e.from != targets[t]
            });
            if recursive {
                out.insert(id);
            }
        }
        out
    }

    /// Targets whose search can start another search for the same target: their visited
    /// marks are kept per nesting level, as the inner search would erase the outer one's.
    pub fn self_nesting_targets(&self, game: &Game) -> std::collections::BTreeSet<NodeId> {
        let (targets, callees) = self.target_calls(game);
        let mut out = std::collections::BTreeSet::new();
        for (i, &b) in targets.iter().enumerate() {
            let mut seen = vec![false; targets.len()];
            let mut work: Vec<usize> = callees[i].iter().copied().collect();
            while let Some(t) = work.pop() {
                if t == i {
                    out.insert(b);
                    break;
                }
                if !seen[t] {
                    seen[t] = true;
                    work.extend(callees[t].iter().copied());
                }
            }
        }
        out
    }

    /// Whether node `q` has a reach function for target `b`.
    pub fn in_reach(&self, b: NodeId, q: NodeId) -> bool {
        self.reach.get(&b).is_some_and(|ns| ns[q.index()])
    }
}
