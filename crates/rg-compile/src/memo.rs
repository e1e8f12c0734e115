//! Reachability checks whose result is remembered per value of the few variables they read.
//!
//! A check `? a -> b` answers a question about the state it starts from, and its walks can
//! only be affected by the variables that some edge of them (or of a check nested in them)
//! mentions. When those are a few scalars, their values index a table of answers: the check is
//! searched once per combination of values for the life of a `Cache` and then read back. Games
//! ask such questions over and over: "is this square one of the four centres" (pentago) or
//! "does this direction lead off the board" depend on one coordinate, not on the board.
//!
//! Every mentioned variable is part of the key, read or written (a conservative superset of
//! what the answer depends on); maps and large keys are never memoised.

use crate::layout::{Layout, NameRef, Shape};
use crate::search::SearchPlan;
use rg_core::{EntityId, ExprData, ExprId, Game, Label, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// Combinations of key values of one check at most.
const MAX_SLOTS: u64 = 1 << 12;
/// All tables together.
const MAX_TOTAL: u64 = 1 << 22;
/// Region node visits allowed for the analysis of all checks together.
const WORK_BUDGET: u64 = 4_000_000;

/// The table of one check: answer slot `base + Σ value(vars[i]) · radix[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub vars: Vec<usize>,
    pub radix: Vec<u64>,
    pub base: u64,
}

/// The memoised checks of a game.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    pub keys: BTreeMap<Pair, Key>,
    /// Answer slots of all tables.
    pub slots: u64,
}

/// A check: its first node and its target.
type Pair = (NodeId, NodeId);
/// The variables a check's own walks mention, and the checks they nest.
type Mentions = (BTreeSet<usize>, BTreeSet<Pair>);

/// The variables mentioned by the walks of check `? a -> b` and the checks it nests, or `None`
/// when the analysis ran out of budget.
fn direct_mentions(
    game: &Game,
    layout: &Layout,
    plan: &SearchPlan,
    a: NodeId,
    b: NodeId,
    seen: &mut [bool],
    budget: &mut u64,
) -> Option<Mentions> {
    let region = plan.reach.get(&b)?;
    let mut vars = BTreeSet::new();
    let mut nested = BTreeSet::new();
    if !region.contains(a) {
        return Some((vars, nested));
    }
    // `seen` is all false on entry and is left so (the nodes set are listed in `visited`).
    let mut visited = vec![a];
    seen[a.index()] = true;
    let mut work = vec![a];
    let result = loop {
        let Some(n) = work.pop() else {
            break Some((vars, nested));
        };
        if *budget == 0 {
            break None;
        }
        *budget -= 1;
        if n == b {
            continue;
        }
        for &e in &plan.out[n.index()] {
            let d = game.edge(e);
            match d.label {
                Label::Assign { lhs, rhs } | Label::Compare { lhs, rhs, .. } => {
                    mentions(game, layout, lhs, &mut vars);
                    mentions(game, layout, rhs, &mut vars);
                }
                Label::AssignAny { lhs, .. } => mentions(game, layout, lhs, &mut vars),
                Label::Reach { from, to, .. } => {
                    if from != to {
                        nested.insert((from, to));
                    }
                }
                Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
            }
            if region.contains(d.to) && !seen[d.to.index()] {
                seen[d.to.index()] = true;
                visited.push(d.to);
                work.push(d.to);
            }
        }
    };
    for q in visited {
        seen[q.index()] = false;
    }
    result
}

/// The variables an expression mentions (in keys too).
fn mentions(game: &Game, layout: &Layout, e: ExprId, out: &mut BTreeSet<usize>) {
    let mut work = vec![e];
    while let Some(x) = work.pop() {
        match game.expr(x) {
            ExprData::Cast(_, inner) => work.push(inner),
            ExprData::Access(m, k) => {
                work.push(m);
                work.push(k);
            }
            ExprData::Ref(r) => {
                if let NameRef::Var(v) = layout.name_ref(game, r) {
                    out.insert(v);
                }
            }
        }
    }
}

/// Which checks get a table, and where.
pub(crate) fn analyse(game: &Game, layout: &Layout, plan: &SearchPlan) -> Memo {
    let mut pairs: BTreeSet<Pair> = BTreeSet::new();
    for (_, e) in game.edges() {
        if let Label::Reach { from, to, .. } = e.label
            && from != to
        {
            pairs.insert((from, to));
        }
    }
    let mut budget = WORK_BUDGET;
    // Mentions per pair: `None` when unknown (any nesting of it is unknown too).
    let mut direct: BTreeMap<Pair, Option<Mentions>> = BTreeMap::new();
    let mut seen = vec![false; game.node_capacity()];
    for &(a, b) in &pairs {
        let d = direct_mentions(game, layout, plan, a, b, &mut seen, &mut budget);
        direct.insert((a, b), d);
    }
    let mut memo = Memo::default();
    for &pair in &pairs {
        // The union over the checks this one nests, transitively.
        let mut vars: BTreeSet<usize> = BTreeSet::new();
        let mut known = true;
        let mut seen: BTreeSet<Pair> = BTreeSet::new();
        let mut work = vec![pair];
        seen.insert(pair);
        while let Some(p) = work.pop() {
            let Some(Some((vs, nested))) = direct.get(&p) else {
                known = false;
                break;
            };
            vars.extend(vs.iter().copied());
            if vars.len() > 12 {
                known = false;
                break;
            }
            for &q in nested {
                if seen.insert(q) {
                    work.push(q);
                }
            }
        }
        if !known {
            continue;
        }
        let mut radix = Vec::with_capacity(vars.len());
        let mut size = 1u64;
        // Variables of one value (no bits) are not part of the key.
        vars.retain(|&v| layout.vars[v].width > 0);
        for &v in &vars {
            let Shape::Scalar(class) = layout.vars[v].shape else {
                size = u64::MAX;
                break;
            };
            radix.push(size);
            size = size.saturating_mul(layout.classes[class].len().max(1));
        }
        if size > MAX_SLOTS || memo.slots + size > MAX_TOTAL {
            continue;
        }
        memo.keys.insert(
            pair,
            Key {
                vars: vars.into_iter().collect(),
                radix,
                base: memo.slots,
            },
        );
        memo.slots += size;
    }
    memo
}
