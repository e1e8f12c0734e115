//! `calculate_iterators`: `@iterator a b c : v;` where the only edge from `a`
//! assigns the variable `v` and leads to `b`, and the only edge from `b` is a comparison
//! `M[…][v] == 1` leading to `c`. A compiler may then loop only over the values of `v` that
//! pass the lookup instead of over all of them.
//!
//! As in the reference any assignment to `v` qualifies (only an any-assignment benefits). The
//! left side must be exactly `v` (casts aside), the comparison's left side an access whose last
//! index is `v` (casts aside) and its right side the symbol `1` (not a variable or constant of
//! that name). "Only edge" counts edges as a set, so exact duplicates are one edge.
//!
//! ```text
//! before:  a, b: v = Pos(*);  b, c: free[v] == 1;
//! after:   @iterator a b c : v;  (the edges are unchanged)
//! ```
//!
//! Game tree: unchanged — the pragma only describes the automaton; the interpreter ignores it.
//! Complexity: linear in the edges.

use super::meta;
use crate::util::is_plain_symbol;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, ExprData, Game, Label, NodeId, Pragma, PragmaKind};

#[derive(Debug)]
pub(crate) struct CalculateIterators;

/// The single distinct outgoing edge of `n`.
fn only_edge(g: &Game, n: NodeId) -> Option<EdgeId> {
    let out = g.outgoing(n);
    let first = *out.first()?;
    let d = g.edge(first);
    out.iter()
        .all(|&e| g.edge(e).to == d.to && g.edge(e).label == d.label)
        .then_some(first)
}

fn iterator_at(g: &Game, a: NodeId) -> Option<PragmaKind> {
    let e1 = g.edge(only_edge(g, a)?);
    let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = e1.label else {
        return None;
    };
    let ExprData::Ref(v) = g.expr(g.strip_casts(lhs)) else {
        return None;
    };
    g.variable(v)?;
    let e2 = g.edge(only_edge(g, e1.to)?);
    let Label::Compare {
        lhs,
        rhs,
        negated: false,
    } = e2.label
    else {
        return None;
    };
    let one = g.well_known().one;
    if g.expr(g.strip_casts(rhs)) != ExprData::Ref(one) || !is_plain_symbol(g, one) {
        return None;
    }
    let ExprData::Access(_, index) = g.expr(lhs) else {
        return None;
    };
    (g.expr(g.strip_casts(index)) == ExprData::Ref(v)).then_some(PragmaKind::Iterator {
        a,
        b: e1.to,
        c: e2.to,
        variable: v,
    })
}

impl Pass for CalculateIterators {
    meta!(
        "calculate_iterators",
        "add @iterator for an assignment followed by a lookup filter `M[…][v] == 1`",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        // Only the nodes that have an iterator are sorted (by name, for the order of the
        // pragmas): sorting every node's name took most of the pass on large games.
        let mut nodes: Vec<NodeId> = g
            .nodes()
            .ids()
            .filter(|&a| iterator_at(g, a).is_some())
            .collect();
        crate::util::sort_by_name(g, &mut nodes);
        let added: Vec<Pragma> = nodes
            .into_iter()
            .filter_map(|a| iterator_at(g, a))
            .filter(|k| !g.pragmas.iter().any(|p| p.kind == *k))
            .map(|kind| Pragma {
                kind,
                derived: true,
                span: None,
            })
            .collect();
        if added.is_empty() {
            return Ok(false);
        }
        g.pragmas.extend(added);
        Ok(true)
    }
}
