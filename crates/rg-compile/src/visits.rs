//! Which visited-state check each node function needs, proven per search kind.
//!
//! The interpreter records every state it expands as (node, tags of the search, ordinary
//! variables) and skips a state seen before. Hashing that key at every node costs more than
//! everything else a compiled search does, so the generator proves, node by node, how little of
//! it suffices. The reasoning works on **scopes**: a scope event is the start of a search or the
//! arrival through a tag edge; every state reached from it without crossing another tag edge
//! has the same tags, and its *region* is the set of nodes reachable that way.
//!
//! 1. **D sets.** Within a region of start `t`, `D(n)` holds every ordinary variable that some
//!    tag-free walk from `t` to `n` may assign (a forward union data flow). Two states of one
//!    scope event at `n` can differ only in `D(n)`: every other variable still has the value it
//!    had when the scope began.
//! 2. **Unique scopes.** A scope is *determined* when no other scope event of the same search
//!    has the same tags. The start of a search is one event. An event entered through tag edge
//!    `e` from node `m` (region `R`) is determined when its parent event is, and (a) for `$$ v`,
//!    `D(m) ⊆ {v}`: the states expanded at `m` are pairwise different and differ only in `v`,
//!    so they emit different symbols; for `$ s`, `D(m) = ∅`: at most one state is expanded at
//!    `m`; and (b) no other tag edge leaving `R` can emit a symbol `e` can emit. By induction
//!    on the number of tags, all events of a determined scope have different tags. Events of a
//!    scope that is not determined, and every scope below it, are treated conservatively.
//! 3. **Checks.** In a determined scope, equal tags means the same scope event, so the key
//!    (node, tags, ordinary variables) is equivalent to (scope event, node, `D(n)`): each scope
//!    event gets a fresh 64-bit number (`epoch`), and the check is a *stamp*: one word per
//!    (node, value of `D(n)`) holding the epoch that last expanded it, when `D(n)` is a few
//!    small scalars; otherwise the scope-keyed hash set.
//! 4. **No check** at all at `n` when, in every region containing `n`, `n` lies on no tag-free
//!    cycle and is entered by exactly one *route*: the scope's own arrival (`n = t`), or edges
//!    from one node `m` that map different states to different states. Skips, comparisons and
//!    checks do; so does an assignment or any-assignment to a variable outside `D(m)` (the
//!    states at `m` differ in some other variable, which the assignment keeps; an
//!    any-assignment's members differ in the assigned variable), and so does a group of edges
//!    from `m` at most one of which can hold in a state (comparisons of one expression with
//!    different symbols, an `==`/`!=` pair, or a covering `@disjoint`). The states expanded at
//!    `m` are pairwise different (by `m`'s own check or proof), so the arrivals at `n` are too.
//! 5. Otherwise, and in scopes that are not determined, the interpreter's key is used (tags of
//!    the search and the ordinary variables, or the `@repeat` list). A trusted `@unique` pragma
//!    means no check, as in the interpreter.
//!
//! Move searches start at `begin` and after every assignment to `player`, and stop at such
//! assignments. Reachability searches towards `b` start at each check's first node, follow
//! every edge and return at `b`. The analysis runs once per search kind, within a work budget;
//! over budget, every node of that kind keeps the interpreter's check.

use crate::layout::{Layout, Shape};
use crate::search::{NodeSet, SearchPlan, Visit, assigns_player};
use rg_core::{EdgeId, EntityId, ExprData, Game, Label, NodeId, Symbol};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Region node visits allowed per search kind before giving up (keeping the interpreter's key).
const WORK_BUDGET: u64 = 4_000_000;
/// Region node visits allowed for all search kinds together: a game with tens of thousands of
/// check targets stops analysing (every further kind keeps the interpreter's key) rather than
/// spend up to [`WORK_BUDGET`] on each.
const TOTAL_WORK_BUDGET: u64 = 200_000_000;
/// How many times a reachability search may expand one state at a node it leaves unchecked
/// (see `relax_reach_checks`); the same bound as the runtime's count of unchecked visits in
/// loops (`LOOP_LIMIT`).
const REACH_FACTOR: u64 = 16;
/// The largest stamp table of one node (product of the key variables' class sizes).
const MAX_STAMP_SLOTS: u64 = 1 << 12;
/// All stamp tables together.
const MAX_STAMP_TOTAL: u64 = 1 << 22;

/// The visited-state check of one node function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// None is needed.
    None,
    /// Scope-keyed, one stamp per value of `vars` (scalars) at `base + Σ value·radix`.
    Stamp {
        vars: Vec<usize>,
        radix: Vec<u64>,
        base: u64,
    },
    /// Scope-keyed, a hash of the bytes of `vars`.
    Scoped { vars: Vec<usize> },
    /// A check whose absence changes no result, only time: on a cycle that only one walk of
    /// a scope follows (a revisited state repeats forever, and stopping it at the first repeat
    /// or a later one gives the same results: no finished move or check target lies on such a
    /// cycle, or it is met before any repeat), and in reachability searches with a costly
    /// key (merging walks never changes whether the target is reached; checks only bound the
    /// work). The visits are counted (stamp slots `base`, `base + 1`); from the `LOOP_LIMIT`-th
    /// in one scope event on, states are recorded and repeats dropped (the scoped key), which
    /// keeps every search finite and its work bounded by the number of states.
    Loop { vars: Vec<usize>, base: u64 },
    /// The interpreter's key (see [`Visit`]).
    Full,
}

/// Which symbols a tag edge can emit that another emission of the same scope event can emit
/// too (so the scope it enters may share its tags with another).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Collide {
    Never,
    /// These symbols, and the values of these assignments' right-hand sides (edge, class of
    /// the value) evaluated when the tag is emitted.
    Some {
        syms: BTreeSet<Symbol>,
        dynamic: BTreeSet<(EdgeId, usize)>,
    },
    Always,
}

impl Collide {
    fn syms(s: BTreeSet<Symbol>) -> Collide {
        Collide::Some {
            syms: s,
            dynamic: BTreeSet::new(),
        }
    }

    fn add(&mut self, other: Collide) {
        *self = match (std::mem::replace(self, Collide::Never), other) {
            (Collide::Always, _) | (_, Collide::Always) => Collide::Always,
            (Collide::Never, x) | (x, Collide::Never) => x,
            (
                Collide::Some {
                    syms: mut a,
                    dynamic: mut da,
                },
                Collide::Some {
                    syms: b,
                    dynamic: db,
                },
            ) => {
                a.extend(b);
                da.extend(db);
                if a.len() + da.len() > 16 {
                    Collide::Always
                } else {
                    Collide::Some {
                        syms: a,
                        dynamic: da,
                    }
                }
            }
        };
    }
}

/// The checks of one search kind's node functions, kept only for the nodes of the kind (a
/// game can have thousands of check targets, each over a small part of a large graph).
#[derive(Debug, Default)]
pub(crate) struct KindChecks {
    /// The check in a determined scope (absent: `Full`).
    det: HashMap<usize, Check>,
    /// The nodes that can be reached in a scope that is not determined (then the interpreter's
    /// key is used there).
    nondet: BTreeSet<usize>,
    /// The collision symbols of tag edges (absent: `Never`).
    pub collide: BTreeMap<EdgeId, Collide>,
    /// Tag edges that enter a shared scope when the scope they leave is shared.
    pub inherit: BTreeSet<EdgeId>,
    /// The optimistic check (move searches only; `None` when it does not apply): the tag edges
    /// whose emissions are compared at run time with their scope event's earlier emissions.
    /// While no two emissions of one scope event are equal, every scope event has tags of its
    /// own, so every scope is determined and `collide`, `inherit` and `nondet` can be ignored;
    /// the first equal emission abandons the search, which runs again with them (see
    /// [`Analysis::optimistic_edges`]).
    pub optimistic: Option<BTreeSet<EdgeId>>,
}

impl KindChecks {
    /// The check of node `q` in a determined scope.
    pub fn det(&self, q: usize) -> &Check {
        const FULL: Check = Check::Full;
        self.det.get(&q).unwrap_or(&FULL)
    }

    /// Whether node `q` can be reached in a scope that is not determined.
    pub fn nondet(&self, q: usize) -> bool {
        self.nondet.contains(&q)
    }
}

/// The checks of every node function.
#[derive(Debug)]
pub(crate) struct Visits {
    pub moves: KindChecks,
    pub reach: BTreeMap<NodeId, KindChecks>,
    /// Stamp words the cache needs.
    pub stamp_slots: u64,
    /// Proven: no two legal moves of a state have the same tags (every move-search scope is
    /// determined and emits at most one finished move).
    pub distinct_move_tags: bool,
    /// Move-search starts from which a search finds at most one move (one walk, no tags):
    /// the keeper's move there can be applied without listing moves.
    pub single_move: Vec<bool>,
}

impl Visits {
    /// No analysis: what the table model's generator (which has no node functions) passes.
    pub fn none(nodes: usize) -> Visits {
        Visits {
            moves: KindChecks::default(),
            reach: BTreeMap::new(),
            stamp_slots: 0,
            distinct_move_tags: false,
            single_move: vec![false; nodes],
        }
    }
}

/// The nodes of a search kind: all move-search nodes (a table over all nodes), or the nodes
/// of one reachability search (a small set).
#[derive(Clone, Copy)]
enum Nodes<'a> {
    All(&'a [bool]),
    Set(&'a NodeSet),
}

/// A search kind: which edges its walks follow and where they start.
struct Kind<'a> {
    /// Nodes with a function of this kind.
    nodes: Nodes<'a>,
    /// Reachability target (its outgoing edges are never followed).
    target: Option<NodeId>,
    starts: Vec<NodeId>,
}

impl Nodes<'_> {
    fn local(&self, q: NodeId) -> Option<usize> {
        match self {
            Nodes::All(v) => v[q.index()].then_some(q.index()),
            Nodes::Set(s) => s.position(q),
        }
    }
}

impl Kind<'_> {
    /// The number of local indices (see [`Kind::local`]).
    fn len(&self) -> usize {
        match self.nodes {
            Nodes::All(v) => v.len(),
            Nodes::Set(s) => s.len(),
        }
    }

    /// The local index of node `q` when it is a node of the kind: the node's own index for
    /// move searches, its position in the set for a reachability search.
    fn local(&self, q: NodeId) -> Option<usize> {
        self.nodes.local(q)
    }

    fn has(&self, q: NodeId) -> bool {
        self.local(q).is_some()
    }

    /// The nodes of the kind in increasing order.
    fn members(&self) -> Vec<NodeId> {
        match self.nodes {
            Nodes::All(v) => (0..v.len()).filter(|&q| v[q]).map(NodeId::new).collect(),
            Nodes::Set(s) => s.iter().collect(),
        }
    }
}

/// What the analysis of one search kind finds (indexed by [`Kind::local`] indices).
struct KindResult {
    /// Starts from which a search finds at most one move.
    single: Vec<NodeId>,
    acc: Vec<Acc>,
    nondet: Vec<bool>,
    collide: BTreeMap<EdgeId, Collide>,
    inherit: BTreeSet<EdgeId>,
    distinct: bool,
    optimistic: Option<BTreeSet<EdgeId>>,
}

/// Per-node accumulation over the regions containing it.
#[derive(Clone, Debug)]
enum Acc {
    Unvisited,
    None,
    /// On a cycle of a single walk: a revisit means the walk repeats forever.
    Loop(Vec<u64>),
    Scoped(Vec<u64>),
    Full,
}

/// A node's need in one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Local {
    Unique,
    Loop,
    Check,
}

struct Analysis<'a> {
    game: &'a Game,
    layout: &'a Layout,
    plan: &'a SearchPlan,
    ignore_pragmas: bool,
    /// Bit index of each ordinary variable (by layout index), and the reverse.
    bit_of: Vec<Option<usize>>,
    var_of_bit: Vec<usize>,
    words: usize,
    stores: crate::progress::Stores,
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

fn has(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

/// [`components`], with the nodes of each component (in completion order, ascending within).
fn component_members(n: usize, succ: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>, Vec<Vec<usize>>) {
    let (comp, cyclic) = components(n, succ);
    let ncomp = comp.iter().map(|&c| c + 1).max().unwrap_or(0);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (i, &c) in comp.iter().enumerate() {
        members[c].push(i);
    }
    (comp, cyclic, members)
}

/// Strongly connected components of the graph `succ` (iterative Tarjan): the component of
/// each node, numbered in the order they complete (successors first), and whether each node
/// lies on a cycle.
pub(crate) fn components(n: usize, succ: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut cyclic = vec![false; n];
    let mut ncomp = 0;
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < succ[v].len() {
                let w = succ[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(p, _)) = call.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = ncomp;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 || succ[v].contains(&v) {
                    for w in members {
                        cyclic[w] = true;
                    }
                }
                ncomp += 1;
            }
        }
    }
    (comp, cyclic)
}

fn on_cycle(n: usize, succ: &[Vec<usize>]) -> Vec<bool> {
    components(n, succ).1
}

/// The most tags a move can have, when move searches cannot go round a cycle through a tag
/// edge (`None` otherwise).
pub(crate) fn max_move_tags(game: &Game, plan: &SearchPlan) -> Option<u32> {
    let n = game.node_capacity();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut edges: Vec<(usize, usize, u32)> = Vec::new();
    for (q, out) in plan.out.iter().enumerate() {
        if !plan.moves[q] {
            continue;
        }
        for &e in out {
            let d = game.edge(e);
            if assigns_player(game, &d.label) || !plan.moves[d.to.index()] {
                continue;
            }
            succ[q].push(d.to.index());
            edges.push((q, d.to.index(), u32::from(d.label.is_tag())));
        }
    }
    let (comp, _) = components(n, &succ);
    let ncomp = comp
        .iter()
        .filter(|&&c| c != usize::MAX)
        .map(|&c| c + 1)
        .max()
        .unwrap_or(0);
    let mut out: Vec<Vec<(usize, u32)>> = vec![Vec::new(); ncomp];
    for &(a, b, w) in &edges {
        let (ca, cb) = (comp[a], comp[b]);
        if ca == cb {
            if w > 0 {
                return None; // a tag edge on a cycle
            }
            continue;
        }
        out[ca].push((cb, w));
    }
    // Components complete successors first, so each one's successors are already known.
    let mut best = vec![0u32; ncomp];
    for c in 0..ncomp {
        best[c] = out[c]
            .iter()
            .map(|&(d, w)| best[d].saturating_add(w))
            .max()
            .unwrap_or(0);
    }
    // Tags of one move also come from edges taken by the emitting node: already counted.
    Some(best.into_iter().max().unwrap_or(0))
}

/// What is known of an ordinary variable at a node reached by a single walk from its scope's
/// start: the any-assignments (origins, by edge) its value depends on, and the origin it is an
/// injective function of, if any.
#[derive(Clone, Debug, Default)]
struct Fact {
    deps: Vec<u32>,
    inj: Option<u32>,
}

type Facts = BTreeMap<usize, Fact>;

/// The value of an ordinary variable in the walks of one scope event: the same term in all of
/// them (terms below the number of variables are the variables' values at the scope's start),
/// or varying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Term(u32),
    Top,
}

/// A value while evaluating a term: a scalar, or a run of a constant's elements.
#[derive(Clone, Debug)]
enum EvalVal {
    Scalar(u32),
    Run { c: usize, index: u64, shape: Shape },
}

/// What a tag edge emits in a scope event: a symbol, a term of a class, or a varying value
/// of a class.
#[derive(Clone, Debug)]
enum Emit {
    Sym(Symbol),
    Term(u32, usize),
    Top(usize),
}

/// Joins `new` into `old` (a missing variable holds its start value); returns whether `old`
/// changed.
fn join_vals(old: &mut BTreeMap<usize, Val>, new: &BTreeMap<usize, Val>) -> bool {
    let mut changed = false;
    let start = |b: usize| Val::Term(b as u32);
    for (&b, &v) in new {
        let o = old.get(&b).copied().unwrap_or(start(b));
        if o != v && o != Val::Top {
            old.insert(b, Val::Top);
            changed = true;
        }
    }
    let missing: Vec<usize> = old
        .iter()
        .filter(|(b, v)| !new.contains_key(b) && **v != start(**b) && **v != Val::Top)
        .map(|(b, _)| *b)
        .collect();
    for b in missing {
        old.insert(b, Val::Top);
        changed = true;
    }
    changed
}

/// A region: the nodes a scope start reaches without a tag, each with its need and the
/// variables that vary there, and the tag edges leaving it.
struct Region {
    nodes: Vec<(NodeId, Local, Vec<u64>)>,
    tags: Vec<EdgeId>,
    /// At most one finished move per scope event.
    one_move: bool,
}

/// The routes into a region member (see `relax_reach_checks`).
struct Routes {
    /// Per source in the region, how many routes come from it (none for the scope's start).
    srcs: Vec<(NodeId, u64)>,
    /// Every route is injective (in a reachability search, or a step `v = K[v]` whose
    /// collisions end at once).
    injective: bool,
    /// A single walk of a scope event reaches the member.
    single_walk: bool,
}

/// The tag-free graph a search kind follows (tables by [`Kind::local`] indices).
struct KindGraph<'a> {
    nodes: Nodes<'a>,
    /// The followed tag-free edges into each node.
    preds: Vec<Vec<EdgeId>>,
    /// Nodes on a cycle of followed tag-free edges.
    cyclic: Vec<bool>,
    /// Segment starts: search starts and tag targets.
    starts: Vec<NodeId>,
}

impl KindGraph<'_> {
    /// The followed tag-free edges into `q` (none when `q` is not a node of the kind).
    fn preds(&self, q: NodeId) -> &[EdgeId] {
        self.nodes
            .local(q)
            .map_or(&[], |i| self.preds[i].as_slice())
    }

    /// Whether `q` is a node of the kind on a cycle of followed tag-free edges.
    fn cyclic(&self, q: NodeId) -> bool {
        self.nodes.local(q).is_some_and(|i| self.cyclic[i])
    }
}

/// What the analysis of one search kind accumulates over its regions.
struct KindWalk {
    /// Steps taken, against [`WORK_BUDGET`].
    work: u64,
    collide: BTreeMap<EdgeId, Collide>,
    /// Pairs of scope starts whose events may have the same tags.
    partners: BTreeSet<(NodeId, NodeId)>,
    /// Pairs of tag edges (smaller first; an edge with itself) that may emit one symbol in one
    /// scope event, and whether some region was too large to compare its emissions pairwise.
    edge_pairs: BTreeSet<(EdgeId, EdgeId)>,
    coarse: bool,
    regions: BTreeMap<NodeId, Region>,
    /// The varying variables at each node of the region being analysed (`None` outside it),
    /// by node: one table for all kinds, left all `None` between regions.
    d: Vec<Option<Vec<u64>>>,
}

impl KindWalk {
    /// Takes one step; `None` when that exceeds the budget.
    fn spend(&mut self, k: u64) -> Option<()> {
        self.work += k;
        (self.work <= WORK_BUDGET).then_some(())
    }
}

/// The value flow over one region: its members in discovery order, the values of the
/// variables at each, and the terms numbered on the way.
struct RegionFlow {
    members: Vec<NodeId>,
    vals: HashMap<NodeId, BTreeMap<usize, Val>>,
    terms: HashMap<(EdgeId, Vec<u32>), u32>,
}

/// The nodes reached by a single walk with the facts of their variables, and the edge each
/// is entered by.
type SingleWalks = (HashMap<NodeId, Facts>, HashMap<NodeId, EdgeId>);

/// Whether two sorted lists have a common element.
fn sorted_meet(a: &[Symbol], b: &[Symbol]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// An unordered pair of scope starts, smaller first.
fn pair(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b { (a, b) } else { (b, a) }
}

impl<'a> Analysis<'a> {
    /// The ordinary variables (bits) an expression reads, including in its keys.
    fn reads(&self, e: rg_core::ExprId, out: &mut Vec<usize>) {
        let mut work = vec![e];
        while let Some(x) = work.pop() {
            match self.game.expr(x) {
                ExprData::Cast(_, inner) => work.push(inner),
                ExprData::Access(m, k) => {
                    work.push(m);
                    work.push(k);
                }
                ExprData::Ref(r) => {
                    if let crate::layout::NameRef::Var(v) = self.layout.name_ref(self.game, r)
                        && let Some(b) = self.bit_of[v]
                    {
                        out.push(b);
                    }
                }
            }
        }
    }

    /// Whether `M[x]` with `M` a constant map of scalars gives different values for different
    /// keys of its class.
    fn injective_const(&self, c: usize) -> bool {
        let k = &self.layout.consts[c];
        if !matches!(&k.shape, Shape::Map { val, .. } if matches!(**val, Shape::Scalar(_))) {
            return false;
        }
        let mut v = k.elements.clone();
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        v.len() == n
    }

    /// The origin `rhs` is an injective function of, given the facts of its reads.
    fn inj_of(&self, rhs: rg_core::ExprId, facts: &Facts) -> Option<u32> {
        match self.game.expr(self.game.strip_casts(rhs)) {
            ExprData::Ref(r) => match self.layout.name_ref(self.game, r) {
                crate::layout::NameRef::Var(v) => facts.get(&self.bit_of[v]?)?.inj,
                _ => None,
            },
            ExprData::Access(m, k) => {
                let ExprData::Ref(mr) = self.game.expr(self.game.strip_casts(m)) else {
                    return None;
                };
                let crate::layout::NameRef::Const(c) = self.layout.name_ref(self.game, mr) else {
                    return None;
                };
                if !self.injective_const(c) {
                    return None;
                }
                self.inj_of(k, facts)
            }
            ExprData::Cast(..) => None,
        }
    }

    /// The values after edge `e`, taken in a state with values `vals`.
    fn step(
        &self,
        e: EdgeId,
        vals: &BTreeMap<usize, Val>,
        terms: &mut HashMap<(EdgeId, Vec<u32>), u32>,
    ) -> BTreeMap<usize, Val> {
        let mut out = vals.clone();
        let label = self.game.edge(e).label;
        let (lhs, rhs) = match label {
            Label::Assign { lhs, rhs } => (lhs, Some(rhs)),
            Label::AssignAny { lhs, .. } => (lhs, None),
            _ => return out,
        };
        let Some(w) = self.assigned_bit(&label) else {
            return out;
        };
        let Some(rhs) = rhs else {
            out.insert(w, Val::Top);
            return out;
        };
        let mut reads = Vec::new();
        let whole = matches!(self.game.expr(self.game.strip_casts(lhs)), ExprData::Ref(_));
        if !whole {
            reads.push(w);
            let mut x = self.game.strip_casts(lhs);
            while let ExprData::Access(m, k) = self.game.expr(x) {
                self.reads(k, &mut reads);
                x = self.game.strip_casts(m);
            }
        }
        self.reads(rhs, &mut reads);
        let mut inputs = Vec::with_capacity(reads.len());
        for b in reads {
            match vals.get(&b).copied().unwrap_or(Val::Term(b as u32)) {
                Val::Term(t) => inputs.push(t),
                Val::Top => {
                    out.insert(w, Val::Top);
                    return out;
                }
            }
        }
        let next = (self.var_of_bit.len() + terms.len()) as u32;
        let t = *terms.entry((e, inputs)).or_insert(next);
        out.insert(w, Val::Term(t));
        out
    }

    /// The value (class-local number) of term `t` when the variables at the scope's start have
    /// the values `env` (bits of scalar variables); `None` when it cannot be told (a map read,
    /// an unbound variable).
    fn eval_term(
        &self,
        t: u32,
        rev: &HashMap<u32, (EdgeId, Vec<u32>)>,
        env: &HashMap<usize, u32>,
        depth: usize,
    ) -> Option<u32> {
        if (t as usize) < self.var_of_bit.len() {
            return env.get(&(t as usize)).copied();
        }
        if depth > 64 {
            return None;
        }
        let (e, inputs) = rev.get(&t)?;
        let Label::Assign { lhs, rhs } = self.game.edge(*e).label else {
            return None;
        };
        if !matches!(self.game.expr(self.game.strip_casts(lhs)), ExprData::Ref(_)) {
            return None; // a map element written: the term is a map
        }
        let mut reads = Vec::new();
        self.reads(rhs, &mut reads);
        let mut bound = HashMap::new();
        for (b, &i) in reads.iter().zip(inputs) {
            bound.insert(*b, self.eval_term(i, rev, env, depth + 1)?);
        }
        let w = self.assigned_bit(&self.game.edge(*e).label)?;
        let class = self.layout.vars[self.var_of_bit[w]].shape.leaf();
        match self.eval_expr(rhs, Some(class), &bound, 0)? {
            EvalVal::Scalar(x) => Some(x),
            EvalVal::Run { .. } => None,
        }
    }

    /// Evaluates an expression whose variables are bound in `bound` (scalars only).
    fn eval_expr(
        &self,
        e: rg_core::ExprId,
        class: Option<usize>,
        bound: &HashMap<usize, u32>,
        depth: usize,
    ) -> Option<EvalVal> {
        if depth > crate::layout::MAX_EXPR_DEPTH {
            return None;
        }
        use crate::layout::NameRef;
        match self.game.expr(self.game.strip_casts(e)) {
            ExprData::Cast(..) => None,
            ExprData::Ref(x) => match self.layout.name_ref(self.game, x) {
                NameRef::Var(v) => Some(EvalVal::Scalar(*bound.get(&self.bit_of[v]?)?)),
                NameRef::Const(c) => {
                    let k = &self.layout.consts[c];
                    match &k.shape {
                        Shape::Scalar(_) => Some(EvalVal::Scalar(k.elements[0])),
                        shape => Some(EvalVal::Run {
                            c,
                            index: 0,
                            shape: shape.clone(),
                        }),
                    }
                }
                NameRef::Literal(s) => Some(EvalVal::Scalar(self.layout.classes[class?].local(s)?)),
            },
            ExprData::Access(m, k) => {
                let EvalVal::Run {
                    c,
                    index,
                    shape: Shape::Map { key, val, .. },
                } = self.eval_expr(m, None, bound, depth + 1)?
                else {
                    return None;
                };
                let EvalVal::Scalar(kv) = self.eval_expr(k, Some(key), bound, depth + 1)? else {
                    return None;
                };
                let index = index + u64::from(kv) * val.elements(&self.layout.classes);
                match *val {
                    Shape::Scalar(_) => Some(EvalVal::Scalar(
                        *self.layout.consts[c].elements.get(index as usize)?,
                    )),
                    shape => Some(EvalVal::Run { c, index, shape }),
                }
            }
        }
    }

    /// Scalar variables (bits) a term depends on at the scope's start; `None` if a map.
    fn term_inputs(
        &self,
        t: u32,
        rev: &HashMap<u32, (EdgeId, Vec<u32>)>,
        out: &mut BTreeSet<usize>,
        depth: usize,
    ) -> Option<()> {
        if (t as usize) < self.var_of_bit.len() {
            let v = self.var_of_bit[t as usize];
            if !matches!(self.layout.vars[v].shape, Shape::Scalar(_)) {
                return None;
            }
            out.insert(t as usize);
            return Some(());
        }
        if depth > 64 {
            return None;
        }
        let (_, inputs) = rev.get(&t)?;
        for &i in inputs {
            self.term_inputs(i, rev, out, depth + 1)?;
        }
        Some(())
    }

    /// The symbols two emissions (a symbol, or a term of a class, or a varying value of a
    /// class) of one scope event can both emit.
    fn collision(
        &self,
        a: &Emit,
        b: &Emit,
        rev: &HashMap<u32, (EdgeId, Vec<u32>)>,
        va: &[u64],
        vb: &[u64],
    ) -> (Collide, Collide) {
        // A varying value against a term of the scope's start: the varying side can compare
        // with the term's value at run time when the term reads only variables that did not
        // change since the scope began.
        match (a, b) {
            (Emit::Top(_), Emit::Term(t, _)) => {
                if let Some(d) = self.dynamic_term(*t, rev, va) {
                    return (d, self.collision_sym(a, b, rev));
                }
            }
            (Emit::Term(t, _), Emit::Top(_)) => {
                if let Some(d) = self.dynamic_term(*t, rev, vb) {
                    return (self.collision_sym(a, b, rev), d);
                }
            }
            _ => {}
        }
        let c = self.collision_sym(a, b, rev);
        (c.clone(), c)
    }

    /// `Some` when term `t` is an assignment's right-hand side over the scope's start values
    /// of variables outside `vary`: its value, evaluated in the current state.
    fn dynamic_term(
        &self,
        t: u32,
        rev: &HashMap<u32, (EdgeId, Vec<u32>)>,
        vary: &[u64],
    ) -> Option<Collide> {
        let (e, inputs) = rev.get(&t)?;
        if inputs
            .iter()
            .any(|&i| i as usize >= self.var_of_bit.len() || has(vary, i as usize))
        {
            return None;
        }
        let label = self.game.edge(*e).label;
        let Label::Assign { lhs, .. } = label else {
            return None;
        };
        if !matches!(self.game.expr(self.game.strip_casts(lhs)), ExprData::Ref(_)) {
            return None;
        }
        let w = self.assigned_bit(&label)?;
        let class = self.layout.vars[self.var_of_bit[w]].shape.leaf();
        Some(Collide::Some {
            syms: BTreeSet::new(),
            dynamic: [(*e, class)].into(),
        })
    }

    fn collision_sym(&self, a: &Emit, b: &Emit, rev: &HashMap<u32, (EdgeId, Vec<u32>)>) -> Collide {
        let members = |c: usize| -> BTreeSet<Symbol> {
            self.layout.classes[c].members.iter().copied().collect()
        };
        let common = |x: usize, y: usize| -> Collide {
            let s: BTreeSet<Symbol> = members(x).intersection(&members(y)).copied().collect();
            if s.is_empty() {
                Collide::Never
            } else if s.len() > 16 {
                Collide::Always
            } else {
                Collide::syms(s)
            }
        };
        match (a, b) {
            (Emit::Sym(x), Emit::Sym(y)) => {
                if x == y {
                    Collide::syms([*x].into())
                } else {
                    Collide::Never
                }
            }
            (Emit::Sym(x), Emit::Term(_, c) | Emit::Top(c))
            | (Emit::Term(_, c) | Emit::Top(c), Emit::Sym(x)) => {
                if self.layout.classes[*c].local(*x).is_some() {
                    Collide::syms([*x].into())
                } else {
                    Collide::Never
                }
            }
            (Emit::Top(x), Emit::Top(y) | Emit::Term(_, y)) | (Emit::Term(_, x), Emit::Top(y)) => {
                common(*x, *y)
            }
            (Emit::Term(t1, c1), Emit::Term(t2, c2)) => {
                let mut vars = BTreeSet::new();
                if self.term_inputs(*t1, rev, &mut vars, 0).is_none()
                    || self.term_inputs(*t2, rev, &mut vars, 0).is_none()
                {
                    return common(*c1, *c2);
                }
                let vars: Vec<usize> = vars.into_iter().collect();
                let sizes: Vec<u64> = vars
                    .iter()
                    .map(|&b| {
                        let v = self.var_of_bit[b];
                        self.layout.classes[self.layout.vars[v].shape.leaf()].len()
                    })
                    .collect();
                let total = sizes.iter().product::<u64>();
                if total > 4096 {
                    return common(*c1, *c2);
                }
                let mut out = Collide::Never;
                for mut k in 0..total {
                    let mut env = HashMap::new();
                    for (&b, &n) in vars.iter().zip(&sizes) {
                        env.insert(b, (k % n) as u32);
                        k /= n;
                    }
                    let x = self.eval_term(*t1, rev, &env, 0);
                    let y = self.eval_term(*t2, rev, &env, 0);
                    match (x, y) {
                        (Some(x), Some(y)) => {
                            let (sx, sy) = (
                                self.layout.classes[*c1].members[x as usize],
                                self.layout.classes[*c2].members[y as usize],
                            );
                            if sx == sy {
                                out.add(Collide::syms([sx].into()));
                            }
                        }
                        _ => return common(*c1, *c2),
                    }
                    if out == Collide::Always {
                        break;
                    }
                }
                out
            }
        }
    }

    /// Whether tag edges `e1` and `e2` of one region never emit one symbol in one scope event:
    /// both sources are reached by single walks from the region's start, which part at a node
    /// `d` by two edges at most one of which a state can take, and equal symbols mean equal
    /// states at `d` (the state at `d` does not vary, or it is a function of one any-assignment
    /// that both emitted symbols are injective functions of).
    fn exclusive_emissions(
        &self,
        e1: EdgeId,
        e2: EdgeId,
        facts: &HashMap<NodeId, Facts>,
        parent: &HashMap<NodeId, EdgeId>,
        vary: impl Fn(NodeId) -> Vec<u64>,
    ) -> bool {
        let (m1, m2) = (self.game.edge(e1).from, self.game.edge(e2).from);
        let (Some(f1), Some(f2)) = (facts.get(&m1), facts.get(&m2)) else {
            return false;
        };
        // The walk to m1, as (node, edge leaving it towards m1 or into the tag edge).
        let mut path1: HashMap<NodeId, EdgeId> = HashMap::new();
        let (mut q, mut via) = (m1, e1);
        loop {
            path1.insert(q, via);
            match parent.get(&q) {
                Some(&pe) => {
                    via = pe;
                    q = self.game.edge(pe).from;
                }
                None => break,
            }
        }
        let (mut q, mut via2) = (m2, e2);
        let (d, via1) = loop {
            if let Some(&v1) = path1.get(&q) {
                break (q, v1);
            }
            match parent.get(&q) {
                Some(&pe) => {
                    via2 = pe;
                    q = self.game.edge(pe).from;
                }
                None => return false,
            }
        };
        if via1 == via2 || !self.exclusive(d, &[via1, via2]) {
            return false;
        }
        let Some(fd) = facts.get(&d) else {
            return false;
        };
        let vd = vary(d);
        let varying: Vec<usize> = (0..self.var_of_bit.len())
            .filter(|&b| has(&vd, b))
            .collect();
        if varying.is_empty() {
            return true;
        }
        let origin = |f: &Facts, e: EdgeId| -> Option<u32> {
            let Label::TagVar(v) = self.game.edge(e).label else {
                return None;
            };
            let b = self.bit_of[*self.layout.var_by_name.get(&v)?]?;
            f.get(&b)?.inj
        };
        let (Some(p1), Some(p2)) = (origin(f1, e1), origin(f2, e2)) else {
            return false;
        };
        p1 == p2
            && varying
                .iter()
                .all(|b| fd.get(b).is_some_and(|x| x.deps.iter().all(|&o| o == p1)))
    }

    /// The chain of nodes every walk of the region takes to tag edge `e`, upwards: each node
    /// with the edges it leaves by towards `e` (`e` itself for its source), as long as the node
    /// above is the only region node entering the current one and no cycle is involved.
    fn chain_to(
        &self,
        e: EdgeId,
        graph: &KindGraph<'_>,
        w: &mut KindWalk,
    ) -> Option<Vec<(NodeId, Vec<EdgeId>)>> {
        let mut chain = vec![(self.game.edge(e).from, vec![e])];
        loop {
            w.spend(1)?;
            let x = chain.last().expect("not empty").0;
            if graph.cyclic(x) {
                return Some(chain);
            }
            let ins: Vec<EdgeId> = graph
                .preds(x)
                .iter()
                .copied()
                .filter(|&p| w.d[self.game.edge(p).from.index()].is_some())
                .collect();
            let Some(&first) = ins.first() else {
                return Some(chain);
            };
            let p = self.game.edge(first).from;
            if ins.iter().any(|&i| self.game.edge(i).from != p) {
                return Some(chain);
            }
            chain.push((p, ins));
        }
    }

    /// Whether the edges `es` (from the chain's top node `d`) are negated checks `! s -> t` that
    /// fail whenever a walk down `chain` (upwards, as [`Self::chain_to`] gives it, `d` last)
    /// reaches its bottom node: the check's automaton has, from `s`, a walk with the same
    /// labels as every walk of the chain (skips aside) that ends at `t`, so from the same
    /// state at `d` the check reaches `t` whenever the chain's walk gets through (RBG's
    /// `{! X} + X ...` pass alternatives are the usual case).
    fn refuted_by_check(&self, es: &[EdgeId], chain: &[(NodeId, Vec<EdgeId>)]) -> bool {
        const MAX_STEPS: usize = 64;
        if es.is_empty() || chain.len() < 2 || chain.len() > MAX_STEPS {
            return false;
        }
        let close = |set: &mut BTreeSet<NodeId>| {
            let mut stack: Vec<NodeId> = set.iter().copied().collect();
            while let Some(q) = stack.pop() {
                for &o in self.game.outgoing(q) {
                    let ed = self.game.edge(o);
                    if matches!(ed.label, Label::Skip) && set.insert(ed.to) {
                        stack.push(ed.to);
                    }
                }
            }
        };
        es.iter().all(|&x| {
            let Label::Reach {
                from: s,
                to: t,
                negated: true,
            } = self.game.edge(x).label
            else {
                return false;
            };
            let mut at: BTreeSet<NodeId> = [s].into();
            close(&mut at);
            // chain[k].1 leads from chain[k].0 to chain[k - 1].0; the bottom is chain[0].0.
            for k in (1..chain.len()).rev() {
                let [step] = chain[k].1.as_slice() else {
                    return false;
                };
                let label = self.game.edge(*step).label;
                if matches!(label, Label::Skip) {
                    continue;
                }
                if matches!(label, Label::Tag(_) | Label::TagVar(_)) {
                    return false;
                }
                let mut next = BTreeSet::new();
                for &q in &at {
                    for &o in self.game.outgoing(q) {
                        let ed = self.game.edge(o);
                        if ed.label == label {
                            next.insert(ed.to);
                        }
                    }
                }
                close(&mut next);
                if next.is_empty() {
                    return false;
                }
                at = next;
            }
            at.contains(&t)
        })
    }

    /// Whether tag edges `e1` and `e2` of one region never emit one symbol in one scope event
    /// because their walks part for good at a node `d` by edges at most one of which a state
    /// can take: every walk to either tag edge passes `d` and then a fixed chain of nodes, and
    /// equal symbols mean equal states at `d` (no variable varies at `d`, or only `v` when both
    /// emit `$$ v` and neither chain assigns `v`). `Some(false)` when this cannot be shown.
    fn exclusive_branches(
        &self,
        e1: EdgeId,
        e2: EdgeId,
        c1: &[(NodeId, Vec<EdgeId>)],
        c2: &[(NodeId, Vec<EdgeId>)],
        graph: &KindGraph<'_>,
        vary: &[Option<Vec<u64>>],
    ) -> bool {
        let Some((i1, i2)) = c2
            .iter()
            .enumerate()
            .find_map(|(i2, (q, _))| c1.iter().position(|(p, _)| p == q).map(|i1| (i1, i2)))
        else {
            return false;
        };
        let d = c1[i1].0;
        let (a, b) = (&c1[i1].1, &c2[i2].1);
        // Chain nodes below `d` must be entered only from the chain (not cyclic, checked in
        // `chain_to`), and `d` itself may be anywhere.
        if c1[..i1]
            .iter()
            .chain(&c2[..i2])
            .any(|(q, _)| graph.cyclic(*q))
        {
            return false;
        }
        if a.iter().any(|x| b.contains(x))
            || !(a
                .iter()
                .all(|&x| b.iter().all(|&y| self.exclusive(d, &[x, y])))
                || self.refuted_by_check(a, &c2[..=i2])
                || self.refuted_by_check(b, &c1[..=i1]))
        {
            return false;
        }
        let dd = vary[d.index()].clone().unwrap_or_default();
        if dd.iter().all(|&x| x == 0) {
            return true;
        }
        let (Label::TagVar(v1), Label::TagVar(v2)) =
            (self.game.edge(e1).label, self.game.edge(e2).label)
        else {
            return false;
        };
        let Some(vb) = self
            .layout
            .var_by_name
            .get(&v1)
            .and_then(|&i| self.bit_of[i])
        else {
            return false;
        };
        if v1 != v2 || (0..self.var_of_bit.len()).any(|u| u != vb && has(&dd, u)) {
            return false;
        }
        let keeps_v = |es: &[EdgeId]| {
            es.iter()
                .all(|&e| self.assigned_bit(&self.game.edge(e).label) != Some(vb))
        };
        c1[..=i1].iter().all(|(_, es)| keeps_v(es)) && c2[..=i2].iter().all(|(_, es)| keeps_v(es))
    }

    /// The facts after edge `e` (taken from a node with `facts`).
    fn transfer(&self, e: EdgeId, facts: &Facts) -> Facts {
        let mut out = facts.clone();
        let label = self.game.edge(e).label;
        let (lhs, rhs) = match label {
            Label::Assign { lhs, rhs } => (lhs, Some(rhs)),
            Label::AssignAny { lhs, .. } => (lhs, None),
            _ => return out,
        };
        let Some(w) = self.assigned_bit(&label) else {
            return out;
        };
        let whole = matches!(self.game.expr(self.game.strip_casts(lhs)), ExprData::Ref(_));
        let mut reads = Vec::new();
        if !whole {
            // The keys of the location.
            let mut x = self.game.strip_casts(lhs);
            while let ExprData::Access(m, k) = self.game.expr(x) {
                self.reads(k, &mut reads);
                x = self.game.strip_casts(m);
            }
        }
        if let Some(r) = rhs {
            self.reads(r, &mut reads);
        }
        let mut deps: Vec<u32> = reads
            .iter()
            .filter_map(|b| facts.get(b))
            .flat_map(|f| f.deps.iter().copied())
            .collect();
        let origin = e.index() as u32;
        if rhs.is_none() {
            deps.push(origin);
        }
        if !whole && let Some(f) = facts.get(&w) {
            deps.extend(f.deps.iter().copied());
        }
        deps.sort_unstable();
        deps.dedup();
        let inj = match (whole, rhs) {
            (true, None) => Some(origin),
            (true, Some(r)) => self.inj_of(r, facts),
            _ => None,
        };
        out.insert(w, Fact { deps, inj });
        out
    }

    fn new(game: &'a Game, layout: &'a Layout, plan: &'a SearchPlan, ignore_pragmas: bool) -> Self {
        let mut bit_of = vec![None; layout.vars.len()];
        let mut var_of_bit = Vec::new();
        for (i, f) in layout.vars.iter().enumerate() {
            if f.ordinary {
                bit_of[i] = Some(var_of_bit.len());
                var_of_bit.push(i);
            }
        }
        let words = var_of_bit.len().div_ceil(64).max(1);
        Analysis {
            game,
            layout,
            plan,
            ignore_pragmas,
            bit_of,
            var_of_bit,
            words,
            stores: Default::default(),
        }
    }

    /// Whether edge `e` is followed by walks of `kind` (tag edges included).
    fn followed(&self, kind: &Kind<'_>, e: EdgeId) -> bool {
        let d = self.game.edge(e);
        if !kind.has(d.from) || !kind.has(d.to) {
            return false;
        }
        if kind.target == Some(d.from) {
            return false;
        }
        kind.target.is_some() || !assigns_player(self.game, &d.label)
    }

    /// The ordinary variable (bit) an assignment's location belongs to.
    fn assigned_bit(&self, label: &Label) -> Option<usize> {
        let lhs = match label {
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => *lhs,
            _ => return None,
        };
        let root = self.game.expr_root(lhs);
        let v = *self.layout.var_by_name.get(&root)?;
        self.bit_of[v]
    }

    /// Whether edge `e` maps the different states of its source (differing only in `d`) to
    /// different states.
    fn injective(&self, e: EdgeId, d: &[u64]) -> bool {
        let label = self.game.edge(e).label;
        match label {
            Label::Skip | Label::Compare { .. } | Label::Reach { .. } => true,
            Label::Tag(_) | Label::TagVar(_) => true,
            Label::Assign { .. } => match self.assigned_bit(&label) {
                Some(b) => !has(d, b),
                None => true, // goals, player, visible: not part of the key
            },
            Label::AssignAny { ty, .. } => {
                let Some(b) = self.assigned_bit(&label) else {
                    return false; // members would give equal keys
                };
                if has(d, b) {
                    return false;
                }
                // Every member must be listed once, or one state arrives twice.
                let env = rg_core::typeck::TypeEnv::new(self.game);
                match env.resolve(ty) {
                    Ok(rg_core::typeck::Resolved::Set(ms)) => {
                        let mut v = ms.as_slice().to_vec();
                        let n = v.len();
                        v.sort_unstable();
                        v.dedup();
                        v.len() == n
                    }
                    _ => false,
                }
            }
        }
    }

    /// Whether at most one of these edges (all from one node) can be taken from one state.
    fn exclusive(&self, m: NodeId, edges: &[EdgeId]) -> bool {
        if edges.len() < 2 {
            return true;
        }
        if !self.ignore_pragmas && self.plan.disjoint[m.index()].is_some() {
            return true; // only the first edge whose action succeeds is taken
        }
        let identity = |e: &EdgeId| {
            matches!(
                self.game.edge(*e).label,
                Label::Skip | Label::Compare { .. } | Label::Reach { .. }
            )
        };
        if !edges.iter().all(identity) {
            return false;
        }
        // Pairwise exclusive comparisons of one expression.
        let literal = |x: rg_core::ExprId| -> Option<Symbol> {
            match self.game.expr(self.game.strip_casts(x)) {
                ExprData::Ref(s) => match self.layout.name_ref(self.game, s) {
                    crate::layout::NameRef::Literal(s) => Some(s),
                    crate::layout::NameRef::Const(c) => match &self.layout.consts[c].value {
                        crate::layout::RtVal::Elem(s) => Some(*s),
                        _ => None,
                    },
                    crate::layout::NameRef::Var(_) => None,
                },
                _ => None,
            }
        };
        for (i, &a) in edges.iter().enumerate() {
            for &b in &edges[i + 1..] {
                let (
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
                ) = (self.game.edge(a).label, self.game.edge(b).label)
                else {
                    return false;
                };
                let (l1, l2) = (self.game.strip_casts(l1), self.game.strip_casts(l2));
                let (r1, r2) = (self.game.strip_casts(r1), self.game.strip_casts(r2));
                let ok = l1 == l2
                    && match (n1, n2) {
                        (false, false) => matches!(
                            (literal(r1), literal(r2)),
                            (Some(x), Some(y)) if x != y
                        ),
                        (false, true) | (true, false) => r1 == r2,
                        (true, true) => false,
                    };
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// Analyses one search kind; `None` when over budget. `d` is the table of varying
    /// variables by node, all `None` on entry and on return; the steps taken are added to
    /// `spent`.
    fn kind(
        &self,
        kind: &Kind<'_>,
        d: &mut Vec<Option<Vec<u64>>>,
        spent: &mut u64,
    ) -> Option<KindResult> {
        let graph = self.kind_graph(kind);
        let mut w = KindWalk {
            work: 0,
            collide: BTreeMap::new(),
            partners: BTreeSet::new(),
            edge_pairs: BTreeSet::new(),
            coarse: false,
            regions: BTreeMap::new(),
            d: std::mem::take(d),
        };
        let walked = (|| {
            for &t in &graph.starts {
                self.region(kind, &graph, t, &mut w)?;
            }
            let optimistic = match kind.target {
                None => self.optimistic_edges(&mut w)?,
                Some(_) => None,
            };
            Some((self.inherit(&mut w)?, optimistic))
        })();
        *spent += w.work;
        let Some((inherit, optimistic)) = walked else {
            // Over budget in the middle of a region: clear what it set.
            for x in kind.members() {
                w.d[x.index()] = None;
            }
            *d = w.d;
            return None;
        };
        *d = std::mem::take(&mut w.d);
        Some(self.decide(kind, w, inherit, optimistic))
    }

    /// The tag-free edges `kind` follows, the nodes on their cycles, and the segment starts.
    fn kind_graph<'k>(&self, kind: &Kind<'k>) -> KindGraph<'k> {
        let n = kind.len();
        // Tag-free followed edges, and cycles among them.
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut tag_edges: Vec<EdgeId> = Vec::new();
        let mut preds: Vec<Vec<EdgeId>> = vec![Vec::new(); n];
        for q in kind.members() {
            let lq = kind.local(q).expect("a member");
            for &e in &self.plan.out[q.index()] {
                if !self.followed(kind, e) {
                    continue;
                }
                let d = self.game.edge(e);
                if d.label.is_tag() {
                    tag_edges.push(e);
                } else {
                    let lt = kind.local(d.to).expect("followed edges stay in the kind");
                    succ[lq].push(lt);
                    preds[lt].push(e);
                }
            }
        }
        let cyclic = on_cycle(n, &succ);
        // Segment starts: search starts and tag targets.
        let mut starts: Vec<NodeId> = kind.starts.clone();
        starts.extend(tag_edges.iter().map(|&e| self.game.edge(e).to));
        starts.sort_unstable();
        starts.dedup();
        KindGraph {
            nodes: kind.nodes,
            preds,
            cyclic,
            starts,
        }
    }

    /// Analyses the region of scope start `t`: its value flow, its nodes' needs and its tag
    /// emissions, recorded in `w`.
    fn region(
        &self,
        kind: &Kind<'_>,
        graph: &KindGraph<'_>,
        t: NodeId,
        w: &mut KindWalk,
    ) -> Option<()> {
        let flow = self.value_flow(kind, t, w)?;
        for &q in &flow.members {
            let mut bits = vec![0; self.words];
            for (&b, v) in &flow.vals[&q] {
                if *v == Val::Top {
                    set(&mut bits, b);
                }
            }
            w.d[q.index()] = Some(bits);
        }
        let (facts, parent) = self.single_walks(kind, graph, t, w)?;
        let forked = self.forked(kind, &flow.members, w)?;
        let (multi, progressive) = self.walk_counts(kind, t, &flow.members, w)?;
        let region = self.region_nodes(
            kind,
            graph,
            t,
            &flow.members,
            (&forked, &multi, &progressive),
            w,
        )?;
        let emits = self.tag_emissions(&region, &flow, &facts, w);
        let rev: HashMap<u32, (EdgeId, Vec<u32>)> =
            flow.terms.iter().map(|(k, &v)| (v, k.clone())).collect();
        if emits.len() > 256 {
            self.coarse_emissions(&emits, w);
        } else {
            self.compare_emissions(&emits, &rev, &facts, &parent, graph, w)?;
        }
        for &q in &flow.members {
            w.d[q.index()] = None;
        }
        w.regions.insert(t, region);
        Some(())
    }

    /// Forward data flow of the variables' values over the region of `t`: a value is the same
    /// term in every walk of one scope event (a function of the scope's start state computed by
    /// the same edges), or varies (Top).
    fn value_flow(&self, kind: &Kind<'_>, t: NodeId, w: &mut KindWalk) -> Option<RegionFlow> {
        let mut members: Vec<NodeId> = Vec::new();
        let mut vals: HashMap<NodeId, BTreeMap<usize, Val>> = HashMap::new();
        let mut terms: HashMap<(EdgeId, Vec<u32>), u32> = HashMap::new();
        vals.insert(t, BTreeMap::new());
        members.push(t);
        let mut queue = vec![t];
        while let Some(q) = queue.pop() {
            w.spend(1)?;
            let vq = vals[&q].clone();
            w.work += vq.len() as u64;
            for &e in &self.plan.out[q.index()] {
                if !self.followed(kind, e) {
                    continue;
                }
                let ed = self.game.edge(e);
                if ed.label.is_tag() {
                    continue;
                }
                let nv = self.step(e, &vq, &mut terms);
                let changed = match vals.get_mut(&ed.to) {
                    None => {
                        members.push(ed.to);
                        vals.insert(ed.to, nv);
                        true
                    }
                    Some(old) => join_vals(old, &nv),
                };
                if changed {
                    queue.push(ed.to);
                }
            }
        }
        Some(RegionFlow {
            members,
            vals,
            terms,
        })
    }

    /// The number of followed tag-free edges into `q` from the current region.
    fn single_in(&self, graph: &KindGraph<'_>, q: NodeId, d: &[Option<Vec<u64>>]) -> usize {
        graph
            .preds(q)
            .iter()
            .filter(|&&e| d[self.game.edge(e).from.index()].is_some())
            .count()
    }

    /// The nodes of the current region reached by a single walk from `t`, with the facts of
    /// their variables, and the edge each of them is entered by (a tree from `t`).
    fn single_walks(
        &self,
        kind: &Kind<'_>,
        graph: &KindGraph<'_>,
        t: NodeId,
        w: &mut KindWalk,
    ) -> Option<SingleWalks> {
        let mut facts: HashMap<NodeId, Facts> = HashMap::new();
        let mut parent: HashMap<NodeId, EdgeId> = HashMap::new();
        if !graph.cyclic(t) && self.single_in(graph, t, &w.d) == 0 {
            facts.insert(t, Facts::new());
            let mut stack = vec![t];
            while let Some(m) = stack.pop() {
                w.spend(1)?;
                for &e in &self.plan.out[m.index()] {
                    let ed = self.game.edge(e);
                    if !self.followed(kind, e) || ed.label.is_tag() {
                        continue;
                    }
                    let q = ed.to;
                    if graph.cyclic(q)
                        || facts.contains_key(&q)
                        || self.single_in(graph, q, &w.d) != 1
                    {
                        continue;
                    }
                    let f = self.transfer(e, &facts[&m]);
                    facts.insert(q, f);
                    parent.insert(q, e);
                    stack.push(q);
                }
            }
        }
        Some((facts, parent))
    }

    /// The nodes of the region some fork precedes: a node from which one state can take two
    /// edges (or an any-assignment with two members). Before any fork a scope event is a single
    /// walk.
    fn forked(
        &self,
        kind: &Kind<'_>,
        members: &[NodeId],
        w: &mut KindWalk,
    ) -> Option<HashMap<NodeId, ()>> {
        let mut forked: HashMap<NodeId, ()> = HashMap::new();
        let mut fstack: Vec<NodeId> = Vec::new();
        for &q in members {
            let es: Vec<EdgeId> = self.plan.out[q.index()]
                .iter()
                .copied()
                .filter(|&e| self.followed(kind, e) && !self.game.edge(e).label.is_tag())
                .collect();
            let many_members = es.iter().any(|&e| match self.game.edge(e).label {
                Label::AssignAny { ty, .. } => {
                    let env = rg_core::typeck::TypeEnv::new(self.game);
                    !matches!(env.values(ty), Ok(Some(ms)) if ms.len() <= 1)
                }
                _ => false,
            });
            if many_members || !self.exclusive(q, &es) {
                for &e in &es {
                    let to = self.game.edge(e).to;
                    if forked.insert(to, ()).is_none() {
                        fstack.push(to);
                    }
                }
            }
        }
        while let Some(q) = fstack.pop() {
            w.spend(1)?;
            for &e in &self.plan.out[q.index()] {
                let ed = self.game.edge(e);
                if self.followed(kind, e)
                    && !ed.label.is_tag()
                    && forked.insert(ed.to, ()).is_none()
                {
                    fstack.push(ed.to);
                }
            }
        }
        Some(forked)
    }

    /// Whether `e` is an any-assignment with more than one member (one state takes it several
    /// ways).
    fn many_members(&self, e: EdgeId) -> bool {
        match self.game.edge(e).label {
            Label::AssignAny { ty, .. } => {
                let env = rg_core::typeck::TypeEnv::new(self.game);
                !matches!(env.values(ty), Ok(Some(ms)) if ms.len() <= 1)
            }
            _ => false,
        }
    }

    /// The nodes of the region that more than one walk of a scope event may reach: walks are
    /// counted (0, 1 or more) over the region's strongly connected components, sources first.
    /// A node passes its count along each edge it may take (one for a group of edges to one
    /// node at most one of which a state can take; more for an any-assignment with several
    /// members); a component adds up what enters it (the scope's start counts one) and, when it
    /// is a cycle, keeps a count of one only if every member takes at most one edge (then its
    /// walk goes round deterministically and leaves it at most once).
    fn walk_counts(
        &self,
        kind: &Kind<'_>,
        t: NodeId,
        members: &[NodeId],
        w: &mut KindWalk,
    ) -> Option<(HashMap<NodeId, ()>, HashSet<NodeId>)> {
        let local: HashMap<NodeId, usize> =
            members.iter().enumerate().map(|(i, &q)| (q, i)).collect();
        let k = members.len();
        // Followed tag-free edges out of each member, grouped by target.
        let mut out: Vec<BTreeMap<usize, Vec<EdgeId>>> = vec![BTreeMap::new(); k];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); k];
        let mut deterministic = vec![true; k];
        for (i, &q) in members.iter().enumerate() {
            w.spend(1)?;
            let es: Vec<EdgeId> = self.plan.out[q.index()]
                .iter()
                .copied()
                .filter(|&e| self.followed(kind, e) && !self.game.edge(e).label.is_tag())
                .collect();
            deterministic[i] = self.exclusive(q, &es) && !es.iter().any(|&e| self.many_members(e));
            for &e in &es {
                let Some(&j) = local.get(&self.game.edge(e).to) else {
                    continue;
                };
                out[i].entry(j).or_default().push(e);
                succ[i].push(j);
            }
        }
        let (comp, cyclic, by_comp) = component_members(k, &succ);
        let ncomp = by_comp.len();
        let mut incoming = vec![0u8; ncomp];
        if let Some(&ti) = local.get(&t) {
            incoming[comp[ti]] = 1;
        }
        let mut multi = HashMap::new();
        let mut progressive = HashSet::new();
        // Components complete successors first: sources come last.
        for c in (0..ncomp).rev() {
            let nodes = &by_comp[c];
            let mut n = incoming[c];
            // What each edge leaving the component passes on.
            let mut leave = n;
            if cyclic[nodes[0]] && nodes.iter().any(|&i| !deterministic[i]) && n > 0 {
                // One walk entering a ray once stays one walk, but may leave it every round.
                if n == 1 && self.progressive_cycle(nodes, &comp, &out) {
                    progressive.extend(nodes.iter().map(|&i| members[i]));
                    leave = 2;
                } else {
                    n = 2;
                    leave = 2;
                }
            }
            if n > 1 {
                multi.extend(nodes.iter().map(|&i| (members[i], ())));
            }
            for &i in nodes {
                w.spend(1)?;
                for (&j, es) in &out[i] {
                    if comp[j] == c {
                        continue;
                    }
                    let one_way = es.len() == 1 || self.exclusive(members[i], es);
                    let m = if n > 0 && (es.iter().any(|&e| self.many_members(e)) || !one_way) {
                        2
                    } else {
                        leave
                    };
                    incoming[comp[j]] = incoming[comp[j]].saturating_add(m).min(2);
                }
            }
        }
        Some((multi, progressive))
    }

    /// Whether component `nodes` is a simple cycle (one edge from each member to the next)
    /// whose walk never comes back to a state ([`crate::progress`]).
    fn progressive_cycle(
        &self,
        nodes: &[usize],
        comp: &[usize],
        out: &[BTreeMap<usize, Vec<EdgeId>>],
    ) -> bool {
        let c = comp[nodes[0]];
        let mut cycle = Vec::with_capacity(nodes.len());
        let mut i = nodes[0];
        for _ in 0..nodes.len() {
            let inner: Vec<(&usize, &Vec<EdgeId>)> =
                out[i].iter().filter(|(j, _)| comp[**j] == c).collect();
            let [(j, es)] = inner.as_slice() else {
                return false;
            };
            let [e] = es.as_slice() else {
                return false;
            };
            cycle.push(*e);
            i = **j;
        }
        i == nodes[0] && crate::progress::progressive(self.game, self.layout, &self.stores, &cycle)
    }

    /// The region of `t`: each member's need (a single route into it with an injective action,
    /// or a single walk, needs no check; a cycle of a single walk is a loop), whether a scope
    /// event finishes at most one move, and the tag edges leaving the region.
    fn region_nodes(
        &self,
        kind: &Kind<'_>,
        graph: &KindGraph<'_>,
        t: NodeId,
        members: &[NodeId],
        (forked, multi, progressive): (
            &HashMap<NodeId, ()>,
            &HashMap<NodeId, ()>,
            &HashSet<NodeId>,
        ),
        w: &mut KindWalk,
    ) -> Option<Region> {
        let d = &w.d;
        let mut region = Region {
            nodes: Vec::new(),
            tags: Vec::new(),
            one_move: true,
        };
        let mut work = w.work;
        // Per member, for the reachability relaxation below: the routes into it by source
        // (none for the scope's start), whether they are all injective and whether it is
        // reached by a single walk.
        let mut route_info: Vec<Routes> = Vec::new();
        for &q in members {
            work += 1 + graph.preds(q).len() as u64;
            if work > WORK_BUDGET {
                return None;
            }
            let dq = d[q.index()].clone().expect("in the region");
            // Routes into q within the region.
            let mut by_source: BTreeMap<NodeId, Vec<EdgeId>> = BTreeMap::new();
            for &e in graph.preds(q) {
                let m = self.game.edge(e).from;
                if d[m.index()].is_some() {
                    by_source.entry(m).or_default().push(e);
                }
            }
            let mut routes = usize::from(q == t);
            let mut injective = true;
            // In reachability searches, for `relax_reach_checks`: a step `v = K[v]` whose
            // collisions end at once counts as injective too.
            let mut reach_injective = kind.target.is_some();
            let mut srcs = Vec::new();
            for (&m, es) in &by_source {
                let dm = d[m.index()].as_ref().expect("in the region");
                let identity = es.iter().all(|&e| {
                    matches!(
                        self.game.edge(e).label,
                        Label::Skip | Label::Compare { .. } | Label::Reach { .. }
                    )
                });
                if es.len() == 1
                    || (identity && self.exclusive(m, es))
                    || crate::progress::dead_collisions(
                        self.game,
                        self.layout,
                        &self.stores,
                        &self.plan.out,
                        q,
                        es,
                    )
                {
                    routes += 1;
                    srcs.push((m, 1));
                } else {
                    routes += es.len();
                    srcs.push((m, es.len() as u64));
                }
                injective &= es.iter().all(|&e| self.injective(e, dm));
                reach_injective = reach_injective
                    && es.iter().all(|&e| {
                        self.injective(e, dm)
                            || crate::progress::dead_self_collisions(
                                self.game,
                                self.layout,
                                &self.stores,
                                &self.plan.out,
                                q,
                                e,
                            )
                    });
            }
            // Both are sound: before any fork, or counted once.
            let single_walk = !forked.contains_key(&q) || !multi.contains_key(&q);
            route_info.push(Routes {
                srcs,
                injective: reach_injective,
                single_walk,
            });
            let local = if progressive.contains(&q) {
                Local::Unique // states on a ray are pairwise different
            } else if graph.cyclic(q) {
                if single_walk {
                    Local::Loop
                } else {
                    Local::Check
                }
            } else if (routes == 1 && injective) || single_walk {
                Local::Unique
            } else {
                Local::Check
            };
            region.nodes.push((q, local, dq));
            // Finished moves (move searches): one walk before any fork ends at its first.
            if kind.target.is_none()
                && !self.one_finished_move(q, forked.contains_key(&q) || graph.cyclic(q))
            {
                region.one_move = false;
            }
            for &e in &self.plan.out[q.index()] {
                if self.followed(kind, e) && self.game.edge(e).label.is_tag() {
                    region.tags.push(e);
                }
            }
        }
        w.work = work;
        if kind.target.is_some() && region.tags.is_empty() {
            self.relax_reach_checks(t, &mut region, &route_info);
        }
        Some(region)
    }

    /// In a reachability search, visited-state checks only bound the work: the search answers
    /// whether the target is reached, and a state expanded again (not on a cycle) finds again
    /// what its first expansion found, which was not the target (or the search would have
    /// returned). So a node on no cycle may go unchecked where that multiplies its expansions
    /// by little: every route into it is injective (distinct states of its source stay
    /// distinct) and the routes from checked sources count one each, from unchecked ones as
    /// many as their own factor; the node is unchecked when the sum is at most
    /// [`REACH_FACTOR`]. Then each state is expanded at most that many times (routes carry
    /// distinct states, each at most its source's factor times), and so are its successors'
    /// states through it. Cycles keep their checks (they also keep the walks finite), and so
    /// does a region with a tag edge leaving it (a state expanded again would begin the scope
    /// event after the tag again, multiplying the work of the next region).
    fn relax_reach_checks(&self, t: NodeId, region: &mut Region, route_info: &[Routes]) {
        let k = region.nodes.len();
        let local: HashMap<NodeId, usize> = region
            .nodes
            .iter()
            .enumerate()
            .map(|(i, &(q, _, _))| (q, i))
            .collect();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); k];
        for (i, r) in route_info.iter().enumerate() {
            for &(m, _) in &r.srcs {
                if let Some(&j) = local.get(&m) {
                    succ[j].push(i);
                }
            }
        }
        let (_, cyclic, by_comp) = component_members(k, &succ);
        let ncomp = by_comp.len();
        // Expansions per distinct state, relative to a checked search (sources first). A
        // counted check (`Loop`) lets up to `LOOP_LIMIT` visits through.
        let mut factor: Vec<u64> = region
            .nodes
            .iter()
            .map(|(_, l, _)| if *l == Local::Loop { REACH_FACTOR } else { 1 })
            .collect();
        for c in (0..ncomp).rev() {
            let [i] = by_comp[c].as_slice() else {
                continue; // a cycle: checked
            };
            let i = *i;
            if cyclic[i] {
                continue;
            }
            let Routes {
                srcs,
                injective,
                single_walk,
            } = &route_info[i];
            let (q, l, _) = &region.nodes[i];
            if *single_walk || *q == t {
                continue; // one walk: factor one, checked or not
            }
            let mut sum = 0u64;
            for &(m, r) in srcs {
                let f = local.get(&m).map_or(1, |&j| factor[j]);
                sum = sum.saturating_add(r.saturating_mul(f));
            }
            match l {
                Local::Unique => factor[i] = sum.max(1),
                Local::Check if *injective && sum <= REACH_FACTOR => {
                    region.nodes[i].1 = Local::Unique;
                    factor[i] = sum.max(1);
                }
                _ => {}
            }
        }
    }

    /// Whether a walk at `q` (after a fork or on a cycle when `several`) finishes at most one
    /// move there: no finished move, or a single edge (or a covering `@disjoint`) assigning
    /// `player` one member.
    fn one_finished_move(&self, q: NodeId, several: bool) -> bool {
        let fin: Vec<EdgeId> = self.plan.out[q.index()]
            .iter()
            .copied()
            .filter(|&e| assigns_player(self.game, &self.game.edge(e).label))
            .collect();
        if fin.is_empty() {
            return true;
        }
        let one_member = fin.iter().all(|&e| match self.game.edge(e).label {
            Label::AssignAny { ty, .. } => {
                let env = rg_core::typeck::TypeEnv::new(self.game);
                matches!(env.values(ty), Ok(Some(ms)) if ms.len() == 1)
            }
            _ => true,
        });
        let outs = self.plan.out[q.index()].len();
        let alone = outs == 1 || (!self.ignore_pragmas && self.plan.disjoint[q.index()].is_some());
        !(several || !one_member || !alone)
    }

    /// What each tag edge of the region emits. A tag whose source states may differ where its
    /// symbols are equal (different states at the source must emit different symbols) makes
    /// the scope it enters possibly shared (`collide`).
    fn tag_emissions(
        &self,
        region: &Region,
        flow: &RegionFlow,
        facts: &HashMap<NodeId, Facts>,
        w: &mut KindWalk,
    ) -> Vec<(EdgeId, Emit)> {
        let mut emits: Vec<(EdgeId, Emit)> = Vec::new();
        for &e in &region.tags {
            let ed = self.game.edge(e);
            let dm = w.d[ed.from.index()].as_ref().expect("in the region");
            let emit = match ed.label {
                Label::Tag(s) => Emit::Sym(s),
                Label::TagVar(v) => {
                    let var = self.layout.var_by_name.get(&v).copied();
                    let class = var.map_or(0, |i| self.layout.vars[i].shape.leaf());
                    match var.and_then(|i| self.bit_of[i]) {
                        Some(b) => match flow.vals[&ed.from].get(&b).copied() {
                            Some(Val::Top) => Emit::Top(class),
                            Some(Val::Term(t)) => Emit::Term(t, class),
                            None => Emit::Term(b as u32, class),
                        },
                        None => Emit::Top(class),
                    }
                }
                _ => continue,
            };
            let ok_a = match ed.label {
                Label::TagVar(v) => self.tag_determines_state(v, ed.from, dm, facts),
                _ => dm.iter().all(|&b| b == 0),
            };
            if !ok_a {
                w.edge_pairs.insert((e, e));
                w.partners.insert(pair(ed.to, ed.to));
                w.collide
                    .entry(e)
                    .or_insert(Collide::Never)
                    .add(Collide::Always);
            }
            emits.push((e, emit));
        }
        emits
    }

    /// Whether the value of tag variable `v` determines the state at `m` (whose varying
    /// variables are `dm`): only `v` varies, or every state at `m` is a function of one
    /// origin that `v` is an injective function of.
    fn tag_determines_state(
        &self,
        v: Symbol,
        m: NodeId,
        dm: &[u64],
        facts: &HashMap<NodeId, Facts>,
    ) -> bool {
        let allowed = self
            .layout
            .var_by_name
            .get(&v)
            .and_then(|&i| self.bit_of[i]);
        let only_v = dm.iter().enumerate().all(|(w, &bits)| {
            let mask = match allowed {
                Some(b) if b / 64 == w => !(1u64 << (b % 64)),
                _ => !0,
            };
            bits & mask == 0
        });
        // Or every state at m is a function of one origin that v determines.
        let determined = || {
            let (Some(vb), Some(f)) = (allowed, facts.get(&m)) else {
                return false;
            };
            let Some(p) = f.get(&vb).and_then(|x| x.inj) else {
                return false;
            };
            (0..self.var_of_bit.len())
                .filter(|&u| has(dm, u) && u != vb)
                .all(|u| f.get(&u).is_some_and(|x| x.deps.iter().all(|&o| o == p)))
        };
        only_v || determined()
    }

    /// Too many emissions to compare pairwise: only symbol tags are told apart.
    fn coarse_emissions(&self, emits: &[(EdgeId, Emit)], w: &mut KindWalk) {
        w.coarse = true;
        let mut count: HashMap<Symbol, usize> = HashMap::new();
        for (_, em) in emits {
            if let Emit::Sym(s) = em {
                *count.entry(*s).or_default() += 1;
            }
        }
        for (e, em) in emits {
            let to = self.game.edge(*e).to;
            if !matches!(em, Emit::Sym(s) if count[s] <= 1) {
                w.partners.insert(pair(to, to));
                for (f, fm) in emits {
                    if f != e && !matches!(fm, Emit::Sym(s) if count[s] <= 1) {
                        w.partners.insert(pair(to, self.game.edge(*f).to));
                    }
                }
            }
            let c = match em {
                Emit::Sym(s) if count[s] <= 1 => Collide::Never,
                Emit::Sym(s) => Collide::syms([*s].into()),
                _ => Collide::Always,
            };
            w.collide.entry(*e).or_insert(Collide::Never).add(c);
        }
    }

    /// No two tag edges may emit one symbol in one scope event: every pair that may makes the
    /// scopes they enter partners, with the symbols they share (`collide`).
    fn compare_emissions(
        &self,
        emits: &[(EdgeId, Emit)],
        rev: &HashMap<u32, (EdgeId, Vec<u32>)>,
        facts: &HashMap<NodeId, Facts>,
        parent: &HashMap<NodeId, EdgeId>,
        graph: &KindGraph<'_>,
        w: &mut KindWalk,
    ) -> Option<()> {
        let mut chains = Vec::with_capacity(emits.len());
        for (e, _) in emits {
            chains.push(self.chain_to(*e, graph, w)?);
        }
        for i in 0..emits.len() {
            for j in i + 1..emits.len() {
                w.spend(1)?;
                let d = &w.d;
                if self.exclusive_emissions(emits[i].0, emits[j].0, facts, parent, |q| {
                    d[q.index()].clone().unwrap_or_default()
                }) || self
                    .exclusive_branches(emits[i].0, emits[j].0, &chains[i], &chains[j], graph, d)
                {
                    continue;
                }
                let va = d[self.game.edge(emits[i].0).from.index()]
                    .clone()
                    .unwrap_or_default();
                let vb = d[self.game.edge(emits[j].0).from.index()]
                    .clone()
                    .unwrap_or_default();
                let (ca, cb) = self.collision(&emits[i].1, &emits[j].1, rev, &va, &vb);
                if ca != Collide::Never || cb != Collide::Never {
                    w.edge_pairs
                        .insert((emits[i].0.min(emits[j].0), emits[i].0.max(emits[j].0)));
                    w.partners.insert(pair(
                        self.game.edge(emits[i].0).to,
                        self.game.edge(emits[j].0).to,
                    ));
                    w.collide
                        .entry(emits[i].0)
                        .or_insert(Collide::Never)
                        .add(ca);
                    w.collide
                        .entry(emits[j].0)
                        .or_insert(Collide::Never)
                        .add(cb);
                }
            }
        }
        Some(())
    }

    /// Scopes whose events may have the same tags come in pairs: two emissions of one scope
    /// event that may emit one symbol, and, below two such scopes, tag edges of theirs that may
    /// emit one symbol (a tag edge of a scope paired with itself included). Closes
    /// `w.partners` under the second rule and returns the tag edges that inherit the
    /// nondeterminism of their scope.
    fn inherit(&self, w: &mut KindWalk) -> Option<BTreeSet<EdgeId>> {
        let symbols = |e: EdgeId| self.tag_symbols(e);
        let meet = |a: &[Symbol], b: &[Symbol]| sorted_meet(a, b);
        let mut inherit: BTreeSet<EdgeId> = BTreeSet::new();
        let mut queue: Vec<(NodeId, NodeId)> = w.partners.iter().copied().collect();
        while let Some((t1, t2)) = queue.pop() {
            let (Some(r1), Some(r2)) = (w.regions.get(&t1), w.regions.get(&t2)) else {
                continue;
            };
            for &f in &r1.tags {
                let sf = symbols(f);
                for &g in &r2.tags {
                    w.work += 1;
                    if w.work > WORK_BUDGET {
                        return None;
                    }
                    if (f == g && !sf.is_empty()) || meet(&sf, &symbols(g)) {
                        inherit.insert(f);
                        inherit.insert(g);
                        let p = pair(self.game.edge(f).to, self.game.edge(g).to);
                        if w.partners.insert(p) {
                            queue.push(p);
                        }
                    }
                }
            }
        }
        Some(inherit)
    }

    /// The symbols tag edge `e` can emit, sorted (none for other edges).
    fn tag_symbols(&self, e: EdgeId) -> Vec<Symbol> {
        match self.game.edge(e).label {
            Label::Tag(s) => vec![s],
            Label::TagVar(v) => match self.layout.var_by_name.get(&v) {
                Some(&i) => {
                    let mut m = self.layout.classes[self.layout.vars[i].shape.leaf()]
                        .members
                        .clone();
                    m.sort_unstable();
                    m
                }
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Whether two scope events that tag edges `e1` and `e2` of one scope event begin with
    /// the same tags can never meet, so neither needs the other's visited states: they start
    /// at different nodes whose regions share no node (no state of one is at a node of the
    /// other), neither region finishes a move (no move of one can equal a move of the other),
    /// and no tag edge leaving one region can emit a symbol one leaving the other can (their
    /// scope events below have different tags).
    fn apart(&self, e1: EdgeId, e2: EdgeId, w: &mut KindWalk) -> Option<bool> {
        let (t1, t2) = (self.game.edge(e1).to, self.game.edge(e2).to);
        if t1 == t2 {
            return Some(false);
        }
        let (Some(r1), Some(r2)) = (w.regions.get(&t1), w.regions.get(&t2)) else {
            return Some(false);
        };
        let finishes = |r: &Region| {
            r.nodes.iter().any(|(q, _, _)| {
                self.plan.out[q.index()]
                    .iter()
                    .any(|&o| assigns_player(self.game, &self.game.edge(o).label))
            })
        };
        if finishes(r1) || finishes(r2) {
            return Some(false);
        }
        let n1: HashSet<NodeId> = r1.nodes.iter().map(|(q, _, _)| *q).collect();
        if r2.nodes.iter().any(|(q, _, _)| n1.contains(q)) {
            return Some(false);
        }
        let tags1 = r1.tags.clone();
        let syms2: Vec<Vec<Symbol>> = r2.tags.iter().map(|&g| self.tag_symbols(g)).collect();
        for &f in &tags1 {
            let sf = self.tag_symbols(f);
            for sg in &syms2 {
                w.spend(1)?;
                if sorted_meet(&sf, sg) {
                    return Some(false);
                }
            }
        }
        Some(true)
    }

    /// The tag edges of a move search whose emissions are compared at run time (see
    /// [`KindChecks::optimistic`]): both edges of every pair that may emit one symbol in one
    /// scope event, except pairs whose scope events, when they do, never meet ([`Self::apart`]).
    /// `None` when some region's emissions were not compared pairwise.
    fn optimistic_edges(&self, w: &mut KindWalk) -> Option<Option<BTreeSet<EdgeId>>> {
        if w.coarse {
            return Some(None);
        }
        let mut edges = BTreeSet::new();
        for (e1, e2) in w.edge_pairs.clone() {
            if e1 != e2 && self.apart(e1, e2, w)? {
                continue;
            }
            edges.insert(e1);
            edges.insert(e2);
        }
        Some(Some(edges))
    }

    /// Combines the regions' findings per node: the check each node needs over all regions
    /// containing it, which nodes are in shared scopes, and the single-move starts.
    fn decide(
        &self,
        kind: &Kind<'_>,
        w: KindWalk,
        inherit: BTreeSet<EdgeId>,
        optimistic: Option<BTreeSet<EdgeId>>,
    ) -> KindResult {
        let n = kind.len();
        let shared: BTreeSet<NodeId> = w.partners.iter().flat_map(|&(a, b)| [a, b]).collect();
        let mut acc = vec![Acc::Unvisited; n];
        let mut single = Vec::new();
        let mut nondet = vec![false; n];
        let mut distinct = shared.is_empty();
        for (t, r) in &w.regions {
            distinct &= r.one_move;
            if kind.starts.contains(t) && r.one_move && r.tags.is_empty() {
                single.push(*t);
            }
            let is_shared = shared.contains(t);
            for (q, local, dq) in &r.nodes {
                let q = kind.local(*q).expect("region nodes are nodes of the kind");
                if is_shared {
                    nondet[q] = true;
                }
                let union = |mut v: Vec<u64>| {
                    v.iter_mut().zip(dq).for_each(|(x, y)| *x |= y);
                    v
                };
                let a = &mut acc[q];
                *a = match (std::mem::replace(a, Acc::Unvisited), local) {
                    (Acc::Full, _) => Acc::Full,
                    (Acc::Unvisited | Acc::None, Local::Unique) => Acc::None,
                    (Acc::Unvisited | Acc::None, Local::Loop) => Acc::Loop(dq.clone()),
                    (Acc::Unvisited | Acc::None, Local::Check) => Acc::Scoped(dq.clone()),
                    (Acc::Loop(v), Local::Unique) => Acc::Loop(v),
                    (Acc::Loop(v), Local::Loop) => Acc::Loop(union(v)),
                    (Acc::Loop(v) | Acc::Scoped(v), Local::Check) => Acc::Scoped(union(v)),
                    (Acc::Scoped(v), Local::Unique) => Acc::Scoped(v),
                    (Acc::Scoped(v), Local::Loop) => Acc::Scoped(union(v)),
                };
            }
        }
        KindResult {
            single,
            acc,
            nondet,
            collide: w.collide,
            inherit,
            distinct,
            optimistic,
        }
    }

    /// Turns an accumulated decision into a check, allocating stamp tables.
    fn check(&self, q: usize, acc: &Acc, slots: &mut u64) -> Check {
        if !self.ignore_pragmas && self.plan.visit[q] == Visit::None {
            return Check::None; // a trusted @unique
        }
        let vars_of = |bits: &[u64]| -> Vec<usize> {
            (0..self.var_of_bit.len())
                .filter(|&b| has(bits, b))
                .map(|b| self.var_of_bit[b])
                .filter(|&v| self.layout.vars[v].width > 0)
                .collect()
        };
        match acc {
            Acc::Unvisited | Acc::Full => Check::Full,
            Acc::None => Check::None,
            Acc::Loop(bits) if *slots + 2 <= MAX_STAMP_TOTAL => {
                let base = *slots;
                *slots += 2;
                Check::Loop {
                    vars: vars_of(bits),
                    base,
                }
            }
            Acc::Loop(bits) | Acc::Scoped(bits) => {
                let vars: Vec<usize> = (0..self.var_of_bit.len())
                    .filter(|&b| has(bits, b))
                    .map(|b| self.var_of_bit[b])
                    .filter(|&v| self.layout.vars[v].width > 0)
                    .collect();
                let scalar = vars
                    .iter()
                    .all(|&v| matches!(self.layout.vars[v].shape, Shape::Scalar(_)));
                let mut size = 1u64;
                let mut radix = Vec::new();
                for &v in &vars {
                    radix.push(size);
                    let class = self.layout.vars[v].shape.leaf();
                    size = size.saturating_mul(self.layout.classes[class].len().max(1));
                }
                if scalar && size <= MAX_STAMP_SLOTS && *slots + size <= MAX_STAMP_TOTAL {
                    let base = *slots;
                    *slots += size;
                    Check::Stamp { vars, radix, base }
                } else {
                    Check::Scoped { vars }
                }
            }
        }
    }
}

/// Decides the check of every node function of the plan.
pub(crate) fn analyse(
    game: &Game,
    layout: &Layout,
    plan: &SearchPlan,
    ignore_pragmas: bool,
) -> Visits {
    let a = Analysis::new(game, layout, plan, ignore_pragmas);
    let n = game.node_capacity();
    let mut slots = 0u64;

    // Move searches.
    let mut starts = Vec::new();
    if let Some(b) = game.begin() {
        starts.push(b);
    }
    for (_, e) in game.edges() {
        if assigns_player(game, &e.label) && plan.moves[e.to.index()] {
            starts.push(e.to);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let kind = Kind {
        nodes: Nodes::All(&plan.moves),
        target: None,
        starts,
    };
    let to_checks = |r: Option<KindResult>,
                     kind: &Kind<'_>,
                     slots: &mut u64,
                     reach: bool|
     -> (KindChecks, bool, Vec<NodeId>) {
        let members = kind.members();
        match r {
            Some(r) => (
                KindChecks {
                    det: members
                        .iter()
                        .map(|&node| {
                            let (q, l) = (node.index(), kind.local(node).expect("a member"));
                            let c = match a.check(q, &r.acc[l], slots) {
                                // In reachability searches a costly key is counted first.
                                Check::Scoped { .. } if reach => match &r.acc[l] {
                                    Acc::Scoped(bits) => {
                                        a.check(q, &Acc::Loop(bits.clone()), slots)
                                    }
                                    _ => unreachable!("a scoped check comes from a scoped need"),
                                },
                                c => c,
                            };
                            (q, c)
                        })
                        .collect(),
                    nondet: members
                        .iter()
                        .filter(|&&q| r.nondet[kind.local(q).expect("a member")])
                        .map(|q| q.index())
                        .collect(),
                    collide: r.collide,
                    inherit: r.inherit,
                    optimistic: r.optimistic,
                },
                r.distinct,
                r.single,
            ),
            None => (
                KindChecks {
                    det: members
                        .iter()
                        .map(|q| (q.index(), a.check(q.index(), &Acc::Full, slots)))
                        .collect(),
                    nondet: BTreeSet::new(),
                    collide: BTreeMap::new(),
                    inherit: BTreeSet::new(),
                    optimistic: None,
                },
                false,
                Vec::new(),
            ),
        }
    };
    // The table of varying variables, shared by all kinds.
    let mut d: Vec<Option<Vec<u64>>> = vec![None; n];
    let mut spent = 0u64;
    let (moves, distinct_move_tags, single) =
        to_checks(a.kind(&kind, &mut d, &mut spent), &kind, &mut slots, false);
    let mut single_move = vec![false; n];
    for q in single {
        single_move[q.index()] = true;
    }

    // Reachability searches, per target.
    let mut froms: BTreeMap<NodeId, Vec<NodeId>> = BTreeMap::new();
    for (_, e) in game.edges() {
        if let Label::Reach { from, to, .. } = e.label
            && from != to
            && plan.in_reach(to, from)
        {
            froms.entry(to).or_default().push(from);
        }
    }
    let mut reach = BTreeMap::new();
    for (b, nodes) in &plan.reach {
        let mut starts = froms.get(b).cloned().unwrap_or_default();
        starts.sort_unstable();
        starts.dedup();
        let kind = Kind {
            nodes: Nodes::Set(nodes),
            target: Some(*b),
            starts,
        };
        let r = if spent <= TOTAL_WORK_BUDGET {
            a.kind(&kind, &mut d, &mut spent)
        } else {
            None
        };
        reach.insert(*b, to_checks(r, &kind, &mut slots, true).0);
    }
    Visits {
        moves,
        reach,
        stamp_slots: slots,
        distinct_move_tags,
        single_move,
    }
}
