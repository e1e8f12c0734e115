//! `expand_assignment_any`: each `x, y: e = T(*);` becomes, at the same position
//! of the edge list, one edge `x, y: e = s;` per symbol `s` of `T` (definition order), making
//! the shorthand of the paper's section 2 explicit.
//!
//! An edge is left alone when a symbol of `T` is also the name of a variable or constant: the
//! bare name would then denote that variable or constant, not the symbol (the reference expands
//! it anyway and changes the game).
//!
//! Game tree: unchanged — this is the definition of the any-assignment (one branch per member of
//! the type): the same successors in the same order. Complexity: linear in the edges plus the edges
//! created.

use super::meta;
use crate::util::{is_plain_symbol, replace_edges, set_members};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, Symbol};
use std::collections::HashMap;

#[derive(Debug)]
pub(crate) struct ExpandAssignmentAny;

impl Pass for ExpandAssignmentAny {
    meta!(
        "expand_assignment_any",
        "replace every any-assignment `e = T(*)` by one assignment edge per symbol of T",
        Safe,
        Loop,
        Expand
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut members: HashMap<EdgeId, Vec<Symbol>> = HashMap::new();
        for (e, d) in g.edges() {
            let Label::AssignAny { ty, .. } = d.label else {
                continue;
            };
            let Some(ms) = set_members(g, ty) else {
                continue;
            };
            if let Some(&s) = ms.iter().find(|&&s| !is_plain_symbol(g, s)) {
                cx.warnings.push(format!(
                    "expand_assignment_any: kept `{}` because `{}` names a variable or constant",
                    rg_core::print::print_edge(g, d).trim_end(),
                    g.name(s)
                ));
                continue;
            }
            members.insert(e, ms);
        }
        Ok(replace_edges(g, |g, e| {
            let ms = members.remove(&e)?;
            let d = g.edge(e);
            let (from, to) = (d.from, d.to);
            let Label::AssignAny { lhs, .. } = d.label else {
                return None;
            };
            Some(
                ms.into_iter()
                    .map(|s| {
                        let rhs = g.expr_ref(s);
                        (from, to, Label::Assign { lhs, rhs })
                    })
                    .collect(),
            )
        }))
    }
}
