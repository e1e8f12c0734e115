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

use super::meta;
use crate::util::NodeMap;
use crate::util::{FxHashMap, FxHashSet, check_nodes, cmp_label};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId};
use std::cmp::Ordering;
use std::collections::HashSet;

/// Moves labels shared by several branches of a node to the front of each branch.
#[derive(Debug)]
pub(crate) struct ReorderConditions;

/// Whether `e` occurs as the index of an access anywhere inside `inside`.
fn is_index_in(g: &Game, e: ExprId, inside: ExprId) -> bool {
    match g.expr(inside) {
        ExprData::Ref(_) => false,
        ExprData::Cast(_, x) => is_index_in(g, e, x),
        ExprData::Access(m, i) => i == e || is_index_in(g, e, m) || is_index_in(g, e, i),
    }
}

/// Whether `moving` may pass the comparison `before` (none of `before`'s sides is an index
/// inside `moving`).
fn may_pass(g: &Game, moving: &Label, before: &Label) -> bool {
    let (
        Label::Compare {
            lhs: ml, rhs: mr, ..
        },
        Label::Compare {
            lhs: bl, rhs: br, ..
        },
    ) = (*moving, *before)
    else {
        return true;
    };
    ![bl, br]
        .iter()
        .any(|&side| is_index_in(g, side, ml) || is_index_in(g, side, mr))
}

fn is_assignment(l: &Label) -> bool {
    matches!(l, Label::Assign { .. } | Label::AssignAny { .. })
}

/// Which labels a path may hold: the reference's (everything but assignments, tags only once),
/// or, for `reorder_comparisons`, only what `movable` accepts (comparisons that cannot fault).
pub(crate) type Movable<'a> = Option<&'a dyn Fn(&Label) -> bool>;

/// The path of edge `e`: the chain of single-edge nodes it belongs to (step 2 of the pass).
fn path(g: &Game, checks: &NodeMap<bool>, movable: Movable<'_>, e: EdgeId) -> Vec<EdgeId> {
    let mut path = vec![e];
    let mut seen: HashSet<NodeId> = HashSet::from([g.edge(e).from]);
    let mut cur = g.edge(e).to;
    while seen.insert(cur)
        && g.outgoing(cur).len() == 1
        && g.incoming(cur).len() == 1
        && !checks[cur]
    {
        let next = g.outgoing(cur)[0];
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

/// Sorts the labels of the paths leaving `n`; returns the edges to relabel.
fn step(g: &Game, checks: &NodeMap<bool>, movable: Movable<'_>, n: NodeId) -> Vec<(EdgeId, Label)> {
    let out = g.outgoing(n);
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
        .map(|&e| path(g, checks, movable, e))
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
    // Labels with their frequencies, looked up once per path edge.
    let goes_before = |(x, fx): &(Label, usize), (y, fy): &(Label, usize)| {
        *fx >= 2
            && (fx > fy || (fx == fy && cmp_label(g, x, y) == Ordering::Less))
            && may_pass(g, x, y)
    };
    let mut relabel = Vec::new();
    let mut labels: Vec<(Label, usize)> = Vec::new();
    for p in &paths {
        labels.clear();
        labels.extend(p.iter().map(|&e| {
            let l = g.edge(e).label;
            (l, freq[&l])
        }));
        for i in 1..labels.len() {
            let mut j = i;
            while j > 0 && goes_before(&labels[j], &labels[j - 1]) {
                labels.swap(j, j - 1);
                j -= 1;
            }
        }
        for (&e, &(l, _)) in p.iter().zip(&labels) {
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
    name: &str,
) -> bool {
    // Only a node with two or more edges to pairwise different targets can be rewritten, and
    // relabelling changes neither; stepping the others (most nodes) found nothing each round.
    // Leaving them out keeps the order of the rest and the number of rounds (the step limit
    // below is 10 rounds either way), so the result is the same.
    let mut with_edges = 0usize;
    let mut targets: FxHashSet<NodeId> = FxHashSet::default();
    let mut named: Vec<(&str, NodeId)> = Vec::new();
    for n in g.nodes().ids() {
        let out = g.outgoing(n);
        if out.is_empty() {
            continue;
        }
        with_edges += 1;
        if out.len() < 2 {
            continue;
        }
        targets.clear();
        if out.iter().all(|&e| targets.insert(g.edge(e).to)) {
            named.push((g.node_name(n), n));
        }
    }
    named.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let nodes: Vec<NodeId> = named.into_iter().map(|(_, n)| n).collect();
    let checks = check_nodes(g);
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
        let relabel = step(g, &checks, movable, nodes[i]);
        if relabel.is_empty() {
            quiet += 1;
        } else {
            quiet = 0;
            changed = true;
            for (e, l) in relabel {
                g.set_label(e, l);
            }
        }
        i = (i + 1) % nodes.len();
    }
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
