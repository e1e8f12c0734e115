//! `prune_unused_constants`: removes the constants nothing refers to.
//!
//! Applies to a constant whose name occurs in no constant's or variable's value and in no edge
//! label (read positions, and assigned positions too so that an invalid assignment to a
//! constant stays visible to the validators).
//!
//! Why the game tree is kept: a constant only gives a name to a value; a name nobody reads
//! cannot influence any walk, move or state.
//!
//! ```text
//! before:  const Unused: Bool = 1;  const Next: Bool -> Bool = { 0: 1, 1: 0 };  a, b: x = Next[x];
//! after:   const Next: Bool -> Bool = { 0: 1, 1: 0 };  a, b: x = Next[x];
//! ```
//!
//! Complexity: linear in the size of the declarations and labels.

use super::meta;
use crate::util::{names_of, reads};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label, MapEntry, Symbol, ValueData, ValueId};
use std::collections::HashSet;

fn value_names(g: &Game, v: ValueId, f: &mut impl FnMut(Symbol)) {
    match g.value(v) {
        ValueData::Element(s) => f(*s),
        ValueData::Map(entries) => {
            for &MapEntry { key, value } in entries.iter() {
                if let Some(k) = key {
                    f(k);
                }
                value_names(g, value, f);
            }
        }
    }
}

/// Constants no value and no label refers to are removed.
#[derive(Debug)]
pub(crate) struct PruneUnusedConstants;

impl Pass for PruneUnusedConstants {
    meta!(
        "prune_unused_constants",
        "remove constants that nothing refers to",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut used: HashSet<Symbol> = HashSet::new();
        let mut add = |s: Symbol| {
            used.insert(s);
        };
        for c in &g.constants {
            value_names(g, c.value, &mut add);
        }
        for v in &g.variables {
            value_names(g, v.init, &mut add);
        }
        for (_, e) in g.edges() {
            reads(g, &e.label, &mut add);
            // Left sides name constants too when they are (invalidly) assigned; keep them so
            // the validators can still report it.
            if let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = e.label {
                names_of(g, lhs, &mut add);
            }
        }
        let before = g.constants.len();
        g.constants.retain(|c| used.contains(&c.name));
        let changed = g.constants.len() != before;
        Ok(changed)
    }
}
