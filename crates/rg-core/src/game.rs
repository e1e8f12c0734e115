//! The core IR: an owned, interned, index-based game that every front-end lowers into and every
//! pass, validator and back-end works on.
//!
//! * Names are [`Symbol`]s of the game's own [`Interner`].
//! * Types, values and expressions are hash-consed ([`UniqueArena`]): equal structure ⇔ equal id,
//!   so labels are small `Copy + Eq + Hash` values and grouping edges by label is cheap.
//! * Nodes and edges live in [`IndexVec`]s. Removing an edge marks it dead and unlinks it from the
//!   adjacency lists; ids stay stable until [`Game::compact`] renumbers everything.
//! * Declarations keep source order (duplicates included: rejecting them is a validator's job).
//! * Source spans live beside the data ([`Spans`]); they never influence semantics or output.
//!
//! # Span parts
//!
//! Besides the span of a whole declaration, [`Spans::parts`] holds the spans of its pieces in a
//! fixed pre-order, so checkers can point at the exact sub-expression at fault:
//!
//! * type: the type itself, then for an arrow its left and right types, for a set each member;
//! * value: the value itself, then for a map, per entry: the entry, its key (keyed entries only),
//!   its value;
//! * expression: the expression itself, then for an access its left and right expressions, for a
//!   cast its type and inner expression;
//! * typedef: name, type; constant: name, type, value; variable: name, type, initial value;
//! * edge: source node, target node, the label, then for an assignment/comparison left and right
//!   expressions, for an any-assignment the expression and the type, for a reachability check its
//!   two nodes, for a tag its symbol, for a variable tag its variable.
//!
//! Parts are empty when the game was built without inner locations (front-ends usually give only
//! the whole span); [`Spans::part`] then returns `None`.

use crate::decls::{Decls, DeclsMark, fresh_stamp};
use crate::ids::{EntityId, IndexVec, UniqueArena};
use crate::interner::{Interner, Symbol};
use crate::span::Span;

mod convert;

pub use convert::{expr_slots, type_slots, value_slots};

crate::entity_id! {
    /// A hash-consed type of one game.
    pub struct TypeId, "t";
}
crate::entity_id! {
    /// A hash-consed value of one game.
    pub struct ValueId, "v";
}
crate::entity_id! {
    /// A hash-consed expression of one game.
    pub struct ExprId, "x";
}
crate::entity_id! {
    /// An automaton node.
    pub struct NodeId, "n";
}
crate::entity_id! {
    /// An automaton edge.
    pub struct EdgeId, "e";
}

/// A type: `L -> R`, a set of symbols, or a type name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// `L -> R`.
    Arrow(TypeId, TypeId),
    /// `{ a, b }`, members in written order.
    Set(Box<[Symbol]>),
    /// A type name.
    Name(Symbol),
}

/// One entry of a map value; `key == None` is the default entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MapEntry {
    pub key: Option<Symbol>,
    pub value: ValueId,
}

/// A value: a symbol (or constant name), or a map with an optional default entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueData {
    /// A symbol, or the name of a constant.
    Element(Symbol),
    /// A map, entries in written order.
    Map(Box<[MapEntry]>),
}

/// An expression: an access, a cast or a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExprData {
    /// `e1[e2]`.
    Access(ExprId, ExprId),
    /// `T(e)`.
    Cast(TypeId, ExprId),
    /// A bare name.
    Ref(Symbol),
}

/// An edge label. Every field is an id or a flag, so labels compare and hash in O(1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// `l = r`.
    Assign { lhs: ExprId, rhs: ExprId },
    /// `l = T(*)`.
    AssignAny { lhs: ExprId, ty: TypeId },
    /// `l == r` / `l != r`.
    Compare {
        lhs: ExprId,
        rhs: ExprId,
        negated: bool,
    },
    /// `? a -> b` / `! a -> b`.
    Reach {
        from: NodeId,
        to: NodeId,
        negated: bool,
    },
    /// The empty action.
    Skip,
    /// `$ s`.
    Tag(Symbol),
    /// `$$ v`.
    TagVar(Symbol),
}

impl Label {
    /// Whether this is a tag or variable tag.
    pub fn is_tag(&self) -> bool {
        matches!(self, Label::Tag(_) | Label::TagVar(_))
    }
}

/// Source spans of one declaration: the whole and its parts in pre-order (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    pub whole: Option<Span>,
    pub parts: Box<[Option<Span>]>,
}

impl Spans {
    /// Only the span of the whole declaration.
    pub fn whole(span: Option<Span>) -> Self {
        Spans {
            whole: span,
            parts: Box::new([]),
        }
    }

    /// The span of part `i` (pre-order), falling back to nothing.
    pub fn part(&self, i: usize) -> Option<Span> {
        self.parts.get(i).copied().flatten()
    }

    /// The span of part `i`, or else of the whole declaration.
    pub fn part_or_whole(&self, i: usize) -> Option<Span> {
        self.part(i).or(self.whole)
    }
}

/// `type N = T;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typedef {
    pub name: Symbol,
    pub ty: TypeId,
    pub spans: Spans,
}

/// `const N: T = V;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constant {
    pub name: Symbol,
    pub ty: TypeId,
    pub value: ValueId,
    pub spans: Spans,
}

/// `var N: T = V;`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: Symbol,
    pub ty: TypeId,
    pub init: ValueId,
    pub spans: Spans,
}

/// An automaton node. A node "exists" in RG terms when it is an endpoint of a live edge; entries
/// without edges (named only by a reachability label or a pragma, or left by a removal) are kept
/// until [`Game::compact`].
#[derive(Clone, Debug)]
pub struct NodeData {
    pub name: Symbol,
    /// Where the node was first named.
    pub span: Option<Span>,
}

/// An automaton edge.
#[derive(Clone, Debug)]
pub struct EdgeData {
    pub from: NodeId,
    pub to: NodeId,
    pub label: Label,
    pub alive: bool,
    pub spans: Spans,
}

/// A tag pattern of `@simpleApply`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PragmaTag {
    /// A literal tag symbol.
    Symbol(Symbol),
    /// A binder `p: T`.
    Variable(Symbol, TypeId),
}

/// A pragma (a fact about nodes or symbols that consumers may trust), referencing nodes by id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PragmaKind {
    ArtificialTag(Vec<Symbol>),
    Disjoint {
        node: NodeId,
        nodes: Vec<NodeId>,
    },
    DisjointExhaustive {
        node: NodeId,
        nodes: Vec<NodeId>,
    },
    Integer {
        offset: u64,
        symbols: Vec<Symbol>,
    },
    Iterator {
        a: NodeId,
        b: NodeId,
        c: NodeId,
        variable: Symbol,
    },
    Repeat {
        nodes: Vec<NodeId>,
        variables: Vec<Symbol>,
    },
    SimpleApply {
        from: NodeId,
        to: NodeId,
        tags: Vec<PragmaTag>,
        assignments: Vec<(ExprId, ExprId)>,
        exhaustive: bool,
    },
    TagIndex {
        index: u64,
        nodes: Vec<NodeId>,
    },
    TagMaxIndex {
        index: u64,
        nodes: Vec<NodeId>,
    },
    TranslatedFromRbg,
    Unique(Vec<NodeId>),
    Unknown(Box<str>),
}

impl PragmaKind {
    /// Calls `f` on every node the pragma references.
    pub fn for_each_node(&self, mut f: impl FnMut(NodeId)) {
        match self {
            PragmaKind::Disjoint { node, nodes }
            | PragmaKind::DisjointExhaustive { node, nodes } => {
                f(*node);
                nodes.iter().copied().for_each(f);
            }
            PragmaKind::Iterator { a, b, c, .. } => {
                f(*a);
                f(*b);
                f(*c);
            }
            PragmaKind::Repeat { nodes, .. }
            | PragmaKind::TagIndex { nodes, .. }
            | PragmaKind::TagMaxIndex { nodes, .. }
            | PragmaKind::Unique(nodes) => nodes.iter().copied().for_each(f),
            PragmaKind::SimpleApply { from, to, .. } => {
                f(*from);
                f(*to);
            }
            PragmaKind::ArtificialTag(_)
            | PragmaKind::Integer { .. }
            | PragmaKind::TranslatedFromRbg
            | PragmaKind::Unknown(_) => {}
        }
    }

    fn map_nodes(&mut self, f: &mut impl FnMut(NodeId) -> NodeId) {
        match self {
            PragmaKind::Disjoint { node, nodes }
            | PragmaKind::DisjointExhaustive { node, nodes } => {
                *node = f(*node);
                nodes.iter_mut().for_each(|n| *n = f(*n));
            }
            PragmaKind::Iterator { a, b, c, .. } => {
                *a = f(*a);
                *b = f(*b);
                *c = f(*c);
            }
            PragmaKind::Repeat { nodes, .. }
            | PragmaKind::TagIndex { nodes, .. }
            | PragmaKind::TagMaxIndex { nodes, .. }
            | PragmaKind::Unique(nodes) => nodes.iter_mut().for_each(|n| *n = f(*n)),
            PragmaKind::SimpleApply { from, to, .. } => {
                *from = f(*from);
                *to = f(*to);
            }
            PragmaKind::ArtificialTag(_)
            | PragmaKind::Integer { .. }
            | PragmaKind::TranslatedFromRbg
            | PragmaKind::Unknown(_) => {}
        }
    }
}

/// A pragma with its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pragma {
    pub kind: PragmaKind,
    /// Computed by a pass (dropped and recomputed when optimising) rather than written by the user
    /// or emitted by a front-end.
    pub derived: bool,
    pub span: Option<Span>,
}

/// Well-known symbols, interned in every game at creation so lookups need no string compare.
#[derive(Clone, Copy, Debug)]
pub struct WellKnown {
    pub begin: Symbol,
    pub end: Symbol,
    pub player: Symbol,
    pub goals: Symbol,
    pub visible: Symbol,
    pub keeper: Symbol,
    pub random: Symbol,
    pub player_type: Symbol,
    pub score_type: Symbol,
    pub bool_type: Symbol,
    pub goals_type: Symbol,
    pub visibility_type: Symbol,
    pub player_or_system_type: Symbol,
    pub zero: Symbol,
    pub one: Symbol,
}

impl WellKnown {
    fn intern(i: &mut Interner) -> Self {
        WellKnown {
            begin: i.intern("begin"),
            end: i.intern("end"),
            player: i.intern("player"),
            goals: i.intern("goals"),
            visible: i.intern("visible"),
            keeper: i.intern("keeper"),
            random: i.intern("random"),
            player_type: i.intern("Player"),
            score_type: i.intern("Score"),
            bool_type: i.intern("Bool"),
            goals_type: i.intern("Goals"),
            visibility_type: i.intern("Visibility"),
            player_or_system_type: i.intern("PlayerOrSystem"),
            zero: i.intern("0"),
            one: i.intern("1"),
        }
    }
}

/// Where a game currently is in the pipeline (rustc's `MirPhase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// As read or lowered; builtins may still be missing.
    #[default]
    Parsed,
    /// Builtins added and statically checked; what passes expect.
    Ground,
    /// After the final optimisation stage.
    Optimized,
}

/// A whole game in IR form. See the module documentation.
#[derive(Clone, Debug)]
pub struct Game {
    symbols: Interner,
    types: UniqueArena<TypeId, TypeData>,
    values: UniqueArena<ValueId, ValueData>,
    exprs: UniqueArena<ExprId, ExprData>,
    /// Type definitions in declaration order (duplicates kept). Reads like a slice; changes go
    /// through [`Decls`] methods, which count towards [`Game::generation`].
    pub typedefs: Decls<Typedef>,
    /// Constants in declaration order (duplicates kept).
    pub constants: Decls<Constant>,
    /// Variables in declaration order (duplicates kept).
    pub variables: Decls<Variable>,
    /// Pragmas in list order.
    pub pragmas: Decls<Pragma>,
    nodes: IndexVec<NodeId, NodeData>,
    /// Never iterated (only looked up), so its hasher decides no order.
    node_by_name: rustc_hash::FxHashMap<Symbol, NodeId>,
    edges: IndexVec<EdgeId, EdgeData>,
    outgoing: IndexVec<NodeId, Vec<EdgeId>>,
    incoming: IndexVec<NodeId, Vec<EdgeId>>,
    /// Per edge, the stamp of its last change ([`Game::edge_stamp`]).
    edge_stamps: IndexVec<EdgeId, u64>,
    /// Per node, the stamp of the last change of its adjacency lists ([`Game::adjacency_stamp`]).
    adjacency_stamps: IndexVec<NodeId, u64>,
    live_edges: usize,
    /// Nodes that are an endpoint of a live edge ([`Game::node_count`]), kept up to date by
    /// every change of the adjacency lists.
    live_nodes: usize,
    /// Live edges labelled with a tag or a variable tag, and with a reachability check.
    tag_edges: usize,
    reach_edges: usize,
    /// The identity of the node numbering ([`Game::node_layout`]).
    layout: Layout,
    well_known: WellKnown,
    /// Pipeline phase.
    pub phase: Phase,
    generation: u64,
}

impl Default for Game {
    fn default() -> Self {
        Self::new()
    }
}

impl Game {
    /// An empty game.
    pub fn new() -> Self {
        let mut symbols = Interner::new();
        let well_known = WellKnown::intern(&mut symbols);
        Game {
            symbols,
            types: UniqueArena::default(),
            values: UniqueArena::default(),
            exprs: UniqueArena::default(),
            typedefs: Decls::new(),
            constants: Decls::new(),
            variables: Decls::new(),
            pragmas: Decls::new(),
            nodes: IndexVec::new(),
            node_by_name: rustc_hash::FxHashMap::default(),
            edges: IndexVec::new(),
            outgoing: IndexVec::new(),
            incoming: IndexVec::new(),
            edge_stamps: IndexVec::new(),
            adjacency_stamps: IndexVec::new(),
            live_edges: 0,
            live_nodes: 0,
            tag_edges: 0,
            reach_edges: 0,
            layout: Layout(fresh_stamp()),
            well_known,
            phase: Phase::Parsed,
            generation: fresh_stamp(),
        }
    }

    // ----- symbols -------------------------------------------------------------------------

    /// The interner.
    pub fn symbols(&self) -> &Interner {
        &self.symbols
    }

    /// Interns a name.
    pub fn sym(&mut self, name: &str) -> Symbol {
        self.symbols.intern(name)
    }

    /// The symbol of `name` if interned.
    pub fn find_sym(&self, name: &str) -> Option<Symbol> {
        self.symbols.get(name)
    }

    /// The text of a symbol.
    pub fn name(&self, sym: Symbol) -> &str {
        self.symbols.resolve(sym)
    }

    /// Symbols with a special meaning (`begin`, `end`, `player`, `keeper`, the built-in types…).
    pub fn well_known(&self) -> &WellKnown {
        &self.well_known
    }

    // ----- types, values, expressions --------------------------------------------------------

    /// Interns a type.
    pub fn add_type(&mut self, t: TypeData) -> TypeId {
        self.types.insert(t)
    }

    /// The type with this id.
    pub fn ty(&self, id: TypeId) -> &TypeData {
        &self.types[id]
    }

    /// The type arena (for bulk inspection).
    pub fn types(&self) -> &UniqueArena<TypeId, TypeData> {
        &self.types
    }

    /// Interns the type name `name`.
    pub fn type_name(&mut self, name: Symbol) -> TypeId {
        self.add_type(TypeData::Name(name))
    }

    /// Interns the set type of `members`.
    pub fn type_set(&mut self, members: impl IntoIterator<Item = Symbol>) -> TypeId {
        self.add_type(TypeData::Set(members.into_iter().collect()))
    }

    /// Interns `lhs -> rhs`.
    pub fn type_arrow(&mut self, lhs: TypeId, rhs: TypeId) -> TypeId {
        self.add_type(TypeData::Arrow(lhs, rhs))
    }

    /// Interns a value.
    pub fn add_value(&mut self, v: ValueData) -> ValueId {
        self.values.insert(v)
    }

    /// The value with this id.
    pub fn value(&self, id: ValueId) -> &ValueData {
        &self.values[id]
    }

    /// The value arena.
    pub fn values(&self) -> &UniqueArena<ValueId, ValueData> {
        &self.values
    }

    /// Interns the element value `sym`.
    pub fn value_elem(&mut self, sym: Symbol) -> ValueId {
        self.add_value(ValueData::Element(sym))
    }

    /// Interns a map value from its entries (written order).
    pub fn value_map(&mut self, entries: impl IntoIterator<Item = MapEntry>) -> ValueId {
        self.add_value(ValueData::Map(entries.into_iter().collect()))
    }

    /// Interns an expression.
    pub fn add_expr(&mut self, e: ExprData) -> ExprId {
        self.exprs.insert(e)
    }

    /// The expression with this id.
    pub fn expr(&self, id: ExprId) -> ExprData {
        self.exprs[id]
    }

    /// The expression arena.
    pub fn exprs(&self) -> &UniqueArena<ExprId, ExprData> {
        &self.exprs
    }

    /// Interns the reference `sym`.
    pub fn expr_ref(&mut self, sym: Symbol) -> ExprId {
        self.add_expr(ExprData::Ref(sym))
    }

    /// Interns `lhs[rhs]`.
    pub fn expr_access(&mut self, lhs: ExprId, rhs: ExprId) -> ExprId {
        self.add_expr(ExprData::Access(lhs, rhs))
    }

    /// Interns `ty(e)`.
    pub fn expr_cast(&mut self, ty: TypeId, e: ExprId) -> ExprId {
        self.add_expr(ExprData::Cast(ty, e))
    }

    /// The root name of an expression: through casts and the left sides of accesses, the variable
    /// or constant it reads or writes.
    pub fn expr_root(&self, mut e: ExprId) -> Symbol {
        loop {
            match self.exprs[e] {
                ExprData::Access(lhs, _) => e = lhs,
                ExprData::Cast(_, inner) => e = inner,
                ExprData::Ref(s) => return s,
            }
        }
    }

    /// The expression with all top-level casts removed.
    pub fn strip_casts(&self, mut e: ExprId) -> ExprId {
        while let ExprData::Cast(_, inner) = self.exprs[e] {
            e = inner;
        }
        e
    }

    // ----- declarations ----------------------------------------------------------------------

    /// The first typedef named `name`.
    pub fn typedef(&self, name: Symbol) -> Option<&Typedef> {
        self.typedefs.named(name)
    }

    /// The first constant named `name`.
    pub fn constant(&self, name: Symbol) -> Option<&Constant> {
        self.constants.named(name)
    }

    /// The first variable named `name`.
    pub fn variable(&self, name: Symbol) -> Option<&Variable> {
        self.variables.named(name)
    }

    /// First-occurrence indexes of typedefs, constants and variables by name, for checkers that
    /// look names up many times. Each list keeps its index until it changes, so this is cheap
    /// to ask again.
    pub fn name_index(&self) -> NameIndex {
        NameIndex {
            typedefs: self.typedefs.name_index(),
            constants: self.constants.name_index(),
            variables: self.variables.name_index(),
        }
    }

    // ----- nodes -------------------------------------------------------------------------------

    /// The node named `name`, creating it if needed.
    pub fn node(&mut self, name: Symbol) -> NodeId {
        if let Some(&n) = self.node_by_name.get(&name) {
            return n;
        }
        let id = self.nodes.push(NodeData { name, span: None });
        self.outgoing.push(Vec::new());
        self.incoming.push(Vec::new());
        self.generation = fresh_stamp();
        self.adjacency_stamps.push(self.generation);
        self.node_by_name.insert(name, id);
        id
    }

    /// The node named by the string `name`, creating it (and the symbol) if needed.
    pub fn node_named(&mut self, name: &str) -> NodeId {
        let s = self.sym(name);
        self.node(s)
    }

    /// The node named `name`, if it exists.
    pub fn find_node(&self, name: Symbol) -> Option<NodeId> {
        self.node_by_name.get(&name).copied()
    }

    /// The node named `begin`, if any.
    pub fn begin(&self) -> Option<NodeId> {
        self.find_node(self.well_known.begin)
    }

    /// The node named `end`, if any.
    pub fn end(&self) -> Option<NodeId> {
        self.find_node(self.well_known.end)
    }

    /// Node data.
    pub fn node_data(&self, n: NodeId) -> &NodeData {
        &self.nodes[n]
    }

    /// The name of a node.
    pub fn node_name(&self, n: NodeId) -> &str {
        self.symbols.resolve(self.nodes[n].name)
    }

    /// Sets where a node was first named (kept if already set).
    pub fn set_node_span(&mut self, n: NodeId, span: Option<Span>) {
        let d = &mut self.nodes[n];
        if d.span.is_none() {
            d.span = span;
        }
    }

    /// All node entries, including ones without edges.
    pub fn nodes(&self) -> &IndexVec<NodeId, NodeData> {
        &self.nodes
    }

    /// Number of node entries (including ones without edges).
    pub fn node_capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Number of distinct nodes that are an endpoint of some live edge (what `rgt stats` counts as
    /// `nodes`).
    pub fn node_count(&self) -> usize {
        debug_assert_eq!(
            self.live_nodes,
            self.nodes.ids().filter(|&n| self.linked(n)).count()
        );
        self.live_nodes
    }

    /// Number of live edges labelled with a tag or a variable tag.
    pub fn tag_edge_count(&self) -> usize {
        self.tag_edges
    }

    /// Number of live edges labelled with a reachability check.
    pub fn reach_edge_count(&self) -> usize {
        self.reach_edges
    }

    /// The identity of the node numbering: while it stays the same, every node id names the
    /// same node, with the same name (new nodes only take new ids). [`Game::compact`] renumbers
    /// and takes a new one, and a clone gets its own (two clones may give the same new id to
    /// different nodes). Caches of per-node facts that only depend on node names key on it.
    pub fn node_layout(&self) -> u64 {
        self.layout.0
    }

    /// The stamp of the last change of edge `e` (its creation, label, source, target or
    /// removal). Stamps are [`Game::generation`] values: a stamp not above a generation seen
    /// earlier means the edge is as it was then, as long as [`Game::node_layout`] is the same.
    /// Passes that keep results per edge between their runs use it to redo only what changed.
    pub fn edge_stamp(&self, e: EdgeId) -> u64 {
        self.edge_stamps[e]
    }

    /// The stamp of the last change of `n`'s adjacency lists (an edge added to or removed from
    /// them, or moved in or out), on the same clock as [`Game::edge_stamp`].
    pub fn adjacency_stamp(&self, n: NodeId) -> u64 {
        self.adjacency_stamps[n]
    }

    /// Whether `n` is an endpoint of a live edge.
    fn linked(&self, n: NodeId) -> bool {
        !self.outgoing[n].is_empty() || !self.incoming[n].is_empty()
    }

    /// Counts a live edge's label in (`add`) or out of the label counters.
    fn count_label(&mut self, label: &Label, add: bool) {
        let counter = match label {
            Label::Tag(_) | Label::TagVar(_) => &mut self.tag_edges,
            Label::Reach { .. } => &mut self.reach_edges,
            _ => return,
        };
        if add {
            *counter += 1;
        } else {
            *counter -= 1;
        }
    }

    /// Live outgoing edges of `n`, in edge-list order.
    pub fn outgoing(&self, n: NodeId) -> &[EdgeId] {
        &self.outgoing[n]
    }

    /// Live incoming edges of `n`, in edge-list order.
    pub fn incoming(&self, n: NodeId) -> &[EdgeId] {
        &self.incoming[n]
    }

    /// Nodes an edge path leads to from `from` (labels ignored, `from` included), not going on
    /// from `stop`; indexed by node.
    pub fn reachable_until(&self, from: &[NodeId], stop: Option<NodeId>) -> Vec<bool> {
        let mut seen = vec![false; self.node_capacity()];
        let mut stack = Vec::new();
        for &n in from {
            if !seen[n.index()] {
                seen[n.index()] = true;
                stack.push(n);
            }
        }
        while let Some(n) = stack.pop() {
            if Some(n) == stop {
                continue;
            }
            for &e in self.outgoing(n) {
                let to = self.edge(e).to;
                if !seen[to.index()] {
                    seen[to.index()] = true;
                    stack.push(to);
                }
            }
        }
        seen
    }

    // ----- edges -------------------------------------------------------------------------------

    /// Appends an edge and returns its id.
    pub fn add_edge(&mut self, from: NodeId, to: NodeId, label: Label) -> EdgeId {
        self.add_edge_spanned(from, to, label, Spans::default())
    }

    /// Appends an edge with spans and returns its id.
    pub fn add_edge_spanned(
        &mut self,
        from: NodeId,
        to: NodeId,
        label: Label,
        spans: Spans,
    ) -> EdgeId {
        let new_ends =
            usize::from(!self.linked(from)) + usize::from(from != to && !self.linked(to));
        self.count_label(&label, true);
        let id = self.edges.push(EdgeData {
            from,
            to,
            label,
            alive: true,
            spans,
        });
        self.outgoing[from].push(id);
        self.incoming[to].push(id);
        self.live_edges += 1;
        self.live_nodes += new_ends;
        self.generation = fresh_stamp();
        self.edge_stamps.push(self.generation);
        self.adjacency_stamps[from] = self.generation;
        self.adjacency_stamps[to] = self.generation;
        id
    }

    /// Edge data (live or dead).
    pub fn edge(&self, e: EdgeId) -> &EdgeData {
        &self.edges[e]
    }

    /// All edge entries, dead ones included (check [`EdgeData::alive`]).
    pub fn edge_entries(&self) -> &IndexVec<EdgeId, EdgeData> {
        &self.edges
    }

    /// Live edges in edge-list order.
    pub fn edges(&self) -> impl DoubleEndedIterator<Item = (EdgeId, &EdgeData)> {
        self.edges.iter().filter(|(_, e)| e.alive)
    }

    /// Number of live edges.
    pub fn edge_count(&self) -> usize {
        self.live_edges
    }

    /// Removes an edge (marks it dead and unlinks it). Removing a dead edge does nothing.
    pub fn remove_edge(&mut self, e: EdgeId) {
        let d = &mut self.edges[e];
        if !d.alive {
            return;
        }
        d.alive = false;
        let (from, to, label) = (d.from, d.to, d.label);
        remove_sorted(&mut self.outgoing[from], e);
        remove_sorted(&mut self.incoming[to], e);
        self.live_edges -= 1;
        self.count_label(&label, false);
        self.live_nodes -=
            usize::from(!self.linked(from)) + usize::from(from != to && !self.linked(to));
        self.generation = fresh_stamp();
        self.edge_stamps[e] = self.generation;
        self.adjacency_stamps[from] = self.generation;
        self.adjacency_stamps[to] = self.generation;
    }

    /// Replaces the label of a live edge.
    pub fn set_label(&mut self, e: EdgeId, label: Label) {
        if self.edges[e].label != label {
            if self.edges[e].alive {
                let old = self.edges[e].label;
                self.count_label(&old, false);
                self.count_label(&label, true);
            }
            self.edges[e].label = label;
            self.generation = fresh_stamp();
            self.edge_stamps[e] = self.generation;
        }
    }

    /// Moves the target of a live edge.
    pub fn set_target(&mut self, e: EdgeId, to: NodeId) {
        let old = self.edges[e].to;
        if old == to || !self.edges[e].alive {
            return;
        }
        let gained = !self.linked(to);
        remove_sorted(&mut self.incoming[old], e);
        insert_sorted(&mut self.incoming[to], e);
        self.edges[e].to = to;
        self.live_nodes = self.live_nodes + usize::from(gained) - usize::from(!self.linked(old));
        self.generation = fresh_stamp();
        self.edge_stamps[e] = self.generation;
        self.adjacency_stamps[old] = self.generation;
        self.adjacency_stamps[to] = self.generation;
    }

    /// Moves the source of a live edge.
    pub fn set_source(&mut self, e: EdgeId, from: NodeId) {
        let old = self.edges[e].from;
        if old == from || !self.edges[e].alive {
            return;
        }
        let gained = !self.linked(from);
        remove_sorted(&mut self.outgoing[old], e);
        insert_sorted(&mut self.outgoing[from], e);
        self.edges[e].from = from;
        self.live_nodes = self.live_nodes + usize::from(gained) - usize::from(!self.linked(old));
        self.generation = fresh_stamp();
        self.edge_stamps[e] = self.generation;
        self.adjacency_stamps[old] = self.generation;
        self.adjacency_stamps[from] = self.generation;
    }

    /// Removes many edges: the same as [`Game::remove_edge`] on each, in time linear in the
    /// adjacency lists touched (one edge at a time costs the length of its lists each, which
    /// is quadratic at a node entered by many removed edges).
    pub fn remove_edges(&mut self, edges: &[EdgeId]) {
        let mut touched: Vec<NodeId> = Vec::new();
        let stamp = fresh_stamp();
        for &e in edges {
            let d = &mut self.edges[e];
            if !d.alive {
                continue;
            }
            d.alive = false;
            touched.push(d.from);
            touched.push(d.to);
            let label = d.label;
            self.live_edges -= 1;
            self.count_label(&label, false);
            self.edge_stamps[e] = stamp;
        }
        if touched.is_empty() {
            return;
        }
        touched.sort_unstable();
        touched.dedup();
        // Every touched node was an endpoint of a live edge.
        for n in touched {
            let edges = &self.edges;
            self.outgoing[n].retain(|&x| edges[x].alive);
            self.incoming[n].retain(|&x| edges[x].alive);
            self.live_nodes -= usize::from(!self.linked(n));
            self.adjacency_stamps[n] = stamp;
        }
        self.generation = stamp;
    }

    /// Moves the targets of many edges: the same as [`Game::set_target`] on each in order, in
    /// time linear in the adjacency lists touched (plus sorting the lists that grow).
    pub fn set_targets(&mut self, moves: &[(EdgeId, NodeId)]) {
        self.move_ends(moves, false);
    }

    /// Moves the sources of many edges: the same as [`Game::set_source`] on each in order, in
    /// time linear in the adjacency lists touched (plus sorting the lists that grow).
    pub fn set_sources(&mut self, moves: &[(EdgeId, NodeId)]) {
        self.move_ends(moves, true);
    }

    fn move_ends(&mut self, moves: &[(EdgeId, NodeId)], source: bool) {
        let mut touched: Vec<NodeId> = Vec::new();
        let mut moved: Vec<EdgeId> = Vec::new();
        for &(e, n) in moves {
            let d = &mut self.edges[e];
            let end = if source { &mut d.from } else { &mut d.to };
            if *end == n || !d.alive {
                continue;
            }
            touched.push(*end);
            touched.push(n);
            *end = n;
            moved.push(e);
        }
        if moved.is_empty() {
            return;
        }
        touched.sort_unstable();
        touched.dedup();
        let linked_before = touched.iter().filter(|&&n| self.linked(n)).count();
        let edges = &self.edges;
        let lists = if source {
            &mut self.outgoing
        } else {
            &mut self.incoming
        };
        let end_of = |x: EdgeId| if source { edges[x].from } else { edges[x].to };
        for &n in &touched {
            lists[n].retain(|&x| end_of(x) == n);
        }
        for &e in &moved {
            lists[end_of(e)].push(e);
        }
        for &n in &touched {
            let list = &mut lists[n];
            list.sort_unstable();
            list.dedup();
        }
        let linked_after = touched.iter().filter(|&&n| self.linked(n)).count();
        self.live_nodes = self.live_nodes + linked_after - linked_before;
        self.generation = fresh_stamp();
        for &e in &moved {
            self.edge_stamps[e] = self.generation;
        }
        for &n in &touched {
            self.adjacency_stamps[n] = self.generation;
        }
    }

    // ----- bookkeeping -------------------------------------------------------------------------

    /// The version of the game: it differs after every change to the game — every mutation of
    /// the automaton through this API and every change of a declaration list (see [`Decls`]) —
    /// and never repeats (versions are stamps of one process-wide counter, so two clones that
    /// change independently, or a game rebuilt from scratch, never share one). Writing
    /// something equal to what is there (the same label, the same target, an equal
    /// declaration) is not a change. Analyses computed at one generation stay valid while the
    /// generation is the same; the pass manager decides whether a pass changed the game by it.
    pub fn generation(&self) -> u64 {
        self.generation
            .max(self.typedefs.version())
            .max(self.constants.version())
            .max(self.variables.version())
            .max(self.pragmas.version())
    }

    /// [`Game::generation`] without the pragma list: it differs after every change of the
    /// automaton and of the type, constant and variable declarations, and stays the same when
    /// only pragmas change. Analyses that never read pragmas stay valid while it is the same
    /// (the pragma passes of a pipeline's final phase change only pragmas, one after another).
    pub fn generation_without_pragmas(&self) -> u64 {
        self.generation
            .max(self.typedefs.version())
            .max(self.constants.version())
            .max(self.variables.version())
    }

    /// The state of the game before tentative declarations (a pass that declares a type or
    /// constant to type-check a rewrite, and drops it when the rewrite does not check).
    pub fn mark(&self) -> GameMark {
        GameMark {
            automaton: self.generation,
            typedefs: self.typedefs.mark(),
            constants: self.constants.mark(),
            variables: self.variables.mark(),
            pragmas: self.pragmas.mark(),
        }
    }

    /// Drops the declarations appended since `mark`. When nothing else changed since, the game
    /// is exactly as it was and gets its old generation back: a tentative declaration that was
    /// undone is not a change.
    pub fn rollback(&mut self, mark: GameMark) {
        let exact = self.generation == mark.automaton
            && self.typedefs.only_appended_since(mark.typedefs)
            && self.constants.only_appended_since(mark.constants)
            && self.variables.only_appended_since(mark.variables)
            && self.pragmas.only_appended_since(mark.pragmas);
        self.typedefs.rollback(mark.typedefs, exact);
        self.constants.rollback(mark.constants, exact);
        self.variables.rollback(mark.variables, exact);
        self.pragmas.rollback(mark.pragmas, exact);
    }

    /// Whether `n` is referenced by a live edge, a reachability label or a pragma.
    fn referenced_nodes(&self) -> Vec<bool> {
        let mut used = vec![false; self.nodes.len()];
        for (_, e) in self.edges() {
            used[e.from.index()] = true;
            used[e.to.index()] = true;
            if let Label::Reach { from, to, .. } = e.label {
                used[from.index()] = true;
                used[to.index()] = true;
            }
        }
        for p in &self.pragmas {
            p.kind.for_each_node(|n| used[n.index()] = true);
        }
        used
    }

    /// Renumbers live edges and referenced nodes densely, preserving relative order, and remaps
    /// every reference (labels, pragmas). Returns `true` if anything was dropped.
    pub fn compact(&mut self) -> bool {
        let used = self.referenced_nodes();
        let dead_edges = self.edges.len() - self.live_edges;
        if dead_edges == 0 && used.iter().all(|&u| u) {
            return false;
        }
        // Renumbered in place: the adjacency lists of the kept nodes are reused with their edge
        // ids mapped (the mapping keeps the order, so they stay sorted) instead of rebuilt one
        // push at a time, and the name table is updated instead of rebuilt — on a translation of
        // millions of nodes the allocations were most of the cost.
        let mut node_map: Vec<Option<NodeId>> = vec![None; self.nodes.len()];
        let mut nodes = IndexVec::with_capacity(self.nodes.len());
        for (id, data) in self.nodes.iter() {
            if used[id.index()] {
                node_map[id.index()] = Some(nodes.push(data.clone()));
            }
        }
        let remap = |n: NodeId| node_map[n.index()].expect("referenced node kept by compact");
        let mut edge_map: Vec<u32> = vec![u32::MAX; self.edges.len()];
        let old_edges = std::mem::take(&mut self.edges);
        let mut edges: IndexVec<EdgeId, EdgeData> = IndexVec::with_capacity(self.live_edges);
        for (old, mut e) in old_edges.into_raw().into_iter().enumerate() {
            if !e.alive {
                continue;
            }
            e.from = remap(e.from);
            e.to = remap(e.to);
            if let Label::Reach { from, to, negated } = e.label {
                e.label = Label::Reach {
                    from: remap(from),
                    to: remap(to),
                    negated,
                };
            }
            edge_map[old] = edges.push(e).index() as u32;
        }
        let relist = |lists: IndexVec<NodeId, Vec<EdgeId>>| -> IndexVec<NodeId, Vec<EdgeId>> {
            lists
                .into_raw()
                .into_iter()
                .zip(&used)
                .filter(|&(_, &u)| u)
                .map(|(mut list, _)| {
                    for e in &mut list {
                        *e = EdgeId::new(edge_map[e.index()] as usize);
                    }
                    list
                })
                .collect()
        };
        self.outgoing = relist(std::mem::take(&mut self.outgoing));
        self.incoming = relist(std::mem::take(&mut self.incoming));
        self.edges = edges;
        self.nodes = nodes;
        self.node_by_name.retain(|_, n| match node_map[n.index()] {
            Some(m) => {
                *n = m;
                true
            }
            None => false,
        });
        self.live_nodes = self.nodes.ids().filter(|&n| self.linked(n)).count();
        self.layout = Layout(fresh_stamp());
        let mut remap_mut = remap;
        // Renumbering is not a change of the pragma list (the generation is bumped below).
        for p in self.pragmas.raw_mut() {
            p.kind.map_nodes(&mut remap_mut);
        }
        self.generation = fresh_stamp();
        // A new numbering: every element counts as changed now.
        self.edge_stamps = IndexVec::from_elem(self.generation, self.edges.len());
        self.adjacency_stamps = IndexVec::from_elem(self.generation, self.nodes.len());
        true
    }

    // ----- structural equality -------------------------------------------------------------------

    /// Structural equality: the five lists compared element by element, spans ignored.
    pub fn structurally_eq(&self, other: &Game) -> bool {
        self.to_ast() == other.to_ast()
    }
}

/// The state of a game before tentative declarations (see [`Game::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameMark {
    automaton: u64,
    typedefs: DeclsMark,
    constants: DeclsMark,
    variables: DeclsMark,
    pragmas: DeclsMark,
}

/// First-occurrence lookup tables by name (see [`Game::name_index`]).
#[derive(Clone, Debug, Default)]
pub struct NameIndex {
    pub typedefs: std::sync::Arc<rustc_hash::FxHashMap<Symbol, usize>>,
    pub constants: std::sync::Arc<rustc_hash::FxHashMap<Symbol, usize>>,
    pub variables: std::sync::Arc<rustc_hash::FxHashMap<Symbol, usize>>,
}

/// The identity of a game's node numbering ([`Game::node_layout`]): a stamp, and a fresh one
/// for a clone.
#[derive(Debug)]
struct Layout(u64);

impl Clone for Layout {
    fn clone(&self) -> Self {
        Layout(fresh_stamp())
    }
}

fn remove_sorted(v: &mut Vec<EdgeId>, e: EdgeId) {
    if let Ok(i) = v.binary_search(&e) {
        v.remove(i);
    }
}

fn insert_sorted(v: &mut Vec<EdgeId>, e: EdgeId) {
    if let Err(i) = v.binary_search(&e) {
        v.insert(i, e);
    }
}

impl crate::decls::Named for Typedef {
    fn decl_name(&self) -> Symbol {
        self.name
    }
}

impl crate::decls::Named for Constant {
    fn decl_name(&self) -> Symbol {
        self.name
    }
}

impl crate::decls::Named for Variable {
    fn decl_name(&self) -> Symbol {
        self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast;
    use crate::ast::{Expr, Label as L, Type, Value};

    /// The counters behind `node_count`, `tag_edge_count` and `reach_edge_count` follow every
    /// kind of change of the automaton (compared with counting after each step of a seeded
    /// random sequence of edits), and so do the stamps: every edge and every adjacency list that
    /// an edit changed has a stamp above the generation before the edit.
    #[test]
    fn the_size_counters_follow_every_change() {
        let mut g = Game::new();
        let names: Vec<NodeId> = (0..12).map(|i| g.node_named(&format!("n{i}"))).collect();
        let x = g.sym("x");
        let labels = [
            Label::Skip,
            Label::Tag(x),
            Label::TagVar(x),
            Label::Reach {
                from: names[0],
                to: names[1],
                negated: false,
            },
        ];
        let check = |g: &Game| {
            let linked = g
                .nodes()
                .ids()
                .filter(|&n| !g.outgoing(n).is_empty() || !g.incoming(n).is_empty())
                .count();
            let tags = g.edges().filter(|(_, d)| d.label.is_tag()).count();
            let reach = g
                .edges()
                .filter(|(_, d)| matches!(d.label, Label::Reach { .. }))
                .count();
            assert_eq!(
                (g.node_count(), g.tag_edge_count(), g.reach_edge_count()),
                (linked, tags, reach)
            );
        };
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        type Snapshot = (
            Vec<(bool, NodeId, NodeId, Label)>,
            Vec<(Vec<EdgeId>, Vec<EdgeId>)>,
        );
        let snapshot = |g: &Game| -> Snapshot {
            (
                g.edge_entries()
                    .iter()
                    .map(|(_, d)| (d.alive, d.from, d.to, d.label))
                    .collect(),
                g.nodes()
                    .ids()
                    .map(|n| (g.outgoing(n).to_vec(), g.incoming(n).to_vec()))
                    .collect(),
            )
        };
        let stamped = |g: &Game, (edges, nodes): &Snapshot, before: u64| {
            for (e, d) in g.edge_entries().iter() {
                let was = edges.get(e.index());
                if was != Some(&(d.alive, d.from, d.to, d.label)) {
                    assert!(g.edge_stamp(e) > before, "edge {e:?} changed unstamped");
                }
            }
            for (n, lists) in nodes.iter().enumerate() {
                let n = NodeId::new(n);
                if (g.outgoing(n), g.incoming(n)) != (&lists.0[..], &lists.1[..]) {
                    assert!(
                        g.adjacency_stamp(n) > before,
                        "node {n:?} changed unstamped"
                    );
                }
            }
        };
        for _ in 0..2000 {
            let live: Vec<EdgeId> = g.edges().map(|(e, _)| e).collect();
            let node = names[next(names.len())];
            let before = (snapshot(&g), g.generation());
            match next(8) {
                0 | 1 => {
                    let to = names[next(names.len())];
                    g.add_edge(node, to, labels[next(labels.len())]);
                }
                2 if !live.is_empty() => g.remove_edge(live[next(live.len())]),
                3 if !live.is_empty() => g.set_label(live[next(live.len())], labels[next(4)]),
                4 if !live.is_empty() => g.set_target(live[next(live.len())], node),
                5 if !live.is_empty() => g.set_source(live[next(live.len())], node),
                6 if !live.is_empty() => {
                    let some: Vec<EdgeId> = live.iter().copied().filter(|_| next(3) == 0).collect();
                    g.remove_edges(&some);
                }
                7 if !live.is_empty() => {
                    let mut moves: Vec<(EdgeId, NodeId)> = Vec::new();
                    for &e in &live {
                        if next(3) == 0 {
                            moves.push((e, names[next(names.len())]));
                        }
                    }
                    if next(2) == 0 {
                        g.set_targets(&moves);
                    } else {
                        g.set_sources(&moves);
                    }
                }
                _ => {}
            }
            check(&g);
            stamped(&g, &before.0, before.1);
        }
        let layout = g.node_layout();
        assert_ne!(g.clone().node_layout(), layout);
        g.compact();
        check(&g);
        assert_ne!(g.node_layout(), layout);
    }

    #[test]
    fn lookups_by_name_follow_every_change_of_a_long_list() {
        let mut a = tiny();
        for i in 0..40 {
            a.variable(format!("w{i}"), Type::name("Player"), Value::elem("x"));
        }
        let mut g = Game::from_ast(&a);
        let sym = |g: &Game, n: &str| g.symbols().get(n).expect("interned");
        let (w7, w8) = (sym(&g, "w7"), sym(&g, "w8"));
        assert_eq!(g.variable(w7).map(|v| v.name), Some(w7));
        // Renaming w7 to w8 makes the first w8 the renamed one, and w7 disappears.
        let i7 = g.variables.iter().position(|v| v.name == w7).expect("w7");
        assert!(g.variables.update(i7, |v| v.name = w8));
        assert!(g.variable(w7).is_none());
        let first_w8 = g.variable(w8).map(|v| v as *const Variable);
        assert_eq!(first_w8, Some(&g.variables[i7] as *const Variable));
        // Dropping it leaves the original w8; a clone answers the same.
        g.variables.remove(i7);
        let h = g.clone();
        for game in [&g, &h] {
            let v = game.variable(w8).expect("w8");
            assert_eq!(
                game.variables.iter().position(|x| std::ptr::eq(x, v)),
                Some(i7)
            );
        }
        let w40 = g.sym("w40");
        let v = Variable {
            name: w40,
            ..g.variables[0].clone()
        };
        g.variables.push(v);
        assert!(g.variable(w40).is_some());
    }

    fn tiny() -> ast::Game {
        let mut g = ast::Game::new();
        g.typedef("Player", Type::set(["x"]))
            .typedef("Score", Type::set(["0"]))
            .variable("v", Type::name("Player"), Value::elem("x"))
            .edge("begin", "a", L::Skip)
            .edge(
                "a",
                "end",
                L::assign(Expr::name("player"), Expr::name("keeper")),
            )
            .edge("a", "b", L::reach("c", "d"))
            .pragma(ast::PragmaKind::Unique {
                nodes: vec!["zz".into()],
            });
        g
    }

    #[test]
    fn ast_round_trip_is_identity() {
        let a = tiny();
        let g = Game::from_ast(&a);
        assert_eq!(g.to_ast(), a);
        assert_eq!(g.edge_count(), 3);
        // begin, a, end, b, c, d, zz
        assert_eq!(g.node_capacity(), 7);
        assert_eq!(g.node_count(), 4);
    }

    #[test]
    fn removal_and_compaction_keep_order_and_references() {
        let mut g = Game::from_ast(&tiny());
        let first = g.edges().next().unwrap().0;
        g.remove_edge(first);
        assert_eq!(g.edge_count(), 2);
        assert!(g.compact());
        let a = g.to_ast();
        assert_eq!(a.edges.len(), 2);
        assert_eq!(a.edges[0].from.as_str(), "a");
        // `begin` no longer referenced; c, d, zz still are.
        assert!(g.begin().is_none());
        assert!(g.find_node(g.find_sym("zz").unwrap()).is_some());
        assert!(!g.compact());
    }

    /// The batch edits leave the same adjacency lists (sorted) as the one-edge edits in order,
    /// also when an edge moves twice or back, or is removed twice.
    #[test]
    fn batch_edits_equal_the_single_edits() {
        let star = |g: &mut Game| -> (Vec<NodeId>, Vec<EdgeId>) {
            let nodes: Vec<NodeId> = (0..8).map(|i| g.node_named(&format!("n{i}"))).collect();
            let mut edges = Vec::new();
            for i in 0..40 {
                let (a, b) = (nodes[(i * 3) % 8], nodes[(i * 5 + 1) % 8]);
                edges.push(g.add_edge(a, b, Label::Skip));
            }
            (nodes, edges)
        };
        let lists = |g: &Game, nodes: &[NodeId]| -> Vec<(Vec<EdgeId>, Vec<EdgeId>)> {
            nodes
                .iter()
                .map(|&n| (g.outgoing(n).to_vec(), g.incoming(n).to_vec()))
                .collect()
        };
        let (mut one, mut batch) = (Game::new(), Game::new());
        let (nodes, edges) = star(&mut one);
        star(&mut batch);
        let moves: Vec<(EdgeId, NodeId)> = (0..60)
            .map(|i| (edges[(i * 7) % 40], nodes[(i * 11) % 8]))
            .chain([
                (edges[3], nodes[0]),
                (edges[3], nodes[5]),
                (edges[3], nodes[0]),
            ])
            .collect();
        for &(e, n) in &moves {
            one.set_target(e, n);
        }
        batch.set_targets(&moves);
        assert_eq!(lists(&one, &nodes), lists(&batch, &nodes));
        for &(e, n) in moves.iter().rev() {
            one.set_source(e, n);
        }
        let reversed: Vec<_> = moves.iter().rev().copied().collect();
        batch.set_sources(&reversed);
        assert_eq!(lists(&one, &nodes), lists(&batch, &nodes));
        let removed: Vec<EdgeId> = (0..30).map(|i| edges[(i * 13) % 40]).collect();
        for &e in &removed {
            one.remove_edge(e);
        }
        let before = batch.generation();
        batch.remove_edges(&removed);
        assert_ne!(before, batch.generation());
        assert_eq!(lists(&one, &nodes), lists(&batch, &nodes));
        assert_eq!(one.edge_count(), batch.edge_count());
        // Nothing left to change: no new generation.
        let before = batch.generation();
        batch.remove_edges(&removed);
        batch.set_targets(&[(edges[0], batch.edge(edges[0]).to)]);
        assert_eq!(before, batch.generation());
    }

    #[test]
    fn hash_consing_shares_equal_structure() {
        let mut g = Game::new();
        let x = g.sym("x");
        let a = g.expr_ref(x);
        let b = g.expr_ref(x);
        assert_eq!(a, b);
        let s1 = g.type_set([x]);
        let s2 = g.type_set([x]);
        assert_eq!(s1, s2);
    }
}
