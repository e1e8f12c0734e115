//! The LineGames lexer: a logos scanner for the raw words, numbers, strings
//! and punctuation, and an adapter that turns words into keywords or point names and feeds
//! LALRPOP with `(start, token, end)` triples.
//!
//! Line ends are tokens (the format is line-oriented); spaces, tabs and `#` comments are
//! skipped. A missing line end at the end of the file is supplied. A lexing error becomes an
//! [`Tok::Error`] token, which no grammar rule accepts, so the parser's error recovery skips to
//! the end of the line and goes on reporting.

use logos::Logos;
use std::fmt;

macro_rules! keywords {
    ($($kw:ident => $text:literal,)*) => {
        /// A keyword (reserved: never a point name).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Kw {
            $($kw,)*
        }

        impl Kw {
            /// Every keyword.
            #[cfg(test)]
            pub const ALL: &'static [Kw] = &[$(Kw::$kw,)*];

            /// The keyword as written.
            pub fn text(self) -> &'static str {
                match self {
                    $(Kw::$kw => $text,)*
                }
            }

            /// The keyword spelt `word`, if it is one.
            pub fn from_word(word: &str) -> Option<Kw> {
                match word {
                    $($text => Some(Kw::$kw),)*
                    _ => None,
                }
            }
        }
    };
}

keywords! {
    Game => "game",
    Board => "board",
    Point => "point",
    Alquerque => "alquerque",
    Grid => "grid",
    Crossed => "crossed",
    Circle => "circle",
    By => "by",
    Spokes => "spokes",
    Rings => "rings",
    Triangle => "triangle",
    Rows => "rows",
    Row => "row",
    Cols => "cols",
    Col => "col",
    Spoke => "spoke",
    Ring => "ring",
    Points => "points",
    Line => "line",
    White => "white",
    Black => "black",
    Empty => "empty",
    Capture => "capture",
    Mandatory => "mandatory",
    Optional => "optional",
    Single => "single",
    Chain => "chain",
    Split => "split",
    Limit => "limit",
    Turns => "turns",
    Quiet => "quiet",
    North => "north",
    East => "east",
    South => "south",
    West => "west",
    Northeast => "northeast",
    Northwest => "northwest",
    Southeast => "southeast",
    Southwest => "southwest",
    Clockwise => "clockwise",
    Anticlockwise => "anticlockwise",
}

/// What the lexer could not read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexErrorKind {
    /// A character that starts no token.
    #[default]
    UnexpectedChar,
    /// A word starting with an upper-case letter or `_` (point names start in lower case).
    CapitalWord,
    /// A `"` with no closing `"` on its line.
    UnterminatedString,
}

/// Raw tokens; whitespace and comments are skipped.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t]+")]
#[logos(skip(r"#[^\r\n]*", allow_greedy = true))]
enum Raw {
    #[regex(r"[a-z][A-Za-z0-9_]*")]
    Word,
    #[regex(r"[A-Z_][A-Za-z0-9_]*")]
    CapitalWord,
    #[regex(r"[0-9]+")]
    Int,
    #[regex(r#""[^"\r\n]*""#)]
    Str,
    #[regex(r#""[^"\r\n]*"#, allow_greedy = true)]
    Unterminated,
    #[token("..")]
    DotDot,
    #[token(",")]
    Comma,
    #[regex(r"\r?\n")]
    Newline,
}

/// A token as the grammar sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'s> {
    /// A keyword.
    Kw(Kw),
    /// A point name: `[a-z][A-Za-z0-9_]*` that is not a keyword.
    Name(&'s str),
    /// Decimal digits (the value is checked later, so huge numbers get a located error).
    Int(&'s str),
    /// A string between double quotes, quotes excluded.
    Str(&'s str),
    DotDot,
    Comma,
    /// A line end (also supplied at the end of the file when the last line has none).
    Newline,
    /// Never accepted by the grammar: a lexing error kept in the stream for error recovery.
    Error(LexErrorKind),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Kw(k) => write!(f, "`{}`", k.text()),
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Int(n) => write!(f, "number `{n}`"),
            Tok::Str(_) => f.write_str("a string"),
            Tok::DotDot => f.write_str("`..`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Newline => f.write_str("the end of the line"),
            Tok::Error(_) => f.write_str("an invalid character"),
        }
    }
}

/// The error type LALRPOP sees from the token stream; never produced (lexing errors become
/// [`Tok::Error`] tokens), but the grammar needs a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Never {}

/// A token with its byte range.
pub type Spanned<'s> = (usize, Tok<'s>, usize);

/// Every token of `text`, with a final [`Tok::Newline`] when the last line has no line end.
pub fn tokens(text: &str) -> Vec<Spanned<'_>> {
    let mut out = Vec::new();
    let mut lexer = Raw::lexer(text);
    while let Some(raw) = lexer.next() {
        let r = lexer.span();
        let slice = lexer.slice();
        let tok = match raw {
            Ok(Raw::Word) => Kw::from_word(slice).map_or(Tok::Name(slice), Tok::Kw),
            Ok(Raw::CapitalWord) => Tok::Error(LexErrorKind::CapitalWord),
            Ok(Raw::Int) => Tok::Int(slice),
            Ok(Raw::Str) => Tok::Str(&slice[1..slice.len() - 1]),
            Ok(Raw::Unterminated) => Tok::Error(LexErrorKind::UnterminatedString),
            Ok(Raw::DotDot) => Tok::DotDot,
            Ok(Raw::Comma) => Tok::Comma,
            Ok(Raw::Newline) => Tok::Newline,
            Err(kind) => {
                // One whole character (logos may stop inside a multi-byte one).
                let len = text[r.start..].chars().next().map_or(1, char::len_utf8);
                out.push((r.start, Tok::Error(kind), r.start + len));
                if r.start + len > r.end {
                    lexer.bump(r.start + len - r.end);
                }
                continue;
            }
        };
        out.push((r.start, tok, r.end));
    }
    if out.last().is_some_and(|(_, t, _)| *t != Tok::Newline) {
        out.push((text.len(), Tok::Newline, text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Kw, LexErrorKind, Tok, tokens};

    fn toks(text: &str) -> Vec<Tok<'_>> {
        tokens(text).into_iter().map(|(_, t, _)| t).collect()
    }

    #[test]
    fn keywords_names_numbers_and_line_ends() {
        assert_eq!(
            toks("board alquerque 5 by 5 # a comment\r\nwhite row 2 cols 0..1, cy2x3"),
            vec![
                Tok::Kw(Kw::Board),
                Tok::Kw(Kw::Alquerque),
                Tok::Int("5"),
                Tok::Kw(Kw::By),
                Tok::Int("5"),
                Tok::Newline,
                Tok::Kw(Kw::White),
                Tok::Kw(Kw::Row),
                Tok::Int("2"),
                Tok::Kw(Kw::Cols),
                Tok::Int("0"),
                Tok::DotDot,
                Tok::Int("1"),
                Tok::Comma,
                Tok::Name("cy2x3"),
                Tok::Newline,
            ]
        );
    }

    #[test]
    fn keywords_are_whole_words() {
        assert_eq!(
            toks("boards northeast_1 north\n"),
            vec![
                Tok::Name("boards"),
                Tok::Name("northeast_1"),
                Tok::Kw(Kw::North),
                Tok::Newline
            ]
        );
    }

    #[test]
    fn strings_and_errors() {
        assert_eq!(
            toks("game \"Dam (Singapore) — lud\"\n"),
            vec![
                Tok::Kw(Kw::Game),
                Tok::Str("Dam (Singapore) — lud"),
                Tok::Newline
            ]
        );
        assert_eq!(
            toks("game \"open\nNode é"),
            vec![
                Tok::Kw(Kw::Game),
                Tok::Error(LexErrorKind::UnterminatedString),
                Tok::Newline,
                Tok::Error(LexErrorKind::CapitalWord),
                Tok::Error(LexErrorKind::UnexpectedChar),
                Tok::Newline,
            ]
        );
        let all = tokens("a é");
        assert_eq!(all[1], (2, Tok::Error(LexErrorKind::UnexpectedChar), 4));
    }

    #[test]
    fn every_keyword_round_trips() {
        for &k in Kw::ALL {
            assert_eq!(Kw::from_word(k.text()), Some(k));
        }
    }
}
