//! `add_explicit_casts`: every assignment and comparison gets explicit casts to
//! named types, for backends that need the type of every sub-expression spelled out.
//!
//! For a label whose left side's type is strictly equal to a type definition `T` (the first
//! one), both sides become `cast(e, T)`: in an access `m[i]`, `m` is cast to the definition
//! equal to its type and `i` to the definition equal to the key type (each only if one exists);
//! inside a cast `U(x)` only `x` is rewritten; and the whole is wrapped in `T(…)` unless it
//! already is. Running the pass again changes nothing.
//!
//! In `rgt` it runs once, after the fixed-point loop (the reference runs it inside the loop):
//! propagate_constants folds casts away, so in the loop the two undid each other until the
//! iteration limit (`rgt opt -O2 --pass add-explicit-casts` took 10 000 iterations).
//!
//! Game tree: unchanged — casts are erased at run time (the interpreter never checks them) and a
//! cast to a type equal to the expression's own type always type checks. Complexity: linear in the
//! size of the labels.
//!
//! ```text
//! before:  type Cell = { e, w };  type Pos = { p1, p2 };  type Board = Pos -> Cell;
//!          var board: Board = { :e };  var at: Pos = p1;
//!          a, b: board[at] = w;
//! after:   a, b: Cell(Board(board)[Pos(at)]) = Cell(w);
//! ```
//! (the map is cast to the definition equal to its type, the index to the one equal to its key
//! type, and both sides to the left side's type `Cell`.)

use super::meta;
use crate::analysis::type_keys::TypeKeys;
use crate::util::edge_ids;
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, Ty, TypeEnv};
use rg_core::{ExprData, ExprId, Game, Label, Symbol};

#[derive(Debug)]
pub(crate) struct AddExplicitCasts;

/// An expression to intern: types are names of definitions.
enum Tree {
    Keep(ExprId),
    /// A new cast to a definition.
    Cast(Symbol, Box<Tree>),
    /// An existing cast around a rewritten expression.
    Recast(rg_core::TypeId, Box<Tree>),
    Access(Box<Tree>, Box<Tree>),
}

struct Caster<'g> {
    env: TypeEnv<'g>,
    keys: &'g TypeKeys,
}

impl Caster<'_> {
    fn definition_of(&self, t: Ty) -> Option<Symbol> {
        match t {
            Ty::Id(id) => self.keys.definition_of(self.env.game(), id),
            Ty::Singleton(s) => self
                .keys
                .named(&crate::analysis::type_keys::TypeKey::Set(vec![s])),
        }
    }

    /// `cast(e, t)`: `e` rewritten inside, then wrapped in `t(…)` unless it already is.
    fn cast(&self, e: ExprId, t: Symbol) -> Tree {
        let g = self.env.game();
        let inner = self.inner(e);
        match g.expr(e) {
            ExprData::Cast(u, _) if *g.ty(u) == rg_core::TypeData::Name(t) => inner,
            _ => Tree::Cast(t, Box::new(inner)),
        }
    }

    fn cast_opt(&self, e: ExprId, t: Option<Symbol>) -> Tree {
        match t {
            Some(t) => self.cast(e, t),
            None => Tree::Keep(e),
        }
    }

    fn inner(&self, e: ExprId) -> Tree {
        let g = self.env.game();
        match g.expr(e) {
            ExprData::Ref(_) => Tree::Keep(e),
            ExprData::Cast(u, x) => match self.inner(x) {
                Tree::Keep(_) => Tree::Keep(e),
                x => Tree::Recast(u, Box::new(x)),
            },
            ExprData::Access(m, i) => {
                let mt = self.env.infer(m).ok();
                let key = mt.and_then(|mt| match self.env.resolve_ty(mt) {
                    Ok(Resolved::Arrow(k, _)) => self.keys.definition_of(g, k),
                    _ => None,
                });
                Tree::Access(
                    Box::new(self.cast_opt(m, mt.and_then(|t| self.definition_of(t)))),
                    Box::new(self.cast_opt(i, key)),
                )
            }
        }
    }
}

fn intern(g: &mut Game, t: Tree) -> ExprId {
    match t {
        Tree::Keep(e) => e,
        Tree::Cast(ty, x) => {
            let x = intern(g, *x);
            let ty = g.type_name(ty);
            g.expr_cast(ty, x)
        }
        Tree::Recast(ty, x) => {
            let x = intern(g, *x);
            g.expr_cast(ty, x)
        }
        Tree::Access(m, i) => {
            let m = intern(g, *m);
            let i = intern(g, *i);
            g.expr_access(m, i)
        }
    }
}

impl Pass for AddExplicitCasts {
    meta!(
        "add_explicit_casts",
        "cast both sides of every assignment and comparison (and map accesses inside) to named types",
        Safe,
        Final,
        Normalize
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let keys = TypeKeys::new(g);
        let mut rewrites: Vec<(rg_core::EdgeId, Tree, Tree)> = Vec::new();
        {
            let c = Caster {
                env: TypeEnv::new(g),
                keys: &keys,
            };
            for e in edge_ids(g) {
                let (Label::Assign { lhs, rhs } | Label::Compare { lhs, rhs, .. }) =
                    g.edge(e).label
                else {
                    continue;
                };
                let Some(t) = c.env.infer(lhs).ok().and_then(|t| c.definition_of(t)) else {
                    continue;
                };
                rewrites.push((e, c.cast(lhs, t), c.cast(rhs, t)));
            }
        }
        let mut changed = false;
        for (e, l, r) in rewrites {
            let (l, r) = (intern(g, l), intern(g, r));
            let label = match g.edge(e).label {
                Label::Assign { .. } => Label::Assign { lhs: l, rhs: r },
                Label::Compare { negated, .. } => Label::Compare {
                    lhs: l,
                    rhs: r,
                    negated,
                },
                other => other,
            };
            if label != g.edge(e).label {
                changed = true;
                g.set_label(e, label);
            }
        }
        Ok(changed)
    }
}
