//! The S-expression reader: prefix KIF tokens to a forest of spanned [`Sexp`]s. Both syntaxes
//! end here (the infix parser builds the same trees, see [`crate::infix`]), so everything after
//! the reader is shared.
//!
//! The reader is iterative, so nesting depth cannot overflow the stack; lists nested deeper than
//! [`MAX_DEPTH`] are reported (E-PARSE-018) and skipped. It reports every unmatched `)`
//! (E-PARSE-001), the first list still open at the end of the file (E-PARSE-002) and every lone
//! `?` (E-LEX-002), and goes on reading after each.

use crate::error::{Code, GdlDiagnostic, Sink};
use crate::lexer::{Tok, tokens};
use rg_core::{FileId, Span};
use std::fmt;

/// The deepest list nesting the reader accepts (the library's deepest is 27).
pub const MAX_DEPTH: usize = 256;

/// A node of the S-expression forest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sexp<'a> {
    /// What it is.
    pub kind: SexpKind<'a>,
    /// Where it is: the word, or the list from `(` to `)`.
    pub span: Span,
}

/// The kinds of node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SexpKind<'a> {
    /// A word not starting with `?` (a constant, function, relation or keyword).
    Const(&'a str),
    /// A variable; the name without the `?`.
    Var(&'a str),
    /// A parenthesised list.
    List(Vec<Sexp<'a>>),
}

impl<'a> Sexp<'a> {
    /// The word of a constant node.
    pub fn as_const(&self) -> Option<&'a str> {
        match self.kind {
            SexpKind::Const(w) => Some(w),
            _ => None,
        }
    }
}

/// Prefix KIF text of a node (variables with their `?`).
impl fmt::Display for Sexp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SexpKind::Const(w) => f.write_str(w),
            SexpKind::Var(v) => write!(f, "?{v}"),
            SexpKind::List(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A list being read.
struct Open<'a> {
    start: usize,
    items: Vec<Sexp<'a>>,
}

/// Reads the prefix KIF `text` into top-level forms.
pub(crate) fn read<'a>(file: FileId, text: &'a str, sink: &mut Sink) -> Vec<Sexp<'a>> {
    let span = |start: usize, end: usize| Span::new(file, start, end);
    let mut forms = Vec::new();
    let mut stack: Vec<Open<'a>> = Vec::new();
    // Lists below MAX_DEPTH that are skipped: how many are open.
    let mut skipping = 0usize;
    // A `(` at the start of a line while a form is still open: where it probably should have
    // been closed.
    let mut hint: Option<Span> = None;
    for (tok, range) in tokens(text) {
        if skipping > 0 {
            match tok {
                Tok::LParen => skipping += 1,
                Tok::RParen => skipping -= 1,
                Tok::Word => {}
            }
            continue;
        }
        match tok {
            Tok::LParen => {
                if stack.len() >= MAX_DEPTH {
                    sink.push(
                        GdlDiagnostic::new(
                            Code::TooDeep,
                            span(range.start, range.end),
                            format!("lists are nested more than {MAX_DEPTH} levels deep"),
                        )
                        .with_help("GDL terms are shallow; this is probably a runaway `(`"),
                    );
                    skipping = 1;
                    continue;
                }
                if !stack.is_empty() && hint.is_none() && starts_line(text, range.start) {
                    hint = Some(span(range.start, range.end));
                }
                stack.push(Open {
                    start: range.start,
                    items: Vec::new(),
                });
            }
            Tok::RParen => match stack.pop() {
                Some(open) => {
                    let node = Sexp {
                        kind: SexpKind::List(open.items),
                        span: span(open.start, range.end),
                    };
                    match stack.last_mut() {
                        Some(parent) => parent.items.push(node),
                        None => {
                            forms.push(node);
                            hint = None;
                        }
                    }
                }
                None => sink.push(
                    GdlDiagnostic::new(
                        Code::UnmatchedClose,
                        span(range.start, range.end),
                        "unmatched closing parenthesis",
                    )
                    .with_label("no `(` is open here"),
                ),
            },
            Tok::Word => {
                let word = &text[range.clone()];
                let kind = match word.strip_prefix('?') {
                    Some("") => {
                        sink.push(
                            GdlDiagnostic::new(
                                Code::LoneQuestionMark,
                                span(range.start, range.end),
                                "a variable needs a name after `?`",
                            )
                            .with_help("write a name right after the `?`, e.g. `?x`"),
                        );
                        continue;
                    }
                    Some(name) => SexpKind::Var(name),
                    None => SexpKind::Const(word),
                };
                let node = Sexp {
                    kind,
                    span: span(range.start, range.end),
                };
                match stack.last_mut() {
                    Some(parent) => parent.items.push(node),
                    None => forms.push(node),
                }
            }
        }
    }
    // Skipping only happens below MAX_DEPTH open lists, so the stack is not empty then.
    if let Some(outer) = stack.first() {
        let open = stack.len() + skipping;
        let mut d = GdlDiagnostic::new(
            Code::UnclosedParen,
            span(outer.start, outer.start + 1),
            "unclosed parenthesis",
        )
        .with_label("opened here")
        .with_help(if open == 1 {
            "the end of the file was reached inside this list; add the missing `)`".to_owned()
        } else {
            format!(
                "the end of the file was reached with {open} lists open, the first one opened \
                 here; add the missing `)`"
            )
        });
        if let Some(h) = hint {
            d = d.with_secondary(h, "a new line starts here while the form is still open");
        }
        sink.push(d);
    }
    forms
}

/// Whether byte `at` of `text` is the first character of its line.
fn starts_line(text: &str, at: usize) -> bool {
    at == 0 || matches!(text.as_bytes()[at - 1], b'\n' | b'\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> (Vec<String>, Vec<Code>) {
        let mut sink = Sink::default();
        let forms = read(FileId(0), text, &mut sink);
        (
            forms.iter().map(ToString::to_string).collect(),
            sink.diags.iter().map(|d| d.code).collect(),
        )
    }

    #[test]
    fn reads_lists_words_and_variables_with_spans() {
        let mut sink = Sink::default();
        let forms = read(FileId(0), "(role x) (<= p\r\n  (q ?y))", &mut sink);
        assert!(sink.diags.is_empty());
        assert_eq!(forms.len(), 2);
        assert_eq!((forms[0].span.start, forms[0].span.end), (0, 8));
        assert_eq!(forms[1].to_string(), "(<= p (q ?y))");
        let SexpKind::List(items) = &forms[1].kind else {
            panic!()
        };
        assert_eq!((items[2].span.start, items[2].span.end), (18, 24));
    }

    #[test]
    fn reports_unmatched_and_unclosed_parentheses_and_goes_on() {
        let (forms, codes) = read_all(") (a) ? (b");
        assert_eq!(forms, vec!["(a)"]);
        assert_eq!(
            codes,
            vec![
                Code::UnmatchedClose,
                Code::LoneQuestionMark,
                Code::UnclosedParen
            ]
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "(".repeat(100_000) + &")".repeat(100_000) + " (ok)";
        let (forms, codes) = read_all(&text);
        assert_eq!(codes, vec![Code::TooDeep]);
        assert_eq!(forms.last().map(String::as_str), Some("(ok)"));
        let (_, codes) = read_all(&"(".repeat(100_000));
        assert_eq!(codes, vec![Code::TooDeep, Code::UnclosedParen]);
    }
}
