//! `propagate_constants`: constant folding and propagation.
//!
//! With the knowledge of ConstantsAnalysis (`analysis::constants`) at each edge's source:
//!
//! - an expression of known value becomes that value (`T(s)` for a symbol of named type `T`,
//!   the name of a constant for a map value a constant holds); lookups in constant maps are
//!   evaluated; index parts of a left side are folded, the assigned cell stays a cell;
//! - a comparison known to hold becomes a skip; one known to fail is removed (it can never be
//!   walked, so removing it changes no walk), unless that leaves no path from `begin` to `end`;
//! - an assignment that stores the value already held becomes a skip (a cell store only when no
//!   map literal of the game has an entry equal to its default: storing the default removes such
//!   an entry, which changes the map as the interpreter compares maps: entry by entry);
//! - `$$ v` with `v` known to be `s` becomes `$ s` (the same tag);
//! - a check whose outcome is known (`analysis::checks`) becomes a skip when it holds and is
//!   removed when it fails.
//!
//! Assignments to `player` are left verbatim (passes and the interpreter recognise them
//! syntactically). A rewritten label that would not type check is left as it was.
//!
//! Why the game tree is kept: every fact holds on every walk that reaches the edge, so the new
//! label is legal exactly when the old one was and has the same effect and tags.
//!
//! Complexity: one solve of the analysis (see `dataflow`), then O(E · |label|) lookups.

use super::meta;
use crate::analysis::checks::CheckValues;
use crate::analysis::constants::{self, Constants, Facts};
use crate::analysis::values::{Known, Values};
use crate::util::{edge_ids, end_reachable_without, label_well_typed};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Ty, TypeEnv};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, Symbol, TypeData, TypeId, ValueData};

/// Known expressions are replaced by their values; comparisons known to hold become skips.
#[derive(Debug)]
pub(crate) struct PropagateConstants;

/// A folded expression, built without mutating the game.
#[derive(Clone, Debug, PartialEq)]
enum Folded {
    Same(ExprId),
    /// A bare name.
    Name(Symbol),
    /// `T(s)` with `T` a type name.
    Named(Symbol, Symbol),
    Cast(TypeId, Box<Folded>),
    Access(Box<Folded>, Box<Folded>),
}

struct Folder<'a> {
    g: &'a Game,
    env: &'a TypeEnv<'a>,
    c: &'a Constants<'a>,
    k: &'a Facts,
}

impl Folder<'_> {
    fn value(&self, e: ExprId) -> Option<Known> {
        self.c.eval(self.g, self.g.strip_casts(e), self.k)
    }

    /// The name of the type `e` is inferred to have, if it is a type name.
    fn type_name(&self, e: ExprId) -> Option<Option<Symbol>> {
        match self.env.infer(e).ok()? {
            Ty::Id(t) => Some(match self.g.ty(t) {
                TypeData::Name(n) => Some(*n),
                _ => None,
            }),
            Ty::Singleton(_) => Some(None),
        }
    }

    fn fold(&self, e: ExprId, inside_cast: bool) -> Folded {
        let values = self.c.values;
        match self.value(e) {
            Some(Known::Sym(s)) if values.is_literal(s) => {
                if inside_cast {
                    return Folded::Name(s);
                }
                match self.type_name(e) {
                    Some(Some(t)) => return Folded::Named(t, s),
                    Some(None) => return Folded::Name(s),
                    None => {}
                }
            }
            Some(m @ Known::Map(..)) => {
                if let Some(c) = values.constant_holding(m) {
                    return Folded::Name(c);
                }
            }
            _ => {}
        }
        match self.g.expr(e) {
            ExprData::Access(m, i) => {
                Folded::Access(Box::new(self.fold(m, false)), Box::new(self.fold(i, false)))
            }
            ExprData::Cast(t, x) => Folded::Cast(t, Box::new(self.fold(x, true))),
            ExprData::Ref(_) => Folded::Same(e),
        }
    }

    /// A left side: only index parts are folded; the assigned cell stays a cell.
    fn fold_lhs(&self, e: ExprId) -> Folded {
        match self.g.expr(e) {
            ExprData::Access(m, i) => {
                Folded::Access(Box::new(self.fold_lhs(m)), Box::new(self.fold(i, false)))
            }
            ExprData::Cast(t, x) => Folded::Cast(t, Box::new(self.fold_lhs(x))),
            ExprData::Ref(_) => Folded::Same(e),
        }
    }
}

fn build(g: &mut Game, f: &Folded) -> ExprId {
    match f {
        Folded::Same(e) => *e,
        Folded::Name(s) => g.expr_ref(*s),
        Folded::Named(t, s) => {
            let ty = g.type_name(*t);
            let x = g.expr_ref(*s);
            g.expr_cast(ty, x)
        }
        Folded::Cast(t, x) => {
            let x = build(g, x);
            g.expr_cast(*t, x)
        }
        Folded::Access(m, i) => {
            let m = build(g, m);
            let i = build(g, i);
            g.expr_access(m, i)
        }
    }
}

enum Rewrite {
    Skip,
    Remove,
    Tag(Symbol),
    Assign(Folded, Folded),
    AssignAny(Folded, TypeId),
    Compare(Folded, Folded, bool),
}

/// Whether no map value of the game has an entry that may equal its default (then storing a
/// cell's current value never changes a map).
fn maps_normalised(g: &Game, values: &Values) -> bool {
    (0..g.values().len()).all(|i| {
        let ValueData::Map(entries) = g.value(rg_core::ValueId(i as u32)) else {
            return true;
        };
        let Some(default) = entries.iter().find(|e| e.key.is_none()) else {
            return true;
        };
        let names_constant = |v| {
            matches!(g.value(v), ValueData::Element(s)
                if matches!(values.kind(*s), crate::analysis::values::NameKind::Constant(_)))
        };
        entries.iter().filter(|e| e.key.is_some()).all(|e| {
            e.value != default.value && !names_constant(e.value) && !names_constant(default.value)
        })
    })
}

/// The rewrite of one edge, given the knowledge at its source.
fn rewrite(
    f: &Folder<'_>,
    checks: &mut CheckValues<'_>,
    label: Label,
    player: Symbol,
    cells_safe: bool,
) -> Option<Rewrite> {
    let g = f.g;
    let values = f.c.values;
    Some(match label {
        Label::Assign { lhs, rhs } => {
            let root = g.expr_root(lhs);
            if root == player {
                return None;
            }
            let whole = matches!(g.expr(g.strip_casts(lhs)), ExprData::Ref(_));
            if (whole || cells_safe)
                && let (Some(a), Some(b)) = (f.value(lhs), f.value(rhs))
                && values.equal(a, b) == Some(true)
            {
                return Some(Rewrite::Skip);
            }
            Rewrite::Assign(f.fold_lhs(lhs), f.fold(rhs, false))
        }
        Label::AssignAny { lhs, ty } => Rewrite::AssignAny(f.fold_lhs(lhs), ty),
        Label::Compare { lhs, rhs, negated } => {
            if let (Some(a), Some(b)) = (f.value(lhs), f.value(rhs))
                && let Some(eq) = values.equal(a, b)
            {
                return Some(if eq != negated {
                    Rewrite::Skip
                } else {
                    Rewrite::Remove
                });
            }
            Rewrite::Compare(f.fold(lhs, false), f.fold(rhs, false), negated)
        }
        Label::TagVar(v) => {
            let e = g.exprs().find(&ExprData::Ref(v))?;
            match f.c.eval(g, e, f.k)? {
                Known::Sym(s) => Rewrite::Tag(s),
                Known::Map(..) => return None,
            }
        }
        Label::Reach { from, to, negated } => match checks.value(from, to)? {
            holds if holds != negated => Rewrite::Skip,
            _ => Rewrite::Remove,
        },
        Label::Skip | Label::Tag(_) => return None,
    })
}

impl Pass for PropagateConstants {
    meta!(
        "propagate_constants",
        "replace expressions of known value by that value; comparisons known to hold become skips",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let c = Constants { values: &values };
        let Some(facts) = constants::solve_facts(g, &c, cx, self.name()) else {
            return Ok(false);
        };
        let player = g.well_known().player;
        let cells_safe = maps_normalised(g, &values);
        let mut rewrites: Vec<(EdgeId, Rewrite)> = Vec::new();
        {
            let env = TypeEnv::new(g);
            let mut checks = CheckValues::new(g, &facts, &c);
            for e in edge_ids(g) {
                let d = g.edge(e);
                let Some(k) = &facts[d.from] else {
                    continue;
                };
                let f = Folder {
                    g,
                    env: &env,
                    c: &c,
                    k,
                };
                if let Some(r) = rewrite(&f, &mut checks, d.label, player, cells_safe) {
                    rewrites.push((e, r));
                }
            }
        }
        let mut new_labels: Vec<(EdgeId, Label)> = Vec::new();
        let mut removed = Vec::new();
        for (e, r) in rewrites {
            let label = match r {
                Rewrite::Remove => {
                    removed.push(e);
                    continue;
                }
                Rewrite::Skip => Label::Skip,
                Rewrite::Tag(s) => Label::Tag(s),
                Rewrite::Assign(l, r) => Label::Assign {
                    lhs: build(g, &l),
                    rhs: build(g, &r),
                },
                Rewrite::AssignAny(l, ty) => Label::AssignAny {
                    lhs: build(g, &l),
                    ty,
                },
                Rewrite::Compare(l, r, negated) => Label::Compare {
                    lhs: build(g, &l),
                    rhs: build(g, &r),
                    negated,
                },
            };
            if label != g.edge(e).label {
                new_labels.push((e, label));
            }
        }
        {
            let env = TypeEnv::new(g);
            new_labels.retain(|(_, l)| label_well_typed(&env, l));
        }
        // A game whose every way to `end` fails (improper, but valid) keeps its failing edges.
        if !removed.is_empty() && !end_reachable_without(g, &removed) {
            removed.clear();
        }
        let changed = !new_labels.is_empty() || !removed.is_empty();
        for (e, l) in new_labels {
            g.set_label(e, l);
        }
        for e in removed {
            g.remove_edge(e);
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> String {
        let mut g = test_game(text);
        PropagateConstants
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        let out = rg_core::print(&g);
        out.lines()
            .filter(|l| {
                !l.starts_with("type ") && !l.starts_with("const ") && !l.starts_with("var ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_example_of_the_spec_with_the_false_comparison_removed() {
        let out = run("type T = {p, q, r};\n\
             const nxt: T -> T = {p: q, q: r, :p};\n\
             const start: T = q;\n\
             var v: T = p;\n\
             var w: T = p;\n\
             begin, a: v = start;\n\
             a, b: w != nxt[v];\n\
             a, z: w == nxt[v];\n\
             z, end: player = keeper;\n\
             b, c: v == q;\n\
             c, d: w = T(*);\n\
             d, e: v = nxt[nxt[v]];\n\
             e, end: player = keeper;");
        assert_eq!(
            out,
            "begin, a: v = T(q);\na, b: ;\nz, end: player = keeper;\nb, c: ;\nc, d: w = T(*);\nd, e: v = T(p);\ne, end: player = keeper;"
        );
    }

    #[test]
    fn a_failing_comparison_on_every_way_to_end_stays() {
        let game = "type B = {0, 1};\n\
             var flag: B = 0;\n\
             begin, s: player = x;\n\
             s, t: flag == 1;\n\
             t, u: $ go;\n\
             u, end: player = keeper;";
        let mut g = test_game(game);
        let changed = PropagateConstants
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        assert!(!changed);
        assert!(rg_core::print(&g).contains("s, t: flag == 1;"));
        // With another way to `end`, the failing edge goes.
        let out = run(&format!("{game}\nbegin, end: player = keeper;"));
        assert!(!out.contains("s, t:"), "{out}");
    }

    #[test]
    fn a_tag_variable_of_known_value_becomes_a_tag_and_a_map_variable_a_constant() {
        let out = run("type T = {p, q};\n\
             const c: T -> T = {:q};\n\
             var v: T = p;\n\
             var m: T -> T = {:p};\n\
             begin, a: m = c;\n\
             a, b: $$ v;\n\
             b, d: v = m[v];\n\
             d, end: player = keeper;");
        assert_eq!(
            out,
            "begin, a: m = c;\na, b: $ p;\nb, d: v = T(q);\nd, end: player = keeper;"
        );
    }

    #[test]
    fn a_cell_store_of_the_default_is_kept_when_a_literal_has_a_redundant_entry() {
        let text = "type T = {p, q};\n\
             var m: T -> T = {p: p, :p};\n\
             begin, a: m[p] = p;\n\
             a, end: player = keeper;";
        assert_eq!(run(text), "begin, a: m[p] = p;\na, end: player = keeper;");
        let normal = text.replace("{p: p, :p}", "{q: q, :p}");
        assert_eq!(run(&normal), "begin, a: ;\na, end: player = keeper;");
    }
}
