//! passes.md §3.32 calculate_tag_indexes: `@tagIndex n… : i;` when a tag on an edge leaving
//! these nodes is always the i-th tag (0-based) of its move, `@tagMaxIndex n… : i;` when it is at
//! most the i-th. A compiler then stores moves in a fixed-size array or a bounded vector.
//!
//! Searched: (node, index) pairs from the start of every move search — `begin` and the targets
//! of assignments to `player` (the reference forgets `begin`) — with index 0; a tag edge records
//! the index at its source and continues with index + 1; an assignment to `player` ends the move;
//! other edges (checks included: their sub-searches never add to the move) keep the index. A
//! node reached with index 150 (a cycle through tags) makes every node it can reach unknown (the
//! reference only forgets the node itself, whose successors then keep incomplete indexes); unknown
//! nodes get nothing and the trace gets a warning. Groups with index ≥ 100 are not written.
//! Existing tag-index pragmas are replaced.
//!
//! Game tree: unchanged — the interpreter ignores these pragmas. Complexity: O(150 · (nodes +
//! edges)).

use super::meta;
use crate::analysis::search_starts::Starts;
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
        let mut indexes: Vec<Vec<u64>> = vec![Vec::new(); cap];
        let mut overflow: Vec<NodeId> = Vec::new();
        let mut seen: HashSet<(NodeId, u64)> = HashSet::new();
        let mut work: Vec<(NodeId, u64)> = Vec::new();
        for s in Starts::of(g).moves {
            if seen.insert((s, 0)) {
                work.push((s, 0));
            }
        }
        while let Some((n, i)) = work.pop() {
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if assigns_player(g, &d.label) {
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
                if next >= CAP {
                    overflow.push(d.to);
                } else if seen.insert((d.to, next)) {
                    work.push((d.to, next));
                }
            }
        }
        // Everything reachable from where the search gave up has incomplete indexes.
        let mut unknown = vec![false; cap];
        let mut stack = overflow;
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut unknown[n.index()], true) {
                continue;
            }
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if !assigns_player(g, &d.label) {
                    stack.push(d.to);
                }
            }
        }
        let skipped = unknown
            .iter()
            .zip(&indexes)
            .filter(|(u, ix)| **u && !ix.is_empty())
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
            if ix.is_empty() || unknown[n.index()] {
                continue;
            }
            let max = *ix.iter().max().expect("not empty");
            if max < WRITTEN_BELOW {
                groups.entry((ix.len() > 1, max)).or_default().push(n);
            }
        }
        let mut computed: Vec<PragmaKind> = Vec::new();
        for ((several, index), mut nodes) in groups {
            nodes.sort_by(|a, b| g.node_name(*a).as_bytes().cmp(g.node_name(*b).as_bytes()));
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
        g.touch();
        Ok(true)
    }
}
