//! Graphviz DOT output.
//!
//! One DOT node per automaton node (every node that is an edge endpoint or named by a
//! reachability check), `begin` and `end` marked by colour and shape and ranked first/last, one
//! DOT edge per RG edge labelled with its action in canonical form. Reachability edges are drawn
//! bold and blue, and each has a dotted link from its source to the start node of the
//! sub-automaton it checks (`constraint=false`, so the layout of the main automaton is kept).
//! Nodes named by `@unique` / `@repeat` pragmas are tinted as in the reference.

use crate::{EmitError, Emitter};
use rg_core::{Game, Label, NodeId, PragmaKind};
use std::fmt::Write as _;
use std::io::Write;

/// Emits Graphviz DOT.
#[derive(Clone, Copy, Debug, Default)]
pub struct DotEmitter;

impl Emitter for DotEmitter {
    fn name(&self) -> &'static str {
        "dot"
    }

    fn extension(&self) -> &'static str {
        "dot"
    }

    fn emit(&self, game: &Game, out: &mut dyn Write) -> Result<(), EmitError> {
        out.write_all(to_dot(game).as_bytes())?;
        Ok(())
    }
}

const REACH_COLOR: &str = "#1f6feb";

/// Escapes a string for a double-quoted DOT id or label.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            _ => o.push(c),
        }
    }
    o
}

/// The DOT text of a game.
pub fn to_dot(game: &Game) -> String {
    let nodes = game.nodes();
    let name = |n: NodeId| -> String {
        nodes
            .get(n)
            .map_or_else(|| format!("<dead {n}>"), |d| game.name(d.name).to_owned())
    };
    // Nodes to draw: endpoints of live edges and nodes named by reachability checks, in id order.
    let mut shown = vec![false; nodes.len()];
    for (_, e) in game.edges() {
        for n in [e.from, e.to] {
            if let Some(f) = shown.get_mut(n.0 as usize) {
                *f = true;
            }
        }
        if let Label::Reach { from, to, .. } = e.label {
            for n in [from, to] {
                if let Some(f) = shown.get_mut(n.0 as usize) {
                    *f = true;
                }
            }
        }
    }
    let mut fill: Vec<Option<&str>> = vec![None; nodes.len()];
    for p in &game.pragmas {
        let colour = match p.kind {
            PragmaKind::Repeat { .. } => "#f6f7c4",
            PragmaKind::Unique(_) => "#caedff",
            _ => continue,
        };
        p.kind.for_each_node(|n| {
            if let Some(f) = fill.get_mut(n.0 as usize) {
                *f = Some(colour);
            }
        });
    }
    let (begin, end) = (game.begin(), game.end());

    let mut o = String::new();
    o.push_str("digraph game {\n");
    o.push_str("  graph [pad=0.25];\n");
    o.push_str(
        "  node [fillcolor=\"#f0f0f0\", fontname=Helvetica, penwidth=0, shape=box, style=\"filled,rounded\"];\n",
    );
    o.push_str("  edge [fontname=Helvetica];\n");
    for (id, _) in nodes.iter() {
        if !shown[id.0 as usize] {
            continue;
        }
        let n = esc(&name(id));
        let mut attrs: Vec<String> = Vec::new();
        if Some(id) == begin {
            attrs.push("fillcolor=\"#c6f0c2\", penwidth=1.5, shape=cds".into());
        } else if Some(id) == end {
            attrs.push("fillcolor=\"#f4c7c3\", peripheries=2, penwidth=1.5".into());
        } else if let Some(c) = fill[id.0 as usize] {
            attrs.push(format!("fillcolor=\"{c}\""));
        }
        if attrs.is_empty() {
            let _ = writeln!(o, "  \"{n}\";");
        } else {
            let _ = writeln!(o, "  \"{n}\" [{}];", attrs.join(", "));
        }
    }
    for (_, e) in game.edges() {
        let (from, to) = (esc(&name(e.from)), esc(&name(e.to)));
        match e.label {
            Label::Skip => {
                let _ = writeln!(o, "  \"{from}\" -> \"{to}\";");
            }
            Label::Reach { from: a, .. } => {
                let label = esc(&rg_core::print::print_label(game, &e.label));
                let _ = writeln!(
                    o,
                    "  \"{from}\" -> \"{to}\" [color=\"{REACH_COLOR}\", fontcolor=\"{REACH_COLOR}\", label=\"{label}\", penwidth=2];"
                );
                let _ = writeln!(
                    o,
                    "  \"{from}\" -> \"{}\" [arrowhead=odot, color=\"{REACH_COLOR}\", constraint=false, style=dotted, tooltip=\"checks {label}\"];",
                    esc(&name(a))
                );
            }
            _ => {
                let label = esc(&rg_core::print::print_label(game, &e.label));
                let extra = if e.label.is_tag() {
                    ", fontcolor=\"#9a3412\""
                } else {
                    ""
                };
                let _ = writeln!(o, "  \"{from}\" -> \"{to}\" [label=\"{label}\"{extra}];");
            }
        }
    }
    if let Some(b) = begin.filter(|b| shown[b.0 as usize]) {
        let _ = writeln!(o, "  {{ rank=min; \"{}\" }}", esc(&name(b)));
    }
    if let Some(e) = end.filter(|e| shown[e.0 as usize]) {
        let _ = writeln!(o, "  {{ rank=max; \"{}\" }}", esc(&name(e)));
    }
    o.push_str("}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_begin_end_and_reachability() {
        let g = rg_core::parse(
            rg_core::FileId(0),
            "begin, a: ; a, end: player = keeper; a, b: ! c -> d; c, d: $ t; @unique c;",
        )
        .unwrap();
        let dot = to_dot(&g);
        assert!(dot.contains("\"begin\" [fillcolor=\"#c6f0c2\""));
        assert!(dot.contains("\"end\" [fillcolor=\"#f4c7c3\", peripheries=2"));
        assert!(dot.contains("\"begin\" -> \"a\";\n"));
        assert!(dot.contains("\"a\" -> \"end\" [label=\"player = keeper\"];"));
        assert!(dot.contains(
            "\"a\" -> \"b\" [color=\"#1f6feb\", fontcolor=\"#1f6feb\", label=\"! c -> d\""
        ));
        assert!(dot.contains(
            "\"a\" -> \"c\" [arrowhead=odot, color=\"#1f6feb\", constraint=false, style=dotted"
        ));
        assert!(dot.contains("\"c\" [fillcolor=\"#caedff\"];"));
        assert!(dot.contains("{ rank=min; \"begin\" }"));
        assert!(dot.contains("{ rank=max; \"end\" }"));
    }
}
