//! HRG declarations. A program is a list of items, each starting on a line of its own outside
//! brackets: `domain D = …` (a type; its plain elements and generator names are symbols),
//! `[reusable] graph g(p: T, …) { … }` (a graph; its parameters and the variables of
//! `branch x in` / `repeat x in` are local to it), `name : type [= value]` (a function when
//! cases `name(…) = …` follow, else a variable) and the cases themselves. Upper-case names that
//! are not declared globally are pattern or `where` variables, local to their item.

use super::lex::{Tok, TokKind};
use super::{Declared, Def, Kind, Space, closing, def, snippet, summarised};
use std::collections::{HashMap, HashSet};

/// One top-level item: its tokens `start..end`.
#[derive(Clone, Copy, Debug)]
struct Item {
    start: usize,
    end: usize,
}

/// The declarations of an HRG text.
pub(crate) fn declare(text: &str, toks: &[Tok<'_>]) -> Declared {
    let items = items(toks);
    let span = |it: &Item| (toks[it.start].start, toks[it.end - 1].end());
    let mut defs: Vec<Def> = Vec::new();
    let mut spaces = vec![Space::Any; toks.len()];
    // Names with cases `name(…) = …` are functions.
    let cased: HashSet<&str> = items
        .iter()
        .filter(|it| toks.get(it.start + 1).is_some_and(|t| t.is("(")))
        .map(|it| toks[it.start].text)
        .collect();
    let case_text: HashMap<&str, Vec<Item>> = items.iter().fold(HashMap::new(), |mut m, it| {
        if toks.get(it.start + 1).is_some_and(|t| t.is("(")) {
            m.entry(toks[it.start].text).or_default().push(*it);
        }
        m
    });
    let domains: HashSet<&str> = items
        .iter()
        .filter(|it| toks[it.start].is_name("domain"))
        .filter_map(|it| toks.get(it.start + 1).map(|t| t.text))
        .collect();
    for it in &items {
        let t = &toks[it.start..it.end];
        let sp = span(it);
        let name = |i: usize| t.get(i).filter(|t| t.kind == TokKind::Name);
        match t[0].text {
            "domain" if name(1).is_some() => {
                spaces[it.start] = Space::None;
                defs.push(def(&t[1], Kind::Type, sp, snippet(text, sp)));
                domain_elements(text, t, sp, &domains, &mut defs);
            }
            "graph" | "reusable" => {
                let at = if t[0].text == "reusable" { 2 } else { 1 };
                spaces[it.start] = Space::None;
                if at == 2 {
                    spaces[it.start + 1] = Space::None;
                }
                if let Some(n) = name(at) {
                    let header_end = t.iter().position(|t| t.is("{")).unwrap_or(t.len());
                    let head = (sp.0, t[header_end.saturating_sub(1)].end());
                    defs.push(def(n, Kind::Graph, sp, snippet(text, head)));
                }
            }
            _ if name(0).is_some() && t.get(1).is_some_and(|t| t.is(":")) => {
                let kind = if cased.contains(t[0].text) {
                    Kind::Function
                } else {
                    Kind::Variable
                };
                let mut detail = snippet(text, sp);
                for case in case_text.get(t[0].text).into_iter().flatten().take(8) {
                    detail.push('\n');
                    detail.push_str(&snippet(text, span(case)));
                }
                defs.push(def(&t[0], kind, sp, detail));
            }
            _ => {}
        }
    }
    let globals: HashSet<String> = defs.iter().map(|d| d.name.clone()).collect();
    for it in &items {
        locals(text, toks, it, span(it), &globals, &mut defs, &mut spaces);
    }
    Declared { defs, spaces }
}

/// Splits the tokens into items (see the module documentation).
fn items(toks: &[Tok<'_>]) -> Vec<Item> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        let keyword = t.line_start
            && (t.is_name("domain") || t.is_name("graph") || t.is_name("reusable"))
            && toks.get(i + 1).is_some_and(|n| n.kind == TokKind::Name);
        let named = depth == 0
            && t.column0
            && t.kind == TokKind::Name
            && toks.get(i + 1).is_some_and(|n| n.is(":") || n.is("("));
        if keyword {
            depth = 0; // a declaration keyword starts an item whatever brackets are left open
        }
        if keyword || named {
            starts.push(i);
        }
        if t.kind == TokKind::Punct {
            match t.text {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    let mut items: Vec<Item> = starts
        .windows(2)
        .map(|w| Item {
            start: w[0],
            end: w[1],
        })
        .collect();
    if let Some(&last) = starts.last() {
        items.push(Item {
            start: last,
            end: toks.len(),
        });
    }
    items
}

/// The symbols of `domain D = a | S(X) where … | Other`: plain names that are not domains, and
/// generator names.
fn domain_elements(
    text: &str,
    t: &[Tok<'_>],
    sp: (usize, usize),
    domains: &HashSet<&str>,
    defs: &mut Vec<Def>,
) {
    let parent = defs.len() - 1;
    let dname = t[1].text;
    let Some(eq) = t.iter().position(|t| t.is("=")) else {
        return;
    };
    let mut expect_element = true;
    let mut i = eq + 1;
    while i < t.len() {
        let tok = &t[i];
        if tok.is("|") {
            expect_element = true;
        } else if expect_element && tok.kind == TokKind::Name {
            expect_element = false;
            let generator = t.get(i + 1).is_some_and(|n| n.is("("));
            let numeric = tok.text.chars().all(|c| c.is_ascii_digit());
            if (generator || !domains.contains(tok.text)) && !numeric {
                let what = if generator { "constructor" } else { "symbol" };
                let mut d = summarised(
                    def(tok, Kind::Symbol, sp, snippet(text, sp)),
                    format!("{what} of domain `{dname}`"),
                );
                d.parent = Some(parent);
                defs.push(d);
            }
            if generator {
                i = closing(t, i + 1);
            }
        }
        i += 1;
    }
}

/// The local names of an item: graph parameters, loop variables and upper-case pattern
/// variables.
fn locals(
    text: &str,
    toks: &[Tok<'_>],
    it: &Item,
    sp: (usize, usize),
    globals: &HashSet<String>,
    defs: &mut Vec<Def>,
    spaces: &mut [Space],
) {
    let t = &toks[it.start..it.end];
    let graph = defs
        .iter()
        .rposition(|d| d.kind == Kind::Graph && d.decl == sp);
    let mut declared: HashSet<&str> = HashSet::new();
    let push = |defs: &mut Vec<Def>, tok: &Tok<'_>, kind: Kind, summary: &str, detail| {
        let mut d = summarised(def(tok, kind, sp, detail), summary.to_owned());
        d.scope = Some(sp);
        d.parent = graph;
        defs.push(d);
    };
    if graph.is_some() {
        // Parameters: `name : Type` inside the header's parentheses.
        if let Some(open) = t.iter().position(|t| t.is("(")) {
            let close = closing(t, open);
            for i in open + 1..close {
                if t[i].kind == TokKind::Name
                    && t[i + 1].is(":")
                    && (t[i - 1].is("(") || t[i - 1].is(","))
                {
                    let end = (i + 2..close).find(|&j| t[j].is(",")).unwrap_or(close);
                    let detail = snippet(text, (t[i].start, t[end - 1].end()));
                    declared.insert(t[i].text);
                    push(defs, &t[i], Kind::Parameter, "graph parameter", detail);
                }
            }
        }
    }
    for i in 0..t.len() {
        let tok = &t[i];
        if tok.kind != TokKind::Name {
            continue;
        }
        let keyword = matches!(tok.text, "branch" | "repeat" | "forall");
        if keyword {
            spaces[it.start + i] = Space::None;
            if let (Some(v), Some(kw)) = (t.get(i + 1), t.get(i + 2))
                && v.kind == TokKind::Name
                && kw.is_name("in")
                && declared.insert(v.text)
            {
                let end = t.get(i + 3).map_or(v.end(), |e| e.end());
                let detail = snippet(text, (v.start, end));
                push(defs, v, Kind::Local, "loop variable", detail);
            }
            continue;
        }
        let upper = tok.text.chars().next().is_some_and(char::is_uppercase);
        if upper && !globals.contains(tok.text) && declared.insert(tok.text) {
            push(defs, tok, Kind::Local, "pattern variable", String::new());
        }
    }
}
