//! Printing a parsed game as LL-RBG (in the reference formatter's style: fully
//! parenthesised arithmetic), so users can see what HL macros and generators produced.

use crate::syntax::{Arith, Game, Rule};
use std::fmt::Write;

fn arith(a: &Arith) -> String {
    match a {
        Arith::Num(n) => n.to_string(),
        Arith::Name(n) => n.clone(),
        Arith::Op(op, xs) => format!(
            "({})",
            xs.iter()
                .map(arith)
                .collect::<Vec<_>>()
                .join(&format!(" {op} "))
        ),
    }
}

fn rule(r: &Rule, out: &mut String) {
    match r {
        Rule::Alt(alts) => {
            out.push('(');
            for (i, a) in alts.iter().enumerate() {
                if i > 0 {
                    out.push_str(" + ");
                }
                rule(a, out);
            }
            out.push(')');
        }
        Rule::Seq(items) => {
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                match it {
                    Rule::Seq(_) => {
                        out.push('(');
                        rule(it, out);
                        out.push(')');
                    }
                    _ => rule(it, out),
                }
            }
        }
        Rule::Star(x) => {
            match **x {
                Rule::Seq(_) => {
                    out.push('(');
                    rule(x, out);
                    out.push(')');
                }
                _ => rule(x, out),
            }
            out.push('*');
        }
        Rule::Shift(d) => out.push_str(d),
        Rule::On(ps) => {
            let _ = write!(out, "{{{}}}", ps.join(", "));
        }
        Rule::Off(p) => {
            let _ = write!(out, "[{p}]");
        }
        Rule::Assign(v, e) => {
            let _ = write!(out, "[$ {v} = {}]", arith(e));
        }
        Rule::Cmp(a, op, b) => {
            let _ = write!(out, "{{$ {} {op} {}}}", arith(a), arith(b));
        }
        Rule::Pattern(pos, body) => {
            out.push_str(if *pos { "{? " } else { "{! " });
            rule(body, out);
            out.push('}');
        }
        Rule::Switch(Some(p)) => {
            let _ = write!(out, "->{p}");
        }
        Rule::Switch(None) => out.push_str("->>"),
        Rule::Noop => out.push('.'),
    }
}

/// The LL-RBG text of a game.
pub(crate) fn ll(g: &Game) -> String {
    let mut s = String::from("#board =\n");
    for v in &g.board {
        let mut edges = v.edges.clone();
        edges.sort();
        let edges: Vec<String> = edges.iter().map(|(l, t)| format!("{l}:{t}")).collect();
        let _ = writeln!(s, "  {}[{}]{{{}}}", v.name, v.piece, edges.join(","));
    }
    let bounded = |xs: &[(String, u64)]| {
        xs.iter()
            .map(|(n, b)| format!("{n}({b})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(s, "#players = {}", bounded(&g.players));
    let _ = writeln!(s, "#pieces = {}", g.pieces.join(", "));
    let mut vars = g.variables.clone();
    vars.sort();
    let _ = writeln!(s, "#variables = {}", bounded(&vars));
    s.push_str("#rules = ");
    if let Some(r) = &g.rules {
        rule(r, &mut s);
    }
    s.push('\n');
    s
}
