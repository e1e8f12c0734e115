//! RBG tokens (rbg.md §2), sections (§3) and the LL parser of declarations, boards and rules
//! (§5, §6.1, §7.1, §8).

use crate::error::RbgError;
use miette::LabeledSpan;
use rg_core::{FileId, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Num(u64),
    P(&'static str),
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(n) => format!("`{n}`"),
            Tok::P(p) => format!("`{p}`"),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

/// The raw tokens (rbg.md §2.2): longest match, `//` and `/* */` comments and strings skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, logos::Logos)]
#[logos(skip r"[ \t\n\r\x0b\x0c]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
enum Raw {
    #[regex("[A-Za-z][A-Za-z0-9_]*")]
    Ident,
    #[regex("[0-9]+")]
    Num,
    /// A string: no grammar rule accepts one; skipped like a comment.
    #[regex(r#""[^"]*""#, allow_greedy = true)]
    Str,
    /// `/*` without a closing `*/` (a closed comment is skipped as a longer match).
    #[token("/*")]
    OpenComment,
    #[token("->>")]
    #[token("{?")]
    #[token("{!")]
    #[token("{$")]
    #[token("[$")]
    #[token("+>")]
    #[token("->")]
    #[token("!=")]
    #[token("==")]
    #[token("<=")]
    #[token(">=")]
    #[regex(r"[()\[\]{}~#\-+^/*.,;:$=!?<>]")]
    Punct,
}

const PUNCT: [&str; 34] = [
    "->>", "{?", "{!", "{$", "[$", "+>", "->", "!=", "==", "<=", ">=", "(", ")", "[", "]", "{",
    "}", "~", "#", "-", "+", "^", "/", "*", ".", ",", ";", ":", "$", "=", "!", "?", "<", ">",
];

pub(crate) fn lex(file: FileId, text: &str) -> Result<Vec<(Tok, Span)>, RbgError> {
    use logos::Logos;
    let mut out = Vec::new();
    let mut lexer = Raw::lexer(text);
    while let Some(raw) = lexer.next() {
        let r = lexer.span();
        let span = Span::new(file, r.start, r.end);
        let slice = lexer.slice();
        let tok = match raw {
            Ok(Raw::Ident) => Tok::Ident(slice.to_string()),
            Ok(Raw::Num) => match slice.parse::<u64>() {
                Ok(n) if n <= u64::from(u32::MAX) => Tok::Num(n),
                _ => return Err(RbgError::new("too large integer", span)),
            },
            Ok(Raw::Punct) => Tok::P(
                PUNCT
                    .iter()
                    .copied()
                    .find(|p| *p == slice)
                    .expect("every punctuator is listed"),
            ),
            Ok(Raw::Str) => continue,
            Ok(Raw::OpenComment) => {
                return Err(RbgError::new(
                    "unterminated comment",
                    Span::new(file, r.start, text.len()),
                )
                .help("close it with `*/`"));
            }
            Err(()) => {
                let rest = &text[r.start..];
                let (message, help) = if rest.starts_with("/*") {
                    ("unterminated comment".to_string(), "close it with `*/`")
                } else if rest.starts_with('"') {
                    ("unterminated string".to_string(), "close it with `\"`")
                } else {
                    (
                        format!(
                            "unexpected character `{}`",
                            rest.chars().next().unwrap_or(' ')
                        ),
                        "RBG names are ASCII letters and digits; comments are `//` and `/* */`",
                    )
                };
                let end = if message.starts_with("unterminated") {
                    text.len()
                } else {
                    r.end
                };
                return Err(RbgError::new(message, Span::new(file, r.start, end)).help(help));
            }
        };
        out.push((tok, span));
    }
    out.push((Tok::Eof, Span::new(file, text.len(), text.len())));
    Ok(out)
}

/// Arithmetic (rbg.md §7.1): n-ary nodes evaluated left to right.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arith {
    Num(i64),
    Name(String),
    Op(char, Vec<Arith>),
}

/// A rules expression (rbg.md §7.1, §8.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Rule {
    Alt(Vec<Rule>),
    Seq(Vec<Rule>),
    Star(Box<Rule>),
    Shift(String),
    On(Vec<String>),
    Off(String),
    Assign(String, Arith),
    Cmp(Arith, &'static str, Arith),
    Pattern(bool, Box<Rule>),
    Switch(Option<String>),
    Noop,
}

#[derive(Clone, Debug)]
pub(crate) struct Vertex {
    pub name: String,
    pub piece: String,
    pub edges: Vec<(String, String)>,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Game {
    pub players: Vec<(String, u64)>,
    pub pieces: Vec<String>,
    pub variables: Vec<(String, u64)>,
    pub board: Vec<Vertex>,
    /// Direction labels declared by a board generator (they may have no edge).
    pub labels: Vec<String>,
    pub rules: Option<Rule>,
    pub rules_span: Option<Span>,
}

/// What a declared name is (rbg.md §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameKind {
    Piece,
    Player,
    Variable,
    Label,
}

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
            return Err(
                RbgError::new(format!("nested deeper than {MAX_NESTING}"), self.span())
                    .help("parentheses and patterns may be nested at most this deep"),
            );
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

    /// Checks literal assignments against the bounds of variables and players.
    pub fn with_bounds(mut self, bounds: &'t std::collections::HashMap<String, u64>) -> Self {
        self.bounds = Some(bounds);
        self
    }

    fn error_at(&self, index: usize, message: String) -> RbgError {
        let span = self.toks.get(index).map_or(self.end, |t| t.1);
        let mut e = RbgError::new(message, span);
        if let Some(Some(u)) = self.origins.get(index) {
            e.related.push(LabeledSpan::new_with_span(
                Some("in this macro use".into()),
                *u,
            ));
        }
        e
    }

    /// Checks that the name just read (at `index`) is one of `kinds`.
    fn check_name(&self, index: usize, name: &str, kinds: &[NameKind], what: &str) -> PResult<()> {
        let Some(names) = self.names else {
            return Ok(());
        };
        match names.get(name) {
            Some(k) if kinds.contains(k) => Ok(()),
            Some(k) => Err(self.error_at(
                index,
                format!(
                    "`{name}` is a {}, not a {what}",
                    format!("{k:?}").to_lowercase()
                ),
            )),
            None => Err(self
                .error_at(index, format!("`{name}` is not declared"))
                .help(format!(
                    "declare it, or check the spelling; a {what} is expected here"
                ))),
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

    /// A generator's rows: `[cell, …]` juxtaposed, a cell being a piece or nothing.
    fn rows(&mut self) -> PResult<Vec<Vec<Option<String>>>> {
        let mut rows = Vec::new();
        while self.is("[") {
            self.pos += 1;
            let mut cells = Vec::new();
            if !self.is("]") {
                loop {
                    match self.peek().clone() {
                        Tok::Ident(p) => {
                            self.pos += 1;
                            cells.push(Some(p));
                        }
                        _ => cells.push(None),
                    }
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect("]")?;
            rows.push(cells);
        }
        Ok(rows)
    }

    fn labels(&mut self, n: usize) -> PResult<Vec<String>> {
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(self.ident("a direction label")?);
            self.expect(",")?;
        }
        Ok(v)
    }

    /// A board: a generator call or an explicit graph (rbg.md §6).
    pub fn board(&mut self) -> PResult<(Vec<Vertex>, Vec<String>)> {
        let start = self.span();
        let generator = match self.peek() {
            Tok::Ident(g) if matches!(g.as_str(), "rectangle" | "hexagon" | "cuboid") => g.clone(),
            _ => return Ok((self.explicit_board()?, Vec::new())),
        };
        self.pos += 1;
        self.expect("(")?;
        let mut out = Vec::new();
        let vertex = |name: String, piece: String, edges: Vec<(String, String)>| Vertex {
            name,
            piece,
            edges,
            span: start,
        };
        let labels = match generator.as_str() {
            "rectangle" => {
                let l = self.labels(4)?;
                let rows = self.rows()?;
                if rows.is_empty() {
                    return Err(RbgError::new("a rectangle needs at least one row", start));
                }
                let w = rows[0].len();
                if rows.iter().any(|r| r.len() != w) {
                    return Err(RbgError::new(
                        "the rows of a rectangle differ in length",
                        start,
                    ));
                }
                let cell = |x: i64, y: i64| -> Option<String> {
                    if x < 0 || y < 0 || y as usize >= rows.len() || x as usize >= w {
                        return None;
                    }
                    rows[y as usize][x as usize]
                        .as_ref()
                        .map(|_| format!("rx{x}y{y}"))
                };
                for (y, row) in rows.iter().enumerate() {
                    for (x, c) in row.iter().enumerate() {
                        let Some(p) = c else { continue };
                        let (x, y) = (x as i64, y as i64);
                        let mut edges = Vec::new();
                        for (lab, (dx, dy)) in l.iter().zip([(0, -1), (0, 1), (-1, 0), (1, 0)]) {
                            if let Some(t) = cell(x + dx, y + dy) {
                                edges.push((lab.clone(), t));
                            }
                        }
                        out.push(vertex(format!("rx{x}y{y}"), p.clone(), edges));
                    }
                }
                l
            }
            "hexagon" => {
                let l = self.labels(6)?;
                let rows = self.rows()?;
                if rows.is_empty() || rows.iter().any(Vec::is_empty) {
                    return Err(RbgError::new("a hexagon needs non-empty rows", start));
                }
                let lens: Vec<usize> = rows.iter().map(Vec::len).collect();
                let peak = (0..lens.len() - 1)
                    .find(|&y| lens[y + 1] < lens[y])
                    .unwrap_or(lens.len() - 1);
                let shaped = (0..lens.len() - 1).all(|y| {
                    if y < peak {
                        lens[y + 1] == lens[y] + 1
                    } else {
                        lens[y + 1] + 1 == lens[y]
                    }
                });
                if !shaped {
                    return Err(RbgError::new(
                        "hexagon rows must grow by one cell up to the widest row, then shrink by one",
                        start,
                    ));
                }
                let cell = |x: i64, y: i64| -> Option<String> {
                    if x < 0
                        || y < 0
                        || y as usize >= rows.len()
                        || x as usize >= rows[y as usize].len()
                    {
                        return None;
                    }
                    rows[y as usize][x as usize]
                        .as_ref()
                        .map(|_| format!("hx{x}y{y}"))
                };
                let p = peak as i64;
                for (y, row) in rows.iter().enumerate() {
                    for (x, c) in row.iter().enumerate() {
                        let Some(pc) = c else { continue };
                        let (x, y) = (x as i64, y as i64);
                        let (se, sw) = if y < p {
                            ((x + 1, y + 1), (x, y + 1))
                        } else {
                            ((x, y + 1), (x - 1, y + 1))
                        };
                        let (ne, nw) = if y <= p {
                            ((x, y - 1), (x - 1, y - 1))
                        } else {
                            ((x + 1, y - 1), (x, y - 1))
                        };
                        let targets = [nw, ne, (x + 1, y), se, sw, (x - 1, y)];
                        let mut edges = Vec::new();
                        for (lab, (tx, ty)) in l.iter().zip(targets) {
                            if let Some(t) = cell(tx, ty) {
                                edges.push((lab.clone(), t));
                            }
                        }
                        out.push(vertex(format!("hx{x}y{y}"), pc.clone(), edges));
                    }
                }
                l
            }
            _ => {
                let l = self.labels(6)?;
                let mut layers = Vec::new();
                while self.is("[") {
                    self.pos += 1;
                    layers.push(self.rows()?);
                    self.expect("]")?;
                }
                if layers.is_empty() || layers[0].is_empty() {
                    return Err(RbgError::new("a cuboid needs at least one layer", start));
                }
                let (h, w) = (layers[0].len(), layers[0][0].len());
                if layers
                    .iter()
                    .any(|ly| ly.len() != h || ly.iter().any(|r| r.len() != w))
                {
                    return Err(RbgError::new(
                        "the layers of a cuboid differ in size",
                        start,
                    ));
                }
                let cell = |x: i64, y: i64, z: i64| -> Option<String> {
                    if x < 0
                        || y < 0
                        || z < 0
                        || z as usize >= layers.len()
                        || y as usize >= h
                        || x as usize >= w
                    {
                        return None;
                    }
                    layers[z as usize][y as usize][x as usize]
                        .as_ref()
                        .map(|_| format!("cx{x}y{y}z{z}"))
                };
                for (z, layer) in layers.iter().enumerate() {
                    for (y, row) in layer.iter().enumerate() {
                        for (x, c) in row.iter().enumerate() {
                            let Some(pc) = c else { continue };
                            let (x, y, z) = (x as i64, y as i64, z as i64);
                            let targets = [
                                (x, y - 1, z),
                                (x, y + 1, z),
                                (x - 1, y, z),
                                (x + 1, y, z),
                                (x, y, z + 1),
                                (x, y, z - 1),
                            ];
                            let mut edges = Vec::new();
                            for (lab, (tx, ty, tz)) in l.iter().zip(targets) {
                                if let Some(t) = cell(tx, ty, tz) {
                                    edges.push((lab.clone(), t));
                                }
                            }
                            out.push(vertex(format!("cx{x}y{y}z{z}"), pc.clone(), edges));
                        }
                    }
                }
                l
            }
        };
        self.expect(")")?;
        if out.is_empty() {
            return Err(RbgError::new("the board has no vertex", start));
        }
        Ok((out, labels))
    }

    fn explicit_board(&mut self) -> PResult<Vec<Vertex>> {
        let mut out = Vec::new();
        let mut declared: std::collections::HashMap<String, Span> = Default::default();
        while !self.at_end() {
            let start = self.span();
            let at = self.pos;
            let name = self.ident("a vertex")?;
            if let Some(first) = declared.insert(name.clone(), start) {
                let mut e = self
                    .error_at(at, format!("vertex `{name}` is declared twice"))
                    .help("every vertex of the board is declared once; remove or rename this one");
                e.related.push(LabeledSpan::new_with_span(
                    Some("first declared here".into()),
                    first,
                ));
                return Err(e);
            }
            self.expect("[")?;
            let piece = self.ident("a piece")?;
            self.expect("]")?;
            self.expect("{")?;
            let mut edges = Vec::new();
            if !self.is("}") {
                loop {
                    let l = self.ident("an edge label")?;
                    self.expect(":")?;
                    let t = self.ident("a vertex")?;
                    edges.push((l, t));
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect("}")?;
            out.push(Vertex {
                name,
                piece,
                edges,
                span: start,
            });
        }
        Ok(out)
    }

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
                            .error_at(
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
                    0 => Err(RbgError::new("`[]` puts no piece", sp)),
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
                            .error_at(value_at, format!("{n} is above the bound {b} of `{v}`"))
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
                    _ => return Err(RbgError::new("expected a comparison operator", sp)),
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
                .error_at(at, "a pattern cannot contain a switch".to_string())
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
