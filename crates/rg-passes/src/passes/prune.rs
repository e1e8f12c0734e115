//! passes.md §3.17 prune_self_loops, §3.19 prune_unreachable_nodes, §3.20
//! prune_unused_constants, §3.21 prune_unused_variables.

use super::meta;
use crate::util::{assigned, check_nodes, edge_ids, names_of, reachable_nodes, reads};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label, MapEntry, Symbol, ValueData, ValueId};
use std::collections::HashSet;

/// Self-loops that are comparisons, checks or skips are removed.
#[derive(Debug)]
pub(crate) struct PruneSelfLoops;

impl Pass for PruneSelfLoops {
    meta!(
        "prune_self_loops",
        "remove self-loops labelled with a comparison, a check or a skip",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        for e in edge_ids(g) {
            let d = g.edge(e);
            if d.from == d.to
                && matches!(
                    d.label,
                    Label::Compare { .. } | Label::Reach { .. } | Label::Skip
                )
            {
                g.remove_edge(e);
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// Edges that can never be walked, and one layer of dead ends, are removed.
#[derive(Debug)]
pub(crate) struct PruneUnreachableNodes;

impl Pass for PruneUnreachableNodes {
    meta!(
        "prune_unreachable_nodes",
        "remove edges no walk can reach and edges into dead ends",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        let seen = reachable_nodes(g, true);
        for e in edge_ids(g) {
            if !seen[g.edge(e).from.0 as usize] {
                g.remove_edge(e);
                changed = true;
            }
        }
        let checks = check_nodes(g);
        let end = g.end();
        for e in edge_ids(g) {
            let to = g.edge(e).to;
            if Some(to) != end && g.outgoing(to).is_empty() && !checks[to.0 as usize] {
                g.remove_edge(e);
                changed = true;
            }
        }
        Ok(changed)
    }
}

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
        if changed {
            g.touch();
        }
        Ok(changed)
    }
}

/// Variables that never influence anything (only read by their own assignments) are removed,
/// and their assignments become skips. `$$ v` counts as a use (the reference's defect fixed).
#[derive(Debug)]
pub(crate) struct PruneUnusedVariables;

impl Pass for PruneUnusedVariables {
    meta!(
        "prune_unused_variables",
        "remove variables that never influence the game; their assignments become skips",
        Safe,
        Loop,
        Prune
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let wk = *g.well_known();
        let mut used: HashSet<Symbol> = [wk.player, wk.goals, wk.visible].into_iter().collect();
        for (_, e) in g.edges() {
            let own = assigned(g, &e.label);
            reads(g, &e.label, &mut |s| {
                if Some(s) != own {
                    used.insert(s);
                }
            });
        }
        let unused: HashSet<Symbol> = g
            .variables
            .iter()
            .map(|v| v.name)
            .filter(|n| !used.contains(n))
            .collect();
        if unused.is_empty() {
            return Ok(false);
        }
        for e in edge_ids(g) {
            if let Some(v) = assigned(g, &g.edge(e).label)
                && unused.contains(&v)
            {
                g.set_label(e, Label::Skip);
            }
        }
        g.variables.retain(|v| !unused.contains(&v.name));
        g.touch();
        Ok(true)
    }
}
