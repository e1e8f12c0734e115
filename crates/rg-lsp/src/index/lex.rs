//! A tolerant tokeniser for the name index: names, punctuation and comments of each language,
//! read from any text (a file being edited is often not valid). It does not report errors —
//! the front-ends do — and never fails: an unknown character is a one-character punctuation
//! token.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// A name or a number.
    Name,
    /// One punctuation character (`->` is two tokens).
    Punct,
}

/// A token: its kind, its text and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok<'a> {
    pub kind: TokKind,
    pub text: &'a str,
    pub start: usize,
    /// Whether it is the first token of its line.
    pub line_start: bool,
    /// Whether it starts at column 0.
    pub column0: bool,
}

impl Tok<'_> {
    /// The end offset.
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }

    /// Whether it is the punctuation `c`.
    pub fn is(&self, c: &str) -> bool {
        self.kind == TokKind::Punct && self.text == c
    }

    /// Whether it is the name `n`.
    pub fn is_name(&self, n: &str) -> bool {
        self.kind == TokKind::Name && self.text == n
    }
}

/// The lexical conventions of a language.
#[derive(Clone, Copy, Debug)]
pub struct Syntax {
    /// Line comments start with `//` (RG, HRG, RBG) rather than `;` (KIF).
    pub kif: bool,
    /// `/* */` comments and `"…"` strings are skipped (RBG).
    pub block_comments: bool,
}

/// The tokens of `text`.
pub fn lex(text: &str, syntax: Syntax) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut column0 = true;
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        let rest = &text[i..];
        if c == '\n' {
            line_start = true;
            column0 = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            column0 = false;
            i += c.len_utf8();
            continue;
        }
        let skip = if syntax.kif && c == ';' || !syntax.kif && rest.starts_with("//") {
            Some(rest.find('\n').unwrap_or(rest.len()))
        } else if syntax.block_comments && rest.starts_with("/*") {
            Some(rest[2..].find("*/").map_or(rest.len(), |e| e + 4))
        } else if syntax.block_comments && c == '"' {
            Some(rest[1..].find('"').map_or(rest.len(), |e| e + 2))
        } else {
            None
        };
        if let Some(n) = skip {
            // A block comment may span lines: the token after it is not at a line start
            // unless a newline follows.
            i += n;
            column0 = false;
            continue;
        }
        let len = if is_name_char(c, syntax) {
            rest.char_indices()
                .find(|&(_, d)| !is_name_char(d, syntax))
                .map_or(rest.len(), |(j, _)| j)
        } else {
            c.len_utf8()
        };
        toks.push(Tok {
            kind: if is_name_char(c, syntax) {
                TokKind::Name
            } else {
                TokKind::Punct
            },
            text: &text[i..i + len],
            start: i,
            line_start,
            column0,
        });
        line_start = false;
        column0 = false;
        i += len;
    }
    toks
}

fn is_name_char(c: char, syntax: Syntax) -> bool {
    if syntax.kif {
        !(c.is_whitespace() || c == '(' || c == ')' || c == ';')
    } else {
        c.is_alphanumeric() || c == '_'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RG: Syntax = Syntax {
        kif: false,
        block_comments: false,
    };

    #[test]
    fn names_punctuation_and_comments() {
        let toks = lex("type T = { a, b }; // c d\n x", RG);
        let texts: Vec<&str> = toks.iter().map(|t| t.text).collect();
        assert_eq!(texts, ["type", "T", "=", "{", "a", ",", "b", "}", ";", "x"]);
        assert!(toks[0].line_start && toks[0].column0);
        assert!(toks[9].line_start && !toks[9].column0);
    }

    #[test]
    fn kif_atoms_include_variables_and_operators() {
        let kif = Syntax {
            kif: true,
            block_comments: false,
        };
        let toks = lex("(<= (legal ?p noop) ; x\n (role ?p))", kif);
        let texts: Vec<&str> = toks.iter().map(|t| t.text).collect();
        assert_eq!(
            texts,
            [
                "(", "<=", "(", "legal", "?p", "noop", ")", "(", "role", "?p", ")", ")"
            ]
        );
    }

    #[test]
    fn unterminated_comments_and_strings_end_the_text() {
        let rbg = Syntax {
            kif: false,
            block_comments: true,
        };
        assert!(lex("/* open", rbg).is_empty());
        assert_eq!(lex("a \"s", rbg).len(), 1);
    }
}
