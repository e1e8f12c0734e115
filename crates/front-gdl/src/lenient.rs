//! `--lenient`: the unsafe rules validation let through (W-VAL-041) rewritten into safe rules
//! with the meaning GGP-Base's prover gives them, so that grounding needs no change.
//!
//! GGP-Base proves a body left to right, under the bindings made so far (the query's, then each
//! positive literal's):
//!
//! * `(not L)` holds when no instance of `L` holds: its variables unbound at that point are
//!   existentially quantified *inside* the negation. The rewrite projects `L` onto its bound
//!   variables `?b…`: a new relation `(lenient_not_N ?b…) ⇐ L`, and the literal becomes
//!   `(not (lenient_not_N ?b…))`.
//! * `(distinct s t)` compares the two terms after substituting the bindings: an unbound
//!   variable is identical only to itself. The rewrite replaces each such variable by a fresh
//!   constant `lenient_unbound_N` (one per variable of the rule), identical only to itself too.
//! * A head argument every query binds ([`asked_bound`]: the role of `legal`, `goal` and `sees`,
//!   which the game asks role by role; an argument of a helper relation every body literal
//!   reading it has bound) is bound from the start. When no positive literal binds it, the
//!   rule gets a first literal over a new relation `lenient_ask_N` holding what may be asked
//!   (magic sets): the roles for `legal`, `goal` and `sees`, and for each body literal asking
//!   the relation, its bound arguments, derived from the positive literals before it (and from
//!   what its own rule was asked, the same way). This is a superset of what GGP-Base asks, and
//!   every asked atom gets GGP-Base's answer. `(legal ?p ?p)` thus gives every role the move
//!   named like itself, `(goal ?p 100)` every role 100, and a helper
//!   `(<= (differ ?x ?y) (distinct ?x ?y))` compares what its callers pass.
//!
//! Validation has already rejected the unsafe rules this cannot express (a head variable no
//! query binds, or a meaning that depends on how the relation is asked about).

use crate::ast::{Atom, Literal, Program, RelId, Rule, Sym, Term, TermId, VarId};
use crate::validate::{asked_bound, start_bound};
use rg_core::EntityId;

/// The program with every unsafe rule replaced by its safe equivalent (and the projection rules
/// of its negations appended), or `None` when every rule is safe.
pub(crate) fn make_safe(p: &Program) -> Option<Program> {
    let unsafe_rules: Vec<usize> = (0..p.rules().len())
        .filter(|&i| !is_safe(p, &p.rules()[i]))
        .collect();
    if unsafe_rules.is_empty() {
        return None;
    }
    let asked = asked_bound(p);
    let mut out = p.clone();
    let mut fresh = Fresh::default();
    // The relations whose rules need what they are asked: unsafe rules with a head variable
    // only the query binds, then (closing) the rules asking them with such a variable.
    let nrels = p.relation_count();
    let mut need = vec![false; nrels];
    let mut work: Vec<RelId> = unsafe_rules
        .iter()
        .map(|&i| &p.rules()[i])
        .filter(|r| needs_guard(p, r, &asked[r.head.rel.index()]))
        .map(|r| r.head.rel)
        .collect();
    while let Some(h) = work.pop() {
        if std::mem::replace(&mut need[h.index()], true) {
            continue;
        }
        for (r, i) in call_sites(p, h) {
            if !call_bound_by_body(p, r, i, &asked[h.index()]) {
                work.push(r.head.rel);
            }
        }
    }
    let mut magic: Vec<Option<RelId>> = vec![None; nrels];
    for h in p.relations().filter(|h| need[h.index()]) {
        let name = Fresh::name(&mut out, "lenient_ask_", &mut fresh.relations);
        let arity = asked[h.index()].iter().filter(|&&b| b).count();
        magic[h.index()] = Some(out.relation(name, arity as u32, p.rel_span(h)));
    }
    let mut extra = Vec::new();
    for h in p.relations().filter(|h| need[h.index()]) {
        let m = magic[h.index()].expect("made above");
        if [RelId::LEGAL, RelId::GOAL, RelId::SEES].contains(&h) {
            // The game asks role by role.
            let r = &p.rules()[0];
            let mut c = Copier::new(r);
            let v = c.fresh_var(&mut out, r.span);
            let args = out.add_args(&[v]);
            let head = Atom {
                rel: m,
                args,
                span: r.span,
            };
            let body = vec![Literal::Pos(Atom {
                rel: RelId::ROLE,
                args,
                span: r.span,
            })];
            extra.push(Rule {
                head,
                body,
                vars: c.vars,
                span: r.span,
            });
        }
        for (r, i) in call_sites(p, h) {
            let a = *r.body[i].atom().expect("a call site is an atom");
            let mut c = Copier::new(r);
            let call: Vec<TermId> = p.args(a.args).to_vec();
            let args: Vec<TermId> = call
                .iter()
                .zip(&asked[h.index()])
                .filter(|&(_, &b)| b)
                .map(|(&t, _)| c.term(&mut out, t, &[]))
                .collect();
            let head = Atom {
                rel: m,
                args: out.add_args(&args),
                span: a.span,
            };
            let mut body = Vec::new();
            if !call_bound_by_body(p, r, i, &asked[h.index()]) {
                let g = magic[r.head.rel.index()].expect("closed above");
                body.push(Literal::Pos(guard(
                    &mut out,
                    &mut c,
                    r,
                    g,
                    &asked[r.head.rel.index()],
                )));
            }
            for l in &r.body[..i] {
                if let Literal::Pos(b) = l {
                    body.push(Literal::Pos(c.atom(&mut out, b, &[])));
                }
            }
            extra.push(Rule {
                head,
                body,
                vars: c.vars,
                span: r.span,
            });
        }
    }
    for i in unsafe_rules {
        let rule = out.rules[i].clone();
        let h = rule.head.rel.index();
        let g = magic[h].filter(|_| needs_guard(p, &rule, &asked[h]));
        out.rules[i] = rewrite(&mut out, &rule, &asked[h], g, &mut fresh, &mut extra);
    }
    out.rules.extend(extra);
    Some(out)
}

/// Whether an unsafe rule has a head variable only its query binds.
fn needs_guard(p: &Program, rule: &Rule, asked: &[bool]) -> bool {
    let start = start_bound(p, rule, asked);
    let positive = positive_vars(p, &rule.body, rule.vars.len());
    (0..rule.vars.len()).any(|v| start[v] && !positive[v])
}

/// The variables (of a rule with `n` of them) the positive literals of `body` bind.
fn positive_vars(p: &Program, body: &[Literal], n: usize) -> Vec<bool> {
    let mut bound = vec![false; n];
    for lit in body {
        if let Literal::Pos(a) = lit {
            for &t in p.args(a.args) {
                p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
            }
        }
    }
    bound
}

/// The body literals over `h` in the program's rules: (rule, literal index).
fn call_sites(p: &Program, h: RelId) -> Vec<(&Rule, usize)> {
    let mut out = Vec::new();
    for r in p.rules() {
        for (i, l) in r.body.iter().enumerate() {
            if l.atom().is_some_and(|a| a.rel == h) {
                out.push((r, i));
            }
        }
    }
    out
}

/// Whether the positive literals before body literal `i` of `r` bind every variable of its
/// arguments that `asked` marks.
fn call_bound_by_body(p: &Program, r: &Rule, i: usize, asked: &[bool]) -> bool {
    let before = positive_vars(p, &r.body[..i], r.vars.len());
    let a = r.body[i].atom().expect("a call site is an atom");
    let mut all = true;
    for (&t, _) in p.args(a.args).iter().zip(asked).filter(|&(_, &b)| b) {
        p.for_each_var(t, &mut |v, _| all &= before[v.index()]);
    }
    all
}

/// The literal over `magic` asking `rule`'s head: its arguments that `asked` marks.
fn guard(p: &mut Program, c: &mut Copier<'_>, rule: &Rule, magic: RelId, asked: &[bool]) -> Atom {
    let head: Vec<TermId> = p.args(rule.head.args).to_vec();
    let args: Vec<TermId> = head
        .iter()
        .zip(asked)
        .filter(|&(_, &b)| b)
        .map(|(&t, _)| c.term(p, t, &[]))
        .collect();
    Atom {
        rel: magic,
        args: p.add_args(&args),
        span: rule.head.span,
    }
}

/// Whether every variable of the rule occurs in a positive body literal.
fn is_safe(p: &Program, rule: &Rule) -> bool {
    let mut bound = vec![false; rule.vars.len()];
    for lit in &rule.body {
        if let Literal::Pos(a) = lit {
            for &t in p.args(a.args) {
                p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
            }
        }
    }
    bound.iter().all(|&b| b)
}

/// Numbers of the fresh names made so far.
#[derive(Default)]
struct Fresh {
    relations: usize,
    constants: usize,
}

impl Fresh {
    /// A symbol `{prefix}{n}` the program does not have yet.
    fn name(p: &mut Program, prefix: &str, n: &mut usize) -> Sym {
        loop {
            let text = format!("{prefix}{n}");
            *n += 1;
            if p.symbols().get(&text).is_none() {
                return p.intern(&text);
            }
        }
    }
}

/// One literal of the rewritten body, over the old rule's variables.
enum NewLit {
    /// The literal as it was.
    Keep(Literal),
    /// What the query binds, asked of its magic relation.
    Guard(RelId),
    /// `(not (rel ?b…))`.
    NegAux(RelId, Vec<VarId>, rg_core::Span),
    /// `distinct` with some variables replaced by constants.
    Distinct(TermId, TermId, rg_core::Span),
}

fn rewrite(
    p: &mut Program,
    rule: &Rule,
    asked: &[bool],
    guard_rel: Option<RelId>,
    fresh: &mut Fresh,
    aux: &mut Vec<Rule>,
) -> Rule {
    let n = rule.vars.len();
    let mut bound = start_bound(p, rule, asked);
    let mut body = Vec::with_capacity(rule.body.len() + 1);
    if let Some(g) = guard_rel {
        body.push(NewLit::Guard(g));
    }
    // The constant standing for each variable unbound at a `distinct`.
    let mut constant: Vec<Option<Sym>> = vec![None; n];
    for lit in &rule.body {
        match *lit {
            Literal::Pos(a) => {
                for &t in p.args(a.args) {
                    p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
                }
                body.push(NewLit::Keep(*lit));
            }
            Literal::Neg(a) => {
                let mut vars = Vec::new();
                for &t in p.args(a.args) {
                    p.for_each_var(t, &mut |v, _| vars.push(v));
                }
                if vars.iter().all(|v| bound[v.index()]) {
                    body.push(NewLit::Keep(*lit));
                    continue;
                }
                let mut kept: Vec<VarId> = Vec::new();
                for v in vars {
                    if bound[v.index()] && !kept.contains(&v) {
                        kept.push(v);
                    }
                }
                let name = Fresh::name(p, "lenient_not_", &mut fresh.relations);
                let rel = p.relation(name, kept.len() as u32, Some(a.span));
                // (rel ?b…) ⇐ a
                let mut c = Copier::new(rule);
                let head_args: Vec<TermId> =
                    kept.iter().map(|&v| c.var(p, v, rule.head.span)).collect();
                let head = Atom {
                    rel,
                    args: p.add_args(&head_args),
                    span: a.span,
                };
                let lit = Literal::Pos(c.atom(p, &a, &[]));
                aux.push(Rule {
                    head,
                    body: vec![lit],
                    vars: c.vars,
                    span: rule.span,
                });
                body.push(NewLit::NegAux(rel, kept, a.span));
            }
            Literal::Distinct { left, right, span } => {
                let mut vars = Vec::new();
                for t in [left, right] {
                    p.for_each_var(t, &mut |v, _| vars.push(v));
                }
                if vars.iter().all(|v| bound[v.index()]) {
                    body.push(NewLit::Keep(*lit));
                    continue;
                }
                for v in vars {
                    if !bound[v.index()] && constant[v.index()].is_none() {
                        constant[v.index()] =
                            Some(Fresh::name(p, "lenient_unbound_", &mut fresh.constants));
                    }
                }
                body.push(NewLit::Distinct(left, right, span));
            }
        }
    }
    // The rule again, variables renumbered by first occurrence.
    let mut c = Copier::new(rule);
    let head = c.atom(p, &rule.head, &[]);
    let mut new_body = Vec::with_capacity(body.len());
    for lit in body {
        new_body.push(match lit {
            NewLit::Keep(Literal::Pos(a)) => Literal::Pos(c.atom(p, &a, &[])),
            NewLit::Keep(Literal::Neg(a)) => Literal::Neg(c.atom(p, &a, &[])),
            NewLit::Keep(Literal::Distinct { left, right, span }) => Literal::Distinct {
                left: c.term(p, left, &[]),
                right: c.term(p, right, &[]),
                span,
            },
            NewLit::Guard(g) => Literal::Pos(guard(p, &mut c, rule, g, asked)),
            NewLit::NegAux(rel, vars, span) => {
                let args: Vec<TermId> = vars.iter().map(|&v| c.var(p, v, span)).collect();
                Literal::Neg(Atom {
                    rel,
                    args: p.add_args(&args),
                    span,
                })
            }
            NewLit::Distinct(left, right, span) => Literal::Distinct {
                left: c.term(p, left, &constant),
                right: c.term(p, right, &constant),
                span,
            },
        });
    }
    Rule {
        head,
        body: new_body,
        vars: c.vars,
        span: rule.span,
    }
}

/// Copies terms of one rule into a new rule, numbering the variables by first occurrence.
struct Copier<'r> {
    old: &'r Rule,
    map: Vec<Option<VarId>>,
    vars: Vec<Sym>,
}

impl<'r> Copier<'r> {
    fn new(old: &'r Rule) -> Self {
        Copier {
            old,
            map: vec![None; old.vars.len()],
            vars: Vec::new(),
        }
    }

    /// A variable of the new rule that the old one does not have.
    fn fresh_var(&mut self, p: &mut Program, span: rg_core::Span) -> TermId {
        let name = p.intern("lenient_role");
        self.vars.push(name);
        p.add_term(Term::Var(VarId::new(self.vars.len() - 1)), span)
    }

    fn var(&mut self, p: &mut Program, v: VarId, span: rg_core::Span) -> TermId {
        let new = *self.map[v.index()].get_or_insert_with(|| {
            self.vars.push(self.old.vars[v.index()]);
            VarId::new(self.vars.len() - 1)
        });
        p.add_term(Term::Var(new), span)
    }

    /// A copy of `t`, variable `v` replaced by the constant `constant[v]` where there is one.
    /// Terms are as deep as the reader allows.
    fn term(&mut self, p: &mut Program, t: TermId, constant: &[Option<Sym>]) -> TermId {
        let span = p.term_span(t);
        match p.term(t) {
            Term::Var(v) => match constant.get(v.index()).copied().flatten() {
                Some(c) => p.add_term(Term::Const(c), span),
                None => self.var(p, v, span),
            },
            Term::Const(c) => p.add_term(Term::Const(c), span),
            Term::Fn(f, args) => {
                let args = p.args(args).to_vec();
                let copied: Vec<TermId> = args.iter().map(|&a| self.term(p, a, constant)).collect();
                let args = p.add_args(&copied);
                p.add_term(Term::Fn(f, args), span)
            }
        }
    }

    fn atom(&mut self, p: &mut Program, a: &Atom, constant: &[Option<Sym>]) -> Atom {
        let args = p.args(a.args).to_vec();
        let copied: Vec<TermId> = args.iter().map(|&t| self.term(p, t, constant)).collect();
        Atom {
            rel: a.rel,
            args: p.add_args(&copied),
            span: a.span,
        }
    }
}
