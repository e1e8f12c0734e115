//! The canonical RG printer: one declaration per line in the fixed order pragmas,
//! typedefs, constants, variables, edges; fixed spacing; maps of 100+ entries whose first value
//! is a map on several lines. Deterministic: the output depends only on the game's structure.
//!
//! Printing never panics, even on a game a buggy pass left inconsistent: an id out of range is
//! printed visibly as `<dead n12>` so traces and dumps still show what happened.

use crate::game::{
    EdgeData, ExprData, ExprId, Game, Label, NodeId, PragmaKind, PragmaTag, TypeData, TypeId,
    ValueData, ValueId,
};
use crate::interner::Symbol;
use std::fmt::Write;

/// The whole game in canonical form; every line ends with `\n`.
pub fn print(game: &Game) -> String {
    let mut p = Printer::new(game);
    p.game();
    p.out
}

/// One edge in canonical form, with its `;` (e.g. `begin, end: player = keeper;`).
pub fn print_edge(game: &Game, edge: &EdgeData) -> String {
    let mut p = Printer::new(game);
    p.edge(edge);
    p.out
}

/// A label in canonical form (e.g. `x = T(*)`, `? a -> b`, or empty for skip).
pub fn print_label(game: &Game, label: &Label) -> String {
    let mut p = Printer::new(game);
    p.label(label);
    p.out
}

/// A type in canonical form.
pub fn print_type(game: &Game, ty: TypeId) -> String {
    let mut p = Printer::new(game);
    p.ty(ty);
    p.out
}

/// A value in canonical form.
pub fn print_value(game: &Game, value: ValueId) -> String {
    let mut p = Printer::new(game);
    p.value(value);
    p.out
}

/// An expression in canonical form.
pub fn print_expr(game: &Game, expr: ExprId) -> String {
    let mut p = Printer::new(game);
    p.expr(expr);
    p.out
}

/// A declaration of a game: its kind and its index among the declarations of that kind (in
/// `game.pragmas`, `game.typedefs`, … and the edges in id order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclRef {
    Pragma(usize),
    Typedef(usize),
    Constant(usize),
    Variable(usize),
    Edge(usize),
}

/// Where [`print_decorated`] asks for text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Around {
    /// At the start of the declaration's first line.
    Before(DeclRef),
    /// After the declaration's `;`, before its line break.
    After(DeclRef),
}

/// The whole game in canonical form, with text added around each declaration by `around` (how
/// `rgt fmt` keeps comments, see [`crate::format`]).
pub fn print_decorated(game: &Game, around: &mut dyn FnMut(Around, &mut String)) -> String {
    let mut p = Printer::new(game);
    p.around = Some(around);
    p.game();
    p.out
}

/// The callback of [`print_decorated`].
type AroundFn<'a> = &'a mut dyn FnMut(Around, &mut String);

/// Streams canonical text into a string.
struct Printer<'g, 'a> {
    g: &'g Game,
    out: String,
    around: Option<AroundFn<'a>>,
}

impl<'g> Printer<'g, '_> {
    fn new(g: &'g Game) -> Self {
        Printer {
            g,
            out: String::new(),
            around: None,
        }
    }

    fn before(&mut self, d: DeclRef) {
        if let Some(f) = self.around.as_mut() {
            f(Around::Before(d), &mut self.out);
        }
    }

    /// Ends a declaration: the text after it, then the line break.
    fn after(&mut self, d: DeclRef) {
        if let Some(f) = self.around.as_mut() {
            f(Around::After(d), &mut self.out);
        }
        self.out.push('\n');
    }

    fn game(&mut self) {
        let g = self.g;
        self.out.reserve(g.edge_count() * 32);
        for (i, p) in g.pragmas.iter().enumerate() {
            self.before(DeclRef::Pragma(i));
            self.pragma(&p.kind);
            self.after(DeclRef::Pragma(i));
        }
        for (i, t) in g.typedefs.iter().enumerate() {
            self.before(DeclRef::Typedef(i));
            self.out.push_str("type ");
            self.sym(t.name);
            self.out.push_str(" = ");
            self.ty(t.ty);
            self.out.push(';');
            self.after(DeclRef::Typedef(i));
        }
        for (i, c) in g.constants.iter().enumerate() {
            self.before(DeclRef::Constant(i));
            self.out.push_str("const ");
            self.sym(c.name);
            self.out.push_str(": ");
            self.ty(c.ty);
            self.out.push_str(" = ");
            self.value(c.value);
            self.out.push(';');
            self.after(DeclRef::Constant(i));
        }
        for (i, v) in g.variables.iter().enumerate() {
            self.before(DeclRef::Variable(i));
            self.out.push_str("var ");
            self.sym(v.name);
            self.out.push_str(": ");
            self.ty(v.ty);
            self.out.push_str(" = ");
            self.value(v.init);
            self.out.push(';');
            self.after(DeclRef::Variable(i));
        }
        for (i, (_, e)) in g.edges().enumerate() {
            self.before(DeclRef::Edge(i));
            self.edge(e);
            self.after(DeclRef::Edge(i));
        }
    }

    fn sym(&mut self, s: Symbol) {
        match self.g.symbols().try_resolve(s) {
            Some(name) => self.out.push_str(name),
            None => {
                let _ = write!(self.out, "<dead {s}>");
            }
        }
    }

    fn node(&mut self, n: NodeId) {
        match self.g.nodes().get(n) {
            Some(d) => self.sym(d.name),
            None => {
                let _ = write!(self.out, "<dead {n}>");
            }
        }
    }

    fn edge(&mut self, e: &EdgeData) {
        self.node(e.from);
        self.out.push_str(", ");
        self.node(e.to);
        self.out.push_str(": ");
        if matches!(e.label, Label::Skip) {
            // `a, b: ;` — the space before `;` comes from the separator.
            self.out.push(';');
        } else {
            self.label(&e.label);
            self.out.push(';');
        }
    }

    fn label(&mut self, l: &Label) {
        match *l {
            Label::Assign { lhs, rhs } => {
                self.expr(lhs);
                self.out.push_str(" = ");
                self.expr(rhs);
            }
            Label::AssignAny { lhs, ty } => {
                self.expr(lhs);
                self.out.push_str(" = ");
                self.ty(ty);
                self.out.push_str("(*)");
            }
            Label::Compare { lhs, rhs, negated } => {
                self.expr(lhs);
                self.out.push_str(if negated { " != " } else { " == " });
                self.expr(rhs);
            }
            Label::Reach { from, to, negated } => {
                self.out.push_str(if negated { "! " } else { "? " });
                self.node(from);
                self.out.push_str(" -> ");
                self.node(to);
            }
            Label::Skip => {}
            Label::Tag(s) => {
                self.out.push_str("$ ");
                self.sym(s);
            }
            Label::TagVar(s) => {
                self.out.push_str("$$ ");
                self.sym(s);
            }
        }
    }

    fn ty(&mut self, t: TypeId) {
        let Some(data) = self.g.types().get(t) else {
            let _ = write!(self.out, "<dead {t}>");
            return;
        };
        match data {
            TypeData::Arrow(l, r) => {
                self.ty(*l);
                self.out.push_str(" -> ");
                self.ty(*r);
            }
            TypeData::Set(ms) => {
                self.out.push_str("{ ");
                for (i, &m) in ms.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.sym(m);
                }
                self.out.push_str(" }");
            }
            TypeData::Name(n) => self.sym(*n),
        }
    }

    fn value(&mut self, v: ValueId) {
        let Some(data) = self.g.values().get(v) else {
            let _ = write!(self.out, "<dead {v}>");
            return;
        };
        match data {
            ValueData::Element(s) => self.sym(*s),
            ValueData::Map(entries) => {
                let multiline = entries.len() >= 100
                    && matches!(
                        self.g.values().get(entries[0].value),
                        Some(ValueData::Map(_))
                    );
                if entries.is_empty() {
                    self.out.push_str("{  }");
                    return;
                }
                let (open, sep, close) = if multiline {
                    ("{\n    ", ",\n    ", "\n}")
                } else {
                    ("{ ", ", ", " }")
                };
                self.out.push_str(open);
                for (i, e) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(sep);
                    }
                    match e.key {
                        Some(k) => {
                            self.sym(k);
                            self.out.push_str(": ");
                        }
                        None => self.out.push(':'),
                    }
                    self.value(e.value);
                }
                self.out.push_str(close);
            }
        }
    }

    fn expr(&mut self, e: ExprId) {
        let Some(&data) = self.g.exprs().get(e) else {
            let _ = write!(self.out, "<dead {e}>");
            return;
        };
        match data {
            ExprData::Access(l, r) => {
                self.expr(l);
                self.out.push('[');
                self.expr(r);
                self.out.push(']');
            }
            ExprData::Cast(t, x) => {
                self.ty(t);
                self.out.push('(');
                self.expr(x);
                self.out.push(')');
            }
            ExprData::Ref(s) => self.sym(s),
        }
    }

    fn nodes(&mut self, ns: &[NodeId]) {
        for &n in ns {
            self.out.push(' ');
            self.node(n);
        }
    }

    fn syms(&mut self, ss: &[Symbol]) {
        for &s in ss {
            self.out.push(' ');
            self.sym(s);
        }
    }

    fn pragma(&mut self, p: &PragmaKind) {
        match p {
            PragmaKind::ArtificialTag(tags) => {
                self.out.push_str("@artificialTag");
                self.syms(tags);
            }
            PragmaKind::Disjoint { node, nodes }
            | PragmaKind::DisjointExhaustive { node, nodes } => {
                self.out
                    .push_str(if matches!(p, PragmaKind::Disjoint { .. }) {
                        "@disjoint "
                    } else {
                        "@disjointExhaustive "
                    });
                self.node(*node);
                self.out.push_str(" :");
                self.nodes(nodes);
            }
            PragmaKind::Integer { offset, symbols } => {
                let _ = write!(self.out, "@integer {offset} :");
                self.syms(symbols);
            }
            PragmaKind::Iterator { a, b, c, variable } => {
                self.out.push_str("@iterator");
                self.nodes(&[*a, *b, *c]);
                self.out.push_str(" : ");
                self.sym(*variable);
            }
            PragmaKind::Repeat { nodes, variables } => {
                self.out.push_str("@repeat");
                self.nodes(nodes);
                self.out.push_str(" :");
                self.syms(variables);
            }
            PragmaKind::SimpleApply {
                from,
                to,
                tags,
                assignments,
                exhaustive,
            } => {
                self.out.push_str(if *exhaustive {
                    "@simpleApplyExhaustive"
                } else {
                    "@simpleApply"
                });
                self.nodes(&[*from, *to]);
                self.out.push_str(" [");
                for (i, t) in tags.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match t {
                        PragmaTag::Symbol(s) => self.sym(*s),
                        PragmaTag::Variable(n, ty) => {
                            self.sym(*n);
                            self.out.push_str(": ");
                            self.ty(*ty);
                        }
                    }
                }
                self.out.push(']');
                for (i, &(l, r)) in assignments.iter().enumerate() {
                    self.out.push_str(if i > 0 { ", " } else { " " });
                    self.expr(l);
                    self.out.push_str(" = ");
                    self.expr(r);
                }
            }
            PragmaKind::TagIndex { index, nodes } | PragmaKind::TagMaxIndex { index, nodes } => {
                self.out
                    .push_str(if matches!(p, PragmaKind::TagIndex { .. }) {
                        "@tagIndex"
                    } else {
                        "@tagMaxIndex"
                    });
                self.nodes(nodes);
                let _ = write!(self.out, " : {index}");
            }
            PragmaKind::TranslatedFromRbg => self.out.push_str("@translatedFromRbg"),
            PragmaKind::Unique(nodes) => {
                self.out.push_str("@unique");
                self.nodes(nodes);
            }
            PragmaKind::Unknown(content) => {
                self.out.push('@');
                self.out.push_str(content);
            }
        }
        self.out.push(';');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn fmt(text: &str) -> String {
        print(&crate::parse(FileId(0), text).expect("parses"))
    }

    #[test]
    fn worked_example_of_rg_md_8_6() {
        let input = "// a comment\ntype   Side={l ,r};\n@unique a  b ;\nvar s:Side=l;   const flip : Side->Side = {l:r , :l};\nbegin,a:s=flip[s];\n";
        assert_eq!(
            fmt(input),
            "@unique a b;\ntype Side = { l, r };\nconst flip: Side -> Side = { l: r, :l };\nvar s: Side = l;\nbegin, a: s = flip[s];\n"
        );
    }

    #[test]
    fn every_label_and_pragma_form() {
        let input = "a,b:;a,b:$ t;a,b:$$ v;a,b:x==y;a,b:x!=T(y);a,b:m[k][j]=z;a,b:x=T(*);\
                     a,b:x={p,q}(*);a,b:x=A->B(*);a,b:?c->d;a,b:!c->d;\
                     @artificialTag t u;@disjoint a:b c;@disjointExhaustive a:b;@integer 007:s t;\
                     @iterator a b c:v;@repeat a b:;@repeat a:v w;@simpleApply a b[t,p: T]x=p,y=q;\
                     @simpleApplyExhaustive a b[];@tagIndex a b:0;@tagMaxIndex a:4;@translatedFromRbg;\
                     @uniqueFoo a;@ custom  stuff ;";
        assert_eq!(
            fmt(input),
            "@artificialTag t u;\n@disjoint a : b c;\n@disjointExhaustive a : b;\n@integer 7 : s t;\n\
             @iterator a b c : v;\n@repeat a b :;\n@repeat a : v w;\n@simpleApply a b [t, p: T] x = p, y = q;\n\
             @simpleApplyExhaustive a b [];\n@tagIndex a b : 0;\n@tagMaxIndex a : 4;\n@translatedFromRbg;\n\
             @unique Foo a;\n@ custom  stuff ;\n\
             a, b: ;\na, b: $ t;\na, b: $$ v;\na, b: x == y;\na, b: x != T(y);\na, b: m[k][j] = z;\n\
             a, b: x = T(*);\na, b: x = { p, q }(*);\na, b: x = A -> B(*);\na, b: ? c -> d;\na, b: ! c -> d;\n"
        );
    }

    #[test]
    fn maps_print_single_or_multi_line() {
        assert_eq!(
            fmt("const c: T = {};const d: T = { :a, b: { :c } };"),
            "const c: T = {  };\nconst d: T = { :a, b: { :c } };\n"
        );
        let mut big = String::from("const m: A -> B = {");
        for i in 0..100 {
            big.push_str(&format!("k{i}: {{ :x }}, "));
        }
        big.push_str(":{ :y } };");
        let out = fmt(&big);
        assert!(out.starts_with("const m: A -> B = {\n    k0: { :x },\n    k1: { :x },"));
        assert!(out.ends_with(",\n    :{ :y }\n};\n"));
        // Round trip of the multi-line form.
        assert_eq!(fmt(&out), out);
    }
}
