//! `expand_tag_variable`: each `x, y: $$ v;` becomes, at the same position of the
//! edge list and for each symbol `s` of `v`'s type in order, a fresh node `n` with the edges
//! `x, n: v == T(s);` and `n, y: $ s;` (`T` is `v`'s declared type name; a set-literal type gets
//! no cast). Edges are numbered from the end of the list to the front, as the reference does.
//!
//! An edge is left alone when a symbol of the type is also the name of a variable or constant
//! (the comparison would read that variable or constant instead of the symbol).
//!
//! Game tree: unchanged — `$$ v` is shorthand for exactly these branches: only the
//! branch matching `v`'s value is passable and it adds the same tag. Complexity: linear in the
//! edges plus the edges created.

use super::meta;
use crate::util::{FreshNodes, NewEdges, is_plain_symbol, replace_edges, set_members};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, Symbol, TypeData};
use std::collections::HashMap;

#[derive(Debug)]
pub(crate) struct ExpandTagVariable;

impl Pass for ExpandTagVariable {
    meta!(
        "expand_tag_variable",
        "replace every variable tag `$$ v` by one comparison and tag per symbol of v's type",
        Safe,
        Loop,
        Expand
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut todo: Vec<(EdgeId, Symbol, rg_core::TypeId, Vec<Symbol>)> = Vec::new();
        for (e, d) in g.edges() {
            let Label::TagVar(v) = d.label else { continue };
            let Some(var) = g.variable(v) else { continue };
            let Some(ms) = set_members(g, var.ty) else {
                continue;
            };
            if let Some(&s) = ms.iter().find(|&&s| !is_plain_symbol(g, s)) {
                cx.warnings.push(format!(
                    "expand_tag_variable: kept `$$ {}` because `{}` names a variable or constant",
                    g.name(v),
                    g.name(s)
                ));
                continue;
            }
            todo.push((e, v, var.ty, ms));
        }
        let mut fresh = FreshNodes::new(g);
        let mut branches: HashMap<EdgeId, NewEdges> = HashMap::new();
        for (e, v, ty, ms) in todo.into_iter().rev() {
            let (from, to) = (g.edge(e).from, g.edge(e).to);
            let lhs = g.expr_ref(v);
            let mut edges = Vec::with_capacity(2 * ms.len());
            for s in ms {
                let n = fresh.node(g);
                let sym = g.expr_ref(s);
                let rhs = match g.ty(ty) {
                    TypeData::Name(_) => g.expr_cast(ty, sym),
                    _ => sym,
                };
                edges.push((
                    from,
                    n,
                    Label::Compare {
                        lhs,
                        rhs,
                        negated: false,
                    },
                ));
                edges.push((n, to, Label::Tag(s)));
            }
            branches.insert(e, edges);
        }
        Ok(replace_edges(g, |_, e| branches.remove(&e)))
    }
}
