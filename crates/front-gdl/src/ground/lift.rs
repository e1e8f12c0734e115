//! What not to ground (issue 24): relations and rule bodies whose ground instances would
//! explode are *lifted*: the grounder leaves them to the lowering, which evaluates them at run
//! time by binding their variables in a sub-automaton (`crate::lower::lifted`).
//!
//! The choice is made from measured sizes: grounding runs with soft limits per relation and per
//! rule; when one is exceeded it stops, [`Plan::decide`] lifts what grew (the relation, or the
//! existential part of the rule), and grounding starts again. Two kinds of decisions:
//!
//! * a *relation* (non-recursive or linearly self-recursive, not a keyword, nothing the
//!   initial state or the roles depend on): its rules are never instantiated; every literal
//!   over it in a grounded rule becomes a *call* with ground arguments;
//! * a *rule*: the components of its body connected by non-head variables become lifted
//!   auxiliary relations ([`LiftSplit::All`]), so its instances range over its head variables
//!   only.
//!
//! Lifting a relation cascades ([`prepare`]): a grounded rule in which a literal over a lifted
//! relation would be the only one binding a head variable lifts its head relation too, and one
//! in which it would be the only one binding an existential variable has that part of its body
//! lifted ([`LiftSplit::Unbound`]).

use super::rules::{self, IRule, LiftSplit, LitKind, Rel};
use super::terms::TermStore;
use crate::ast::{Program, RelId};
use crate::graph::{Csr, sccs};
use rg_core::EntityId;
use std::collections::BTreeSet;

/// Soft limits: exceeding one makes the grounder lift what grew and start again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft {
    /// Atoms of one relation.
    pub(crate) relation_atoms: u32,
    /// Instances of one rule.
    pub(crate) rule_instances: u64,
    /// Instances of all rules.
    pub(crate) total_instances: u64,
    /// Atoms of one relation read by lifted rules (see [`Rel::feeds_lifted`]).
    pub(crate) lifted_reader_atoms: u32,
}

impl Soft {
    /// The atoms relation `rel` may have before it is lifted.
    pub(crate) fn atoms_of(&self, rel: &Rel) -> u32 {
        if rel.feeds_lifted {
            self.relation_atoms.min(self.lifted_reader_atoms)
        } else {
            self.relation_atoms
        }
    }
}

impl Default for Soft {
    fn default() -> Self {
        Soft {
            relation_atoms: 1_000_000,
            rule_instances: 250_000,
            total_instances: 3_000_000,
            lifted_reader_atoms: 20_000,
        }
    }
}

/// What exceeded a soft limit.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Overflow {
    /// A relation's atoms (a grounder relation).
    Relation(u32),
    /// A rule's instances (the source rule).
    Rule(u32),
}

/// The lifting decisions of one translation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// Source relations that are lifted.
    pub(crate) relations: BTreeSet<RelId>,
    /// Source rules whose existential parts are lifted.
    pub(crate) rules: BTreeSet<u32>,
    /// Source relations that turned out not to be liftable.
    pub(crate) refused: BTreeSet<RelId>,
    /// Source rules whose split made grounding fail.
    refused_rules: BTreeSet<u32>,
    /// The decisions in the order they were made.
    history: Vec<Decision>,
}

/// One lifting decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    Relation(RelId),
    Rule(u32),
}

/// Relation-level facts the decisions need, on the grounder's rules.
struct Shape {
    /// Per relation: alone in its strongly connected component, without a self-loop.
    non_recursive: Vec<bool>,
    /// Per relation: alone in its component with a self-loop, every rule reading it at most
    /// once and only positively (linear self-recursion, lowered as a loop: see
    /// `crate::lower::lifted`).
    self_linear: Vec<bool>,
    /// Per relation: `init` or `role` depend on it (they must be known at translation time).
    needed_exactly: Vec<bool>,
    /// Per relation: its strongly connected component of the run-time dependencies.
    component: Vec<u32>,
}

/// The bridge rules of the relaxed program (see [`rules::read`]).
fn is_bridge(r: &IRule) -> bool {
    r.origin.is_none() && !r.body.is_empty()
}

impl Shape {
    fn of(rels: &[Rel], rules: &[IRule]) -> Shape {
        let n = rels.len();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut self_loop = vec![false; n];
        // The run-time dependencies: without the bridges of the relaxed program (`true ⇐ next`,
        // `does ⇐ legal`), which the lowering reads as state and move variables.
        for r in rules.iter().filter(|r| !is_bridge(r)) {
            for l in &r.body {
                if l.kind != LitKind::Distinct {
                    edges.push((l.rel, r.rel));
                    if l.rel == r.rel {
                        self_loop[r.rel as usize] = true;
                    }
                }
            }
        }
        let g = Csr::from_edges(n, edges.iter().copied());
        let s = sccs(&g);
        let mut non_recursive = vec![false; n];
        let mut self_linear = vec![false; n];
        for m in &s.components {
            if m.len() == 1 {
                let r = m[0] as usize;
                non_recursive[r] = !self_loop[r];
                self_linear[r] = self_loop[r];
            }
        }
        for r in rules.iter().filter(|r| !is_bridge(r)) {
            let own = r
                .body
                .iter()
                .filter(|l| l.kind != LitKind::Distinct && l.rel == r.rel);
            if own.clone().count() > 1 || own.into_iter().any(|l| l.kind != LitKind::Pos) {
                self_linear[r.rel as usize] = false;
            }
        }
        // The lowering's loop binds a relation's unbound arguments only where the recursion
        // passes them through: every argument a call may leave unbound (one with a variable
        // that no other positive literal of the calling rule has) must be such a place.
        for r in rules.iter().filter(|r| !is_bridge(r)) {
            for (k, l) in r.body.iter().enumerate() {
                let callee = l.rel as usize;
                if l.kind != LitKind::Pos || !self_linear[callee] || r.own_literal() == Some(k) {
                    continue;
                }
                let bound_elsewhere = |v: u16| {
                    r.body
                        .iter()
                        .enumerate()
                        .any(|(m, o)| m != k && o.kind == LitKind::Pos && o.vars().contains(&v))
                };
                for (i, a) in l.args.iter().enumerate() {
                    let mut open = false;
                    a.for_each_var(&mut |v| open |= !bound_elsewhere(v));
                    let through =
                        |x: &IRule| x.own_literal().is_none_or(|j| x.passes_through(j, i));
                    if open && !rules.iter().filter(|x| x.rel == l.rel).all(through) {
                        self_linear[callee] = false;
                    }
                }
            }
        }
        let component = s.component_of.clone();
        // Backwards from `init` and `role`.
        let rev = g.reversed();
        let mut needed_exactly = vec![false; n];
        let mut stack = vec![RelId::INIT.index() as u32, RelId::ROLE.index() as u32];
        for &x in &stack {
            needed_exactly[x as usize] = true;
        }
        while let Some(x) = stack.pop() {
            for &y in rev.successors(x) {
                if !needed_exactly[y as usize] {
                    needed_exactly[y as usize] = true;
                    stack.push(y);
                }
            }
        }
        Shape {
            non_recursive,
            self_linear,
            needed_exactly,
            component,
        }
    }

    /// Whether grounder relation `r` may be lifted.
    fn liftable(&self, rels: &[Rel], r: u32, plan: &Plan) -> bool {
        let rel = &rels[r as usize];
        match rel.source {
            Some(s) => {
                !s.is_keyword()
                    && (self.non_recursive[r as usize] || self.self_linear[r as usize])
                    && !self.needed_exactly[r as usize]
                    && !plan.refused.contains(&s)
            }
            None => false,
        }
    }
}

/// The relations and rules to ground.
pub(crate) type Prepared = (Vec<Rel>, Vec<IRule>);

/// Reads the program's rules and applies the plan: relevance, classification, lifted relations
/// and their cascade, decomposition. Returns the relations and rules to ground, or the lifted
/// relation that could not be lifted after all (the caller refuses it and tries again).
pub(crate) fn prepare(
    p: &Program,
    plan: &Plan,
    store: &mut TermStore,
) -> Result<Result<Prepared, RelId>, rules::RuleError> {
    let (mut rels, mut rules) = rules::read(p, store)?;
    rules::restrict(&mut rels, &mut rules);
    let shape = Shape::of(&rels, &rules);
    for (i, r) in rels.iter_mut().enumerate() {
        if r.source.is_some_and(|s| plan.relations.contains(&s)) && shape.liftable_index(i) {
            r.lifted = true;
        }
    }
    // The cascade, to a fixpoint.
    let mut unbound_splits: BTreeSet<u32> = BTreeSet::new();
    loop {
        let mut changed = false;
        for r in &rules {
            if rels[r.rel as usize].lifted {
                continue;
            }
            let mut bound = vec![false; r.nvars];
            for l in &r.body {
                if matches!(l.kind, LitKind::Pos | LitKind::Domain) && !rels[l.rel as usize].lifted
                {
                    for v in l.vars() {
                        bound[v as usize] = true;
                    }
                }
            }
            let mut head = vec![false; r.nvars];
            for h in r.head.iter() {
                h.for_each_var(&mut |v| head[v as usize] = true);
            }
            for l in &r.body {
                if l.kind == LitKind::Distinct || !rels[l.rel as usize].lifted {
                    continue;
                }
                let unbound: Vec<u16> = l
                    .vars()
                    .into_iter()
                    .filter(|&v| !bound[v as usize])
                    .collect();
                if unbound.is_empty() {
                    continue;
                }
                if unbound.iter().any(|&v| head[v as usize]) {
                    if shape.liftable(&rels, r.rel, plan) {
                        rels[r.rel as usize].lifted = true;
                        changed = true;
                        break;
                    }
                    return Ok(Err(rels[l.rel as usize].source.expect("lifted source")));
                }
                if let Some(o) = r.origin {
                    unbound_splits.insert(o);
                }
            }
        }
        if !changed {
            break;
        }
    }
    for r in &mut rules {
        if rels[r.rel as usize].lifted {
            r.record = false;
        }
    }
    rules::classify(&mut rels, &rules);
    let lift = |r: &IRule| -> Option<LiftSplit> {
        let o = r.origin?;
        if plan.rules.contains(&o) {
            Some(LiftSplit::All)
        } else if unbound_splits.contains(&o) {
            Some(LiftSplit::Unbound)
        } else {
            None
        }
    };
    rules::decompose(&mut rels, &mut rules, &lift, &shape.component);
    // Grounded relations that the rules of a recursive lifted relation read (once per round of
    // its loop, through a trie over their atoms), and that could be lifted too.
    let mut feeds = vec![false; rels.len()];
    let looping: BTreeSet<u32> = rules
        .iter()
        .filter(|r| rels[r.rel as usize].lifted && r.own_literal().is_some())
        .map(|r| r.rel)
        .collect();
    for r in rules.iter().filter(|r| looping.contains(&r.rel)) {
        for l in r.body.iter().filter(|l| l.kind != LitKind::Distinct) {
            feeds[l.rel as usize] = !rels[l.rel as usize].lifted;
        }
    }
    for (i, f) in feeds.into_iter().enumerate() {
        if f && i < shape.non_recursive.len() && shape.liftable(&rels, i as u32, plan) {
            rels[i].feeds_lifted = true;
        }
    }
    Ok(Ok((rels, rules)))
}

impl Shape {
    fn liftable_index(&self, i: usize) -> bool {
        (self.non_recursive[i] || self.self_linear[i]) && !self.needed_exactly[i]
    }
}

impl Plan {
    /// Records a decision for an overflow; false when nothing more can be lifted for it.
    pub(crate) fn decide(
        &mut self,
        p: &Program,
        rels: &[Rel],
        rules: &[IRule],
        o: Overflow,
    ) -> bool {
        let shape = Shape::of(rels, rules);
        let rule_decision = |plan: &mut Plan, origin: u32| -> bool {
            if !plan.rules.contains(&origin)
                && !plan.refused_rules.contains(&origin)
                && has_existential(p, origin)
            {
                plan.rules.insert(origin);
                plan.history.push(Decision::Rule(origin));
                return true;
            }
            let head = p.rules()[origin as usize].head.rel;
            let gr = head.index() as u32;
            if !plan.relations.contains(&head) && shape.liftable(rels, gr, plan) {
                plan.relations.insert(head);
                plan.history.push(Decision::Relation(head));
                return true;
            }
            false
        };
        match o {
            Overflow::Relation(r) => {
                if let Some(s) = rels[r as usize].source {
                    if !self.relations.contains(&s) && shape.liftable(rels, r, self) {
                        self.relations.insert(s);
                        self.history.push(Decision::Relation(s));
                        return true;
                    }
                }
                // An auxiliary relation, or one that cannot be lifted: the rule producing it.
                let origin = rules.iter().filter(|x| x.rel == r).find_map(|x| x.origin);
                origin.is_some_and(|origin| rule_decision(self, origin))
            }
            Overflow::Rule(origin) => rule_decision(self, origin),
        }
    }
}

/// Whether source rule `r` has a variable outside its head.
fn has_existential(p: &Program, r: u32) -> bool {
    let rule = &p.rules()[r as usize];
    let mut head = vec![false; rule.vars.len()];
    for &t in p.args(rule.head.args) {
        p.for_each_var(t, &mut |v, _| head[v.index()] = true);
    }
    head.iter().any(|&h| !h)
}

impl Plan {
    /// Takes back the last decision (grounding failed with it: lifting a relation that bounds
    /// a recursion can make the relaxed model infinite); false when there is none.
    pub(crate) fn revert(&mut self) -> bool {
        match self.history.pop() {
            Some(Decision::Relation(r)) => {
                self.relations.remove(&r);
                self.refused.insert(r);
                true
            }
            Some(Decision::Rule(o)) => {
                self.rules.remove(&o);
                self.refused_rules.insert(o);
                true
            }
            None => false,
        }
    }

    /// Lifts every relation that can be and the existential part of every rule ([`Lifting::All`]);
    /// returns whether the plan changed.
    ///
    /// [`Lifting::All`]: super::Lifting::All
    pub(crate) fn everything(&mut self, p: &Program, rels: &[Rel], rules: &[IRule]) -> bool {
        let shape = Shape::of(rels, rules);
        // Relations that bound a recursion of the relaxed program stay grounded (lifted, they
        // would hold in M⁺ and could let it grow without end).
        let n = rels.len();
        let edges: Vec<(u32, u32)> = rules
            .iter()
            .flat_map(|r| {
                r.body
                    .iter()
                    .filter(|l| l.kind != LitKind::Distinct)
                    .map(move |l| (l.rel, r.rel))
            })
            .collect();
        let comp = sccs(&Csr::from_edges(n, edges.iter().copied())).component_of;
        let mut bounds_recursion = vec![false; n];
        for r in rules {
            for l in &r.body {
                if l.kind == LitKind::Pos && comp[l.rel as usize] == comp[r.rel as usize] {
                    // A linear self-recursion's own literal does not bound it: lifted, the
                    // relation's rules are not grounded at all.
                    for m in &r.body {
                        if m.kind == LitKind::Pos && m.rel != r.rel {
                            bounds_recursion[m.rel as usize] = true;
                        }
                    }
                }
            }
        }
        let before = (self.relations.len(), self.rules.len());
        for (i, r) in rels.iter().enumerate() {
            if let Some(s) = r.source {
                if shape.liftable(rels, i as u32, self) && !bounds_recursion[i] {
                    self.relations.insert(s);
                }
            }
        }
        for o in 0..p.rules().len() as u32 {
            if has_existential(p, o) {
                self.rules.insert(o);
            }
        }
        before != (self.relations.len(), self.rules.len())
    }
}
