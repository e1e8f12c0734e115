//! Not in the reference: a reachability check whose sub-automaton is a copy of another part of
//! the game is pointed at that part, and the copy dies (prune_unreachable_nodes removes it).
//!
//! RBG's move guards (`{? M}`, translated into checks) copy the player's move up to the next
//! `player` assignment without its tags; HRG games repeat one check several times (pentago's win
//! checks). A check `? g -> f` is true iff a walk from `g` that never leaves `f` reaches `f`; tag
//! and variable-tag edges always succeed and change nothing but the tags, which only tell states
//! apart. So `? g -> f` may become `? m -> t` when the walks from `m` that stop at `t` match the
//! walks from `g` that stop at `f` edge for edge, tag and skip edges aside: a bisimulation relating
//! `g` to `m` and `f` (only) to `t`, in which related nodes leave with equal labels to related
//! nodes and no node related to a node other than `f` is `t` (the search would stop there early).
//!
//! Two states that differ only in `player`, `goals` or `visible` are merged by the search (the
//! interpreter's visited-state check within one move), and tags keep states apart, so the two sides
//! may merge different states; the states merged differ only in those three variables, so the
//! result is the same unless a label of the walk reads one of them: such checks are left alone.
//! Nodes named by pragmas are left alone too (the interpreter trusts pragmas during the loop; the
//! pragma passes recompute them).
//!
//! Representatives are nodes of the main automaton (reachable from `begin` without entering
//! checks) or the start and target of an earlier check kept in this run. Only checks whose start
//! is outside the main automaton are rewritten, and a rewrite either moves a check into the main
//! automaton or onto an existing check, so every rewrite lowers the number of distinct checks
//! starting outside it and the fixed-point loop ends.
//!
//! ```text
//! before:  a, b: ? g -> f;  g, f: x == 1;  m, t: x == 1;  begin, m: ;  t, end: ;
//! after:   a, b: ? m -> t;  g, f: x == 1;  m, t: x == 1;  begin, m: ;  t, end: ;
//! ```
//! (`g, f` is then unreachable and goes in `prune_unreachable_nodes`.)

use super::meta;
use crate::util::NodeMap;
use crate::util::{edge_ids, names_of};
use crate::{Pass, PassContext, PassError};
use rg_core::{ExprData, ExprId, Game, Label, NodeId, Symbol};
use rustc_hash::FxBuildHasher;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

/// Pair visits and edge comparisons allowed for one check.
const CHECK_BUDGET: usize = 10_000;
/// Pair visits and edge comparisons allowed for one run of the pass.
const RUN_BUDGET: usize = 50_000;

/// Points reachability checks whose sub-automaton copies another part of the game at that part.
#[derive(Debug)]
pub(crate) struct ShareReachabilityCopies;

impl Pass for ShareReachabilityCopies {
    meta!(
        "share_reachability_copies",
        "point reachability checks whose sub-automaton copies another part of the game at it",
        Safe,
        Loop,
        Reachability
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let main = cx.reachable_nodes(g, false);
        let mut checks: Vec<(NodeId, NodeId)> = Vec::new();
        let mut listed = HashSet::new();
        for (_, e) in g.edges() {
            if let Label::Reach { from, to, .. } = e.label
                && from != to
                && !main[from]
                && listed.insert((from, to))
            {
                checks.push((from, to));
            }
        }
        if checks.is_empty() {
            return Ok(false);
        }
        let mut s = Sharing::new(g);
        // Main-automaton nodes by the labels they leave with, in node order.
        let mut by_signature: HashMap<u64, Vec<NodeId>> = HashMap::new();
        for n in g.nodes().ids() {
            if main[n] && !g.outgoing(n).is_empty() {
                by_signature.entry(signature(g, n)).or_default().push(n);
            }
        }
        // Checks kept so far by the signature of their start, in the order they were kept.
        let mut kept: HashMap<u64, Vec<(NodeId, NodeId)>> = HashMap::new();
        let mut rewrites: HashMap<(NodeId, NodeId), (NodeId, NodeId)> = HashMap::new();
        let mut over_budget = Vec::new();
        for &(start, target) in &checks {
            let first = close(g, start, Some(target), &mut Vec::new());
            let sig = signature(g, first);
            if first == target {
                kept.entry(sig).or_default().push((start, target));
                continue;
            }
            let mut budget = CHECK_BUDGET.min(s.budget);
            let mut found = None;
            let main_candidates = by_signature.get(&sig).map_or(&[][..], Vec::as_slice);
            for &m in main_candidates {
                if m == start || budget == 0 {
                    continue;
                }
                if let Some(t) = s.bisimilar(start, target, m, None, &mut budget) {
                    found = Some((m, t));
                    break;
                }
            }
            let kept_candidates = kept.get(&sig).map_or(&[][..], Vec::as_slice);
            for &(m, t) in kept_candidates {
                if found.is_some() || budget == 0 {
                    break;
                }
                if m != start && s.bisimilar(start, target, m, Some(t), &mut budget) == Some(t) {
                    found = Some((m, t));
                }
            }
            s.budget -= CHECK_BUDGET.min(s.budget) - budget;
            if budget == 0 && found.is_none() && main_candidates.len() + kept_candidates.len() > 0 {
                over_budget.push(start);
            }
            match found {
                Some(rep) => {
                    rewrites.insert((start, target), rep);
                }
                None => kept.entry(sig).or_default().push((start, target)),
            }
        }
        if !over_budget.is_empty() {
            let names: Vec<&str> = over_budget
                .iter()
                .take(3)
                .map(|&n| g.node_name(n))
                .collect();
            let more = match over_budget.len() - names.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            cx.warnings.push(format!(
                "share_reachability_copies: gave up comparing the checks starting at {}{more} (work limit)",
                names.join(", ")
            ));
        }
        let mut changed = false;
        for e in edge_ids(g) {
            if let Label::Reach { from, to, negated } = g.edge(e).label
                && let Some(&(m, t)) = rewrites.get(&(from, to))
            {
                g.set_label(
                    e,
                    Label::Reach {
                        from: m,
                        to: t,
                        negated,
                    },
                );
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// A hash of the multiset of labels leaving `n`.
fn signature(g: &Game, n: NodeId) -> u64 {
    let mut hashes: Vec<u64> = g
        .outgoing(n)
        .iter()
        .map(|&e| FxBuildHasher.hash_one(g.edge(e).label))
        .collect();
    hashes.sort_unstable();
    FxBuildHasher.hash_one(&hashes)
}

/// Follows the only edge out of `n` while it is a tag, variable tag or skip and `n` is not
/// `stop`; returns the node reached and pushes the nodes left on the way to `path`.
fn close(g: &Game, n: NodeId, stop: Option<NodeId>, path: &mut Vec<NodeId>) -> NodeId {
    let from = path.len();
    let mut c = n;
    while Some(c) != stop {
        let &[e] = g.outgoing(c) else { break };
        let d = g.edge(e);
        if !(d.label.is_tag() || d.label == Label::Skip)
            || d.to == n
            || path[from..].contains(&d.to)
        {
            break;
        }
        path.push(c);
        c = d.to;
    }
    c
}

/// What the comparisons of one run share: the nodes named by pragmas, which checks' walks read
/// `player`, `goals` or `visible`, and the work left.
struct Sharing<'g> {
    g: &'g Game,
    in_pragma: NodeMap<bool>,
    specials: [Symbol; 3],
    nested: HashMap<(NodeId, NodeId), bool>,
    budget: usize,
}

impl<'g> Sharing<'g> {
    fn new(g: &'g Game) -> Self {
        let mut in_pragma = NodeMap::from_elem(false, g.node_capacity());
        for p in &g.pragmas {
            p.kind.for_each_node(|n| in_pragma[n] = true);
        }
        let w = g.well_known();
        Sharing {
            g,
            in_pragma,
            specials: [w.player, w.goals, w.visible],
            nested: HashMap::new(),
            budget: RUN_BUDGET,
        }
    }

    /// The target `t` such that the walks from `y0` stopping at `t` match the walks from `x0`
    /// stopping at `f` (`t` = `fixed` when given), or `None` when there is none or the budget
    /// runs out.
    fn bisimilar(
        &mut self,
        x0: NodeId,
        f: NodeId,
        y0: NodeId,
        fixed: Option<NodeId>,
        budget: &mut usize,
    ) -> Option<NodeId> {
        let g = self.g;
        let mut t = fixed;
        // Nodes the walks from `y0` pass before reaching the image of `f`; `t` must not be one.
        let mut passed: HashSet<NodeId> = HashSet::new();
        let mut seen: HashSet<(NodeId, NodeId)> = HashSet::new();
        let mut stack = vec![(x0, y0)];
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        while let Some((x, y)) = stack.pop() {
            spend(budget, 1)?;
            xs.clear();
            ys.clear();
            let cx = close(g, x, Some(f), &mut xs);
            let cy = close(g, y, t, &mut ys);
            xs.push(cx);
            ys.push(cy);
            if xs.iter().chain(&ys).any(|&n| self.in_pragma[n]) {
                return None;
            }
            ys.pop();
            passed.extend(ys.iter().copied());
            if cx == f {
                match t {
                    None => t = Some(cy),
                    Some(t) if t != cy => return None,
                    Some(_) => {}
                }
                continue;
            }
            if Some(cy) == t {
                return None;
            }
            passed.insert(cy);
            if !seen.insert((cx, cy)) {
                continue;
            }
            let (ox, oy) = (g.outgoing(cx), g.outgoing(cy));
            if ox.len() != oy.len() {
                return None;
            }
            spend(budget, ox.len())?;
            let mut used = vec![false; oy.len()];
            for &ex in ox {
                let dx = g.edge(ex);
                let j = (0..oy.len()).find(|&j| !used[j] && g.edge(oy[j]).label == dx.label)?;
                used[j] = true;
                if self.reads_special(&dx.label) {
                    return None;
                }
                stack.push((dx.to, g.edge(oy[j]).to));
            }
        }
        let t = t?;
        (!passed.contains(&t)).then_some(t)
    }

    /// Whether following `label` reads `player`, `goals` or `visible`: in an expression it
    /// evaluates, or anywhere in the walks of a check it evaluates (labels only,
    /// over-approximated).
    fn reads_special(&mut self, label: &Label) -> bool {
        let g = self.g;
        let specials = self.specials;
        let mut hit = false;
        let mut see = |s: Symbol| hit |= specials.contains(&s);
        match *label {
            Label::Assign { lhs, rhs } => {
                keys_of(g, lhs, &mut see);
                names_of(g, rhs, &mut see);
            }
            Label::AssignAny { lhs, .. } => keys_of(g, lhs, &mut see),
            Label::Compare { lhs, rhs, .. } => {
                names_of(g, lhs, &mut see);
                names_of(g, rhs, &mut see);
            }
            Label::Reach { from, to, .. } => return self.check_reads_special(from, to),
            Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
        }
        hit
    }

    /// Whether some label on the walks from `from` that stop at `to` reads `player`, `goals`
    /// or `visible` (labels ignored when walking; nested checks are entered).
    fn check_reads_special(&mut self, from: NodeId, to: NodeId) -> bool {
        if let Some(&r) = self.nested.get(&(from, to)) {
            return r;
        }
        // Assumed while the walk runs, so a check reached again is not entered twice.
        self.nested.insert((from, to), true);
        let g = self.g;
        let mut seen = HashSet::from([from]);
        let mut stack = vec![from];
        let mut r = false;
        'walk: while let Some(n) = stack.pop() {
            if n == to {
                continue;
            }
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if self.reads_special(&d.label) {
                    r = true;
                    break 'walk;
                }
                if seen.insert(d.to) {
                    stack.push(d.to);
                }
            }
        }
        self.nested.insert((from, to), r);
        r
    }
}

/// Takes `n` units of work from `budget`; `None` (and nothing left) when there are not enough.
fn spend(budget: &mut usize, n: usize) -> Option<()> {
    match budget.checked_sub(n) {
        Some(left) => {
            *budget = left;
            Some(())
        }
        None => {
            *budget = 0;
            None
        }
    }
}

/// Calls `f` on the names an assignment to `lhs` reads: those of its keys.
fn keys_of(g: &Game, lhs: ExprId, f: &mut impl FnMut(Symbol)) {
    if let ExprData::Access(m, i) = g.expr(g.strip_casts(lhs)) {
        keys_of(g, m, f);
        names_of(g, i, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{edges, run};

    /// A move `m` checked by a guard `? g -> f`: the game around them, with `main` (the move,
    /// from `m`) and `copy` (the guard's sub-automaton, from `g`) filled in.
    fn guarded(main: &str, copy: &str) -> String {
        format!(
            "type T = {{p, q}};\n\
             var v: T = p;\n\
             var w: T = q;\n\
             begin, s: ? g -> f;\n\
             begin, stuck: ! g -> f;\n\
             s, m: player = x;\n\
             stuck, end: player = keeper;\n\
             {main}\n{copy}\n"
        )
    }

    /// Runs the pass (validated, same game tree by the oracle); the edges after it, if it changed
    /// the game.
    fn shared(text: &str) -> Option<Vec<String>> {
        let (_, after, changed, _) = run(&ShareReachabilityCopies, text);
        changed.then(|| edges(&after))
    }

    #[test]
    fn a_guard_that_copies_the_move_without_its_tags_uses_the_move() {
        let after = shared(&guarded(
            "m, y1: v == p;\ny1, y2: $$ v;\ny2, y3: w = p;\ny3, t: $ go;\nt, begin: player = keeper;",
            "g, x1: v == p;\nx1, f: w = p;",
        ))
        .expect("shared");
        assert!(
            after.contains(&"begin, s: ? m -> t;".to_owned()),
            "{after:?}"
        );
        assert!(
            after.contains(&"begin, stuck: ! m -> t;".to_owned()),
            "{after:?}"
        );
    }

    #[test]
    fn a_guard_whose_labels_differ_from_the_move_stays() {
        // The first labels agree (the candidate is tried), the second do not.
        let text = guarded(
            "m, y1: v == p;\ny1, t: w == q;\nt, begin: player = keeper;",
            "g, x1: v == p;\nx1, f: w == p;",
        );
        assert_eq!(shared(&text), None);
    }

    #[test]
    fn a_move_with_an_extra_edge_is_not_a_copy() {
        let text = guarded(
            "m, y1: v == p;\ny1, t: w == q;\ny1, t: v == q;\nt, begin: player = keeper;",
            "g, x1: v == p;\nx1, f: w == q;",
        );
        assert_eq!(shared(&text), None);
    }

    /// The move's walk is a loop through `m`: the copy's target would be `m`, which the search
    /// from `m` reaches at once (`? m -> m` always holds) while the guard needs `w == p`.
    #[test]
    fn a_move_that_passes_the_target_early_is_not_a_copy() {
        let text = guarded(
            "m, y1: v == p;\ny1, m: w == p;",
            "g, x1: v == p;\nx1, f: w == p;",
        );
        assert_eq!(shared(&text), None);
    }

    /// States that differ only in `player` are merged by the search, and tags keep states apart:
    /// a walk reading `player` may see different states on the two sides.
    #[test]
    fn a_guard_that_reads_player_stays() {
        let text = guarded(
            "m, y1: player == x;\ny1, t: $ go;\nt, begin: player = keeper;",
            "g, f: player == x;",
        );
        assert_eq!(shared(&text), None);
    }

    #[test]
    fn two_copies_of_one_check_become_one() {
        let text = "type T = {p, q};\n\
            var v: T = p;\n\
            begin, a: ? c1 -> d1;\n\
            a, b: ? c2 -> d2;\n\
            b, end: player = keeper;\n\
            c1, e1: v == p;\n\
            e1, d1: v = q;\n\
            c2, e2: v == p;\n\
            e2, d2: v = q;\n";
        let (_, mut after, changed, _) = run(&ShareReachabilityCopies, text);
        assert!(changed);
        let printed = edges(&after);
        assert!(
            printed.contains(&"a, b: ? c1 -> d1;".to_owned()),
            "{printed:?}"
        );
        // A second run finds nothing more: the kept check has no other copy.
        let again = ShareReachabilityCopies
            .run(&mut after, &mut PassContext::default())
            .expect("runs");
        assert!(!again, "{:?}", edges(&after));
    }
}
