//! `calculate_disjoints`, with the three fixes the spec requires: pairwise
//! disjoint value sets, exactly one edge from the node to each listed target, one label per
//! target in the if-else case.
//!
//! A pragma always covers every outgoing edge of its node (the only form the interpreter and
//! the compiled model use, and the one the `disjoint-targets` lint accepts), so its target list
//! is the multiset of the edges' targets. In a switch, where every edge is a test of one left
//! side against its own symbol, two edges may share a target (`c, t: v == a; c, t: v == b;`
//! gives `@disjoint c : t t;`): every edge to a listed node is one of the tests, and at most one
//! test holds. The if-else case keeps two different targets.
//!
//! ```text
//! before:  c, t: v == a;  c, t: v == b;  c, u: v == d;
//! after:   @disjoint c : t t u;  (the edges are unchanged)
//! ```
//!
//! Game tree: unchanged — the pragma only states what holds (at most one of the edges can be
//! taken); a consumer that trusts it stops trying the others once one holds, and they would
//! have failed anyway.

use super::meta;
use crate::util::{literal_symbol, negation_pair};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label, NodeId, Pragma, PragmaKind};
use std::collections::HashSet;

#[derive(Debug)]
pub(crate) struct CalculateDisjoints;

fn disjoint_of(g: &Game, n: NodeId) -> Option<(Vec<NodeId>, bool)> {
    let out = g.outgoing(n);
    if out.len() < 2 {
        return None;
    }
    let targets: Vec<NodeId> = out.iter().map(|&e| g.edge(e).to).collect();
    if out.len() == 2 && targets[0] != targets[1] {
        let (a, b) = (g.edge(out[0]).label, g.edge(out[1]).label);
        if negation_pair(&a, &b) {
            return Some((targets, true));
        }
    }
    // Switch: every edge `L == s` with the same left side and distinct literal symbols (targets
    // may repeat: every edge of the node is a test).
    let mut lhs0 = None;
    let mut seen = HashSet::new();
    for &e in out {
        let Label::Compare {
            lhs,
            rhs,
            negated: false,
        } = g.edge(e).label
        else {
            return None;
        };
        let lhs = g.strip_casts(lhs);
        if *lhs0.get_or_insert(lhs) != lhs {
            return None;
        }
        let s = literal_symbol(g, rhs)?;
        if !seen.insert(s) {
            return None;
        }
    }
    Some((targets, false))
}

impl Pass for CalculateDisjoints {
    meta!(
        "calculate_disjoints",
        "add @disjoint/@disjointExhaustive for nodes whose outgoing conditions exclude each other",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut added = Vec::new();
        let existing: HashSet<NodeId> =
            g.pragmas
                .iter()
                .filter_map(|p| match &p.kind {
                    PragmaKind::Disjoint { node, .. }
                    | PragmaKind::DisjointExhaustive { node, .. } => Some(*node),
                    _ => None,
                })
                .collect();
        for n in g.nodes().ids() {
            if existing.contains(&n) {
                continue;
            }
            if let Some((mut nodes, exhaustive)) = disjoint_of(g, n) {
                crate::util::sort_by_name(g, &mut nodes);
                let kind = if exhaustive {
                    PragmaKind::DisjointExhaustive { node: n, nodes }
                } else {
                    PragmaKind::Disjoint { node: n, nodes }
                };
                added.push(Pragma {
                    kind,
                    derived: true,
                    span: None,
                });
            }
        }
        if added.is_empty() {
            return Ok(false);
        }
        g.pragmas.extend(added);
        Ok(true)
    }
}
