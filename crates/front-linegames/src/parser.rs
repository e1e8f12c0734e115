//! Parsing: glue between the lexer, the LALRPOP grammar and [`LgError`]. Every LALRPOP error is
//! converted here, in one place, into a located error with a readable list of what was expected;
//! a misspelt shape, direction or statement keyword gets its own error with a suggestion.

use crate::ast::{File, Num};
use crate::error::{LgError, LgErrors};
use crate::lexer::{Kw, LexErrorKind, Never, Spanned, Tok, tokens};
use lalrpop_util::ParseError;
use rg_core::suggest::closest;
use rg_core::{FileId, Span};

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_imports,
        unused_qualifications,
        rust_2018_idioms,
        missing_debug_implementations
    )]
    grammar
);

pub(crate) fn sp(file: FileId, l: usize, r: usize) -> Span {
    Span::new(file, l, r)
}

pub(crate) fn num(text: &str, span: Span) -> Num {
    Num {
        value: text.parse().unwrap_or(u64::MAX),
        span,
    }
}

/// Parses a `.lg` text. All syntax errors are reported, at most one per line.
pub fn parse(file: FileId, text: &str) -> Result<File, LgErrors> {
    let toks = tokens(text);
    let mut recovered = Vec::new();
    let result = grammar::FileParser::new().parse(
        file,
        &mut recovered,
        toks.iter().map(|&t| Ok::<_, Never>(t)),
    );
    let mut errors: Vec<LgError> = recovered
        .into_iter()
        .map(|r| convert(file, text, &toks, r.error))
        .collect();
    match result {
        Ok(ast) if errors.is_empty() => Ok(ast),
        Ok(_) => Err(LgErrors::new(errors)),
        Err(e) => {
            errors.push(convert(file, text, &toks, e));
            Err(LgErrors::new(errors))
        }
    }
}

const SHAPES: [&str; 5] = ["point", "alquerque", "grid", "crossed", "circle"];
const STATEMENTS: [&str; 10] = [
    "game", "board", "triangle", "points", "line", "white", "black", "empty", "capture", "limit",
];

fn convert(
    file: FileId,
    text: &str,
    toks: &[Spanned<'_>],
    e: ParseError<usize, Tok<'_>, Never>,
) -> LgError {
    let span = |l: usize, r: usize| sp(file, l, r).into();
    match e {
        ParseError::UnrecognizedToken {
            token: (l, Tok::Error(kind), r),
            ..
        }
        | ParseError::ExtraToken {
            token: (l, Tok::Error(kind), r),
        } => lex_error(text, kind, l, r, span(l, r)),
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let has = |t: &str| expected.iter().any(|e| e.trim_matches('"') == t);
            if let Tok::Name(name) = tok {
                if has("point") && has("circle") {
                    return LgError::UnknownBoard {
                        name: name.to_owned(),
                        span: span(l, r),
                        help: with_suggestion(
                            name,
                            &SHAPES,
                            "the shapes are `point`, `grid W by H`, `alquerque W by H`, \
                             `crossed W by H` and `circle S spokes R rings`",
                        ),
                    };
                }
                if has("north") && has("southwest") {
                    let all: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
                    return LgError::UnknownDirection {
                        name: name.to_owned(),
                        span: span(l, r),
                        help: with_suggestion(
                            name,
                            &all,
                            &format!("the directions here are {}", list(&expected)),
                        ),
                    };
                }
            }
            if let Some((sl, Tok::Name(word), sr)) = line_start(toks, l)
                && sl < l
                && let Some(kw) = closest(word, STATEMENTS)
            {
                return LgError::UnknownStatement {
                    name: word.to_owned(),
                    span: span(sl, sr),
                    help: format!("did you mean `{kw}`?"),
                };
            }
            let first = line_start(toks, l);
            let help = match tok {
                Tok::Kw(_) if first.is_some_and(|(fl, _, _)| fl == l) && has("Name") => Some(
                    "the `,` at the end of the previous line continues the selector list on this \
                     line; remove it to end the statement"
                        .to_owned(),
                ),
                Tok::Kw(k) if has("Name") => {
                    Some(if matches!(first, Some((_, Tok::Kw(Kw::Points), _))) {
                        format!("`{}` is a keyword and cannot name a point", k.text())
                    } else {
                        format!("`{}` is a keyword, not a point name", k.text())
                    })
                }
                _ if has("by") => {
                    Some("rectangular boards are written `alquerque 5 by 5`".to_owned())
                }
                _ if has("rings") => {
                    Some("circle boards are written `circle 6 spokes 3 rings`".to_owned())
                }
                _ => None,
            };
            LgError::Syntax {
                found: tok.to_string(),
                expected: list(&expected),
                span: span(l, r),
                help,
            }
        }
        ParseError::ExtraToken { token: (l, tok, r) } => LgError::Syntax {
            found: tok.to_string(),
            expected: "the end of the file".into(),
            span: span(l, r),
            help: None,
        },
        ParseError::UnrecognizedEof { location, expected } => LgError::Syntax {
            found: "the end of the file".into(),
            expected: list(&expected),
            span: span(location, location),
            help: None,
        },
        ParseError::InvalidToken { location } => {
            let r = location + text[location..].chars().next().map_or(0, char::len_utf8);
            lex_error(
                text,
                LexErrorKind::UnexpectedChar,
                location,
                r,
                span(location, r),
            )
        }
        ParseError::User { error } => match error {},
    }
}

fn lex_error(
    text: &str,
    kind: LexErrorKind,
    l: usize,
    r: usize,
    span: miette::SourceSpan,
) -> LgError {
    match kind {
        LexErrorKind::UnexpectedChar => LgError::UnexpectedChar {
            ch: text[l..].chars().next().unwrap_or('?'),
            span,
        },
        LexErrorKind::CapitalWord => LgError::CapitalWord {
            word: text[l..r].to_owned(),
            first: text[l..].chars().next().unwrap_or('?'),
            span,
        },
        LexErrorKind::UnterminatedString => LgError::UnterminatedString { span },
    }
}

/// The first token of the line holding the token that starts at `at`.
fn line_start<'s>(toks: &[Spanned<'s>], at: usize) -> Option<Spanned<'s>> {
    let i = toks.partition_point(|&(l, _, _)| l < at);
    let start = toks[..i]
        .iter()
        .rposition(|(_, t, _)| *t == Tok::Newline)
        .map_or(0, |p| p + 1);
    toks.get(start).copied()
}

fn with_suggestion(name: &str, candidates: &[&str], fallback: &str) -> String {
    match closest(name, candidates.iter().copied()) {
        Some(c) => format!("did you mean `{c}`? ({fallback})"),
        None => fallback.to_owned(),
    }
}

/// A readable list of what the grammar expected, with long keyword lists summarised.
fn list(expected: &[String]) -> String {
    let names: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
    let has = |t: &str| names.contains(&t);
    if has("game") && has("board") && has("capture") {
        return "a statement (`game`, `board`, `triangle`, `points`, `line`, `white`, `black`, \
                `empty`, `capture` or `limit`)"
            .to_owned();
    }
    let mut items: Vec<String> = Vec::new();
    let compass = [
        "north",
        "east",
        "south",
        "west",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
    ];
    let ring = ["clockwise", "anticlockwise"];
    let selector = ["row", "rows", "col", "cols", "spoke", "spokes", "triangle"];
    let grouped_compass = compass.iter().all(|c| has(c));
    let grouped_selector = selector.iter().all(|c| has(c)) && has("Name");
    if grouped_compass {
        items.push(if ring.iter().all(|c| has(c)) {
            "a direction (`north`, `northeast`, …, `clockwise`, `anticlockwise`)".to_owned()
        } else {
            "a compass direction (`north`, `northeast`, `east`, …)".to_owned()
        });
    }
    if grouped_selector {
        items.push(
            "a selector (a point name, `rows A..B`, `cols A..B`, `spokes A..B` or `triangle D`)"
                .to_owned(),
        );
    }
    for n in names {
        let grouped = (grouped_compass && (compass.contains(&n) || ring.contains(&n)))
            || (grouped_selector && (selector.contains(&n) || n == "Name"));
        if grouped {
            continue;
        }
        items.push(match n {
            "NL" => "the end of the line".to_owned(),
            "Name" => "a point name".to_owned(),
            "Int" => "a number".to_owned(),
            "Str" => "a quoted title".to_owned(),
            other => format!("`{other}`"),
        });
    }
    match items.len() {
        0 => "nothing more".to_owned(),
        1 => items.remove(0),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} or {last}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use rg_core::FileId;

    fn errors(text: &str) -> Vec<String> {
        match parse(FileId(0), text) {
            Ok(_) => Vec::new(),
            Err(e) => e.errors.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn every_bad_line_is_reported() {
        let e = errors("game \"x\"\nboard alquerque 5 5\nwhite x y\nlimit turns\nlimit quiet 5\n");
        assert_eq!(e.len(), 3, "{e:?}");
        // Lexing errors are skipped by the recovery like any other bad token.
        let e = errors("game \"x\nwhite a; b\nblack A\nlimit turns -1\nwhite a b; c\n");
        assert_eq!(e.len(), 5, "{e:?}");
    }
}
