//! The core IR: an owned, interned, index-based game (ARCHITECTURE.md §3).
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

use crate::ast;
use crate::ids::{EntityId, IndexVec, UniqueArena};
use crate::interner::{Interner, Symbol};
use crate::span::{Loc, Span};
use std::collections::HashMap;

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

/// A type (rg.md §3.3).
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

/// A value (rg.md §3.4).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueData {
    /// A symbol, or the name of a constant.
    Element(Symbol),
    /// A map, entries in written order.
    Map(Box<[MapEntry]>),
}

/// An expression (rg.md §3.5).
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
#[derive(Clone, Debug)]
pub struct Typedef {
    pub name: Symbol,
    pub ty: TypeId,
    pub spans: Spans,
}

/// `const N: T = V;`
#[derive(Clone, Debug)]
pub struct Constant {
    pub name: Symbol,
    pub ty: TypeId,
    pub value: ValueId,
    pub spans: Spans,
}

/// `var N: T = V;`
#[derive(Clone, Debug)]
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

/// A pragma (rg.md §3.6, §9), referencing nodes by id.
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
#[derive(Clone, Debug)]
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
    /// Type definitions in declaration order (duplicates kept).
    pub typedefs: Vec<Typedef>,
    /// Constants in declaration order (duplicates kept).
    pub constants: Vec<Constant>,
    /// Variables in declaration order (duplicates kept).
    pub variables: Vec<Variable>,
    /// Pragmas in list order.
    pub pragmas: Vec<Pragma>,
    nodes: IndexVec<NodeId, NodeData>,
    node_by_name: HashMap<Symbol, NodeId>,
    edges: IndexVec<EdgeId, EdgeData>,
    outgoing: IndexVec<NodeId, Vec<EdgeId>>,
    incoming: IndexVec<NodeId, Vec<EdgeId>>,
    live_edges: usize,
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
            typedefs: Vec::new(),
            constants: Vec::new(),
            variables: Vec::new(),
            pragmas: Vec::new(),
            nodes: IndexVec::new(),
            node_by_name: HashMap::new(),
            edges: IndexVec::new(),
            outgoing: IndexVec::new(),
            incoming: IndexVec::new(),
            live_edges: 0,
            well_known,
            phase: Phase::Parsed,
            generation: 0,
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

    /// Symbols with a special meaning (rg.md §5.3).
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

    /// The root name of an expression (rg.md §7.4).
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
        self.typedefs.iter().find(|t| t.name == name)
    }

    /// The first constant named `name`.
    pub fn constant(&self, name: Symbol) -> Option<&Constant> {
        self.constants.iter().find(|c| c.name == name)
    }

    /// The first variable named `name`.
    pub fn variable(&self, name: Symbol) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// First-occurrence indexes of typedefs, constants and variables by name, for checkers that
    /// look names up many times.
    pub fn name_index(&self) -> NameIndex {
        fn index<T>(items: &[T], name: impl Fn(&T) -> Symbol) -> HashMap<Symbol, usize> {
            let mut m = HashMap::with_capacity(items.len());
            for (i, t) in items.iter().enumerate() {
                m.entry(name(t)).or_insert(i);
            }
            m
        }
        NameIndex {
            typedefs: index(&self.typedefs, |t| t.name),
            constants: index(&self.constants, |c| c.name),
            variables: index(&self.variables, |v| v.name),
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
        self.node_by_name.insert(name, id);
        self.generation += 1;
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

    /// Number of distinct nodes that are an endpoint of some live edge (rg.md §13.5 `nodes`).
    pub fn node_count(&self) -> usize {
        self.nodes
            .ids()
            .filter(|&n| !self.outgoing[n].is_empty() || !self.incoming[n].is_empty())
            .count()
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
        self.generation += 1;
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
        let (from, to) = (d.from, d.to);
        remove_sorted(&mut self.outgoing[from], e);
        remove_sorted(&mut self.incoming[to], e);
        self.live_edges -= 1;
        self.generation += 1;
    }

    /// Replaces the label of a live edge.
    pub fn set_label(&mut self, e: EdgeId, label: Label) {
        if self.edges[e].label != label {
            self.edges[e].label = label;
            self.generation += 1;
        }
    }

    /// Moves the target of a live edge.
    pub fn set_target(&mut self, e: EdgeId, to: NodeId) {
        let old = self.edges[e].to;
        if old == to || !self.edges[e].alive {
            return;
        }
        remove_sorted(&mut self.incoming[old], e);
        insert_sorted(&mut self.incoming[to], e);
        self.edges[e].to = to;
        self.generation += 1;
    }

    /// Moves the source of a live edge.
    pub fn set_source(&mut self, e: EdgeId, from: NodeId) {
        let old = self.edges[e].from;
        if old == from || !self.edges[e].alive {
            return;
        }
        remove_sorted(&mut self.outgoing[old], e);
        insert_sorted(&mut self.outgoing[from], e);
        self.edges[e].from = from;
        self.generation += 1;
    }

    // ----- bookkeeping -------------------------------------------------------------------------

    /// A counter bumped by every structural mutation made through this API (direct writes to the
    /// public declaration lists must call [`Game::touch`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Records a mutation made directly to a public field.
    pub fn touch(&mut self) {
        self.generation += 1;
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
        let mut node_map: Vec<Option<NodeId>> = vec![None; self.nodes.len()];
        let mut nodes = IndexVec::with_capacity(self.nodes.len());
        for (id, data) in self.nodes.iter() {
            if used[id.index()] {
                node_map[id.index()] = Some(nodes.push(data.clone()));
            }
        }
        let remap = |n: NodeId| node_map[n.index()].expect("referenced node kept by compact");
        let old_edges = std::mem::take(&mut self.edges);
        self.nodes = nodes;
        self.node_by_name = self.nodes.iter().map(|(id, d)| (d.name, id)).collect();
        self.outgoing = self.nodes.ids().map(|_| Vec::new()).collect();
        self.incoming = self.nodes.ids().map(|_| Vec::new()).collect();
        self.live_edges = 0;
        for mut e in old_edges.as_slice().iter().filter(|e| e.alive).cloned() {
            e.from = remap(e.from);
            e.to = remap(e.to);
            if let Label::Reach { from, to, negated } = e.label {
                e.label = Label::Reach {
                    from: remap(from),
                    to: remap(to),
                    negated,
                };
            }
            let (f, t) = (e.from, e.to);
            let id = self.edges.push(e);
            self.outgoing[f].push(id);
            self.incoming[t].push(id);
            self.live_edges += 1;
        }
        let mut remap_mut = remap;
        for p in &mut self.pragmas {
            p.kind.map_nodes(&mut remap_mut);
        }
        self.generation += 1;
        true
    }

    // ----- structural equality -------------------------------------------------------------------

    /// Structural equality (rg.md §4): the five lists compared element by element, spans ignored.
    pub fn structurally_eq(&self, other: &Game) -> bool {
        self.to_ast() == other.to_ast()
    }
}

/// First-occurrence lookup tables by name (see [`Game::name_index`]).
#[derive(Clone, Debug, Default)]
pub struct NameIndex {
    pub typedefs: HashMap<Symbol, usize>,
    pub constants: HashMap<Symbol, usize>,
    pub variables: HashMap<Symbol, usize>,
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

// ===== AST ⇄ IR ==================================================================================

/// Collects part spans in pre-order while converting from the AST.
#[derive(Default)]
struct PartSpans {
    parts: Vec<Option<Span>>,
    any: bool,
}

impl PartSpans {
    fn push(&mut self, loc: Loc) {
        self.any |= loc.0.is_some();
        self.parts.push(loc.0);
    }

    fn finish(self, whole: Loc) -> Spans {
        Spans {
            whole: whole.0,
            parts: if self.any {
                self.parts.into_boxed_slice()
            } else {
                Box::new([])
            },
        }
    }
}

impl Game {
    /// Converts a syntax tree into the IR, interning every name. Node ids are assigned in order
    /// of first appearance (edges in order: source, target, reachability nodes; then pragmas).
    pub fn from_ast(ast: &ast::Game) -> Game {
        let mut g = Game::new();
        for t in &ast.typedefs {
            let mut ps = PartSpans::default();
            let name = g.ident(&t.name, &mut ps);
            let ty = g.lower_type(&t.ty, &mut ps);
            g.typedefs.push(Typedef {
                name,
                ty,
                spans: ps.finish(t.loc),
            });
        }
        for c in &ast.constants {
            let mut ps = PartSpans::default();
            let name = g.ident(&c.name, &mut ps);
            let ty = g.lower_type(&c.ty, &mut ps);
            let value = g.lower_value(&c.value, &mut ps);
            g.constants.push(Constant {
                name,
                ty,
                value,
                spans: ps.finish(c.loc),
            });
        }
        for v in &ast.variables {
            let mut ps = PartSpans::default();
            let name = g.ident(&v.name, &mut ps);
            let ty = g.lower_type(&v.ty, &mut ps);
            let init = g.lower_value(&v.init, &mut ps);
            g.variables.push(Variable {
                name,
                ty,
                init,
                spans: ps.finish(v.loc),
            });
        }
        g.edges = IndexVec::with_capacity(ast.edges.len());
        for e in &ast.edges {
            let mut ps = PartSpans::default();
            let from = g.node_ident(&e.from, &mut ps);
            let to = g.node_ident(&e.to, &mut ps);
            let label = g.lower_label(&e.label, &mut ps);
            g.add_edge_spanned(from, to, label, ps.finish(e.loc));
        }
        for p in &ast.pragmas {
            let kind = g.lower_pragma(&p.kind);
            g.pragmas.push(Pragma {
                kind,
                derived: false,
                span: p.loc.0,
            });
        }
        g
    }

    fn ident(&mut self, id: &ast::Ident, ps: &mut PartSpans) -> Symbol {
        ps.push(id.loc);
        self.sym(&id.name)
    }

    fn node_ident(&mut self, id: &ast::Ident, ps: &mut PartSpans) -> NodeId {
        ps.push(id.loc);
        let n = self.node_named(&id.name);
        self.set_node_span(n, id.loc.0);
        n
    }

    fn pragma_node(&mut self, id: &ast::Ident) -> NodeId {
        let n = self.node_named(&id.name);
        self.set_node_span(n, id.loc.0);
        n
    }

    fn lower_type(&mut self, t: &ast::Type, ps: &mut PartSpans) -> TypeId {
        ps.push(t.loc());
        match t {
            ast::Type::Arrow { lhs, rhs, .. } => {
                let l = self.lower_type(lhs, ps);
                let r = self.lower_type(rhs, ps);
                self.type_arrow(l, r)
            }
            ast::Type::Set { members, .. } => {
                let ms: Vec<Symbol> = members.iter().map(|m| self.ident(m, ps)).collect();
                self.type_set(ms)
            }
            ast::Type::Name(id) => {
                let s = self.sym(&id.name);
                self.type_name(s)
            }
        }
    }

    fn lower_value(&mut self, v: &ast::Value, ps: &mut PartSpans) -> ValueId {
        ps.push(v.loc());
        match v {
            ast::Value::Element(id) => {
                let s = self.sym(&id.name);
                self.value_elem(s)
            }
            ast::Value::Map { entries, .. } => {
                let mut es = Vec::with_capacity(entries.len());
                for e in entries {
                    ps.push(e.loc);
                    let key = e.key.as_ref().map(|k| self.ident(k, ps));
                    let value = self.lower_value(&e.value, ps);
                    es.push(MapEntry { key, value });
                }
                self.value_map(es)
            }
        }
    }

    fn lower_expr(&mut self, e: &ast::Expr, ps: &mut PartSpans) -> ExprId {
        ps.push(e.loc());
        match e {
            ast::Expr::Access { lhs, rhs, .. } => {
                let l = self.lower_expr(lhs, ps);
                let r = self.lower_expr(rhs, ps);
                self.expr_access(l, r)
            }
            ast::Expr::Cast { ty, expr, .. } => {
                let t = self.lower_type(ty, ps);
                let x = self.lower_expr(expr, ps);
                self.expr_cast(t, x)
            }
            ast::Expr::Ref(id) => {
                let s = self.sym(&id.name);
                self.expr_ref(s)
            }
        }
    }

    /// Converts a label (used by parsers and front-ends that build edges one by one).
    fn lower_label(&mut self, l: &ast::Label, ps: &mut PartSpans) -> Label {
        // The label occurrence itself has no separate loc in the AST; its slot carries the
        // span of its first piece so the pre-order stays fixed.
        let label_slot = ps.parts.len();
        ps.parts.push(None);
        let label = match l {
            ast::Label::Assign { lhs, rhs } => Label::Assign {
                lhs: self.lower_expr(lhs, ps),
                rhs: self.lower_expr(rhs, ps),
            },
            ast::Label::AssignAny { lhs, ty } => Label::AssignAny {
                lhs: self.lower_expr(lhs, ps),
                ty: self.lower_type(ty, ps),
            },
            ast::Label::Compare { lhs, rhs, negated } => Label::Compare {
                lhs: self.lower_expr(lhs, ps),
                rhs: self.lower_expr(rhs, ps),
                negated: *negated,
            },
            ast::Label::Reach { from, to, negated } => Label::Reach {
                from: self.node_ident(from, ps),
                to: self.node_ident(to, ps),
                negated: *negated,
            },
            ast::Label::Skip => Label::Skip,
            ast::Label::Tag(s) => Label::Tag(self.ident(s, ps)),
            ast::Label::TagVar(v) => Label::TagVar(self.ident(v, ps)),
        };
        // The label's span runs from its first to its last piece.
        let pieces = &ps.parts[label_slot + 1..];
        let first = pieces.iter().flatten().next().copied();
        let last = pieces.iter().flatten().next_back().copied();
        ps.parts[label_slot] = match (first, last) {
            (Some(a), Some(b)) => Some(a.to(b)),
            _ => None,
        };
        label
    }

    fn lower_pragma(&mut self, p: &ast::PragmaKind) -> PragmaKind {
        use ast::PragmaKind as A;
        let syms = |g: &mut Game, ids: &[ast::Ident]| -> Vec<Symbol> {
            ids.iter().map(|i| g.sym(&i.name)).collect()
        };
        let nodes = |g: &mut Game, ids: &[ast::Ident]| -> Vec<NodeId> {
            ids.iter().map(|i| g.pragma_node(i)).collect()
        };
        match p {
            A::ArtificialTag { tags } => PragmaKind::ArtificialTag(syms(self, tags)),
            A::Disjoint { node, nodes: ns } => PragmaKind::Disjoint {
                node: self.pragma_node(node),
                nodes: nodes(self, ns),
            },
            A::DisjointExhaustive { node, nodes: ns } => PragmaKind::DisjointExhaustive {
                node: self.pragma_node(node),
                nodes: nodes(self, ns),
            },
            A::Integer { offset, symbols } => PragmaKind::Integer {
                offset: *offset,
                symbols: syms(self, symbols),
            },
            A::Iterator { a, b, c, variable } => PragmaKind::Iterator {
                a: self.pragma_node(a),
                b: self.pragma_node(b),
                c: self.pragma_node(c),
                variable: self.sym(&variable.name),
            },
            A::Repeat {
                nodes: ns,
                variables,
            } => PragmaKind::Repeat {
                nodes: nodes(self, ns),
                variables: syms(self, variables),
            },
            A::SimpleApply {
                from,
                to,
                tags,
                assignments,
            }
            | A::SimpleApplyExhaustive {
                from,
                to,
                tags,
                assignments,
            } => {
                let exhaustive = matches!(p, A::SimpleApplyExhaustive { .. });
                let from = self.pragma_node(from);
                let to = self.pragma_node(to);
                let mut scratch = PartSpans::default();
                let tags = tags
                    .iter()
                    .map(|t| match t {
                        ast::PragmaTag::Symbol(s) => PragmaTag::Symbol(self.sym(&s.name)),
                        ast::PragmaTag::Variable { name, ty } => {
                            let n = self.sym(&name.name);
                            PragmaTag::Variable(n, self.lower_type(ty, &mut scratch))
                        }
                    })
                    .collect();
                let assignments = assignments
                    .iter()
                    .map(|a| {
                        (
                            self.lower_expr(&a.lhs, &mut scratch),
                            self.lower_expr(&a.rhs, &mut scratch),
                        )
                    })
                    .collect();
                PragmaKind::SimpleApply {
                    from,
                    to,
                    tags,
                    assignments,
                    exhaustive,
                }
            }
            A::TagIndex { index, nodes: ns } => PragmaKind::TagIndex {
                index: *index,
                nodes: nodes(self, ns),
            },
            A::TagMaxIndex { index, nodes: ns } => PragmaKind::TagMaxIndex {
                index: *index,
                nodes: nodes(self, ns),
            },
            A::TranslatedFromRbg => PragmaKind::TranslatedFromRbg,
            A::Unique { nodes: ns } => PragmaKind::Unique(nodes(self, ns)),
            A::Unknown { content } => PragmaKind::Unknown(content.as_str().into()),
        }
    }

    /// Converts back to a syntax tree (live edges in id order), restoring recorded locations.
    pub fn to_ast(&self) -> ast::Game {
        let mut out = ast::Game::new();
        for t in &self.typedefs {
            let mut cur = Cursor::new(&t.spans);
            out.typedefs.push(ast::Typedef {
                name: self.ident_out(t.name, &mut cur),
                ty: self.type_out(t.ty, &mut cur),
                loc: Loc(t.spans.whole),
            });
        }
        for c in &self.constants {
            let mut cur = Cursor::new(&c.spans);
            out.constants.push(ast::Constant {
                name: self.ident_out(c.name, &mut cur),
                ty: self.type_out(c.ty, &mut cur),
                value: self.value_out(c.value, &mut cur),
                loc: Loc(c.spans.whole),
            });
        }
        for v in &self.variables {
            let mut cur = Cursor::new(&v.spans);
            out.variables.push(ast::Variable {
                name: self.ident_out(v.name, &mut cur),
                ty: self.type_out(v.ty, &mut cur),
                init: self.value_out(v.init, &mut cur),
                loc: Loc(v.spans.whole),
            });
        }
        for (_, e) in self.edges() {
            let mut cur = Cursor::new(&e.spans);
            let from = self.node_out(e.from, &mut cur);
            let to = self.node_out(e.to, &mut cur);
            cur.next(); // the label slot
            let label = match e.label {
                Label::Assign { lhs, rhs } => ast::Label::Assign {
                    lhs: self.expr_out(lhs, &mut cur),
                    rhs: self.expr_out(rhs, &mut cur),
                },
                Label::AssignAny { lhs, ty } => ast::Label::AssignAny {
                    lhs: self.expr_out(lhs, &mut cur),
                    ty: self.type_out(ty, &mut cur),
                },
                Label::Compare { lhs, rhs, negated } => ast::Label::Compare {
                    lhs: self.expr_out(lhs, &mut cur),
                    rhs: self.expr_out(rhs, &mut cur),
                    negated,
                },
                Label::Reach { from, to, negated } => ast::Label::Reach {
                    from: self.node_out(from, &mut cur),
                    to: self.node_out(to, &mut cur),
                    negated,
                },
                Label::Skip => ast::Label::Skip,
                Label::Tag(s) => ast::Label::Tag(self.ident_out(s, &mut cur)),
                Label::TagVar(s) => ast::Label::TagVar(self.ident_out(s, &mut cur)),
            };
            out.edges.push(ast::Edge {
                from,
                to,
                label,
                loc: Loc(e.spans.whole),
            });
        }
        for p in &self.pragmas {
            out.pragmas.push(ast::Pragma {
                kind: self.pragma_out(&p.kind),
                loc: Loc(p.span),
            });
        }
        out
    }

    fn ident_out(&self, s: Symbol, cur: &mut Cursor<'_>) -> ast::Ident {
        ast::Ident {
            name: self.name(s).to_owned(),
            loc: Loc(cur.next()),
        }
    }

    fn node_out(&self, n: NodeId, cur: &mut Cursor<'_>) -> ast::Ident {
        ast::Ident {
            name: self.node_name(n).to_owned(),
            loc: Loc(cur.next()),
        }
    }

    fn type_out(&self, t: TypeId, cur: &mut Cursor<'_>) -> ast::Type {
        let loc = Loc(cur.next());
        match self.ty(t) {
            TypeData::Arrow(l, r) => ast::Type::Arrow {
                lhs: Box::new(self.type_out(*l, cur)),
                rhs: Box::new(self.type_out(*r, cur)),
                loc,
            },
            TypeData::Set(ms) => ast::Type::Set {
                members: ms.iter().map(|&m| self.ident_out(m, cur)).collect(),
                loc,
            },
            TypeData::Name(n) => ast::Type::Name(ast::Ident {
                name: self.name(*n).to_owned(),
                loc,
            }),
        }
    }

    fn value_out(&self, v: ValueId, cur: &mut Cursor<'_>) -> ast::Value {
        let loc = Loc(cur.next());
        match self.value(v) {
            ValueData::Element(s) => ast::Value::Element(ast::Ident {
                name: self.name(*s).to_owned(),
                loc,
            }),
            ValueData::Map(entries) => ast::Value::Map {
                entries: entries
                    .iter()
                    .map(|e| {
                        let eloc = Loc(cur.next());
                        let key = e.key.map(|k| self.ident_out(k, cur));
                        ast::Entry {
                            key,
                            value: self.value_out(e.value, cur),
                            loc: eloc,
                        }
                    })
                    .collect(),
                loc,
            },
        }
    }

    fn expr_out(&self, e: ExprId, cur: &mut Cursor<'_>) -> ast::Expr {
        let loc = Loc(cur.next());
        match self.expr(e) {
            ExprData::Access(l, r) => ast::Expr::Access {
                lhs: Box::new(self.expr_out(l, cur)),
                rhs: Box::new(self.expr_out(r, cur)),
                loc,
            },
            ExprData::Cast(t, x) => ast::Expr::Cast {
                ty: self.type_out(t, cur),
                expr: Box::new(self.expr_out(x, cur)),
                loc,
            },
            ExprData::Ref(s) => ast::Expr::Ref(ast::Ident {
                name: self.name(s).to_owned(),
                loc,
            }),
        }
    }

    fn pragma_out(&self, p: &PragmaKind) -> ast::PragmaKind {
        use ast::PragmaKind as A;
        let ids = |ss: &[Symbol]| ss.iter().map(|&s| ast::Ident::new(self.name(s))).collect();
        let nodes = |ns: &[NodeId]| {
            ns.iter()
                .map(|&n| ast::Ident::new(self.node_name(n)))
                .collect()
        };
        let node = |n: NodeId| ast::Ident::new(self.node_name(n));
        let mut none = Cursor::empty();
        match p {
            PragmaKind::ArtificialTag(tags) => A::ArtificialTag { tags: ids(tags) },
            PragmaKind::Disjoint { node: n, nodes: ns } => A::Disjoint {
                node: node(*n),
                nodes: nodes(ns),
            },
            PragmaKind::DisjointExhaustive { node: n, nodes: ns } => A::DisjointExhaustive {
                node: node(*n),
                nodes: nodes(ns),
            },
            PragmaKind::Integer { offset, symbols } => A::Integer {
                offset: *offset,
                symbols: ids(symbols),
            },
            PragmaKind::Iterator { a, b, c, variable } => A::Iterator {
                a: node(*a),
                b: node(*b),
                c: node(*c),
                variable: ast::Ident::new(self.name(*variable)),
            },
            PragmaKind::Repeat {
                nodes: ns,
                variables,
            } => A::Repeat {
                nodes: nodes(ns),
                variables: ids(variables),
            },
            PragmaKind::SimpleApply {
                from,
                to,
                tags,
                assignments,
                exhaustive,
            } => {
                let tags = tags
                    .iter()
                    .map(|t| match t {
                        PragmaTag::Symbol(s) => {
                            ast::PragmaTag::Symbol(ast::Ident::new(self.name(*s)))
                        }
                        PragmaTag::Variable(n, ty) => ast::PragmaTag::Variable {
                            name: ast::Ident::new(self.name(*n)),
                            ty: self.type_out(*ty, &mut none),
                        },
                    })
                    .collect();
                let assignments = assignments
                    .iter()
                    .map(|&(l, r)| ast::PragmaAssign {
                        lhs: self.expr_out(l, &mut none),
                        rhs: self.expr_out(r, &mut none),
                    })
                    .collect();
                if *exhaustive {
                    A::SimpleApplyExhaustive {
                        from: node(*from),
                        to: node(*to),
                        tags,
                        assignments,
                    }
                } else {
                    A::SimpleApply {
                        from: node(*from),
                        to: node(*to),
                        tags,
                        assignments,
                    }
                }
            }
            PragmaKind::TagIndex { index, nodes: ns } => A::TagIndex {
                index: *index,
                nodes: nodes(ns),
            },
            PragmaKind::TagMaxIndex { index, nodes: ns } => A::TagMaxIndex {
                index: *index,
                nodes: nodes(ns),
            },
            PragmaKind::TranslatedFromRbg => A::TranslatedFromRbg,
            PragmaKind::Unique(ns) => A::Unique { nodes: nodes(ns) },
            PragmaKind::Unknown(c) => A::Unknown {
                content: c.to_string(),
            },
        }
    }
}

/// Reads part spans back in pre-order.
struct Cursor<'a> {
    parts: &'a [Option<Span>],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(spans: &'a Spans) -> Self {
        Cursor {
            parts: &spans.parts,
            at: 0,
        }
    }

    fn empty() -> Self {
        Cursor { parts: &[], at: 0 }
    }

    fn next(&mut self) -> Option<Span> {
        let s = self.parts.get(self.at).copied().flatten();
        self.at += 1;
        s
    }
}

/// Number of pre-order span slots a type occupies (see the module doc).
pub fn type_slots(g: &Game, t: TypeId) -> usize {
    match g.ty(t) {
        TypeData::Arrow(l, r) => 1 + type_slots(g, *l) + type_slots(g, *r),
        TypeData::Set(ms) => 1 + ms.len(),
        TypeData::Name(_) => 1,
    }
}

/// Number of pre-order span slots a value occupies.
pub fn value_slots(g: &Game, v: ValueId) -> usize {
    match g.value(v) {
        ValueData::Element(_) => 1,
        ValueData::Map(es) => {
            1 + es
                .iter()
                .map(|e| 1 + usize::from(e.key.is_some()) + value_slots(g, e.value))
                .sum::<usize>()
        }
    }
}

/// Number of pre-order span slots an expression occupies.
pub fn expr_slots(g: &Game, e: ExprId) -> usize {
    match g.expr(e) {
        ExprData::Access(l, r) => 1 + expr_slots(g, l) + expr_slots(g, r),
        ExprData::Cast(t, x) => 1 + type_slots(g, t) + expr_slots(g, x),
        ExprData::Ref(_) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Expr, Label as L, Type, Value};

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
