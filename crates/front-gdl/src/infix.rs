//! The infix syntax of gdl.md §2.7 (`h :- b1 & ~b2`, variables are capitalised names), read
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
//! name at the start of a line, where the next rule probably begins. The parser is recursive
//! descent: literals nested deeper than the prefix reader's [`MAX_DEPTH`] are reported
//! (E-PARSE-018) and skipped the same way, so no input can overflow the stack and the trees it
//! builds are no deeper than the prefix reader's.

use crate::error::{Code, GdlDiagnostic, Sink};
use crate::reader::{MAX_DEPTH, Sexp, SexpKind};
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
    /// Literals open (each is at most one list level of the tree).
    depth: usize,
}

/// A syntax error.
enum Expected {
    /// The token found is not what was expected (the text says what was).
    Token(&'static str),
    /// Literals nested more than [`MAX_DEPTH`] levels deep, at this span.
    TooDeep(Span),
}

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
    /// may be a variable; `~` in a term is rejected after reading).
    fn literal(&mut self) -> Result<Sexp<'a>, Expected> {
        // The rule's `(<= …)` and its head are two levels; each literal adds at most one.
        if self.depth + 3 > MAX_DEPTH {
            let span = self
                .peek()
                .map_or(self.span(self.text.len(), self.text.len()), |t| {
                    self.span(t.start, t.end)
                });
            return Err(Expected::TooDeep(span));
        }
        self.depth += 1;
        let out = self.literal_inner();
        self.depth -= 1;
        out
    }

    fn literal_inner(&mut self) -> Result<Sexp<'a>, Expected> {
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
            .ok_or(Expected::Token("a name (a relation, constant or variable)"))?;
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
        let close = self
            .eat(ITok::RParen)
            .ok_or(Expected::Token("`,` or `)`"))?;
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
    };
    let mut forms = Vec::new();
    while p.pos < p.toks.len() {
        match p.rule() {
            Ok(form) => forms.push(form),
            Err(Expected::TooDeep(span)) => {
                p.depth = 0;
                sink.push(
                    GdlDiagnostic::new(
                        Code::TooDeep,
                        span,
                        format!("terms are nested more than {MAX_DEPTH} levels deep"),
                    )
                    .with_help("GDL terms are shallow; this is probably a runaway `(`"),
                );
                p.recover();
            }
            Err(Expected::Token(what)) => {
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
/// comments) is not `(` (gdl.md §2.7). An empty text counts as prefix.
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
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "f(".repeat(100_000) + "a" + &")".repeat(100_000);
        let text = format!("p({deep})\nq(a) :- {}r\nok(b)\n", "~".repeat(100_000));
        let mut sink = Sink::default();
        let forms = read(FileId(0), &text, &mut sink);
        let codes: Vec<Code> = sink.diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![Code::TooDeep, Code::TooDeep]);
        let shown: Vec<String> = forms.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["(ok b)"]);
        // Just within the limit: the tree is as deep as the prefix reader allows.
        let n = MAX_DEPTH - 3;
        let text = format!("p({}a{})", "f(".repeat(n), ")".repeat(n));
        let mut sink = Sink::default();
        let forms = read(FileId(0), &text, &mut sink);
        assert!(sink.diags.is_empty());
        assert_eq!(forms.len(), 1);
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
