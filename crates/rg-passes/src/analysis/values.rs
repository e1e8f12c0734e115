//! Name resolution and the values of constants, as the interpreter sees them (casts are erased
//! at run time), for the passes that evaluate expressions at compile time.
//!
//! A name in an edge label denotes `goals`, `player` or `visible`; else the constant of that
//! name; else the variable; else it is a literal symbol. Inside a declared value a name denotes
//! a constant only if that constant is visible there: for a constant, the constants declared
//! before it; for a variable's initial value, every constant. A map value is therefore known
//! together with its *context* (how many constants its names may refer to), unless no name
//! inside it is a constant at all, in which case the context is irrelevant.

use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{EntityId, ExprData, Game, Label, Symbol, ValueData, ValueId};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::collections::HashSet;

/// What a name in an edge label denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameKind {
    Variable,
    /// The constant at this index of the constant list.
    Constant(usize),
    Symbol,
}

/// A value known at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Known {
    /// A symbol.
    Sym(Symbol),
    /// A map value and the number of constants visible to the names inside it
    /// ([`CONTEXT_FREE`] when none of them is a constant).
    Map(ValueId, u32),
}

/// The context of a map value that mentions no constant.
pub(crate) const CONTEXT_FREE: u32 = u32::MAX;

/// Name resolution and constant values of one game.
#[derive(Debug)]
pub(crate) struct Values {
    constants: FxHashMap<Symbol, usize>,
    variables: FxHashMap<Symbol, usize>,
    builtins: [Symbol; 3],
    /// Per value id: no name inside it is a constant.
    free: Vec<bool>,
    /// The first constant holding each known map value.
    map_constants: HashMap<Known, Symbol>,
    /// Map variables never assigned as a whole: the members of their key type and the default
    /// of their initial value, which is what a key outside the key type reads (no walk stores
    /// at such a key without aborting).
    outside_default: HashMap<Symbol, (Vec<Symbol>, Known)>,
    /// Variables whose declared type is a set of exactly two symbols: those two.
    two_valued: HashMap<Symbol, [Symbol; 2]>,
}

impl Values {
    pub(crate) fn new(g: &Game) -> Self {
        let wk = g.well_known();
        let mut constants = FxHashMap::default();
        for (i, c) in g.constants.iter().enumerate() {
            constants.entry(c.name).or_insert(i);
        }
        let mut variables = FxHashMap::default();
        for (i, v) in g.variables.iter().enumerate() {
            variables.entry(v.name).or_insert(i);
        }
        // Map entries are interned before the map that holds them, so one pass in id order
        // sees every entry's flag before the map's.
        let n = g.values().len();
        let mut free = vec![true; n];
        for i in 0..n {
            let id = ValueId(i as u32);
            free[i] = match g.value(id) {
                ValueData::Element(s) => !constants.contains_key(s),
                ValueData::Map(entries) => entries
                    .iter()
                    .all(|e| free.get(e.value.index()).copied().unwrap_or(false)),
            };
        }
        let mut values = Values {
            constants,
            variables,
            builtins: [wk.goals, wk.player, wk.visible],
            free,
            map_constants: HashMap::new(),
            outside_default: HashMap::new(),
            two_valued: HashMap::new(),
        };
        for (i, c) in g.constants.iter().enumerate() {
            if values.constants.get(&c.name) == Some(&i)
                && let Some(k @ Known::Map(..)) = values.constant_value(g, i)
            {
                values.map_constants.entry(k).or_insert(c.name);
            }
        }
        values.outside_default = values.outside_defaults(g);
        values.two_valued = values.two_valued(g);
        values
    }

    fn two_valued(&self, g: &Game) -> HashMap<Symbol, [Symbol; 2]> {
        let env = TypeEnv::new(g);
        let mut out = HashMap::new();
        for v in &g.variables {
            if !self.is_variable(v.name) || self.builtins.contains(&v.name) {
                continue;
            }
            if let Ok(Some(members)) = env.values(v.ty)
                && let [a, b] = members.as_slice()
            {
                out.entry(v.name).or_insert([*a, *b]);
            }
        }
        out
    }

    /// The value variable `v` holds when it does not hold `s`, if its type has exactly two
    /// values, `s` among them (a variable holds a value of its type in a proper game).
    pub(crate) fn other_value(&self, v: Symbol, s: Symbol) -> Option<Symbol> {
        match self.two_valued.get(&v)? {
            [a, b] if *a == s => Some(*b),
            [a, b] if *b == s => Some(*a),
            _ => None,
        }
    }

    fn outside_defaults(&self, g: &Game) -> HashMap<Symbol, (Vec<Symbol>, Known)> {
        let mut whole = HashSet::new();
        for (_, e) in g.edges() {
            if let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = e.label
                && let ExprData::Ref(v) = g.expr(g.strip_casts(lhs))
            {
                whole.insert(v);
            }
        }
        let env = TypeEnv::new(g);
        let mut out = HashMap::new();
        for v in &g.variables {
            if whole.contains(&v.name) || !self.is_variable(v.name) || out.contains_key(&v.name) {
                continue;
            }
            let Ok(Resolved::Arrow(k, _)) = env.resolve(v.ty) else {
                continue;
            };
            let Ok(Some(members)) = env.values(k) else {
                continue;
            };
            let Some(Known::Map(id, ctx)) = self.initial_value(g, v.init) else {
                continue;
            };
            let ValueData::Map(entries) = g.value(id) else {
                continue;
            };
            if let Some(d) = entries.iter().find(|e| e.key.is_none())
                && let Some(default) = self.value(g, d.value, ctx)
            {
                out.insert(v.name, (members.as_slice().to_vec(), default));
            }
        }
        out
    }

    /// What map variable `m` reads at `key` when the key is outside its key type (see
    /// `outside_default`).
    pub(crate) fn outside_key(&self, m: Symbol, key: Symbol) -> Option<Known> {
        let (members, default) = self.outside_default.get(&m)?;
        (!members.contains(&key)).then_some(*default)
    }

    /// What `s` denotes in an edge label.
    pub(crate) fn kind(&self, s: Symbol) -> NameKind {
        if self.builtins.contains(&s) {
            return NameKind::Variable;
        }
        if let Some(&i) = self.constants.get(&s) {
            return NameKind::Constant(i);
        }
        if self.variables.contains_key(&s) {
            NameKind::Variable
        } else {
            NameKind::Symbol
        }
    }

    /// Whether `s` is read from the state when it occurs in a label.
    pub(crate) fn is_variable(&self, s: Symbol) -> bool {
        self.kind(s) == NameKind::Variable
    }

    /// Whether writing `s` in a label denotes the literal symbol `s`.
    pub(crate) fn is_literal(&self, s: Symbol) -> bool {
        self.kind(s) == NameKind::Symbol
    }

    /// The value a declared value denotes where `ctx` constants are visible.
    pub(crate) fn value(&self, g: &Game, v: ValueId, ctx: u32) -> Option<Known> {
        match g.value(v) {
            ValueData::Element(s) => match self.constants.get(s) {
                // A visible constant; its own value sees only the constants before it, so the
                // recursion ends.
                Some(&i) if (i as u32) < ctx => self.constant_value(g, i),
                _ => Some(Known::Sym(*s)),
            },
            ValueData::Map(_) => Some(Known::Map(
                v,
                if self.free[v.index()] {
                    CONTEXT_FREE
                } else {
                    ctx
                },
            )),
        }
    }

    /// The value of the constant at index `i` of the constant list.
    pub(crate) fn constant_value(&self, g: &Game, i: usize) -> Option<Known> {
        let c = g.constants.get(i)?;
        self.value(g, c.value, i as u32)
    }

    /// The initial value of a variable.
    pub(crate) fn initial_value(&self, g: &Game, v: ValueId) -> Option<Known> {
        self.value(g, v, g.constants.len() as u32)
    }

    /// The entry of a map for a key (the default entry when the key is absent).
    pub(crate) fn lookup(&self, g: &Game, map: Known, key: Symbol) -> Option<Known> {
        let Known::Map(m, ctx) = map else {
            return None;
        };
        let ValueData::Map(entries) = g.value(m) else {
            return None;
        };
        let e = entries
            .iter()
            .find(|e| e.key == Some(key))
            .or_else(|| entries.iter().find(|e| e.key.is_none()))?;
        self.value(g, e.value, ctx)
    }

    /// [`Self::lookup`] at each of `keys`, with the map's entries indexed once (a lookup scans
    /// them, so asking for every member of a large key type one by one is quadratic).
    pub(crate) fn lookup_each(&self, g: &Game, map: Known, keys: &[Symbol]) -> Vec<Option<Known>> {
        let Known::Map(m, ctx) = map else {
            return vec![None; keys.len()];
        };
        let ValueData::Map(entries) = g.value(m) else {
            return vec![None; keys.len()];
        };
        let mut at: FxHashMap<Symbol, ValueId> = FxHashMap::default();
        let mut default = None;
        for e in entries {
            match e.key {
                Some(k) => {
                    at.entry(k).or_insert(e.value);
                }
                None => default = default.or(Some(e.value)),
            }
        }
        keys.iter()
            .map(|k| {
                at.get(k)
                    .copied()
                    .or(default)
                    .and_then(|v| self.value(g, v, ctx))
            })
            .collect()
    }

    /// Whether two known values are equal at run time: decided for symbols and for the same
    /// map value; unknown for two different map literals (they may still be equal).
    pub(crate) fn equal(&self, a: Known, b: Known) -> Option<bool> {
        match (a, b) {
            (Known::Sym(x), Known::Sym(y)) => Some(x == y),
            (Known::Map(..), Known::Sym(_)) | (Known::Sym(_), Known::Map(..)) => Some(false),
            _ if a == b => Some(true),
            _ => None,
        }
    }

    /// A constant whose value is this map, if any.
    pub(crate) fn constant_holding(&self, k: Known) -> Option<Symbol> {
        self.map_constants.get(&k).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    #[test]
    fn names_inside_constants_see_only_earlier_constants() {
        let g = test_game(
            "type T = {a, b, k};\n\
             const early: T = b;\n\
             const m: T -> T = {a: early, b: k, :a};\n\
             const k: T = a;\n\
             var v: T -> T = {a: k, :a};\n\
             begin, end: player = keeper;",
        );
        let vals = Values::new(&g);
        let s = |n: &str| g.find_sym(n).unwrap();
        let m = vals.constant_value(&g, 1).unwrap();
        // `early` is declared before `m`: its value; `k` is declared after: the symbol k.
        assert_eq!(vals.lookup(&g, m, s("a")), Some(Known::Sym(s("b"))));
        assert_eq!(vals.lookup(&g, m, s("b")), Some(Known::Sym(s("k"))));
        assert_eq!(vals.lookup(&g, m, s("k")), Some(Known::Sym(s("a"))));
        // A variable's initial value sees every constant.
        let v = g.variables.iter().find(|v| v.name == s("v")).unwrap();
        let init_v = vals.initial_value(&g, v.init).unwrap();
        assert_eq!(vals.lookup(&g, init_v, s("a")), Some(Known::Sym(s("a"))));
        assert_eq!(vals.kind(s("k")), NameKind::Constant(2));
        assert_eq!(vals.kind(s("v")), NameKind::Variable);
        assert_eq!(vals.kind(s("a")), NameKind::Symbol);
        assert_eq!(vals.constant_holding(m), Some(s("m")));
    }
}
