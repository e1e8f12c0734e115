//! Types up to strict equality (what `normalize_types` shares definitions by): type names resolved,
//! set types compared as sets of symbols, arrows component-wise. Used to find "the first type
//! definition strictly equal to" a type (normalize_types, add_explicit_casts).

use rg_core::{Game, Symbol, TypeData, TypeId, Typedef};
use std::collections::HashMap;

/// A resolved type: what strict equality compares.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TypeKey {
    /// The members, sorted and without duplicates.
    Set(Vec<Symbol>),
    Arrow(Box<TypeKey>, Box<TypeKey>),
}

/// The first type definition of every key and of every name, kept up to date as definitions
/// are appended.
#[derive(Debug, Default)]
pub(crate) struct TypeKeys {
    /// name ↦ type of its first definition.
    defs: HashMap<Symbol, TypeId>,
    /// key ↦ name of the first definition with that key.
    first: HashMap<TypeKey, Symbol>,
}

impl TypeKeys {
    /// The keys of the definitions of `g`.
    pub(crate) fn new(g: &Game) -> Self {
        let mut keys = TypeKeys::default();
        for t in &g.typedefs {
            keys.defs.entry(t.name).or_insert(t.ty);
        }
        for t in &g.typedefs {
            if let Some(k) = keys.key(g, t.ty) {
                keys.first.entry(k).or_insert(t.name);
            }
        }
        keys
    }

    /// The key of `t`, or `None` when a name cannot be resolved (or the definitions are cyclic).
    pub(crate) fn key(&self, g: &Game, t: TypeId) -> Option<TypeKey> {
        self.key_at(g, t, 0)
    }

    fn key_at(&self, g: &Game, t: TypeId, depth: usize) -> Option<TypeKey> {
        if depth > self.defs.len() + 64 {
            return None;
        }
        match g.ty(t) {
            TypeData::Name(n) => self.key_at(g, *self.defs.get(n)?, depth + 1),
            TypeData::Set(ms) => {
                let mut ms = ms.to_vec();
                ms.sort_unstable();
                ms.dedup();
                Some(TypeKey::Set(ms))
            }
            TypeData::Arrow(k, v) => Some(TypeKey::Arrow(
                Box::new(self.key_at(g, *k, depth + 1)?),
                Box::new(self.key_at(g, *v, depth + 1)?),
            )),
        }
    }

    /// The name of the first definition strictly equal to `t`.
    pub(crate) fn definition_of(&self, g: &Game, t: TypeId) -> Option<Symbol> {
        self.named(&self.key(g, t)?)
    }

    /// The name of the first definition with key `k`.
    pub(crate) fn named(&self, k: &TypeKey) -> Option<Symbol> {
        self.first.get(k).copied()
    }

    /// Appends `type name = ty;` to `g` and records it.
    pub(crate) fn define(&mut self, g: &mut Game, name: Symbol, ty: TypeId, key: TypeKey) {
        g.typedefs.push(Typedef {
            name,
            ty,
            spans: Default::default(),
        });
        self.defs.entry(name).or_insert(ty);
        self.first.entry(key).or_insert(name);
    }

    /// Whether `name` is defined.
    pub(crate) fn is_defined(&self, name: Symbol) -> bool {
        self.defs.contains_key(&name)
    }
}
