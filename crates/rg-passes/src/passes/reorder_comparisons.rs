//! reorder_comparisons (not in the reference): the safe part of `reorder_conditions`
//! (`reorder_conditions`), so that `-O2` can share conditions between branches too.
//!
//! It is `reorder_conditions` with paths that hold only comparisons that cannot fault: a path
//! (and a branch) starts with such an edge and ends before the first other label (tag, check,
//! assignment, skip, a comparison that may fault). Tags and checks therefore never move and
//! nothing moves across them. Skips are left where they are: moving a frequent skip to the
//! front of every branch shares nothing and only hides the comparisons behind it from the
//! passes that look at the first edge of a branch (`compact_skip_edges` removes them anyway).
//!
//! A comparison *cannot fault* when every access `m[k]` inside it has a key whose values all
//! belong to the key type of `m`, with casts erased as the interpreter erases them: the key's
//! type is that of the expression under its casts (a variable's or constant's declared type, the
//! value type of an accessed map, `{s}` for a symbol).
//!
//! Why the game tree is kept: a path has one entry and one exit per node, so the walks through
//! it are the same before and after; it holds no assignment and no tag, so its comparisons are a
//! conjunction evaluated in a single state and no move label changes; no comparison can fault
//! in a state where the game's variables hold values of their types, so evaluating one earlier,
//! in a state where the condition before it would have failed, reads valid values and fails or
//! holds without effect.
//!
//! Complexity: as `reorder_conditions`.

use super::meta;
use super::reorder_conditions::reorder;
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Resolved, Ty, TypeEnv};
use rg_core::{ExprData, ExprId, Game, Label};
use rustc_hash::FxHashSet;

/// Moves comparisons shared by several branches of a node to the front of each branch.
#[derive(Debug)]
pub(crate) struct ReorderComparisons;

/// The type of the values `e` may have at run time (casts erased), when it can be told.
pub(crate) fn erased_type(env: &TypeEnv<'_>, e: ExprId) -> Option<Ty> {
    match env.game().expr(e) {
        ExprData::Ref(_) => env.infer(e).ok(),
        ExprData::Cast(_, x) => erased_type(env, x),
        ExprData::Access(m, _) => match env.resolve_ty(erased_type(env, m)?).ok()? {
            Resolved::Arrow(_, v) => Some(Ty::Id(v)),
            Resolved::Set(_) => None,
        },
    }
}

/// Whether every access inside `e` reads a key within its map's key type.
fn cannot_fault(env: &TypeEnv<'_>, e: ExprId) -> bool {
    match env.game().expr(e) {
        ExprData::Ref(_) => true,
        ExprData::Cast(_, x) => cannot_fault(env, x),
        ExprData::Access(m, k) => {
            let key_type = erased_type(env, m).and_then(|t| match env.resolve_ty(t).ok()? {
                Resolved::Arrow(kt, _) => Some(kt),
                Resolved::Set(_) => None,
            });
            let within = match (key_type, erased_type(env, k)) {
                (Some(kt), Some(at)) => env.assignable(Ty::Id(kt), at, true).unwrap_or(false),
                _ => false,
            };
            within && cannot_fault(env, m) && cannot_fault(env, k)
        }
    }
}

impl Pass for ReorderComparisons {
    meta!(
        "reorder_comparisons",
        "move comparisons shared by branches of a node to their front (tags and checks stay)",
        Safe,
        Loop,
        // It only prepares join_fork_prefixes, so it belongs with the joins (and not in -O1).
        Join
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        // Relabelling only permutes the labels already there: decide each one once.
        let safe: FxHashSet<Label> = {
            let env = TypeEnv::new(g);
            g.edges()
                .map(|(_, d)| d.label)
                .filter(|l| match *l {
                    Label::Compare { lhs, rhs, .. } => {
                        cannot_fault(&env, lhs) && cannot_fault(&env, rhs)
                    }
                    _ => false,
                })
                .collect()
        };
        let movable = |l: &Label| safe.contains(l);
        Ok(reorder(g, cx, Some(&movable), self.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pass;
    use crate::testing::test_game;

    #[test]
    fn a_comparison_cannot_fault_when_its_keys_are_within_the_key_types() {
        let g = test_game(
            "type T = {p, q, r};\n\
             type U = {p, q, r, z};\n\
             const m: T -> T = {:p};\n\
             var v: T = p;\n\
             var k: U = p;\n\
             begin, a: m[v] == p;\n\
             begin, a: m[m[v]] == m[p];\n\
             begin, a: m[k] == p;\n\
             begin, a: m[T(k)] == p;\n\
             begin, a: m[z] == p;\n\
             a, end: player = keeper;",
        );
        let env = TypeEnv::new(&g);
        let verdicts: Vec<bool> = g
            .edges()
            .filter_map(|(_, d)| match d.label {
                Label::Compare { lhs, rhs, .. } => {
                    Some(cannot_fault(&env, lhs) && cannot_fault(&env, rhs))
                }
                _ => None,
            })
            .collect();
        assert_eq!(verdicts, [true, true, false, false, false]);
    }

    /// Runs that keep what the last run found quiet (one pass context for every run, as in the
    /// pass manager) rewrite exactly as runs without it, between joins and after a change made
    /// behind the pass's back; so do the runs of `join_fork_prefixes`, which keep what their
    /// last run saw.
    #[test]
    fn remembering_quiet_nodes_changes_no_rewrite() {
        use super::super::join_fork_prefixes::JoinForkPrefixes;
        use crate::testing::edges;
        let mut kept = test_game(
            "type T = {p, q};
             var a: T = p;
             var b: T = p;
             var c: T = p;
             begin, s: player = x;
             s, a1: c == q;
             a1, a2: b == p;
             a2, a3: a == p;
             a3, t: $ one;
             s, b1: a == p;
             b1, b2: c == q;
             b2, b3: b == q;
             b3, t: $ two;
             s, c1: b == p;
             c1, c2: a == p;
             c2, c3: c == q;
             c3, t: $ three;
             begin, d1: a == q;
             d1, d2: b == q;
             d2, t: $ four;
             begin, e1: b == q;
             e1, e2: a == q;
             e2, t: $ five;
             begin, h: player = x;
             h, f1: a == p;
             f1, f2: c == p;
             f2, t: $ six;
             h, g1: b == p;
             g1, g2: a == q;
             g2, t: $ seven;
             t, end: player = keeper;",
        );
        let mut fresh = kept.clone();
        let mut cx = PassContext::default();
        let mut both = |kept: &mut Game, fresh: &mut Game, pass: &dyn Pass| {
            let a = pass.run(kept, &mut cx).expect("runs");
            let b = pass.run(fresh, &mut PassContext::default()).expect("runs");
            assert_eq!((a, edges(kept)), (b, edges(fresh)), "after {}", pass.name());
            a
        };
        let mut rounds = 0;
        while both(&mut kept, &mut fresh, &ReorderComparisons)
            | both(&mut kept, &mut fresh, &JoinForkPrefixes)
        {
            rounds += 1;
        }
        // At least one run after a join changed the game, with what the run before it kept.
        assert!(rounds >= 1, "{rounds} rounds");
        // A comparison relabelled behind the pass's back makes two branches of `h`, quiet so
        // far, share a label: the remembered step of `h` read that edge, so `h` is stepped again.
        let find = |g: &Game, from: &str, to: &str| {
            g.edges()
                .find(|(_, d)| g.node_name(d.from) == from && g.node_name(d.to) == to)
                .map(|(e, _)| e)
                .expect("edge")
        };
        for g in [&mut kept, &mut fresh] {
            let shared = g.edge(find(g, "f1", "f2")).label;
            let e = find(g, "h", "g1");
            g.set_label(e, shared);
        }
        assert!(both(&mut kept, &mut fresh, &ReorderComparisons));
        // And join_fork_prefixes, which keeps what its last run saw too, joins them.
        assert!(both(&mut kept, &mut fresh, &JoinForkPrefixes));
    }
}
