//! The prefix KIF lexer: maximal munch over white space (a byte-order mark
//! counts as white space), `;` comments (to LF, CR
//! or end of file), `(`, `)` and words (any run of characters that are none of these). Words
//! are classified by the reader: `?name` is a variable, anything else a constant. Nothing is
//! case-folded here (symbols, keywords included, are folded when they are interned).

use logos::Logos;

/// A prefix KIF token. White space and comments are skipped.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[\s\u{feff}]+")]
#[logos(skip(r";[^\n\r]*", allow_greedy = true))]
pub enum Tok {
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// A constant or variable (classified by the reader).
    #[regex(r"[^\s\u{feff}();]+")]
    Word,
}

/// The tokens of `text` with their byte ranges. Every character that is not white space, a
/// parenthesis or part of a comment belongs to a word, so lexing cannot fail; a character logos
/// does not classify (none is known) is read as a one-character word.
pub fn tokens(text: &str) -> impl Iterator<Item = (Tok, std::ops::Range<usize>)> + '_ {
    Tok::lexer(text)
        .spanned()
        .map(|(t, r)| (t.unwrap_or(Tok::Word), r))
}

/// Whether `c` is usual in a symbol (`[A-Za-z0-9_-]`): the library's symbols use nothing else,
/// so any other character gets a warning (W-LEX-010).
pub fn is_usual_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> Vec<(Tok, &str)> {
        tokens(text).map(|(t, r)| (t, &text[r])).collect()
    }

    #[test]
    fn words_take_every_character_but_white_space_parentheses_and_semicolons() {
        assert_eq!(
            lex("(<= (p ?new_n) (+ ?x++ map+))"),
            vec![
                (Tok::LParen, "("),
                (Tok::Word, "<="),
                (Tok::LParen, "("),
                (Tok::Word, "p"),
                (Tok::Word, "?new_n"),
                (Tok::RParen, ")"),
                (Tok::LParen, "("),
                (Tok::Word, "+"),
                (Tok::Word, "?x++"),
                (Tok::Word, "map+"),
                (Tok::RParen, ")"),
                (Tok::RParen, ")"),
            ]
        );
    }

    #[test]
    fn comments_end_at_lf_cr_or_end_of_file() {
        assert_eq!(
            lex("a ; x (\rb;y\r\nc\t;z"),
            vec![(Tok::Word, "a"), (Tok::Word, "b"), (Tok::Word, "c")]
        );
        assert_eq!(lex("p;q"), vec![(Tok::Word, "p")]);
    }

    #[test]
    fn unicode_white_space_separates_words() {
        assert_eq!(
            lex("\u{feff}a\u{00a0}b\u{000b}c\u{000c}d"),
            vec![
                (Tok::Word, "a"),
                (Tok::Word, "b"),
                (Tok::Word, "c"),
                (Tok::Word, "d")
            ]
        );
    }
}
