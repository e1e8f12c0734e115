//! The per-game symbol interner.

use crate::ids::EntityId;
use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

crate::entity_id! {
    /// An interned name (type, constant, variable, node, tag or element name) of one game.
    pub struct Symbol, "s";
}

/// Interns every name of one game. Owned by the game (not global), so games are self-contained,
/// can be converted in parallel without locks, and symbol numbering is deterministic.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    /// Symbols are numbered in insertion order (the hasher only speeds look-ups: a large
    /// translation interns millions of node names, and SipHash was a visible share of it).
    set: IndexSet<Box<str>, FxBuildHasher>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol for `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> Symbol {
        if let Some(i) = self.set.get_index_of(name) {
            return Symbol::new(i);
        }
        Symbol::new(self.set.insert_full(name.into()).0)
    }

    /// The symbol for `name` if it was interned.
    pub fn get(&self, name: &str) -> Option<Symbol> {
        self.set.get_index_of(name).map(Symbol::new)
    }

    /// The text of a symbol. Panics on a symbol of another interner that is out of range.
    pub fn resolve(&self, sym: Symbol) -> &str {
        &self.set[sym.index()]
    }

    /// The text of a symbol, or `None` if out of range.
    pub fn try_resolve(&self, sym: Symbol) -> Option<&str> {
        self.set.get_index(sym.index()).map(|s| &**s)
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether no symbol was interned.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}
