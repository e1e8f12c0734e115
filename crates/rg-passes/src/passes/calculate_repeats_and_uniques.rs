//! passes.md §3.29 calculate_repeats_and_uniques: `@unique` for nodes that no search reaches
//! twice with the same state, `@repeat n : v…` for nodes where comparing the listed variables
//! (and the tags) decides whether a state was seen.
//!
//! The interpreter trusts both (rg.md §12.6): a wrong `@unique` duplicates moves, a wrong
//! `@repeat` merges walks that differ, so this pass promises only what it can prove, with its own
//! criteria instead of the reference's ReachingAssignments (which records conditions along walks
//! and is not sound in general):
//!
//! * `@repeat n : V` where `V` holds every ordinary variable that some walk from the start of a
//!   search to `n` may assign ([`arrivals`]). Every other variable still has the
//!   value it had when the search started, so two arrivals with equal tags and equal `V` are the
//!   same state. Not added when `V` is every ordinary variable (that is the default check), nor
//!   when `V` has more than [`MAX_LISTED`] variables: the pragma then saves a consumer little
//!   over the default check and makes the output huge (a GDL translation with thousands of
//!   variables would list thousands of names at each of thousands of nodes). `@repeat` never
//!   merges more states than the default check, so leaving it out changes no game tree.
//! * `@unique n` when `n` has no outgoing edges (expanding a state there twice does nothing), or
//!   when `n` lies on no cycle and has at most one incoming edge a search can arrive by, from
//!   another node, that leaves the state as it is or only appends a tag (skip, comparison, check,
//!   tag). States expanded at the source are pairwise different (its visited check, or its own
//!   true `@unique`/`@repeat`), such an edge keeps them different, and a search that starts at
//!   `n` cannot come back to it. An assignment to `player` delivers no arrival unless a reach
//!   search can walk it (a move search stops there; the state after it starts the next search).
//!
//! Nodes that no search visits, and nodes that already have a `@unique` or `@repeat` pragma, get
//! nothing. Complexity: O((nodes + edges) · variables / 64) for the data flow and the listing,
//! linear for the rest.

use super::meta;
use crate::analysis::search_starts::{Arrivals, arrivals, on_cycle};
use crate::util::assigns_player;
use crate::{Pass, PassContext, PassError};
use rg_core::EntityId;
use rg_core::{Game, Label, NodeId, Pragma, PragmaKind, Symbol};
use std::collections::BTreeMap;

#[derive(Debug)]
pub(crate) struct CalculateRepeatsAndUniques;

/// The most variables a `@repeat` lists.
const MAX_LISTED: usize = 64;

/// Whether the edge maps different states to different states.
fn keeps_states_apart(label: &Label) -> bool {
    matches!(
        label,
        Label::Skip
            | Label::Compare { .. }
            | Label::Reach { .. }
            | Label::Tag(_)
            | Label::TagVar(_)
    )
}

fn by_name(g: &Game, nodes: &mut [NodeId]) {
    crate::util::sort_by_name(g, nodes);
}

impl Pass for CalculateRepeatsAndUniques {
    meta!(
        "calculate_repeats_and_uniques",
        "add @unique for nodes no search reaches twice with one state, @repeat for nodes where a few variables decide",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut decided = vec![false; g.node_capacity()];
        for p in &g.pragmas {
            if let PragmaKind::Unique(ns) | PragmaKind::Repeat { nodes: ns, .. } = &p.kind {
                for n in ns {
                    decided[n.index()] = true;
                }
            }
        }
        let Arrivals { assigned, in_reach } = arrivals(g);
        let cyclic = on_cycle(g);
        let wk = *g.well_known();
        // Per position in `g.variables`: the name of an ordinary variable.
        let ordinary: Vec<Option<Symbol>> = g
            .variables
            .iter()
            .map(|v| (![wk.goals, wk.player, wk.visible].contains(&v.name)).then_some(v.name))
            .collect();
        let ordinaries = ordinary.iter().flatten().count();
        let mut unique: Vec<NodeId> = Vec::new();
        let mut repeats: BTreeMap<Vec<Symbol>, Vec<NodeId>> = BTreeMap::new();
        for n in g.nodes().ids() {
            let Some(vars) = &assigned[n.index()] else {
                continue;
            };
            if decided[n.index()] {
                continue;
            }
            let mut arriving = g
                .incoming(n)
                .iter()
                .map(|&e| g.edge(e))
                .filter(|d| !assigns_player(g, &d.label) || in_reach[d.from.index()]);
            let single_kept_edge = match (arriving.next(), arriving.next()) {
                (None, _) => true,
                (Some(d), None) => d.from != n && keeps_states_apart(&d.label),
                (Some(_), Some(_)) => false,
            };
            if g.outgoing(n).is_empty() || (!cyclic[n.index()] && single_kept_edge) {
                unique.push(n);
                continue;
            }
            if vars.len() > MAX_LISTED + 3 {
                continue; // more than MAX_LISTED ordinary ones (at most 3 are not)
            }
            let mut listed: Vec<Symbol> = vars.iter().filter_map(|i| ordinary[i]).collect();
            if listed.len() == ordinaries || listed.len() > MAX_LISTED {
                continue;
            }
            listed.sort_by(|a, b| g.name(*a).cmp(g.name(*b)));
            repeats.entry(listed).or_default().push(n);
        }
        let mut added = Vec::new();
        let mut repeats: Vec<(Vec<Symbol>, Vec<NodeId>)> = repeats.into_iter().collect();
        for (_, nodes) in &mut repeats {
            by_name(g, nodes);
        }
        // Deterministic order: by the first node's name.
        repeats.sort_by(|a, b| g.node_name(a.1[0]).cmp(g.node_name(b.1[0])));
        for (variables, nodes) in repeats {
            added.push(PragmaKind::Repeat { nodes, variables });
        }
        if !unique.is_empty() {
            by_name(g, &mut unique);
            added.push(PragmaKind::Unique(unique));
        }
        if added.is_empty() {
            return Ok(false);
        }
        g.pragmas.extend(added.into_iter().map(|kind| Pragma {
            kind,
            derived: true,
            span: None,
        }));
        g.touch();
        Ok(true)
    }
}
