//! The LL parser of declarations and rules (one parser per section body).

mod board;

use super::ast::{Arith, NameKind, Rule};
use super::lexer::Tok;
use crate::error::{Code, RbgError};
use miette::LabeledSpan;
use rg_core::Span;

/// A parser over one section body.
pub(crate) struct Parser<'t> {
    toks: &'t [(Tok, Span)],
    pos: usize,
    end: Span,
    origins: &'t [Option<Span>],
    names: Option<&'t std::collections::HashMap<String, NameKind>>,
    /// Nesting depth of patterns (a switch inside one is an error).
    in_pattern: usize,
    bounds: Option<&'t std::collections::HashMap<String, u64>>,
    /// How deep the rule or expression being parsed is nested (see [`MAX_NESTING`]).
    depth: usize,
    /// The most actions a power `^n` may make (`--size-limit`).
    limit: usize,
    /// The macro names, suggested for a name that is not declared (a misspelt macro use).
    macros: &'t [String],
    /// The name errors found so far: parsing goes on after one.
    errors: Vec<RbgError>,
}

type PResult<T> = Result<T, RbgError>;

/// How deep parentheses and patterns may nest in rules and expressions. The rule tree and the
/// walks over it recurse once per level.
pub const MAX_NESTING: usize = 1000;

/// The number of actions and operators in a rule (iteratively: rules may be deep).
fn rule_size(r: &Rule) -> usize {
    let mut n = 0;
    let mut stack = vec![r];
    while let Some(r) = stack.pop() {
        n += 1;
        match r {
            Rule::Alt(v) | Rule::Seq(v) => stack.extend(v.iter()),
            Rule::Star(x) | Rule::Pattern(_, x) => stack.push(x),
            _ => {}
        }
    }
    n
}

impl<'t> Parser<'t> {
    pub fn new(toks: &'t [(Tok, Span)], end: Span) -> Self {
        Parser {
            toks,
            pos: 0,
            end,
            origins: &[],
            names: None,
            in_pattern: 0,
            bounds: None,
            depth: 0,
            limit: usize::try_from(rg_core::DEFAULT_SIZE_LIMIT).unwrap_or(usize::MAX),
            macros: &[],
            errors: Vec::new(),
        }
    }

    /// The most actions a power may make.
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Runs `f` one nesting level deeper; an error past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(RbgError::new(
                Code::TooDeep,
                format!("nested deeper than {MAX_NESTING}"),
                self.span(),
            )
            .help("parentheses and patterns may be nested at most this deep"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Locates errors in macro expansions at their macro use too.
    pub fn with_origins(mut self, origins: &'t [Option<Span>]) -> Self {
        self.origins = origins;
        self
    }

    /// Checks every name of the rules against the declarations.
    pub fn with_names(mut self, names: &'t std::collections::HashMap<String, NameKind>) -> Self {
        self.names = Some(names);
        self
    }

    /// Suggests these macro names for a name that is not declared.
    pub fn with_macros(mut self, macros: &'t [String]) -> Self {
        self.macros = macros;
        self
    }

    /// The name errors found so far.
    pub fn take_errors(&mut self) -> Vec<RbgError> {
        std::mem::take(&mut self.errors)
    }

    /// Checks literal assignments against the bounds of variables and players.
    pub fn with_bounds(mut self, bounds: &'t std::collections::HashMap<String, u64>) -> Self {
        self.bounds = Some(bounds);
        self
    }

    fn error_at(&self, code: Code, index: usize, message: String) -> RbgError {
        let span = self.toks.get(index).map_or(self.end, |t| t.1);
        let mut e = RbgError::new(code, message, span);
        if let Some(Some(u)) = self.origins.get(index) {
            e.related.push(LabeledSpan::new_with_span(
                Some("in this macro use".into()),
                *u,
            ));
        }
        e
    }

    /// Checks that the name just read (at `index`) is one of `kinds`; an error is recorded
    /// (parsing goes on), with the closest name of those kinds, or macro, as a suggestion.
    fn check_name(
        &mut self,
        index: usize,
        name: &str,
        kinds: &[NameKind],
        what: &str,
    ) -> PResult<()> {
        let Some(names) = self.names else {
            return Ok(());
        };
        let e = match names.get(name) {
            Some(k) if kinds.contains(k) => return Ok(()),
            Some(k) => self.error_at(
                Code::WrongKind,
                index,
                format!(
                    "`{name}` is a {}, not a {what}",
                    format!("{k:?}").to_lowercase()
                ),
            ),
            None => {
                let mut candidates: Vec<&str> = names
                    .iter()
                    .filter(|(_, k)| kinds.contains(k))
                    .map(|(n, _)| n.as_str())
                    .collect();
                candidates.sort_unstable();
                candidates.extend(self.macros.iter().map(String::as_str));
                let e = self.error_at(Code::Unknown, index, format!("`{name}` is not declared"));
                match rg_core::suggest::closest(name, candidates) {
                    Some(c) => e.help(format!("did you mean `{c}`?")),
                    None => e.help(format!(
                        "declare it, or check the spelling; a {what} is expected here"
                    )),
                }
            }
        };
        self.errors.push(e);
        Ok(())
    }

    /// An undeclared name followed by `(`: a use of a macro that is not defined (most likely
    /// misspelt). Recorded, with the closest macro as a suggestion; its arguments are skipped,
    /// so they give no errors of their own.
    fn unknown_macro(&mut self, index: usize, name: &str) {
        let e = self.error_at(
            Code::UnknownMacro,
            index,
            format!("`{name}` is not a macro, nor declared"),
        );
        let e = match rg_core::suggest::closest(name, self.macros.iter().map(String::as_str)) {
            Some(c) => e.help(format!("did you mean `{c}`?")),
            None => e.help("define it with `#name(params) = …` before the section that uses it"),
        };
        self.errors.push(e);
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::P("(") => depth += 1,
                Tok::P(")") => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::Eof, |t| &t.0)
    }

    fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        self.pos += 1;
        t
    }

    pub fn at_end(&self) -> bool {
        *self.peek() == Tok::Eof
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::P(q) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn unexpected(&self, expected: &str) -> RbgError {
        self.error_at(
            Code::UnexpectedToken,
            self.pos,
            format!("unexpected {}, expected {expected}", self.peek().describe()),
        )
    }

    fn expect(&mut self, p: &str) -> PResult<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    pub fn finish(&self, section: &str) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(RbgError::new(
                Code::TrailingTokens,
                format!("unexpected tokens at the end of the `{section}` section"),
                self.span(),
            ))
        }
    }

    /// `name(bound), …` (commas may repeat, as rbgParser allows).
    pub fn bounded_list(&mut self) -> PResult<Vec<(String, u64)>> {
        let mut out = Vec::new();
        while self.eat(",") {}
        while !self.at_end() {
            let name = self.ident("a name")?;
            self.expect("(")?;
            let n = match self.bump() {
                Tok::Num(n) => n,
                _ => return Err(self.unexpected("a bound")),
            };
            self.expect(")")?;
            out.push((name, n));
            if !self.eat(",") {
                break;
            }
            while self.eat(",") {}
        }
        Ok(out)
    }

    pub fn ident_list(&mut self) -> PResult<Vec<String>> {
        let mut out = Vec::new();
        while self.eat(",") {}
        while !self.at_end() {
            out.push(self.ident("a name")?);
            if !self.eat(",") {
                break;
            }
            while self.eat(",") {}
        }
        Ok(out)
    }
}

impl Parser<'_> {
    pub fn rule(&mut self) -> PResult<Rule> {
        self.nested(Self::rule_at_depth)
    }

    fn rule_at_depth(&mut self) -> PResult<Rule> {
        let mut alts = vec![self.seq()?];
        while self.eat("+") {
            alts.push(self.seq()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().expect("one")
        } else {
            Rule::Alt(alts)
        })
    }

    fn starts_item(&self) -> bool {
        match self.peek() {
            Tok::Ident(_) => true,
            Tok::P(p) => matches!(
                *p,
                "(" | "{" | "[" | "[$" | "{$" | "{?" | "{!" | "->" | "->>" | "."
            ),
            _ => false,
        }
    }

    fn seq(&mut self) -> PResult<Rule> {
        let mut items = Vec::new();
        if !self.starts_item() {
            return Err(self.unexpected("an action"));
        }
        while self.starts_item() {
            let mut it = self.primary()?;
            let mut starred = false;
            loop {
                if self.eat("*") {
                    starred = true;
                } else if self.is("^") {
                    let at = self.pos;
                    self.pos += 1;
                    let n = match self.bump() {
                        Tok::Num(n) => n.max(1),
                        _ => return Err(self.unexpected("a number after `^`")),
                    };
                    let size = (rule_size(&it) as u128).saturating_mul(u128::from(n));
                    if size > self.limit as u128 {
                        return Err(self
                            .error_at(Code::TooLarge,
                                at,
                                format!(
                                    "this power makes {size} actions, more than the limit of {}",
                                    self.limit
                                ),
                            )
                            .help("`e^n` is `e` written n times; raise the limit with `--size-limit N`"));
                    }
                    let copies = vec![it; n as usize];
                    it = if copies.len() == 1 {
                        copies.into_iter().next().expect("one")
                    } else {
                        Rule::Seq(copies)
                    };
                } else {
                    break;
                }
            }
            if starred {
                it = Rule::Star(Box::new(it));
            }
            match it {
                Rule::Seq(inner) => items.extend(inner),
                other => items.push(other),
            }
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one")
        } else {
            Rule::Seq(items)
        })
    }

    fn pieces_until(&mut self, close: &str) -> PResult<Vec<String>> {
        let mut v = Vec::new();
        if !self.is(close) {
            loop {
                let at = self.pos;
                let p = self.ident("a piece")?;
                self.check_name(at, &p, &[NameKind::Piece], "piece")?;
                v.push(p);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(close)?;
        Ok(v)
    }

    fn primary(&mut self) -> PResult<Rule> {
        let sp = self.span();
        let at = self.pos;
        match self.bump() {
            Tok::Ident(d) => {
                if self.is("(") && self.names.is_some_and(|n| !n.contains_key(&d)) {
                    self.unknown_macro(at, &d);
                    return Ok(Rule::Noop);
                }
                self.check_name(at, &d, &[NameKind::Label], "direction")?;
                Ok(Rule::Shift(d))
            }
            Tok::P("(") => {
                let r = self.rule()?;
                self.expect(")")?;
                Ok(r)
            }
            Tok::P("{") => {
                let mut ps = self.pieces_until("}")?;
                ps.sort();
                ps.dedup();
                Ok(Rule::On(ps))
            }
            Tok::P("[") => {
                let ps = self.pieces_until("]")?;
                match ps.len() {
                    0 => Err(RbgError::new(
                        Code::UnexpectedToken,
                        "`[]` puts no piece",
                        sp,
                    )),
                    1 => Ok(Rule::Off(ps.into_iter().next().expect("one"))),
                    _ => Ok(Rule::Alt(ps.into_iter().map(Rule::Off).collect())),
                }
            }
            Tok::P("[$") => {
                let mut items = Vec::new();
                loop {
                    let at = self.pos;
                    let v = self.ident("a variable or player")?;
                    self.check_name(
                        at,
                        &v,
                        &[NameKind::Variable, NameKind::Player],
                        "variable or player",
                    )?;
                    self.expect("=")?;
                    let value_at = self.pos;
                    let value = self.arith()?;
                    if let (Arith::Num(n), Some(b)) = (&value, self.bounds.and_then(|b| b.get(&v)))
                        && *n as u64 > *b
                    {
                        return Err(self
                            .error_at(
                                Code::AboveBound,
                                value_at,
                                format!("{n} is above the bound {b} of `{v}`"),
                            )
                            .help("this assignment could never be valid"));
                    }
                    items.push(Rule::Assign(v, value));
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect("]")?;
                Ok(if items.len() == 1 {
                    items.pop().expect("one")
                } else {
                    Rule::Seq(items)
                })
            }
            Tok::P("{$") => {
                let a = self.arith()?;
                let op = match self.bump() {
                    Tok::P(p @ ("==" | "!=" | "<" | "<=" | ">" | ">=")) => p,
                    _ => {
                        return Err(RbgError::new(
                            Code::UnexpectedToken,
                            "expected a comparison operator",
                            sp,
                        ));
                    }
                };
                let b = self.arith()?;
                self.expect("}")?;
                Ok(Rule::Cmp(a, op, b))
            }
            Tok::P(p @ ("{?" | "{!")) => {
                self.in_pattern += 1;
                let r = self.rule();
                self.in_pattern -= 1;
                let r = r?;
                self.expect("}")?;
                Ok(Rule::Pattern(p == "{?", Box::new(r)))
            }
            Tok::P("->" | "->>") if self.in_pattern > 0 => Err(self
                .error_at(
                    Code::SwitchInPattern,
                    at,
                    "a pattern cannot contain a switch".to_string(),
                )
                .help("patterns only test whether a walk exists; move the switch out of `{? … }`")),
            Tok::P("->") => {
                let at = self.pos;
                let p = self.ident("a player")?;
                self.check_name(at, &p, &[NameKind::Player], "player")?;
                Ok(Rule::Switch(Some(p)))
            }
            Tok::P("->>") => Ok(Rule::Switch(None)),
            Tok::P(".") => Ok(Rule::Noop),
            _ => {
                self.pos -= 1;
                Err(self.unexpected("an action"))
            }
        }
    }

    fn arith(&mut self) -> PResult<Arith> {
        self.nested(|p| p.arith_level(0))
    }

    fn arith_level(&mut self, level: usize) -> PResult<Arith> {
        const OPS: [(&str, char); 4] = [("+", '+'), ("-", '-'), ("*", '*'), ("/", '/')];
        if level == OPS.len() {
            return self.operand();
        }
        let (tok, op) = OPS[level];
        let mut items = vec![self.arith_level(level + 1)?];
        while self.eat(tok) {
            items.push(self.arith_level(level + 1)?);
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one")
        } else {
            Arith::Op(op, items)
        })
    }

    fn operand(&mut self) -> PResult<Arith> {
        self.eat("+");
        let at = self.pos;
        match self.bump() {
            Tok::Num(n) => Ok(Arith::Num(n as i64)),
            Tok::Ident(s) => {
                self.check_name(
                    at,
                    &s,
                    &[NameKind::Variable, NameKind::Player, NameKind::Piece],
                    "variable, player or piece",
                )?;
                Ok(Arith::Name(s))
            }
            Tok::P("(") => {
                let a = self.arith()?;
                self.expect(")")?;
                Ok(a)
            }
            _ => {
                self.pos -= 1;
                Err(self.unexpected("a number, a name or `(`"))
            }
        }
    }
}
