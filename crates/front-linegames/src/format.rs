//! The canonical layout of a `.lg` file (`rgt fmt x.lg`): the file's own lines, each with its
//! tokens separated by single spaces (none around `..` or before `,`), lines that continue a
//! selector list indented by two spaces, every comment kept (a trailing comment one space after
//! its statement), runs of blank lines reduced to one, no blank lines at the ends, LF line ends.
//! Only the syntax is checked: a file that parses is formatted without the static checks.

use crate::error::LgErrors;
use crate::lexer::{Tok, tokens};
use crate::parser::parse;
use rg_core::FileId;

/// The canonical text of a `.lg` file that parses.
pub fn format(file: FileId, text: &str) -> Result<String, LgErrors> {
    parse(file, text)?;
    let toks = tokens(text);
    let mut next = 0;
    let mut out = String::new();
    let mut blank = false;
    let mut continued = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let mut words = Vec::new();
        let mut rest = start;
        while next < toks.len() && toks[next].0 < end {
            let (l, tok, r) = toks[next];
            next += 1;
            if tok != Tok::Newline {
                words.push((tok, &text[l..r]));
                rest = r;
            }
        }
        let comment = text[rest..end].trim();
        start = end;
        if words.is_empty() && comment.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push('\n');
            blank = false;
        }
        if continued {
            out.push_str("  ");
        }
        for (i, (tok, word)) in words.iter().enumerate() {
            let glued = *tok == Tok::Comma
                || *tok == Tok::DotDot
                || (i > 0 && words[i - 1].0 == Tok::DotDot);
            if i > 0 && !glued {
                out.push(' ');
            }
            out.push_str(word);
        }
        if !comment.is_empty() {
            if !words.is_empty() {
                out.push(' ');
            }
            out.push_str(comment);
        }
        out.push('\n');
        if let Some((tok, _)) = words.last() {
            continued = *tok == Tok::Comma;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::format;
    use rg_core::FileId;

    #[test]
    fn spacing_comments_blank_lines_and_continuations() {
        let text = "\n\n# head\r\ngame   \"A  title\"   # trailing  \n\n\n\nboard alquerque 5 by 5\n\
                    black rows 0 .. 1 ,row 2 cols 0..1,\n      # inside\n\t row 3\n\
                    capture optional single\nlimit turns 9";
        let want = "# head\ngame \"A  title\" # trailing\n\nboard alquerque 5 by 5\n\
                    black rows 0..1, row 2 cols 0..1,\n  # inside\n  row 3\n\
                    capture optional single\nlimit turns 9\n";
        let once = format(FileId(0), text).expect("parses");
        assert_eq!(once, want);
        assert_eq!(format(FileId(0), &once).expect("parses"), once);
        assert!(format(FileId(0), "game \"x\"\nboard hexagon\n").is_err());
        assert_eq!(format(FileId(0), "").expect("empty"), "");
    }
}
