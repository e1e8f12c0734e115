//! The RG lexer: a logos token enum plus an adapter that feeds LALRPOP with
//! `(start, token, end)` triples and reproduces two reference quirks:
//!
//! * **Pragma keywords are prefixes**: after `@` the keywords are tried in a fixed
//!   order as plain prefixes of the remaining text; `@uniqueFoo a;` is `@unique Foo a;`. If none
//!   matches, everything up to the next `;` is the verbatim content of an unknown pragma.
//! * **Declaration keywords are prefixes**: at the start of a declaration a name
//!   beginning with `const`, `type` or `var` is split into the keyword and the rest, so
//!   `typeT = { a };` is a typedef and `variant, end: ;` is (as in the reference) a broken
//!   variable declaration.

use logos::Logos;
use std::fmt;

/// The known pragma keywords, in the order the reference tries them.
pub const PRAGMA_KEYWORDS: [(&str, PragmaKw); 12] = [
    ("artificialTag", PragmaKw::ArtificialTag),
    ("disjointExhaustive", PragmaKw::DisjointExhaustive),
    ("disjoint", PragmaKw::Disjoint),
    ("integer", PragmaKw::Integer),
    ("iterator", PragmaKw::Iterator),
    ("repeat", PragmaKw::Repeat),
    ("simpleApplyExhaustive", PragmaKw::SimpleApplyExhaustive),
    ("simpleApply", PragmaKw::SimpleApply),
    ("tagIndex", PragmaKw::TagIndex),
    ("tagMaxIndex", PragmaKw::TagMaxIndex),
    ("translatedFromRbg", PragmaKw::TranslatedFromRbg),
    ("unique", PragmaKw::Unique),
];

/// A known pragma keyword (the token is `@` immediately followed by the keyword).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PragmaKw {
    ArtificialTag,
    DisjointExhaustive,
    Disjoint,
    Integer,
    Iterator,
    Repeat,
    SimpleApplyExhaustive,
    SimpleApply,
    TagIndex,
    TagMaxIndex,
    TranslatedFromRbg,
    Unique,
}

/// What the lexer could not read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexErrorKind {
    /// A character that starts no token.
    #[default]
    UnexpectedChar,
    /// An unknown pragma with no `;` after it.
    UnterminatedPragma,
}

fn lex_pragma<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Result<Tok<'s>, LexErrorKind> {
    let rest = lex.remainder();
    for (kw, kind) in PRAGMA_KEYWORDS {
        if rest.starts_with(kw) {
            lex.bump(kw.len());
            return Ok(Tok::Pragma(kind));
        }
    }
    match rest.find(';') {
        Some(end) => {
            lex.bump(end);
            Ok(Tok::UnknownPragma(&rest[..end]))
        }
        None => {
            lex.bump(rest.len());
            Err(LexErrorKind::UnterminatedPragma)
        }
    }
}

/// An RG token. Trivia (whitespace, `//` comments) is skipped.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t\r\n]+")]
#[logos(skip(r"//[^\r\n]*", allow_greedy = true))]
pub enum Tok<'s> {
    #[token("type")]
    Type,
    #[token("const")]
    Const,
    #[token("var")]
    Var,
    #[regex(r"[\p{L}\p{N}_]+", |lex| lex.slice())]
    Name(&'s str),
    #[token(";")]
    Semi,
    #[token("=")]
    Assign,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("*")]
    Star,
    #[token("->")]
    Arrow,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("?")]
    Question,
    #[token("!")]
    Bang,
    #[token("$")]
    Dollar,
    #[token("$$")]
    DollarDollar,
    /// `@`: its callback always turns it into [`Tok::Pragma`], [`Tok::UnknownPragma`] or an error.
    #[token("@", lex_pragma)]
    At,
    /// `@` followed directly by a known keyword.
    Pragma(PragmaKw),
    /// Never produced by logos itself: the adapter turns a lexing error into this token so the
    /// parser's error recovery can skip to the next `;` and keep reporting.
    Error(LexErrorKind),
    /// `@` + content of an unknown pragma (produced by the `@` callback).
    UnknownPragma(&'s str),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Type => f.write_str("`type`"),
            Tok::Const => f.write_str("`const`"),
            Tok::Var => f.write_str("`var`"),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Semi => f.write_str("`;`"),
            Tok::Assign => f.write_str("`=`"),
            Tok::Colon => f.write_str("`:`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::LBrace => f.write_str("`{`"),
            Tok::RBrace => f.write_str("`}`"),
            Tok::LBracket => f.write_str("`[`"),
            Tok::RBracket => f.write_str("`]`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::Star => f.write_str("`*`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::EqEq => f.write_str("`==`"),
            Tok::NotEq => f.write_str("`!=`"),
            Tok::Question => f.write_str("`?`"),
            Tok::Bang => f.write_str("`!`"),
            Tok::Dollar => f.write_str("`$`"),
            Tok::DollarDollar => f.write_str("`$$`"),
            Tok::Pragma(k) => {
                let kw = PRAGMA_KEYWORDS
                    .iter()
                    .find(|(_, kind)| kind == k)
                    .map_or("?", |(s, _)| s);
                write!(f, "`@{kw}`")
            }
            Tok::UnknownPragma(_) | Tok::At => f.write_str("pragma"),
            Tok::Error(_) => f.write_str("invalid character"),
        }
    }
}

/// The error type LALRPOP sees from the token stream; never produced (lexing errors become
/// [`Tok::Error`] tokens), but the grammar needs a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Never {}

/// Token triples for LALRPOP, with the declaration-keyword quirk applied.
pub struct Lexer<'s> {
    inner: logos::SpannedIter<'s, Tok<'s>>,
    /// A token split off the previous name (the rest after a keyword prefix).
    pending: Option<(usize, Tok<'s>, usize)>,
    /// At the start of a declaration (file start or after `;`).
    decl_start: bool,
}

impl<'s> Lexer<'s> {
    /// Lexes `text`.
    pub fn new(text: &'s str) -> Self {
        Lexer {
            inner: Tok::lexer(text).spanned(),
            pending: None,
            decl_start: true,
        }
    }
}

impl fmt::Debug for Lexer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lexer").finish_non_exhaustive()
    }
}

fn keyword(s: &str) -> Option<Tok<'static>> {
    match s {
        "type" => Some(Tok::Type),
        "const" => Some(Tok::Const),
        "var" => Some(Tok::Var),
        _ => None,
    }
}

impl<'s> Iterator for Lexer<'s> {
    type Item = Result<(usize, Tok<'s>, usize), Never>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(t) = self.pending.take() {
            self.decl_start = false;
            return Some(Ok(t));
        }
        let (res, span) = self.inner.next()?;
        let tok = match res {
            Ok(t) => t,
            Err(kind) => Tok::Error(kind),
        };
        let at_start = std::mem::replace(&mut self.decl_start, matches!(tok, Tok::Semi));
        if at_start && let Tok::Name(name) = tok {
            for kw in ["const", "type", "var"] {
                if let Some(rest) = name.strip_prefix(kw)
                    && !rest.is_empty()
                {
                    let split = span.start + kw.len();
                    let rest_tok = keyword(rest).unwrap_or(Tok::Name(rest));
                    self.pending = Some((split, rest_tok, span.end));
                    return Some(Ok((span.start, keyword(kw).expect("keyword"), split)));
                }
            }
        }
        Some(Ok((span.start, tok, span.end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        Lexer::new(s).map(|r| r.unwrap().1).collect()
    }

    #[test]
    fn multi_char_tokens_and_trivia() {
        assert_eq!(
            toks("a->b==c!=d $$x $ y // c\n!q"),
            vec![
                Tok::Name("a"),
                Tok::Arrow,
                Tok::Name("b"),
                Tok::EqEq,
                Tok::Name("c"),
                Tok::NotEq,
                Tok::Name("d"),
                Tok::DollarDollar,
                Tok::Name("x"),
                Tok::Dollar,
                Tok::Name("y"),
                Tok::Bang,
                Tok::Name("q"),
            ]
        );
    }

    #[test]
    fn pragma_keywords_are_prefixes() {
        assert_eq!(
            toks("@uniqueFoo a;"),
            vec![
                Tok::Pragma(PragmaKw::Unique),
                Tok::Name("Foo"),
                Tok::Name("a"),
                Tok::Semi
            ]
        );
        assert_eq!(
            toks("@disjointExhaustive a"),
            vec![Tok::Pragma(PragmaKw::DisjointExhaustive), Tok::Name("a")]
        );
        assert_eq!(
            toks("@tagIndexMax n : 2;")[..2],
            [Tok::Pragma(PragmaKw::TagIndex), Tok::Name("Max")]
        );
    }

    #[test]
    fn unknown_pragma_is_verbatim_up_to_semicolon() {
        assert_eq!(
            toks("@ disjoint a : b; @a @b // x\n @c;"),
            vec![
                Tok::UnknownPragma(" disjoint a : b"),
                Tok::Semi,
                Tok::UnknownPragma("a @b // x\n @c"),
                Tok::Semi
            ]
        );
        assert_eq!(
            toks("@foo"),
            vec![Tok::Error(LexErrorKind::UnterminatedPragma)]
        );
    }

    #[test]
    fn declaration_keywords_are_split_only_at_declaration_start() {
        assert_eq!(
            toks("typeT = x; a, variant: ;"),
            vec![
                Tok::Type,
                Tok::Name("T"),
                Tok::Assign,
                Tok::Name("x"),
                Tok::Semi,
                Tok::Name("a"),
                Tok::Comma,
                Tok::Name("variant"),
                Tok::Colon,
                Tok::Semi
            ]
        );
        assert_eq!(toks("variant")[..2], [Tok::Var, Tok::Name("iant")]);
        assert_eq!(toks("typetype")[..2], [Tok::Type, Tok::Type]);
    }

    #[test]
    fn unicode_names_and_bad_characters() {
        assert_eq!(toks("żółw_1"), vec![Tok::Name("żółw_1")]);
        assert_eq!(
            toks("a # b"),
            vec![
                Tok::Name("a"),
                Tok::Error(LexErrorKind::UnexpectedChar),
                Tok::Name("b")
            ]
        );
    }
}
