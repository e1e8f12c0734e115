//! passes.md §3.12 join_fork_suffixes.

use super::meta;
use crate::util::check_nodes;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, NodeId};
use std::collections::{HashMap, HashSet};

/// Nodes whose only edge is the same label to the same node are merged.
#[derive(Debug)]
pub(crate) struct JoinForkSuffixes;

fn suffix_step(g: &mut Game) -> bool {
    let checks = check_nodes(g);
    let begin = g.begin();
    let mut removed: HashSet<NodeId> = HashSet::new();
    let mut targets: HashSet<NodeId> = HashSet::new();
    let mut redirected: HashSet<NodeId> = HashSet::new();
    let mut plan: Vec<(EdgeId, NodeId, NodeId)> = Vec::new(); // (e2, y2, y1)
    for x in g.nodes().ids() {
        let inc: Vec<EdgeId> = g.incoming(x).to_vec();
        // The first node per label that can absorb the later ones (grouping by label keeps
        // this linear in the in-degree; pairing every two edges was quadratic).
        let mut first: HashMap<Label, NodeId> = HashMap::new();
        for &e in &inc {
            let y = g.edge(e).from;
            let l = g.edge(e).label;
            if y == x || removed.contains(&y) || g.outgoing(y).len() != 1 || checks[y.0 as usize] {
                continue;
            }
            let Some(&y1) = first.get(&l) else {
                first.insert(l, y);
                continue;
            };
            if y == y1
                || targets.contains(&y)
                || Some(y) == begin
                || g.incoming(y).iter().any(|&p| {
                    let pn = g.edge(p).from;
                    redirected.contains(&pn) || pn == y
                })
            {
                continue;
            }
            targets.insert(y1);
            removed.insert(y);
            for &p in g.incoming(y) {
                redirected.insert(g.edge(p).from);
            }
            plan.push((e, y, y1));
        }
    }
    let changed = !plan.is_empty();
    for (e2, y2, y1) in plan {
        for p in g.incoming(y2).to_vec() {
            g.set_target(p, y1);
        }
        g.remove_edge(e2);
    }
    changed
}

impl Pass for JoinForkSuffixes {
    meta!(
        "join_fork_suffixes",
        "nodes whose only edge is the same label to the same node are merged",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        while suffix_step(g) {
            changed = true;
        }
        Ok(changed)
    }
}
