//! The flat runtime form of a game (compiled once, then shared by every search).
//!
//! * Symbols are the game's own symbol ids (`u32`).
//! * A game state is one `u32` slice: every variable in a fixed slot range. An element takes one
//!   slot (its symbol). A map `K -> V` with `n = |K|` keys takes `size(V) + n * (1 + size(V))`
//!   slots: its default value, then per key (in `K`'s order) a *present* flag and the entry's
//!   value; an absent entry holds a copy of the default. This keeps the reference's runtime
//!   values exactly (a map value records which keys are listed, even with the default
//!   value): `{ a: 0, :0 }` (present flag set) differs from `{ :0 }`, and
//!   comparing two values of one layout is comparing their slots.
//! * Ordinary variables come first and `goals`, `player`, `visible` last, so the values that
//!   take part in the visited-state check (a search expands a node only once per tag sequence
//!   and ordinary-variable values) are a prefix of the state.

use crate::error::CompileError;
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, PragmaKind, Symbol, TypeId};
use rg_core::{NodeId, Span, ValueData, ValueId};
use std::collections::HashMap;

/// "No index": a symbol outside a domain.
pub(crate) const NONE: u32 = u32::MAX;

/// The key set of a map type: its members in order and a symbol → position table.
#[derive(Clone, Debug)]
pub(crate) struct Domain {
    pub members: Vec<u32>,
    index: Vec<u32>,
}

impl Domain {
    fn new(members: &[Symbol]) -> Self {
        let max = members.iter().map(|s| s.index() + 1).max().unwrap_or(0);
        let mut index = vec![NONE; max];
        let mut list = Vec::with_capacity(members.len());
        for s in members {
            if index[s.index()] == NONE {
                index[s.index()] = list.len() as u32;
                list.push(s.0);
            }
        }
        Domain {
            members: list,
            index,
        }
    }

    /// The position of `sym`, or [`NONE`].
    #[inline]
    pub fn position(&self, sym: u32) -> u32 {
        self.index.get(sym as usize).copied().unwrap_or(NONE)
    }
}

/// The shape of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Layout {
    Elem,
    Map { dom: u32, val: u32 },
}

/// Where a value lives while an expression is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    State(u32),
    Const(u32),
    Sym(u32),
}

/// Where the entries of the maps of one layout are: `Program::shifts[tab + k]` is the offset of
/// key `k`'s entry from the map's start, `NONE` for a symbol outside the domain (then the
/// default, at offset 0, is read). One table read per access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shifts {
    pub tab: u32,
    pub len: u32,
}

/// One instruction of flat expression code. Code is postfix and runs with one accumulator
/// place; a key that is itself an access is evaluated first and parked on a small stack, so the
/// evaluation order (and so which error comes first) is the reference's: key, then map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// The accumulator becomes this place.
    Load(Place),
    /// The accumulator (a map) is accessed at the element read from `key`.
    Index { key: Place, at: Shifts },
    /// The map at `map` is accessed at the element in the accumulator (`m[k]` with `m` a
    /// variable or constant and `k` computed: no key stack needed).
    Lookup { map: Place, at: Shifts },
    /// The element in the accumulator is pushed on the key stack.
    SaveKey,
    /// The accumulator (a map) is accessed at the key popped from the key stack.
    IndexSaved { at: Shifts },
}

/// A compiled expression: the common shapes resolved at compile time, so evaluating them is a
/// few array reads; anything else is flat code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    /// A variable, a constant or a literal symbol.
    Place(Place),
    /// `m[k]` with `m` a variable or constant and `k` a variable, constant or symbol.
    Index { map: Place, key: Place, at: Shifts },
    /// `Program::code[start..end]`.
    Code { start: u32, end: u32 },
}

/// The left side of an assignment: a variable and the keys of the accesses into it.
#[derive(Clone, Debug)]
pub(crate) struct LPath {
    pub root: u32,
    /// Per access, outermost first: key, domain, size of the map's values.
    pub steps: Box<[(Expr, u32, u32)]>,
    /// Size of the stored value.
    pub size: u32,
    /// Layout of the stored value.
    pub layout: u32,
    /// For strict mode: the set type of the location (an index into `Program::sets`), when it
    /// is an element.
    pub check: Option<u32>,
}

/// A compiled edge label.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    Skip,
    Tag(u32),
    TagVar(u32),
    Assign {
        lhs: LPath,
        rhs: Expr,
        player: bool,
    },
    AssignAny {
        lhs: LPath,
        members: Vec<u32>,
        player: bool,
    },
    Compare {
        lhs: Expr,
        rhs: Expr,
        /// Slots compared; `None` when the shapes differ (never equal).
        size: Option<u32>,
        negated: bool,
    },
    Reach {
        from: u32,
        to: u32,
        negated: bool,
        /// Another edge of the same node checks the same pair (`? from -> to` or its
        /// negation): the search keeps the answer for it ([`shared_checks`]).
        shared: bool,
        /// The number of the pair `(from, to)` in [`Program::pairs`].
        pair: u32,
    },
}

/// A compiled edge.
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub target: u32,
    pub action: Action,
    pub id: EdgeId,
}

/// Per-node facts used by the search.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    pub first_edge: u32,
    pub end_edge: u32,
    /// `@unique`: never subject to the visited-state check.
    pub unique: bool,
    /// `@repeat`: the slot ranges compared by the visited-state check (index into `repeats`).
    pub repeat: Option<u32>,
    /// A covering `@disjoint`: stop after the first edge that succeeds.
    pub disjoint: bool,
    /// When every edge compares the same variable with a value (`x == a`): an index into
    /// `Program::switches`, so the search goes straight to the edges whose value the variable
    /// holds instead of evaluating every comparison.
    pub switch: Option<u32>,
}

/// The edges of a node that only compares one variable with values ([`Node::switch`]): the
/// slot of the variable and `(value, edge)` for every edge, sorted (so the edges of one value
/// are in their order in the node).
#[derive(Clone, Debug)]
pub(crate) struct Switch {
    pub slot: u32,
    pub cases: Vec<(u32, u32)>,
}

/// Marks the reachability checks of a node that another of its edges checks too (`shared`):
/// only their answers need keeping for the node's other edges, the others are asked once.
fn shared_checks(nodes: &[Node], edges: &mut [Edge]) {
    let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
    for nd in nodes {
        pairs.clear();
        for ei in nd.first_edge..nd.end_edge {
            if let Action::Reach { from, to, .. } = edges[ei as usize].action {
                pairs.push((from, to, ei));
            }
        }
        if pairs.len() < 2 {
            continue;
        }
        pairs.sort_unstable();
        for w in pairs.windows(2) {
            if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
                for ei in [w[0].2, w[1].2] {
                    if let Action::Reach { shared, .. } = &mut edges[ei as usize].action {
                        *shared = true;
                    }
                }
            }
        }
    }
}

/// Numbers the pairs `(from, to)` of the reachability checks, in edge order; returns them.
fn number_pairs(edges: &mut [Edge]) -> Vec<(u32, u32)> {
    let mut ids: HashMap<(u32, u32), u32> = HashMap::new();
    let mut pairs = Vec::new();
    for e in edges {
        if let Action::Reach { from, to, pair, .. } = &mut e.action {
            *pair = *ids.entry((*from, *to)).or_insert_with(|| {
                pairs.push((*from, *to));
                pairs.len() as u32 - 1
            });
        }
    }
    pairs
}

/// Slot ranges `(start, length)` sorted by start, overlapping or adjacent ones merged, empty
/// ones dropped: the same slots, so membership is a binary search ([`in_ranges`]).
fn merge_ranges(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.retain(|r| r.1 > 0);
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (o, n) in ranges {
        match out.last_mut() {
            Some(last) if o <= last.0 + last.1 => last.1 = last.1.max(o + n - last.0),
            _ => out.push((o, n)),
        }
    }
    out
}

/// Whether `slot` is in one of `ranges` (sorted and disjoint, as [`merge_ranges`] makes them).
#[inline]
pub(crate) fn in_ranges(ranges: &[(u32, u32)], slot: u32) -> bool {
    let i = ranges.partition_point(|&(o, _)| o <= slot);
    i > 0 && slot - ranges[i - 1].0 < ranges[i - 1].1
}

/// Nodes with fewer edges than this are searched edge by edge (an index does not pay).
const SWITCH_MIN_EDGES: u32 = 4;

/// `(slot, value)` when `a` is `x == v` with `x` a variable and `v` a symbol or a constant
/// holding one (either way round).
fn case_of(a: &Action, consts: &[u32]) -> Option<(u32, u32)> {
    let Action::Compare {
        lhs: Expr::Place(l),
        rhs: Expr::Place(r),
        size: Some(1),
        negated: false,
    } = a
    else {
        return None;
    };
    let value = |pl: &Place| match *pl {
        Place::Sym(s) => Some(s),
        Place::Const(o) => consts.get(o as usize).copied(),
        Place::State(_) => None,
    };
    match (l, r) {
        (Place::State(s), v) | (v, Place::State(s)) => Some((*s, value(v)?)),
        _ => None,
    }
}

/// Indexes the nodes whose edges all compare one variable with values ([`Node::switch`]).
fn switches(nodes: &mut [Node], edges: &[Edge], consts: &[u32]) -> Vec<Switch> {
    let mut out = Vec::new();
    for nd in nodes.iter_mut() {
        if nd.end_edge - nd.first_edge < SWITCH_MIN_EDGES {
            continue;
        }
        let mut slot = None;
        let mut cases = Vec::with_capacity((nd.end_edge - nd.first_edge) as usize);
        for ei in nd.first_edge..nd.end_edge {
            match case_of(&edges[ei as usize].action, consts) {
                Some((s, v)) if slot.is_none_or(|x| x == s) => {
                    slot = Some(s);
                    cases.push((v, ei));
                }
                _ => {
                    slot = None;
                    break;
                }
            }
        }
        if let Some(slot) = slot {
            cases.sort_unstable();
            nd.switch = Some(out.len() as u32);
            out.push(Switch { slot, cases });
        }
    }
    out
}

/// Options of compilation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Ignore `@disjoint`, `@unique` and `@repeat` (the reference trusts them; a wrong pragma
    /// then changes results, which comparing with this mode reveals).
    pub ignore_pragmas: bool,
    /// Compare every variable in the visited-state check, `goals`, `player` and `visible`
    /// included (and ignore `@unique`/`@repeat`, which name ordinary variables only). Walks that
    /// differ only in those are then not merged, so two moves with the same tags that lead to
    /// different states are both listed: what a check of move unambiguity (a condition of proper
    /// games) needs to see. Not the reference's semantics: only for such checks.
    pub compare_every_variable: bool,
    /// The work one search may do (`--search-limit`; `None`: [`DEFAULT_SEARCH_LIMIT`]), see
    /// [`SearchLimit`].
    pub search_limit: Option<u64>,
}

/// The default of [`CompileOptions::search_limit`].
pub const DEFAULT_SEARCH_LIMIT: u64 = 1_000_000_000;

/// How much work one search (the legal moves of one state, with the reachability checks it
/// runs) may do before it stops with a run-time error ([`crate::Fault::SearchLimit`]): the
/// steps it takes (an edge evaluated from an expanded state, or one value of an `x = T(*)`
/// assignment), and the words (4 bytes) it holds — the moves found, the pending states, the
/// current path, the visited-state sets — as counted by the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimit {
    /// The `--search-limit` value the limits are made from.
    pub option: u64,
    pub steps: u64,
    pub words: u64,
}

impl SearchLimit {
    /// The limits that `--search-limit N` sets: `N` steps and `N / 4` words (N bytes).
    pub fn new(n: u64) -> Self {
        SearchLimit {
            option: n,
            steps: n,
            words: n / 4,
        }
    }
}

impl Default for SearchLimit {
    fn default() -> Self {
        SearchLimit::new(DEFAULT_SEARCH_LIMIT)
    }
}

/// A game in runtime form.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) domains: Vec<Domain>,
    pub(crate) layouts: Vec<Layout>,
    pub(crate) sizes: Vec<u32>,
    /// Set types used by strict-mode membership checks.
    pub(crate) sets: Vec<(Domain, String)>,
    pub(crate) consts: Vec<u32>,
    pub(crate) init: Vec<u32>,
    /// Slots of the ordinary variables (a prefix of the state).
    pub(crate) ordinary: u32,
    pub(crate) player: u32,
    pub(crate) goals: Option<(u32, u32)>,
    pub(crate) keeper: u32,
    pub(crate) random: u32,
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    /// The slots each `@repeat` compares: `(start, length)` ranges, sorted and disjoint.
    pub(crate) repeats: Vec<Vec<(u32, u32)>>,
    /// The indexed nodes' edges ([`Node::switch`]).
    pub(crate) switches: Vec<Switch>,
    /// Flat code of the expressions that are not simple ([`Expr::Code`]).
    pub(crate) code: Vec<Op>,
    /// Entry offsets of map layouts ([`Shifts`]).
    pub(crate) shifts: Vec<u32>,
    pub(crate) begin: u32,
    pub(crate) end: u32,
    /// Symbol names (for output and errors).
    pub(crate) names: Vec<String>,
    /// Node names, by node index.
    pub(crate) node_names: Vec<String>,
    /// Symbols that may appear in a path: node names, symbols of values and tags of the game.
    pub(crate) path_symbols: HashMap<String, u32>,
    pub(crate) edge_texts: HashMap<EdgeId, (String, Option<Span>)>,
    /// The work one search may do.
    pub(crate) search_limit: SearchLimit,
    /// The distinct pairs `(from, to)` of the reachability checks ([`Action::Reach::pair`]).
    pub(crate) pairs: Vec<(u32, u32)>,
    /// The first slot of every variable, in increasing order, then the state's size: the slots
    /// of the variable holding slot `s` are those from the last start `<= s` to the next one.
    pub(crate) var_starts: Vec<u32>,
}

struct Builder<'g> {
    game: &'g Game,
    env: TypeEnv<'g>,
    layouts: Vec<Layout>,
    layout_ids: HashMap<Layout, u32>,
    sizes: Vec<u32>,
    domains: Vec<Domain>,
    domain_ids: HashMap<Vec<u32>, u32>,
    sets: Vec<(Domain, String)>,
    set_ids: HashMap<TypeId, u32>,
    /// Constants by name: offset and layout.
    consts: HashMap<Symbol, (u32, u32)>,
    const_slots: Vec<u32>,
    /// Variables by name: offset and layout.
    vars: HashMap<Symbol, (u32, u32)>,
    /// The first slot of every variable, in increasing order.
    var_starts: Vec<u32>,
    /// Flat code of the expressions that are not simple.
    code: Vec<Op>,
    /// Entry offsets of map layouts ([`Shifts`]), by domain and value layout.
    shifts: Vec<u32>,
    shift_ids: HashMap<(u32, u32), Shifts>,
}

const ELEM: u32 = 0;

impl<'g> Builder<'g> {
    fn layout_id(&mut self, l: Layout) -> u32 {
        if let Some(&id) = self.layout_ids.get(&l) {
            return id;
        }
        let size = match l {
            Layout::Elem => 1,
            Layout::Map { dom, val } => {
                let v = self.sizes[val as usize];
                let n = self.domains[dom as usize].members.len() as u32;
                v.saturating_add(n.saturating_mul(v.saturating_add(1)))
            }
        };
        let id = self.layouts.len() as u32;
        self.layouts.push(l);
        self.sizes.push(size);
        self.layout_ids.insert(l, id);
        id
    }

    fn domain_id(&mut self, members: &[Symbol]) -> u32 {
        let key: Vec<u32> = members.iter().map(|s| s.0).collect();
        if let Some(&id) = self.domain_ids.get(&key) {
            return id;
        }
        let id = self.domains.len() as u32;
        self.domains.push(Domain::new(members));
        self.domain_ids.insert(key, id);
        id
    }

    fn type_text(&self, t: TypeId) -> String {
        rg_core::print::print_type(self.game, t)
    }

    /// The layout of a declared type.
    fn layout_of(&mut self, t: TypeId, span: Option<Span>) -> Result<u32, CompileError> {
        let resolved = self.env.resolve(t).map_err(|_| {
            CompileError::at(
                format!("type `{}` cannot be resolved", self.type_text(t)),
                span,
            )
        })?;
        match resolved {
            Resolved::Set(_) => Ok(ELEM),
            Resolved::Arrow(k, v) => {
                let dom = match self.env.resolve(k) {
                    Ok(Resolved::Set(ms)) => self.domain_id(ms.as_slice()),
                    _ => {
                        return Err(CompileError::at(
                            format!("the keys of map type `{}` are not a set", self.type_text(t)),
                            span,
                        )
                        .with_help("a map type's source must resolve to a set of symbols"));
                    }
                };
                let val = self.layout_of(v, span)?;
                let id = self.layout_id(Layout::Map { dom, val });
                if self.sizes[id as usize] > (1 << 28) {
                    return Err(CompileError::at(
                        format!("map type `{}` is too large to store", self.type_text(t)),
                        span,
                    ));
                }
                Ok(id)
            }
        }
    }

    /// The set a location of type `t` may hold, for strict-mode checks.
    fn set_of(&mut self, t: TypeId) -> Option<u32> {
        if let Some(&id) = self.set_ids.get(&t) {
            return Some(id);
        }
        let Ok(Resolved::Set(ms)) = self.env.resolve(t) else {
            return None;
        };
        let id = self.sets.len() as u32;
        self.sets
            .push((Domain::new(ms.as_slice()), self.type_text(t)));
        self.set_ids.insert(t, id);
        Some(id)
    }

    /// Writes the runtime value of `v` (layout `layout`) into `out`. `visible` says whether a
    /// constant name denotes that constant's value.
    fn write_value(
        &self,
        v: ValueId,
        layout: u32,
        out: &mut [u32],
        visible: &dyn Fn(Symbol) -> bool,
        span: Option<Span>,
    ) -> Result<(), CompileError> {
        match self.game.value(v) {
            ValueData::Element(s) => {
                if visible(*s)
                    && let Some(&(off, l)) = self.consts.get(s)
                {
                    if l != layout {
                        return Err(CompileError::at(
                            format!(
                                "constant `{}` has another shape than the value expected here",
                                self.game.name(*s)
                            ),
                            span,
                        ));
                    }
                    let n = self.sizes[l as usize] as usize;
                    out[..n].copy_from_slice(&self.const_slots[off as usize..off as usize + n]);
                    return Ok(());
                }
                if layout != ELEM {
                    return Err(CompileError::at(
                        format!(
                            "symbol `{}` given where a map is expected",
                            self.game.name(*s)
                        ),
                        span,
                    ));
                }
                out[0] = s.0;
                Ok(())
            }
            ValueData::Map(entries) => {
                let Layout::Map { dom, val } = self.layouts[layout as usize] else {
                    return Err(CompileError::at(
                        "a map value given where a symbol is expected",
                        span,
                    ));
                };
                let vsize = self.sizes[val as usize] as usize;
                let Some(default) = entries.iter().find(|e| e.key.is_none()) else {
                    return Err(CompileError::at(
                        "a map value without a default entry",
                        span,
                    ));
                };
                self.write_value(default.value, val, &mut out[..vsize], visible, span)?;
                let domain = &self.domains[dom as usize];
                for i in 0..domain.members.len() {
                    let at = vsize + i * (vsize + 1);
                    out[at] = 0;
                    out.copy_within(0..vsize, at + 1);
                }
                for e in entries.iter() {
                    let Some(k) = e.key else { continue };
                    let i = domain.position(k.0);
                    if i == NONE {
                        return Err(CompileError::at(
                            format!(
                                "map key `{}` is not a member of the map's key type",
                                self.game.name(k)
                            ),
                            span,
                        ));
                    }
                    let at = vsize + i as usize * (vsize + 1);
                    out[at] = 1;
                    self.write_value(
                        e.value,
                        val,
                        &mut out[at + 1..at + 1 + vsize],
                        visible,
                        span,
                    )?;
                }
                Ok(())
            }
        }
    }

    /// The entry offsets of maps with keys in domain `dom` and values of layout `val`.
    fn shifts_of(&mut self, dom: u32, val: u32) -> Shifts {
        if let Some(&s) = self.shift_ids.get(&(dom, val)) {
            return s;
        }
        let stride = self.sizes[val as usize] + 1;
        let index = &self.domains[dom as usize].index;
        let s = Shifts {
            tab: self.shifts.len() as u32,
            len: index.len() as u32,
        };
        // Entry i (present flag, then value) starts at size(V) + i * (size(V) + 1).
        self.shifts.extend(
            index
                .iter()
                .map(|&i| if i == NONE { NONE } else { (i + 1) * stride }),
        );
        self.shift_ids.insert((dom, val), s);
        s
    }

    /// The place a name denotes (a variable, else a constant, else the symbol itself), with
    /// its layout.
    fn name_place(&self, x: Symbol) -> (Place, u32) {
        let wk = self.game.well_known();
        let special = x == wk.goals || x == wk.player || x == wk.visible;
        if !special && let Some(&(off, l)) = self.consts.get(&x) {
            return (Place::Const(off), l);
        }
        if let Some(&(off, l)) = self.vars.get(&x) {
            return (Place::State(off), l);
        }
        (Place::Sym(x.0), ELEM)
    }

    /// Compiles an expression into flat code; returns it with its layout. Iterative: expressions
    /// nest as deep as the input says.
    fn expr(&mut self, e: ExprId, span: Option<Span>) -> Result<(Expr, u32), CompileError> {
        enum Task {
            Visit(ExprId),
            SaveKey,
            Access(Option<Place>),
            Lookup(Place, u32),
        }
        let mut ops: Vec<Op> = Vec::new();
        let mut layouts: Vec<u32> = Vec::new();
        let mut tasks = vec![Task::Visit(e)];
        while let Some(t) = tasks.pop() {
            match t {
                Task::Visit(e) => match self.game.expr(self.game.strip_casts(e)) {
                    ExprData::Ref(x) => {
                        let (pl, l) = self.name_place(x);
                        ops.push(Op::Load(pl));
                        layouts.push(l);
                    }
                    ExprData::Access(m, k) => {
                        let simple = match self.game.expr(self.game.strip_casts(k)) {
                            ExprData::Ref(x) => Some(self.name_place(x)),
                            _ => None,
                        };
                        match simple {
                            Some((key, kl)) => {
                                if kl != ELEM {
                                    return Err(CompileError::at(
                                        "a map used as an access key",
                                        span,
                                    ));
                                }
                                tasks.push(Task::Access(Some(key)));
                                tasks.push(Task::Visit(m));
                            }
                            None => match self.game.expr(self.game.strip_casts(m)) {
                                // Key first (the reference's order), then the map: a name is read
                                // at once, anything else waits while the key is parked.
                                ExprData::Ref(x) => {
                                    let (map, ml) = self.name_place(x);
                                    tasks.push(Task::Lookup(map, ml));
                                    tasks.push(Task::Visit(k));
                                }
                                _ => {
                                    tasks.push(Task::Access(None));
                                    tasks.push(Task::Visit(m));
                                    tasks.push(Task::SaveKey);
                                    tasks.push(Task::Visit(k));
                                }
                            },
                        }
                    }
                    ExprData::Cast(..) => unreachable!("casts are stripped"),
                },
                Task::SaveKey => {
                    if layouts.pop() != Some(ELEM) {
                        return Err(CompileError::at("a map used as an access key", span));
                    }
                    ops.push(Op::SaveKey);
                }
                Task::Lookup(map, ml) => {
                    if layouts.pop() != Some(ELEM) {
                        return Err(CompileError::at("a map used as an access key", span));
                    }
                    let Layout::Map { dom, val } = self.layouts[ml as usize] else {
                        return Err(CompileError::at("the accessed value is not a map", span));
                    };
                    let at = self.shifts_of(dom, val);
                    ops.push(Op::Lookup { map, at });
                    layouts.push(val);
                }
                Task::Access(key) => {
                    let ml = layouts.pop().expect("the map was compiled");
                    let Layout::Map { dom, val } = self.layouts[ml as usize] else {
                        return Err(CompileError::at("the accessed value is not a map", span));
                    };
                    let at = self.shifts_of(dom, val);
                    ops.push(match key {
                        Some(key) => Op::Index { key, at },
                        None => Op::IndexSaved { at },
                    });
                    layouts.push(val);
                }
            }
        }
        let layout = layouts.pop().expect("one value");
        let e = match ops[..] {
            [Op::Load(pl)] => Expr::Place(pl),
            [
                Op::Load(map @ (Place::State(_) | Place::Const(_))),
                Op::Index { key, at },
            ] => Expr::Index { map, key, at },
            _ => {
                let start = self.code.len() as u32;
                self.code.extend_from_slice(&ops);
                Expr::Code {
                    start,
                    end: self.code.len() as u32,
                }
            }
        };
        Ok((e, layout))
    }

    /// Compiles the left side of an assignment.
    fn lpath(&mut self, e: ExprId, span: Option<Span>) -> Result<LPath, CompileError> {
        let mut keys = Vec::new();
        let mut cur = self.game.strip_casts(e);
        loop {
            match self.game.expr(cur) {
                ExprData::Access(m, k) => {
                    keys.push(k);
                    cur = self.game.strip_casts(m);
                }
                ExprData::Ref(x) => {
                    let wk = self.game.well_known();
                    let special = x == wk.goals || x == wk.player || x == wk.visible;
                    let is_const = !special && self.consts.contains_key(&x);
                    let Some(&(root, mut layout)) = self.vars.get(&x).filter(|_| !is_const) else {
                        return Err(CompileError::at(
                            format!(
                                "assignment to `{}`, which is not a variable",
                                self.game.name(x)
                            ),
                            span,
                        ));
                    };
                    let mut ty = self
                        .game
                        .variable(x)
                        .map(|v| v.ty)
                        .expect("a laid-out variable is declared");
                    let mut steps = Vec::with_capacity(keys.len());
                    for &k in keys.iter().rev() {
                        let Layout::Map { dom, val } = self.layouts[layout as usize] else {
                            return Err(CompileError::at("the accessed value is not a map", span));
                        };
                        let (key, kl) = self.expr(k, span)?;
                        if kl != ELEM {
                            return Err(CompileError::at("a map used as an access key", span));
                        }
                        steps.push((key, dom, self.sizes[val as usize]));
                        layout = val;
                        ty = match self.env.resolve(ty) {
                            Ok(Resolved::Arrow(_, v)) => v,
                            _ => ty,
                        };
                    }
                    let check = if layout == ELEM {
                        self.set_of(ty)
                    } else {
                        None
                    };
                    return Ok(LPath {
                        root,
                        steps: steps.into_boxed_slice(),
                        size: self.sizes[layout as usize],
                        layout,
                        check,
                    });
                }
                ExprData::Cast(..) => unreachable!("casts are stripped"),
            }
        }
    }
}

/// Whether `s` is one of the variables stored after the ordinary ones.
fn is_special(wk: &rg_core::game::WellKnown, s: Symbol) -> bool {
    s == wk.goals || s == wk.player || s == wk.visible
}

/// The compiled nodes and edges of a game, and each edge's text for errors.
type Graph = (
    Vec<Node>,
    Vec<Edge>,
    HashMap<EdgeId, (String, Option<Span>)>,
);

impl Builder<'_> {
    /// Lays out the constants in order; each sees the earlier ones (the first declaration of a
    /// name wins).
    fn constants(&mut self) -> Result<(), CompileError> {
        let game = self.game;
        for c in &game.constants {
            if self.consts.contains_key(&c.name) {
                continue;
            }
            let span = c.spans.whole;
            let l = self.layout_of(c.ty, span)?;
            let n = self.sizes[l as usize] as usize;
            let mut slots = vec![0; n];
            let earlier: &HashMap<Symbol, (u32, u32)> = &self.consts;
            let visible = |s: Symbol| earlier.contains_key(&s);
            self.write_value(c.value, l, &mut slots, &visible, span)?;
            let off = self.const_slots.len() as u32;
            self.const_slots.extend_from_slice(&slots);
            self.consts.insert(c.name, (off, l));
        }
        Ok(())
    }

    /// Lays out the variables, ordinary ones first, then `goals`, `player`, `visible`; returns
    /// the initial state and the number of slots of the ordinary variables.
    fn variables(&mut self) -> Result<(Vec<u32>, u32), CompileError> {
        let game = self.game;
        let wk = *game.well_known();
        let mut order: Vec<usize> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, v) in game.variables.iter().enumerate() {
            if seen.insert(v.name) {
                order.push(i);
            }
        }
        order.sort_by_key(|&i| {
            let n = game.variables[i].name;
            (
                is_special(&wk, n),
                [wk.goals, wk.player, wk.visible]
                    .iter()
                    .position(|&s| s == n),
            )
        });
        let mut init = Vec::new();
        let mut ordinary = 0u32;
        for &i in &order {
            let v = &game.variables[i];
            let span = v.spans.whole;
            let l = self.layout_of(v.ty, span)?;
            let n = self.sizes[l as usize] as usize;
            let mut slots = vec![0; n];
            let consts = &self.consts;
            let all = |s: Symbol| consts.contains_key(&s);
            self.write_value(v.init, l, &mut slots, &all, span)?;
            let off = init.len() as u32;
            if !is_special(&wk, v.name) {
                ordinary = off + n as u32;
            }
            init.extend_from_slice(&slots);
            self.vars.insert(v.name, (off, l));
            if n > 0 {
                self.var_starts.push(off);
            }
        }
        Ok((init, ordinary))
    }

    /// Compiles the nodes and their outgoing edges, in edge id order per node; `player` is the
    /// slot of the variable `player`.
    fn graph(&mut self, player: u32) -> Result<Graph, CompileError> {
        let game = self.game;
        let mut nodes: Vec<Node> = vec![Node::default(); game.node_capacity()];
        let mut edges = Vec::with_capacity(game.edge_count());
        let mut edge_texts = HashMap::new();
        for (n, nd) in nodes.iter_mut().enumerate() {
            let nid = NodeId::new(n);
            nd.first_edge = edges.len() as u32;
            let mut out: Vec<EdgeId> = game.outgoing(nid).to_vec();
            out.sort_unstable();
            for e in out {
                let data = game.edge(e);
                let span = data.spans.whole;
                edge_texts.insert(
                    e,
                    (
                        format!(
                            "{}, {}: {}",
                            game.node_name(data.from),
                            game.node_name(data.to),
                            rg_core::print::print_label(game, &data.label)
                        ),
                        span,
                    ),
                );
                let action = self.action(data.label, span, player)?;
                edges.push(Edge {
                    target: data.to.0,
                    action,
                    id: e,
                });
            }
            nd.end_edge = edges.len() as u32;
        }
        Ok((nodes, edges, edge_texts))
    }

    /// Compiles an edge label; `player` is the slot of the variable `player` (an assignment to
    /// it finishes a move).
    fn action(
        &mut self,
        label: Label,
        span: Option<Span>,
        player: u32,
    ) -> Result<Action, CompileError> {
        let game = self.game;
        let wk = *game.well_known();
        let names_player = |lhs: ExprId| matches!(game.expr(game.strip_casts(lhs)), ExprData::Ref(s) if s == wk.player);
        Ok(match label {
            Label::Skip => Action::Skip,
            Label::Tag(s) => Action::Tag(s.0),
            Label::TagVar(v) => match self.vars.get(&v) {
                Some(&(off, ELEM)) => Action::TagVar(off),
                Some(_) => {
                    return Err(CompileError::at(
                        format!("`$$ {}` tags with a map", game.name(v)),
                        span,
                    ));
                }
                None => {
                    return Err(CompileError::at(
                        format!("`$$ {}`: no such variable", game.name(v)),
                        span,
                    ));
                }
            },
            Label::Assign { lhs, rhs } => {
                let path = self.lpath(lhs, span)?;
                let (r, rl) = self.expr(rhs, span)?;
                // Same shape, key sets included (a map of another domain with the same
                // number of keys would be stored misaligned).
                if rl != path.layout {
                    return Err(CompileError::at(
                        "the assigned value has another shape than its location",
                        span,
                    ));
                }
                let player = path.root == player && path.steps.is_empty() && names_player(lhs);
                Action::Assign {
                    lhs: path,
                    rhs: r,
                    player,
                }
            }
            Label::AssignAny { lhs, ty } => {
                let path = self.lpath(lhs, span)?;
                let members = match self.env.resolve(ty) {
                    Ok(Resolved::Set(ms)) => ms.as_slice().iter().map(|s| s.0).collect(),
                    _ => {
                        return Err(CompileError::at(
                            format!("`{}(*)` needs a set type", self.type_text(ty)),
                            span,
                        ));
                    }
                };
                if path.size != 1 {
                    return Err(CompileError::at("`T(*)` assigned to a map location", span));
                }
                let player = path.steps.is_empty() && names_player(lhs);
                Action::AssignAny {
                    lhs: path,
                    members,
                    player,
                }
            }
            Label::Compare { lhs, rhs, negated } => {
                let (l, ll) = self.expr(lhs, span)?;
                let (r, rl) = self.expr(rhs, span)?;
                let size = if ll == rl {
                    Some(self.sizes[ll as usize])
                } else if ll == ELEM || rl == ELEM {
                    None
                } else {
                    return Err(CompileError::at(
                        "comparison of maps of different types",
                        span,
                    ));
                };
                Action::Compare {
                    lhs: l,
                    rhs: r,
                    size,
                    negated,
                }
            }
            Label::Reach { from, to, negated } => Action::Reach {
                from: from.0,
                to: to.0,
                negated,
                shared: false,
                pair: NONE,
            },
        })
    }

    /// Applies the pragmas the search trusts to `nodes` (`@unique`, `@repeat`, a covering
    /// `@disjoint`); returns the slot ranges of each `@repeat`.
    fn pragmas(&self, nodes: &mut [Node]) -> Vec<Vec<(u32, u32)>> {
        let game = self.game;
        let wk = *game.well_known();
        let mut repeats = Vec::new();
        for p in &game.pragmas {
            match &p.kind {
                PragmaKind::Unique(ns) => {
                    for n in ns {
                        nodes[n.index()].unique = true;
                    }
                }
                PragmaKind::Repeat {
                    nodes: ns,
                    variables,
                } => {
                    let ranges: Vec<(u32, u32)> = variables
                        .iter()
                        .filter(|v| !is_special(&wk, **v))
                        .filter_map(|v| self.vars.get(v))
                        .map(|&(off, l)| (off, self.sizes[l as usize]))
                        .collect();
                    let id = repeats.len() as u32;
                    repeats.push(merge_ranges(ranges));
                    for n in ns {
                        nodes[n.index()].repeat = Some(id);
                    }
                }
                PragmaKind::Disjoint {
                    node,
                    nodes: targets,
                }
                | PragmaKind::DisjointExhaustive {
                    node,
                    nodes: targets,
                } => {
                    let nd = &mut nodes[node.index()];
                    if (nd.end_edge - nd.first_edge) as usize == targets.len() {
                        nd.disjoint = true;
                    }
                }
                _ => {}
            }
        }
        repeats
    }
}

impl Program {
    /// Compiles a checked game (after the built-in definitions step and the type checker).
    pub fn new(game: &Game, opts: CompileOptions) -> Result<Program, CompileError> {
        let mut b = Builder {
            game,
            env: TypeEnv::new(game),
            layouts: Vec::new(),
            layout_ids: HashMap::new(),
            sizes: Vec::new(),
            domains: Vec::new(),
            domain_ids: HashMap::new(),
            sets: Vec::new(),
            set_ids: HashMap::new(),
            consts: HashMap::new(),
            const_slots: Vec::new(),
            vars: HashMap::new(),
            var_starts: Vec::new(),
            code: Vec::new(),
            shifts: Vec::new(),
            shift_ids: HashMap::new(),
        };
        b.layout_id(Layout::Elem);
        let wk = *game.well_known();
        b.constants()?;
        let (init, ordinary) = b.variables()?;
        let ordinary = if opts.compare_every_variable {
            init.len() as u32
        } else {
            ordinary
        };
        let player = match b.vars.get(&wk.player) {
            Some(&(off, ELEM)) => off,
            _ => {
                return Err(CompileError::at(
                    "the game has no variable `player` holding a symbol",
                    None,
                ));
            }
        };
        let goals = b.vars.get(&wk.goals).map(|&(off, l)| (off, l));
        let begin = game.begin().ok_or(CompileError::NoBegin)?;
        let (mut nodes, mut edges, edge_texts) = b.graph(player)?;
        let repeats = if opts.ignore_pragmas || opts.compare_every_variable {
            Vec::new()
        } else {
            b.pragmas(&mut nodes)
        };

        shared_checks(&nodes, &mut edges);
        let pairs = number_pairs(&mut edges);
        let mut var_starts = std::mem::take(&mut b.var_starts);
        var_starts.push(init.len() as u32);
        let switches = switches(&mut nodes, &edges, &b.const_slots);
        let names: Vec<String> = (0..game.symbols().len())
            .map(|i| game.name(Symbol::new(i)).to_string())
            .collect();
        let node_names = game
            .nodes()
            .iter()
            .map(|(_, n)| game.name(n.name).to_string())
            .collect();
        let path_symbols = path_symbols(game);
        let end = game.end().map_or(NONE, |n| n.0);
        Ok(Program {
            domains: b.domains,
            layouts: b.layouts,
            sizes: b.sizes,
            sets: b.sets,
            consts: b.const_slots,
            init,
            ordinary,
            player,
            goals,
            keeper: wk.keeper.0,
            random: wk.random.0,
            nodes,
            edges,
            repeats,
            switches,
            code: b.code,
            shifts: b.shifts,
            begin: begin.0,
            end,
            names,
            node_names,
            path_symbols,
            edge_texts,
            search_limit: SearchLimit::new(opts.search_limit.unwrap_or(DEFAULT_SEARCH_LIMIT)),
            pairs,
            var_starts,
        })
    }

    /// The work one search may do.
    pub fn search_limit(&self) -> SearchLimit {
        self.search_limit
    }

    /// Number of slots of one state.
    pub fn state_size(&self) -> usize {
        self.init.len()
    }

    /// The name of a symbol.
    pub fn name(&self, sym: u32) -> &str {
        self.names.get(sym as usize).map_or("?", String::as_str)
    }

    /// The name of a node.
    pub fn node_name(&self, node: u32) -> &str {
        self.node_names
            .get(node as usize)
            .map_or("?", String::as_str)
    }

    /// Formats the value at `off` with layout `layout` as the reference interpreter prints it:
    /// a bare symbol, or `{ :d, k1: v1, … }` with stored entries sorted by key.
    pub(crate) fn format_value(&self, slots: &[u32], layout: u32) -> String {
        match self.layouts[layout as usize] {
            Layout::Elem => self.name(slots[0]).to_string(),
            Layout::Map { dom, val } => {
                let vsize = self.sizes[val as usize] as usize;
                let mut s = format!("{{ :{}", self.format_value(&slots[..vsize], val));
                let d = &self.domains[dom as usize];
                let mut entries: Vec<(&str, usize)> = d
                    .members
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| slots[vsize + i * (vsize + 1)] != 0)
                    .map(|(i, &k)| (self.name(k), vsize + i * (vsize + 1) + 1))
                    .collect();
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (k, at) in entries {
                    s.push_str(&format!(
                        ", {k}: {}",
                        self.format_value(&slots[at..at + vsize], val)
                    ));
                }
                s.push_str(" }");
                s
            }
        }
    }

    /// The `goals` value of a state, formatted as the reference interpreter prints it.
    pub fn format_goals(&self, state: &[u32]) -> Option<String> {
        let (off, l) = self.goals?;
        let n = self.sizes[l as usize] as usize;
        Some(self.format_value(&state[off as usize..off as usize + n], l))
    }

    /// Each player's score in `goals` (a map `Player -> Score`), in key order.
    pub fn goal_entries(&self, state: &[u32]) -> Vec<(String, String)> {
        let Some((off, l)) = self.goals else {
            return Vec::new();
        };
        let Layout::Map { dom, val } = self.layouts[l as usize] else {
            return Vec::new();
        };
        if self.layouts[val as usize] != Layout::Elem {
            return Vec::new();
        }
        let d = &self.domains[dom as usize];
        d.members
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let at = off as usize + 1 + i * 2 + 1;
                (self.name(k).to_string(), self.name(state[at]).to_string())
            })
            .collect()
    }

    pub(crate) fn edge_text(&self, e: EdgeId) -> (String, Option<Span>) {
        self.edge_texts
            .get(&e)
            .cloned()
            .unwrap_or_else(|| (format!("{e}"), None))
    }
}

/// Names a path of moves may use as tags: node names, symbols occurring in values, labels and
/// types of the game.
fn path_symbols(game: &Game) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    let mut add = |s: Symbol| {
        out.insert(game.name(s).to_string(), s.0);
    };
    for (_, n) in game.nodes().iter() {
        add(n.name);
    }
    for (_, e) in game.edges() {
        if let Label::Tag(s) = e.label {
            add(s);
        }
    }
    for i in 0..game.types().len() {
        if let rg_core::TypeData::Set(ms) = game.ty(TypeId::new(i)) {
            ms.iter().copied().for_each(&mut add);
        }
    }
    for i in 0..game.values().len() {
        match game.value(ValueId::new(i)) {
            ValueData::Element(s) => add(*s),
            ValueData::Map(es) => es.iter().filter_map(|e| e.key).for_each(&mut add),
        }
    }
    for i in 0..game.exprs().len() {
        if let ExprData::Ref(s) = game.expr(ExprId::new(i)) {
            add(s);
        }
    }
    out
}
