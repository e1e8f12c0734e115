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

use crate::{CompileError, MAX_ANALYSIS_CELLS};
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

/// A set of nodes, in increasing order: the nodes of one reachability search (a game can have
/// tens of thousands of check targets, each over a small part of a graph of hundreds of
/// thousands of nodes, so these are never tables over all nodes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NodeSet(Vec<u32>);

impl NodeSet {
    /// The set of these nodes (in any order, without repeats).
    fn from_unsorted(mut nodes: Vec<u32>) -> NodeSet {
        nodes.sort_unstable();
        NodeSet(nodes)
    }

    pub fn contains(&self, q: NodeId) -> bool {
        u32::try_from(q.index()).is_ok_and(|i| self.0.binary_search(&i).is_ok())
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.0.iter().map(|&i| NodeId::new(i as usize))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The position of `q` among the members.
    pub fn position(&self, q: NodeId) -> Option<usize> {
        let i = u32::try_from(q.index()).ok()?;
        self.0.binary_search(&i).ok()
    }
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
    pub reach: BTreeMap<NodeId, NodeSet>,
    /// Node and edge visits of the walks that found `reach` (see [`MAX_ANALYSIS_CELLS`]).
    pub cells: u64,
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
    /// The plan, or [`CompileError::TooLarge`] when the reachability searches would take
    /// more than [`MAX_ANALYSIS_CELLS`] node visits.
    pub fn new(game: &Game, ignore_pragmas: bool) -> Result<SearchPlan, CompileError> {
        Self::build(game, ignore_pragmas, true)
    }

    /// The plan without the reachability searches' node sets (`reach` empty, `cells` 0): what
    /// the table model needs, which has no functions per node.
    pub fn without_reach(game: &Game, ignore_pragmas: bool) -> SearchPlan {
        Self::build(game, ignore_pragmas, false).expect("only the reach analysis can fail")
    }

    fn build(
        game: &Game,
        ignore_pragmas: bool,
        with_reach: bool,
    ) -> Result<SearchPlan, CompileError> {
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
        if !with_reach {
            by_target.clear();
        }
        // Each search is walked only over what it reaches: the marks are generation numbers
        // shared by all targets, so no target costs more than its own nodes and edges.
        let mut reach = BTreeMap::new();
        let mut fwd_mark = vec![0u32; n];
        let mut back_mark = vec![0u32; n];
        let mut cells = 0u64;
        let too_large = |cells: u64| CompileError::TooLarge {
            targets: by_target.len(),
            nodes: n,
            cells,
            limit: MAX_ANALYSIS_CELLS,
        };
        for (g, (&b, froms)) in by_target.iter().enumerate() {
            let g = u32::try_from(g + 1).map_err(|_| too_large(u64::MAX))?;
            let mut fwd: Vec<u32> = Vec::new();
            let mut work: Vec<NodeId> = Vec::new();
            for &a in froms {
                if fwd_mark[a.index()] != g {
                    fwd_mark[a.index()] = g;
                    fwd.push(a.index() as u32);
                    work.push(a);
                }
            }
            while let Some(q) = work.pop() {
                if q == b {
                    continue; // the search returns here
                }
                let es = &out[q.index()];
                cells += 1 + es.len() as u64;
                if cells > MAX_ANALYSIS_CELLS {
                    return Err(too_large(cells));
                }
                for &e in es {
                    let t = game.edge(e).to;
                    if fwd_mark[t.index()] != g {
                        fwd_mark[t.index()] = g;
                        fwd.push(t.index() as u32);
                        work.push(t);
                    }
                }
            }
            // Backwards from `b` within the forward set: every successor of a member other
            // than `b` is a member, so a walk from a member to `b` stays within it.
            let mut nodes: Vec<u32> = Vec::new();
            if fwd_mark[b.index()] == g {
                back_mark[b.index()] = g;
                nodes.push(b.index() as u32);
                let mut work = vec![b];
                while let Some(q) = work.pop() {
                    let ps = &incoming[q.index()];
                    cells += 1 + ps.len() as u64;
                    if cells > MAX_ANALYSIS_CELLS {
                        return Err(too_large(cells));
                    }
                    for &p in ps {
                        if p != b && fwd_mark[p.index()] == g && back_mark[p.index()] != g {
                            back_mark[p.index()] = g;
                            nodes.push(p.index() as u32);
                            work.push(p);
                        }
                    }
                }
            }
            reach.insert(b, NodeSet::from_unsorted(nodes));
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

        Ok(SearchPlan {
            out,
            moves,
            starts,
            reach,
            cells,
            visit,
            disjoint,
            ignore_pragmas,
        })
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
            for q in self.reach[b].iter() {
                if q == *b {
                    continue;
                }
                for &e in &self.out[q.index()] {
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

    /// Targets reachable from target `start` in the call graph (itself included), in the
    /// order found; `seen` holds generation marks, `g` is this search's.
    fn called_closure(
        callees: &[std::collections::BTreeSet<usize>],
        start: usize,
        seen: &mut [u32],
        g: u32,
    ) -> Vec<usize> {
        let mut found = vec![start];
        let mut work = vec![start];
        seen[start] = g;
        while let Some(t) = work.pop() {
            for &u in &callees[t] {
                if seen[u] != g {
                    seen[u] = g;
                    found.push(u);
                    work.push(u);
                }
            }
        }
        found
    }

    /// The check edges whose search can come back to them (directly or through nested
    /// checks): only these need the guard that reports a check needing itself.
    pub fn recursive_checks(&self, game: &Game) -> std::collections::BTreeSet<EdgeId> {
        use std::collections::{BTreeMap, BTreeSet, HashMap};
        let (targets, callees) = self.target_calls(game);
        let index: HashMap<NodeId, usize> =
            targets.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        // The check edges by the target of their search.
        let mut by_start: BTreeMap<usize, Vec<(EdgeId, NodeId)>> = BTreeMap::new();
        for (id, e) in game.edges() {
            let Label::Reach { from, to, .. } = e.label else {
                continue;
            };
            if from == to {
                continue;
            }
            if let Some(&start) = index.get(&to) {
                by_start.entry(start).or_default().push((id, e.from));
            }
        }
        // The targets whose search has each node (only for the nodes of check edges).
        let mut within: HashMap<NodeId, Vec<usize>> = by_start
            .values()
            .flatten()
            .map(|&(_, q)| (q, Vec::new()))
            .collect();
        for (t, b) in targets.iter().enumerate() {
            for q in self.reach[b].iter() {
                if let Some(ts) = within.get_mut(&q) {
                    ts.push(t);
                }
            }
        }
        let mut out = BTreeSet::new();
        let mut seen = vec![0u32; targets.len()];
        for (g, (&start, edges)) in by_start.iter().enumerate() {
            let g = g as u32 + 1;
            let closure = Self::called_closure(&callees, start, &mut seen, g);
            for &(id, q) in edges {
                let ts = &within[&q];
                // Whichever list is shorter: the closure or the targets whose search has `q`.
                let recursive = if ts.len() <= closure.len() {
                    ts.iter().any(|&t| seen[t] == g && q != targets[t])
                } else {
                    closure
                        .iter()
                        .any(|&t| q != targets[t] && self.reach[&targets[t]].contains(q))
                };
                if recursive {
                    out.insert(id);
                }
            }
        }
        out
    }

    /// Targets whose search can start another search for the same target: their visited
    /// marks are kept per nesting level, as the inner search would erase the outer one's.
    /// These are the targets on a cycle of the call graph (one pass over its strongly
    /// connected components, not a search per target).
    pub fn self_nesting_targets(&self, game: &Game) -> std::collections::BTreeSet<NodeId> {
        let (targets, callees) = self.target_calls(game);
        let succ: Vec<Vec<usize>> = callees
            .iter()
            .map(|cs| cs.iter().copied().collect())
            .collect();
        let (_, cyclic) = crate::visits::components(targets.len(), &succ);
        targets
            .iter()
            .zip(cyclic)
            .filter_map(|(&b, c)| c.then_some(b))
            .collect()
    }

    /// Whether node `q` has a reach function for target `b`.
    pub fn in_reach(&self, b: NodeId, q: NodeId) -> bool {
        self.reach.get(&b).is_some_and(|ns| ns.contains(q))
    }
}
