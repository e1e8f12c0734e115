//! passes.md §3.11 join_fork_prefixes.

use super::meta;
use crate::util::assigns_player;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, NodeId};
use std::collections::HashSet;

/// Edges leaving a node with the same label are executed once, then branch by skips.
#[derive(Debug)]
pub(crate) struct JoinForkPrefixes;

fn prefix_step(g: &mut Game) -> bool {
    let mut rewrites: Vec<(EdgeId, NodeId)> = Vec::new();
    let mut touched: HashSet<NodeId> = HashSet::new();
    for n in g.nodes().ids() {
        let out: Vec<EdgeId> = g
            .outgoing(n)
            .iter()
            .copied()
            .filter(|&e| !g.outgoing(g.edge(e).to).is_empty())
            .collect();
        if out.len() < 2 {
            continue;
        }
        let mut groups: Vec<(Label, Vec<EdgeId>)> = Vec::new();
        for e in out {
            let l = g.edge(e).label;
            // A `player` assignment is never joined, so the boundary between moves cannot move.
            if assigns_player(g, &l) {
                continue;
            }
            match groups.iter_mut().find(|(gl, _)| *gl == l) {
                Some((_, v)) => v.push(e),
                None => groups.push((l, vec![e])),
            }
        }
        for (_, group) in groups {
            if group.len() < 2 {
                continue;
            }
            let targets: Vec<NodeId> = group.iter().map(|&e| g.edge(e).to).collect();
            // All targets distinct and not yet touched in this step.
            let distinct: HashSet<NodeId> = targets.iter().copied().collect();
            if distinct.len() != targets.len() || targets.iter().any(|t| touched.contains(t)) {
                continue;
            }
            let head = group
                .iter()
                .position(|&e| g.incoming(g.edge(e).to).len() == 1)
                .or_else(|| {
                    let preds = |t: NodeId| {
                        let mut v: Vec<(NodeId, Label)> = g
                            .incoming(t)
                            .iter()
                            .map(|&i| (g.edge(i).from, g.edge(i).label))
                            .collect();
                        v.sort_by_key(|(n, _)| *n);
                        v
                    };
                    let first = preds(targets[0]);
                    targets[1..].iter().all(|&t| preds(t) == first).then_some(0)
                });
            let Some(h) = head else { continue };
            let hnode = targets[h];
            touched.extend(targets.iter().copied());
            for (i, &e) in group.iter().enumerate() {
                if i != h {
                    rewrites.push((e, hnode));
                }
            }
        }
    }
    let changed = !rewrites.is_empty();
    for (e, h) in rewrites {
        g.set_source(e, h);
        g.set_label(e, Label::Skip);
    }
    changed
}

impl Pass for JoinForkPrefixes {
    meta!(
        "join_fork_prefixes",
        "edges leaving a node with the same label run it once, then branch",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        while prefix_step(g) {
            changed = true;
        }
        Ok(changed)
    }
}
