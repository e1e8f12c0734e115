//! The HRG recursive-descent parser.

use super::ast::{
    BinOp, Binding, Decl, Element, Expr, ExprKind, Function, Graph, MapPart, Pattern, Stmt,
    StmtKind, Type, Values,
};
use super::lexer::{Tok, is_upper};
use crate::error::{Code, HrgError, MAX_ERRORS};
use rg_core::Span;

pub(crate) struct Parser {
    toks: Vec<(Tok, Span)>,
    /// Per token: whether it is the first of its line (statements and declarations are not
    /// terminated, so recovery after an error resumes at a line that starts one).
    line_start: Vec<bool>,
    pos: usize,
    /// How deep the syntax tree being built is at this point (see [`MAX_NESTING`]).
    depth: usize,
    /// The errors recovered from so far.
    errors: Vec<HrgError>,
    /// Set when parsing stops early (too many errors, or nesting past [`MAX_NESTING`]): the
    /// error being returned is then not recorded again on the way out.
    aborted: bool,
}

/// How deep expressions, types, patterns and blocks may nest (an operator chain such as
/// `a + b + c` counts one level per operator). The syntax tree and every walk over it recurse
/// once per level; real games nest a few dozen levels at most.
pub const MAX_NESTING: usize = 1000;

type PResult<T> = Result<T, HrgError>;

impl Parser {
    /// A parser of the tokens of `text`.
    pub fn new(toks: Vec<(Tok, Span)>, text: &str) -> Self {
        let mut line_start = Vec::with_capacity(toks.len());
        let mut prev_end = 0;
        for (_, span) in &toks {
            let start = (span.start as usize).min(text.len());
            let gap = text.get(prev_end.min(start)..start).unwrap_or("");
            line_start.push(prev_end == 0 || gap.contains('\n'));
            prev_end = span.end as usize;
        }
        Parser {
            toks,
            line_start,
            pos: 0,
            depth: 0,
            errors: Vec::new(),
            aborted: false,
        }
    }

    /// One level deeper; an error past [`MAX_NESTING`]. Paired with `self.depth -= 1`.
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            self.depth -= 1;
            return Err(HrgError::new(
                Code::TooDeep,
                format!(
                    "nested deeper than {MAX_NESTING} (brackets, blocks or operators in a row)"
                ),
                self.span(),
            ));
        }
        Ok(())
    }

    /// Runs `f` one level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].0
    }

    fn span(&self) -> Span {
        self.toks[self.pos].1
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].1
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn unexpected(&self, expected: &str) -> HrgError {
        HrgError::new(
            Code::UnexpectedToken,
            format!("unexpected {}, expected {expected}", self.peek().describe()),
            self.span(),
        )
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: Tok) -> PResult<()> {
        if self.eat(&t) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{}`", t.text())))
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }

    fn word_at(&self, k: usize, w: &str) -> bool {
        matches!(self.peek_at(k), Tok::Ident(s) if s == w)
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Every declaration of the program, or every syntax error: after an error the parser
    /// resumes at the next statement (inside a block) or declaration, so independent errors
    /// are all reported.
    pub fn program(&mut self) -> Result<Vec<Decl>, Vec<HrgError>> {
        let mut out = Vec::new();
        while *self.peek() != Tok::Eof {
            let start = self.pos;
            match self.declaration() {
                Ok(d) => out.push(d),
                Err(e) => {
                    if !self.record(e) {
                        break;
                    }
                    self.skip_to_declaration(start);
                }
            }
        }
        if self.errors.is_empty() {
            Ok(out)
        } else {
            Err(std::mem::take(&mut self.errors))
        }
    }

    /// Records an error; whether parsing goes on (not after [`MAX_ERRORS`], nor after nesting
    /// past [`MAX_NESTING`]: such input is not worth recovering in).
    fn record(&mut self, e: HrgError) -> bool {
        if self.aborted {
            return false;
        }
        let fatal = e.code == Code::TooDeep;
        self.errors.push(e);
        if fatal || self.errors.len() > MAX_ERRORS {
            self.aborted = true;
        }
        !self.aborted
    }

    /// Whether the current token starts a line with `domain D`, `graph g` or `reusable graph`:
    /// a declaration, wherever the brackets before it left off.
    fn at_declaration_keyword(&self) -> bool {
        self.line_start[self.pos]
            && ((self.is_word("reusable") && self.word_at(1, "graph"))
                || ((self.is_word("domain") || self.is_word("graph"))
                    && matches!(self.peek_at(1), Tok::Ident(_))))
    }

    /// Skips what is left of a declaration that failed to parse: to the next line that
    /// starts with a declaration keyword, or with `name :` outside brackets.
    fn skip_to_declaration(&mut self, start: usize) {
        if self.pos <= start {
            self.bump();
        }
        let mut depth = 0usize;
        while *self.peek() != Tok::Eof {
            if self.at_declaration_keyword()
                || (depth == 0
                    && self.line_start[self.pos]
                    && matches!(self.peek(), Tok::Ident(_))
                    && *self.peek_at(1) == Tok::Colon)
            {
                return;
            }
            match self.bump() {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    /// Skips what is left of a statement that failed to parse: to the next line that starts
    /// a statement outside brackets, or to the `}` that closes the block.
    fn skip_to_statement(&mut self, start: usize) {
        if self.pos <= start {
            self.bump();
        }
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::RBrace if depth == 0 => return,
                Tok::Ident(_) | Tok::Dollar | Tok::DollarUnderscore | Tok::DollarDollar
                    if depth == 0 && self.line_start[self.pos] =>
                {
                    return;
                }
                _ if self.at_declaration_keyword() => return,
                _ => {}
            }
            match self.bump() {
                Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    fn declaration(&mut self) -> PResult<Decl> {
        let start = self.span();
        if self.is_word("domain") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.bump();
            let name = self.ident("a domain name")?;
            self.expect(Tok::Eq)?;
            let mut elems = vec![self.element()?];
            while self.eat(&Tok::Pipe) {
                elems.push(self.element()?);
            }
            return Ok(Decl::Domain(name, elems, start.to(self.prev_span())));
        }
        if self.is_word("reusable")
            || (self.is_word("graph") && matches!(self.peek_at(1), Tok::Ident(_)))
        {
            let reusable = self.is_word("reusable");
            if reusable {
                self.bump();
            }
            if !self.is_word("graph") {
                return Err(self.unexpected("`graph`"));
            }
            self.bump();
            let name = self.ident("a graph name")?;
            self.expect(Tok::LParen)?;
            let mut params = Vec::new();
            if *self.peek() != Tok::RParen {
                loop {
                    let p = self.ident("a parameter name")?;
                    self.expect(Tok::Colon)?;
                    params.push((p, self.ty()?));
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen)?;
            let body = self.block()?;
            return Ok(Decl::Graph(Graph {
                name,
                reusable,
                params,
                body,
                span: start.to(self.prev_span()),
            }));
        }
        let name = self.ident("a declaration (`domain`, `graph`, or `name : type`)")?;
        self.expect(Tok::Colon)?;
        let ty = self.ty()?;
        let is_case = |p: &Parser| {
            matches!(p.peek(), Tok::Ident(s) if *s == name) && *p.peek_at(1) == Tok::LParen
        };
        if is_case(self) {
            let mut cases = Vec::new();
            while is_case(self) {
                self.bump();
                self.bump();
                let mut pats = Vec::new();
                if *self.peek() != Tok::RParen {
                    loop {
                        pats.push(self.pattern()?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen)?;
                self.expect(Tok::Eq)?;
                let body = self.expr()?;
                cases.push((pats, body));
            }
            return Ok(Decl::Function(Function {
                name,
                ty,
                cases,
                span: start.to(self.prev_span()),
            }));
        }
        let init = if self.eat(&Tok::Eq) {
            // `y : T =` with nothing after it: the next line declares a name, it is no value.
            if self.line_start[self.pos] && *self.peek_at(1) == Tok::Colon {
                return Err(self.unexpected("an initial value"));
            }
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Decl::Variable(name, ty, init, start.to(self.prev_span())))
    }

    fn element(&mut self) -> PResult<Element> {
        let name = self.ident("a domain element")?;
        if *self.peek() != Tok::LParen {
            return Ok(Element::Name(name));
        }
        self.bump();
        let mut params = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                params.push(self.ident("a generator parameter")?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen)?;
        if !self.is_word("where") {
            return Err(self.unexpected("`where` and the values of the generator's variables"));
        }
        self.bump();
        let bindings = self.bindings()?;
        if bindings.is_empty() {
            return Err(self.unexpected("a binding `X in 0..3` or `X in { a, b }`"));
        }
        Ok(Element::Generator {
            name,
            params,
            bindings,
        })
    }

    fn bindings(&mut self) -> PResult<Vec<Binding>> {
        let mut out = Vec::new();
        while matches!(self.peek(), Tok::Ident(_)) && self.word_at(1, "in") {
            let name = self.ident("a name")?;
            self.bump();
            let values = if self.eat(&Tok::LBrace) {
                let mut v = Vec::new();
                if *self.peek() != Tok::RBrace {
                    loop {
                        v.push(self.ident("a symbol")?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RBrace)?;
                Values::Set(v)
            } else {
                let sp = self.span();
                let a = self.ident("an integer")?;
                self.expect(Tok::DotDot)?;
                let b = self.ident("an integer")?;
                let parse = |s: &str| {
                    s.parse::<i64>().map_err(|_| {
                        HrgError::new(
                            Code::BadInteger,
                            format!("`{s}` is not an integer"),
                            sp.to(self.prev_span()),
                        )
                    })
                };
                Values::Range(parse(&a)?, parse(&b)?)
            };
            out.push(Binding { name, values });
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        Ok(out)
    }

    fn ty(&mut self) -> PResult<Type> {
        self.nested(Self::ty_at_depth)
    }

    fn ty_at_depth(&mut self) -> PResult<Type> {
        if self.eat(&Tok::LBrace) {
            let mut v = Vec::new();
            loop {
                v.push(self.ident("a symbol")?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RBrace)?;
            return Ok(Type::Set(v));
        }
        let name = self.ident("a type")?;
        if self.eat(&Tok::Arrow) {
            let rest = self.ty()?;
            return Ok(Type::Name(name, Some(Box::new(rest))));
        }
        Ok(Type::Name(name, None))
    }

    fn pattern(&mut self) -> PResult<Pattern> {
        self.nested(Self::pattern_at_depth)
    }

    fn pattern_at_depth(&mut self) -> PResult<Pattern> {
        let name = self.ident("a pattern")?;
        if self.eat(&Tok::LParen) {
            let mut ps = Vec::new();
            if *self.peek() != Tok::RParen {
                loop {
                    ps.push(self.pattern()?);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen)?;
            return Ok(Pattern::Ctor(name, ps));
        }
        if name == "_" {
            return Ok(Pattern::Wildcard);
        }
        Ok(Pattern::Name(name))
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.nested(Self::block_at_depth)
    }

    fn block_at_depth(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(Tok::LBrace)?;
        let mut out = Vec::new();
        while *self.peek() != Tok::RBrace {
            if *self.peek() == Tok::Eof || self.at_declaration_keyword() {
                return Err(self.unexpected("`}`"));
            }
            let start = self.pos;
            match self.statement() {
                Ok(s) => out.push(s),
                Err(e) => {
                    if !self.record(e.clone()) {
                        return Err(e);
                    }
                    self.skip_to_statement(start);
                }
            }
        }
        self.bump();
        Ok(out)
    }

    fn statement(&mut self) -> PResult<Stmt> {
        self.nested(Self::statement_at_depth)
    }

    fn statement_at_depth(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::DollarDollar => {
                self.bump();
                StmtKind::TagVar(self.ident("a variable")?)
            }
            Tok::Dollar | Tok::DollarUnderscore => {
                let artificial = *self.peek() == Tok::DollarUnderscore;
                self.bump();
                let syms = if self.eat(&Tok::LParen) {
                    let mut v = vec![self.ident("a tag symbol")?];
                    while *self.peek() != Tok::RParen {
                        v.push(self.ident("a tag symbol or `)`")?);
                    }
                    self.bump();
                    v
                } else {
                    vec![self.ident("a tag symbol")?]
                };
                StmtKind::Tag(syms, artificial)
            }
            Tok::Ident(w) => {
                let next = self.peek_at(1).clone();
                match (w.as_str(), &next) {
                    ("branch", Tok::Ident(_)) if self.word_at(2, "in") => {
                        self.bump();
                        let v = self.ident("a name")?;
                        self.bump();
                        let t = self.ty()?;
                        StmtKind::BranchIn(v, t, self.block()?)
                    }
                    ("branch", Tok::LBrace) => {
                        self.bump();
                        let mut arms = vec![self.block()?];
                        while self.is_word("or") && *self.peek_at(1) == Tok::LBrace {
                            self.bump();
                            arms.push(self.block()?);
                        }
                        StmtKind::Branch(arms)
                    }
                    ("repeat", Tok::Ident(_)) if self.word_at(2, "in") => {
                        self.bump();
                        let v = self.ident("a name")?;
                        self.bump();
                        let t = self.ty()?;
                        StmtKind::RepeatIn(v, t, self.block()?)
                    }
                    ("repeat", Tok::Ident(n)) => {
                        let sp = self.peek_at_span(1);
                        let n: u64 = n.parse().map_err(|_| {
                            HrgError::new(
                                Code::BadInteger,
                                format!("`{n}` is not a repetition count"),
                                sp,
                            )
                        })?;
                        self.bump();
                        self.bump();
                        StmtKind::Repeat(n, self.block()?)
                    }
                    ("loop", Tok::LBrace) => {
                        self.bump();
                        StmtKind::Loop(self.block()?)
                    }
                    ("if", t) if *t != Tok::Eq && *t != Tok::LBracket => {
                        self.bump();
                        self.if_rest()?
                    }
                    ("while", t) if *t != Tok::Eq && *t != Tok::LBracket => {
                        self.bump();
                        let c = self.expr()?;
                        StmtKind::While(c, self.block()?)
                    }
                    (_, Tok::LParen) => {
                        self.bump();
                        self.bump();
                        let args = self.args(Tok::RParen)?;
                        StmtKind::Call(w, args)
                    }
                    (_, Tok::LBracket | Tok::Eq) => {
                        self.bump();
                        let mut idx = Vec::new();
                        while self.eat(&Tok::LBracket) {
                            idx.push(self.expr()?);
                            self.expect(Tok::RBracket)?;
                        }
                        self.expect(Tok::Eq)?;
                        let save = self.pos;
                        if let Ok(t) = self.ty()
                            && self.eat(&Tok::LParen)
                            && self.eat(&Tok::Star)
                            && self.eat(&Tok::RParen)
                        {
                            StmtKind::AssignAny(w, idx, t)
                        } else {
                            self.pos = save;
                            StmtKind::Assign(w, idx, self.expr()?)
                        }
                    }
                    _ => return Err(self.unexpected("a statement")),
                }
            }
            _ => return Err(self.unexpected("a statement")),
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn peek_at_span(&self, k: usize) -> Span {
        self.toks[(self.pos + k).min(self.toks.len() - 1)].1
    }

    fn if_rest(&mut self) -> PResult<StmtKind> {
        let c = self.expr()?;
        let then = self.block()?;
        let els = if self.is_word("else") {
            self.bump();
            if self.is_word("if") {
                let start = self.span();
                self.bump();
                let inner = self.if_rest()?;
                Some(vec![Stmt {
                    kind: inner,
                    span: start.to(self.prev_span()),
                }])
            } else {
                Some(self.block()?)
            }
        } else {
            None
        };
        Ok(StmtKind::If(c, then, els))
    }

    fn args(&mut self, close: Tok) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        if *self.peek() != close {
            loop {
                out.push(self.expr()?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(close)?;
        Ok(out)
    }

    pub fn expr(&mut self) -> PResult<Expr> {
        self.nested(Self::expr_at_depth)
    }

    fn expr_at_depth(&mut self) -> PResult<Expr> {
        let start = self.span();
        let a = self.and_expr()?;
        if self.eat(&Tok::OrOr) {
            let b = self.expr()?;
            return Ok(bin(BinOp::Or, a, b, start.to(self.prev_span())));
        }
        Ok(a)
    }

    fn and_expr(&mut self) -> PResult<Expr> {
        self.nested(Self::and_expr_at_depth)
    }

    fn and_expr_at_depth(&mut self) -> PResult<Expr> {
        let start = self.span();
        let a = self.cmp_expr()?;
        if self.eat(&Tok::AndAnd) {
            let b = self.and_expr()?;
            return Ok(bin(BinOp::And, a, b, start.to(self.prev_span())));
        }
        Ok(a)
    }

    fn cmp_expr(&mut self) -> PResult<Expr> {
        let depth = self.depth;
        let r = self.cmp_chain();
        self.depth = depth;
        r
    }

    fn cmp_chain(&mut self) -> PResult<Expr> {
        let start = self.span();
        let mut a = self.add_expr()?;
        loop {
            self.enter()?;
            let op = match self.peek() {
                Tok::EqEq => BinOp::Eq,
                Tok::Neq => BinOp::Neq,
                Tok::Lt => BinOp::Lt,
                Tok::Le => BinOp::Le,
                Tok::Gt => BinOp::Gt,
                Tok::Ge => BinOp::Ge,
                _ => return Ok(a),
            };
            self.bump();
            let b = self.add_expr()?;
            a = bin(op, a, b, start.to(self.prev_span()));
        }
    }

    fn add_expr(&mut self) -> PResult<Expr> {
        let depth = self.depth;
        let r = self.add_chain();
        self.depth = depth;
        r
    }

    fn add_chain(&mut self) -> PResult<Expr> {
        let start = self.span();
        let mut a = self.postfix()?;
        loop {
            self.enter()?;
            let op = match self.peek() {
                Tok::Plus => BinOp::Add,
                Tok::Minus => BinOp::Sub,
                Tok::Percent => BinOp::Rem,
                Tok::Ident(s) if s == "in" => BinOp::In,
                _ => return Ok(a),
            };
            self.bump();
            let b = self.postfix()?;
            a = bin(op, a, b, start.to(self.prev_span()));
        }
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let depth = self.depth;
        let r = self.postfix_chain();
        self.depth = depth;
        r
    }

    fn postfix_chain(&mut self) -> PResult<Expr> {
        let start = self.span();
        let mut e = self.primary()?;
        loop {
            self.enter()?;
            if self.eat(&Tok::LBracket) {
                let i = self.expr()?;
                self.expect(Tok::RBracket)?;
                e = Expr {
                    kind: ExprKind::Access(Box::new(e), Box::new(i)),
                    span: start.to(self.prev_span()),
                };
            } else if self.eat(&Tok::LParen) {
                let args = self.args(Tok::RParen)?;
                e = Expr {
                    kind: ExprKind::Call(Box::new(e), args),
                    span: start.to(self.prev_span()),
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Ident(w) if w == "if" => {
                self.bump();
                let c = self.expr()?;
                if !self.is_word("then") {
                    return Err(self.unexpected("`then`"));
                }
                self.bump();
                let a = self.expr()?;
                if !self.is_word("else") {
                    return Err(self.unexpected("`else`"));
                }
                self.bump();
                let b = self.expr()?;
                ExprKind::If(Box::new(c), Box::new(a), Box::new(b))
            }
            Tok::LBrace => {
                self.bump();
                let mut default = None;
                let mut parts = Vec::new();
                if self.eat(&Tok::Colon) {
                    default = Some(Box::new(self.expr()?));
                    while self.eat(&Tok::Semi) {
                        parts.push(self.map_part()?);
                    }
                } else {
                    parts.push(self.map_part()?);
                    while self.eat(&Tok::Semi) {
                        parts.push(self.map_part()?);
                    }
                }
                self.expect(Tok::RBrace)?;
                ExprKind::Map(default, parts)
            }
            Tok::Ident(w) => {
                self.bump();
                if is_upper(&w) && *self.peek() == Tok::LParen {
                    self.bump();
                    let args = self.args(Tok::RParen)?;
                    ExprKind::Ctor(w, args)
                } else {
                    ExprKind::Name(w)
                }
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect(Tok::RParen)?;
                return Ok(e);
            }
            _ => return Err(self.unexpected("an expression")),
        };
        Ok(Expr {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    fn map_part(&mut self) -> PResult<MapPart> {
        let key = self.pattern()?;
        self.expect(Tok::Eq)?;
        let value = self.expr()?;
        let bindings = if self.is_word("where") {
            self.bump();
            self.bindings()?
        } else {
            Vec::new()
        };
        Ok(MapPart {
            key,
            value,
            bindings,
        })
    }
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Bin(op, Box::new(a), Box::new(b)),
        span,
    }
}
