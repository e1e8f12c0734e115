//! `join_fork_prefixes`: when several edges leaving a node carry the same label, the label is
//! executed once and the walks branch afterwards by skips (the prefixes of a fork join).
//!
//! At a node `n`, the outgoing edges whose target has edges of its own (a sink such as `end` or
//! the end of a check is never joined into) are grouped by label (exact equality), in the order
//! of each group's first edge. In each group of at least two edges to distinct targets, one edge
//! is chosen as the *head*, and every other edge `n -L-> ti` becomes a skip `h, ti:` leaving the
//! head's target `h`. When `ti` was entered only by that edge, the skip is contracted at once
//! (`ti`'s edges leave `h`, as `compact_skip_edges` would do), so the next level of a deep shared
//! prefix is joined in the next round of the same run. Rounds revisit only the nodes a rewrite
//! touched, until one changes nothing.
//!
//! When it applies:
//! - an assignment to `player` is never joined: it ends a move, and joining would move the
//!   boundary between moves;
//! - protected nodes are never heads and never contracted: the start and end nodes of
//!   reachability checks, `begin`, `end` and every node a pragma names. They have uses the
//!   rewrite cannot see (a check starting or ending at a head would accept the new walks out of
//!   it; a pragma naming it would describe other edges);
//! - the head is the first edge whose target is not protected and is entered by that edge only;
//!   failing that, the first unprotected target, provided all targets of the group have the same
//!   predecessors (the same sources with the same labels); otherwise the group is left alone;
//! - targets already rewritten in this round wait for the next one;
//! - the work of one run is capped in proportion to the game's size (40 steps per node and
//!   edge, plus a million): a node next to many rewrites can be revisited in many rounds. At the
//!   cap the pass stops with a warning; the game is correct, only less joined.
//!
//! Why the game tree is kept: a walk `n -L-> ti` becomes `n -L-> h -> ti`, with the same effect on
//! the state and the same labels, since a skip changes neither. The new skips leave `h`, so they
//! must not offer walks that did not exist: if `h` is entered only by the head edge, only walks
//! that just executed `L` at `n` reach it, and those could go to `ti` directly; if all targets
//! have the same predecessors, every way into `h` also led into each `ti` with the same label.
//!
//! ```text
//! before:  a, b1: v == p;  a, b2: v == p;  b1, c1: $ one;  b2, c2: $ two;
//! after:   a, b1: v == p;  b1, c1: $ one;  b1, c2: $ two;
//! ```
//! (`v == p` is tested once; `b2`, entered only by its edge, is contracted into the head's target
//! `b1`. Had `b2` been named by a pragma, `a, b2: v == p` would have become the skip `b1, b2:`.)
//!
//! Complexity: linear in the size of the game per round, within the work cap.
//!
//! Between runs: on large GDL translations the pass alternates with `reorder_comparisons` many
//! times, and its first round stepped every node of the game each time. A run that ends without
//! reaching its cap keeps, in the pass context, the generation at which it started and the
//! protected nodes it saw ([`PrefixMemo`]); the next run's first round steps only the nodes a
//! change since could concern (see [`changed_since`]) — the others would find nothing, as they
//! found nothing then — in the same order, and counts the work of the others as if it had
//! stepped them, so the rewrites and the cap are those of a run without it.

use super::meta;
use crate::util::assigns_player;
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, EntityId, Game, Label, NodeId};
use std::collections::{HashMap, HashSet};

/// The work cap of one run: this many steps per node and edge, plus [`MIN_WORK`].
const WORK_PER_ELEMENT: u64 = 40;
const MIN_WORK: u64 = 1_000_000;
/// The most predecessors of a moved edge's target revisited in the next round.
const REVISIT_PREDECESSORS: usize = 64;

/// Edges leaving a node with the same label are executed once, then branch by skips.
#[derive(Debug)]
pub(crate) struct JoinForkPrefixes;

/// What the next run needs to step only the nodes changes concern (see the module
/// documentation): the node numbering, the generation at which the last run started (a change
/// then or later has a greater stamp) and the protected nodes it saw.
#[derive(Debug)]
pub(crate) struct PrefixMemo {
    layout: u64,
    start: u64,
    protected: Vec<bool>,
}

/// The nodes whose step may find something now although it found nothing when `memo` was
/// taken, in node order. A step at `n` reads `n`'s outgoing edges (their labels and targets),
/// and of each target its adjacency lists, whether it is protected and the sources and labels
/// of its incoming edges. So `n` is concerned when its own lists changed, when it is the source
/// of a changed edge, or when it enters (by an edge) a node whose lists, protection or
/// incoming edges changed.
fn changed_since(g: &Game, memo: &PrefixMemo, protected: &[bool]) -> Vec<NodeId> {
    let mut concerned = vec![false; g.node_capacity()];
    let mut targets = vec![false; g.node_capacity()];
    for n in g.nodes().ids() {
        let i = n.index();
        if g.adjacency_stamp(n) > memo.start {
            concerned[i] = true;
            targets[i] = true;
        }
        if memo.protected.get(i).copied().unwrap_or(false) != protected[i] {
            targets[i] = true;
        }
    }
    for (e, d) in g.edge_entries().iter() {
        if g.edge_stamp(e) > memo.start {
            concerned[d.from.index()] = true;
            targets[d.to.index()] = true;
        }
    }
    for (i, _) in targets.iter().enumerate().filter(|&(_, &t)| t) {
        for &e in g.incoming(NodeId::new(i)) {
            concerned[g.edge(e).from.index()] = true;
        }
    }
    concerned
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c)
        .map(|(i, _)| NodeId::new(i))
        .collect()
}

/// Whether two of `edges` carry the same label (pairwise for a few edges, hashed for many).
fn has_repeated_label(g: &Game, edges: &[EdgeId]) -> bool {
    if edges.len() <= 16 {
        edges.iter().enumerate().any(|(i, &a)| {
            let l = &g.edge(a).label;
            edges[i + 1..].iter().any(|&b| g.edge(b).label == *l)
        })
    } else {
        let mut seen = HashSet::with_capacity(edges.len());
        !edges.iter().all(|&e| seen.insert(g.edge(e).label))
    }
}

/// One round over `nodes`; returns the nodes where a new prefix may have appeared (the heads
/// that received edges, the forks that lost them and the predecessors of the moved edges'
/// targets), empty when nothing changed.
///
/// A target entered only by its moved edge (and not `begin`, `end` or a check node) is then
/// contracted into the head, as compact_skip_edges would do with the new skip: its edges leave
/// the head instead, so the next level of the shared prefix is joined in the next round of this
/// run rather than one loop iteration of the pass manager later.
fn prefix_step(g: &mut Game, protected: &[bool], nodes: &[NodeId], work: &mut u64) -> Vec<NodeId> {
    let mut rewrites: Vec<(EdgeId, NodeId)> = Vec::new();
    let mut contract: Vec<(EdgeId, NodeId)> = Vec::new(); // (the new skip, the head)
    let mut touched: HashSet<NodeId> = HashSet::new();
    let mut next: Vec<NodeId> = Vec::new();
    let mut group_of: HashMap<Label, usize> = HashMap::new();
    for &n in nodes {
        let all = g.outgoing(n);
        *work += all.len() as u64 + 1;
        // Most nodes have fewer than two edges or no label twice: tell without allocating.
        if all.len() < 2 || !has_repeated_label(g, all) {
            continue;
        }
        let out: Vec<EdgeId> = all
            .iter()
            .copied()
            .filter(|&e| !g.outgoing(g.edge(e).to).is_empty())
            .collect();
        if out.len() < 2 {
            continue;
        }
        // Groups in order of their first edge (a map finds the group: a linear search was
        // quadratic in the out-degree).
        let mut groups: Vec<Vec<EdgeId>> = Vec::new();
        crate::util::reset_map(&mut group_of);
        for e in out {
            let l = g.edge(e).label;
            // A `player` assignment is never joined, so the boundary between moves cannot move.
            if assigns_player(g, &l) {
                continue;
            }
            let i = *group_of.entry(l).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[i].push(e);
        }
        for group in groups {
            if group.len() < 2 {
                continue;
            }
            let targets: Vec<NodeId> = group.iter().map(|&e| g.edge(e).to).collect();
            // All targets distinct and not yet touched in this step.
            let distinct: HashSet<NodeId> = targets.iter().copied().collect();
            if distinct.len() != targets.len() || targets.iter().any(|t| touched.contains(t)) {
                continue;
            }
            // The head receives the other edges' targets as new successors, so it must have no
            // use the rewrite cannot see: a check that starts (or ends) there would accept the
            // new walks out of it, and a pragma that names it would describe other edges.
            let head = group
                .iter()
                .position(|&e| {
                    let t = g.edge(e).to;
                    !protected[t.index()] && g.incoming(t).len() == 1
                })
                .or_else(|| {
                    let free = targets.iter().position(|t| !protected[t.index()])?;
                    // Cheap test first: the predecessor lists can only agree if their
                    // lengths do (collecting them for every fork is quadratic on large games).
                    let len = g.incoming(targets[0]).len();
                    if targets[1..].iter().any(|&t| g.incoming(t).len() != len) {
                        return None;
                    }
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
                    targets[1..]
                        .iter()
                        .all(|&t| preds(t) == first)
                        .then_some(free)
                });
            let Some(h) = head else { continue };
            let hnode = targets[h];
            touched.extend(targets.iter().copied());
            next.push(n);
            next.push(hnode);
            for &t in &targets {
                *work += g.incoming(t).len() as u64;
                next.extend(g.incoming(t).iter().map(|&i| g.edge(i).from));
            }
            for (i, &e) in group.iter().enumerate() {
                if i != h {
                    rewrites.push((e, hnode));
                    let t = targets[i];
                    if !protected[t.0 as usize] && g.incoming(t).len() == 1 {
                        contract.push((e, hnode));
                    }
                }
            }
        }
    }
    for (e, h) in rewrites {
        g.set_source(e, h);
        g.set_label(e, Label::Skip);
    }
    // Rewrites move sources only, so each contracted target is still entered by its skip alone.
    for (e, h) in contract {
        let t = g.edge(e).to;
        g.remove_edge(e);
        for o in g.outgoing(t).to_vec() {
            // The predecessors of `o`'s target may now find a head among their targets. Not
            // revisited when there are many (a hub): the next run of the pass, over every node,
            // finds them, and revisiting them after every move was quadratic.
            let preds = g.incoming(g.edge(o).to);
            if preds.len() <= REVISIT_PREDECESSORS {
                *work += preds.len() as u64;
                next.extend(preds.iter().map(|&i| g.edge(i).from));
            }
            g.set_source(o, h);
        }
    }
    next.sort_unstable();
    next.dedup();
    next
}

impl Pass for JoinForkPrefixes {
    meta!(
        "join_fork_prefixes",
        "edges leaving a node with the same label run it once, then branch",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        // Later rounds only revisit the nodes a rewrite touched: a deep shared prefix is
        // merged one level per round, and rescanning the whole graph each round was quadratic.
        // Nodes whose other uses the rewrite cannot see: check starts and ends, `begin`, `end`
        // and nodes named by pragmas. They are neither heads (which gain edges) nor contracted.
        let mut protected = (*cx.check_nodes(g)).clone().into_raw();
        for n in [g.begin(), g.end()].into_iter().flatten() {
            protected[n.0 as usize] = true;
        }
        for p in &g.pragmas {
            p.kind.for_each_node(|n| protected[n.index()] = true);
        }
        let start = g.generation();
        let memo = cx
            .prefix_memo
            .take()
            .filter(|m| m.layout == g.node_layout());
        // The work the nodes left out would have counted in the first round (one per node and
        // per edge leaving it), added after that round.
        let mut skipped = 0u64;
        let mut nodes: Vec<NodeId> = match &memo {
            Some(memo) => {
                let nodes = changed_since(g, memo, &protected);
                let stepped: usize = nodes.iter().map(|&n| g.outgoing(n).len() + 1).sum();
                skipped = (g.node_capacity() + g.edge_count() - stepped) as u64;
                nodes
            }
            None => g.nodes().ids().collect(),
        };
        drop(memo);
        let mut changed = false;
        // A node next to many rewrites is revisited in many rounds (quadratic on some graphs),
        // so the work is capped in proportion to the game's size.
        let budget = WORK_PER_ELEMENT * (g.node_count() + g.edge_count()) as u64 + MIN_WORK;
        let mut work = 0u64;
        loop {
            if work > budget {
                cx.warnings.push(format!(
                    "join_fork_prefixes: stopped after {work} steps (the cap for this game's size)"
                ));
                return Ok(changed);
            }
            nodes = prefix_step(g, &protected, &nodes, &mut work);
            work += std::mem::take(&mut skipped);
            if nodes.is_empty() {
                // Every node would find nothing now, except those changes since `start`
                // concern.
                cx.prefix_memo = Some(PrefixMemo {
                    layout: g.node_layout(),
                    start,
                    protected,
                });
                return Ok(changed);
            }
            changed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::run;

    /// A shared prefix two levels deep is joined in one run: the moved targets `b2` and `c2`,
    /// entered only by their edges, are contracted into the heads instead of left behind skips.
    #[test]
    fn a_deep_shared_prefix_is_joined_in_one_run() {
        let (_, after, changed, _) = run(
            &JoinForkPrefixes,
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: player = x;\n\
             a, b1: v == p;\n\
             a, b2: v == p;\n\
             b1, c1: $ one;\n\
             b2, c2: $ one;\n\
             c1, end: player = keeper;\n\
             c2, d: $ two;\n\
             d, end: player = keeper;",
        );
        let text = rg_core::print(&after);
        assert!(changed);
        assert_eq!(text.matches("v == p").count(), 1, "{text}");
        assert_eq!(text.matches("$ one").count(), 1, "{text}");
        assert!(!text.contains("b2") && !text.contains("c2,"), "{text}");
    }

    /// The example of the module doc: the shared comparison is tested once and `b2`, entered
    /// only by its edge, is contracted into `b1`.
    #[test]
    fn the_module_doc_example() {
        let (_, after, changed, _) = run(
            &JoinForkPrefixes,
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: player = x;\n\
             a, b1: v == p;\n\
             a, b2: v == p;\n\
             b1, c1: $ one;\n\
             b2, c2: $ two;\n\
             c1, end: player = keeper;\n\
             c2, end: player = keeper;",
        );
        let text = rg_core::print(&after);
        assert!(changed);
        for edge in ["a, b1: v == p;", "b1, c1: $ one;", "b1, c2: $ two;"] {
            assert!(text.contains(edge), "{edge} missing in\n{text}");
        }
        assert!(!text.contains("b2"), "{text}");
    }
}
