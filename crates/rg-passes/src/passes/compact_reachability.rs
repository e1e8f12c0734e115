//! `compact_reachability`: moves the start of every reachability check forward past leading
//! skips, and its end backward before trailing skips and assignments, with the fix the spec
//! requires: a walk never steps from a node that is an end (start walk) or a start (end walk)
//! of some check.
//!
//! Applies to a check `? s -> t` when `s` has exactly one outgoing edge, a skip, to a node
//! that is not the end of a check (repeatedly, so a chain of skips is crossed), and when `t` has
//! exactly one incoming edge, a skip or an assignment, from a node that is not the start of a
//! check.
//!
//! Why the game tree is kept: a check only asks whether a path exists from its start to its
//! end. Every path from `s` must first take the single skip, which does nothing, so a path
//! exists from `s` iff one exists from the skip's target; every path into `t` must take the
//! single last edge, and a skip or an assignment never blocks a walk (an assignment's effect is
//! thrown away with the check's state), so a path reaches `t` iff one reaches the edge's source.
//! The sub-automaton of the check gets shorter and later passes can drop the bypassed edges.
//!
//! ```text
//! before:  a, b: ? s -> t;  s, s1: ;  s1, u: x == 1;  u, u1: y = 0;  u1, t: ;
//! after:   a, b: ? s1 -> u;  s, s1: ;  s1, u: x == 1;  u, u1: y = 0;  u1, t: ;
//! ```
//!
//! Complexity: linear in the size of the game.
use super::meta;
use crate::util::{FxHashMap, FxHashSet, NodeMap, reset_set};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, Game, Label, NodeId};

/// Moves check starts past leading skips and check ends before trailing skips and assignments.
#[derive(Debug)]
pub(crate) struct CompactReachability;

impl Pass for CompactReachability {
    meta!(
        "compact_reachability",
        "move reachability starts past leading skips and ends before trailing skips and assignments",
        Safe,
        Loop,
        Reachability
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        // One scan finds the checks; the chains are walked once per distinct start and end.
        // (Sets indexed by node and one reused `seen` set: this pass ran every round on the
        // largest games and hashed and allocated per check, 1 s a round on chess.kif.)
        let mut checks: Vec<EdgeId> = Vec::new();
        let mut is_start = NodeMap::from_elem(false, g.node_capacity());
        let mut is_end = NodeMap::from_elem(false, g.node_capacity());
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for (e, d) in g.edges() {
            if let Label::Reach { from, to, .. } = d.label {
                checks.push(e);
                if !std::mem::replace(&mut is_start[from], true) {
                    starts.push(from);
                }
                if !std::mem::replace(&mut is_end[to], true) {
                    ends.push(to);
                }
            }
        }
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        let mut new_start: FxHashMap<NodeId, NodeId> = FxHashMap::default();
        for &s in &starts {
            let mut c = s;
            reset_set(&mut seen);
            seen.insert(c);
            while !is_end[c] {
                let out = g.outgoing(c);
                if out.len() != 1 || g.edge(out[0]).label != Label::Skip {
                    break;
                }
                let next = g.edge(out[0]).to;
                if !seen.insert(next) {
                    break;
                }
                c = next;
            }
            if c != s && !is_end[c] {
                new_start.insert(s, c);
            }
        }
        let mut new_end: FxHashMap<NodeId, NodeId> = FxHashMap::default();
        for &t in &ends {
            let mut c = t;
            reset_set(&mut seen);
            seen.insert(c);
            while !is_start[c] {
                let inc = g.incoming(c);
                if inc.len() != 1
                    || !matches!(
                        g.edge(inc[0]).label,
                        Label::Skip | Label::Assign { .. } | Label::AssignAny { .. }
                    )
                {
                    break;
                }
                let prev = g.edge(inc[0]).from;
                if !seen.insert(prev) {
                    break;
                }
                c = prev;
            }
            if c != t && !is_start[c] {
                new_end.insert(t, c);
            }
        }
        if new_start.is_empty() && new_end.is_empty() {
            return Ok(false);
        }
        let mut changed = false;
        for e in checks {
            if let Label::Reach { from, to, negated } = g.edge(e).label {
                let f = new_start.get(&from).copied().unwrap_or(from);
                let t = new_end.get(&to).copied().unwrap_or(to);
                if (f, t) != (from, to) {
                    g.set_label(
                        e,
                        Label::Reach {
                            from: f,
                            to: t,
                            negated,
                        },
                    );
                    changed = true;
                }
            }
        }
        Ok(changed)
    }
}
