//! The canonical HRG layout (`rgt fmt x.hrg`): one declaration or statement per line (a
//! variable whose initial map does not fit in 100 columns: one map entry per line), two-space
//! indentation, single spaces around operators, minimal parentheses, `else if` chains. Comments
//! are kept: each is printed on its own line before the construct that follows it; a comment
//! inside a single-line construct cannot be placed and is reported instead of being dropped.

use crate::error::{Code, HrgError};
use crate::syntax::{
    BinOp, Binding, Decl, Element, Expr, ExprKind, MapPart, Pattern, Stmt, StmtKind, Type, Values,
};
use rg_core::Span;

pub(crate) struct Formatter<'s> {
    text: &'s str,
    comments: Vec<(usize, usize)>,
    next: usize,
    out: String,
}

/// The `//` comments of a source text (outside identifiers: HRG has no strings).
pub(crate) fn comments(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'/' && b[i + 1] == b'/' {
            let start = i;
            while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn ty(t: &Type) -> String {
    match t {
        Type::Set(v) => format!("{{ {} }}", v.join(", ")),
        Type::Name(n, None) => n.clone(),
        Type::Name(n, Some(r)) => format!("{n} -> {}", ty(r)),
    }
}

fn bindings(bs: &[Binding]) -> String {
    bs.iter()
        .map(|b| match &b.values {
            Values::Range(a, z) => format!("{} in {a}..{z}", b.name),
            Values::Set(v) => format!("{} in {{ {} }}", b.name, v.join(", ")),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn pattern(p: &Pattern) -> String {
    match p {
        Pattern::Wildcard => "_".into(),
        Pattern::Name(n) => n.clone(),
        Pattern::Ctor(c, ps) => format!(
            "{c}({})",
            ps.iter().map(pattern).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::If(..) => 0,
        ExprKind::Bin(BinOp::Or, ..) => 1,
        ExprKind::Bin(BinOp::And, ..) => 2,
        ExprKind::Bin(
            BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
            ..,
        ) => 3,
        ExprKind::Bin(..) => 4,
        ExprKind::Access(..) | ExprKind::Call(..) => 5,
        _ => 6,
    }
}

fn op(o: BinOp) -> &'static str {
    match o {
        BinOp::Or => "||",
        BinOp::And => "&&",
        BinOp::Eq => "==",
        BinOp::Neq => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Rem => "%",
        BinOp::In => "in",
    }
}

fn at_least(e: &Expr, min: u8) -> String {
    let s = expr(e);
    if level(e) < min { format!("({s})") } else { s }
}

/// An operand of `+`, `-`, `%` or `in` (one precedence level, left-associative): an operand
/// mixing `%` or `in` with another of them is parenthesised although the parser would not need
/// it, since `I + 1 % 3` reads as `I + (1 % 3)` (issue 22).
fn operand(parent: BinOp, e: &Expr, min: u8) -> String {
    let tricky = |o: BinOp| matches!(o, BinOp::Rem | BinOp::In);
    match &e.kind {
        ExprKind::Bin(o, ..) if level(e) == 4 && *o != parent && (tricky(*o) || tricky(parent)) => {
            format!("({})", expr(e))
        }
        _ => at_least(e, min),
    }
}

pub(crate) fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Ctor(c, args) => format!(
            "{c}({})",
            args.iter().map(expr).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Call(f, args) => format!(
            "{}({})",
            at_least(f, 5),
            args.iter().map(expr).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Access(m, k) => format!("{}[{}]", at_least(m, 5), expr(k)),
        ExprKind::If(c, a, b) => format!("if {} then {} else {}", expr(c), expr(a), expr(b)),
        ExprKind::Bin(o, a, b) => {
            let l = level(e);
            let right_assoc = matches!(o, BinOp::Or | BinOp::And);
            let (la, lb) = if right_assoc { (l + 1, l) } else { (l, l + 1) };
            format!("{} {} {}", operand(*o, a, la), op(*o), operand(*o, b, lb))
        }
        ExprKind::Map(d, parts) => format!("{{ {} }}", map_items(d.as_deref(), parts).join("; ")),
    }
}

/// The entries of a map expression: the default `:value` first, then `key = value [where …]`.
fn map_items(default: Option<&Expr>, parts: &[MapPart]) -> Vec<String> {
    let mut items = Vec::new();
    if let Some(d) = default {
        items.push(format!(":{}", expr(d)));
    }
    for p in parts {
        let mut s = format!("{} = {}", pattern(&p.key), expr(&p.value));
        if !p.bindings.is_empty() {
            s.push_str(&format!(" where {}", bindings(&p.bindings)));
        }
        items.push(s);
    }
    items
}

/// Lines longer than this are broken where the layout allows it (the map of a variable's
/// initial value is then printed one entry per line).
const WIDTH: usize = 100;

impl<'s> Formatter<'s> {
    pub fn new(text: &'s str) -> Self {
        Formatter {
            text,
            comments: comments(text),
            next: 0,
            out: String::new(),
        }
    }

    /// Prints the pending comments that start before `pos`, each on its own line.
    fn comments_before(&mut self, pos: usize, indent: usize) {
        while self.next < self.comments.len() && self.comments[self.next].0 < pos {
            let (a, b) = self.comments[self.next];
            let c = self.text[a..b].trim_end();
            self.out.push_str(&" ".repeat(indent));
            self.out.push_str(c);
            self.out.push('\n');
            self.next += 1;
        }
    }

    /// A single-line construct: a comment inside it cannot be kept.
    fn leaf(&mut self, span: Span, indent: usize, line: String) -> Result<(), HrgError> {
        self.comments_before(span.start as usize, indent);
        if self.next < self.comments.len() && (self.comments[self.next].0 as u32) < span.end {
            let (a, b) = self.comments[self.next];
            return Err(HrgError::new(
                Code::MisplacedComment,
                "this comment is inside a construct that is printed on one line",
                Span::new(span.file, a, b),
            )
            .help("move the comment to its own line before the construct"));
        }
        self.out.push_str(&" ".repeat(indent));
        self.out.push_str(&line);
        self.out.push('\n');
        Ok(())
    }

    pub fn program(mut self, decls: &[Decl]) -> Result<String, HrgError> {
        let mut prev: Option<u8> = None;
        for d in decls {
            let (kind, start) = match d {
                Decl::Domain(_, _, s) => (0u8, *s),
                Decl::Variable(_, _, _, s) => (1, *s),
                Decl::Function(f) => (2, f.span),
                Decl::Graph(g) => (3, g.span),
            };
            if let Some(p) = prev
                && (p != kind || kind >= 2)
            {
                self.out.push('\n');
            }
            prev = Some(kind);
            match d {
                Decl::Domain(name, elems, span) => {
                    let es: Vec<String> = elems
                        .iter()
                        .map(|e| match e {
                            Element::Name(n) => n.clone(),
                            Element::Generator {
                                name,
                                params,
                                bindings: bs,
                            } => format!("{name}({}) where {}", params.join(", "), bindings(bs)),
                        })
                        .collect();
                    self.leaf(*span, 0, format!("domain {name} = {}", es.join(" | ")))?;
                }
                Decl::Variable(name, t, init, span) => {
                    let mut line = format!("{name} : {}", ty(t));
                    if let Some(e) = init {
                        line.push_str(&format!(" = {}", expr(e)));
                    }
                    if line.len() > WIDTH
                        && let Some(Expr {
                            kind: ExprKind::Map(d, parts),
                            ..
                        }) = init
                    {
                        let items = map_items(d.as_deref(), parts);
                        line = format!("{name} : {} = {{\n  {}\n}}", ty(t), items.join(";\n  "));
                    }
                    self.leaf(*span, 0, line)?;
                }
                Decl::Function(f) => {
                    self.comments_before(start.start as usize, 0);
                    self.out.push_str(&format!("{} : {}\n", f.name, ty(&f.ty)));
                    for (pats, body) in &f.cases {
                        let line = format!(
                            "{}({}) = {}",
                            f.name,
                            pats.iter().map(pattern).collect::<Vec<_>>().join(", "),
                            expr(body)
                        );
                        self.leaf(body.span, 0, line)?;
                    }
                }
                Decl::Graph(g) => {
                    self.comments_before(g.span.start as usize, 0);
                    let params: Vec<String> = g
                        .params
                        .iter()
                        .map(|(p, t)| format!("{p}: {}", ty(t)))
                        .collect();
                    let head = format!(
                        "{}graph {}({})",
                        if g.reusable { "reusable " } else { "" },
                        g.name,
                        params.join(", ")
                    );
                    self.out.push_str(&head);
                    self.block(&g.body, 0, g.span.end as usize)?;
                    self.out.push('\n');
                }
            }
        }
        self.comments_before(self.text.len() + 1, 0);
        Ok(self.out)
    }

    /// ` {` + statements + `}` (or ` {}`); `end` bounds the comments that belong inside.
    fn block(&mut self, stmts: &[Stmt], indent: usize, end: usize) -> Result<(), HrgError> {
        let has_comments = self.next < self.comments.len() && self.comments[self.next].0 < end;
        if stmts.is_empty() && !has_comments {
            self.out.push_str(" {}");
            return Ok(());
        }
        self.out.push_str(" {\n");
        for s in stmts {
            self.stmt(s, indent + 2)?;
        }
        self.comments_before(end, indent + 2);
        self.out.push_str(&" ".repeat(indent));
        self.out.push('}');
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, indent: usize) -> Result<(), HrgError> {
        let lv = |root: &str, idx: &[Expr]| {
            let mut t = root.to_string();
            for i in idx {
                t.push_str(&format!("[{}]", expr(i)));
            }
            t
        };
        let cond = |c: &Expr| at_least(c, 1);
        let line = match &s.kind {
            StmtKind::Assign(r, idx, e) => Some(format!("{} = {}", lv(r, idx), expr(e))),
            StmtKind::AssignAny(r, idx, t) => Some(format!("{} = {}(*)", lv(r, idx), ty(t))),
            StmtKind::Call(f, args) => Some(format!(
                "{f}({})",
                args.iter().map(expr).collect::<Vec<_>>().join(", ")
            )),
            StmtKind::TagVar(v) => Some(format!("$$ {v}")),
            StmtKind::Tag(syms, artificial) => {
                let mark = if *artificial { "$_" } else { "$" };
                Some(if syms.len() == 1 {
                    format!("{mark} {}", syms[0])
                } else {
                    format!("{mark} ({})", syms.join(" "))
                })
            }
            _ => None,
        };
        if let Some(line) = line {
            return self.leaf(s.span, indent, line);
        }
        self.comments_before(s.span.start as usize, indent);
        self.out.push_str(&" ".repeat(indent));
        let end = s.span.end as usize;
        match &s.kind {
            StmtKind::Branch(arms) => {
                self.out.push_str("branch");
                for (i, arm) in arms.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(" or");
                    }
                    let bound = arms
                        .get(i + 1)
                        .and_then(|a| a.first())
                        .map_or(end, |st| st.span.start as usize);
                    self.block(arm, indent, bound)?;
                }
            }
            StmtKind::BranchIn(v, t, body) => {
                self.out.push_str(&format!("branch {v} in {}", ty(t)));
                self.block(body, indent, end)?;
            }
            StmtKind::If(c, a, b) => self.if_chain(c, a, b.as_deref(), indent, end, &cond)?,
            StmtKind::Loop(body) => {
                self.out.push_str("loop");
                self.block(body, indent, end)?;
            }
            StmtKind::Repeat(n, body) => {
                self.out.push_str(&format!("repeat {n}"));
                self.block(body, indent, end)?;
            }
            StmtKind::RepeatIn(v, t, body) => {
                self.out.push_str(&format!("repeat {v} in {}", ty(t)));
                self.block(body, indent, end)?;
            }
            StmtKind::While(c, body) => {
                self.out.push_str(&format!("while {}", cond(c)));
                self.block(body, indent, end)?;
            }
            _ => unreachable!("single-line statements are printed above"),
        }
        self.out.push('\n');
        Ok(())
    }

    fn if_chain(
        &mut self,
        c: &Expr,
        then: &[Stmt],
        els: Option<&[Stmt]>,
        indent: usize,
        end: usize,
        cond: &dyn Fn(&Expr) -> String,
    ) -> Result<(), HrgError> {
        self.out.push_str(&format!("if {}", cond(c)));
        let then_end = els
            .and_then(|e| e.first())
            .map_or(end, |st| st.span.start as usize);
        self.block(then, indent, then_end)?;
        let Some(els) = els else { return Ok(()) };
        self.out.push_str(" else");
        if let [
            Stmt {
                kind: StmtKind::If(c2, a2, b2),
                span,
            },
        ] = els
            && !(self.next < self.comments.len()
                && self.comments[self.next].0 < span.start as usize)
        {
            self.out.push(' ');
            return self.if_chain(c2, a2, b2.as_deref(), indent, end, cond);
        }
        self.block(els, indent, end)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn needed_and_clarifying_parentheses_are_printed() {
        let text = "domain Z = P(N, z) where N in 0..2\n\
                    step : Z -> Z\n\
                    step(P(N, z)) = P((N + 1) % 3, z)\n\
                    back : Z -> Z\n\
                    back(P(N, z)) = P(N % 3 + 1, z)\n\
                    same : Z -> Z\n\
                    same(P(N, z)) = P(N - 1 + 2, z)\n";
        let out = crate::format(rg_core::FileId(0), text).expect("formats");
        assert!(out.contains("P((N + 1) % 3, z)"), "{out}");
        assert!(out.contains("P((N % 3) + 1, z)"), "{out}");
        assert!(out.contains("P(N - 1 + 2, z)"), "{out}");
        // The printed program means the same: formatting it again changes nothing.
        assert_eq!(
            crate::format(rg_core::FileId(0), &out).expect("formats"),
            out
        );
    }
}
