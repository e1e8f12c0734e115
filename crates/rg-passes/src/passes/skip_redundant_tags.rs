//! `skip_redundant_tags`, by the determinized tag skeleton, instead of the reference's two local
//! rules (which can remove a tag that tells moves apart, merging distinct moves).
//!
//! On the position sets of the main automaton ([`tag_skeleton`]: after a given sequence of tags
//! since the move began, the nodes a walk can be at), a set `Q` is *forced* when the only event
//! available at `Q` is one label `t`: every tag edge leaving `Q` has label `t` and no `player`
//! assignment leaves `Q`. For `t = $$ v` additionally no edge assigning `v` may reach a `$$ v`
//! edge leaving `Q` without crossing a `player` assignment: `v` then still holds its value from
//! the start of the move, the same for every walk from the current state. A tag edge is removed
//! (becomes a skip) when every position set containing its source is forced, and every forced set
//! keeps its status only if all its tag edges are removed (shrunk to a fixed point: sets sharing a
//! tag-source node stand or fall together).
//!
//! Why this is a bijection on moves (the pass *relabels*): run the old skeleton along a new move.
//! At a forced set the old move must continue with `t` (nothing else can happen there), and every
//! `t`-edge there was removed, so `t` is re-inserted; at any other set no leaving edge was
//! removed, so the next tag of the new move is the next tag of the old one. The old move is
//! rebuilt from the new one (and the state, for `$$ v`), so different moves stay different and
//! the game tree is the same. Symbol and variable tags are one channel (the reference's separate
//! channels merge `a $$v` with `$$v a`), and positions are sets of nodes reached by a tag
//! sequence, not single edges (the reference's Rule A merges moves that share a prefix through
//! different edges). The reference's Rule B has no sound counterpart here and is omitted.
//!
//! A move records tag values, not the edges that showed them, so the skeleton follows event
//! *classes* ([`EventClasses`]): `$$ a` and `$$ b` over one type are one class, and so are `$ v1`
//! and `$$ a` when `v1` is a value of `a`'s type. Following labels instead, the sets after `$$ b`
//! and after `$$ a` were different, and a tag forced after `$$ b` was removed although the move
//! `$$ b` (tag gone) could then show the same as a move `$$ a` (found by the randomised test).
//!
//! Artificial tags (`@artificialTag`) are silent in the skeleton: `skip_artificial_tags` removes
//! them later on the promise that the rest of the move determines them, so a tag may only count
//! as forced if it is forced without them (with `$_ r; …; $ r_done` both would otherwise go, and
//! the moves of different `r` would merge). Artificial tags themselves are left to that pass.
//!
//! Global guard (as in the reference): nothing is removed when an assignment or comparison
//! mentions `visible`, because which tags a player sees would change.
//!
//! Complexity: the determinization is exponential in the worst case, so it runs under caps
//! (10 000 position sets, 2 000 000 steps); when a cap is hit nothing is removed and a warning is
//! recorded. Below the caps: O(work) plus a linear propagation over (set, node) memberships.

use super::meta;
use crate::analysis::tag_skeleton::{Caps, EventClasses, Step, events_of, position_sets};
use crate::util::NodeMap;
use crate::util::{artificial_tags, assigned, assigns_player, names_of};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeData, Game, Label, NodeId, Symbol};
use std::collections::{HashMap, HashSet};

#[derive(Debug)]
pub(crate) struct SkipRedundantTags;

const CAPS: Caps = Caps {
    sets: 10_000,
    work: 2_000_000,
};

/// Whether some assignment or comparison mentions `visible`.
fn uses_visibility(g: &Game) -> bool {
    let visible = g.well_known().visible;
    g.edges().any(|(_, d)| {
        let mut found = false;
        let mut see = |s: Symbol| found |= s == visible;
        match d.label {
            Label::Assign { lhs, rhs } | Label::Compare { lhs, rhs, .. } => {
                names_of(g, lhs, &mut see);
                names_of(g, rhs, &mut see);
            }
            Label::AssignAny { lhs, .. } => names_of(g, lhs, &mut see),
            _ => {}
        }
        found
    })
}

/// For every variable shown by a `$$ v` edge: the nodes a walk can reach after assigning it
/// without starting a new move.
fn assigned_in_move(g: &Game, shown: &HashSet<Symbol>) -> HashMap<Symbol, NodeMap<bool>> {
    let mut out = HashMap::new();
    for &v in shown {
        let mut seen = NodeMap::from_elem(false, g.node_capacity());
        let mut stack: Vec<NodeId> = Vec::new();
        for (_, d) in g.edges() {
            if assigned(g, &d.label) == Some(v) && !seen[d.to] {
                seen[d.to] = true;
                stack.push(d.to);
            }
        }
        while let Some(n) = stack.pop() {
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if !assigns_player(g, &d.label) && !seen[d.to] {
                    seen[d.to] = true;
                    stack.push(d.to);
                }
            }
        }
        out.insert(v, seen);
    }
    out
}

impl Pass for SkipRedundantTags {
    meta!(
        "skip_redundant_tags",
        "remove tags that are the only possible event at their position in every move",
        Relabels,
        Loop,
        Tags
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        if !g.edges().any(|(_, d)| d.label.is_tag()) || uses_visibility(g) {
            return Ok(false);
        }
        let main = cx.reachable_nodes(g, false);
        let artificial = artificial_tags(g);
        let step = |d: &EdgeData| {
            if matches!(d.label, Label::Tag(s) if artificial.contains(&s)) {
                Step::Silent
            } else if d.label.is_tag() {
                Step::Event(d.label)
            } else if assigns_player(g, &d.label) {
                Step::End
            } else {
                Step::Silent
            }
        };
        let classes = EventClasses::new(g);
        let sets = match position_sets(g, &main, step, &classes, CAPS) {
            Ok(s) => s.sets,
            Err(x) => {
                cx.warnings.push(format!(
                    "skip_redundant_tags: gave up after {x} of the tag skeleton; no tag removed"
                ));
                return Ok(false);
            }
        };
        let shown: HashSet<Symbol> = g
            .edges()
            .filter_map(|(_, d)| match d.label {
                Label::TagVar(v) if main[d.from] => Some(v),
                _ => None,
            })
            .collect();
        let tainted = assigned_in_move(g, &shown);
        // Forced sets, and which sets contain each node with a leaving tag edge.
        let mut forced = vec![false; sets.len()];
        let mut sets_of: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (q, set) in sets.iter().enumerate() {
            let mut label = None;
            let mut ok = true;
            for &n in set {
                let d = g.outgoing(n);
                if d.iter().any(|&e| step(g.edge(e)) == Step::End) {
                    ok = false;
                }
                let mut has_event = false;
                for (_, l) in events_of(g, n, &step) {
                    has_event = true;
                    if *label.get_or_insert(l) != l {
                        ok = false;
                    }
                    if let Label::TagVar(v) = l
                        && tainted[&v][n]
                    {
                        ok = false;
                    }
                }
                if has_event {
                    sets_of.entry(n).or_default().push(q);
                }
            }
            forced[q] = ok && label.is_some();
        }
        // A node is removable only if every set containing it is forced; a set stays forced only
        // if all its tag-source nodes are removable.
        let mut bad: HashSet<NodeId> = HashSet::new();
        let mut stack: Vec<usize> = (0..sets.len()).filter(|&q| !forced[q]).collect();
        while let Some(q) = stack.pop() {
            for &n in &sets[q] {
                if !sets_of.contains_key(&n) || !bad.insert(n) {
                    continue;
                }
                for &q2 in &sets_of[&n] {
                    if forced[q2] {
                        forced[q2] = false;
                        stack.push(q2);
                    }
                }
            }
        }
        let mut nodes: Vec<NodeId> = sets_of
            .keys()
            .copied()
            .filter(|n| !bad.contains(n))
            .collect();
        nodes.sort_unstable();
        let remove: Vec<_> = nodes
            .into_iter()
            .flat_map(|n| events_of(g, n, &step).map(|(e, _)| e).collect::<Vec<_>>())
            .collect();
        for &e in &remove {
            g.set_label(e, Label::Skip);
        }
        Ok(!remove.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::SkipRedundantTags;
    use crate::testing::{edges, game, run};
    use crate::{Pass, PassContext};

    const GAME: &str = "type T = { p, q, r };\nvar v: T = p;\nbegin, s: player = x;\n\
                        s, a2: v == p;\na2, a3: $ left;\ns, b2: v != p;\nb2, b3: $ right;\n\
                        a3, z: $ done;\nb3, z: $ done;\nz, end: player = keeper;\n";

    #[test]
    fn only_forced_tags_are_removed() {
        // The reference's example: `done` is forced after both alternatives; `left` and `right`
        // (removed by the reference's Rule B) stay.
        let (_, after, changed, _) = run(&SkipRedundantTags, GAME);
        assert!(changed);
        let e = edges(&after);
        assert!(e.contains(&"a2, a3: $ left;".into()) && e.contains(&"b2, b3: $ right;".into()));
        assert!(
            e.contains(&"a3, z: ;".into()) && e.contains(&"b3, z: ;".into()),
            "{e:?}"
        );
    }

    #[test]
    fn visibility_disables_the_pass() {
        let text = GAME.replace("s, a2: v == p;", "s, a2: visible[x] == 1;");
        let (_, _, changed, _) = run(&SkipRedundantTags, &text);
        assert!(!changed);
    }

    #[test]
    fn a_variable_tag_of_a_value_chosen_in_the_move_stays() {
        let text = "type T = { p, q };\nvar v: T = p;\nbegin, s: player = x;\ns, a: v = T(*);\n\
                    a, b: $$ v;\nb, end: player = keeper;\n";
        let (_, _, changed, _) = run(&SkipRedundantTags, text);
        assert!(!changed);
        // Shown before it is chosen, the value is the one of the state: the tag goes.
        let text = text.replace(
            "s, a: v = T(*);\na, b: $$ v;",
            "s, a: $$ v;\na, b: v = T(*);",
        );
        let (_, _, changed, _) = run(&SkipRedundantTags, &text);
        assert!(changed);
    }

    #[test]
    fn tags_are_forced_only_without_the_artificial_tags() {
        // `r0 done0` / `r1 done1` with `r0`, `r1` artificial: the `done` tags are what determines
        // the artificial ones, so they stay; together with skip_artificial_tags the tree is kept.
        let text = "@artificialTag r0 r1;\ntype T = { p, q };\nvar v: T = p;\nbegin, s: player = x;\n\
                    s, a0: $ r0;\na0, b0: v = T(*);\nb0, c0: $$ v;\nc0, z: $ done0;\n\
                    s, a1: $ r1;\na1, b1: v = T(*);\nb1, c1: $$ v;\nc1, z: $ done1;\n\
                    z, end: player = keeper;\n";
        let (_, _, changed, _) = run(&SkipRedundantTags, text);
        assert!(!changed);
        let mut g = game(text);
        let before = g.clone();
        let mut cx = PassContext::default();
        SkipRedundantTags.run(&mut g, &mut cx).expect("runs");
        crate::passes::skip_artificial_tags::SkipArtificialTags
            .run(&mut g, &mut cx)
            .expect("runs");
        let opts = rg_interp::equiv::EquivOptions::default();
        rg_interp::equiv::check_relabelled(&before, &g, &opts).expect("the same tree");
    }

    #[test]
    fn tags_after_events_that_can_show_the_same_value_stay() {
        // `$$ b` then `t`, or a chosen `a` then `$$ a`: with `a = b = v1` the moves show `v1 t`
        // and `v1`. Without `t` they would show the same and lead to different states.
        let text = "type V = { v0, v1 };\nvar a: V = v1;\nvar b: V = v1;\nbegin, s: player = x;\n\
                    s, p: $$ b;\np, q: $ t;\nq, z: b = v0;\ns, r: a = V(*);\nr, z: $$ a;\n\
                    z, end: player = keeper;\n";
        let (_, _, changed, _) = run(&SkipRedundantTags, text);
        assert!(!changed);
        // The same with a symbol tag that is a value of `a`.
        let text = text.replace("s, p: $$ b;", "s, p: $ v1;");
        let (_, _, changed, _) = run(&SkipRedundantTags, &text);
        assert!(!changed);
        // A symbol that is no value of `a` cannot be confused with `$$ a`: `t` goes.
        let text = text.replace("s, p: $ v1;", "s, p: $ w;");
        let (_, after, changed, _) = run(&SkipRedundantTags, &text);
        assert!(changed);
        assert!(edges(&after).contains(&"p, q: ;".into()));
    }

    #[test]
    fn an_exploding_skeleton_hits_the_cap_and_changes_nothing() {
        // (a|b)* a (a|b)^14: the position sets remember the last 14 tags (2^14 of them).
        let mut text = String::from(
            "begin, q0: player = x;\nq0, l1: $ a;\nl1, q0: ;\nq0, l2: $ b;\nl2, q0: ;\nq0, q1: $ a;\n",
        );
        for i in 1..=14 {
            text += &format!("q{i}, q{}: $ a;\nq{i}, q{}: $ b;\n", i + 1, i + 1);
        }
        text += "q15, end: player = keeper;\n";
        let mut g = game(&text);
        let mut cx = PassContext::default();
        assert!(!SkipRedundantTags.run(&mut g, &mut cx).expect("runs"));
        assert_eq!(cx.warnings.len(), 1, "{:?}", cx.warnings);
        assert!(
            cx.warnings[0].contains("position sets"),
            "{:?}",
            cx.warnings
        );
    }
}
