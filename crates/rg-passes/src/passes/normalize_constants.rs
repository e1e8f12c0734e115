//! `normalize_constants`: map literals appear only at the top level of constant
//! definitions; nested maps and map initial values of variables become references to constants.
//!
//! `hoist(value, type, top)`: for a map whose type resolves to `K -> V`, every entry value is
//! hoisted first (type `V`, not top); then, unless top, the map is replaced by the name of an
//! earlier constant with the same type and value, or by a new `const Hoisted_N: type = map;`.
//! Constants are processed in order, top, and a new constant goes right before the constant
//! being processed; variables' initial values are never top and new constants are appended.
//!
//! Game tree: unchanged — a constant name in a value denotes (a copy of) the value of a constant
//! declared before it (a constant sees only the constants above it), and every new name is declared
//! before its first use. New names are ones that occur nowhere in the game, so no existing name
//! changes its meaning. Complexity: linear in the size of the values (equal constants are found by
//! hash).

use super::meta;
use crate::{Pass, PassContext, PassError};
use rg_core::{Constant, Game, MapEntry, Symbol, TypeData, TypeId, ValueData, ValueId};
use std::collections::HashMap;

#[derive(Debug)]
pub(crate) struct NormalizeConstants;

struct Hoister {
    /// First definition of every type name.
    defs: HashMap<Symbol, TypeId>,
    /// (type, value) ↦ a constant declared so far with exactly that type and value.
    known: HashMap<(TypeId, ValueId), Symbol>,
    /// Constants created while processing the current declaration.
    created: Vec<Constant>,
    next: usize,
}

impl Hoister {
    /// The value type of the arrow `t` resolves to.
    fn value_type(&self, g: &Game, mut t: TypeId) -> Option<TypeId> {
        for _ in 0..=self.defs.len() {
            match g.ty(t) {
                TypeData::Name(n) => t = *self.defs.get(n)?,
                TypeData::Arrow(_, v) => return Some(*v),
                TypeData::Set(_) => return None,
            }
        }
        None
    }

    fn hoist(&mut self, g: &mut Game, v: ValueId, ty: TypeId, top: bool) -> ValueId {
        let ValueData::Map(entries) = g.value(v).clone() else {
            return v;
        };
        let Some(vt) = self.value_type(g, ty) else {
            return v;
        };
        let entries: Vec<MapEntry> = entries
            .iter()
            .map(|e| MapEntry {
                key: e.key,
                value: self.hoist(g, e.value, vt, false),
            })
            .collect();
        let map = g.value_map(entries);
        if top {
            return map;
        }
        let name = match self.known.get(&(ty, map)) {
            Some(&name) => name,
            None => {
                let name = self.fresh(g);
                self.created.push(Constant {
                    name,
                    ty,
                    value: map,
                    spans: Default::default(),
                });
                self.known.insert((ty, map), name);
                name
            }
        };
        g.value_elem(name)
    }

    /// `Hoisted_N` for the smallest N whose name occurs nowhere in the game yet.
    fn fresh(&mut self, g: &mut Game) -> Symbol {
        loop {
            self.next += 1;
            let name = format!("Hoisted_{}", self.next);
            if g.find_sym(&name).is_none() {
                return g.sym(&name);
            }
        }
    }
}

impl Pass for NormalizeConstants {
    meta!(
        "normalize_constants",
        "move nested map values and map initial values of variables into constants of their own",
        Safe,
        Loop,
        Normalize
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut h = Hoister {
            defs: HashMap::new(),
            known: HashMap::new(),
            created: Vec::new(),
            next: 0,
        };
        for t in &g.typedefs {
            h.defs.entry(t.name).or_insert(t.ty);
        }
        let mut changed = false;
        let mut constants = Vec::with_capacity(g.constants.len());
        // hoist interns into `g`, so the loop runs over a copy of the list.
        let old = g.constants.to_vec();
        for mut c in old {
            let v = h.hoist(g, c.value, c.ty, true);
            if v != c.value {
                changed = true;
                c.value = v;
                c.spans = rg_core::Spans::whole(c.spans.whole);
            }
            constants.append(&mut h.created);
            h.known.entry((c.ty, c.value)).or_insert(c.name);
            constants.push(c);
        }
        g.constants.replace(constants);
        for i in 0..g.variables.len() {
            let (init, ty) = (g.variables[i].init, g.variables[i].ty);
            let v = h.hoist(g, init, ty, false);
            if v != init {
                changed = true;
                g.variables.update(i, |var| {
                    var.init = v;
                    var.spans = rg_core::Spans::whole(var.spans.whole);
                });
            }
        }
        g.constants.extend(std::mem::take(&mut h.created));
        Ok(changed)
    }
}
