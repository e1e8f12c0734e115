//! passes.md §3.12 join_fork_suffixes.

use super::meta;
use crate::util::check_nodes;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, NodeId};
use std::collections::HashSet;

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
        for (i, &e1) in inc.iter().enumerate() {
            let y1 = g.edge(e1).from;
            if removed.contains(&y1)
                || y1 == x
                || g.outgoing(y1).len() != 1
                || checks[y1.0 as usize]
            {
                continue;
            }
            let l1 = g.edge(e1).label;
            for &e2 in &inc[i + 1..] {
                let y2 = g.edge(e2).from;
                if y2 == y1
                    || y2 == x
                    || g.edge(e2).label != l1
                    || targets.contains(&y2)
                    || removed.contains(&y2)
                    || g.outgoing(y2).len() != 1
                    || checks[y2.0 as usize]
                    || Some(y2) == begin
                    || g.incoming(y2).iter().any(|&p| {
                        let pn = g.edge(p).from;
                        redirected.contains(&pn) || pn == y2
                    })
                {
                    continue;
                }
                targets.insert(y1);
                removed.insert(y2);
                for &p in g.incoming(y2) {
                    redirected.insert(g.edge(p).from);
                }
                plan.push((e2, y2, y1));
            }
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
