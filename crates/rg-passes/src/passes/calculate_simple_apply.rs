//! `calculate_simple_apply`: `@simpleApply a b [tags] assignments;` says that
//! applying a move that continues at node `a` with `tags` means performing `assignments` in
//! order and continuing at `b`, without searching; `@simpleApplyExhaustive` adds that the
//! listed alternatives cover every move at `a`. Only a compiled backend uses them.
//!
//! The reference's algorithm (path merging, ambiguity removal) is an implementation detail of
//! its C++ backend; this pass computes a simpler set of pragmas it can prove:
//!
//! * Candidates `a`: `begin`, targets of assignments to `player` and targets of tag edges (where
//!   a move can continue), in node-name order; a node that already has a simple-apply pragma is
//!   skipped (so a second run adds nothing).
//! * From `a`, every simple path is followed up to the first tag edge (key: that tag) or to the
//!   first assignment to `player` (key `[]`, the assignment included), collecting assignments;
//!   conditions (comparisons, checks) and skips are passed over, since a move that exists passed
//!   them. A path that meets a node already on it (a walk could loop) or more than 10 000 steps
//!   abandon the candidate (nothing is written for it; a hit step cap gives a warning).
//! * For a key `$$ v`, an any-assignment `v = T(*)` that is the last assignment to `v` on the
//!   path becomes `v = T(v_k)` with the binder `v_k: T` (k counts binders over the whole run);
//!   any other any-assignment makes the key unusable (the tags would not determine the result).
//! * A key gets a pragma when all its paths end at the same node with the same assignments and
//!   its first tag tells it from every other key of `a`: a symbol tag that a variable tag of
//!   another key can show (a member of the variable's type), or two variable tags whose types
//!   meet, would let a move that took one path match the pragma of the other (which the
//!   reference does not check). The pragmas of `a` are exhaustive when every key of `a` got
//!   one.
//!
//! Game tree: unchanged — the interpreter ignores these pragmas. Complexity: at most 10 000
//! steps per candidate and 2 000 000 per run.

use super::meta;
use crate::util::assigns_player;
use crate::{Pass, PassContext, PassError};
use rg_core::{
    ExprData, ExprId, Game, Label, NodeId, Pragma, PragmaKind, PragmaTag, Symbol, TypeData, TypeId,
};
use std::collections::{BTreeMap, HashSet};

#[derive(Debug)]
pub(crate) struct CalculateSimpleApply;

const STEPS_PER_CANDIDATE: usize = 10_000;
const STEPS_PER_RUN: usize = 2_000_000;

/// What a path's first tag is (`End` for a path that ends the move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    End,
    Tag(Symbol),
    Var(Symbol),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Assign(ExprId, ExprId),
    Any(ExprId, TypeId),
}

struct PathEnd {
    key: Key,
    to: NodeId,
    steps: Vec<Step>,
}

enum Abandon {
    Loop,
    Steps,
}

/// A node on the current path: (node, its distinct outgoing edges, the next one to follow, the
/// number of steps collected before the node).
type Frame = (NodeId, Vec<(Label, NodeId)>, usize, usize);

/// Every simple path from `a` to its first tag or `player` assignment.
fn paths(g: &Game, a: NodeId, budget: &mut usize) -> Result<Vec<PathEnd>, Abandon> {
    let mut out = Vec::new();
    let mut on_path: HashSet<NodeId> = HashSet::from([a]);
    let mut frames: Vec<Frame> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let distinct = |n: NodeId| {
        let mut v: Vec<(Label, NodeId)> = Vec::new();
        for &e in g.outgoing(n) {
            let d = g.edge(e);
            if !v.contains(&(d.label, d.to)) {
                v.push((d.label, d.to));
            }
        }
        v
    };
    let mut used = 0;
    frames.push((a, distinct(a), 0, 0));
    while let Some(frame) = frames.last_mut() {
        let (u, ref outs, ref mut i, depth) = *frame;
        let Some(&(label, to)) = outs.get(*i) else {
            frames.pop();
            on_path.remove(&u);
            continue;
        };
        *i += 1;
        steps.truncate(depth);
        used += 1;
        if used > STEPS_PER_CANDIDATE || *budget == 0 {
            return Err(Abandon::Steps);
        }
        *budget -= 1;
        let end = |key: Key, steps: &[Step]| PathEnd {
            key,
            to,
            steps: steps.to_vec(),
        };
        match label {
            Label::Assign { lhs, rhs } if assigns_player(g, &label) => {
                let mut s = steps.clone();
                s.push(Step::Assign(lhs, rhs));
                out.push(end(Key::End, &s));
                continue;
            }
            Label::Tag(s) => {
                out.push(end(Key::Tag(s), &steps));
                continue;
            }
            Label::TagVar(v) => {
                out.push(end(Key::Var(v), &steps));
                continue;
            }
            Label::AssignAny { .. } if assigns_player(g, &label) => return Err(Abandon::Loop),
            Label::Assign { lhs, rhs } => steps.push(Step::Assign(lhs, rhs)),
            Label::AssignAny { lhs, ty } => steps.push(Step::Any(lhs, ty)),
            Label::Compare { .. } | Label::Reach { .. } | Label::Skip => {}
        }
        if !on_path.insert(to) {
            return Err(Abandon::Loop);
        }
        let depth = steps.len();
        frames.push((to, distinct(to), 0, depth));
    }
    Ok(out)
}

/// The symbols a path's first tag can be: the tag's symbol, or for `$$ v` the members of
/// `v`'s type (a proper game keeps every variable within its type); `None` when unknown.
fn shows(g: &Game, key: Key) -> Option<Vec<Symbol>> {
    match key {
        Key::End => Some(Vec::new()),
        Key::Tag(s) => Some(vec![s]),
        Key::Var(v) => crate::util::set_members(g, g.variable(v)?.ty),
    }
}

/// An assignment of a pragma: the right side is an expression or the binder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rhs {
    Expr(ExprId),
    Binder(TypeId),
}

/// The assignments of a path under its key, or `None` when the tags do not determine them.
fn resolve(g: &Game, key: Key, steps: &[Step]) -> Option<Vec<(ExprId, Rhs)>> {
    let assigns_var = |s: &Step, v: Symbol| match *s {
        Step::Assign(l, _) | Step::Any(l, _) => g.expr_root(l) == v,
    };
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| match *s {
            Step::Assign(l, r) => Some((l, Rhs::Expr(r))),
            Step::Any(l, t) => {
                let Key::Var(v) = key else { return None };
                let plain = g.expr(g.strip_casts(l)) == ExprData::Ref(v);
                let last = !steps[i + 1..].iter().any(|s| assigns_var(s, v));
                let named = matches!(g.ty(t), TypeData::Name(_));
                (plain && last && named).then_some((l, Rhs::Binder(t)))
            }
        })
        .collect()
}

impl Pass for CalculateSimpleApply {
    meta!(
        "calculate_simple_apply",
        "add @simpleApply/@simpleApplyExhaustive for move parts whose effect the tags determine",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut done: HashSet<NodeId> = HashSet::new();
        for p in &g.pragmas {
            if let PragmaKind::SimpleApply { from, .. } = p.kind {
                done.insert(from);
            }
        }
        let mut candidates: Vec<NodeId> = g.begin().into_iter().collect();
        for (_, e) in g.edges() {
            if assigns_player(g, &e.label) || e.label.is_tag() {
                candidates.push(e.to);
            }
        }
        crate::util::sort_by_name(g, &mut candidates);
        candidates.dedup();
        let mut budget = STEPS_PER_RUN;
        let mut capped = 0;
        // (candidate, key, end node, assignments, exhaustive)
        type Found = (NodeId, Key, NodeId, Vec<(ExprId, Rhs)>, bool);
        let mut found: Vec<Found> = Vec::new();
        for a in candidates {
            if done.contains(&a) {
                continue;
            }
            let ends = match paths(g, a, &mut budget) {
                Ok(ends) => ends,
                Err(Abandon::Loop) => continue,
                Err(Abandon::Steps) => {
                    capped += 1;
                    continue;
                }
            };
            let mut by_key: BTreeMap<Key, Vec<PathEnd>> = BTreeMap::new();
            for p in ends {
                by_key.entry(p.key).or_default().push(p);
            }
            // The first tag must tell the key: a symbol tag that a variable tag of another
            // key can also show (or two variable tags that can show one symbol) would make a
            // move of one path look like a move of the other.
            let shown: Vec<(Key, Option<Vec<Symbol>>)> =
                by_key.keys().map(|&k| (k, shows(g, k))).collect();
            let ambiguous = |k: Key| {
                let mine = &shown.iter().find(|s| s.0 == k).expect("a key").1;
                shown.iter().any(|(other, theirs)| {
                    *other != k
                        && *other != Key::End
                        && k != Key::End
                        && match (mine, theirs) {
                            (Some(a), Some(b)) => a.iter().any(|x| b.contains(x)),
                            _ => true,
                        }
                })
            };
            let mut here = Vec::new();
            let mut all = true;
            for (key, ps) in by_key {
                if ambiguous(key) {
                    all = false;
                    continue;
                }
                let first = resolve(g, key, &ps[0].steps);
                let agreed = first.filter(|f| {
                    ps[1..]
                        .iter()
                        .all(|p| p.to == ps[0].to && resolve(g, key, &p.steps).as_ref() == Some(f))
                });
                match agreed {
                    Some(assigns) => here.push((a, key, ps[0].to, assigns, false)),
                    None => all = false,
                }
            }
            for h in &mut here {
                h.4 = all;
            }
            found.extend(here);
        }
        if capped > 0 {
            cx.warnings.push(format!(
                "calculate_simple_apply: gave up on {capped} node(s) after {STEPS_PER_CANDIDATE} steps (or {STEPS_PER_RUN} in all)"
            ));
        }
        if found.is_empty() {
            return Ok(false);
        }
        let mut counter = 0;
        for (from, key, to, assigns, exhaustive) in found {
            let mut binder = None;
            let tags = match key {
                Key::End => Vec::new(),
                Key::Tag(s) => vec![PragmaTag::Symbol(s)],
                Key::Var(v) => {
                    let ty = assigns
                        .iter()
                        .find_map(|(_, r)| match r {
                            Rhs::Binder(t) => Some(*t),
                            Rhs::Expr(_) => None,
                        })
                        .or_else(|| g.variable(v).map(|d| d.ty));
                    let Some(ty) = ty else { continue };
                    let name = loop {
                        counter += 1;
                        let name = format!("{}_{counter}", g.name(v));
                        if g.find_sym(&name).is_none() {
                            break g.sym(&name);
                        }
                    };
                    binder = Some(name);
                    vec![PragmaTag::Variable(name, ty)]
                }
            };
            let assignments = assigns
                .into_iter()
                .map(|(l, r)| match r {
                    Rhs::Expr(r) => (l, r),
                    Rhs::Binder(t) => {
                        let b = g.expr_ref(binder.expect("a binder key"));
                        (l, g.expr_cast(t, b))
                    }
                })
                .collect();
            g.pragmas.push(Pragma {
                kind: PragmaKind::SimpleApply {
                    from,
                    to,
                    tags,
                    assignments,
                    exhaustive,
                },
                derived: true,
                span: None,
            });
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::game;

    /// From `s`: `$ {tag}` then `$ t1`, or `v = T(*)`, `$$ v`, `$ t2`.
    fn two_paths(tag: &str) -> Vec<String> {
        let mut g = game(&format!(
            "type T = {{ p, q }};\n\
             var v: T = p;\n\
             begin, s: player = x;\n\
             s, a: $ {tag};\n\
             a, a2: $ t1;\n\
             a2, f: player = keeper;\n\
             s, b: v = T(*);\n\
             b, c: $$ v;\n\
             c, c2: $ t2;\n\
             c2, f: player = keeper;\n\
             f, end: player = keeper;\n"
        ));
        CalculateSimpleApply
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        let printed = rg_core::print(&g);
        printed
            .lines()
            .filter(|l| {
                l.starts_with("@simpleApplyExhaustive s ") || l.starts_with("@simpleApply s ")
            })
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_first_tag_two_paths_can_show_gives_no_pragma() {
        // The move `p t2` went through `$$ v`, yet starts with the tag of the other path.
        assert_eq!(two_paths("p"), Vec::<String>::new());
    }

    #[test]
    fn first_tags_that_tell_the_paths_apart_give_pragmas() {
        assert_eq!(
            two_paths("r"),
            [
                "@simpleApplyExhaustive s a [r];",
                "@simpleApplyExhaustive s c [v_1: T] v = T(v_1);"
            ]
        );
    }
}
