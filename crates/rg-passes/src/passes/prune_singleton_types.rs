//! `prune_singleton_types`: a variable whose type has a single symbol is a
//! constant in disguise; it is replaced by that symbol, and one-symbol type definitions that
//! nothing needs are deleted.
//!
//! * *Singleton variables*: variables (other than `player`, `goals`, `visible`) whose declared
//!   type resolves to a set with one distinct symbol `s`, where `s` is not also the name of a
//!   variable or constant (a bare `s` must read as the symbol).
//! * *Candidate types*: definitions `type T = { s };` whose name is not `Player` or `Score`, is
//!   defined once, and is not mentioned by the type of a constant, another type definition, a
//!   variable other than through `var x: T` itself, or a pragma; again `s` must not be a declared
//!   name.
//!
//! Rewrite: an assignment or any-assignment to a singleton variable becomes a skip; every read of
//! it becomes `s`; `$$ v` becomes `$ s`; casts to a candidate type are dropped (`T(e)` → `e`);
//! `x = T(*)` with `T` a candidate becomes `x = s`; the singleton variables and exactly the
//! candidate types (by name: defect D11 fixed) are deleted. Any-assignments and variable tags are
//! rewritten too (defect D10 fixed), so the result always validates. Pragmas that name a deleted
//! variable are dropped (`@repeat` just loses it from its list).
//!
//! Why the game tree is kept: in a proper game a location only ever holds values of its type, so
//! a singleton variable always holds `s` — a write can only write `s` again and a read yields `s`;
//! `$$ v` shows `s`. A cast does not change a value. `T(*)` over `{ s }` has one outcome, `s`.
//!
//! Complexity: O(size of the game).

use super::meta;
use crate::util::edge_ids;
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{ExprData, ExprId, Game, Label, PragmaKind, PragmaTag, Symbol, TypeData, TypeId};
use std::collections::{HashMap, HashSet};

#[derive(Debug)]
pub(crate) struct PruneSingletonTypes;

/// Calls `f` on every type name inside `t`.
fn type_names(g: &Game, t: TypeId, f: &mut impl FnMut(Symbol)) {
    match g.ty(t) {
        TypeData::Name(n) => f(*n),
        TypeData::Arrow(a, b) => {
            let (a, b) = (*a, *b);
            type_names(g, a, f);
            type_names(g, b, f);
        }
        TypeData::Set(_) => {}
    }
}

/// The only symbol of a set type with one distinct member.
fn single_member(members: &[Symbol]) -> Option<Symbol> {
    let first = *members.first()?;
    members.iter().all(|&m| m == first).then_some(first)
}

/// What the pass found.
struct Plan {
    /// Singleton variable ↦ its symbol.
    vars: HashMap<Symbol, Symbol>,
    /// Candidate type name ↦ its symbol.
    types: HashMap<Symbol, Symbol>,
}

fn plan(g: &Game) -> Plan {
    let wk = *g.well_known();
    let env = TypeEnv::new(g);
    let declared = |s: Symbol| g.variable(s).is_some() || g.constant(s).is_some();
    let mut used: HashSet<Symbol> = [wk.player_type, wk.score_type].into_iter().collect();
    for c in &g.constants {
        type_names(g, c.ty, &mut |n| {
            used.insert(n);
        });
    }
    for t in &g.typedefs {
        type_names(g, t.ty, &mut |n| {
            used.insert(n);
        });
    }
    for v in &g.variables {
        if !matches!(g.ty(v.ty), TypeData::Name(_)) {
            type_names(g, v.ty, &mut |n| {
                used.insert(n);
            });
        }
    }
    for p in &g.pragmas {
        if let PragmaKind::SimpleApply { tags, .. } = &p.kind {
            for t in tags {
                if let PragmaTag::Variable(_, ty) = t {
                    type_names(g, *ty, &mut |n| {
                        used.insert(n);
                    });
                }
            }
        }
    }
    let mut defined: HashMap<Symbol, usize> = HashMap::new();
    for t in &g.typedefs {
        *defined.entry(t.name).or_default() += 1;
    }
    let types = g
        .typedefs
        .iter()
        .filter(|t| !used.contains(&t.name) && defined[&t.name] == 1)
        .filter_map(|t| match g.ty(t.ty) {
            TypeData::Set(ms) => single_member(ms).map(|s| (t.name, s)),
            _ => None,
        })
        .filter(|&(_, s)| !declared(s))
        .collect();
    let vars = g
        .variables
        .iter()
        .filter(|v| ![wk.player, wk.goals, wk.visible].contains(&v.name))
        .filter_map(|v| match env.resolve(v.ty) {
            Ok(Resolved::Set(ms)) => single_member(ms.as_slice()).map(|s| (v.name, s)),
            _ => None,
        })
        .filter(|&(_, s)| !declared(s))
        .collect();
    Plan { vars, types }
}

impl Plan {
    /// `e` with singleton variables replaced by their symbols and candidate casts dropped.
    fn rewrite(&self, g: &mut Game, e: ExprId) -> ExprId {
        match g.expr(e) {
            ExprData::Ref(s) => match self.vars.get(&s) {
                Some(&sym) => g.expr_ref(sym),
                None => e,
            },
            ExprData::Cast(t, x) => {
                let x2 = self.rewrite(g, x);
                match g.ty(t) {
                    TypeData::Name(n) if self.types.contains_key(n) => x2,
                    _ if x2 == x => e,
                    _ => g.expr_cast(t, x2),
                }
            }
            ExprData::Access(m, i) => {
                let (m2, i2) = (self.rewrite(g, m), self.rewrite(g, i));
                if (m2, i2) == (m, i) {
                    e
                } else {
                    g.expr_access(m2, i2)
                }
            }
        }
    }

    /// Whether `e` reads a singleton variable or casts to a candidate type.
    fn mentions(&self, g: &Game, e: ExprId) -> bool {
        match g.expr(e) {
            ExprData::Ref(s) => self.vars.contains_key(&s),
            ExprData::Cast(t, x) => {
                matches!(g.ty(t), TypeData::Name(n) if self.types.contains_key(n))
                    || self.mentions(g, x)
            }
            ExprData::Access(m, i) => self.mentions(g, m) || self.mentions(g, i),
        }
    }

    /// Whether `lhs` is exactly a singleton variable (casts aside).
    fn writes_singleton(&self, g: &Game, lhs: ExprId) -> bool {
        matches!(g.expr(g.strip_casts(lhs)), ExprData::Ref(v) if self.vars.contains_key(&v))
    }

    fn label(&self, g: &mut Game, label: Label) -> Label {
        match label {
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
                if self.writes_singleton(g, lhs) =>
            {
                Label::Skip
            }
            Label::Assign { lhs, rhs } => Label::Assign {
                lhs: self.rewrite(g, lhs),
                rhs: self.rewrite(g, rhs),
            },
            Label::AssignAny { lhs, ty } => {
                let lhs = self.rewrite(g, lhs);
                match g.ty(ty) {
                    TypeData::Name(n) if self.types.contains_key(n) => {
                        let s = self.types[n];
                        Label::Assign {
                            lhs,
                            rhs: g.expr_ref(s),
                        }
                    }
                    _ => Label::AssignAny { lhs, ty },
                }
            }
            Label::Compare { lhs, rhs, negated } => Label::Compare {
                lhs: self.rewrite(g, lhs),
                rhs: self.rewrite(g, rhs),
                negated,
            },
            Label::TagVar(v) if self.vars.contains_key(&v) => Label::Tag(self.vars[&v]),
            other => other,
        }
    }
}

impl Pass for PruneSingletonTypes {
    meta!(
        "prune_singleton_types",
        "variables of one-symbol types become that symbol; unneeded one-symbol types are deleted",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let plan = plan(g);
        if plan.vars.is_empty() && plan.types.is_empty() {
            return Ok(false);
        }
        for e in edge_ids(g) {
            let l = plan.label(g, g.edge(e).label);
            g.set_label(e, l);
        }
        g.variables.retain(|v| !plan.vars.contains_key(&v.name));
        g.typedefs.retain(|t| !plan.types.contains_key(&t.name));
        let mut pragmas = g.pragmas.to_vec();
        let g_ref: &Game = g;
        pragmas.retain_mut(|p| match &mut p.kind {
            PragmaKind::Repeat { variables, .. } => {
                variables.retain(|v| !plan.vars.contains_key(v));
                true
            }
            PragmaKind::Iterator { variable, .. } => !plan.vars.contains_key(variable),
            PragmaKind::SimpleApply { assignments, .. } => !assignments
                .iter()
                .any(|&(l, r)| plan.mentions(g_ref, l) || plan.mentions(g_ref, r)),
            _ => true,
        });
        g.pragmas.replace(pragmas);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::PruneSingletonTypes;
    use crate::testing::{edges, run};

    #[test]
    fn a_singleton_variable_becomes_its_symbol() {
        // The reference's example.
        let text = "type One = { solo };\nvar s: One = solo;\nbegin, a: s == solo;\n\
                    a, end: player = keeper;\n";
        let (_, after, changed, _) = run(&PruneSingletonTypes, text);
        assert!(changed);
        assert_eq!(edges(&after)[0], "begin, a: solo == solo;");
        assert!(after.variables.iter().all(|v| after.name(v.name) != "s"));
        assert!(after.typedefs.iter().all(|t| after.name(t.name) != "One"));
    }

    #[test]
    fn any_assignments_and_variable_tags_are_rewritten() {
        // Defect D10: the reference leaves `s = One(*)` and `$$ s` behind and the game is invalid.
        let text = "type One = { solo };\nvar s: One = solo;\nbegin, a: player = x;\n\
                    a, b: s = One(*);\nb, c: $$ s;\nc, end: player = keeper;\n";
        let (_, after, _, _) = run(&PruneSingletonTypes, text);
        let e = edges(&after);
        assert_eq!(e[1..3], ["a, b: ;", "b, c: $ solo;"], "{e:?}");
    }

    #[test]
    fn only_the_candidate_names_are_deleted() {
        // Defect D11: `T` and `U` are both `{ a }`; `T` is needed by the constant `k`.
        let text = "type T = { a };\ntype U = { a };\ntype V = { a, b };\nconst k: V -> T = { :a };\n\
                    var s: U = a;\nbegin, c: k[s] == a;\nc, end: player = keeper;\n";
        let (_, after, _, _) = run(&PruneSingletonTypes, text);
        let names: Vec<&str> = after.typedefs.iter().map(|t| after.name(t.name)).collect();
        assert!(names.contains(&"T") && !names.contains(&"U"), "{names:?}");
        assert_eq!(edges(&after)[0], "begin, c: k[a] == a;");
    }
}
