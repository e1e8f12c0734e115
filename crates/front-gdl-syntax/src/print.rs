//! The printer of normalised prefix KIF (`rgt fmt x.kif`).
//!
//! Layout: one fact per line, consecutive facts together; each rule starts on a new paragraph
//! (a blank line before it), with its head after `(<= ` and one body literal per line indented
//! by four spaces. Keywords are lower case, every other symbol keeps its first-seen spelling,
//! variables are written `?name`. Comments are not kept (the printer sees the normalised rules
//! only). Reading the output again gives the same program ([`crate::Program::structurally_eq`]).

use crate::ast::{Atom, Literal, Program, Rule, Term, TermId};
use rg_core::EntityId;
use std::fmt::{self, Write};

/// The normalised KIF text of a program.
pub fn print(program: &Program) -> String {
    let mut out = String::new();
    let mut previous_was_fact = false;
    for (i, rule) in program.rules().iter().enumerate() {
        let fact = rule.is_fact();
        if i > 0 && !(fact && previous_was_fact) {
            out.push('\n');
        }
        // Writing to a String cannot fail.
        let _ = write_rule(&mut out, program, rule);
        out.push('\n');
        previous_was_fact = fact;
    }
    out
}

/// Writes one rule (several lines unless it is a fact).
pub fn write_rule(out: &mut impl Write, p: &Program, rule: &Rule) -> fmt::Result {
    if rule.is_fact() {
        return write_atom(out, p, rule, &rule.head);
    }
    out.write_str("(<= ")?;
    write_atom(out, p, rule, &rule.head)?;
    for lit in &rule.body {
        out.write_str("\n    ")?;
        write_literal(out, p, rule, lit)?;
    }
    out.write_char(')')
}

/// One rule on one line (for messages).
pub fn rule_to_line(p: &Program, rule: &Rule) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = (|| -> fmt::Result {
        if rule.is_fact() {
            return write_atom(&mut out, p, rule, &rule.head);
        }
        out.write_str("(<= ")?;
        write_atom(&mut out, p, rule, &rule.head)?;
        for lit in &rule.body {
            out.write_char(' ')?;
            write_literal(&mut out, p, rule, lit)?;
        }
        out.write_char(')')
    })();
    out
}

/// Writes a body literal.
pub fn write_literal(out: &mut impl Write, p: &Program, rule: &Rule, lit: &Literal) -> fmt::Result {
    match lit {
        Literal::Pos(a) => write_atom(out, p, rule, a),
        Literal::Neg(a) => {
            out.write_str("(not ")?;
            write_atom(out, p, rule, a)?;
            out.write_char(')')
        }
        Literal::Distinct { left, right, .. } => {
            out.write_str("(distinct ")?;
            write_term(out, p, rule, *left)?;
            out.write_char(' ')?;
            write_term(out, p, rule, *right)?;
            out.write_char(')')
        }
    }
}

/// Writes an atom: `name` or `(name t…)`.
pub fn write_atom(out: &mut impl Write, p: &Program, rule: &Rule, atom: &Atom) -> fmt::Result {
    let name = p.name(p.rel_name(atom.rel));
    let args = p.args(atom.args);
    if args.is_empty() {
        return out.write_str(name);
    }
    out.write_char('(')?;
    out.write_str(name)?;
    for &t in args {
        out.write_char(' ')?;
        write_term(out, p, rule, t)?;
    }
    out.write_char(')')
}

/// Writes a term of `rule`.
pub fn write_term(out: &mut impl Write, p: &Program, rule: &Rule, t: TermId) -> fmt::Result {
    match p.term(t) {
        Term::Var(v) => {
            out.write_char('?')?;
            match rule.vars.get(v.index()) {
                Some(&s) => out.write_str(p.name(s)),
                // Not a variable of this rule: a caller bug, shown rather than hidden.
                None => write!(out, "{v:?}"),
            }
        }
        Term::Const(s) => out.write_str(p.name(s)),
        Term::Fn(f, args) => {
            out.write_char('(')?;
            out.write_str(p.name(f))?;
            for &a in p.args(args) {
                out.write_char(' ')?;
                write_term(out, p, rule, a)?;
            }
            out.write_char(')')
        }
    }
}
