//! ReachingDefinitions (passes.md §2.7), as sets: for every variable, which assignment edges
//! (or the initial value) may have written its current value at a node.
//!
//! The reference keeps one of `All(edge)`, `Any(edge)` and `Mixed` per variable, which tells
//! whether *one* definition reaches a node but not which definitions reach a node where several
//! do; `inline_assignment` then has to search forward from every definition for its usages
//! (O(A · E)). Sets answer both questions, so the def-use chains come out of one solve. A set
//! that would grow beyond [`CAP`] definitions becomes [`Defs::ANY`] ("any definition").
//!
//! Every assignment and any-assignment to a variable or to one of its cells defines it (a cell
//! assignment produces a new value of the whole variable). The analysis flows into check
//! subautomata (a check's walk starts in the state of its source).
//!
//! Complexity: O(V) per transfer and join for V variables; a set only grows, so the solver does
//! O(E · V · CAP) transfers at most.

use crate::analysis::values::Values;
use crate::dataflow::Analysis;
use rg_core::{EdgeId, Game, Label, Symbol};
use std::collections::HashMap;

/// The most definitions a set holds before it becomes "any definition".
pub(crate) const CAP: usize = 6;

/// A definition: an assignment edge, or the initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Def(u32);

impl Def {
    /// The initial value.
    pub(crate) const INIT: Def = Def(u32::MAX);

    /// The definition by an assignment edge.
    pub(crate) fn edge(e: EdgeId) -> Def {
        Def(e.0)
    }

    /// The assignment edge, unless this is the initial value.
    pub(crate) fn as_edge(self) -> Option<EdgeId> {
        (self != Def::INIT).then_some(EdgeId(self.0))
    }
}

/// The definitions of one variable that may reach a node, sorted; or "any definition" when
/// more than [`CAP`] may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Defs {
    /// Number of items, or [`Defs::MANY`].
    len: u8,
    items: [Def; CAP],
}

impl Defs {
    const MANY: u8 = u8::MAX;

    /// Any definition may reach.
    pub(crate) const ANY: Defs = Defs {
        len: Defs::MANY,
        items: [Def::INIT; CAP],
    };

    pub(crate) fn one(d: Def) -> Defs {
        let mut items = [Def::INIT; CAP];
        items[0] = d;
        Defs { len: 1, items }
    }

    /// The definitions, or `None` when any may reach.
    pub(crate) fn items(&self) -> Option<&[Def]> {
        (self.len != Defs::MANY).then(|| &self.items[..self.len as usize])
    }

    /// The single definition, if exactly one reaches.
    pub(crate) fn single(&self) -> Option<Def> {
        (self.len == 1).then_some(self.items[0])
    }

    /// Adds the definitions of `other`; returns whether `self` changed.
    fn union(&mut self, other: &Defs) -> bool {
        let (Some(a), Some(b)) = (self.items(), other.items()) else {
            let changed = self.len != Defs::MANY;
            *self = Defs::ANY;
            return changed;
        };
        // Merge two sorted lists.
        let mut items = [Def::INIT; CAP];
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x == y => {
                    i += 1;
                    j += 1;
                    *x
                }
                (Some(x), Some(y)) if x < y => {
                    i += 1;
                    *x
                }
                (Some(x), None) => {
                    i += 1;
                    *x
                }
                (_, Some(y)) => {
                    j += 1;
                    *y
                }
                (None, None) => break,
            };
            if n == CAP {
                *self = Defs::ANY;
                return true;
            }
            items[n] = next;
            n += 1;
        }
        let changed = n != a.len();
        *self = Defs {
            len: n as u8,
            items,
        };
        changed
    }
}

/// The analysis: one slot per variable.
pub(crate) struct ReachingDefinitions {
    slots: HashMap<Symbol, usize>,
}

impl ReachingDefinitions {
    pub(crate) fn new(g: &Game, values: &Values) -> Self {
        let mut slots = HashMap::new();
        for v in &g.variables {
            if values.is_variable(v.name) {
                let n = slots.len();
                slots.entry(v.name).or_insert(n);
            }
        }
        ReachingDefinitions { slots }
    }

    /// The slot and definition set written by an edge, if it assigns a variable.
    fn defines(&self, g: &Game, edge: Option<EdgeId>) -> Option<(usize, Defs)> {
        let e = edge?;
        let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = g.edge(e).label else {
            return None;
        };
        Some((self.slot(g.expr_root(lhs))?, Defs::one(Def::edge(e))))
    }

    /// The slot of a variable (`None` for names that are not variables).
    /// The number of tracked variables (slots of the domain).
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn slot(&self, v: Symbol) -> Option<usize> {
        self.slots.get(&v).copied()
    }
}

impl Analysis for ReachingDefinitions {
    type Domain = Box<[Defs]>;

    fn extreme(&self, _g: &Game) -> Self::Domain {
        vec![Defs::one(Def::INIT); self.slots.len()].into_boxed_slice()
    }

    fn transfer(&self, g: &Game, k: &mut Self::Domain, edge: Option<EdgeId>) -> bool {
        if let Some((i, d)) = self.defines(g, edge) {
            k[i] = d;
        }
        true
    }

    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain) -> bool {
        let mut changed = false;
        for (a, b) in acc.iter_mut().zip(other.iter()) {
            if a != b {
                changed |= a.union(b);
            }
        }
        changed
    }

    fn flow_into(
        &self,
        g: &Game,
        src: &Self::Domain,
        edge: Option<EdgeId>,
        dst: &mut Self::Domain,
    ) -> bool {
        let def = self.defines(g, edge);
        let mut changed = false;
        for (i, (a, b)) in dst.iter_mut().zip(src.iter()).enumerate() {
            let b = match def {
                Some((j, d)) if j == i => d,
                _ => *b,
            };
            if *a != b {
                changed |= a.union(&b);
            }
        }
        changed
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::solve;
    use crate::testing::test_game;
    use rg_core::EntityId;

    #[test]
    fn sets_of_definitions_join_and_saturate() {
        let g = test_game(
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: v = q;\n\
             begin, a: ;\n\
             a, b: v = T(*);\n\
             b, c: ;\n\
             a, c: $ t;\n\
             c, end: player = keeper;",
        );
        let values = Values::new(&g);
        let rd = ReachingDefinitions::new(&g, &values);
        let r = solve(&g, &rd);
        let v = rd.slot(g.find_sym("v").unwrap()).unwrap();
        let at = |n: &str| r[g.find_node(g.find_sym(n).unwrap()).unwrap().index()].clone();
        let e = |i: usize| Def::edge(EdgeId(i as u32));
        assert_eq!(at("a").unwrap()[v].items(), Some(&[e(0), Def::INIT][..]));
        assert_eq!(at("b").unwrap()[v].single(), Some(e(2)));
        assert_eq!(
            at("c").unwrap()[v].items(),
            Some(&[e(0), e(2), Def::INIT][..])
        );
        let mut many = Defs::one(Def::INIT);
        for i in 0..CAP {
            assert!(many.union(&Defs::one(e(i))));
        }
        assert_eq!(many, Defs::ANY);
        assert!(!many.union(&Defs::one(e(1))));
        assert_eq!(many.items(), None);
    }
}
