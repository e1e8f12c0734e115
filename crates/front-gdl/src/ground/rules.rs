//! The grounder's own rule form, built from the normalised program, and the analyses on it:
//! relation classification (exact, relaxed or lifted) and projection of existential variables
//! (variables used in one component of a body only, which would multiply the instances).
//!
//! Ground sub-terms are interned as soon as the rules are read, so a pattern is either a
//! variable, a ground term id, or a function applied to patterns of which at least one is not
//! ground.

use super::terms::{GTerm, TermStore};
use crate::ast::{Literal, Program, RelId, Term, TermId};
use crate::graph::{Csr, sccs};
use rg_core::{EntityId, Span};

/// A term pattern of a rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pat {
    /// A variable of the rule (its number).
    Var(u16),
    /// A ground term.
    Ground(GTerm),
    /// `(f p1 … pk)` with some non-ground argument.
    Fn(u32, Box<[Pat]>),
}

impl Pat {
    /// Calls `f` on every variable occurrence (pre-order).
    pub(crate) fn for_each_var(&self, f: &mut impl FnMut(u16)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::Ground(_) => {}
            Pat::Fn(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// Renumbers variables through `map`.
    fn rename(&self, map: &impl Fn(u16) -> u16) -> Pat {
        match self {
            Pat::Var(v) => Pat::Var(map(*v)),
            Pat::Ground(g) => Pat::Ground(*g),
            Pat::Fn(f, args) => Pat::Fn(*f, args.iter().map(|a| a.rename(map)).collect()),
        }
    }
}

/// The kind of a body literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LitKind {
    Pos,
    Neg,
    /// `(distinct a b)`: `args` holds the two terms, `rel` is unused.
    Distinct,
    /// A positive literal that only enumerates values for variables of a split-off component
    /// (a copy of the literal binding them in the original rule, which keeps it): joined like
    /// a positive literal, never recorded in ground instances.
    Domain,
}

/// A body literal.
#[derive(Clone, Debug)]
pub(crate) struct Lit {
    pub(crate) kind: LitKind,
    pub(crate) rel: u32,
    pub(crate) args: Box<[Pat]>,
}

impl Lit {
    pub(crate) fn vars(&self) -> Vec<u16> {
        let mut v = Vec::new();
        for a in self.args.iter() {
            a.for_each_var(&mut |x| {
                if !v.contains(&x) {
                    v.push(x)
                }
            });
        }
        v
    }
}

/// A rule of the grounder.
#[derive(Clone, Debug)]
pub(crate) struct IRule {
    /// Head relation.
    pub(crate) rel: u32,
    pub(crate) head: Box<[Pat]>,
    pub(crate) body: Vec<Lit>,
    /// Number of variables (`0..nvars`).
    pub(crate) nvars: usize,
    /// The source rule this one was derived from (itself for source rules; `None` for the
    /// built-in bridge rules `true ⇐ init`, `true ⇐ next`, `does ⇐ legal`).
    pub(crate) origin: Option<u32>,
    /// Whether ground instances are kept (false for the bridge rules, which only feed the
    /// reachability analysis).
    pub(crate) record: bool,
}

impl IRule {
    /// The body literal over the rule's own relation, if any (the first one: linearly
    /// recursive relations have at most one per rule).
    pub(crate) fn own_literal(&self) -> Option<usize> {
        self.body
            .iter()
            .position(|l| l.kind != LitKind::Distinct && l.rel == self.rel)
    }

    /// Whether position `i` of the head is a variable that body literal `own` has at the same
    /// position, and that occurs nowhere else in the rule (an output a linear recursion passes
    /// through unchanged).
    pub(crate) fn passes_through(&self, own: usize, i: usize) -> bool {
        let (Pat::Var(v), Some(Pat::Var(w))) = (&self.head[i], self.body[own].args.get(i)) else {
            return false;
        };
        if v != w {
            return false;
        }
        let occurs = |p: &Pat| {
            let mut found = false;
            p.for_each_var(&mut |x| found |= x == *v);
            found
        };
        let in_head = self.head.iter().filter(|p| occurs(p)).count();
        let in_call = self.body[own].args.iter().filter(|p| occurs(p)).count();
        let elsewhere = self
            .body
            .iter()
            .enumerate()
            .any(|(k, l)| k != own && l.args.iter().any(occurs));
        in_head == 1 && in_call == 1 && !elsewhere
    }
}

/// How a relation is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Computed exactly during grounding (static and stratified): its literals never reach
    /// the ground program.
    Exact,
    /// Over-approximated (M⁺): its atoms are propositions of the ground program.
    Relaxed,
    /// Not grounded at all (issue 24): its rules are lowered as a sub-automaton that binds
    /// their variables at run time, and its table only holds the ground *calls* the recorded
    /// instances make (each an atom the lowering evaluates through that sub-automaton).
    Lifted,
}

/// A relation of the grounder.
#[derive(Clone, Debug)]
pub(crate) struct Rel {
    pub(crate) arity: usize,
    /// The program's relation (none for projections).
    pub(crate) source: Option<RelId>,
    /// Whether it depends on neither `true` nor `does`.
    pub(crate) is_static: bool,
    pub(crate) mode: Mode,
    /// Chosen to be lifted ([`Mode::Lifted`] once classified).
    pub(crate) lifted: bool,
    /// Read by the rules of a lifted relation, and liftable itself: lifted once it has more
    /// atoms than [`Soft::lifted_reader_atoms`](super::lift::Soft) (lifted code reads a
    /// grounded relation through a trie over its atoms, one per literal).
    pub(crate) feeds_lifted: bool,
    /// Whether it depends on `does`.
    pub(crate) reads_does: bool,
    /// Where it comes from (first occurrence, or the literal it projects).
    pub(crate) span: Option<Span>,
}

/// Variables per rule are numbered in `u16`; rules with more are rejected.
const MAX_VARS: usize = u16::MAX as usize;

/// Error while reading rules (only on input the validator should have rejected).
#[derive(Debug)]
pub(crate) struct RuleError {
    pub(crate) span: Span,
    pub(crate) message: String,
}

/// Converts a term occurrence of a source rule.
fn pat(p: &Program, store: &mut TermStore, t: TermId, buf: &mut Vec<u32>) -> Pat {
    match p.term(t) {
        Term::Var(v) => Pat::Var(v.index() as u16),
        Term::Const(s) => Pat::Ground(store.constant(s.index() as u32)),
        Term::Fn(f, args) => {
            let pats: Vec<Pat> = p
                .args(args)
                .iter()
                .map(|&a| pat(p, store, a, buf))
                .collect();
            if pats.iter().all(|x| matches!(x, Pat::Ground(_))) {
                buf.clear();
                buf.push(f.index() as u32);
                buf.extend(pats.iter().map(|x| match x {
                    Pat::Ground(g) => *g,
                    _ => unreachable!("checked ground"),
                }));
                Pat::Ground(store.intern(buf))
            } else {
                Pat::Fn(f.index() as u32, pats.into())
            }
        }
    }
}

/// The relations and rules of a program, plus the bridge rules of the relaxed program.
pub(crate) fn read(
    p: &Program,
    store: &mut TermStore,
) -> Result<(Vec<Rel>, Vec<IRule>), RuleError> {
    let mut rels: Vec<Rel> = p
        .relations()
        .map(|r| Rel {
            arity: p.rel_arity(r),
            source: Some(r),
            is_static: true,
            mode: Mode::Relaxed,
            lifted: false,
            feeds_lifted: false,
            reads_does: false,
            span: p.rel_span(r),
        })
        .collect();
    let mut rules = Vec::with_capacity(p.rules().len() + 3);
    let mut buf = Vec::new();
    for (i, r) in p.rules().iter().enumerate() {
        if r.vars.len() > MAX_VARS {
            return Err(RuleError {
                span: r.span,
                message: format!(
                    "a rule with {} variables is too large to ground",
                    r.vars.len()
                ),
            });
        }
        let atom_pats = |a: &crate::ast::Atom, store: &mut TermStore, buf: &mut Vec<u32>| {
            p.args(a.args)
                .iter()
                .map(|&t| pat(p, store, t, buf))
                .collect::<Box<[Pat]>>()
        };
        let head = atom_pats(&r.head, store, &mut buf);
        let body = r
            .body
            .iter()
            .map(|l| match l {
                Literal::Pos(a) => Lit {
                    kind: LitKind::Pos,
                    rel: a.rel.index() as u32,
                    args: atom_pats(a, store, &mut buf),
                },
                Literal::Neg(a) => Lit {
                    kind: LitKind::Neg,
                    rel: a.rel.index() as u32,
                    args: atom_pats(a, store, &mut buf),
                },
                Literal::Distinct { left, right, .. } => Lit {
                    kind: LitKind::Distinct,
                    rel: u32::MAX,
                    args: vec![
                        pat(p, store, *left, &mut buf),
                        pat(p, store, *right, &mut buf),
                    ]
                    .into(),
                },
            })
            .collect();
        rules.push(IRule {
            rel: r.head.rel.index() as u32,
            head,
            body,
            nvars: r.vars.len(),
            origin: Some(i as u32),
            record: true,
        });
    }
    // The relaxed program's bridges: `true ⇐ init`, `true ⇐ next`, `does ⇐ legal`, so that its
    // model contains everything that can hold in a reachable state.
    let bridge = |head: RelId, body: RelId, arity: usize| IRule {
        rel: head.index() as u32,
        head: (0..arity as u16).map(Pat::Var).collect(),
        body: vec![Lit {
            kind: LitKind::Pos,
            rel: body.index() as u32,
            args: (0..arity as u16).map(Pat::Var).collect(),
        }],
        nvars: arity,
        origin: None,
        record: false,
    };
    rules.push(bridge(RelId::TRUE, RelId::INIT, 1));
    rules.push(bridge(RelId::TRUE, RelId::NEXT, 1));
    rules.push(bridge(RelId::DOES, RelId::LEGAL, 2));
    // Static = depends on neither `true` nor `does`.
    let n = rels.len();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for r in &rules {
        for l in &r.body {
            if l.kind != LitKind::Distinct {
                edges.push((l.rel, r.rel));
            }
        }
    }
    let g = Csr::from_edges(n, edges.iter().copied());
    let dynamic = closure(&g, &[RelId::TRUE, RelId::DOES]);
    let on_does = closure(&g, &[RelId::DOES]);
    for (i, r) in rels.iter_mut().enumerate() {
        r.is_static = !dynamic[i];
        r.reads_does = on_does[i];
    }
    Ok((rels, rules))
}

/// The relations reachable from `from` in `g`.
fn closure(g: &Csr, from: &[RelId]) -> Vec<bool> {
    let mut seen = vec![false; g.len()];
    let mut stack: Vec<u32> = from.iter().map(|r| r.index() as u32).collect();
    for &s in &stack {
        seen[s as usize] = true;
    }
    while let Some(v) = stack.pop() {
        for &w in g.successors(v) {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// Classifies every relation as exact or relaxed and returns the evaluation order: the
/// strongly connected components of the dependency graph, dependencies first.
///
/// A relation is exact iff it is static, its component has no negative edge inside, and every
/// relation it depends on is exact: then its complete extension can be computed stratum by
/// stratum during grounding. Everything else is relaxed.
pub(crate) fn classify(rels: &mut [Rel], rules: &[IRule]) -> Vec<Vec<u32>> {
    let n = rels.len();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for r in rules {
        for l in &r.body {
            if l.kind != LitKind::Distinct {
                edges.push((l.rel, r.rel));
            }
        }
    }
    let g = Csr::from_edges(n, edges.iter().copied());
    let comps = sccs(&g).components;
    let mut comp_of = vec![0u32; n];
    for (c, members) in comps.iter().enumerate() {
        for &m in members {
            comp_of[m as usize] = c as u32;
        }
    }
    // Per component: all static and not lifted, no internal negative edge, all inputs exact.
    let mut exact = vec![true; comps.len()];
    for (c, members) in comps.iter().enumerate() {
        if members
            .iter()
            .any(|&m| !rels[m as usize].is_static || rels[m as usize].lifted)
        {
            exact[c] = false;
        }
    }
    for r in rules {
        let hc = comp_of[r.rel as usize] as usize;
        for l in &r.body {
            if l.kind == LitKind::Neg && comp_of[l.rel as usize] as usize == hc {
                exact[hc] = false;
            }
        }
    }
    for c in 0..comps.len() {
        if !exact[c] {
            continue;
        }
        let ok = rules
            .iter()
            .filter(|r| comp_of[r.rel as usize] as usize == c)
            .flat_map(|r| r.body.iter())
            .filter(|l| l.kind != LitKind::Distinct)
            .all(|l| {
                let lc = comp_of[l.rel as usize] as usize;
                lc == c || exact[lc]
            });
        exact[c] = ok;
    }
    for (i, r) in rels.iter_mut().enumerate() {
        r.mode = if r.lifted {
            Mode::Lifted
        } else if exact[comp_of[i] as usize] {
            Mode::Exact
        } else {
            Mode::Relaxed
        };
    }
    comps
}

/// Rewrites recorded rules so that ground instances are sums instead of products
/// with new auxiliary relations (relaxed, shared between equal uses):
///
/// * *components*: body literals connected through variables that are not in the head form a
///   component; once the head variables are fixed, components are independent, so a component
///   with a relaxed literal and another literal becomes `aux(head vars it uses) ⇐ component`;
/// * *projection*: a positive relaxed literal whose variables partly occur nowhere else (in
///   the head or another literal), in a body with another positive literal, becomes
///   `aux(its other variables) ⇐ literal`.
///
/// New auxiliary rules are rewritten the same way. Rules of lifted relations are left alone
/// (they are never grounded), and the rules `lift` names ([`LiftSplit`]) have their
/// components split off into *lifted* auxiliary relations instead (issue 24).
pub(crate) fn decompose(
    rels: &mut Vec<Rel>,
    rules: &mut Vec<IRule>,
    lift: &dyn Fn(&IRule) -> Option<LiftSplit>,
    component: &[u32],
) {
    let mut shared: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut work: Vec<usize> = (0..rules.len())
        .filter(|&i| rules[i].record && !rels[rules[i].rel as usize].lifted)
        .collect();
    while let Some(ri) = work.pop() {
        if rels[rules[ri].rel as usize].source.is_some() {
            if let Some(mode) = lift(&rules[ri]) {
                lift_split(rels, rules, ri, mode, component, &mut shared);
            }
        }
        split_components(rels, rules, ri, &mut shared, &mut work);
        project(rels, rules, ri, &mut shared);
    }
}

/// Which components of a rule [`decompose`] lifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LiftSplit {
    /// Every component with a literal that is not exact: the rule's ground instances only
    /// range over its head variables.
    All,
    /// The components with a lifted literal whose variables the rest of the body does not
    /// bind.
    Unbound,
}

/// What an auxiliary relation is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AuxKind {
    /// Recorded: its instances are part of the ground program.
    Recorded,
    /// Only enumerates values (a [`LitKind::Domain`] literal reads it).
    Domain,
    /// Lifted: lowered as a sub-automaton, called with every argument bound.
    Lifted,
}

use std::collections::HashMap;

fn is_relaxed(l: &Lit, rels: &[Rel]) -> bool {
    l.kind != LitKind::Distinct && rels[l.rel as usize].mode == Mode::Relaxed
}

/// Appends a canonical encoding of `lits` (variables renamed through `canon`) to `key`.
fn encode(lits: &[&Lit], canon: &impl Fn(u16) -> u16, key: &mut Vec<u32>) {
    fn pat(p: &Pat, canon: &impl Fn(u16) -> u16, key: &mut Vec<u32>) {
        match p {
            Pat::Var(v) => key.extend([0, u32::from(canon(*v))]),
            Pat::Ground(g) => key.extend([1, *g]),
            Pat::Fn(f, args) => {
                key.extend([2, *f, args.len() as u32]);
                args.iter().for_each(|a| pat(a, canon, key));
            }
        }
    }
    for l in lits {
        key.extend([l.kind as u32, l.rel, l.args.len() as u32]);
        l.args.iter().for_each(|a| pat(a, canon, key));
    }
}

/// The auxiliary relation `aux(keep) ⇐ body` (existing one if equal), with `keep` then the
/// other variables of `body` renumbered from 0.
fn aux_relation(
    rels: &mut Vec<Rel>,
    rules: &mut Vec<IRule>,
    shared: &mut HashMap<Vec<u32>, u32>,
    from: usize,
    keep: &[u16],
    body: &[&Lit],
    kind: AuxKind,
) -> (u32, bool) {
    let mut order: Vec<u16> = keep.to_vec();
    for l in body {
        for v in l.vars() {
            if !order.contains(&v) {
                order.push(v);
            }
        }
    }
    let canon = |v: u16| order.iter().position(|&x| x == v).expect("var of the body") as u16;
    let mut key = vec![keep.len() as u32, kind as u32];
    encode(body, &canon, &mut key);
    if let Some(&a) = shared.get(&key) {
        return (a, false);
    }
    let a = rels.len() as u32;
    let is_static = body
        .iter()
        .all(|l| l.kind == LitKind::Distinct || rels[l.rel as usize].is_static);
    let reads_does = body
        .iter()
        .any(|l| l.kind != LitKind::Distinct && rels[l.rel as usize].reads_does);
    rels.push(Rel {
        arity: keep.len(),
        source: None,
        is_static,
        mode: if kind == AuxKind::Lifted {
            Mode::Lifted
        } else {
            Mode::Relaxed
        },
        lifted: kind == AuxKind::Lifted,
        feeds_lifted: false,
        reads_does,
        span: None,
    });
    let renamed = |l: &Lit| Lit {
        kind: l.kind,
        rel: l.rel,
        args: l.args.iter().map(|p| p.rename(&canon)).collect(),
    };
    rules.push(IRule {
        rel: a,
        head: (0..keep.len() as u16).map(Pat::Var).collect(),
        body: body.iter().map(|l| renamed(l)).collect(),
        nvars: order.len(),
        origin: rules[from].origin,
        record: kind == AuxKind::Recorded,
    });
    shared.insert(key, a);
    (a, true)
}

fn head_vars(r: &IRule) -> Vec<bool> {
    let mut h = vec![false; r.nvars];
    for p in r.head.iter() {
        p.for_each_var(&mut |v| h[v as usize] = true);
    }
    h
}

/// Splits off the components of a rule body (see [`decompose`]).
fn split_components(
    rels: &mut Vec<Rel>,
    rules: &mut Vec<IRule>,
    ri: usize,
    shared: &mut HashMap<Vec<u32>, u32>,
    work: &mut Vec<usize>,
) {
    let r = &rules[ri];
    let n = r.body.len();
    if n < 2 {
        return;
    }
    let head = head_vars(r);
    // Union-find over literals, joined by shared non-head variables.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut owner: Vec<Option<usize>> = vec![None; r.nvars];
    let mut has_inner = vec![false; n];
    for (i, l) in r.body.iter().enumerate() {
        for v in l.vars() {
            if head[v as usize] {
                continue;
            }
            has_inner[i] = true;
            match owner[v as usize] {
                None => owner[v as usize] = Some(i),
                Some(j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut comp_of: HashMap<usize, usize> = HashMap::new();
    for (i, _) in has_inner.iter().enumerate().filter(|x| *x.1) {
        let root = find(&mut parent, i);
        let c = *comp_of.entry(root).or_insert_with(|| {
            comps.push(Vec::new());
            comps.len() - 1
        });
        comps[c].push(i);
    }
    let mut replaced: Vec<(Vec<usize>, Lit)> = Vec::new();
    'comps: for c in comps {
        if c.len() < 2 || !c.iter().any(|&i| is_relaxed(&rules[ri].body[i], rels)) {
            continue;
        }
        // Nothing to separate it from: the rest is empty or only enumerates values.
        if (0..n).all(|i| c.contains(&i) || rules[ri].body[i].kind == LitKind::Domain) {
            continue;
        }
        let mut body: Vec<Lit> = c.iter().map(|&i| rules[ri].body[i].clone()).collect();
        let mut keep: Vec<u16> = Vec::new();
        for l in &body {
            for v in l.vars() {
                if head[v as usize] && !keep.contains(&v) {
                    keep.push(v);
                }
            }
        }
        // Head variables the component uses but does not bind: enumerate them with a copy of
        // a positive literal of the rest of the body that binds them.
        // (Relations added below are domain projections, never lifted.)
        let lifted: Vec<bool> = rels.iter().map(|r| r.mode == Mode::Lifted).collect();
        let binds = |l: &Lit, v: u16| {
            matches!(l.kind, LitKind::Pos | LitKind::Domain)
                && !lifted.get(l.rel as usize).copied().unwrap_or(false)
                && l.vars().contains(&v)
        };
        for &v in &keep {
            if body.iter().any(|l| binds(l, v)) {
                continue;
            }
            let Some(i) = (0..n).find(|i| !c.contains(i) && binds(&rules[ri].body[*i], v)) else {
                continue 'comps;
            };
            // The binding literal projected onto the interface variables it binds.
            let src = rules[ri].body[i].clone();
            let dv: Vec<u16> = src
                .vars()
                .into_iter()
                .filter(|x| keep.contains(x))
                .collect();
            let (dom, _) = aux_relation(rels, rules, shared, ri, &dv, &[&src], AuxKind::Domain);
            body.push(Lit {
                kind: LitKind::Domain,
                rel: dom,
                args: dv.iter().map(|&x| Pat::Var(x)).collect(),
            });
        }
        let refs: Vec<&Lit> = body.iter().collect();
        let (aux, new) = aux_relation(rels, rules, shared, ri, &keep, &refs, AuxKind::Recorded);
        if new {
            work.push(rules.len() - 1);
        }
        replaced.push((
            c,
            Lit {
                kind: LitKind::Pos,
                rel: aux,
                args: keep.iter().map(|&v| Pat::Var(v)).collect(),
            },
        ));
    }
    if replaced.is_empty() {
        return;
    }
    let r = &mut rules[ri];
    let mut drop = vec![false; r.body.len()];
    let mut added = Vec::new();
    for (c, lit) in replaced {
        for i in c {
            drop[i] = true;
        }
        added.push(lit);
    }
    let mut body: Vec<Lit> = r
        .body
        .drain(..)
        .enumerate()
        .filter(|(i, _)| !drop[*i])
        .map(|(_, l)| l)
        .collect();
    body.extend(added);
    r.body = body;
}

/// Lifts components of rule `ri` (see [`LiftSplit`]): each becomes a literal over a new lifted
/// relation of the head variables it uses, `aux(head vars) ⇐ component`, which the lowering
/// evaluates by binding the component's other variables at run time. Head variables that only
/// the component binds are enumerated in the rule by a projection of a literal of the component
/// that binds them ([`LitKind::Domain`]); lifted literals never bind (the cascade of
/// [`crate::ground::lift`] lifts the head relation instead).
fn lift_split(
    rels: &mut Vec<Rel>,
    rules: &mut Vec<IRule>,
    ri: usize,
    mode: LiftSplit,
    component: &[u32],
    shared: &mut HashMap<Vec<u32>, u32>,
) {
    let r = &rules[ri];
    let n = r.body.len();
    let head = head_vars(r);
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut owner: Vec<Option<usize>> = vec![None; r.nvars];
    let mut inner = vec![false; n];
    for (i, l) in r.body.iter().enumerate() {
        for v in l.vars() {
            if head[v as usize] {
                continue;
            }
            inner[i] = true;
            match owner[v as usize] {
                None => owner[v as usize] = Some(i),
                Some(j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
    }
    let modes: Vec<Mode> = rels.iter().map(|r| r.mode).collect();
    let lifted_lit = |l: &Lit| l.kind != LitKind::Distinct && modes[l.rel as usize] == Mode::Lifted;
    let generator = |l: &Lit| {
        matches!(l.kind, LitKind::Pos | LitKind::Domain) && modes[l.rel as usize] != Mode::Lifted
    };
    // Variables bound by generators: everything a lifted literal needs must be among them.
    let mut bound = vec![false; r.nvars];
    for l in r.body.iter().filter(|l| generator(l)) {
        for v in l.vars() {
            bound[v as usize] = true;
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut comp_of: HashMap<usize, usize> = HashMap::new();
    for i in (0..n).filter(|&i| inner[i]) {
        let root = find(&mut parent, i);
        let c = *comp_of.entry(root).or_insert_with(|| {
            comps.push(Vec::new());
            comps.len() - 1
        });
        comps[c].push(i);
    }
    // A component reading the head's own (run-time) component would make the lifted relation
    // recursive: it stays grounded.
    let recursive = |l: &Lit| {
        l.kind != LitKind::Distinct
            && component
                .get(l.rel as usize)
                .is_some_and(|&c| component.get(r.rel as usize) == Some(&c))
    };
    comps.retain(|c| !c.iter().any(|&i| recursive(&r.body[i])));
    comps.retain(|c| match mode {
        LiftSplit::All => c.iter().any(|&i| {
            let l = &rules[ri].body[i];
            l.kind != LitKind::Distinct && modes[l.rel as usize] != Mode::Exact
        }),
        LiftSplit::Unbound => c.iter().any(|&i| {
            let l = &rules[ri].body[i];
            lifted_lit(l) && l.vars().iter().any(|&v| !bound[v as usize])
        }),
    });
    if comps.is_empty() {
        return;
    }
    let in_lifted: Vec<bool> = (0..n)
        .map(|i| comps.iter().any(|c| c.contains(&i)))
        .collect();
    let mut added: Vec<Lit> = Vec::new();
    for c in &comps {
        let body: Vec<Lit> = c.iter().map(|&i| rules[ri].body[i].clone()).collect();
        let mut keep: Vec<u16> = Vec::new();
        for l in &body {
            for v in l.vars() {
                if head[v as usize] && !keep.contains(&v) {
                    keep.push(v);
                }
            }
        }
        // Head variables nothing outside the lifted components binds: a projection of a
        // generator of this component enumerates them.
        for &v in &keep {
            let outside = (0..n).any(|i| {
                !in_lifted[i]
                    && generator(&rules[ri].body[i])
                    && rules[ri].body[i].vars().contains(&v)
            }) || added.iter().any(|l| l.vars().contains(&v));
            if outside {
                continue;
            }
            let Some(src) = body
                .iter()
                .find(|l| generator(l) && l.vars().contains(&v))
                .cloned()
            else {
                continue;
            };
            let dv: Vec<u16> = src
                .vars()
                .into_iter()
                .filter(|x| head[*x as usize])
                .collect();
            let (dom, _) = aux_relation(rels, rules, shared, ri, &dv, &[&src], AuxKind::Domain);
            added.push(Lit {
                kind: LitKind::Domain,
                rel: dom,
                args: dv.iter().map(|&x| Pat::Var(x)).collect(),
            });
        }
        let refs: Vec<&Lit> = body.iter().collect();
        let (aux, _) = aux_relation(rels, rules, shared, ri, &keep, &refs, AuxKind::Lifted);
        added.push(Lit {
            kind: LitKind::Pos,
            rel: aux,
            args: keep.iter().map(|&v| Pat::Var(v)).collect(),
        });
    }
    let r = &mut rules[ri];
    let mut body: Vec<Lit> = r
        .body
        .drain(..)
        .enumerate()
        .filter(|(i, _)| !in_lifted[*i])
        .map(|(_, l)| l)
        .collect();
    body.extend(added);
    r.body = body;
}

/// Projects existential variables of relaxed literals (see [`decompose`]).
fn project(
    rels: &mut Vec<Rel>,
    rules: &mut Vec<IRule>,
    ri: usize,
    shared: &mut HashMap<Vec<u32>, u32>,
) {
    let positives = rules[ri]
        .body
        .iter()
        .filter(|l| matches!(l.kind, LitKind::Pos | LitKind::Domain))
        .count();
    if positives < 2 {
        return;
    }
    let nvars = rules[ri].nvars;
    let mut count = vec![0u32; nvars];
    for h in rules[ri].head.iter() {
        h.for_each_var(&mut |v| count[v as usize] += 1);
    }
    let lit_vars: Vec<Vec<u16>> = rules[ri].body.iter().map(Lit::vars).collect();
    for vs in &lit_vars {
        for &v in vs {
            count[v as usize] += 1;
        }
    }
    for (li, vars) in lit_vars.iter().enumerate() {
        let l = rules[ri].body[li].clone();
        if l.kind != LitKind::Pos || !is_relaxed(&l, rels) {
            continue;
        }
        let keep: Vec<u16> = vars
            .iter()
            .copied()
            .filter(|&v| count[v as usize] > 1)
            .collect();
        if keep.len() == vars.len() {
            continue;
        }
        let (aux, _) = aux_relation(rels, rules, shared, ri, &keep, &[&l], AuxKind::Recorded);
        rules[ri].body[li] = Lit {
            kind: LitKind::Pos,
            rel: aux,
            args: keep.iter().map(|&v| Pat::Var(v)).collect(),
        };
    }
}

/// Relevance (run before classification): rules of relations that nothing the game reads
/// depends on are dropped, and a relation every body occurrence of which has ground arguments
/// at some positions is restricted to those argument values: its rules get a literal over a
/// new table of the demanded values (only atoms that can matter are ground).
pub(crate) fn restrict(rels: &mut Vec<Rel>, rules: &mut Vec<IRule>) {
    let n = rels.len();
    // Backwards from what the lowering reads.
    let roots = [
        RelId::ROLE,
        RelId::INIT,
        RelId::TRUE,
        RelId::NEXT,
        RelId::LEGAL,
        RelId::DOES,
        RelId::GOAL,
        RelId::TERMINAL,
        RelId::SEES,
    ];
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); n];
    for r in rules.iter() {
        for l in &r.body {
            if l.kind != LitKind::Distinct {
                deps[r.rel as usize].push(l.rel);
            }
        }
    }
    let mut relevant = vec![false; n];
    let mut stack: Vec<u32> = roots.iter().map(|r| r.index() as u32).collect();
    for &s in &stack {
        relevant[s as usize] = true;
    }
    while let Some(x) = stack.pop() {
        for &y in &deps[x as usize] {
            if !relevant[y as usize] {
                relevant[y as usize] = true;
                stack.push(y);
            }
        }
    }
    rules.retain(|r| relevant[r.rel as usize]);

    // Demanded ground argument positions per relation.
    let mut ground_at: Vec<Option<Vec<bool>>> = vec![None; n];
    let mut used = vec![false; n];
    for r in rules.iter() {
        for l in &r.body {
            if l.kind == LitKind::Distinct {
                continue;
            }
            let x = l.rel as usize;
            used[x] = true;
            let g: Vec<bool> = l.args.iter().map(|a| matches!(a, Pat::Ground(_))).collect();
            ground_at[x] = Some(match ground_at[x].take() {
                None => g,
                Some(prev) => prev.iter().zip(&g).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    for x in 0..n {
        if roots.iter().any(|r| r.index() == x) || !used[x] {
            continue;
        }
        let Some(mask) = &ground_at[x] else { continue };
        let positions: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        if positions.is_empty() {
            continue;
        }
        // The demanded value tuples.
        let mut tuples: Vec<Vec<GTerm>> = Vec::new();
        for r in rules.iter() {
            for l in &r.body {
                if l.kind != LitKind::Distinct && l.rel as usize == x {
                    let t: Vec<GTerm> = positions
                        .iter()
                        .map(|&i| match l.args[i] {
                            Pat::Ground(g) => g,
                            _ => unreachable!("ground in every occurrence"),
                        })
                        .collect();
                    if !tuples.contains(&t) {
                        tuples.push(t);
                    }
                }
            }
        }
        let demand = rels.len() as u32;
        rels.push(Rel {
            arity: positions.len(),
            source: None,
            is_static: true,
            mode: Mode::Exact,
            lifted: false,
            feeds_lifted: false,
            reads_does: false,
            span: rels[x].span,
        });
        for t in tuples {
            rules.push(IRule {
                rel: demand,
                head: t.into_iter().map(Pat::Ground).collect(),
                body: Vec::new(),
                nvars: 0,
                origin: None,
                record: false,
            });
        }
        for r in rules.iter_mut() {
            if r.rel as usize == x {
                let args: Box<[Pat]> = positions.iter().map(|&i| r.head[i].clone()).collect();
                r.body.push(Lit {
                    kind: LitKind::Pos,
                    rel: demand,
                    args,
                });
            }
        }
    }
}
