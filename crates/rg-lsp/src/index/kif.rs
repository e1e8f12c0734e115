//! GDL (KIF) declarations. A relation is declared by the heads of the rules that define it —
//! `(<= (name …) …)`, `(<= name …)` — and by facts `(name …)`; every head is a declaring
//! occurrence (go to definition lists them all). The function symbols of fluents and actions,
//! the first argument of `init`, `next`, `base` and `true` heads and the second of `legal`,
//! `input` and `does` heads, are declared the same way. Variables (`?x`) are never names.

use super::lex::{Tok, TokKind};
use super::{Declared, Def, Kind, Space, closing, def, snippet};
use std::collections::HashMap;

/// A relation or function symbol seen at a head: its declaration and the arities met.
struct Seen {
    def: usize,
    arities: Vec<usize>,
    rules: usize,
}

/// The declarations of a KIF text.
pub(crate) fn declare(text: &str, toks: &[Tok<'_>]) -> Declared {
    let mut defs: Vec<Def> = Vec::new();
    let mut seen: HashMap<&str, Seen> = HashMap::new();
    let mut spaces = vec![Space::Any; toks.len()];
    for (i, t) in toks.iter().enumerate() {
        if t.text.starts_with('?') || matches!(t.text, "<=" | "not" | "or" | "and" | "distinct") {
            spaces[i] = Space::None;
        }
    }
    let mut i = 0;
    while i < toks.len() {
        let end = if toks[i].is("(") { closing(toks, i) } else { i };
        let form = (toks[i].start, toks[end].end());
        let head = if toks[i].is("(") && toks.get(i + 1).is_some_and(|t| t.text == "<=") {
            i + 2
        } else {
            i
        };
        if head <= end {
            let mut add = |at: usize, kind: Kind| {
                let Some(name) = functor(toks, at) else {
                    return;
                };
                let arity = arity(toks, at);
                let s = seen.entry(name.text).or_insert_with(|| {
                    defs.push(def(name, kind, form, String::new()));
                    Seen {
                        def: defs.len() - 1,
                        arities: Vec::new(),
                        rules: 0,
                    }
                });
                if !s.arities.contains(&arity) {
                    s.arities.push(arity);
                }
                s.rules += 1;
                let d = &mut defs[s.def];
                if d.name_span != (name.start, name.end()) {
                    d.more.push((name.start, name.end()));
                }
            };
            add(head, Kind::Relation);
            if let Some(f) = functor(toks, head) {
                let nested = match f.text.to_ascii_lowercase().as_str() {
                    "init" | "next" | "base" | "true" => Some(1),
                    "legal" | "input" | "does" => Some(2),
                    _ => None,
                };
                if let Some(n) = nested.and_then(|n| argument(toks, head, n)) {
                    add(n, Kind::Term);
                }
            }
        }
        i = end + 1;
    }
    for s in seen.values() {
        let d = &mut defs[s.def];
        let arities: Vec<String> = s
            .arities
            .iter()
            .map(|a| format!("{}/{a}", d.name))
            .collect();
        d.summary = format!(
            "{} `{}`: {} declaring {}",
            d.kind.describe(),
            arities.join("`, `"),
            s.rules,
            if s.rules == 1 { "form" } else { "forms" },
        );
        d.detail = snippet(text, d.decl);
    }
    Declared { defs, spaces }
}

/// The name token of the term at `at`: `name` or `(name …)`.
fn functor<'t, 'a>(toks: &'t [Tok<'a>], at: usize) -> Option<&'t Tok<'a>> {
    let t = toks.get(at)?;
    let name = if t.is("(") { toks.get(at + 1)? } else { t };
    (name.kind == TokKind::Name && !name.text.starts_with('?') && name.text != "<=").then_some(name)
}

/// The number of arguments of the term at `at` (0 for an atom).
fn arity(toks: &[Tok<'_>], at: usize) -> usize {
    if !toks[at].is("(") {
        return 0;
    }
    let close = closing(toks, at);
    let mut n = 0;
    let mut i = at + 2;
    while i < close {
        n += 1;
        i = if toks[i].is("(") { closing(toks, i) } else { i } + 1;
    }
    n
}

/// The token where the `n`-th argument (1-based) of the term `(f a1 a2 …)` at `at` starts.
fn argument(toks: &[Tok<'_>], at: usize, n: usize) -> Option<usize> {
    if !toks.get(at)?.is("(") {
        return None;
    }
    let close = closing(toks, at);
    let mut i = at + 2;
    for _ in 1..n {
        if i >= close {
            return None;
        }
        i = if toks[i].is("(") { closing(toks, i) } else { i } + 1;
    }
    (i < close).then_some(i)
}
