//! The infix syntax of GDL (`h :- b1 & ~b2`, variables are capitalised names), read
//! into the same S-expression trees as prefix KIF:
//!
//! | infix | tree |
//! |---|---|
//! | `p(a, Y)` | `(p a ?Y)` |
//! | `~l` | `(not l)` |
//! | `h :- b & c` | `(<= h b c)` |
//! | `or(l1, …)`, `distinct(s, t)` | `(or l1 …)`, `(distinct s t)` |
//!
//! so the checks after the reader are shared. A syntax error (E-PARSE-006) skips to the next
//! name at the start of a line, where the next rule probably begins.

use crate::error::{Code, GdlDiagnostic, Sink};
use crate::reader::{Sexp, SexpKind};
use logos::Logos;
use rg_core::{FileId, Span};

/// An infix token.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[\s\u{feff}]+")]
#[logos(skip(r";[^\n\r]*", allow_greedy = true))]
enum ITok {
    #[regex(r"[A-Za-z0-9_+<>\-]+")]
    Name,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    #[token(":-")]
    Implies,
    #[token("&")]
    And,
    #[token("~")]
    Not,
    /// A character no token starts with (logos reports it as an error).
    Unknown,
}

impl ITok {
    fn describe(self) -> &'static str {
        match self {
            ITok::Name => "a name",
            ITok::LParen => "`(`",
            ITok::RParen => "`)`",
            ITok::Comma => "`,`",
            ITok::Implies => "`:-`",
            ITok::And => "`&`",
            ITok::Not => "`~`",
            ITok::Unknown => "an unexpected character",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Token {
    tok: ITok,
    start: usize,
    end: usize,
    /// The first token on its line.
    line_start: bool,
}

struct Parser<'a> {
    file: FileId,
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    /// Terms and negations open around the current token (see [`crate::reader::MAX_DEPTH`]).
    depth: usize,
    /// Where the nesting first went past the limit, for the error.
    too_deep: Option<Span>,
}

/// A syntax error: the token found and what was expected.
struct Expected(&'static str);

impl<'a> Parser<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn peek(&self) -> Option<Token> {
        self.toks.get(self.pos).copied()
    }

    fn eat(&mut self, tok: ITok) -> Option<Token> {
        let t = self.peek().filter(|t| t.tok == tok)?;
        self.pos += 1;
        Some(t)
    }

    /// `rule := atom [":-" literal {"&" literal}]`
    fn rule(&mut self) -> Result<Sexp<'a>, Expected> {
        let head = self.atom()?;
        let Some(implies) = self.eat(ITok::Implies) else {
            return Ok(head);
        };
        let mut items = vec![
            Sexp {
                kind: SexpKind::Const("<="),
                span: self.span(implies.start, implies.end),
            },
            head,
        ];
        loop {
            items.push(self.literal()?);
            if self.eat(ITok::And).is_none() {
                break;
            }
        }
        let span = items[1].span.to(items[items.len() - 1].span);
        Ok(Sexp {
            kind: SexpKind::List(items),
            span,
        })
    }

    /// `literal := "~" literal | atom` (also used for arguments: a term is an atom whose name
    /// may be a variable; `~` in a term is rejected after reading). Nested at most
    /// [`crate::reader::MAX_DEPTH`] deep, as prefix lists are.
    fn literal(&mut self) -> Result<Sexp<'a>, Expected> {
        if self.depth >= crate::reader::MAX_DEPTH {
            if let Some(t) = self.peek() {
                self.too_deep = Some(self.span(t.start, t.end));
            }
            return Err(Expected("less nesting"));
        }
        self.depth += 1;
        let r = self.literal_at_depth();
        self.depth -= 1;
        r
    }

    fn literal_at_depth(&mut self) -> Result<Sexp<'a>, Expected> {
        match self.eat(ITok::Not) {
            Some(not) => {
                let inner = self.literal()?;
                let span = self.span(not.start, inner.span.end as usize);
                let not = Sexp {
                    kind: SexpKind::Const("not"),
                    span: self.span(not.start, not.end),
                };
                Ok(Sexp {
                    kind: SexpKind::List(vec![not, inner]),
                    span,
                })
            }
            None => self.atom(),
        }
    }

    /// `atom := name ["(" literal {"," literal} ")"]`
    fn atom(&mut self) -> Result<Sexp<'a>, Expected> {
        let name = self
            .eat(ITok::Name)
            .ok_or(Expected("a name (a relation, constant or variable)"))?;
        let word = &self.text[name.start..name.end];
        let kind = if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            SexpKind::Var(word)
        } else {
            SexpKind::Const(word)
        };
        let head = Sexp {
            kind,
            span: self.span(name.start, name.end),
        };
        if self.eat(ITok::LParen).is_none() {
            return Ok(head);
        }
        let mut items = vec![head];
        loop {
            items.push(self.literal()?);
            if self.eat(ITok::Comma).is_none() {
                break;
            }
        }
        let close = self.eat(ITok::RParen).ok_or(Expected("`,` or `)`"))?;
        Ok(Sexp {
            kind: SexpKind::List(items),
            span: self.span(name.start, close.end),
        })
    }

    /// After an error: skip to the next name that starts a line (past the current token).
    fn recover(&mut self) {
        self.pos += 1;
        while let Some(t) = self.peek() {
            if t.tok == ITok::Name && t.line_start {
                return;
            }
            self.pos += 1;
        }
    }
}

/// Reads infix GDL `text` into top-level forms (as prefix trees).
pub(crate) fn read<'a>(file: FileId, text: &'a str, sink: &mut Sink) -> Vec<Sexp<'a>> {
    let mut toks = Vec::new();
    let mut prev_end = 0;
    for (tok, range) in ITok::lexer(text).spanned() {
        let gap = &text[prev_end..range.start];
        toks.push(Token {
            tok: tok.unwrap_or(ITok::Unknown),
            start: range.start,
            end: range.end,
            line_start: prev_end == 0 || gap.contains(['\n', '\r']),
        });
        prev_end = range.end;
    }
    let mut p = Parser {
        file,
        text,
        toks,
        pos: 0,
        depth: 0,
        too_deep: None,
    };
    let mut forms = Vec::new();
    while p.pos < p.toks.len() {
        match p.rule() {
            Ok(form) => forms.push(form),
            Err(_) if p.too_deep.is_some() => {
                let span = p.too_deep.take().unwrap_or(p.span(0, 0));
                sink.push(
                    GdlDiagnostic::new(
                        Code::TooDeep,
                        span,
                        format!(
                            "terms and negations are nested more than {} levels deep",
                            crate::reader::MAX_DEPTH
                        ),
                    )
                    .with_help("GDL terms are shallow; this is probably a runaway `(` or `~`"),
                );
                p.depth = 0;
                p.recover();
            }
            Err(Expected(what)) => {
                let (span, found) = match p.peek() {
                    Some(t) => (
                        p.span(t.start, t.end),
                        match t.tok {
                            ITok::Unknown | ITok::Name => format!("`{}`", &text[t.start..t.end]),
                            other => other.describe().to_owned(),
                        },
                    ),
                    None => (p.span(text.len(), text.len()), "the end of the file".into()),
                };
                let after = match p.pos.checked_sub(1).and_then(|i| p.toks.get(i)) {
                    Some(t) => format!("`{}`", &text[t.start..t.end]),
                    None => "the start of the file".into(),
                };
                let message = match p.peek() {
                    Some(t) if t.tok == ITok::Unknown => format!("unexpected character {found}"),
                    _ => format!("expected {what} after {after}, found {found}"),
                };
                sink.push(
                    GdlDiagnostic::new(Code::InfixSyntax, span, message).with_help(
                        "infix GDL rules read `head :- literal & ~literal`, atoms `p(t1, t2)`; \
                         names use letters, digits and `_ + - < >`",
                    ),
                );
                p.recover();
            }
        }
    }
    forms
}

/// Whether `text` is infix GDL: its first significant character (after white space and `;`
/// comments) is not `(`. An empty text counts as prefix.
pub fn looks_infix(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        match rest.strip_prefix(';') {
            Some(comment) => {
                rest = comment.find(['\n', '\r']).map_or("", |i| &comment[i..]);
            }
            None => return !rest.is_empty() && !rest.starts_with('('),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> (Vec<String>, Vec<String>) {
        let mut sink = Sink::default();
        let forms = read(FileId(0), text, &mut sink);
        (
            forms.iter().map(ToString::to_string).collect(),
            sink.diags.iter().map(|d| d.message.clone()).collect(),
        )
    }

    #[test]
    fn rules_without_terminators_map_to_prefix_trees() {
        let (forms, errs) = read_all(
            "; c\nrole(a)\nlegal(a, m(X)) :- true(s(X)) & ~does(a, X)\n  & or(p, ~q)\nterminal",
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(
            forms,
            vec![
                "(role a)",
                "(<= (legal a (m ?X)) (true (s ?X)) (not (does a ?X)) (or p (not q)))",
                "terminal"
            ]
        );
    }

    #[test]
    fn syntax_errors_resume_at_the_next_line() {
        let (forms, errs) = read_all("p(a,\nq(b) :- r & \nok\n");
        assert_eq!(forms, vec!["ok"]);
        assert_eq!(errs, vec!["expected `,` or `)` after `)`, found `:-`"]);
        let (_, errs) = read_all("p :- r &");
        assert_eq!(
            errs,
            vec![
                "expected a name (a relation, constant or variable) after `&`, found the end of the file"
            ]
        );
        let (forms, errs) = read_all("p :- q # r\ns");
        assert_eq!(forms, vec!["(<= p q)", "s"]);
        assert_eq!(errs, vec!["unexpected character `#`"]);
    }

    #[test]
    fn detection_looks_at_the_first_significant_character() {
        assert!(looks_infix("; x\n;(y\n role(a)"));
        assert!(!looks_infix(" ;; hi\r\n(role a)"));
        assert!(!looks_infix(";; only a comment"));
        assert!(!looks_infix(""));
        assert!(!looks_infix("\u{feff}(role a)"));
    }
}
