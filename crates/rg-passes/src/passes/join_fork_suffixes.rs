//! `join_fork_suffixes`: nodes whose only outgoing edge is the same label to the same node are
//! merged into one (the suffixes of a fork join), and (an `rgt` extension) nodes whose several
//! outgoing edges are the same labels to the same nodes (twins, e.g. the exit of the first step of
//! an unrolled `X X*` and the exit of its loop body) are merged as well.
//!
//! Why twins can be merged: their futures are the same walks, so sending a twin's incoming
//! edges to the other one changes no walk's labels. Neither may be a check node (a check sees
//! the node it names), `begin`, `end` or named by a pragma, nor have an edge to itself (its twin
//! would not have the same targets).
//!
//! ```text
//! before:  a, x: $ l;  a, y: $ r;  x, z: k = 1;  y, z: k = 1;
//! after:   a, x: $ l;  a, x: $ r;  x, z: k = 1;
//! ```

use super::meta;
use crate::util::NodeMap;
use crate::util::{FxHashMap, FxHashSet, assigns_player};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, NodeId};

/// Nodes whose only edge is the same label to the same node are merged.
#[derive(Debug)]
pub(crate) struct JoinForkSuffixes;

/// One round of suffix merging over `nodes` (in id order); returns the nodes to look at in the
/// next round, empty when nothing changed. A node not returned would produce nothing in the next
/// round: its incoming edges, their sources' out-degrees and self-loops are unchanged, and no
/// candidate of it was held back by this round's merges.
/// The nodes whose edges it moves are added to `moved` (their twin keys change).
fn suffix_step(
    g: &mut Game,
    checks: &NodeMap<bool>,
    nodes: &[NodeId],
    moved: &mut Vec<NodeId>,
) -> Vec<NodeId> {
    let begin = g.begin();
    let mut removed: FxHashSet<NodeId> = FxHashSet::default();
    let mut targets: FxHashSet<NodeId> = FxHashSet::default();
    let mut redirected: FxHashSet<NodeId> = FxHashSet::default();
    let mut plan: Vec<(EdgeId, NodeId, NodeId)> = Vec::new(); // (e2, y2, y1)
    let mut next: Vec<NodeId> = Vec::new();
    let mut first: FxHashMap<Label, NodeId> = FxHashMap::default();
    for &x in nodes {
        // The first node per label that can absorb the later ones (grouping by label keeps
        // this linear in the in-degree; pairing every two edges was quadratic).
        crate::util::reset_map(&mut first);
        let mut again = false;
        for &e in g.incoming(x) {
            let y = g.edge(e).from;
            let l = g.edge(e).label;
            if y == x || g.outgoing(y).len() != 1 || checks[y] {
                continue;
            }
            if removed.contains(&y) {
                again = true;
                continue;
            }
            let Some(&y1) = first.get(&l) else {
                first.insert(l, y);
                continue;
            };
            if y == y1 || Some(y) == begin || g.incoming(y).iter().any(|&p| g.edge(p).from == y) {
                continue;
            }
            if targets.contains(&y)
                || g.incoming(y)
                    .iter()
                    .any(|&p| redirected.contains(&g.edge(p).from))
            {
                again = true;
                continue;
            }
            targets.insert(y1);
            removed.insert(y);
            for &p in g.incoming(y) {
                redirected.insert(g.edge(p).from);
            }
            plan.push((e, y, y1));
            again = true;
            next.push(y1);
        }
        if again {
            next.push(x);
        }
    }
    // The edges are moved and removed together: `x` is often a hub, and one removal at a time
    // cost its whole incoming list each. The lists come out the same (they are sorted by edge):
    // no `y2` is another plan's `y1` (`targets`), and an `e2` that enters another plan's `y2` is
    // moved first and removed after, as one edge at a time would leave it (removed).
    let mut moves: Vec<(EdgeId, NodeId)> = Vec::new();
    let mut gone: Vec<EdgeId> = Vec::with_capacity(plan.len());
    for &(e2, y2, y1) in &plan {
        for &p in g.incoming(y2) {
            moved.push(g.edge(p).from);
            moves.push((p, y1));
        }
        gone.push(e2);
        moved.push(y2);
    }
    g.set_targets(&moves);
    g.remove_edges(&gone);
    next.sort_unstable();
    next.dedup();
    next
}

/// Whether the source of `p` has another edge with `p`'s label to `to` (searched from the shorter
/// of the two edge lists), so that `p` is redundant once it also leads to `to`. Never for an
/// assignment to `player`: each such edge is a move of its own (the interpreter keeps duplicate
/// moves), so a parallel twin is not redundant.
fn has_edge(g: &Game, p: EdgeId, to: NodeId) -> bool {
    let (from, label) = (g.edge(p).from, g.edge(p).label);
    if assigns_player(g, &label) {
        return false;
    }
    let same = |e: EdgeId| {
        let d = g.edge(e);
        e != p && d.from == from && d.to == to && d.label == label
    };
    let (outs, ins) = (g.outgoing(from), g.incoming(to));
    if outs.len() <= ins.len() {
        outs.iter().any(|&e| same(e))
    } else {
        ins.iter().any(|&e| same(e))
    }
}

fn label_hash(l: &Label) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(l)
}

/// Where a registered key lies in [`Twins::arena`], and its hash.
#[derive(Clone, Copy)]
struct KeyRef {
    start: u32,
    len: u32,
    hash: u64,
}

/// The twin keys of the nodes, kept across rounds: each round recomputes only the keys of the
/// nodes whose edges changed (or whose twin was busy), instead of every node's.
///
/// A key is kept in one arena and found by its hash (a million nodes with two or more edges
/// each allocated their key three times and hashed it into two maps).
struct Twins {
    fixed: NodeMap<bool>,
    /// The registered keys, one after the other (a key that is dropped leaves its slice).
    arena: Vec<(Label, NodeId)>,
    /// A node per key, by the key's hash: the first one seen with it.
    first: FxHashMap<u64, NodeId>,
    /// The first nodes of further keys with a hash that `first` already holds for another key.
    collided: FxHashMap<u64, Vec<NodeId>>,
    /// The key each node was registered under (as the first node of it).
    key_of: NodeMap<Option<KeyRef>>,
    /// The nodes to look at in the next round.
    dirty: Vec<NodeId>,
    /// Scratch space for [`Twins::key`].
    keyed: Vec<(NodeId, u64, Label)>,
    key: Vec<(Label, NodeId)>,
}

impl Twins {
    fn new(g: &Game, checks: &NodeMap<bool>) -> Twins {
        let mut fixed = checks.clone();
        for n in [g.begin(), g.end()].into_iter().flatten() {
            fixed[n] = true;
        }
        for p in &g.pragmas {
            p.kind.for_each_node(|n| fixed[n] = true);
        }
        Twins {
            fixed,
            arena: Vec::new(),
            first: FxHashMap::default(),
            collided: FxHashMap::default(),
            key_of: NodeMap::from_elem(None, g.node_capacity()),
            dirty: g.nodes().ids().collect(),
            keyed: Vec::new(),
            key: Vec::new(),
        }
    }

    /// Puts the key of `y` into `self.key` and returns its hash: its distinct (label, target)
    /// pairs in a canonical order; `None` when `y` cannot be merged (fewer than two edges, fixed,
    /// or an edge to itself).
    fn key(&mut self, g: &Game, y: NodeId) -> Option<u64> {
        let out = g.outgoing(y);
        if out.len() < 2 || self.fixed[y] || out.iter().any(|&e| g.edge(e).to == y) {
            return None;
        }
        // Labels have no order; a hash, computed once per edge, orders them (equal keys still
        // mean equal edge sets).
        self.keyed.clear();
        self.keyed.extend(out.iter().map(|&e| {
            let d = g.edge(e);
            (d.to, label_hash(&d.label), d.label)
        }));
        self.keyed.sort_unstable_by_key(|&(n, h, _)| (n, h));
        self.key.clear();
        self.key.extend(self.keyed.iter().map(|&(n, _, l)| (l, n)));
        self.key.dedup();
        use std::hash::BuildHasher;
        Some(rustc_hash::FxBuildHasher.hash_one(&self.key[..]))
    }

    fn registered(&self, r: KeyRef) -> &[(Label, NodeId)] {
        &self.arena[r.start as usize..(r.start + r.len) as usize]
    }

    /// The first node registered with the key in `self.key` (hash `hash`).
    fn find(&self, hash: u64) -> Option<NodeId> {
        let same =
            |&n: &NodeId| self.key_of[n].is_some_and(|r| self.registered(r) == &self.key[..]);
        let primary = self.first.get(&hash).copied().filter(same);
        primary.or_else(|| self.collided.get(&hash)?.iter().copied().find(same))
    }

    /// Registers `y` as the first node of the key in `self.key` (hash `hash`).
    fn register(&mut self, y: NodeId, hash: u64) {
        let r = KeyRef {
            start: self.arena.len() as u32,
            len: self.key.len() as u32,
            hash,
        };
        self.arena.extend_from_slice(&self.key);
        self.key_of[y] = Some(r);
        match self.first.entry(hash) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(y);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.entry(hash).or_default().push(y);
            }
        }
    }

    /// Drops the registration of `y`, if it has one.
    fn unregister(&mut self, y: NodeId) {
        let Some(r) = self.key_of[y].take() else {
            return;
        };
        if self.first.get(&r.hash) == Some(&y) {
            let promoted = self.collided.get_mut(&r.hash).and_then(|v| v.pop());
            match promoted {
                Some(z) => {
                    self.first.insert(r.hash, z);
                }
                None => {
                    self.first.remove(&r.hash);
                }
            }
            if self.collided.get(&r.hash).is_some_and(|v| v.is_empty()) {
                self.collided.remove(&r.hash);
            }
        } else if let Some(v) = self.collided.get_mut(&r.hash) {
            v.retain(|&z| z != y);
            if v.is_empty() {
                self.collided.remove(&r.hash);
            }
        }
    }

    /// One round of twin merging over the dirty nodes; returns the nodes where a suffix may have
    /// appeared, empty when nothing was merged.
    fn step(&mut self, g: &mut Game) -> Vec<NodeId> {
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        dirty.dedup();
        let mut plan: Vec<(NodeId, NodeId)> = Vec::new(); // (y2, y1)
        // A survivor may absorb several twins in one round (its own edges do not change), but
        // is not merged away in the same round, and a node merged away absorbs nothing.
        // (One merge per survivor and round made k twins take k rounds, each revisiting the
        // targets of their edges: quadratic on large translations.)
        let mut survivors: FxHashSet<NodeId> = FxHashSet::default();
        let mut merged_away: FxHashSet<NodeId> = FxHashSet::default();
        for &y in &dirty {
            self.unregister(y);
            let Some(hash) = self.key(g, y) else { continue };
            match self.find(hash) {
                Some(y1) if y != y1 && !survivors.contains(&y) && !merged_away.contains(&y1) => {
                    survivors.insert(y1);
                    merged_away.insert(y);
                    plan.push((y, y1));
                }
                Some(_) => self.dirty.push(y),
                None => self.register(y, hash),
            }
        }
        let mut next: Vec<NodeId> = Vec::new();
        // The edges leaving the nodes merged away, removed together after the loop: their
        // targets are often hubs, and one removal at a time cost a hub's list each. Until then
        // they are skipped where the loop meets them (only as edges entering a later `y2`;
        // no other edge is theirs or has their source).
        let mut leaving: FxHashSet<EdgeId> = FxHashSet::default();
        for (y2, y1) in plan {
            next.push(y1);
            for p in g.incoming(y2).to_vec() {
                if leaving.contains(&p) {
                    continue;
                }
                let from = g.edge(p).from;
                if has_edge(g, p, y1) {
                    g.remove_edge(p);
                    // `from` may now leave by one edge only: a suffix candidate of its target.
                    if let [e] = g.outgoing(from) {
                        next.push(g.edge(*e).to);
                    }
                } else {
                    g.set_target(p, y1);
                }
                self.dirty.push(from);
            }
            for &e in g.outgoing(y2) {
                next.push(g.edge(e).to);
                leaving.insert(e);
            }
            self.dirty.push(y2);
        }
        // Removal does not depend on the order of the edges.
        g.remove_edges(&leaving.into_iter().collect::<Vec<_>>());
        next.sort_unstable();
        next.dedup();
        next
    }
}

impl Pass for JoinForkSuffixes {
    meta!(
        "join_fork_suffixes",
        "nodes whose only edge is the same label to the same node are merged",
        Safe,
        Loop,
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut changed = false;
        // Check nodes are named by labels, which this pass never changes.
        let checks = cx.check_nodes(g);
        let mut twins = Twins::new(g, &checks);
        let mut nodes: Vec<NodeId> = g.nodes().ids().collect();
        loop {
            nodes = suffix_step(g, &checks, &nodes, &mut twins.dirty);
            if nodes.is_empty() {
                nodes = twins.step(g);
                if nodes.is_empty() {
                    return Ok(changed);
                }
            }
            changed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::run;

    /// `f` and `h` leave with the same two edges to `s`.
    const TWINS: &str = "type T = {p, q};\n\
        var v: T = p;\n\
        begin, a: player = x;\n\
        a, f: $ one;\n\
        a, h: $ two;\n\
        f, s: v == p;\n\
        f, s: v != p;\n\
        h, s: v == p;\n\
        h, s: v != p;\n";

    /// Runs the pass once (validated, and the same game tree by the oracle); whether it changed
    /// the game, and the game after it as text.
    fn merged(text: &str) -> (bool, String) {
        let (_, after, changed, _) = run(&JoinForkSuffixes, text);
        (changed, rg_core::print(&after))
    }

    #[test]
    fn twins_with_the_same_edges_out_merge() {
        let (changed, text) = merged(&format!("{TWINS}s, end: player = keeper;"));
        assert!(changed);
        assert!(
            text.contains("a, f: $ two;") && !text.contains("h, s:"),
            "{text}"
        );
    }

    #[test]
    fn a_twin_that_a_check_names_or_that_loops_stays() {
        let (changed, _) = merged(&format!(
            "{TWINS}s, end: ? h -> s;\ns, end: player = keeper;"
        ));
        assert!(!changed);
        let (changed, _) = merged(
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: player = x;\n\
             a, f: $ one;\n\
             a, h: $ two;\n\
             f, f: v == q;\n\
             f, s: v != q;\n\
             h, h: v == q;\n\
             h, s: v != q;\n\
             s, end: player = keeper;",
        );
        assert!(!changed);
    }

    #[test]
    fn several_twins_merge_into_one_and_parallel_moves_stay() {
        // `f`, `h` and `i` are twins; `k` reaches two of them by the same player assignment, and
        // both of those edges are moves of the keeper (the interpreter counts each).
        let (changed, text) = merged(
            "type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: player = x;\n\
             a, f: $ one;\n\
             a, h: $ two;\n\
             a, k: $ three;\n\
             k, h: player = keeper;\n\
             k, i: player = keeper;\n\
             f, s: v == p;\n\
             f, s: v != p;\n\
             h, s: v == p;\n\
             h, s: v != p;\n\
             i, s: v == p;\n\
             i, s: v != p;\n\
             s, end: player = keeper;",
        );
        assert!(changed);
        let survivor_edges = text.lines().filter(|l| l.ends_with(", s: v == p;")).count();
        assert_eq!(survivor_edges, 1, "{text}");
        let keeper_moves = text.lines().filter(|l| l.starts_with("k, ")).count();
        assert_eq!(keeper_moves, 2, "{text}");
    }
}
