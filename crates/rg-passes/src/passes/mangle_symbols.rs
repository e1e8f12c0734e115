//! `mangle_symbols`: every name — types, constants, variables, symbols, nodes and
//! tag symbols — becomes `_` followed by a base-36 number, numbered by first occurrence in a walk
//! over constants, edges, pragmas, type definitions and variables (each in list order, fields in
//! declaration order); the number is the size of the renaming table plus one, the table starting
//! with the names that are kept.
//!
//! Kept: `begin`, `end`, `goals`, `player`, `visible`; the built-in types `Bool`, `Goals`,
//! `Player`, `PlayerOrSystem`, `Score`, `Visibility` and every symbol of their set definitions
//! (so `keeper`, `random`, the players and the scores survive); and every symbol of the type of
//! a variable shown by `$$ v` (its values become tags at run time). Unlike the reference, the
//! lower-case `score` is not reserved, and a generated name never equals a kept one (e.g. a kept
//! symbol `_5`), which would merge two names. Unknown pragmas are kept verbatim.
//!
//! Moves: tag symbols are renamed injectively, so labels change but the game tree does not
//! (`Relabels`): one renaming for all namespaces keeps every name resolving as before.
//! Complexity: linear in the size of the game.

use super::meta;
use crate::util::set_members;
use crate::{Pass, PassContext, PassError};
use rg_core::ast::{self, Expr, Ident, Label, PragmaKind, PragmaTag, Type, Value};
use rg_core::{Game, TypeData};
use std::collections::{HashMap, HashSet};

#[derive(Debug)]
pub(crate) struct MangleSymbols;

fn ty(t: &mut Type, f: &mut impl FnMut(&mut Ident)) {
    match t {
        Type::Arrow { lhs, rhs, .. } => {
            ty(lhs, f);
            ty(rhs, f);
        }
        Type::Set { members, .. } => members.iter_mut().for_each(f),
        Type::Name(n) => f(n),
    }
}

fn value(v: &mut Value, f: &mut impl FnMut(&mut Ident)) {
    match v {
        Value::Element(n) => f(n),
        Value::Map { entries, .. } => {
            for e in entries {
                if let Some(k) = &mut e.key {
                    f(k);
                }
                value(&mut e.value, f);
            }
        }
    }
}

fn expr(e: &mut Expr, f: &mut impl FnMut(&mut Ident)) {
    match e {
        Expr::Access { lhs, rhs, .. } => {
            expr(lhs, f);
            expr(rhs, f);
        }
        Expr::Cast { ty: t, expr: x, .. } => {
            ty(t, f);
            expr(x, f);
        }
        Expr::Ref(n) => f(n),
    }
}

fn label(l: &mut Label, f: &mut impl FnMut(&mut Ident)) {
    match l {
        Label::Assign { lhs, rhs } | Label::Compare { lhs, rhs, .. } => {
            expr(lhs, f);
            expr(rhs, f);
        }
        Label::AssignAny { lhs, ty: t } => {
            expr(lhs, f);
            ty(t, f);
        }
        Label::Reach { from, to, .. } => {
            f(from);
            f(to);
        }
        Label::Skip => {}
        Label::Tag(n) | Label::TagVar(n) => f(n),
    }
}

fn pragma(p: &mut PragmaKind, f: &mut impl FnMut(&mut Ident)) {
    match p {
        PragmaKind::ArtificialTag { tags: ns }
        | PragmaKind::Integer { symbols: ns, .. }
        | PragmaKind::TagIndex { nodes: ns, .. }
        | PragmaKind::TagMaxIndex { nodes: ns, .. }
        | PragmaKind::Unique { nodes: ns } => ns.iter_mut().for_each(f),
        PragmaKind::Disjoint { node, nodes } | PragmaKind::DisjointExhaustive { node, nodes } => {
            f(node);
            nodes.iter_mut().for_each(f);
        }
        PragmaKind::Iterator { a, b, c, variable } => {
            for n in [a, b, c, variable] {
                f(n);
            }
        }
        PragmaKind::Repeat { nodes, variables } => {
            nodes.iter_mut().for_each(&mut *f);
            variables.iter_mut().for_each(f);
        }
        PragmaKind::SimpleApply {
            from,
            to,
            tags,
            assignments,
        }
        | PragmaKind::SimpleApplyExhaustive {
            from,
            to,
            tags,
            assignments,
        } => {
            f(from);
            f(to);
            for t in tags {
                match t {
                    PragmaTag::Symbol(n) => f(n),
                    PragmaTag::Variable { name, ty: t } => {
                        f(name);
                        ty(t, f);
                    }
                }
            }
            for a in assignments {
                expr(&mut a.lhs, f);
                expr(&mut a.rhs, f);
            }
        }
        PragmaKind::TranslatedFromRbg | PragmaKind::Unknown { .. } => {}
    }
}

/// Every name of the game, in the order the reference numbers them: constants, edges,
/// pragmas, typedefs, variables.
fn walk(g: &mut ast::Game, f: &mut impl FnMut(&mut Ident)) {
    for c in &mut g.constants {
        f(&mut c.name);
        ty(&mut c.ty, f);
        value(&mut c.value, f);
    }
    for e in &mut g.edges {
        f(&mut e.from);
        f(&mut e.to);
        label(&mut e.label, f);
    }
    for p in &mut g.pragmas {
        pragma(&mut p.kind, f);
    }
    for t in &mut g.typedefs {
        f(&mut t.name);
        ty(&mut t.ty, f);
    }
    for v in &mut g.variables {
        f(&mut v.name);
        ty(&mut v.ty, f);
        value(&mut v.init, f);
    }
}

/// The names that keep their spelling.
fn kept(g: &Game) -> HashSet<String> {
    let wk = g.well_known();
    let mut keep: HashSet<String> = [wk.begin, wk.end, wk.goals, wk.player, wk.visible]
        .iter()
        .map(|&s| g.name(s).to_owned())
        .collect();
    for t in [
        wk.bool_type,
        wk.goals_type,
        wk.player_type,
        wk.player_or_system_type,
        wk.score_type,
        wk.visibility_type,
    ] {
        if let Some(d) = g.typedef(t) {
            keep.insert(g.name(t).to_owned());
            if let TypeData::Set(ms) = g.ty(d.ty) {
                keep.extend(ms.iter().map(|&s| g.name(s).to_owned()));
            }
        }
    }
    for (_, e) in g.edges() {
        if let rg_core::Label::TagVar(v) = e.label
            && let Some(var) = g.variable(v)
        {
            keep.extend(
                set_members(g, var.ty)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|s| g.name(s).to_owned()),
            );
        }
    }
    keep
}

fn base36(mut n: usize) -> String {
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(char::from_digit((n % 36) as u32, 36).expect("a base-36 digit"));
        n /= 36;
    }
    digits.iter().rev().collect()
}

impl Pass for MangleSymbols {
    meta!(
        "mangle_symbols",
        "rename every type, constant, variable, symbol, node and tag to a short generated name",
        Relabels,
        Final,
        Normalize
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let keep = kept(g);
        let mut ast = g.to_ast();
        let mut table: HashMap<String, String> =
            keep.iter().map(|k| (k.clone(), k.clone())).collect();
        let mut taken: HashSet<String> = keep.clone();
        walk(&mut ast, &mut |id: &mut Ident| {
            if table.contains_key(&id.name) {
                return;
            }
            let mut n = table.len() + 1;
            let mut new = format!("_{}", base36(n));
            while taken.contains(&new) {
                n += 1;
                new = format!("_{}", base36(n));
            }
            taken.insert(new.clone());
            table.insert(id.name.clone(), new);
        });
        let mut changed = false;
        walk(&mut ast, &mut |id: &mut Ident| {
            let new = &table[&id.name];
            if *new != id.name {
                changed = true;
                id.name.clone_from(new);
            }
        });
        if !changed {
            return Ok(false);
        }
        let derived: Vec<bool> = g.pragmas.iter().map(|p| p.derived).collect();
        let phase = g.phase;
        // A game rebuilt from scratch has a generation never seen before: the manager sees
        // the change.
        *g = Game::from_ast(&ast);
        g.phase = phase;
        for (i, d) in derived.into_iter().enumerate() {
            g.pragmas.update(i, |p| p.derived = d);
        }
        Ok(true)
    }
}
