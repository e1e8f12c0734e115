//! RBG declarations. A description is a list of `#name …` items: `#players`, `#pieces` and
//! `#variables` declare comma-separated names (with their bounds in parentheses), `#board`
//! declares the directions of a board generator (`rectangle(up, down, …, [ … ])`), `#rules`
//! declares nothing, and any other `#name(p1; p2) = …` is a macro whose parameters are local
//! to it.

use super::lex::{Tok, TokKind};
use super::{Declared, Def, Kind, Space, closing, def, snippet, summarised};

/// The declarations of an RBG text.
pub(crate) fn declare(text: &str, toks: &[Tok<'_>]) -> Declared {
    let mut defs: Vec<Def> = Vec::new();
    let mut spaces = vec![Space::Any; toks.len()];
    let starts: Vec<usize> = item_starts(toks);
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(toks.len());
        let t = &toks[s..end];
        let Some(head) = t.get(1).filter(|t| t.kind == TokKind::Name) else {
            continue;
        };
        let sp = (t[0].start, t[t.len() - 1].end());
        let Some(eq) = t.iter().position(|t| t.is("=")) else {
            continue;
        };
        match head.text {
            "players" | "pieces" | "variables" => {
                spaces[s + 1] = Space::None;
                let kind = match head.text {
                    "players" => Kind::Player,
                    "pieces" => Kind::Piece,
                    _ => Kind::Variable,
                };
                let mut i = eq + 1;
                while i < t.len() {
                    if t[i].kind == TokKind::Name && (t[i - 1].is(",") || i == eq + 1) {
                        let end = if t.get(i + 1).is_some_and(|n| n.is("(")) {
                            closing(t, i + 1)
                        } else {
                            i
                        };
                        let summary = format!(
                            "{} `{}`",
                            kind.describe(),
                            snippet(text, (t[i].start, t[end].end())),
                        );
                        defs.push(summarised(def(&t[i], kind, sp, snippet(text, sp)), summary));
                        i = end;
                    }
                    i += 1;
                }
            }
            "board" => {
                spaces[s + 1] = Space::None;
                directions(text, t, eq, sp, &mut defs);
            }
            "rules" => spaces[s + 1] = Space::None,
            _ => macro_def(text, t, eq, sp, &mut defs),
        }
    }
    Declared { defs, spaces }
}

/// The tokens that start an item: `#` followed by a name, outside brackets.
fn item_starts(toks: &[Tok<'_>]) -> Vec<usize> {
    let mut depth = 0usize;
    let mut starts = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text {
            "#" if depth == 0 || t.line_start => {
                depth = 0;
                starts.push(i);
            }
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    starts
}

/// `#board = gen(d1, d2, …, [ … ])`: the names before the first `[` are directions.
fn directions(text: &str, t: &[Tok<'_>], eq: usize, sp: (usize, usize), defs: &mut Vec<Def>) {
    if !t.get(eq + 2).is_some_and(|p| p.is("(")) {
        return;
    }
    for tok in t.iter().skip(eq + 3) {
        if tok.is("[") {
            break;
        }
        if tok.kind == TokKind::Name && !defs.iter().any(|d| d.name == tok.text) {
            let d = def(tok, Kind::Direction, sp, snippet(text, sp));
            defs.push(summarised(d, "direction of the board".into()));
        }
    }
}

/// `#name(p1; p2) = body`: a macro and its parameters.
fn macro_def(text: &str, t: &[Tok<'_>], eq: usize, sp: (usize, usize), defs: &mut Vec<Def>) {
    let head = &t[1];
    let header = snippet(text, (t[0].start, t[eq.saturating_sub(1)].end()));
    let summary = format!("macro `{}`", header.trim_start_matches('#'));
    defs.push(summarised(
        def(head, Kind::Macro, sp, snippet(text, sp)),
        summary,
    ));
    let parent = defs.len() - 1;
    if t.get(2).is_some_and(|p| p.is("(")) {
        for p in t[3..eq].iter().filter(|p| p.kind == TokKind::Name) {
            let summary = format!("parameter of macro `{}`", head.text);
            let mut d = summarised(def(p, Kind::Parameter, sp, String::new()), summary);
            d.scope = Some(sp);
            d.parent = Some(parent);
            defs.push(d);
        }
    }
}
