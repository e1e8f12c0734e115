//! `reorder_conditions` (unsafe: only in the `reference` pipeline, behind
//! `--allow-unsafe`).
//!
//! When the same label occurs on several branches leaving a node, it is moved to the front of each
//! branch so that `join_fork_prefixes` can then evaluate it once. A node qualifies when its
//! outgoing edges go to pairwise different targets with at least two different labels. The *path*
//! of an outgoing edge (assignments excluded) continues while the next node has one incoming and
//! one outgoing edge, is not a check node, and that edge is neither an assignment nor a tag already
//! on the path. With at least two paths and a label occurring at least twice over all of them, each
//! path is sorted by a stable insertion sort that moves only labels occurring at least twice:
//! leftwards while more frequent than, or as frequent as and smaller (in the reference's total
//! order of labels) than, the label before, unless that one is a comparison one of whose sides is
//! an index inside the moving comparison. The paths keep their nodes and get the sorted labels.
//! Each step rewrites one node; the next step resumes after it in node order, until a whole round
//! changes nothing.
//!
//! Why it is unsafe: a path holds no assignment, so its comparisons are a conjunction evaluated
//! in one state and their order is irrelevant — but tags on a path may be reordered (the move
//! `a b` becomes `b a`), a comparison may move before the condition that made it meaningful,
//! and a check may move to a node where its validity condition does not hold. The reference
//! has the same pass in its default optimisations; `rgt` keeps it out of `-O2`.
//!
//! Complexity: O(Σ path length · log) per step, O(N) steps per round; a round that runs over
//! 10 · N steps stops with a warning.
//!
//! Between runs: the pass runs many times in a row with `join_fork_prefixes` on large games
//! (each join exposes the next level of shared conditions), and most nodes are quiet each time.
//! A run keeps, in the pass context, every node that ended quiet with the edges its step read
//! ([`QuietMemo`]); the next run counts such a node as quiet without walking its paths when
//! none of those edges, none of their targets' adjacency lists, its own adjacency lists and the
//! check nodes among those targets changed since ([`Game::edge_stamp`],
//! [`Game::adjacency_stamp`]) — a step reads nothing else but the declarations, which must be
//! unchanged too. The rewrites and their order are those of a run without the memo.

use super::meta;
use crate::util::NodeMap;
use crate::util::{FxHashMap, FxHashSet, cmp_label};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId};
use std::cmp::Ordering;
use std::sync::Arc;

/// Moves labels shared by several branches of a node to the front of each branch.
#[derive(Debug)]
pub(crate) struct ReorderConditions;

/// Pushes to `out` every expression that occurs as the index of an access anywhere inside
/// `inside` (through casts, maps and indexes).
fn indexes_in(g: &Game, inside: ExprId, out: &mut Vec<ExprId>) {
    let mut stack = vec![inside];
    while let Some(x) = stack.pop() {
        match g.expr(x) {
            ExprData::Ref(_) => {}
            ExprData::Cast(_, y) => stack.push(y),
            ExprData::Access(m, i) => {
                out.push(i);
                stack.push(m);
                stack.push(i);
            }
        }
    }
}

/// The indexes inside the sides of a comparison (none for other labels), for [`may_pass`].
fn label_indexes(g: &Game, l: &Label, out: &mut Vec<ExprId>) {
    if let Label::Compare { lhs, rhs, .. } = *l {
        indexes_in(g, lhs, out);
        indexes_in(g, rhs, out);
    }
}

/// Whether `moving`, whose indexes ([`label_indexes`]) are `moving_indexes`, may pass the
/// comparison `before` (none of `before`'s sides is an index inside `moving`).
fn may_pass(moving: &Label, moving_indexes: &[ExprId], before: &Label) -> bool {
    let (
        Label::Compare { .. },
        Label::Compare {
            lhs: bl, rhs: br, ..
        },
    ) = (*moving, *before)
    else {
        return true;
    };
    !moving_indexes.iter().any(|&i| i == bl || i == br)
}

fn is_assignment(l: &Label) -> bool {
    matches!(l, Label::Assign { .. } | Label::AssignAny { .. })
}

/// The nodes a run of the pass left quiet, with what their last step read (see the module
/// documentation), valid for one node numbering and one version of the declarations.
#[derive(Debug)]
pub(crate) struct QuietMemo {
    layout: u64,
    declarations: [u64; 3],
    /// The game's generation when the run ended: elements stamped later changed since.
    clock: u64,
    /// The check nodes the run saw.
    checks: Arc<NodeMap<bool>>,
    /// Per node, its range of `reads` when it was quiet (`NOT_QUIET` otherwise).
    quiet: NodeMap<(u32, u32)>,
    reads: Vec<EdgeId>,
}

/// A node that did not end the run quiet.
const NOT_QUIET: (u32, u32) = (u32::MAX, u32::MAX);

/// The versions of the declarations a step depends on (through `movable`'s types).
fn declarations(g: &Game) -> [u64; 3] {
    [
        g.typedefs.version(),
        g.constants.version(),
        g.variables.version(),
    ]
}

impl QuietMemo {
    /// What `n`'s step read when it was last quiet, if that step would read the same and find
    /// nothing again in `g`.
    fn still_quiet(&self, g: &Game, checks: &NodeMap<bool>, n: NodeId) -> Option<&[EdgeId]> {
        let &(a, b) = self.quiet.get(n).filter(|&&r| r != NOT_QUIET)?;
        let reads = &self.reads[a as usize..b as usize];
        let unchanged = g.adjacency_stamp(n) <= self.clock
            && reads.iter().all(|&e| {
                let t = g.edge(e).to;
                g.edge_stamp(e) <= self.clock
                    && g.adjacency_stamp(t) <= self.clock
                    && checks[t] == self.checks[t]
            });
        unchanged.then_some(reads)
    }
}

/// Which labels a path may hold: the reference's (everything but assignments, tags only once),
/// or, for `reorder_comparisons`, only what `movable` accepts (comparisons that cannot fault).
pub(crate) type Movable<'a> = Option<&'a dyn Fn(&Label) -> bool>;

/// The path of edge `e`: the chain of single-edge nodes it belongs to (step 2 of the pass).
/// Every edge whose label it looked at is pushed to `read`.
fn path(
    g: &Game,
    checks: &NodeMap<bool>,
    movable: Movable<'_>,
    e: EdgeId,
    read: &mut Vec<EdgeId>,
) -> Vec<EdgeId> {
    let mut path = vec![e];
    let from = g.edge(e).from;
    let mut cur = g.edge(e).to;
    // The chain can only come back to `from`: its other nodes have one incoming edge each, so
    // the first node met twice would be the first of the chain, entered again by `e`.
    while cur != from && g.outgoing(cur).len() == 1 && g.incoming(cur).len() == 1 && !checks[cur] {
        let next = g.outgoing(cur)[0];
        read.push(next);
        let label = g.edge(next).label;
        let stop = match movable {
            Some(m) => !m(&label),
            None => {
                is_assignment(&label)
                    || (label.is_tag() && path.iter().any(|&p| g.edge(p).label == label))
            }
        };
        if stop {
            break;
        }
        path.push(next);
        cur = g.edge(next).to;
    }
    path
}

/// Sorts the labels of the paths leaving `n`; returns the edges to relabel. Every edge whose
/// label it looked at is pushed to `read` (the result depends on nothing else that the pass
/// changes).
fn step(
    g: &Game,
    checks: &NodeMap<bool>,
    movable: Movable<'_>,
    n: NodeId,
    read: &mut Vec<EdgeId>,
) -> Vec<(EdgeId, Label)> {
    let out = g.outgoing(n);
    read.extend_from_slice(out);
    // `reorder` only steps nodes with two or more edges to pairwise different targets.
    let labels: FxHashSet<Label> = out.iter().map(|&e| g.edge(e).label).collect();
    if labels.len() < 2 {
        return Vec::new();
    }
    let paths: Vec<Vec<EdgeId>> = out
        .iter()
        .filter(|&&e| match movable {
            Some(m) => m(&g.edge(e).label),
            None => !is_assignment(&g.edge(e).label),
        })
        .map(|&e| path(g, checks, movable, e, read))
        .collect();
    if paths.len() < 2 {
        return Vec::new();
    }
    let mut freq: FxHashMap<Label, usize> = FxHashMap::default();
    for &e in paths.iter().flatten() {
        *freq.entry(g.edge(e).label).or_default() += 1;
    }
    if freq.values().all(|&f| f < 2) {
        return Vec::new();
    }
    // Labels with their frequencies and the range of their indexes in `indexes`, looked up
    // once per path edge (the insertion sort compares a label with many others).
    type Entry = (Label, usize, (usize, usize));
    let mut indexes: Vec<ExprId> = Vec::new();
    let goes_before = |indexes: &[ExprId], (x, fx, (a, b)): &Entry, (y, fy, _): &Entry| {
        *fx >= 2
            && (fx > fy || (fx == fy && cmp_label(g, x, y) == Ordering::Less))
            && may_pass(x, &indexes[*a..*b], y)
    };
    let mut relabel = Vec::new();
    let mut labels: Vec<Entry> = Vec::new();
    for p in &paths {
        labels.clear();
        indexes.clear();
        for &e in p {
            let l = g.edge(e).label;
            let a = indexes.len();
            label_indexes(g, &l, &mut indexes);
            labels.push((l, freq[&l], (a, indexes.len())));
        }
        for i in 1..labels.len() {
            let mut j = i;
            while j > 0 && goes_before(&indexes, &labels[j], &labels[j - 1]) {
                labels.swap(j, j - 1);
                j -= 1;
            }
        }
        for (&e, &(l, _, _)) in p.iter().zip(&labels) {
            if g.edge(e).label != l {
                relabel.push((e, l));
            }
        }
    }
    relabel
}

/// Runs the pass with the labels `movable` allows on paths (`None`: the reference's rule);
/// returns whether anything changed.
pub(crate) fn reorder(
    g: &mut Game,
    cx: &mut PassContext,
    movable: Movable<'_>,
    name: &'static str,
) -> bool {
    // Only a node with two or more edges to pairwise different targets can be rewritten, and
    // relabelling changes neither; stepping the others (most nodes) found nothing each round.
    // Leaving them out keeps the order of the rest and the number of rounds (the step limit
    // below is 10 rounds either way), so the result is the same.
    let mut with_edges = 0usize;
    let mut targets: FxHashSet<NodeId> = FxHashSet::default();
    let mut stepped: Vec<NodeId> = Vec::new();
    for n in g.nodes().ids() {
        let out = g.outgoing(n);
        if out.is_empty() {
            continue;
        }
        with_edges += 1;
        if out.len() < 2 {
            continue;
        }
        crate::util::reset_set(&mut targets);
        if out.iter().all(|&e| targets.insert(g.edge(e).to)) {
            stepped.push(n);
        }
    }
    let nodes = cx.sort_by_name(g, crate::NameOrder::Reorder, stepped);
    let checks = cx.check_nodes(g);
    // A step depends only on the labels of the edges it reads, and the pass changes nothing
    // but labels: a node whose last step was quiet and none of whose read edges was relabelled
    // since is quiet again, and is counted as stepped without sorting its paths again. Same
    // rewrites in the same order, without sorting every path again in the last round.
    // (The step number of each edge's last relabelling, and of each node's last quiet step;
    // 0 for none.)
    let mut relabelled_at = vec![0usize; g.edge_entries().len()];
    let mut quiet_at = vec![0usize; nodes.len()];
    // What each node's last quiet step read, kept: checking a quiet node again does not walk
    // its paths. A path edge lies on one path only (path nodes have one incoming edge), so
    // this holds each edge about once per round.
    let mut quiet_reads: Vec<std::ops::Range<usize>> = vec![0..0; nodes.len()];
    let mut read_log: Vec<EdgeId> = Vec::new();
    // The nodes the last run left quiet and that would be quiet again count as stepped quietly
    // before the first step (a relabelling in step 1 or later is newer).
    let memo = cx
        .reorder_memos
        .iter()
        .position(|(n, _)| *n == name)
        .map(|i| cx.reorder_memos.swap_remove(i).1)
        .filter(|m| m.layout == g.node_layout() && m.declarations == declarations(g));
    if let Some(memo) = &memo {
        for (i, &n) in nodes.iter().enumerate() {
            if let Some(reads) = memo.still_quiet(g, &checks, n) {
                let start = read_log.len();
                read_log.extend_from_slice(reads);
                quiet_reads[i] = start..read_log.len();
                quiet_at[i] = 1;
            }
        }
    }
    drop(memo);
    let mut read: Vec<EdgeId> = Vec::new();
    let mut changed = false;
    let (mut i, mut quiet, mut steps) = (0, 0, 0);
    while quiet < nodes.len() {
        steps += 1;
        if steps > 10 * nodes.len() {
            // Counted as if every node with an edge had been stepped.
            cx.warnings.push(format!(
                "{name} stopped after {} steps without a fixed point",
                10 * with_edges
            ));
            break;
        }
        if quiet_at[i] != 0 {
            // Walking the paths again reads the same edges as long as none of them changed.
            if read_log[quiet_reads[i].clone()]
                .iter()
                .all(|e| relabelled_at[e.index()] < quiet_at[i])
            {
                quiet += 1;
                i = (i + 1) % nodes.len();
                continue;
            }
        }
        read.clear();
        let relabel = step(g, &checks, movable, nodes[i], &mut read);
        if relabel.is_empty() {
            quiet += 1;
            quiet_at[i] = steps;
            // `step`'s result depends only on the labels of the edges it read.
            let start = read_log.len();
            read_log.extend_from_slice(&read);
            quiet_reads[i] = start..read_log.len();
        } else {
            quiet = 0;
            changed = true;
            quiet_at[i] = 0;
            for (e, l) in relabel {
                g.set_label(e, l);
                relabelled_at[e.index()] = steps;
            }
        }
        i = (i + 1) % nodes.len();
    }
    // Kept for the next run: the nodes quiet now (every node, unless the step limit stopped the
    // run), each with what its last step read.
    let mut quiet_memo = NodeMap::from_elem(NOT_QUIET, g.node_capacity());
    let mut reads: Vec<EdgeId> = Vec::new();
    for (i, &n) in nodes.iter().enumerate() {
        let r = &read_log[quiet_reads[i].clone()];
        if quiet_at[i] != 0 && r.iter().all(|e| relabelled_at[e.index()] < quiet_at[i]) {
            let start = reads.len() as u32;
            reads.extend_from_slice(r);
            quiet_memo[n] = (start, reads.len() as u32);
        }
    }
    cx.reorder_memos.push((
        name,
        QuietMemo {
            layout: g.node_layout(),
            declarations: declarations(g),
            clock: g.generation(),
            checks,
            quiet: quiet_memo,
            reads,
        },
    ));
    changed
}

impl Pass for ReorderConditions {
    meta!(
        "reorder_conditions",
        "move labels shared by branches of a node to their front (may reorder tags: unsafe)",
        Unsafe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        Ok(reorder(g, cx, None, self.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> String {
        let mut g = test_game(text);
        ReorderConditions
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        rg_core::print(&g)
            .lines()
            .filter(|l| l.contains(": ") && !l.starts_with("type ") && !l.starts_with("var "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_example_of_the_spec() {
        let out = run("type Player = {x};\n\
             type T = {p, q, r};\n\
             var v: T = p;\n\
             var w: T = p;\n\
             begin, s: player = x;\n\
             s, a1: v == p;\n\
             a1, a2: w == q;\n\
             a2, a3: $ one;\n\
             s, b1: w == q;\n\
             b1, b2: v == r;\n\
             b2, a3: $ two;\n\
             a3, end: player = keeper;");
        assert_eq!(
            out,
            "begin, s: player = x;\ns, a1: w == q;\na1, a2: v == p;\na2, a3: $ one;\n\
             s, b1: w == q;\nb1, b2: v == r;\nb2, a3: $ two;\na3, end: player = keeper;"
        );
    }

    #[test]
    fn a_comparison_does_not_pass_one_that_guards_its_index() {
        let text = "type T = {p, q, r};\n\
             const m: T -> T = {:p};\n\
             var v: T = p;\n\
             var w: T = p;\n\
             begin, s: player = x;\n\
             s, a1: v == q;\n\
             a1, a2: m[v] == p;\n\
             a2, a3: $ one;\n\
             s, b1: m[v] == p;\n\
             b1, a3: $ two;\n\
             a3, end: player = keeper;";
        assert!(run(text).contains("s, a1: v == q;\na1, a2: m[v] == p;"));
    }
}
