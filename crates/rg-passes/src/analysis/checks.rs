//! Reachability checks whose outcome is known, from the knowledge of ConstantsAnalysis.
//!
//! For a check `? a -> b` (or `! a -> b`):
//!
//! - it *never holds* when `b` cannot be found from `a` over edges that may be walked: edges
//!   leaving a node some walk visits (the analysis flows into every subautomaton from every
//!   check source), except comparisons known to fail there;
//! - it *always holds* when `a` is `b` (the walk's start state counts), or when `b` can be found
//!   from `a` over steps that are legal in every state reaching them: skips, tags, assignments,
//!   comparisons known to hold, and two parallel edges with complementary conditions
//!   (`c` / `¬c` to the same node: negation pairs).
//!
//! Both searches follow the check's own subautomaton only (nested checks are just edges to their
//! targets). The knowledge at a node holds for every check that starts a walk reaching it, so
//! the outcome holds for every evaluation of the check.
//!
//! Complexity: two graph searches per distinct check start, O(E) each; results are shared by all
//! checks with that start.

use super::constants::{Constants, Facts};
use crate::util::NodeMap;
use crate::util::negation_pair;
use rg_core::{EdgeId, Game, Label, NodeId};
use std::collections::HashMap;

/// Known outcomes of reachability checks.
pub(crate) struct CheckValues<'a> {
    g: &'a Game,
    facts: &'a NodeMap<Option<Facts>>,
    c: &'a Constants<'a>,
    /// Per start: (nodes found over walkable edges, nodes found over always-legal steps).
    found: HashMap<NodeId, (NodeMap<bool>, NodeMap<bool>)>,
}

/// How a comparison edge fares with the knowledge at its source.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Holds,
    Fails,
    Unknown,
}

impl<'a> CheckValues<'a> {
    pub(crate) fn new(
        g: &'a Game,
        facts: &'a NodeMap<Option<Facts>>,
        c: &'a Constants<'a>,
    ) -> Self {
        CheckValues {
            g,
            facts,
            c,
            found: HashMap::new(),
        }
    }

    fn outcome(&self, e: EdgeId) -> Outcome {
        let d = self.g.edge(e);
        let Some(k) = &self.facts[d.from] else {
            return Outcome::Fails;
        };
        match d.label {
            Label::Compare { lhs, rhs, negated } => {
                let g = self.g;
                let (l, r) = (g.strip_casts(lhs), g.strip_casts(rhs));
                match (self.c.eval(g, l, k), self.c.eval(g, r, k)) {
                    (Some(a), Some(b)) => match self.c.values.equal(a, b) {
                        Some(eq) if eq != negated => Outcome::Holds,
                        Some(_) => Outcome::Fails,
                        None => Outcome::Unknown,
                    },
                    _ => Outcome::Unknown,
                }
            }
            Label::Reach { .. } => Outcome::Unknown,
            Label::Assign { .. }
            | Label::AssignAny { .. }
            | Label::Skip
            | Label::Tag(_)
            | Label::TagVar(_) => Outcome::Holds,
        }
    }

    /// The nodes found from `start` following the edges `step` accepts.
    fn search(&self, start: NodeId, always: bool) -> NodeMap<bool> {
        let g = self.g;
        let mut seen = NodeMap::from_elem(false, g.node_capacity());
        seen[start] = true;
        let mut stack = vec![start];
        while let Some(x) = stack.pop() {
            let out = g.outgoing(x);
            for (i, &e) in out.iter().enumerate() {
                let to = g.edge(e).to;
                if seen[to] {
                    continue;
                }
                let passable = match self.outcome(e) {
                    Outcome::Holds => true,
                    Outcome::Fails => false,
                    Outcome::Unknown if !always => true,
                    // A condition with its negation on a parallel edge: one of them holds.
                    Outcome::Unknown => {
                        self.facts[x].is_some()
                            && out.iter().enumerate().any(|(j, &f)| {
                                j != i
                                    && g.edge(f).to == to
                                    && negation_pair(&g.edge(e).label, &g.edge(f).label)
                            })
                    }
                };
                if passable {
                    seen[to] = true;
                    stack.push(to);
                }
            }
        }
        seen
    }

    /// Whether `? a -> b` always (`Some(true)`) or never (`Some(false)`) holds.
    pub(crate) fn value(&mut self, a: NodeId, b: NodeId) -> Option<bool> {
        if a == b {
            return Some(true);
        }
        if !self.found.contains_key(&a) {
            let may = self.search(a, false);
            let always = self.search(a, true);
            self.found.insert(a, (may, always));
        }
        let (may, always) = &self.found[&a];
        if always[b] {
            Some(true)
        } else if !may[b] {
            Some(false)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::values::Values;
    use crate::dataflow::solve;
    use crate::testing::test_game;

    fn values_of(text: &str) -> Vec<Option<bool>> {
        let g = test_game(text);
        let values = Values::new(&g);
        let c = Constants { values: &values };
        let facts = solve(&g, &c);
        let mut cv = CheckValues::new(&g, &facts, &c);
        g.edges()
            .filter_map(|(_, d)| match d.label {
                Label::Reach { from, to, .. } => Some(cv.value(from, to)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn checks_decided_by_structure_and_by_constants() {
        let out = values_of(
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: ? s1 -> t1;\n\
             a, b: ? s2 -> t2;\n\
             b, c: ? s3 -> t3;\n\
             c, d: ? s4 -> t4;\n\
             d, end: player = keeper;\n\
             s1, m1: $ x;\n\
             m1, t1: v = q;\n\
             s2, t2: v == q;\n\
             s3, t3: v != q;\n\
             s3, t3: v == q;\n\
             s4, m4: v == q;\n\
             s4, m4: w == q;\n\
             m4, t4: ;",
        );
        // Always: a tag and an assignment. Never: `v` is `p`. Always: complementary edges.
        // Never: `v` is `p` and `w`, undeclared, is the symbol `w`.
        assert_eq!(out, vec![Some(true), Some(false), Some(true), Some(false)]);
    }
}
