//! The grounder's own rule form, built from the normalised program (gdl.md §3), and the
//! analyses on it: relation classification (gdl.md §7.3 step 1) and projection of existential
//! variables (§7.3.1).
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
    /// The source rule (index into the program's rules); `None` for the built-in bridge rules
    /// `true ⇐ init`, `true ⇐ next`, `does ⇐ legal` and for projections (which point at the
    /// rule they were cut from through `origin`).
    pub(crate) src: Option<u32>,
    /// The rule this one was derived from (itself for source rules).
    pub(crate) origin: Option<u32>,
    /// Whether ground instances are kept (false for the bridge rules, which only feed the
    /// reachability analysis).
    pub(crate) record: bool,
}

/// How a relation is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Computed exactly during grounding (static and stratified): its literals never reach
    /// the ground program.
    Exact,
    /// Over-approximated (M⁺): its atoms are propositions of the ground program.
    Relaxed,
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
            span: p.rel_span(r),
        })
        .collect();
    let mut rules = Vec::with_capacity(p.rules().len() + 3);
    let mut buf = Vec::new();
    for (i, r) in p.rules().iter().enumerate() {
        if r.vars.len() > MAX_VARS {
            return Err(RuleError {
                span: r.span,
                message: format!("a rule with {} variables is too large to ground", r.vars.len()),
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
                    args: vec![pat(p, store, *left, &mut buf), pat(p, store, *right, &mut buf)]
                        .into(),
                },
            })
            .collect();
        rules.push(IRule {
            rel: r.head.rel.index() as u32,
            head,
            body,
            nvars: r.vars.len(),
            src: Some(i as u32),
            origin: Some(i as u32),
            record: true,
        });
    }
    // The relaxed program's bridges (gdl.md §7.3 step 3).
    let bridge = |head: RelId, body: RelId, arity: usize| IRule {
        rel: head.index() as u32,
        head: (0..arity as u16).map(Pat::Var).collect(),
        body: vec![Lit {
            kind: LitKind::Pos,
            rel: body.index() as u32,
            args: (0..arity as u16).map(Pat::Var).collect(),
        }],
        nvars: arity,
        src: None,
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
    let g = Csr::new(n, &edges);
    let mut dynamic = vec![false; n];
    let mut stack = vec![RelId::TRUE.index() as u32, RelId::DOES.index() as u32];
    for &s in &stack {
        dynamic[s as usize] = true;
    }
    while let Some(v) = stack.pop() {
        for &w in g.succ(v) {
            if !dynamic[w as usize] {
                dynamic[w as usize] = true;
                stack.push(w);
            }
        }
    }
    for (i, r) in rels.iter_mut().enumerate() {
        r.is_static = !dynamic[i];
    }
    Ok((rels, rules))
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
    let g = Csr::new(n, &edges);
    let mut comps = sccs(&g);
    comps.reverse();
    let mut comp_of = vec![0u32; n];
    for (c, members) in comps.iter().enumerate() {
        for &m in members {
            comp_of[m as usize] = c as u32;
        }
    }
    // Per component: all static, no internal negative edge, all inputs exact.
    let mut exact = vec![true; comps.len()];
    for (c, members) in comps.iter().enumerate() {
        if members.iter().any(|&m| !rels[m as usize].is_static) {
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
        r.mode = if exact[comp_of[i] as usize] {
            Mode::Exact
        } else {
            Mode::Relaxed
        };
    }
    comps
}

/// Projection of existential variables (gdl.md §7.3.1): in a recorded rule, a positive
/// literal over a relaxed relation whose variables partly occur nowhere else in the rule is
/// replaced by an auxiliary relation over its other variables, defined by one new rule —
/// when the rule has another relaxed literal, so that the ground instances become a sum
/// instead of a product. Equal projections are shared.
pub(crate) fn project(rels: &mut Vec<Rel>, rules: &mut Vec<IRule>, spans: &[Option<Span>]) {
    use std::collections::HashMap;
    let mut shared: HashMap<(u32, Box<[Pat]>, usize), u32> = HashMap::new();
    let original = rules.len();
    for ri in 0..original {
        if !rules[ri].record {
            continue;
        }
        let relaxed = |l: &Lit, rels: &[Rel]| {
            l.kind != LitKind::Distinct && rels[l.rel as usize].mode == Mode::Relaxed
        };
        let n_relaxed = rules[ri]
            .body
            .iter()
            .filter(|l| relaxed(l, rels))
            .count();
        if n_relaxed < 2 {
            continue;
        }
        // Occurrence counts: head, and per literal.
        let nvars = rules[ri].nvars;
        let mut elsewhere = vec![0u32; nvars];
        for h in rules[ri].head.iter() {
            h.for_each_var(&mut |v| elsewhere[v as usize] += 1);
        }
        let lit_vars: Vec<Vec<u16>> = rules[ri].body.iter().map(Lit::vars).collect();
        for vs in &lit_vars {
            for &v in vs {
                elsewhere[v as usize] += 1;
            }
        }
        for li in 0..rules[ri].body.len() {
            let l = &rules[ri].body[li];
            if l.kind != LitKind::Pos || !relaxed(l, rels) {
                continue;
            }
            // Variables of this literal only: counted once (by this literal) in `elsewhere`.
            let exist: Vec<u16> = lit_vars[li]
                .iter()
                .copied()
                .filter(|&v| elsewhere[v as usize] == 1)
                .collect();
            if exist.is_empty() {
                continue;
            }
            let keep: Vec<u16> = lit_vars[li]
                .iter()
                .copied()
                .filter(|v| !exist.contains(v))
                .collect();
            // Canonical form: kept variables first (in order), then the existential ones.
            let order: Vec<u16> = keep.iter().chain(&exist).copied().collect();
            let canon = |v: u16| order.iter().position(|&x| x == v).expect("var of lit") as u16;
            let args: Box<[Pat]> = l.args.iter().map(|a| a.rename(&canon)).collect();
            let key = (l.rel, args.clone(), keep.len());
            let aux = match shared.get(&key) {
                Some(&a) => a,
                None => {
                    let a = rels.len() as u32;
                    rels.push(Rel {
                        arity: keep.len(),
                        source: None,
                        is_static: rels[l.rel as usize].is_static,
                        mode: Mode::Relaxed,
                        span: rules[ri].src.and_then(|s| spans[s as usize]),
                    });
                    rules.push(IRule {
                        rel: a,
                        head: (0..keep.len() as u16).map(Pat::Var).collect(),
                        body: vec![Lit {
                            kind: LitKind::Pos,
                            rel: l.rel,
                            args,
                        }],
                        nvars: order.len(),
                        src: None,
                        origin: rules[ri].origin,
                        record: true,
                    });
                    shared.insert(key, a);
                    a
                }
            };
            rules[ri].body[li] = Lit {
                kind: LitKind::Pos,
                rel: aux,
                args: keep.iter().map(|&v| Pat::Var(v)).collect(),
            };
        }
    }
}
