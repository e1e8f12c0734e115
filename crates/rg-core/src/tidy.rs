//! Removing what a translation generated but no play can use, so that a front-end's output (the
//! game at `-O0`) is free of the lints about it (issue 22: rgt's own `-O0` chess gave 5 and 15
//! warnings when translated again).
//!
//! Two steps, repeated until neither changes anything:
//! * a reachability check whose target no edge path leads to from its start (labels ignored)
//!   never holds: `! a -> b` becomes the empty action and `? a -> b` is removed — unless `end`
//!   would then be cut off from `begin`, which the validators reject;
//! * edges whose source no walk reaches — from `begin`, or from the start of a check on a
//!   reached edge — are removed, with the pragmas naming their nodes.
//!
//! Neither changes the game tree. Everything is iterative and deterministic.

use crate::game::{EdgeId, Game, Label, NodeId};
use std::collections::HashMap;

/// Checks are folded only while (distinct check starts) × (edges) stays below this: each start
/// needs one search of the graph.
const FOLD_WORK_LIMIT: usize = 200_000_000;

/// Removes unreachable edges and folds checks that can never hold (see the module doc). Returns
/// whether the game changed.
pub fn remove_dead_code(game: &mut Game) -> bool {
    let mut changed = false;
    loop {
        let mut round = fold_impossible_checks(game);
        let seen = walkable(game);
        let dead: Vec<EdgeId> = game
            .edges()
            .filter(|(_, d)| !seen[d.from.0 as usize])
            .map(|(e, _)| e)
            .collect();
        for &e in &dead {
            game.remove_edge(e);
        }
        round |= !dead.is_empty();
        let before = game.pragmas.len();
        game.pragmas.retain(|p| {
            let mut live = true;
            p.kind
                .for_each_node(|n| live &= seen.get(n.0 as usize) == Some(&true));
            live
        });
        round |= game.pragmas.len() != before;
        if !round {
            return changed;
        }
        changed = true;
    }
}

/// Nodes a walk can be at: reached from `begin`, or from the start of a check on a reached edge.
fn walkable(game: &Game) -> Vec<bool> {
    let mut seen = vec![false; game.node_capacity()];
    let Some(begin) = game.begin() else {
        return vec![true; game.node_capacity()];
    };
    seen[begin.0 as usize] = true;
    let mut stack = vec![begin];
    while let Some(n) = stack.pop() {
        for &e in game.outgoing(n) {
            let d = game.edge(e);
            let next = match d.label {
                Label::Reach { from, .. } => [Some(d.to), Some(from)],
                _ => [Some(d.to), None],
            };
            for m in next.into_iter().flatten() {
                if !seen[m.0 as usize] {
                    seen[m.0 as usize] = true;
                    stack.push(m);
                }
            }
        }
    }
    seen
}

/// Folds the checks whose target is unreachable from their start; returns whether any was.
fn fold_impossible_checks(game: &mut Game) -> bool {
    let mut starts: Vec<NodeId> = game
        .edges()
        .filter_map(|(_, d)| match d.label {
            Label::Reach { from, .. } => Some(from),
            _ => None,
        })
        .collect();
    starts.sort_unstable_by_key(|n| n.0);
    starts.dedup();
    if starts.is_empty() || starts.len().saturating_mul(game.edge_count()) > FOLD_WORK_LIMIT {
        return false;
    }
    let reach: HashMap<NodeId, Vec<bool>> = starts
        .iter()
        .map(|&s| (s, game.reachable_until(&[s], None)))
        .collect();
    let (mut always, mut never) = (Vec::new(), Vec::new());
    for (e, d) in game.edges() {
        if let Label::Reach { from, to, negated } = d.label
            && !reach[&from][to.0 as usize]
        {
            if negated {
                always.push(e);
            } else {
                never.push(e);
            }
        }
    }
    let changed = !always.is_empty();
    for e in always {
        game.set_label(e, Label::Skip);
    }
    if never.is_empty() || !end_reachable_without(game, &never) {
        return changed;
    }
    for e in never {
        game.remove_edge(e);
    }
    true
}

/// Whether an edge path leads from `begin` to `end` without the edges `without`.
fn end_reachable_without(game: &Game, without: &[EdgeId]) -> bool {
    let (Some(begin), Some(end)) = (game.begin(), game.end()) else {
        return false;
    };
    let mut skip = vec![false; game.edge_entries().len()];
    for e in without {
        skip[e.0 as usize] = true;
    }
    let mut seen = vec![false; game.node_capacity()];
    seen[begin.0 as usize] = true;
    let mut stack = vec![begin];
    while let Some(n) = stack.pop() {
        for &e in game.outgoing(n) {
            let to = game.edge(e).to;
            if skip[e.0 as usize] || seen[to.0 as usize] {
                continue;
            }
            if to == end {
                return true;
            }
            seen[to.0 as usize] = true;
            stack.push(to);
        }
    }
    begin == end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileId, parse, print};

    fn tidy(text: &str) -> String {
        let mut g = parse(FileId(0), text).expect("parses");
        remove_dead_code(&mut g);
        print(&g)
    }

    #[test]
    fn unreachable_edges_and_impossible_checks_go() {
        let out = tidy(
            "begin, a: ; a, end: ! s -> t; a, b: ? s -> t; b, end: ; s, u: $ x; \
             dead, end: ; dead2, dead: ; c, d: ; @unique dead;",
        );
        assert_eq!(out, "begin, a: ;\na, end: ;\n");
    }

    #[test]
    fn a_check_on_the_only_way_to_end_stays() {
        let out = tidy("begin, a: ? s -> t; a, end: ; s, u: ;");
        assert_eq!(out, "begin, a: ? s -> t;\na, end: ;\ns, u: ;\n");
    }

    #[test]
    fn possible_checks_and_their_sub_automata_stay() {
        let text = "begin, a: ? s -> t; a, end: ; s, t: $ x;";
        assert_eq!(tidy(text), "begin, a: ? s -> t;\na, end: ;\ns, t: $ x;\n");
    }
}
