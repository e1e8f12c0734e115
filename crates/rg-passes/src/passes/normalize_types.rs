//! `normalize_types`: arrow types appear only in type definitions and are at most
//! one level deep; every constant and variable has a named type (what a compiler that turns
//! every named type into a type of its own needs).
//!
//! `named(t)` is `t` if it is a name; otherwise the first definition strictly equal to
//! `shallow(t)` (names resolved, sets compared as sets), or a new `type TypeN = shallow(t);`
//! (smallest unused N). `shallow(A -> B)` is `named(A) -> named(B)`, other types stay. The pass
//! applies `shallow` to every definition (a set type stays inline in its own definition), then
//! `named` to the type of every constant and variable.
//!
//! ```text
//! before:  type Pos = { p1, p2 };  var board: Pos -> Pos -> Bool = { :{ :0 } };
//! after:   type Type1 = Pos -> Bool;  type Type2 = Pos -> Type1;
//!          var board: Type2 = { :{ :0 } };
//! ```
//!
//! Game tree: unchanged — only names for existing types are introduced, every type denotes the
//! same set of values. Complexity: linear in the size of the declarations (definitions are
//! found through a hash of their resolved structure).

use super::meta;
use crate::analysis::type_keys::TypeKeys;
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Spans, Symbol, TypeData, TypeId};

#[derive(Debug)]
pub(crate) struct NormalizeTypes;

struct Namer {
    keys: TypeKeys,
    next: usize,
}

impl Namer {
    fn named(&mut self, g: &mut Game, t: TypeId) -> TypeId {
        if matches!(g.ty(t), TypeData::Name(_)) {
            return t;
        }
        let t = self.shallow(g, t);
        let Some(key) = self.keys.key(g, t) else {
            return t; // an unresolvable type (the validators reject it); leave it alone
        };
        if let Some(name) = self.keys.named(&key) {
            return g.type_name(name);
        }
        let name = self.fresh(g);
        self.keys.define(g, name, t, key);
        g.type_name(name)
    }

    fn shallow(&mut self, g: &mut Game, t: TypeId) -> TypeId {
        match *g.ty(t) {
            TypeData::Arrow(a, b) => {
                let a = self.named(g, a);
                let b = self.named(g, b);
                g.type_arrow(a, b)
            }
            _ => t,
        }
    }

    fn fresh(&mut self, g: &mut Game) -> Symbol {
        loop {
            self.next += 1;
            let s = g.sym(&format!("Type{}", self.next));
            if !self.keys.is_defined(s) {
                return s;
            }
        }
    }
}

/// Gives a declaration the type `t`; whether that changed it.
fn retype(ty: &mut TypeId, spans: &mut Spans, t: TypeId) -> bool {
    if *ty == t {
        return false;
    }
    *ty = t;
    *spans = Spans::whole(spans.whole); // the part spans describe the old type
    true
}

impl Pass for NormalizeTypes {
    meta!(
        "normalize_types",
        "give every constant and variable a named type and flatten arrow types into named parts",
        Safe,
        Loop,
        Normalize
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut namer = Namer {
            keys: TypeKeys::new(g),
            next: 0,
        };
        let mut changed = false;
        // Definitions appended on the way are shallow already.
        for i in 0..g.typedefs.len() {
            let t = namer.shallow(g, g.typedefs[i].ty);
            changed |= g.typedefs.update(i, |d| {
                retype(&mut d.ty, &mut d.spans, t);
            });
        }
        for i in 0..g.constants.len() {
            let t = namer.named(g, g.constants[i].ty);
            changed |= g.constants.update(i, |d| {
                retype(&mut d.ty, &mut d.spans, t);
            });
        }
        for i in 0..g.variables.len() {
            let t = namer.named(g, g.variables[i].ty);
            changed |= g.variables.update(i, |d| {
                retype(&mut d.ty, &mut d.spans, t);
            });
        }
        Ok(changed)
    }
}
