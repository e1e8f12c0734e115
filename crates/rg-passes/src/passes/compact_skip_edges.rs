//! `compact_skip_edges`: remove empty edges by contracting skip chains, and drop conditional edges
//! that run parallel to a skip (never tags: the reference's defect in step 1 is fixed).
//!
//! Each round, until one changes nothing:
//! 1. for every skip `x → y`, the other edges `x → y` that are comparisons or checks go (the
//!    skip already lets every walk through, so a condition beside it adds nothing);
//! 2. a node whose only way out is a skip to `z` is merged into `z` (its incoming edges are
//!    moved to `z`);
//! 3. a node entered only by a skip from `x` gives its outgoing edges to `x`;
//! 4. (not in the reference) an edge `x -L-> z` goes when a skip `x → y` leads to a twin
//!    `y -L-> z`, unless `L` assigns `player`.
//!
//! Applies to every node except `begin`, `end` and the nodes a reachability check names
//! (moving them would change what the check means).
//!
//! Why the game tree is kept: a skip changes neither the state nor the move, so contracting it
//! joins two points every walk passes through with the same state and labels; a dropped
//! parallel condition only offered a walk the skip offers too; the twin of step 4 makes the same
//! move, and the interpreter's visited-state check merges the two walks at `z` anyway.
//!
//! ```text
//! before:  a, b: ;  b, c: x = 1;  a, c: x == 0;  a, c: ;
//! after:   a, c: ;  a, c: x = 1;
//! ```
//! (`a, c: x == 0` lies beside the skip `a, c` and goes; `b` is entered only by the skip from
//! `a`, so its edge `b, c: x = 1` moves to `a`.)
//!
//! Complexity: linear in the size of the game per round; rounds until a fixed point.
use crate::util::FxHashSet;
use crate::util::NodeMap;
use crate::{Category, NameOrder, Pass, PassContext, PassError, PassPhase, Safety};
use rg_core::{EdgeId, Game, Label, NodeId};

#[derive(Debug)]
pub(crate) struct CompactSkipEdges;

/// The skip edges `y → z` that step 2 (`backward`, by `z`) or step 3 (`forward`, by `y`) may
/// contract. Only their nodes are sorted by name (sorting every node each round dominated the
/// pass on large games); visiting just these in name order gives the same result as visiting
/// all nodes in name order, since the others never match.
fn contraction_candidates(
    g: &Game,
    cx: &mut PassContext,
    protected: &NodeMap<bool>,
) -> (Vec<NodeId>, Vec<NodeId>) {
    let mut zs = Vec::new();
    let mut xs = Vec::new();
    for (_, d) in g.edges() {
        if d.label != Label::Skip || d.from == d.to {
            continue;
        }
        let (y, z) = (d.from, d.to);
        if !protected[y] && g.outgoing(y).len() == 1 {
            zs.push(z);
        }
        if !protected[z] && g.incoming(z).len() == 1 {
            xs.push(y);
        }
    }
    for v in [&mut zs, &mut xs] {
        v.sort_unstable();
        v.dedup();
    }
    // In name order (names are unique, so the order is deterministic).
    (
        cx.sort_by_name(g, NameOrder::SkipTargets, zs),
        cx.sort_by_name(g, NameOrder::SkipSources, xs),
    )
}

/// Whether a node has any edge (isolated nodes are skipped).
fn connected(g: &Game, n: NodeId) -> bool {
    !g.outgoing(n).is_empty() || !g.incoming(n).is_empty()
}

/// Step 1: for every `x → y` with a skip, remove the other non-assignment, non-tag edges.
fn obsolete_parallel(g: &mut Game) -> bool {
    let mut remove = Vec::new();
    for n in g.nodes().ids() {
        let out = g.outgoing(n);
        // Most nodes have no skip: nothing to look at (and nothing to allocate).
        if out.len() < 2 || !out.iter().any(|&e| g.edge(e).label == Label::Skip) {
            continue;
        }
        let mut skip_to: FxHashSet<NodeId> = FxHashSet::default();
        for &e in out {
            let d = g.edge(e);
            if d.label == Label::Skip {
                skip_to.insert(d.to);
            }
        }
        let mut kept_skip: FxHashSet<NodeId> = FxHashSet::default();
        for &e in out {
            let d = g.edge(e);
            if !skip_to.contains(&d.to) {
                continue;
            }
            match d.label {
                Label::Skip if kept_skip.insert(d.to) => {}
                Label::Skip | Label::Compare { .. } | Label::Reach { .. } => remove.push(e),
                _ => {}
            }
        }
    }
    let changed = !remove.is_empty();
    g.remove_edges(&remove);
    changed
}

/// Step 2: a node whose only way out is a skip to `z` is merged into `z`.
fn backward(g: &mut Game, protected: &NodeMap<bool>, order: &[NodeId]) -> bool {
    let mut used = NodeMap::from_elem(false, g.node_capacity());
    let mut retarget: Vec<(EdgeId, NodeId)> = Vec::new();
    let mut removal: FxHashSet<EdgeId> = FxHashSet::default();
    for &z in order {
        if used[z] || !connected(g, z) {
            continue;
        }
        for &e in g.incoming(z) {
            let d = g.edge(e);
            let y = d.from;
            if d.label != Label::Skip
                || y == z
                || used[y]
                || protected[y]
                || g.outgoing(y).len() != 1
            {
                continue;
            }
            let ys: Vec<EdgeId> = g
                .incoming(y)
                .iter()
                .copied()
                .filter(|i| !removal.contains(i))
                .collect();
            if ys.is_empty() {
                continue;
            }
            used[y] = true;
            used[z] = true;
            if ys.len() == g.incoming(y).len() {
                removal.insert(e);
            }
            retarget.extend(ys.into_iter().map(|i| (i, z)));
        }
    }
    let changed = !retarget.is_empty() || !removal.is_empty();
    g.set_targets(&retarget);
    let removal: Vec<EdgeId> = removal.into_iter().collect();
    g.remove_edges(&removal);
    changed
}

/// Step 3: a node entered only by a skip from `x` gives its outgoing edges to `x`.
fn forward(g: &mut Game, protected: &NodeMap<bool>, order: &[NodeId]) -> bool {
    let mut used = NodeMap::from_elem(false, g.node_capacity());
    let mut resource: Vec<(EdgeId, NodeId)> = Vec::new();
    let mut removal: FxHashSet<EdgeId> = FxHashSet::default();
    for &x in order {
        if used[x] || !connected(g, x) {
            continue;
        }
        for &e in g.outgoing(x) {
            let d = g.edge(e);
            let y = d.to;
            if d.label != Label::Skip
                || y == x
                || used[y]
                || protected[y]
                || g.incoming(y).len() != 1
            {
                continue;
            }
            let ys: Vec<EdgeId> = g
                .outgoing(y)
                .iter()
                .copied()
                .filter(|o| !removal.contains(o))
                .collect();
            if ys.is_empty() {
                continue;
            }
            used[x] = true;
            used[y] = true;
            if ys.len() == g.outgoing(y).len() {
                removal.insert(e);
            }
            resource.extend(ys.into_iter().map(|o| (o, x)));
            break;
        }
    }
    let changed = !resource.is_empty() || !removal.is_empty();
    g.set_sources(&resource);
    let removal: Vec<EdgeId> = removal.into_iter().collect();
    g.remove_edges(&removal);
    changed
}

/// Whether a label assigns `player` (it ends a move; finished moves are never merged).
fn ends_move(g: &Game, label: &Label) -> bool {
    let player = g.well_known().player;
    matches!(*label, Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
        if g.expr(g.strip_casts(lhs)) == rg_core::ExprData::Ref(player))
}

/// Step 4 (not in the reference): an edge `x -L-> z` goes when `x` has a skip to some `y` that
/// has the same edge `y -L-> z`. Every walk over it has a twin through the skip with the same
/// effect and tags, and the interpreter's visited check merges the two at `z`, so no move
/// changes; `player` assignments are kept (finished moves are not merged). One removal at a
/// time, so the witness of a removal is never removed by the same check.
fn redundant_via_skip(g: &mut Game) -> bool {
    let mut changed = false;
    for x in g.nodes().ids() {
        let has_skip = |g: &Game| {
            g.outgoing(x).iter().any(|&s| {
                let d = g.edge(s);
                d.label == Label::Skip && d.to != x
            })
        };
        if g.outgoing(x).len() < 2 || !has_skip(g) {
            continue;
        }
        let out: Vec<EdgeId> = g.outgoing(x).to_vec();
        // The live skips `x → y` with the edges of their `y` (no edge of `y` changes here).
        let mut skips: Vec<(EdgeId, FxHashSet<(Label, NodeId)>)> = out
            .iter()
            .filter_map(|&s| {
                let d = g.edge(s);
                (d.label == Label::Skip && d.to != x).then(|| {
                    let twins = g.outgoing(d.to).iter().map(|&f| {
                        let t = g.edge(f);
                        (t.label, t.to)
                    });
                    (s, twins.collect())
                })
            })
            .collect();
        if skips.is_empty() {
            continue;
        }
        for e in out {
            let d = g.edge(e);
            if ends_move(g, &d.label) {
                continue;
            }
            let key = (d.label, d.to);
            if skips.iter().any(|(s, tw)| *s != e && tw.contains(&key)) {
                g.remove_edge(e);
                skips.retain(|(s, _)| *s != e);
                changed = true;
            }
        }
    }
    changed
}

impl Pass for CompactSkipEdges {
    fn name(&self) -> &'static str {
        "compact_skip_edges"
    }
    fn description(&self) -> &'static str {
        "remove empty edges: contract skip chains, drop conditions parallel to a skip"
    }
    fn safety(&self) -> Safety {
        Safety::Safe
    }
    fn phase(&self) -> PassPhase {
        PassPhase::Loop
    }
    fn category(&self) -> Category {
        Category::Prune
    }
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        loop {
            let mut protected = (*cx.check_nodes(g)).clone();
            for n in [g.begin(), g.end()].into_iter().flatten() {
                protected[n] = true;
            }
            let mut round = obsolete_parallel(g);
            let (zs, _) = contraction_candidates(g, cx, &protected);
            round |= backward(g, &protected, &zs);
            let (_, xs) = contraction_candidates(g, cx, &protected);
            round |= forward(g, &protected, &xs);
            round |= redundant_via_skip(g);
            if !round {
                return Ok(changed);
            }
            changed = true;
        }
    }
}
