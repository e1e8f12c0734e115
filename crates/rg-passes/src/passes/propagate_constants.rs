//! passes.md §3.6 propagate_constants, on the optimistic ConstantsAnalysis (see `dataflow`).
//!
//! Beyond the reference: index parts of a left side are folded too (`board[i] = x` with `i`
//! known becomes `board[T(c)] = x`), a variable known to hold a map constant is replaced by the
//! constant's name, and a comparison known to be false removes its edge (it can never be
//! walked; passes.md §3.6 allows this as an extension).

use super::meta;
use crate::dataflow::{Constants, Knowledge, Known, solve};
use crate::util::edge_ids;
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
    Sym(Symbol),
    /// `T(s)` with `T` a type name.
    Named(Symbol, Symbol),
    Cast(TypeId, Box<Folded>),
    Access(Box<Folded>, Box<Folded>),
}

struct Folder<'a> {
    g: &'a Game,
    env: &'a TypeEnv<'a>,
    c: &'a Constants,
    k: &'a Knowledge,
}

impl Folder<'_> {
    /// The symbol `e` is known to evaluate to, or the name of the map constant it holds.
    fn known(&self, e: ExprId) -> Option<Result<Symbol, Symbol>> {
        let v = self.c.eval(self.g, e, self.k)?;
        if let Some(s) = self.c.as_symbol(self.g, v) {
            return Some(Ok(s));
        }
        // A chain of element constants ending at a map constant: that constant's name.
        let mut k = v;
        let mut last = None;
        for _ in 0..64 {
            match k {
                Known::Symbol(s) => {
                    last = Some(s);
                    k = Known::Value(self.g.constant(s)?.value);
                }
                Known::Value(id) => match self.g.value(id) {
                    ValueData::Element(s) => k = Known::Symbol(*s),
                    ValueData::Map(_) => return last.map(Err),
                },
            }
        }
        None
    }

    /// The named type `e` is inferred to have, if any.
    fn named_type(&self, e: ExprId) -> Option<Symbol> {
        match self.env.infer(e).ok()? {
            Ty::Id(t) => match self.g.ty(t) {
                TypeData::Name(n) => Some(*n),
                _ => None,
            },
            Ty::Singleton(_) => None,
        }
    }

    fn fold(&self, e: ExprId, inside_cast: bool) -> Folded {
        match self.known(e) {
            Some(Ok(s)) => {
                if inside_cast {
                    return Folded::Sym(s);
                }
                if let Some(t) = self.named_type(e) {
                    return Folded::Named(t, s);
                }
            }
            Some(Err(c)) if self.g.expr(self.g.strip_casts(e)) != ExprData::Ref(c) => {
                return Folded::Sym(c);
            }
            _ => {}
        }
        match self.g.expr(e) {
            ExprData::Access(m, i) => Folded::Access(
                Box::new(self.fold(m, false)),
                Box::new(self.fold(i, false)),
            ),
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

    /// The symbol a comparison side is known to be.
    fn side(&self, e: ExprId) -> Option<Known> {
        self.c.eval(self.g, e, self.k)
    }
}

fn build(g: &mut Game, f: &Folded) -> ExprId {
    match f {
        Folded::Same(e) => *e,
        Folded::Sym(s) => g.expr_ref(*s),
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
    Assign(Folded, Folded),
    AssignAny(Folded, TypeId),
    Compare(Folded, Folded, bool),
}

impl Pass for PropagateConstants {
    meta!(
        "propagate_constants",
        "replace expressions of known value by that value; comparisons known to hold become skips",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let c = Constants::new(g);
        let facts = solve(g, &c);
        let player = g.well_known().player;
        let mut rewrites: Vec<(EdgeId, Rewrite)> = Vec::new();
        {
            let env = TypeEnv::new(g);
            for e in edge_ids(g) {
                let d = g.edge(e);
                let Some(k) = &facts[d.from.0 as usize] else {
                    continue;
                };
                let f = Folder {
                    g,
                    env: &env,
                    c: &c,
                    k,
                };
                match d.label {
                    Label::Assign { lhs, rhs } => {
                        if g.expr_root(lhs) == player {
                            continue;
                        }
                        let r = f.fold(rhs, false);
                        let l_value = f.fold(lhs, false);
                        if l_value == r
                            || materialised(g, &l_value).is_some_and(|x| Some(x) == materialised(g, &r))
                        {
                            rewrites.push((e, Rewrite::Skip));
                            continue;
                        }
                        rewrites.push((e, Rewrite::Assign(f.fold_lhs(lhs), r)));
                    }
                    Label::AssignAny { lhs, ty } => {
                        rewrites.push((e, Rewrite::AssignAny(f.fold_lhs(lhs), ty)));
                    }
                    Label::Compare { lhs, rhs, negated } => {
                        let (a, b) = (f.side(lhs), f.side(rhs));
                        if let (Some(a), Some(b)) = (a, b)
                            && let Some(equal) = same_value(g, &c, a, b)
                        {
                            rewrites.push((
                                e,
                                if equal != negated {
                                    Rewrite::Skip
                                } else {
                                    Rewrite::Remove
                                },
                            ));
                            continue;
                        }
                        rewrites.push((
                            e,
                            Rewrite::Compare(f.fold(lhs, false), f.fold(rhs, false), negated),
                        ));
                    }
                    _ => {}
                }
            }
        }
        let mut changed = false;
        for (e, r) in rewrites {
            let old = g.edge(e).label;
            let new = match r {
                Rewrite::Remove => {
                    g.remove_edge(e);
                    changed = true;
                    continue;
                }
                Rewrite::Skip => Label::Skip,
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
            if new != old {
                g.set_label(e, new);
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// The expression a folded tree denotes, when it exists already (no new expressions needed).
fn materialised(g: &Game, f: &Folded) -> Option<ExprId> {
    match f {
        Folded::Same(e) => Some(*e),
        Folded::Sym(s) => g.exprs().find(&ExprData::Ref(*s)),
        Folded::Named(t, s) => {
            let ty = g.types().find(&TypeData::Name(*t))?;
            let x = g.exprs().find(&ExprData::Ref(*s))?;
            g.exprs().find(&ExprData::Cast(ty, x))
        }
        Folded::Cast(t, x) => {
            let x = materialised(g, x)?;
            g.exprs().find(&ExprData::Cast(*t, x))
        }
        Folded::Access(m, i) => {
            let (m, i) = (materialised(g, m)?, materialised(g, i)?);
            g.exprs().find(&ExprData::Access(m, i))
        }
    }
}

/// Whether two known values are equal: decided for symbols, and for identical maps.
fn same_value(g: &Game, c: &Constants, a: Known, b: Known) -> Option<bool> {
    match (c.as_symbol(g, a), c.as_symbol(g, b)) {
        (Some(x), Some(y)) => Some(x == y),
        (None, None) if c.deref(g, a) == c.deref(g, b) => Some(true),
        _ => None,
    }
}
