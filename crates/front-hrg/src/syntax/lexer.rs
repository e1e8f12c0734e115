//! The HRG lexer: tokens and the raw token rules.

use crate::error::{Code, HrgError};
use rg_core::{FileId, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semi,
    Eq,
    EqEq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    AndAnd,
    OrOr,
    Pipe,
    Star,
    Arrow,
    DotDot,
    Plus,
    Minus,
    Percent,
    Dollar,
    DollarUnderscore,
    DollarDollar,
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Eof => "end of file".to_string(),
            other => format!("`{}`", other.text()),
        }
    }

    pub(super) fn text(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Eq => "=",
            Tok::EqEq => "==",
            Tok::Neq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Pipe => "|",
            Tok::Star => "*",
            Tok::Arrow => "->",
            Tok::DotDot => "..",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Percent => "%",
            Tok::Dollar => "$",
            Tok::DollarUnderscore => "$_",
            Tok::DollarDollar => "$$",
            Tok::Ident(_) | Tok::Eof => "",
        }
    }
}

/// Raw tokens: maximal identifiers of Unicode alphanumerics and `_` (numbers are identifiers too), longest-match
/// punctuation, `//` comments and the four whitespace characters skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, logos::Logos)]
#[logos(skip r"[ \t\r\n]+")]
#[logos(skip(r"//[^\r\n]*", allow_greedy = true))]
enum Raw {
    #[regex(r"[\p{Alphabetic}\p{N}_]+")]
    Ident,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token("=")]
    Eq,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Neq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("|")]
    Pipe,
    #[token("*")]
    Star,
    #[token("->")]
    Arrow,
    #[token("..")]
    DotDot,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("%")]
    Percent,
    #[token("$")]
    Dollar,
    #[token("$_")]
    DollarUnderscore,
    #[token("$$")]
    DollarDollar,
}

/// The tokens of `text` (ending with [`Tok::Eof`]) and the lexical errors: a character that
/// starts no token is skipped, a reserved word kept as a name, so parsing can go on.
pub(crate) fn lex(file: FileId, text: &str) -> (Vec<(Tok, Span)>, Vec<HrgError>) {
    use logos::Logos;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Raw::lexer(text);
    while let Some(raw) = lexer.next() {
        let r = lexer.span();
        let span = Span::new(file, r.start, r.end);
        let tok = match raw {
            Ok(Raw::Ident) => {
                let word = lexer.slice();
                if matches!(word, "const" | "type" | "var") {
                    errors.push(HrgError::new(
                        Code::ReservedWord,
                        format!("`{word}` is reserved and cannot be used as a name"),
                        span,
                    ));
                }
                Tok::Ident(word.to_string())
            }
            Ok(Raw::LParen) => Tok::LParen,
            Ok(Raw::RParen) => Tok::RParen,
            Ok(Raw::LBracket) => Tok::LBracket,
            Ok(Raw::RBracket) => Tok::RBracket,
            Ok(Raw::LBrace) => Tok::LBrace,
            Ok(Raw::RBrace) => Tok::RBrace,
            Ok(Raw::Comma) => Tok::Comma,
            Ok(Raw::Colon) => Tok::Colon,
            Ok(Raw::Semi) => Tok::Semi,
            Ok(Raw::Eq) => Tok::Eq,
            Ok(Raw::EqEq) => Tok::EqEq,
            Ok(Raw::Neq) => Tok::Neq,
            Ok(Raw::Lt) => Tok::Lt,
            Ok(Raw::Le) => Tok::Le,
            Ok(Raw::Gt) => Tok::Gt,
            Ok(Raw::Ge) => Tok::Ge,
            Ok(Raw::AndAnd) => Tok::AndAnd,
            Ok(Raw::OrOr) => Tok::OrOr,
            Ok(Raw::Pipe) => Tok::Pipe,
            Ok(Raw::Star) => Tok::Star,
            Ok(Raw::Arrow) => Tok::Arrow,
            Ok(Raw::DotDot) => Tok::DotDot,
            Ok(Raw::Plus) => Tok::Plus,
            Ok(Raw::Minus) => Tok::Minus,
            Ok(Raw::Percent) => Tok::Percent,
            Ok(Raw::Dollar) => Tok::Dollar,
            Ok(Raw::DollarUnderscore) => Tok::DollarUnderscore,
            Ok(Raw::DollarDollar) => Tok::DollarDollar,
            Err(()) => {
                let c = text[r.start..].chars().next().unwrap_or(' ');
                errors.push(
                    HrgError::new(
                        Code::UnexpectedCharacter,
                        format!("unexpected character `{c}`"),
                        Span::new(file, r.start, r.start + c.len_utf8()),
                    )
                    .help("HRG names are letters, digits and `_`; comments start with `//`"),
                );
                continue;
            }
        };
        out.push((tok, span));
    }
    out.push((Tok::Eof, Span::new(file, text.len(), text.len())));
    (out, errors)
}

/// Whether an identifier is an upper identifier (its first character is upper case): in
/// patterns and generator parameters it is a variable, in values a pattern or loop variable,
/// where a lower identifier is a literal symbol.
pub(crate) fn is_upper(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}
