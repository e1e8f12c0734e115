//! ReachingDefinitions (passes.md §2.7), as sets: for every variable, which assignment edges
//! (or the initial value) may have written its current value at a node.
//!
//! The reference keeps one of `All(edge)`, `Any(edge)` and `Mixed` per variable, which tells
//! whether *one* definition reaches a node but not which definitions reach a node where several
//! do; `inline_assignment` then has to search forward from every definition for its usages
//! (O(A · E)). Sets answer both questions, so the def-use chains come out of one solve. A set
//! that would grow beyond [`CAP`] definitions becomes [`Defs::Many`] ("any definition").
//!
//! Every assignment and any-assignment to a variable or to one of its cells defines it (a cell
//! assignment produces a new value of the whole variable). The analysis flows into check
//! subautomata (a check's walk starts in the state of its source).
//!
//! Complexity: O(V) per transfer and join for V variables; a set only grows, so the solver does
//! O(E · V · CAP) transfers at most.

use crate::analysis::values::Values;
use crate::dataflow::Analysis;
use rg_core::{EdgeId, EntityId, Game, Label, Symbol};
use std::collections::HashMap;

/// The most definitions a set holds before it becomes [`Defs::Many`].
pub(crate) const CAP: usize = 6;

/// A definition: an assignment edge, or the initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Def {
    Init,
    Edge(EdgeId),
}

/// The definitions of one variable that may reach a node, sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Defs {
    Some { len: u8, items: [Def; CAP] },
    /// More than [`CAP`]: any definition may reach.
    Many,
}

impl Defs {
    pub(crate) fn one(d: Def) -> Defs {
        Defs::Some {
            len: 1,
            items: [d; CAP],
        }
    }

    /// The definitions, or `None` for [`Defs::Many`].
    pub(crate) fn items(&self) -> Option<&[Def]> {
        match self {
            Defs::Some { len, items } => Some(&items[..*len as usize]),
            Defs::Many => None,
        }
    }

    /// The single definition, if exactly one reaches.
    pub(crate) fn single(&self) -> Option<Def> {
        match self.items()? {
            [d] => Some(*d),
            _ => None,
        }
    }

    /// Whether `d` may reach (always for [`Defs::Many`]).
    pub(crate) fn may_contain(&self, d: Def) -> bool {
        self.items().is_none_or(|ds| ds.contains(&d))
    }

    fn union(&mut self, other: &Defs) {
        let (Some(a), Some(b)) = (self.items(), other.items()) else {
            *self = Defs::Many;
            return;
        };
        let mut merged: Vec<Def> = a.iter().chain(b).copied().collect();
        merged.sort_unstable();
        merged.dedup();
        if merged.len() > CAP {
            *self = Defs::Many;
            return;
        }
        let mut items = [Def::Init; CAP];
        items[..merged.len()].copy_from_slice(&merged);
        *self = Defs::Some {
            len: merged.len() as u8,
            items,
        };
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

    /// The slot of a variable (`None` for names that are not variables).
    pub(crate) fn slot(&self, v: Symbol) -> Option<usize> {
        self.slots.get(&v).copied()
    }
}

impl Analysis for ReachingDefinitions {
    type Domain = Box<[Defs]>;

    fn extreme(&self, _g: &Game) -> Self::Domain {
        vec![Defs::one(Def::Init); self.slots.len()].into_boxed_slice()
    }

    fn transfer(&self, g: &Game, k: &mut Self::Domain, edge: Option<EdgeId>) -> bool {
        if let Some(e) = edge
            && let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = g.edge(e).label
            && let Some(i) = self.slot(g.expr_root(lhs))
        {
            k[i] = Defs::one(Def::Edge(e));
        }
        true
    }

    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain) {
        for (a, b) in acc.iter_mut().zip(other.iter()) {
            if a != b {
                a.union(b);
            }
        }
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::solve;
    use crate::util::test_game;

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
        let e = |i: usize| Def::Edge(EdgeId(i as u32));
        assert_eq!(at("a").unwrap()[v].items(), Some(&[Def::Init, e(0)][..]));
        assert_eq!(at("b").unwrap()[v].single(), Some(e(2)));
        assert_eq!(at("c").unwrap()[v].items(), Some(&[Def::Init, e(0), e(2)][..]));
        let mut many = Defs::one(Def::Init);
        for i in 0..CAP {
            many.union(&Defs::one(e(i)));
        }
        assert_eq!(many, Defs::Many);
        assert!(many.may_contain(e(99)));
    }
}
