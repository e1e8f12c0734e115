//! Conversion between the syntax tree ([`ast::Game`]) and the IR ([`Game`]): [`Game::from_ast`]
//! interns every name and records part spans in pre-order (see the parent module's doc);
//! [`Game::to_ast`] gives the tree back with the recorded locations. Printing, structural
//! equality and the front-ends that build a syntax tree go through these two.

use super::{
    Constant, ExprData, ExprId, Game, Label, MapEntry, NodeId, Pragma, PragmaKind, PragmaTag,
    Spans, TypeData, TypeId, Typedef, ValueData, ValueId, Variable,
};
use crate::ast;
use crate::ids::IndexVec;
use crate::interner::Symbol;
use crate::span::{Loc, Span};

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
