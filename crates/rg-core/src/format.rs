//! `rgt fmt` for RG: the canonical form (see [`crate::print`]) with the source's `//` comments
//! kept.
//!
//! The canonical printer sorts declarations by kind, so a comment cannot stay where it was; it
//! travels with the declaration it belongs to:
//! - a comment after a declaration on the same line stays at the end of that declaration's line;
//! - any other comment is printed on its own line before the next declaration (a comment inside a
//!   declaration goes before that declaration);
//! - comments before the first declaration that are followed by a blank line are the file's
//!   header and stay at the top, followed by a blank line;
//! - comments after the last declaration stay at the end.
//!
//! Formatting its own output again gives the same text.

use crate::game::Game;
use crate::lexer::Lexer;
use crate::parser::{ParseErrors, parse_ast};
use crate::print::{Around, DeclRef, print_decorated};
use crate::span::FileId;
use std::collections::HashMap;

/// The canonical text of the RG source `text`, comments kept. Only syntax is checked.
pub fn format(file: FileId, text: &str) -> Result<String, ParseErrors> {
    let ast = parse_ast(file, text)?;
    let game = Game::from_ast(&ast);

    // Declarations in source order, with their byte ranges.
    let range =
        |loc: crate::span::Loc| loc.0.map_or((0, 0), |s| (s.start as usize, s.end as usize));
    let mut decls: Vec<(usize, usize, DeclRef)> = Vec::new();
    decls.extend(ast.pragmas.iter().enumerate().map(|(i, d)| {
        let (a, b) = range(d.loc);
        (a, b, DeclRef::Pragma(i))
    }));
    decls.extend(ast.typedefs.iter().enumerate().map(|(i, d)| {
        let (a, b) = range(d.loc);
        (a, b, DeclRef::Typedef(i))
    }));
    decls.extend(ast.constants.iter().enumerate().map(|(i, d)| {
        let (a, b) = range(d.loc);
        (a, b, DeclRef::Constant(i))
    }));
    decls.extend(ast.variables.iter().enumerate().map(|(i, d)| {
        let (a, b) = range(d.loc);
        (a, b, DeclRef::Variable(i))
    }));
    decls.extend(ast.edges.iter().enumerate().map(|(i, d)| {
        let (a, b) = range(d.loc);
        (a, b, DeclRef::Edge(i))
    }));
    decls.sort_by_key(|&(a, b, d)| (a, b, d));

    let mut header: Vec<&str> = Vec::new();
    let mut footer: Vec<&str> = Vec::new();
    let mut leading: HashMap<DeclRef, Vec<&str>> = HashMap::new();
    let mut trailing: HashMap<DeclRef, Vec<&str>> = HashMap::new();
    for (start, end) in comments(text) {
        let comment = text[start..end].trim_end();
        // The last declaration ending before the comment, if on the same line.
        let before = decls.partition_point(|&(_, e, _)| e <= start);
        if before > 0 {
            let (_, e, d) = decls[before - 1];
            if !text[e..start].contains('\n') {
                trailing.entry(d).or_default().push(comment);
                continue;
            }
        }
        match decls.get(before) {
            None => footer.push(comment),
            Some(&(first_start, _, d)) => {
                if before == 0 && blank_line(&text[end..first_start]) {
                    header.push(comment);
                } else {
                    leading.entry(d).or_default().push(comment);
                }
            }
        }
    }

    let mut out = String::new();
    for c in &header {
        out.push_str(c);
        out.push('\n');
    }
    let only_header = decls.is_empty() && footer.is_empty();
    if !header.is_empty() && !only_header {
        out.push('\n');
    }
    out.push_str(&print_decorated(&game, &mut |at, out| match at {
        Around::Before(d) => {
            for c in leading.get(&d).into_iter().flatten() {
                out.push_str(c);
                out.push('\n');
            }
        }
        Around::After(d) => {
            for c in trailing.get(&d).into_iter().flatten() {
                out.push(' ');
                out.push_str(c);
            }
        }
    }));
    for c in &footer {
        out.push_str(c);
        out.push('\n');
    }
    Ok(out)
}

/// The byte ranges of the `//` comments of `text` (without their line break): the trivia between
/// tokens, as the lexer skips it (so `//` inside an unknown pragma is no comment).
fn comments(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut gap_start = 0;
    let scan = |from: usize, to: usize, out: &mut Vec<(usize, usize)>| {
        let gap = &text[from..to];
        let mut i = 0;
        while let Some(k) = gap[i..].find("//") {
            let start = i + k;
            let len = gap[start..].find(['\n', '\r']).unwrap_or(gap.len() - start);
            out.push((from + start, from + start + len));
            i = start + len;
        }
    };
    for tok in Lexer::new(text) {
        let Ok((start, _, end)) = tok;
        if start > gap_start {
            scan(gap_start, start, &mut out);
        }
        gap_start = gap_start.max(end);
    }
    if gap_start < text.len() {
        scan(gap_start, text.len(), &mut out);
    }
    out
}

/// Whether `s` (the text from the end of a comment up to a declaration) holds a blank line.
fn blank_line(s: &str) -> bool {
    let mut lines = s.split('\n');
    lines.next(); // the rest of the comment's own line
    let mut lines: Vec<&str> = lines.collect();
    lines.pop(); // the start of the declaration's line
    lines.iter().any(|l| l.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::format;
    use crate::span::FileId;

    fn fmt(text: &str) -> String {
        let once = format(FileId(0), text).expect("parses");
        let twice = format(FileId(0), &once).expect("its output parses");
        assert_eq!(once, twice, "formatting is idempotent");
        once
    }

    #[test]
    fn comments_travel_with_their_declarations() {
        let input = "// Header of the file.\n// Second line.\n\n// the edge\nbegin, end: ; // done\n\
                     // players\ntype Player = { a };   // only a\n@unique a; // pragma\n\
                     var x: Player = // inside\n a;\n// last words\n";
        assert_eq!(
            fmt(input),
            "// Header of the file.\n// Second line.\n\n@unique a; // pragma\n// players\n\
             type Player = { a }; // only a\n// inside\nvar x: Player = a;\n// the edge\n\
             begin, end: ; // done\n// last words\n"
        );
    }

    #[test]
    fn header_needs_a_blank_line_and_files_may_hold_only_comments() {
        assert_eq!(fmt("// t\ntype T = { a };\n"), "// t\ntype T = { a };\n");
        assert_eq!(fmt("// only\n\n// comments"), "// only\n// comments\n");
        assert_eq!(fmt(""), "");
        // `//` inside an unknown pragma belongs to the pragma.
        assert_eq!(fmt("@ x // y ;"), "@ x // y ;\n");
        // Windows line ends.
        assert_eq!(
            fmt("// a\r\nbegin,end:;// b\r\n"),
            "// a\nbegin, end: ; // b\n"
        );
    }
}
