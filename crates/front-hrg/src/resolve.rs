//! Name resolution of graph bodies and types, before lowering: every name a game uses at run
//! time must be a variable, a constant (function), a graph parameter, a loop variable or a
//! symbol of some type, every type a domain, every called graph declared. Lowering itself
//! emits names unchanged and leaves them to RG, whose errors would speak of the generated game
//! (`turn_arg0_me`, "`bord` is constant"); here each unknown name is one error on its token,
//! with the closest declared name as a suggestion.

use crate::error::{Code, HrgError};
use crate::eval::World;
use crate::syntax::{Decl, Element, Expr, ExprKind, Graph, Stmt, StmtKind, Type};
use rg_core::Span;
use std::collections::BTreeSet;

/// The names RG adds to every game: the types, the variables and the symbols of the built-ins.
const BUILTIN_TYPES: &[&str] = &[
    "Bool",
    "Goals",
    "Player",
    "PlayerOrSystem",
    "Score",
    "Visibility",
];
const BUILTIN_VARIABLES: &[&str] = &["goals", "player", "visible"];
const BUILTIN_SYMBOLS: &[&str] = &["0", "1", "keeper", "random"];

/// The statement names that are not graph calls (unless a graph of that name is declared).
const CONTROL: &[&str] = &["end", "return", "break", "continue", "check"];

/// The global names of a program, by kind.
struct Names<'a> {
    types: BTreeSet<&'a str>,
    variables: BTreeSet<&'a str>,
    constants: BTreeSet<&'a str>,
    symbols: BTreeSet<String>,
    graphs: BTreeSet<&'a str>,
    text: Option<&'a str>,
}

/// Every name error of the graph bodies and declared types of `decls`.
pub(crate) fn check(decls: &[Decl], world: &World<'_>, text: Option<&str>) -> Vec<HrgError> {
    let mut names = Names {
        types: BUILTIN_TYPES.iter().copied().collect(),
        variables: BUILTIN_VARIABLES.iter().copied().collect(),
        constants: BTreeSet::new(),
        symbols: BUILTIN_SYMBOLS.iter().map(|s| s.to_string()).collect(),
        graphs: BTreeSet::new(),
        text,
    };
    for d in decls {
        match d {
            Decl::Domain(name, elems, span) => {
                names.types.insert(name);
                for e in elems {
                    if let Element::Name(n) = e {
                        names.symbols.insert(n.clone());
                    }
                }
                // A domain that cannot be evaluated is reported by lowering.
                if let Ok(Some(values)) = world.elems(name, *span) {
                    names.symbols.extend(values.iter().filter_map(|v| v.name()));
                }
            }
            Decl::Function(f) => {
                names.constants.insert(&f.name);
                set_symbols(&f.ty, &mut names.symbols);
            }
            Decl::Variable(name, ty, _, _) => {
                names.variables.insert(name);
                set_symbols(ty, &mut names.symbols);
            }
            Decl::Graph(g) => {
                names.graphs.insert(&g.name);
                for (_, t) in &g.params {
                    set_symbols(t, &mut names.symbols);
                }
                stmt_symbols(&g.body, &mut names.symbols);
            }
        }
    }
    let mut errors = Vec::new();
    for d in decls {
        match d {
            Decl::Function(f) => names.ty(&f.ty, f.span, &mut errors),
            Decl::Variable(_, ty, _, span) => names.ty(ty, *span, &mut errors),
            Decl::Graph(g) => {
                for (_, t) in &g.params {
                    names.ty(t, g.span, &mut errors);
                }
                let mut scope = Scope {
                    graph: g,
                    loops: Vec::new(),
                };
                names.stmts(&g.body, &mut scope, &mut errors);
            }
            Decl::Domain(..) => {}
        }
    }
    errors
}

/// The symbols written in the set types `{ a, b }` of `t`.
fn set_symbols(t: &Type, out: &mut BTreeSet<String>) {
    let mut t = t;
    loop {
        match t {
            Type::Set(v) => {
                out.extend(v.iter().cloned());
                return;
            }
            Type::Name(_, Some(rest)) => t = rest,
            Type::Name(_, None) => return,
        }
    }
}

/// The symbols of the set types in statements (`x = { a, b }(*)`, `branch d in { up, down }`).
fn stmt_symbols(list: &[Stmt], out: &mut BTreeSet<String>) {
    let mut stack: Vec<&[Stmt]> = vec![list];
    while let Some(list) = stack.pop() {
        for s in list {
            match &s.kind {
                StmtKind::AssignAny(_, _, t) => set_symbols(t, out),
                StmtKind::BranchIn(_, t, body) | StmtKind::RepeatIn(_, t, body) => {
                    set_symbols(t, out);
                    stack.push(body);
                }
                StmtKind::Branch(arms) => stack.extend(arms.iter().map(Vec::as_slice)),
                StmtKind::If(_, a, b) => {
                    stack.push(a);
                    if let Some(b) = b {
                        stack.push(b);
                    }
                }
                StmtKind::Loop(body) | StmtKind::Repeat(_, body) | StmtKind::While(_, body) => {
                    stack.push(body)
                }
                _ => {}
            }
        }
    }
}

/// What is in scope inside a graph body: its parameters and the enclosing loop variables.
struct Scope<'g> {
    graph: &'g Graph,
    loops: Vec<&'g str>,
}

impl Scope<'_> {
    fn has(&self, name: &str) -> bool {
        self.loops.contains(&name) || self.graph.params.iter().any(|(p, _)| p == name)
    }
}

/// The span of the first whole-word occurrence of `word` in `span` of `text`, else `span`.
fn locate(text: Option<&str>, span: Span, word: &str) -> Span {
    let Some(text) = text else { return span };
    let (start, end) = (span.start as usize, span.end as usize);
    let Some(slice) = text.get(start..end.min(text.len())) else {
        return span;
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = slice[from..].find(word) {
        let at = from + i;
        let before = slice[..at].chars().next_back();
        let after = slice[at + word.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return Span::new(span.file, start + at, start + at + word.len());
        }
        from = at + word.len().max(1);
    }
    span
}

/// `unknown <what> `name`` with the closest of `candidates` as a suggestion, else `fallback`.
fn unknown<'n>(
    code: Code,
    what: &str,
    name: &str,
    candidates: impl Iterator<Item = &'n str>,
    fallback: &str,
    span: Span,
) -> HrgError {
    let e = HrgError::new(code, format!("unknown {what} `{name}`"), span);
    match rg_core::suggest::closest(name, candidates) {
        Some(c) => e.help(format!("did you mean `{c}`?")),
        None => e.help(fallback),
    }
}

impl<'a> Names<'a> {
    fn is_value(&self, name: &str) -> bool {
        self.variables.contains(name)
            || self.constants.contains(name)
            || self.symbols.contains(name)
    }

    /// The type names of `t` (written in `span`) that are not domains.
    fn ty(&self, t: &Type, span: Span, errors: &mut Vec<HrgError>) {
        let mut t = t;
        while let Type::Name(n, rest) = t {
            if !self.types.contains(n.as_str()) {
                errors.push(unknown(
                    Code::UnknownType,
                    "type",
                    n,
                    self.types.iter().copied(),
                    "types are the domains declared with `domain Name = …`",
                    locate(self.text, span, n),
                ));
            }
            match rest {
                Some(r) => t = r,
                None => break,
            }
        }
    }

    fn stmts<'g>(&self, list: &'g [Stmt], scope: &mut Scope<'g>, errors: &mut Vec<HrgError>) {
        for s in list {
            self.stmt(s, scope, errors);
        }
    }

    /// A variable assigned or tagged (`x[i] = e`, `$$ x`): parameters and loop variables are
    /// rejected by lowering; anything else must be a declared variable.
    fn variable(&self, name: &str, span: Span, scope: &Scope<'_>, errors: &mut Vec<HrgError>) {
        if scope.has(name) || self.variables.contains(name) {
            return;
        }
        let candidates = self.variables.iter().copied();
        if self.is_value(name) {
            let what = if self.constants.contains(name) {
                "a constant (a function)"
            } else {
                "a symbol"
            };
            let e = HrgError::new(
                Code::NotAVariable,
                format!("`{name}` is {what}, not a variable"),
                span,
            );
            errors.push(match rg_core::suggest::closest(name, candidates) {
                Some(c) => e.help(format!("did you mean `{c}`?")),
                None => {
                    e.help("only variables declared with `name : Type = value` can be assigned")
                }
            });
            return;
        }
        errors.push(unknown(
            Code::UnknownVariable,
            "variable",
            name,
            candidates,
            "declare it with `name : Type = value`",
            span,
        ));
    }

    fn stmt<'g>(&self, s: &'g Stmt, scope: &mut Scope<'g>, errors: &mut Vec<HrgError>) {
        let start = s.span.start as usize;
        let root_span = |root: &str| Span::new(s.span.file, start, start + root.len());
        match &s.kind {
            StmtKind::Assign(root, idx, e) => {
                self.variable(root, root_span(root), scope, errors);
                for i in idx {
                    self.expr(i, scope, errors);
                }
                self.expr(e, scope, errors);
            }
            StmtKind::AssignAny(root, idx, t) => {
                self.variable(root, root_span(root), scope, errors);
                for i in idx {
                    self.expr(i, scope, errors);
                }
                self.ty(t, s.span, errors);
            }
            StmtKind::TagVar(v) => {
                let end = s.span.end as usize;
                let span = Span::new(s.span.file, end.saturating_sub(v.len()), end);
                self.variable(v, span, scope, errors);
            }
            StmtKind::Tag(..) => {}
            StmtKind::Call(name, args) => {
                let control = CONTROL.contains(&name.as_str());
                if !control && !scope.has(name) && !self.graphs.contains(name.as_str()) {
                    errors.push(unknown(
                        Code::UnknownGraph,
                        "graph",
                        name,
                        self.graphs.iter().copied(),
                        "declare it with `graph name(…) { … }`",
                        root_span(name),
                    ));
                }
                if name == "check" && !self.graphs.contains("check") {
                    for a in args {
                        self.cond(a, scope, errors);
                    }
                } else {
                    for a in args {
                        self.expr(a, scope, errors);
                    }
                }
            }
            StmtKind::If(c, a, b) => {
                self.cond(c, scope, errors);
                self.stmts(a, scope, errors);
                if let Some(b) = b {
                    self.stmts(b, scope, errors);
                }
            }
            StmtKind::While(c, body) => {
                self.cond(c, scope, errors);
                self.stmts(body, scope, errors);
            }
            StmtKind::Loop(body) | StmtKind::Repeat(_, body) => self.stmts(body, scope, errors),
            StmtKind::Branch(arms) => {
                for arm in arms {
                    self.stmts(arm, scope, errors);
                }
            }
            StmtKind::BranchIn(v, t, body) | StmtKind::RepeatIn(v, t, body) => {
                self.ty(t, s.span, errors);
                scope.loops.push(v);
                self.stmts(body, scope, errors);
                scope.loops.pop();
            }
        }
    }

    /// A condition: `not`, `true`, `false` and `reachable` are not names.
    fn cond(&self, c: &Expr, scope: &Scope<'_>, errors: &mut Vec<HrgError>) {
        match &c.kind {
            ExprKind::Bin(_, a, b) => {
                self.cond(a, scope, errors);
                self.cond(b, scope, errors);
            }
            ExprKind::Call(head, args) => match &head.kind {
                ExprKind::Name(f) if f == "not" => {
                    for a in args {
                        self.cond(a, scope, errors);
                    }
                }
                ExprKind::Name(f) if f == "true" || f == "false" => {}
                ExprKind::Name(f) if f == "reachable" => {
                    for a in args {
                        self.reachable(a, scope, errors);
                    }
                }
                _ => self.expr(c, scope, errors),
            },
            _ => self.expr(c, scope, errors),
        }
    }

    /// The graph call of `reachable(g(…))`.
    fn reachable(&self, e: &Expr, scope: &Scope<'_>, errors: &mut Vec<HrgError>) {
        let ExprKind::Call(head, args) = &e.kind else {
            return; // not a call: lowering reports it
        };
        if let ExprKind::Name(g) = &head.kind
            && !self.graphs.contains(g.as_str())
        {
            errors.push(unknown(
                Code::UnknownGraph,
                "graph",
                g,
                self.graphs.iter().copied(),
                "`reachable` takes a call of a graph declared with `graph name(…) { … }`",
                head.span,
            ));
        }
        for a in args {
            self.expr(a, scope, errors);
        }
    }

    /// A run-time expression: names, accesses and applications (other forms are reported by
    /// lowering; constructors are evaluated at compile time).
    fn expr(&self, e: &Expr, scope: &Scope<'_>, errors: &mut Vec<HrgError>) {
        match &e.kind {
            ExprKind::Name(x) => {
                if scope.has(x) || self.is_value(x) {
                    return;
                }
                let mut candidates: Vec<&str> = self
                    .variables
                    .iter()
                    .chain(&self.constants)
                    .copied()
                    .chain(scope.loops.iter().copied())
                    .chain(scope.graph.params.iter().map(|(p, _)| p.as_str()))
                    .collect();
                candidates.extend(self.symbols.iter().map(String::as_str));
                errors.push(unknown(
                    Code::UnknownName,
                    "name",
                    x,
                    candidates.into_iter(),
                    "names at run time are variables, functions, graph parameters and the elements of domains",
                    e.span,
                ));
            }
            ExprKind::Access(a, b) => {
                self.expr(a, scope, errors);
                self.expr(b, scope, errors);
            }
            ExprKind::Call(f, args) => {
                self.expr(f, scope, errors);
                for a in args {
                    self.expr(a, scope, errors);
                }
            }
            ExprKind::Bin(_, a, b) => {
                self.expr(a, scope, errors);
                self.expr(b, scope, errors);
            }
            _ => {}
        }
    }
}
