//! join_assignments (not in the reference): two assignments to the same variable in a row
//! become one, when the node between them is only a stopover.
//!
//! Pattern: a node `y` that is not `begin`, `end` or the start or end of a check, whose only
//! outgoing edge `y → z` (`z ≠ y`) is `v = r` for a whole variable `v` (not `player`, `goals` or
//! `visible`), and whose incoming edges (at least one, none from `y`) all assign the whole of
//! `v`: `x → y: v = e`. Each incoming edge becomes `x → z: v = r[v := T(e)]` (`T` the declared
//! type of `v`, as `inline_assignment` writes values) and `y → z` is deleted.
//! `merge_accesses` then turns `up[T(left[c])]` into one lookup in a composed map. Typical
//! source: a piece moving along two directions in a row, with the first step taken along one of
//! several directions (`c = left[c]` or `c = right[c]`, then `c = up[c]`), which
//! `inline_assignment` cannot merge because two definitions reach the second step.
//!
//! Why the game tree is kept: a walk `x → y → z` becomes `x → z` with the same effect — the
//! first assignment stores the value of `e` (in the state before it) into `v`, the second
//! evaluates `r` in the state where only `v` changed, which is `r` with `v` read as that value:
//! exactly `r[v := e]` evaluated in the state before. `y` has no other edge, carries no tag and
//! ends no move (no `player` assignment), and no check starts or ends there, so no walk and no
//! check can tell that it is gone.
//!
//! Complexity: O(E) per run, plus the size of the new right sides.

use super::inline_assignment::{replacement, substitute};
use super::meta;
use crate::util::NodeMap;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, ExprData, Game, Label, NodeId, Symbol};

#[derive(Debug)]
pub(crate) struct JoinAssignments;

/// The whole variable a label assigns (`v = r`, casts on the left ignored), and `r`.
fn whole_assignment(g: &Game, label: &Label) -> Option<(Symbol, rg_core::ExprId)> {
    let Label::Assign { lhs, rhs } = *label else {
        return None;
    };
    match g.expr(g.strip_casts(lhs)) {
        ExprData::Ref(v) => Some((v, rhs)),
        _ => None,
    }
}

/// The stopover nodes `y` with their outgoing edge.
fn stopovers(g: &Game, is_check: &NodeMap<bool>) -> Vec<(NodeId, EdgeId)> {
    let wk = g.well_known();
    let special = [wk.player, wk.goals, wk.visible];
    let mut out = Vec::new();
    for y in g.nodes().ids() {
        if is_check[y] || Some(y) == g.begin() || Some(y) == g.end() {
            continue;
        }
        let (outgoing, incoming) = (g.outgoing(y), g.incoming(y));
        let ([f], false) = (outgoing, incoming.is_empty()) else {
            continue;
        };
        let d = g.edge(*f);
        let Some((v, _)) = whole_assignment(g, &d.label) else {
            continue;
        };
        if d.to == y || special.contains(&v) || g.variable(v).is_none() {
            continue;
        }
        let all_assign_v = incoming.iter().all(|&e| {
            let de = g.edge(e);
            de.from != y && whole_assignment(g, &de.label).is_some_and(|(w, _)| w == v)
        });
        if all_assign_v {
            out.push((y, *f));
        }
    }
    out
}

impl Pass for JoinAssignments {
    meta!(
        "join_assignments",
        "merge two assignments to the same variable in a row into one",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        for (y, f) in stopovers(g, &cx.check_nodes(g)) {
            // An earlier rewrite in this run may have changed `y`'s neighbourhood.
            if g.outgoing(y) != [f] {
                continue;
            }
            let d = g.edge(f);
            let (z, label) = (d.to, d.label);
            let Some((v, r)) = whole_assignment(g, &label) else {
                continue;
            };
            let incoming = g.incoming(y).to_vec();
            if incoming.iter().any(|&e| {
                let de = g.edge(e);
                de.from == y || whole_assignment(g, &de.label).is_none_or(|(w, _)| w != v)
            }) {
                continue;
            }
            let Label::Assign { lhs, .. } = label else {
                continue;
            };
            for e in incoming {
                let (_, value) = whole_assignment(g, &g.edge(e).label).expect("checked above");
                let value = replacement(g, v, value);
                let rhs = substitute(g, r, v, value);
                g.set_label(e, Label::Assign { lhs, rhs });
                g.set_target(e, z);
            }
            g.remove_edge(f);
            changed = true;
        }
        Ok(changed)
    }
}
