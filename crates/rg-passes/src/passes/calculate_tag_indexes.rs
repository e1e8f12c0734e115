//! `calculate_tag_indexes`: `@tagIndex n… : i;` when a tag on an edge leaving
//! these nodes is always the i-th tag (0-based) of its move, `@tagMaxIndex n… : i;` when it is at
//! most the i-th. A compiler then stores moves in a fixed-size array or a bounded vector.
//!
//! Searched: (node, index) pairs from the start of every move search — `begin` and the targets
//! of assignments to `player` (the reference forgets `begin`) — with index 0; a tag edge records
//! the index at its source and continues with index + 1; an assignment to `player` ends the move;
//! other edges (checks included: their sub-searches never add to the move) keep the index. A
//! node reached with index 150 makes every node it can reach unknown (the reference only forgets
//! the node itself, whose successors then keep incomplete indexes); unknown nodes get nothing and
//! the trace gets a warning. Groups with index ≥ 100 are not written. Existing tag-index pragmas
//! are replaced.
//!
//! A cycle through a tag edge would be walked until index 150, so such cycles are found first
//! (strongly connected components of the move edges): every node they reach is unknown from the
//! start, and the search does not enter them. The result is the same, as no path to a known node
//! passes through such a cycle.
//!
//! ```text
//! before:  begin, a: $ from;  a, b: $ to;  b, c: player = other;
//! after:   @tagIndex begin : 0;  @tagIndex a : 1;  (the edges are unchanged)
//! ```
//!
//! Game tree: unchanged — the interpreter ignores these pragmas. Complexity: O(nodes + edges)
//! for the components, O(150 · (nodes + edges)) at worst for the search (a tag-free part of the
//! graph reached with many distinct indexes).

use super::meta;
use crate::analysis::search_starts::{Starts, components};
use crate::util::NodeMap;
use crate::util::assigns_player;
use crate::{Pass, PassContext, PassError};
use rg_core::EntityId;
use rg_core::{Game, NodeId, Pragma, PragmaKind};
use std::collections::{BTreeMap, HashSet};

#[derive(Debug)]
pub(crate) struct CalculateTagIndexes;

/// The index at which the search gives up on a node.
const CAP: u64 = 150;
/// Groups with this index or more are not written.
const WRITTEN_BELOW: u64 = 100;

impl Pass for CalculateTagIndexes {
    meta!(
        "calculate_tag_indexes",
        "add @tagIndex/@tagMaxIndex with the position of the tags leaving each node in their move",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let cap = g.node_capacity();
        let starts = Starts::of(g).moves;
        let in_move = |e: rg_core::EdgeId| !assigns_player(g, &g.edge(e).label);
        // Nodes on a cycle through a tag: the targets of tag edges inside a component.
        let comp = components(g, in_move);
        let mut cyclic: Vec<NodeId> = Vec::new();
        for n in g.nodes().ids() {
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if d.label.is_tag() && comp[d.to.index()] == comp[n.index()] && in_move(e) {
                    cyclic.push(d.to);
                }
            }
        }
        // Everything a move search reaches from a cycle through tags has incomplete indexes.
        let reached = reach(g, starts.clone(), &in_move, &NodeMap::from_elem(false, cap));
        cyclic.retain(|n| reached[*n]);
        let mut unknown = reach(g, cyclic, &in_move, &NodeMap::from_elem(false, cap));
        let mut indexes: Vec<Vec<u64>> = vec![Vec::new(); cap];
        let mut overflow: Vec<NodeId> = Vec::new();
        let mut seen: HashSet<(NodeId, u64)> = HashSet::new();
        let mut work: Vec<(NodeId, u64)> = Vec::new();
        for s in starts {
            if !unknown[s] && seen.insert((s, 0)) {
                work.push((s, 0));
            }
        }
        while let Some((n, i)) = work.pop() {
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if !in_move(e) {
                    continue;
                }
                let next = if d.label.is_tag() {
                    if !indexes[n.index()].contains(&i) {
                        indexes[n.index()].push(i);
                    }
                    i + 1
                } else {
                    i
                };
                if unknown[d.to] {
                    continue;
                }
                if next >= CAP {
                    overflow.push(d.to);
                } else if seen.insert((d.to, next)) {
                    work.push((d.to, next));
                }
            }
        }
        // Likewise from where the search gave up.
        let more = reach(g, overflow, &in_move, &unknown);
        for (n, &m) in more.iter() {
            unknown[n] |= m;
        }
        let skipped = g
            .nodes()
            .ids()
            .filter(|n| unknown[*n])
            .filter(|&n| g.outgoing(n).iter().any(|&e| g.edge(e).label.is_tag()))
            .count();
        if skipped > 0 {
            cx.warnings.push(format!(
                "calculate_tag_indexes: a move can have {CAP} or more tags (a cycle through tags); {skipped} node(s) with tags get no index"
            ));
        }
        // (several indexes?, index) ↦ nodes: @tagIndex groups first, each kind by index.
        let mut groups: BTreeMap<(bool, u64), Vec<NodeId>> = BTreeMap::new();
        for n in g.nodes().ids() {
            let ix = &indexes[n.index()];
            if ix.is_empty() || unknown[n] {
                continue;
            }
            let max = *ix.iter().max().expect("not empty");
            if max < WRITTEN_BELOW {
                groups.entry((ix.len() > 1, max)).or_default().push(n);
            }
        }
        let mut computed: Vec<PragmaKind> = Vec::new();
        for ((several, index), mut nodes) in groups {
            crate::util::sort_by_name(g, &mut nodes);
            computed.push(if several {
                PragmaKind::TagMaxIndex { index, nodes }
            } else {
                PragmaKind::TagIndex { index, nodes }
            });
        }
        let existing: Vec<&PragmaKind> = g
            .pragmas
            .iter()
            .map(|p| &p.kind)
            .filter(|k| {
                matches!(
                    k,
                    PragmaKind::TagIndex { .. } | PragmaKind::TagMaxIndex { .. }
                )
            })
            .collect();
        if existing.len() == computed.len() && existing.iter().zip(&computed).all(|(a, b)| *a == b)
        {
            return Ok(false);
        }
        g.pragmas.retain(|p| {
            !matches!(
                p.kind,
                PragmaKind::TagIndex { .. } | PragmaKind::TagMaxIndex { .. }
            )
        });
        g.pragmas.extend(computed.into_iter().map(|kind| Pragma {
            kind,
            derived: true,
            span: None,
        }));
        Ok(true)
    }
}

/// The nodes reachable from `from` over the edges `keep` accepts, not entering nodes already set
/// in `stop` (which are not in the result).
fn reach(
    g: &Game,
    from: Vec<NodeId>,
    keep: &dyn Fn(rg_core::EdgeId) -> bool,
    stop: &NodeMap<bool>,
) -> NodeMap<bool> {
    let mut out = NodeMap::from_elem(false, g.node_capacity());
    let mut stack = from;
    while let Some(n) = stack.pop() {
        if stop[n] || std::mem::replace(&mut out[n], true) {
            continue;
        }
        for &e in g.outgoing(n) {
            if keep(e) {
                stack.push(g.edge(e).to);
            }
        }
    }
    out
}
