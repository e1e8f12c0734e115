//! RG declarations: `type`, `const` and `var` statements, the members of set types, and the
//! nodes (a node is declared by its first occurrence as an edge end). Node names are looked up
//! among nodes only — at the two ends of an edge, in a reachability check `? a -> b` and in
//! pragmas — and other names among the rest.

use super::lex::{Tok, TokKind};
use super::{Declared, Def, Kind, Space, def, snippet, summarised};
use std::collections::{HashMap, HashSet};

/// The declarations of an RG text.
pub(crate) fn declare(text: &str, toks: &[Tok<'_>]) -> Declared {
    let mut defs: Vec<Def> = Vec::new();
    let mut spaces = vec![Space::Values; toks.len()];
    let mut symbols: HashSet<&str> = HashSet::new();
    let mut nodes: HashMap<&str, usize> = HashMap::new();
    let mut degree: Vec<(usize, usize)> = Vec::new(); // per node def: (out, in)
    let mut start = 0;
    while start < toks.len() {
        let end = (start..toks.len())
            .find(|&i| toks[i].is(";"))
            .unwrap_or(toks.len() - 1);
        let stmt = &toks[start..=end];
        let span = (stmt[0].start, stmt[stmt.len() - 1].end());
        let name = |i: usize| stmt.get(i).filter(|t| t.kind == TokKind::Name);
        match stmt[0].text {
            "type" | "const" | "var" if name(1).is_some() => {
                spaces[start] = Space::None;
                let kind = match stmt[0].text {
                    "type" => Kind::Type,
                    "const" => Kind::Constant,
                    _ => Kind::Variable,
                };
                let n = name(1).expect("checked");
                defs.push(def(n, kind, span, snippet(text, span)));
                // Members of set types `{ a, b }` (before the value of a `const`/`var`).
                let value_at = stmt
                    .iter()
                    .position(|t| t.is("="))
                    .filter(|_| kind != Kind::Type);
                let mut in_set = false;
                for (i, t) in stmt.iter().enumerate().skip(2) {
                    if Some(i) == value_at {
                        break;
                    }
                    match t.text {
                        "{" => in_set = true,
                        "}" => in_set = false,
                        _ if in_set && t.kind == TokKind::Name && symbols.insert(t.text) => {
                            let mut d = summarised(
                                def(t, Kind::Symbol, span, snippet(text, span)),
                                format!("symbol of `{}`", n.text),
                            );
                            d.parent = Some(defs.len() - 1);
                            defs.push(d);
                        }
                        _ => {}
                    }
                }
            }
            "@" => {
                for s in &mut spaces[start..=end] {
                    *s = Space::Any;
                }
            }
            _ if stmt.len() >= 4 && stmt[1].is(",") && stmt[3].is(":") => {
                for (k, at) in [0usize, 2].into_iter().enumerate() {
                    let t = &stmt[at];
                    if t.kind != TokKind::Name {
                        continue;
                    }
                    spaces[start + at] = Space::Nodes;
                    let slot = *nodes.entry(t.text).or_insert_with(|| {
                        defs.push(def(t, Kind::Node, span, String::new()));
                        degree.push((0, 0));
                        degree.len() - 1
                    });
                    if k == 0 {
                        degree[slot].0 += 1;
                    } else {
                        degree[slot].1 += 1;
                    }
                }
                // `? a -> b` and `! a -> b`: node names.
                for i in 4..stmt.len() {
                    let at = |j: usize, p: &str| stmt.get(j).is_some_and(|t| t.is(p));
                    if (at(i, "?") || at(i, "!")) && at(i + 2, "-") && at(i + 3, ">") {
                        spaces[start + i + 1] = Space::Nodes;
                        if i + 4 < stmt.len() {
                            spaces[start + i + 4] = Space::Nodes;
                        }
                    }
                }
            }
            _ => {}
        }
        start = end + 1;
    }
    describe_nodes(&mut defs, &degree);
    Declared { defs, spaces }
}

fn describe_nodes(defs: &mut [Def], degree: &[(usize, usize)]) {
    let nodes = defs.iter_mut().filter(|d| d.kind == Kind::Node);
    for (d, &(out, inc)) in nodes.zip(degree) {
        d.summary = format!(
            "node `{}`: {out} outgoing edge{}, {inc} incoming",
            d.name,
            if out == 1 { "" } else { "s" }
        );
    }
}
