//! The interpreter's searches (successor searches) as graphs: for each kind of search, the edges
//! it can walk and the nodes where it can take a state from its pending stack, and what every
//! walk of such a search from its start can do before it arrives at a node. The pragma passes
//! promise only what holds for every search of both kinds (`@unique`, `@repeat`).
//!
//! * A *move search* starts at `begin` or at the target of an assignment to `player` and never
//!   walks an assignment to `player` (the state after it is a finished move).
//! * A *reach search* for `? a -> b` starts at `a` and walks every edge, assignments to
//!   `player` included, but it ends when it takes its first state at `b` from the stack: the
//!   edges leaving `b` are never walked by it and no second state at `b` is ever taken. (Both
//!   the reference, which expands that state and then stops, and `rgt`, which stops before
//!   expanding it, push nothing that is ever taken.) `? a -> a` holds at once.
//!
//! The reach graph is the union of the graphs of every pair `(a, b)` of the game's checks,
//! each computed by its own walk from `a`; when those walks together exceed a budget linear in
//! the game's size, the remaining starts walk every edge (a larger graph: sound, less precise).
//! A check edge is an ordinary edge of the search that evaluates it; its sub-search is a
//! search of its own.
//!
//! Every analysis here over-approximates the walks of one kind: a walk of a real search is a
//! walk of the graph from one of its starts, so whatever holds for all walks of the graph holds
//! for the search.

use super::search_starts::{Starts, VarSet, components};
use crate::util::NodeMap;
use crate::util::{
    FxHashMap, assigned, assigns_player, literal_symbol, negation_pair, same_reference, set_members,
};
use rg_core::{EdgeId, EntityId, ExprId, Game, Label, NodeId, TypeId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::rc::Rc;

/// The graph the searches of one kind walk.
#[derive(Debug)]
pub(crate) struct SearchGraph {
    /// Per edge index: a search of this kind may walk it.
    pub(crate) walked: Vec<bool>,
    /// Per node: a search of this kind may take a state there from its stack.
    pub(crate) visited: NodeMap<bool>,
    /// The nodes where searches of this kind start.
    pub(crate) starts: Vec<NodeId>,
    /// Per node: a search of this kind is there only as its target (it ends at the first
    /// state it takes there).
    pub(crate) target_only: NodeMap<bool>,
}

/// Edge visits the reach walks may make, per node and edge of the game, before the remaining
/// starts fall back to walking every edge.
const REACH_BUDGET_FACTOR: usize = 8;

impl SearchGraph {
    /// The graph of the move searches.
    pub(crate) fn moves(g: &Game) -> Self {
        let starts = Starts::of(g).moves;
        let mut walked = vec![false; g.edge_entries().len()];
        let mut visited = NodeMap::from_elem(false, g.node_capacity());
        let mut stack = Vec::new();
        for &s in &starts {
            if !std::mem::replace(&mut visited[s], true) {
                stack.push(s);
            }
        }
        while let Some(n) = stack.pop() {
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if assigns_player(g, &d.label) {
                    continue;
                }
                walked[e.index()] = true;
                if !std::mem::replace(&mut visited[d.to], true) {
                    stack.push(d.to);
                }
            }
        }
        let target_only = NodeMap::from_elem(false, g.node_capacity());
        SearchGraph {
            walked,
            visited,
            starts,
            target_only,
        }
    }

    /// The graph of the reach searches.
    pub(crate) fn reach(g: &Game) -> Self {
        let mut pairs: Vec<(NodeId, NodeId)> = g
            .edges()
            .filter_map(|(_, d)| match d.label {
                Label::Reach { from, to, .. } => Some((from, to)),
                _ => None,
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut walked = vec![false; g.edge_entries().len()];
        let mut visited = NodeMap::from_elem(false, g.node_capacity());
        let mut expanded = NodeMap::from_elem(false, g.node_capacity());
        let mut stamp = NodeMap::from_elem(usize::MAX, g.node_capacity());
        let budget = REACH_BUDGET_FACTOR * (g.node_capacity() + g.edge_entries().len());
        let mut work = 0usize;
        let mut stack = Vec::new();
        let mut rest: Vec<NodeId> = Vec::new();
        for (i, &(a, b)) in pairs.iter().enumerate() {
            if work > budget {
                rest.push(a);
                continue;
            }
            stamp[a] = i;
            stack.push(a);
            while let Some(n) = stack.pop() {
                visited[n] = true;
                if n == b {
                    continue;
                }
                expanded[n] = true;
                for &e in g.outgoing(n) {
                    work += 1;
                    walked[e.index()] = true;
                    let to = g.edge(e).to;
                    if stamp[to] != i {
                        stamp[to] = i;
                        stack.push(to);
                    }
                }
            }
        }
        // Over the budget: every edge from the remaining starts, in one walk.
        let mut seen = NodeMap::from_elem(false, g.node_capacity());
        for &a in &rest {
            if !std::mem::replace(&mut seen[a], true) {
                stack.push(a);
            }
        }
        while let Some(n) = stack.pop() {
            visited[n] = true;
            expanded[n] = true;
            for &e in g.outgoing(n) {
                walked[e.index()] = true;
                let to = g.edge(e).to;
                if !std::mem::replace(&mut seen[to], true) {
                    stack.push(to);
                }
            }
        }
        let mut starts: Vec<NodeId> = pairs.iter().map(|p| p.0).collect();
        starts.dedup();
        let target_only = visited
            .values()
            .zip(expanded.values())
            .map(|(&v, &x)| v && !x)
            .collect();
        SearchGraph {
            walked,
            visited,
            starts,
            target_only,
        }
    }

    /// The edges leaving `n` that a search of this kind may walk.
    pub(crate) fn out<'g>(&'g self, g: &'g Game, n: NodeId) -> impl Iterator<Item = EdgeId> + 'g {
        g.outgoing(n)
            .iter()
            .copied()
            .filter(|e| self.walked[e.index()])
    }

    /// The edges entering `n` that a search of this kind may walk.
    pub(crate) fn entering<'g>(
        &'g self,
        g: &'g Game,
        n: NodeId,
    ) -> impl Iterator<Item = EdgeId> + 'g {
        g.incoming(n)
            .iter()
            .copied()
            .filter(|e| self.walked[e.index()])
    }
}

/// The strongly connected components of a search graph, in a topological order of the graph
/// of components, and which nodes lie on a cycle.
#[derive(Debug)]
pub(crate) struct Order {
    /// Visited nodes, every edge between two components leading forward.
    pub(crate) topological: Vec<NodeId>,
    /// Per node: its position in `topological` (`u32::MAX` when not visited).
    pub(crate) rank: NodeMap<u32>,
    /// Per node: a walk of the graph leads from the node back to itself.
    pub(crate) cyclic: NodeMap<bool>,
}

impl Order {
    pub(crate) fn of(g: &Game, sg: &SearchGraph) -> Self {
        let comp = components(g, |e| sg.walked[e.index()]);
        // Components are numbered below the node capacity.
        let mut size = vec![0usize; g.node_capacity()];
        for n in g.nodes().ids() {
            if sg.visited[n] {
                size[comp[n.index()]] += 1;
            }
        }
        let mut cyclic = NodeMap::from_elem(false, g.node_capacity());
        // Tarjan numbers a component after every component it reaches: the visited nodes by
        // component, descending, and by id within one (a counting sort over the component
        // numbers, each below the node capacity; the nodes are met by id).
        let mut first = vec![0usize; g.node_capacity() + 1];
        for n in g.nodes().ids() {
            if !sg.visited[n] {
                continue;
            }
            cyclic[n] = size[comp[n.index()]] > 1 || sg.out(g, n).any(|e| g.edge(e).to == n);
            first[g.node_capacity() - 1 - comp[n.index()]] += 1;
        }
        let mut at = 0;
        for slot in &mut first {
            let count = *slot;
            *slot = at;
            at += count;
        }
        let mut topological = vec![NodeId::default(); at];
        for n in g.nodes().ids() {
            if sg.visited[n] {
                let slot = &mut first[g.node_capacity() - 1 - comp[n.index()]];
                topological[*slot] = n;
                *slot += 1;
            }
        }
        let mut rank = NodeMap::from_elem(u32::MAX, g.node_capacity());
        for (i, n) in topological.iter().enumerate() {
            rank[*n] = i as u32;
        }
        Order {
            topological,
            rank,
            cyclic,
        }
    }
}

/// A forward "may" analysis over the walks of a search graph from its starts: `init` at every
/// start, `flow` along each walked edge, `join` (returns whether the value grew) where walks
/// meet. Nodes are taken in topological order of the components, so an acyclic graph settles
/// in one visit per node; `None` for nodes no walk reaches. The domain must have finite height.
pub(crate) fn solve<D: Clone>(
    g: &Game,
    sg: &SearchGraph,
    order: &Order,
    init: D,
    flow: impl Fn(&D, EdgeId) -> Option<D>,
    join: impl Fn(&mut D, &D) -> bool,
) -> NodeMap<Option<D>> {
    let mut at: NodeMap<Option<D>> = NodeMap::from_elem(None, g.node_capacity());
    let mut queued = NodeMap::from_elem(false, g.node_capacity());
    let mut work = BinaryHeap::new();
    for &s in &sg.starts {
        match &mut at[s] {
            Some(v) => {
                join(v, &init);
            }
            slot @ None => *slot = Some(init.clone()),
        }
        if !std::mem::replace(&mut queued[s], true) {
            work.push(Reverse(order.rank[s]));
        }
    }
    while let Some(Reverse(r)) = work.pop() {
        let u = order.topological[r as usize];
        queued[u] = false;
        // Taken out while it flows (copied only when an edge leads back to `u`).
        let into_itself = sg.out(g, u).any(|e| g.edge(e).to == u);
        let here = if into_itself {
            at[u].clone()
        } else {
            at[u].take()
        }
        .expect("queued nodes have a value");
        for e in sg.out(g, u) {
            let Some(next) = flow(&here, e) else {
                continue;
            };
            let to = g.edge(e).to;
            let grew = match &mut at[to] {
                Some(old) => join(old, &next),
                slot @ None => {
                    *slot = Some(next);
                    true
                }
            };
            if grew && !std::mem::replace(&mut queued[to], true) {
                work.push(Reverse(order.rank[to]));
            }
        }
        if !into_itself {
            at[u] = Some(here);
        }
    }
    at
}

/// Per node: the variables (positions in `Game::variables`) that some walk from a start may
/// have assigned on arriving there. Two arrivals in one search that agree on them (and on the
/// tags) are the same state: every other variable still has its value from the search's start.
pub(crate) fn assigned_since_start(
    g: &Game,
    sg: &SearchGraph,
    order: &Order,
) -> NodeMap<Option<Rc<VarSet>>> {
    let position = crate::util::variable_positions(g);
    // Most edges assign nothing new, so a node shares its set with the node before it: one set
    // per change instead of a copy of a bit set over every variable per edge and node (1 KB
    // each on a game with 8 000 variables and a million nodes). A set plus a variable is made
    // once and shared too: many searches start from the same set and assign the same first
    // variables (one copy per assignment edge was most of the pass on chess.kif, in page
    // faults). The memo keeps its key sets alive, so a key's address is never reused, and
    // the join copies a shared set before growing it.
    type Added = FxHashMap<(*const VarSet, usize), (Rc<VarSet>, Rc<VarSet>)>;
    let added: std::cell::RefCell<Added> = std::cell::RefCell::default();
    solve(
        g,
        sg,
        order,
        Rc::new(VarSet::empty(g.variables.len())),
        |here, e| match assigned(g, &g.edge(e).label).and_then(|v| position.get(&v)) {
            Some(&i) if !here.contains(i) => {
                let mut added = added.borrow_mut();
                let (_, next) = added.entry((Rc::as_ptr(here), i)).or_insert_with(|| {
                    let mut next = VarSet::clone(here);
                    next.add(i);
                    (Rc::clone(here), Rc::new(next))
                });
                Some(Rc::clone(next))
            }
            _ => Some(Rc::clone(here)),
        },
        |acc, other| {
            !Rc::ptr_eq(acc, other) && !other.is_subset(acc) && Rc::make_mut(acc).union(other)
        },
    )
}

/// The numbers of tags a walk from a start may have added on arriving at a node: the counts
/// below 64 exactly, and whether a count of 64 or more is possible (a cycle through a tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TagCounts {
    below: u64,
    more: bool,
}

impl TagCounts {
    const ZERO: TagCounts = TagCounts {
        below: 1,
        more: false,
    };

    /// After one more tag.
    pub(crate) fn shifted(self) -> TagCounts {
        TagCounts {
            below: self.below << 1,
            more: self.more || self.below >> 63 != 0,
        }
    }

    /// After walking `e`.
    pub(crate) fn after(self, g: &Game, e: EdgeId) -> TagCounts {
        if g.edge(e).label.is_tag() {
            self.shifted()
        } else {
            self
        }
    }

    /// Whether no count is in both.
    pub(crate) fn apart(self, other: TagCounts) -> bool {
        self.below & other.below == 0 && !(self.more && other.more)
    }

    /// The counts below 64, ascending.
    pub(crate) fn counts(self) -> impl Iterator<Item = usize> {
        let bits = self.below;
        (0..64).filter(move |i| bits & (1u64 << i) != 0)
    }

    /// The only count, if there is one.
    pub(crate) fn single(self) -> Option<usize> {
        (!self.more && self.below.count_ones() == 1).then(|| self.below.trailing_zeros() as usize)
    }

    /// The smallest count (64 when all are 64 or more).
    pub(crate) fn min(self) -> usize {
        self.below.trailing_zeros() as usize
    }

    /// Whether a walk may have added no tag.
    pub(crate) fn may_be_zero(self) -> bool {
        self.below & 1 != 0
    }

    fn join(&mut self, other: &TagCounts) -> bool {
        let old = *self;
        self.below |= other.below;
        self.more |= other.more;
        *self != old
    }
}

/// The [`TagCounts`] of every node.
pub(crate) fn tag_counts(g: &Game, sg: &SearchGraph, order: &Order) -> NodeMap<Option<TagCounts>> {
    solve(
        g,
        sg,
        order,
        TagCounts::ZERO,
        |here, e| Some(here.after(g, e)),
        TagCounts::join,
    )
}

/// Whether no state passes both of two conditions: a negation pair, or two comparisons of one
/// reference with symbols that tell them apart (`x == a` / `x == b`, `x == a` / `x != a`).
pub(crate) fn exclusive(g: &Game, a: &Label, b: &Label) -> bool {
    if negation_pair(a, b) {
        return true;
    }
    let side = |lhs: ExprId, rhs: ExprId| match (literal_symbol(g, rhs), literal_symbol(g, lhs)) {
        (Some(s), _) => Some((lhs, s)),
        (None, Some(s)) => Some((rhs, s)),
        (None, None) => None,
    };
    match (*a, *b) {
        (
            Label::Compare {
                lhs: l1,
                rhs: r1,
                negated: n1,
            },
            Label::Compare {
                lhs: l2,
                rhs: r2,
                negated: n2,
            },
        ) => {
            let (Some((x1, s1)), Some((x2, s2))) = (side(l1, r1), side(l2, r2)) else {
                return false;
            };
            same_reference(g, x1, x2)
                && match (n1, n2) {
                    (false, false) => s1 != s2,
                    (true, true) => false,
                    _ => s1 == s2,
                }
        }
        _ => false,
    }
}

/// The most outgoing edges of a node compared pairwise for [`exclusive`].
pub(crate) const MAX_PAIRED: usize = 32;

/// Per edge: it is exclusive with another walked edge leaving the same node (so a walk that
/// took it did not take the other from the same state).
pub(crate) fn branches(g: &Game, sg: &SearchGraph) -> Vec<bool> {
    let mut out = vec![false; g.edge_entries().len()];
    for n in g.nodes().ids() {
        let es: Vec<EdgeId> = sg.out(g, n).collect();
        if es.len() < 2 || es.len() > MAX_PAIRED {
            continue;
        }
        for (i, &a) in es.iter().enumerate() {
            for &b in &es[i + 1..] {
                if exclusive(g, &g.edge(a).label, &g.edge(b).label) {
                    out[a.index()] = true;
                    out[b.index()] = true;
                }
            }
        }
    }
    out
}

/// A walk from a search start, with the exclusive branches it took (edges, see [`branches`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Walk {
    pub(crate) start: NodeId,
    pub(crate) branches: Vec<EdgeId>,
}

impl Walk {
    /// Whether no search takes both walks: they start at one node (so one search would take
    /// both from one start state), and at some node both left by exclusive edges (one walk
    /// reaches that node in a search, so both left it in one state, which passes at most one).
    pub(crate) fn excludes(&self, g: &Game, other: &Walk) -> bool {
        if self.start != other.start {
            return false;
        }
        self.branches.iter().any(|&a| {
            other.branches.iter().any(|&b| {
                a != b && g.edge(a).from == g.edge(b).from && {
                    let (x, y) = (g.edge(a).label, g.edge(b).label);
                    exclusive(g, &x, &y)
                }
            })
        })
    }
}

/// How many times one search may arrive at a node (push a state there).
#[derive(Clone, Debug)]
pub(crate) enum Arrivals {
    /// At most once: along one of these walks, any two of which are exclusive when they start
    /// at one node (walks from different starts belong to different searches).
    /// Shared with the node before when that node's walks arrive here unchanged.
    Once(Rc<[Walk]>),
    Many,
}

/// Most walks kept per node, and most branches kept per walk (forgetting a branch only makes
/// walks look compatible, so it is sound).
const MAX_WALKS: usize = 16;
const MAX_BRANCHES: usize = 16;

/// The number of successors an edge gives one state: the members of an any-assignment's type,
/// else one.
pub(crate) fn fan_out(g: &Game, e: EdgeId, members: &mut HashMap<TypeId, usize>) -> usize {
    match g.edge(e).label {
        Label::AssignAny { ty, .. } => *members
            .entry(ty)
            .or_insert_with(|| set_members(g, ty).map_or(2, |m| m.len())),
        _ => 1,
    }
}

/// The [`Arrivals`] at every node (`None` where no search arrives). A node on a cycle, or
/// after an edge that gives one state several successors, or after a node with many arrivals,
/// has many; where walks meet, two walks from one start that do not exclude each other make
/// many.
pub(crate) fn arrivals(
    g: &Game,
    sg: &SearchGraph,
    order: &Order,
    branches: &[bool],
) -> NodeMap<Option<Arrivals>> {
    let mut at: NodeMap<Option<Arrivals>> = NodeMap::from_elem(None, g.node_capacity());
    let mut is_start = NodeMap::from_elem(false, g.node_capacity());
    for &s in &sg.starts {
        is_start[s] = true;
    }
    let mut members = HashMap::new();
    for &m in &order.topological {
        at[m] = Some(if order.cyclic[m] {
            Arrivals::Many
        } else {
            arrivals_at(g, sg, &at, &is_start, branches, &mut members, m)
        });
    }
    at
}

fn arrivals_at(
    g: &Game,
    sg: &SearchGraph,
    at: &NodeMap<Option<Arrivals>>,
    is_start: &NodeMap<bool>,
    branches: &[bool],
    members: &mut HashMap<TypeId, usize>,
    m: NodeId,
) -> Arrivals {
    // One entering edge that neither fans out nor is a branch: the walks of the node before,
    // unchanged (they passed the limits and the pairwise test there). Shared instead of copied
    // into every node of a chain.
    if !is_start[m] {
        let mut entering = sg.entering(g, m);
        if let (Some(e), None) = (entering.next(), entering.next())
            && !branches[e.index()]
            && let Some(Arrivals::Once(ws)) = &at[g.edge(e).from]
            && fan_out(g, e, members) == 1
        {
            return Arrivals::Once(Rc::clone(ws));
        }
    }
    let mut walks: Vec<Walk> = Vec::new();
    if is_start[m] {
        walks.push(Walk {
            start: m,
            branches: Vec::new(),
        });
    }
    for e in sg.entering(g, m) {
        let ws = match &at[g.edge(e).from] {
            None => continue,
            Some(Arrivals::Many) => return Arrivals::Many,
            Some(Arrivals::Once(ws)) => &ws[..],
        };
        match fan_out(g, e, members) {
            0 => continue,
            1 => {}
            _ if ws.is_empty() => continue,
            _ => return Arrivals::Many,
        }
        for w in ws {
            let mut w = w.clone();
            if branches[e.index()] && w.branches.len() < MAX_BRANCHES {
                w.branches.push(e);
            }
            walks.push(w);
        }
        if walks.len() > MAX_WALKS {
            return Arrivals::Many;
        }
    }
    for (i, a) in walks.iter().enumerate() {
        for b in &walks[i + 1..] {
            if a.start == b.start && !a.excludes(g, b) {
                return Arrivals::Many;
            }
        }
    }
    Arrivals::Once(walks.into())
}
