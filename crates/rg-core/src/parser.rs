//! RG parsing: glue between the lexer, the LALRPOP grammar and our error type.

use crate::ast;
use crate::game::Game;
use crate::lexer::{LexErrorKind, Lexer, Never, Tok};
use crate::span::{FileId, Span};
use lalrpop_util::ParseError;
use miette::{Diagnostic, SourceSpan};
use thiserror::Error;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_imports,
        unused_qualifications,
        rust_2018_idioms,
        missing_debug_implementations
    )]
    grammar
);

/// One top-level declaration, as the grammar produces it.
#[derive(Debug)]
pub(crate) enum Decl {
    Typedef(ast::Typedef),
    Constant(ast::Constant),
    Variable(ast::Variable),
    Edge(ast::Edge),
    Pragma(ast::Pragma),
}

impl Decl {
    pub(crate) fn with_loc(mut self, span: Span) -> Self {
        let loc = span.into();
        match &mut self {
            Decl::Typedef(d) => d.loc = loc,
            Decl::Constant(d) => d.loc = loc,
            Decl::Variable(d) => d.loc = loc,
            Decl::Edge(d) => d.loc = loc,
            Decl::Pragma(d) => d.loc = loc,
        }
        self
    }
}

pub(crate) fn sp(file: FileId, l: usize, r: usize) -> Span {
    Span::new(file, l, r)
}

pub(crate) fn ident(file: FileId, name: &str, l: usize, r: usize) -> ast::Ident {
    ast::Ident::spanned(name, sp(file, l, r))
}

pub(crate) fn parse_int(
    file: FileId,
    text: &str,
    l: usize,
    r: usize,
    diags: &mut Vec<SyntaxError>,
) -> u64 {
    match text
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| text.parse::<u64>())
    {
        Some(Ok(n)) => n,
        _ => {
            diags.push(SyntaxError::BadInteger {
                text: text.to_owned(),
                span: sp(file, l, r).into(),
            });
            0
        }
    }
}

/// One syntax error.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum SyntaxError {
    /// A character that starts no RG token.
    #[error("unexpected character `{ch}`")]
    #[diagnostic(
        code(rg::parse::unexpected_character),
        help("RG names are letters, digits and `_`; comments start with `//`")
    )]
    UnexpectedChar {
        ch: char,
        #[label("not part of any RG token")]
        span: SourceSpan,
    },
    /// An unknown pragma never closed by `;`.
    #[error("pragma without a terminating `;`")]
    #[diagnostic(
        code(rg::parse::unterminated_pragma),
        help("an unknown pragma's text runs up to the next `;`; add one")
    )]
    UnterminatedPragma {
        #[label("this pragma is never closed")]
        span: SourceSpan,
    },
    /// A token the grammar does not allow here.
    #[error("unexpected {found}, expected {expected}")]
    #[diagnostic(code(rg::parse::unexpected_token))]
    UnexpectedToken {
        found: String,
        expected: String,
        #[label("unexpected {found}")]
        span: SourceSpan,
        /// Where a missing `;` belongs (after the previous token), when `;` was expected.
        #[label("perhaps a `;` is missing here")]
        semicolon: Option<SourceSpan>,
        #[help]
        help: Option<String>,
    },
    /// The file ends inside a declaration.
    #[error("unexpected end of file, expected {expected}")]
    #[diagnostic(code(rg::parse::unexpected_eof))]
    UnexpectedEof {
        expected: String,
        #[label("the file ends here")]
        span: SourceSpan,
        #[help]
        help: Option<String>,
    },
    /// `board [x]`: trivia between an expression and the `[` of an access.
    #[error("no space or comment is allowed before the `[` of an access")]
    #[diagnostic(
        code(rg::parse::space_before_bracket),
        help("write `m[k]`, not `m [k]`")
    )]
    TriviaBeforeBracket {
        #[label("remove this")]
        span: SourceSpan,
    },
    /// `[p : T]` in a simple-apply pragma.
    #[error("no space or comment is allowed between a tag binder and its `:`")]
    #[diagnostic(
        code(rg::parse::space_before_binder_colon),
        help("write `[p: T]`, not `[p : T]`")
    )]
    TriviaBeforeBinderColon {
        #[label("remove this")]
        span: SourceSpan,
    },
    /// Brackets, or the arrows of a type, nested deeper than [`MAX_NESTING`].
    #[error("nested deeper than {limit}")]
    #[diagnostic(
        code(rg::parse::too_deep),
        help(
            "brackets (`(`, `[`, `{{`) and the arrows of one type may be nested at most {limit} deep"
        )
    )]
    TooDeep {
        limit: usize,
        #[label("nesting level {limit} is exceeded here")]
        span: SourceSpan,
    },
    /// A pragma integer that is not an unsigned 64-bit decimal.
    #[error("expected an integer, found `{text}`")]
    #[diagnostic(
        code(rg::parse::bad_integer),
        help("pragma integers are decimal digits fitting an unsigned 64-bit integer")
    )]
    BadInteger {
        text: String,
        #[label("not an integer")]
        span: SourceSpan,
    },
}

impl SyntaxError {
    fn offset(&self) -> usize {
        match self {
            SyntaxError::UnexpectedChar { span, .. }
            | SyntaxError::UnterminatedPragma { span }
            | SyntaxError::UnexpectedToken { span, .. }
            | SyntaxError::UnexpectedEof { span, .. }
            | SyntaxError::TriviaBeforeBracket { span }
            | SyntaxError::TriviaBeforeBinderColon { span }
            | SyntaxError::BadInteger { span, .. }
            | SyntaxError::TooDeep { span, .. } => span.offset(),
        }
    }

    fn set_help_if_none(&mut self, text: &str) {
        if let SyntaxError::UnexpectedToken { help, .. } | SyntaxError::UnexpectedEof { help, .. } =
            self
            && help.is_none()
        {
            *help = Some(text.to_owned());
        }
    }
}

/// Every syntax error of one file (at least one).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{} syntax error{}", .errors.len(), if .errors.len() == 1 { "" } else { "s" })]
pub struct ParseErrors {
    pub errors: Vec<SyntaxError>,
}

impl Diagnostic for ParseErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new("rg::parse"))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.errors.iter().map(|e| e as &dyn Diagnostic)))
    }
}

/// How deep brackets and type arrows may nest. The syntax tree, the game built from it and
/// every walk over them recurse once per level; real games nest a handful of levels.
pub const MAX_NESTING: usize = 1000;

/// The first place where brackets, or the arrows of one declaration's types (`A -> B -> C`
/// nests to the right), nest deeper than [`MAX_NESTING`].
fn too_deep(file: FileId, text: &str) -> Option<SyntaxError> {
    let mut depth = 0usize;
    let mut arrows = 0usize;
    for (l, tok, r) in Lexer::new(text).flatten() {
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Arrow => arrows += 1,
            Tok::Semi => arrows = 0,
            _ => continue,
        }
        if depth > MAX_NESTING || arrows > MAX_NESTING {
            return Some(SyntaxError::TooDeep {
                limit: MAX_NESTING,
                span: sp(file, l, r).into(),
            });
        }
    }
    None
}

/// Parses RG text into a syntax tree (spans refer to `file`).
pub fn parse_ast(file: FileId, text: &str) -> Result<ast::Game, ParseErrors> {
    if let Some(e) = too_deep(file, text) {
        return Err(ParseErrors { errors: vec![e] });
    }
    let mut recovered = Vec::new();
    let mut diags = Vec::new();
    let result =
        grammar::DeclsParser::new().parse(file, &mut recovered, &mut diags, Lexer::new(text));
    let mut errors = diags;
    for r in recovered {
        errors.push(convert(file, text, r.error));
    }
    let decls = match result {
        Ok(decls) => decls,
        Err(e) => {
            errors.push(convert(file, text, e));
            Vec::new()
        }
    };
    if !errors.is_empty() {
        errors.sort_by_key(SyntaxError::offset);
        errors.dedup();
        add_keyword_prefix_help(text, &mut errors);
        return Err(ParseErrors { errors });
    }
    let mut game = ast::Game::new();
    for d in decls {
        match d {
            Decl::Typedef(t) => game.typedefs.push(t),
            Decl::Constant(c) => game.constants.push(c),
            Decl::Variable(v) => game.variables.push(v),
            Decl::Edge(e) => game.edges.push(e),
            Decl::Pragma(p) => game.pragmas.push(p),
        }
    }
    Ok(game)
}

/// Parses RG text into the IR (builtins are not added; see [`crate::builtins`]).
pub fn parse(file: FileId, text: &str) -> Result<Game, ParseErrors> {
    parse_ast(file, text).map(|a| Game::from_ast(&a))
}

fn convert(file: FileId, text: &str, e: ParseError<usize, Tok<'_>, Never>) -> SyntaxError {
    match e {
        ParseError::UnrecognizedToken {
            token: (l, Tok::Error(kind), r),
            ..
        }
        | ParseError::ExtraToken {
            token: (l, Tok::Error(kind), r),
        } => match kind {
            LexErrorKind::UnexpectedChar => SyntaxError::UnexpectedChar {
                ch: text[l..].chars().next().unwrap_or('?'),
                span: sp(file, l, r.max(l + 1)).into(),
            },
            LexErrorKind::UnterminatedPragma => SyntaxError::UnterminatedPragma {
                span: sp(file, l, (l + 1).min(text.len())).into(),
            },
        },
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => SyntaxError::UnexpectedToken {
            found: tok.to_string(),
            expected: expected_list(&expected),
            span: sp(file, l, r).into(),
            semicolon: expected
                .iter()
                .any(|e| e == "\";\"")
                .then(|| previous_token_end(text, l))
                .flatten()
                .map(|p| sp(file, p, p).into()),
            help: token_help(tok, &expected),
        },
        ParseError::ExtraToken { token: (l, tok, r) } => SyntaxError::UnexpectedToken {
            found: tok.to_string(),
            expected: "the end of the file".into(),
            span: sp(file, l, r).into(),
            semicolon: None,
            help: None,
        },
        ParseError::UnrecognizedEof { location, expected } => SyntaxError::UnexpectedEof {
            expected: expected_list(&expected),
            span: sp(file, location, location).into(),
            help: expected
                .iter()
                .any(|e| e == "\";\"")
                .then(|| "every declaration ends with `;`".to_owned()),
        },
        ParseError::InvalidToken { location } => SyntaxError::UnexpectedChar {
            ch: text[location..].chars().next().unwrap_or('?'),
            span: sp(file, location, location + 1).into(),
        },
        ParseError::User { error } => match error {},
    }
}

/// The end of the token before offset `at` when trivia separates them (a line break or a comment
/// in between), i.e. where a forgotten `;` would go; `None` when the tokens are adjacent.
fn previous_token_end(text: &str, at: usize) -> Option<usize> {
    let before = &text[..at];
    // Walk back over whitespace and whole-line comments.
    let mut end = before.len();
    loop {
        let trimmed = before[..end].trim_end();
        let line_start = trimmed.rfind(['\n', '\r']).map_or(0, |p| p + 1);
        match trimmed[line_start..].find("//") {
            Some(c) if !trimmed[line_start..line_start + c].contains('@') => {
                end = line_start + c;
            }
            _ => {
                end = trimmed.len();
                break;
            }
        }
    }
    (end < at && text[end..at].contains(['\n', '\r'])).then_some(end)
}

/// A readable list of what the grammar expected, e.g. "`;`, `=` or a name".
fn expected_list(expected: &[String]) -> String {
    let mut items: Vec<String> = expected
        .iter()
        .map(|e| match e.as_str() {
            "Name" => "a name".to_owned(),
            "UnknownPragma" => "a pragma".to_owned(),
            s => format!("`{}`", s.trim_matches('"')),
        })
        .collect();
    // Declarations can start with many tokens; summarise them.
    if items.len() > 8 {
        return "a declaration (`type`, `const`, `var`, an edge or a pragma)".to_owned();
    }
    match items.len() {
        0 => "nothing more".to_owned(),
        1 => items.remove(0),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} or {last}", items.join(", "))
        }
    }
}

fn token_help(found: Tok<'_>, expected: &[String]) -> Option<String> {
    let wants_name = expected.iter().any(|e| e == "Name");
    match found {
        Tok::Type | Tok::Const | Tok::Var if wants_name => Some(
            "`type`, `const` and `var` are keywords and cannot be used as names".to_owned(),
        ),
        Tok::RBrace if wants_name => Some("set types need at least one member and no trailing comma".to_owned()),
        Tok::Semi if expected.iter().any(|e| e == "\"==\"") => Some(
            "a label is empty, a tag (`$ s`, `$$ v`), a comparison, an assignment or a reachability check"
                .to_owned(),
        ),
        Tok::Star => Some("`T(*)` only follows `=` (an any-assignment)".to_owned()),
        Tok::UnknownPragma(_) | Tok::Pragma(_) if expected.iter().any(|e| e == "\";\"") => {
            Some("the previous declaration is missing its `;`".to_owned())
        }
        _ if expected.iter().any(|e| e == "\";\"") && expected.len() <= 2 => {
            Some("every declaration ends with `;`".to_owned())
        }
        _ => None,
    }
}

/// Errors inside a declaration whose first word was split into `const`/`type`/`var` + rest get a
/// hint, because the reference (and rgt) read such words as keywords (a declaration keyword is a
/// prefix: `typeX` is `type X`).
fn add_keyword_prefix_help(text: &str, errors: &mut [SyntaxError]) {
    for e in errors.iter_mut() {
        let at = e.offset().min(text.len());
        let decl_start = text[..at].rfind(';').map_or(0, |p| p + 1);
        let head = text[decl_start..at].trim_start();
        let head = strip_comments(head);
        for kw in ["const", "type", "var"] {
            if let Some(rest) = head.strip_prefix(kw)
                && rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                e.set_help_if_none(&format!(
                    "a declaration starting with `{kw}` is read as a `{kw}` declaration, even when \
                     the word goes on (`{kw}{}`); rename the node or write `{kw} {}`",
                    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or(""),
                    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")
                ));
            }
        }
    }
}

fn strip_comments(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix("//") {
            s = rest.find(['\n', '\r']).map_or("", |p| &rest[p..]);
        } else {
            return s;
        }
    }
}
