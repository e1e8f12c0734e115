//! The RBG lexer: tokens, longest match, comments and strings skipped.

use crate::error::{Code, RbgError};
use rg_core::{FileId, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Num(u64),
    P(&'static str),
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Num(n) => format!("`{n}`"),
            Tok::P(p) => format!("`{p}`"),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

/// The raw tokens: longest match, `//` and `/* */` comments and strings skipped.
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

/// The tokens of `text` (ending with [`Tok::Eof`]) and the lexical errors: a character that
/// starts no token, or a number too large, is skipped so that the later ones are found too.
pub(crate) fn lex(file: FileId, text: &str) -> (Vec<(Tok, Span)>, Vec<RbgError>) {
    use logos::Logos;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Raw::lexer(text);
    while let Some(raw) = lexer.next() {
        let r = lexer.span();
        let span = Span::new(file, r.start, r.end);
        let slice = lexer.slice();
        let tok = match raw {
            Ok(Raw::Ident) => Tok::Ident(slice.to_string()),
            Ok(Raw::Num) => match slice.parse::<u64>() {
                Ok(n) if n <= u64::from(u32::MAX) => Tok::Num(n),
                _ => {
                    errors.push(RbgError::new(
                        Code::NumberTooLarge,
                        "too large integer",
                        span,
                    ));
                    continue;
                }
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
                errors.push(
                    RbgError::new(
                        Code::UnexpectedCharacter,
                        "unterminated comment",
                        Span::new(file, r.start, text.len()),
                    )
                    .help("close it with `*/`"),
                );
                break;
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
                let unterminated = message.starts_with("unterminated");
                let end = if unterminated { text.len() } else { r.end };
                errors.push(
                    RbgError::new(
                        Code::UnexpectedCharacter,
                        message,
                        Span::new(file, r.start, end),
                    )
                    .help(help),
                );
                if unterminated {
                    break;
                }
                continue;
            }
        };
        out.push((tok, span));
    }
    out.push((Tok::Eof, Span::new(file, text.len(), text.len())));
    (out, errors)
}
