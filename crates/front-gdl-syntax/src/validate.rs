//! Validity checks of GDL on a normalised [`Program`], and the [`Analysis`] later stages
//! use (relation dependency graph, components, strata, static / state / move classification,
//! roles).
//!
//! | check | code |
//! |---|---|
//! | heads: `true`/`does` never, `role` only as a fact | E-VAL-006 |
//! | variables in facts | E-VAL-005 |
//! | a role, a `legal`, a `terminal` and a `goal` rule exist | E-VAL-001 |
//! | body relations defined nowhere; `true` of a fluent no `init`/`next` makes | W-VAL-013 |
//! | defined relations that influence no keyword relation | W-VAL-014 |
//! | keyword arities | E-VAL-002 |
//! | keywords as function names (`random` aside) | E-VAL-003 |
//! | keywords as object constants | W-VAL-004 |
//! | compound roles (RG needs a name per role) | E-VAL-021 |
//! | goal values outside 0…100 | W-VAL-022 |
//! | a name with two arities; a name used as relation and function | W-VAL-010, W-VAL-015 |
//! | safety: every variable of a rule occurs in a positive body literal (after `or` expansion) | E-VAL-040 |
//! | with `--lenient`: an unsafe rule GGP-Base's left-to-right reading gives a meaning ([`asked_bound`]) | W-VAL-041 |
//! | negation cycles between relations (checked again on the ground program) | W-VAL-030 |
//! | the recursion restriction (recursion cannot build ever larger terms) | E-VAL-032 |
//! | `init`/`next`/`base`/`input` in a body; `sees` in a body | E-VAL-006, W-VAL-009 |
//! | `init`/`base`/`input` depending on `true`/`does` | E-VAL-007 |
//! | `legal`/`goal`/`terminal` depending on `does` | E-VAL-008 |
//! | the `random` role: the GDL-II chance player, whose goals are ignored | W-VAL-023 |
//!
//! Every check runs; all findings are reported together.

use crate::ast::{Atom, Literal, Program, RelId, Rule, Sym, Term, TermId, VarId};
use crate::error::{Code, GdlDiagnostic, Sink};
use crate::graph::{Csr, Sccs, sccs};
use rg_core::{EntityId, Span};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// How a relation depends on the game's inputs: the state (`true`) and the joint move (`does`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dependency {
    /// Depends on neither `true` nor `does`: the same in every state.
    Static,
    /// Depends on `true` but not on `does`.
    State,
    /// Depends on `does`.
    Move,
}

/// A role, in role-fact order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// The role's name.
    pub name: Sym,
    /// The `(role …)` fact.
    pub span: Span,
}

/// An edge `from → to` of the relation dependency graph: some rule with head relation `to` has
/// a body literal over `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepEdge {
    /// The body literal's relation.
    pub from: RelId,
    /// The head relation.
    pub to: RelId,
    /// Whether the literal is negative.
    pub negative: bool,
    /// The first rule with such a literal (an index into [`Program::rules`]).
    pub rule: u32,
    /// The literal's index in that rule's body.
    pub literal: u32,
}

/// What validation learned about a program; indexed by [`RelId`] where per relation.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The roles in the order of their `role` facts (the order in which simultaneous moves are
    /// made one after the other in RG).
    pub roles: Vec<Role>,
    /// The index in `roles` of the GDL-II chance player `random`, if declared (a role named
    /// `random` is the chance player even in a GDL-I file).
    pub random: Option<usize>,
    /// The rules defining each relation (indexes into [`Program::rules`], in order).
    pub rules_of: Vec<Vec<u32>>,
    /// The dependency graph's edges, each (from, to, sign) once, in rule order.
    pub edges: Vec<DepEdge>,
    /// Successors in the dependency graph: the relations whose rules use a relation.
    pub dependents: Csr,
    /// Predecessors: the relations a relation's rules use.
    pub dependencies: Csr,
    /// Strongly connected components of the dependency graph, dependencies first.
    pub components: Sccs,
    /// Whether no component contains a negative edge (the rules are stratified relation by
    /// relation; when false, only the ground program can tell, E-VAL-031).
    pub stratified: bool,
    /// Each relation's stratum: the most negative edges on a path ending in it, counting
    /// edges between components only.
    pub strata: Vec<u32>,
    /// Each relation's classification.
    pub dependency: Vec<Dependency>,
}

impl Analysis {
    /// Whether the relation depends on neither `true` nor `does`.
    pub fn is_static(&self, rel: RelId) -> bool {
        self.dependency[rel.index()] == Dependency::Static
    }

    /// The relation's classification.
    pub fn dependency_of(&self, rel: RelId) -> Dependency {
        self.dependency[rel.index()]
    }

    /// The relation's stratum.
    pub fn stratum(&self, rel: RelId) -> u32 {
        self.strata[rel.index()]
    }

    /// The relation's component (an index into `components.components`).
    pub fn component(&self, rel: RelId) -> u32 {
        self.components.component_of[rel.index()]
    }

    /// Whether the relation is defined recursively (its component has several relations or a
    /// self-edge).
    pub fn is_recursive(&self, rel: RelId) -> bool {
        let c = self.component(rel);
        self.components.components[c as usize].len() > 1
            || self.dependents.successors(rel.0).contains(&rel.0)
    }

    /// The rules defining a relation.
    pub fn rules_of(&self, rel: RelId) -> &[u32] {
        &self.rules_of[rel.index()]
    }
}

/// Runs every check and computes the analysis.
pub(crate) fn validate(p: &Program, lenient: bool, sink: &mut Sink) -> Analysis {
    let n = p.relation_count();
    let mut rules_of: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, r) in p.rules().iter().enumerate() {
        rules_of[r.head.rel.index()].push(i as u32);
    }
    // Rules sharing a source form come from expanding an `or`.
    let mut per_form: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    for r in p.rules() {
        *per_form.entry((r.span.start, r.span.end)).or_insert(0) += 1;
    }
    let mut called = vec![false; n];
    for r in p.rules() {
        for lit in &r.body {
            if let Some(a) = lit.atom() {
                called[a.rel.index()] = true;
            }
        }
    }
    let asked = if lenient { asked_bound(p) } else { Vec::new() };
    let mut v = Validator {
        p,
        sink,
        lenient,
        called,
        asked,
    };
    for rule in p.rules() {
        let expanded = per_form[&(rule.span.start, rule.span.end)] > 1;
        v.rule(rule, expanded);
    }
    let roles = v.roles(&rules_of);
    v.required(&rules_of);
    v.names(&rules_of);

    let edges = dependency_edges(p);
    let dependents = Csr::from_edges(n, edges.iter().map(|e| (e.from.0, e.to.0)));
    let dependencies = dependents.reversed();
    let components = sccs(&dependents);
    let mut stratified = true;
    let mut incoming: Vec<Vec<&DepEdge>> = vec![Vec::new(); n];
    for e in &edges {
        incoming[e.to.index()].push(e);
    }
    let mut strata = vec![0u32; components.components.len()];
    for (ci, comp) in components.components.iter().enumerate() {
        for &rel in comp {
            for e in &incoming[rel as usize] {
                let from_c = components.component_of[e.from.index()] as usize;
                if from_c != ci {
                    strata[ci] = strata[ci].max(strata[from_c] + u32::from(e.negative));
                }
            }
        }
    }
    let strata: Vec<u32> = (0..n)
        .map(|r| strata[components.component_of[r] as usize])
        .collect();
    for e in &edges {
        if e.negative
            && components.component_of[e.from.index()] == components.component_of[e.to.index()]
        {
            if stratified {
                v.negation_cycle(e, &components);
            }
            stratified = false;
        }
    }
    let from_true = reach(&dependents, &edges, RelId::TRUE);
    let from_does = reach(&dependents, &edges, RelId::DOES);
    let dependency: Vec<Dependency> = (0..n)
        .map(|r| {
            if from_does[r].is_some() {
                Dependency::Move
            } else if from_true[r].is_some() {
                Dependency::State
            } else {
                Dependency::Static
            }
        })
        .collect();
    v.input_dependence(&edges, &from_true, &from_does);
    v.unused(&rules_of, &dependencies);
    for rule in p.rules() {
        v.recursion_restriction(rule, &components);
    }
    let random = roles.iter().position(|r| r.name == Sym::RANDOM);
    v.random_role(&roles, random, &rules_of);
    Analysis {
        roles,
        random,
        rules_of,
        edges,
        dependents,
        dependencies,
        components,
        stratified,
        strata,
        dependency,
    }
}

/// The dependency edges, each (from, to, sign) once with its first witness.
fn dependency_edges(p: &Program) -> Vec<DepEdge> {
    let mut seen = FxHashSet::default();
    let mut edges = Vec::new();
    for (ri, rule) in p.rules().iter().enumerate() {
        for (li, lit) in rule.body.iter().enumerate() {
            let (atom, negative) = match lit {
                Literal::Pos(a) => (a, false),
                Literal::Neg(a) => (a, true),
                Literal::Distinct { .. } => continue,
            };
            if seen.insert((atom.rel, rule.head.rel, negative)) {
                edges.push(DepEdge {
                    from: atom.rel,
                    to: rule.head.rel,
                    negative,
                    rule: ri as u32,
                    literal: li as u32,
                });
            }
        }
    }
    edges
}

/// Breadth-first reachability from `source` along dependency edges: for each reached relation
/// the edge it was reached by (the source itself maps to `Some(None)`).
fn reach(g: &Csr, edges: &[DepEdge], source: RelId) -> Vec<Option<Option<usize>>> {
    let n = g.len();
    let mut by_pair: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    for (i, e) in edges.iter().enumerate() {
        by_pair.entry((e.from.0, e.to.0)).or_insert(i);
    }
    let mut parent: Vec<Option<Option<usize>>> = vec![None; n];
    parent[source.index()] = Some(None);
    let mut queue = VecDeque::from([source.0]);
    while let Some(u) = queue.pop_front() {
        for &w in g.successors(u) {
            if parent[w as usize].is_none() {
                parent[w as usize] = Some(by_pair.get(&(u, w)).copied());
                queue.push_back(w);
            }
        }
    }
    parent
}

struct Validator<'p, 's> {
    p: &'p Program,
    sink: &'s mut Sink,
    /// `--lenient`: unsafe rules with a GGP-Base meaning are warnings.
    lenient: bool,
    /// Per relation, whether some body literal reads it.
    called: Vec<bool>,
    /// [`asked_bound`] (only computed with `lenient`).
    asked: Vec<Vec<bool>>,
}

impl Validator<'_, '_> {
    fn name(&self, s: Sym) -> &str {
        self.p.name(s)
    }

    fn rel(&self, r: RelId) -> &str {
        self.p.name(self.p.rel_name(r))
    }

    /// The checks on one rule: keyword placement and shape, facts, terms, safety.
    fn rule(&mut self, rule: &Rule, expanded: bool) {
        let p = self.p;
        let head_name = p.rel_name(rule.head.rel);
        if head_name == Sym::TRUE || head_name == Sym::DOES {
            let kw = self.name(head_name).to_owned();
            self.sink.push(
                GdlDiagnostic::new(
                    Code::KeywordPlacement,
                    rule.head.span,
                    format!("`{kw}` cannot appear in a rule head"),
                )
                .with_help(if head_name == Sym::TRUE {
                    "`true` describes the current state, which only `init` and `next` define"
                } else {
                    "`does` describes the moves being made, which the players choose"
                }),
            );
        }
        if head_name == Sym::ROLE && !rule.is_fact() {
            self.sink.push(
                GdlDiagnostic::new(
                    Code::KeywordPlacement,
                    rule.head.span,
                    "`role` cannot appear in a rule head with a body",
                )
                .with_help("roles are declared by ground facts such as `(role white)`"),
            );
        }
        self.atom_shape(&rule.head);
        for lit in &rule.body {
            match lit {
                Literal::Pos(a) | Literal::Neg(a) => {
                    let name = p.rel_name(a.rel);
                    if [Sym::INIT, Sym::NEXT, Sym::BASE, Sym::INPUT].contains(&name) {
                        let kw = self.name(name).to_owned();
                        self.sink.push(
                            GdlDiagnostic::new(
                                Code::KeywordPlacement,
                                a.span,
                                format!("`{kw}` cannot appear in a rule body"),
                            )
                            .with_help(match kw.as_str() {
                                "init" | "next" => "use `(true …)` to read the current state",
                                _ => "`base` and `input` only declare; they cannot be queried",
                            }),
                        );
                    }
                    if name == Sym::SEES {
                        self.sink.push(
                            GdlDiagnostic::new(
                                Code::SeesInBody,
                                a.span,
                                "`sees` is an output relation; using it in a body is unusual",
                            )
                            .with_help("define the condition as a helper relation and use that"),
                        );
                    }
                    self.atom_shape(a);
                }
                Literal::Distinct { left, right, .. } => {
                    self.terms(*left);
                    self.terms(*right);
                }
            }
        }
        for &t in p.args(rule.head.args) {
            self.terms(t);
        }
        for a in rule.body.iter().filter_map(Literal::atom) {
            for &t in p.args(a.args) {
                self.terms(t);
            }
        }
        if head_name == Sym::ROLE && p.args(rule.head.args).len() == 1 {
            let arg = p.args(rule.head.args)[0];
            if let Term::Fn(..) = p.term(arg) {
                self.sink.push(
                    GdlDiagnostic::new(
                        Code::CompoundRole,
                        p.term_span(arg),
                        format!(
                            "roles must be constants, found `{}`",
                            p.display_term(rule, arg)
                        ),
                    )
                    .with_help("name the role with a single constant"),
                );
            }
        }
        if rule.head.rel == RelId::GOAL {
            let value = p.args(rule.head.args)[1];
            let ok = match p.term(value) {
                Term::Const(s) => self.name(s).parse::<u32>().is_ok_and(|v| v <= 100),
                Term::Var(_) => true,
                Term::Fn(..) => !p.is_ground(value),
            };
            if !ok {
                self.sink.push(
                    GdlDiagnostic::new(
                        Code::GoalValue,
                        p.term_span(value),
                        format!(
                            "goal value `{}` is not an integer between 0 and 100",
                            p.display_term(rule, value)
                        ),
                    )
                    .with_help("GDL goal values are the integers 0 to 100"),
                );
            }
        }
        if rule.is_fact() {
            self.fact_variables(rule);
        } else {
            self.safety(rule, expanded);
        }
    }

    /// A keyword relation with the wrong number of arguments.
    fn atom_shape(&mut self, a: &Atom) {
        let name = self.p.rel_name(a.rel);
        if let Some(want) = name.keyword_arity() {
            let found = a.args.len();
            if found != want {
                let kw = self.name(name).to_owned();
                self.sink.push(
                    GdlDiagnostic::new(
                        Code::KeywordArity,
                        a.span,
                        format!(
                            "`{kw}` takes exactly {want} argument{}, found {found}",
                            if want == 1 { "" } else { "s" }
                        ),
                    )
                    .with_help(keyword_shape(name)),
                );
            }
        }
    }

    /// On every subterm: keywords used as function names (an error; `random` is a constant)
    /// or as object constants (a warning).
    fn terms(&mut self, t: TermId) {
        let p = self.p;
        match p.term(t) {
            Term::Var(_) => {}
            Term::Const(s) => {
                if s.is_keyword_relation() {
                    let kw = self.name(s).to_owned();
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::KeywordAsConstant,
                            p.term_span(t),
                            format!("`{kw}` is a GDL keyword used as a constant"),
                        )
                        .with_help("rename the constant; other GDL tools may misread it"),
                    );
                }
            }
            Term::Fn(f, args) => {
                if f.is_keyword_relation() {
                    let kw = self.name(f).to_owned();
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::KeywordAsFunction,
                            p.term_span(t),
                            format!("`{kw}` is a GDL keyword and cannot be a function name"),
                        )
                        .with_help(format!(
                            "`{kw}` makes a sentence, not a term; `({kw} …)` cannot be an argument"
                        )),
                    );
                }
                for &a in p.args(args) {
                    self.terms(a);
                }
            }
        }
    }

    /// A fact with variables (variables may only appear within rules).
    fn fact_variables(&mut self, rule: &Rule) {
        let p = self.p;
        let mut first: Option<(VarId, TermId)> = None;
        for &t in p.args(rule.head.args) {
            p.for_each_var(t, &mut |v, at| {
                first.get_or_insert((v, at));
            });
        }
        if let Some((v, at)) = first {
            let name = self.name(rule.vars[v.index()]).to_owned();
            self.sink.push(
                GdlDiagnostic::new(
                    Code::VariableInFact,
                    p.term_span(at),
                    "variables may only appear in rules",
                )
                .with_label(format!("`?{name}` in a fact"))
                .with_help("a fact states ground sentences; write one fact per value or add a body that binds the variable"),
            );
        }
    }

    /// Safety: every variable of the head, a negation or a distinct occurs in a positive literal.
    ///
    /// With `--lenient`, an unsafe rule is a warning (W-VAL-041) when GGP-Base's left-to-right
    /// reading of it is known whatever asks about its head: every head variable is bound by a
    /// positive literal or is the role argument of `legal`, `goal` or `sees` (which every query
    /// binds), and no head variable is read by a negation or `distinct` before a positive
    /// literal binds it, unless the relation is a keyword no body reads (its queries leave those
    /// arguments open). Otherwise it stays an error.
    fn safety(&mut self, rule: &Rule, expanded: bool) {
        let p = self.p;
        let mut bound = vec![false; rule.vars.len()];
        for lit in &rule.body {
            if let Literal::Pos(a) = lit {
                for &t in p.args(a.args) {
                    p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
                }
            }
        }
        if bound.iter().all(|&b| b) {
            return;
        }
        let lenient = self.lenient && self.lenient_reading(rule, &bound);
        let code = if lenient {
            Code::UnsafeRuleLenient
        } else {
            Code::UnsafeRule
        };
        let mut reported = vec![false; rule.vars.len()];
        let help = if lenient {
            "--lenient reads this rule as GGP-Base does: its literals left to right, a negation \
             true when no instance of it holds, `distinct` false only for identical terms (an \
             unbound variable is identical only to itself), the role of `legal`, `goal` and \
             `sees` bound by the query"
                .to_owned()
        } else if expanded {
            format!(
                "the `or` in this rule makes one rule per case, and in the case \
                 `{}` the variable is bound by no positive literal; every variable of the head, \
                 of a negation and of a `distinct` must occur in a positive literal of each case",
                crate::print::rule_to_line(p, rule)
            )
        } else if self.lenient {
            "--lenient cannot give this rule GGP-Base's meaning: a head variable would be \
             answered unbound, or its meaning depends on how the rule's relation is asked about; \
             every variable of the head, of a negation and of a `distinct` must also occur in a \
             positive literal of the body"
                .to_owned()
        } else {
            "every variable of the head, of a negation and of a `distinct` must also occur in a \
             positive literal of the body"
                .to_owned()
        };
        let what = if lenient {
            "unsafe rule read as GGP-Base does"
        } else {
            "unsafe rule"
        };
        let mut report = |v: VarId, at: TermId, place: &str, sink: &mut Sink| {
            if bound[v.index()] || std::mem::replace(&mut reported[v.index()], true) {
                return;
            }
            let name = p.name(rule.vars[v.index()]);
            sink.push(
                GdlDiagnostic::new(
                    code,
                    p.term_span(at),
                    format!("{what}: `?{name}` occurs {place} but in no positive body literal"),
                )
                .with_label(format!("`?{name}`"))
                .with_help(help.clone()),
            );
        };
        for &t in p.args(rule.head.args) {
            p.for_each_var(t, &mut |v, at| report(v, at, "in the head", self.sink));
        }
        for lit in &rule.body {
            match *lit {
                Literal::Pos(_) => {}
                Literal::Neg(a) => {
                    for &t in p.args(a.args) {
                        p.for_each_var(t, &mut |v, at| report(v, at, "in a negation", self.sink));
                    }
                }
                Literal::Distinct { left, right, .. } => {
                    for t in [left, right] {
                        p.for_each_var(t, &mut |v, at| report(v, at, "in `distinct`", self.sink));
                    }
                }
            }
        }
    }

    /// Whether `--lenient` can give an unsafe rule GGP-Base's meaning (see [`Self::safety`]);
    /// `positive[v]` says whether a positive literal binds `v`.
    fn lenient_reading(&self, rule: &Rule, positive: &[bool]) -> bool {
        let p = self.p;
        let asked = &self.asked[rule.head.rel.index()];
        let start = start_bound(p, rule, asked);
        let mut in_head = vec![false; rule.vars.len()];
        for &t in p.args(rule.head.args) {
            p.for_each_var(t, &mut |v, _| in_head[v.index()] = true);
        }
        // Every head variable gets a value, from the query or from a positive literal.
        if (0..rule.vars.len()).any(|v| in_head[v] && !positive[v] && !start[v]) {
            return false;
        }
        // A keyword relation no body reads is only asked about by the game, which leaves the
        // arguments other than the role open: their variables are unbound at the start.
        let open_query = rule.head.rel.is_keyword() && !self.called[rule.head.rel.index()];
        let mut bound = start.clone();
        // Whether the rule needs a head variable bound by the query before a positive literal.
        let mut needs_query = (0..rule.vars.len()).any(|v| in_head[v] && !positive[v]);
        for lit in &rule.body {
            let mut vars = Vec::new();
            match *lit {
                Literal::Pos(a) => {
                    for &t in p.args(a.args) {
                        p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
                    }
                    continue;
                }
                Literal::Neg(a) => {
                    for &t in p.args(a.args) {
                        p.for_each_var(t, &mut |v, _| vars.push(v));
                    }
                }
                Literal::Distinct { left, right, .. } => {
                    for t in [left, right] {
                        p.for_each_var(t, &mut |v, _| vars.push(v));
                    }
                }
            }
            for v in vars {
                let (h, b, s) = (in_head[v.index()], bound[v.index()], start[v.index()]);
                if h && !b && !open_query {
                    // Bound or not depending on the caller.
                    return false;
                }
                if h && s && !positive_before(p, rule, lit, v) {
                    needs_query = true;
                }
            }
        }
        // A relation of the game's own (not a keyword) whose rule needs its head bound by the
        // caller: every caller binds every argument (the reasoner asks it atom by atom).
        !(needs_query && !rule.head.rel.is_keyword() && !asked.iter().all(|&b| b))
    }

    /// The roles, in fact order.
    fn roles(&mut self, rules_of: &[Vec<u32>]) -> Vec<Role> {
        let p = self.p;
        rules_of[RelId::ROLE.index()]
            .iter()
            .map(|&i| &p.rules()[i as usize])
            .filter(|r| r.is_fact())
            .filter_map(|r| match p.term(p.args(r.head.args)[0]) {
                Term::Const(name) => Some(Role { name, span: r.span }),
                _ => None,
            })
            .collect()
    }

    /// Roles, legal moves, termination and goals exist.
    fn required(&mut self, rules_of: &[Vec<u32>]) {
        for (rel, what, help) in [
            (
                RelId::ROLE,
                "roles",
                "declare each player with a fact such as `(role white)`",
            ),
            (
                RelId::LEGAL,
                "legal moves",
                "add rules such as `(<= (legal white (move ?x)) …)`",
            ),
            (
                RelId::TERMINAL,
                "terminal condition",
                "add rules such as `(<= terminal (true (step 10)))`",
            ),
            (
                RelId::GOAL,
                "goals",
                "add rules such as `(<= (goal white 100) …)`",
            ),
        ] {
            if rules_of[rel.index()].is_empty() {
                self.sink.push(
                    GdlDiagnostic::global(
                        Code::MissingKeyword,
                        format!("the game defines no {what}"),
                    )
                    .with_help(help),
                );
            }
        }
    }

    /// Names: a relation or a function used with two arities (a warning: they are treated as
    /// different symbols), a name used both as a relation and as a function, a relation used in
    /// a body that no rule defines, and a fluent tested with `true` that no `init` or `next`
    /// rule makes (both always false, so probably misspelt).
    fn names(&mut self, rules_of: &[Vec<u32>]) {
        let first_arity = self.relation_arities();
        self.undefined_relations(rules_of);
        self.unmade_fluents();
        self.function_names(&first_arity);
    }

    /// Reports the relations used with two arities; returns the first relation of each name
    /// (keywords and relations without a source location aside).
    fn relation_arities(&mut self) -> FxHashMap<Sym, RelId> {
        let p = self.p;
        let mut first_arity: FxHashMap<Sym, RelId> = FxHashMap::default();
        for rel in p.relations() {
            let name = p.rel_name(rel);
            let Some(span) = p.rel_span(rel) else {
                continue;
            };
            if name.is_keyword() {
                continue;
            }
            match first_arity.get(&name) {
                None => {
                    first_arity.insert(name, rel);
                }
                Some(&other) => {
                    let (a, b) = (p.rel_arity(other), p.rel_arity(rel));
                    let mut d = GdlDiagnostic::new(
                        Code::TwoArities,
                        span,
                        format!(
                            "`{}` is used with arities {a} and {b}; they are treated as different symbols",
                            self.name(name)
                        ),
                    )
                    .with_label(format!("{b} argument{}", if b == 1 { "" } else { "s" }));
                    if let Some(s) = p.rel_span(other) {
                        d = d.with_secondary(
                            s,
                            format!("{a} argument{}", if a == 1 { "" } else { "s" }),
                        );
                    }
                    self.sink.push(d);
                }
            }
        }
        first_arity
    }

    /// Reports the relations used in a body that no rule defines, at their first use.
    fn undefined_relations(&mut self, rules_of: &[Vec<u32>]) {
        let p = self.p;
        let mut reported = vec![false; p.relation_count()];
        for lit in p.rules().iter().flat_map(|r| &r.body) {
            let Some(a) = lit.atom() else {
                continue;
            };
            let name = p.rel_name(a.rel);
            if name.is_keyword()
                || !rules_of[a.rel.index()].is_empty()
                || std::mem::replace(&mut reported[a.rel.index()], true)
            {
                continue;
            }
            let shown = self.name(name).to_owned();
            self.sink.push(
                GdlDiagnostic::new(
                    Code::Undefined,
                    a.span,
                    format!("`{shown}` is never defined; it is always false"),
                )
                .with_help(format!(
                    "no rule or fact has `{}` as its head",
                    p.display_rel(a.rel)
                )),
            );
        }
    }

    /// Reports the fluents tested with `true` that no `init` or `next` head can produce
    /// (issue 22: `(true (cel …))` for `cell` was silently always false). A head whose fluent
    /// is a variable may produce anything; then nothing is reported.
    fn unmade_fluents(&mut self) {
        let p = self.p;
        let mut made: FxHashSet<(Sym, usize)> = FxHashSet::default();
        let mut anything = false;
        for rule in p.rules() {
            if rule.head.rel != RelId::INIT && rule.head.rel != RelId::NEXT {
                continue;
            }
            match p.args(rule.head.args).first().map(|&t| p.term(t)) {
                Some(Term::Var(_)) => anything = true,
                Some(Term::Const(c)) => {
                    made.insert((c, 0));
                }
                Some(Term::Fn(f, args)) => {
                    made.insert((f, args.len()));
                }
                None => {}
            }
        }
        let mut reported_fluent = FxHashSet::default();
        for lit in p.rules().iter().flat_map(|r| &r.body) {
            let Some(a) = lit.atom().filter(|a| a.rel == RelId::TRUE && !anything) else {
                continue;
            };
            let key = match p.args(a.args).first().map(|&t| p.term(t)) {
                Some(Term::Const(c)) => (c, 0),
                Some(Term::Fn(f, args)) => (f, args.len()),
                _ => continue,
            };
            if made.contains(&key) || !reported_fluent.insert(key) {
                continue;
            }
            let shown = self.name(key.0).to_owned();
            let form = if key.1 == 0 {
                shown.clone()
            } else {
                format!("({shown} …)")
            };
            self.sink.push(
                GdlDiagnostic::new(
                    Code::Undefined,
                    a.span,
                    format!(
                        "`(true {form})` is always false: no `init` or `next` rule makes a `{shown}` fluent"
                    ),
                )
                .with_help(format!(
                    "no `init` or `next` head has `{shown}` with {} argument{} as its fluent; is the name misspelt?",
                    key.1,
                    if key.1 == 1 { "" } else { "s" }
                )),
            );
        }
    }

    /// Reports the functions used with two arities, and the names used both as a relation
    /// (`first_arity`: the first relation of each name) and inside terms.
    fn function_names(&mut self, first_arity: &FxHashMap<Sym, RelId>) {
        let p = self.p;
        let mut functions: FxHashMap<Sym, (usize, Span)> = FxHashMap::default();
        let mut order: Vec<(Sym, usize, Span)> = Vec::new();
        for rule in p.rules() {
            let atoms =
                std::iter::once(&rule.head).chain(rule.body.iter().filter_map(Literal::atom));
            let mut terms: Vec<TermId> =
                atoms.flat_map(|a| p.args(a.args).iter().copied()).collect();
            for lit in &rule.body {
                if let Literal::Distinct { left, right, .. } = *lit {
                    terms.extend([left, right]);
                }
            }
            while let Some(t) = terms.pop() {
                if let Term::Fn(f, args) = p.term(t) {
                    order.push((f, args.len(), p.term_span(t)));
                    terms.extend(p.args(args).iter().rev());
                }
            }
        }
        order.sort_by_key(|&(_, _, s)| (s.start, s.end));
        let mut reported_arity = FxHashSet::default();
        let mut reported_relation = FxHashSet::default();
        for (f, arity, span) in order {
            if f.is_keyword() {
                continue;
            }
            match functions.get(&f) {
                None => {
                    functions.insert(f, (arity, span));
                }
                Some(&(a, first)) if a != arity && reported_arity.insert(f) => {
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::TwoArities,
                            span,
                            format!(
                                "function `{}` is used with arities {a} and {arity}; they are treated as different symbols",
                                self.name(f)
                            ),
                        )
                        .with_label(format!("{arity} argument{}", if arity == 1 { "" } else { "s" }))
                        .with_secondary(first, format!("{a} argument{}", if a == 1 { "" } else { "s" })),
                    );
                }
                Some(_) => {}
            }
            if let Some(&rel) = first_arity.get(&f) {
                if reported_relation.insert(f) {
                    let mut d = GdlDiagnostic::new(
                        Code::RelationAndFunction,
                        span,
                        format!(
                            "`{}` is used both as a relation and inside terms",
                            self.name(f)
                        ),
                    )
                    .with_label("as a function");
                    if let Some(s) = p.rel_span(rel) {
                        d = d.with_secondary(s, "as a relation");
                    }
                    self.sink
                        .push(d.with_help("GDL allows it, but distinct names are clearer"));
                }
            }
        }
    }

    /// Defined relations from which no keyword relation can be reached (they influence nothing).
    fn unused(&mut self, rules_of: &[Vec<u32>], dependencies: &Csr) {
        let p = self.p;
        let n = p.relation_count();
        let mut used = vec![false; n];
        let mut queue: Vec<u32> = p
            .relations()
            .filter(|&r| p.rel_name(r).is_keyword_relation())
            .map(|r| r.0)
            .collect();
        for &r in &queue {
            used[r as usize] = true;
        }
        while let Some(u) = queue.pop() {
            for &w in dependencies.successors(u) {
                if !std::mem::replace(&mut used[w as usize], true) {
                    queue.push(w);
                }
            }
        }
        for rel in p.relations() {
            if used[rel.index()] {
                continue;
            }
            let Some(&first) = rules_of[rel.index()].first() else {
                continue;
            };
            let name = self.rel(rel).to_owned();
            self.sink.push(
                GdlDiagnostic::new(
                    Code::Unused,
                    p.rules()[first as usize].head.span,
                    format!("`{name}` is defined but never used"),
                )
                .with_help("no `legal`, `next`, `terminal`, `goal`, `sees` or `init` rule depends on it; remove it or use it"),
            );
        }
    }

    /// W-VAL-030 for the first negative edge inside a component.
    fn negation_cycle(&mut self, e: &DepEdge, components: &Sccs) {
        let p = self.p;
        let lit = p.rules()[e.rule as usize].body[e.literal as usize].span();
        let comp = &components.components[components.component_of[e.to.index()] as usize];
        let name = self.rel(e.to).to_owned();
        let through = if comp.len() > 1 {
            let others: Vec<String> = comp
                .iter()
                .filter(|&&r| r != e.to.0)
                .map(|&r| format!("`{}`", self.rel(RelId(r))))
                .collect();
            format!(" (through {})", others.join(", "))
        } else {
            String::new()
        };
        self.sink.push(
            GdlDiagnostic::new(
                Code::RelationNegationCycle,
                lit,
                format!(
                    "`{name}` depends negatively on itself at the relation level{through}; checked again after grounding"
                ),
            )
            .with_label("negative literal in the cycle")
            .with_help("this is fine when no ground atom depends negatively on itself"),
        );
    }

    /// Keyword relations that must not depend on `true` / `does`: `init`, `base` and `input`
    /// depend on neither (they describe no particular state), `legal`, `goal` and `terminal`
    /// not on `does` (they are read in a state, before the move).
    fn input_dependence(
        &mut self,
        edges: &[DepEdge],
        from_true: &[Option<Option<usize>>],
        from_does: &[Option<Option<usize>>],
    ) {
        let checks = [
            (RelId::INIT, false, Code::DependsOnState),
            (RelId::BASE, false, Code::DependsOnState),
            (RelId::INPUT, false, Code::DependsOnState),
            (RelId::LEGAL, true, Code::DependsOnDoes),
            (RelId::GOAL, true, Code::DependsOnDoes),
            (RelId::TERMINAL, true, Code::DependsOnDoes),
        ];
        for (rel, only_does, code) in checks {
            let sources: &[(&[Option<Option<usize>>], &str)] = if only_does {
                &[(from_does, "`does`")]
            } else {
                &[(from_true, "the current state"), (from_does, "the moves")]
            };
            for &(parent, what) in sources {
                let Some(Some(last)) = parent[rel.index()] else {
                    continue;
                };
                // Walk back to the source.
                let mut path = vec![rel];
                let mut at = Some(last);
                while let Some(i) = at {
                    let e = edges[i];
                    path.push(e.from);
                    at = parent[e.from.index()].flatten();
                }
                path.reverse();
                let shown: Vec<&str> = path.iter().map(|&r| self.rel(r)).collect();
                let kw = self.rel(rel).to_owned();
                let e = edges[last];
                let lit = self.p.rules()[e.rule as usize].body[e.literal as usize].span();
                let message = if only_does {
                    format!(
                        "`{kw}` must not depend on `does`: via {}",
                        shown.join(" → ")
                    )
                } else {
                    format!(
                        "`{kw}` must not depend on {what}: via {}",
                        shown.join(" → ")
                    )
                };
                self.sink.push(
                    GdlDiagnostic::new(code, lit, message)
                        .with_label(format!("`{kw}` depends on `{}` here", self.rel(e.from)))
                        .with_help(if only_does {
                            "legal moves, goals and termination are properties of a state; only `next` and `sees` may depend on the moves"
                        } else {
                            "the initial state and the `base`/`input` declarations must be the same in every play"
                        }),
                );
            }
        }
    }

    /// The recursion restriction, which keeps recursion from building ever larger terms: in a
    /// positive literal over a relation of the head's component, each argument is ground,
    /// equal to an argument of the head, or an argument of a positive literal over a relation
    /// outside the component.
    fn recursion_restriction(&mut self, rule: &Rule, components: &Sccs) {
        let p = self.p;
        let comp = components.component_of[rule.head.rel.index()];
        let in_comp = |a: &Atom| components.component_of[a.rel.index()] == comp;
        let head_args = p.args(rule.head.args);
        for lit in &rule.body {
            let Literal::Pos(a) = lit else {
                continue;
            };
            if !in_comp(a) {
                continue;
            }
            for &v in p.args(a.args) {
                let ok = p.is_ground(v)
                    || head_args.iter().any(|&h| p.term_eq(v, h))
                    || rule.body.iter().any(|other| match other {
                        Literal::Pos(r) if !in_comp(r) => {
                            p.args(r.args).iter().any(|&x| p.occurs_in(v, x))
                        }
                        _ => false,
                    });
                if !ok {
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::RecursionRestriction,
                            p.term_span(v),
                            format!(
                                "the term `{}` in this recursive literal is neither ground, nor a head argument, nor bound by a non-recursive positive literal",
                                p.display_term(rule, v)
                            ),
                        )
                        .with_secondary(
                            a.span,
                            if a.rel == rule.head.rel {
                                format!("`{}` is defined recursively", self.rel(a.rel))
                            } else {
                                format!("`{}` is in a cycle with `{}`", self.rel(a.rel), self.rel(rule.head.rel))
                            },
                        )
                        .with_help("bind it with a positive literal over a relation outside the cycle (e.g. a `succ` table), or pass a head argument unchanged"),
                    );
                }
            }
        }
    }

    /// The chance player `random`: a warning when it has goal rules (they are ignored), or
    /// when a game without `sees` rules declares it.
    fn random_role(&mut self, roles: &[Role], random: Option<usize>, rules_of: &[Vec<u32>]) {
        let Some(i) = random else {
            return;
        };
        let p = self.p;
        if rules_of[RelId::SEES.index()].is_empty() {
            self.sink.push(
                GdlDiagnostic::new(
                    Code::RandomRole,
                    roles[i].span,
                    "`random` is the chance player, but the game has no `sees` rules",
                )
                .with_help("rgt reads the game as GDL-II: `random` chooses its legal moves uniformly at random and has no goals"),
            );
        }
        let goal = rules_of[RelId::GOAL.index()].iter().find(|&&r| {
            let head = &p.rules()[r as usize].head;
            matches!(p.term(p.args(head.args)[0]), Term::Const(s) if s == Sym::RANDOM)
        });
        if let Some(&r) = goal {
            self.sink.push(
                GdlDiagnostic::new(
                    Code::RandomRole,
                    p.rules()[r as usize].head.span,
                    "`random` is the chance player; its goals are ignored",
                )
                .with_help("remove the goal rules of `random`"),
            );
        }
    }
}

/// The shape of a keyword sentence, for help lines.
fn keyword_shape(kw: Sym) -> &'static str {
    match kw {
        Sym::ROLE => "write `(role name)`",
        Sym::INIT => "write `(init fluent)`",
        Sym::TRUE => "write `(true fluent)`",
        Sym::NEXT => "write `(next fluent)`",
        Sym::LEGAL => "write `(legal role move)`",
        Sym::DOES => "write `(does role move)`",
        Sym::GOAL => "write `(goal role value)`",
        Sym::TERMINAL => "write `terminal` without arguments",
        Sym::BASE => "write `(base fluent)`",
        Sym::INPUT => "write `(input role move)`",
        _ => "write `(sees role percept)`",
    }
}

/// Per relation and argument, whether every GGP-Base query of the relation binds the argument
/// to a ground term before the rule's body runs (`--lenient`): the game asks `legal`, `goal`
/// and `sees` role by role and every other keyword relation with open arguments; a body
/// literal asks with the variables the literals before it bound (left to right, as GGP-Base's
/// prover does), plus those its own rule's query bound. A call argument counts only when it is
/// a bound variable or a ground term. A relation no body reads has every argument bound
/// (nothing asks about it).
pub fn asked_bound(p: &Program) -> Vec<Vec<bool>> {
    let mut asked: Vec<Vec<bool>> = p
        .relations()
        .map(|r| {
            let n = p.rel_arity(r);
            if !r.is_keyword() {
                vec![true; n]
            } else if [RelId::LEGAL, RelId::GOAL, RelId::SEES].contains(&r) {
                (0..n).map(|k| k == 0).collect()
            } else {
                vec![false; n]
            }
        })
        .collect();
    // Monotone: every round clears at least one flag, or stops.
    loop {
        let mut changed = false;
        for rule in p.rules() {
            let mut bound = start_bound(p, rule, &asked[rule.head.rel.index()]);
            for lit in &rule.body {
                let Some(a) = lit.atom() else { continue };
                for (k, &t) in p.args(a.args).iter().enumerate() {
                    let simple = matches!(p.term(t), Term::Var(_)) || p.is_ground(t);
                    let mut all = true;
                    p.for_each_var(t, &mut |v, _| all &= bound[v.index()]);
                    if !(simple && all) && asked[a.rel.index()][k] {
                        asked[a.rel.index()][k] = false;
                        changed = true;
                    }
                }
                if let Literal::Pos(a) = lit {
                    for &t in p.args(a.args) {
                        p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
                    }
                }
            }
        }
        if !changed {
            return asked;
        }
    }
}

/// The variables of a rule every query binds before its body runs, given [`asked_bound`] of its
/// head relation.
pub fn start_bound(p: &Program, rule: &Rule, asked: &[bool]) -> Vec<bool> {
    let mut bound = vec![false; rule.vars.len()];
    for (k, &t) in p.args(rule.head.args).iter().enumerate() {
        if asked.get(k).copied().unwrap_or(false) {
            p.for_each_var(t, &mut |v, _| bound[v.index()] = true);
        }
    }
    bound
}

/// Whether a positive literal before `lit` in the body binds `v`.
fn positive_before(p: &Program, rule: &Rule, lit: &Literal, v: VarId) -> bool {
    let mut found = false;
    for l in &rule.body {
        if std::ptr::eq(l, lit) {
            break;
        }
        if let Literal::Pos(a) = l {
            for &t in p.args(a.args) {
                p.for_each_var(t, &mut |w, _| found |= w == v);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::{Dependency, ParseOptions, RelId, load};
    use rg_core::FileId;

    const GAME: &str = "
        (role white) (role black)
        (succ 1 2) (succ 2 3)
        (<= (less ?x ?y) (succ ?x ?y))
        (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
        (init (count 1))
        (<= (legal white (inc ?n)) (true (count ?n)) (succ ?n ?m))
        (<= (legal black noop) (true (count ?n)))
        (<= moved (does white (inc ?n)))
        (<= (next (count ?m)) (true (count ?n)) (succ ?n ?m) moved)
        (<= big (true (count ?n)) (less 1 ?n))
        (<= small (not big))
        (<= terminal big)
        (<= (goal white 100) big)
        (<= (goal black 0) small)";

    #[test]
    fn a_fluent_no_rule_makes_is_reported_where_it_is_tested() {
        let text = "(role r) (init (cell 1 b)) (<= (legal r (mark 1)) (true (cel 1 b)))
            (legal r noop) (<= (next (cell 1 x)) (does r (mark 1)))
            (<= terminal (true (cell 1 x))) (goal r 100)";
        let l = load(FileId(0), text, &ParseOptions::default()).expect("valid");
        let messages: Vec<String> = l.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            ["`(true (cel …))` is always false: no `init` or `next` rule makes a `cel` fluent"]
        );
        // A `next` whose fluent is a variable can make anything.
        let text = "(role r) (init (cell 1 b)) (<= (legal r noop) (true (cel 1 b)))
            (<= (next ?f) (true ?f)) (<= terminal (true (cell 1 x))) (goal r 100)";
        let l = load(FileId(0), text, &ParseOptions::default()).expect("valid");
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    }

    #[test]
    fn analysis_classifies_orders_and_stratifies_relations() {
        let l = load(FileId(0), GAME, &ParseOptions::default()).expect("valid");
        let p = &l.program;
        let a = &l.analysis;
        let rel = |name: &str, arity| {
            p.find_relation(p.symbols().get(name).expect(name), arity)
                .expect(name)
        };
        let names: Vec<&str> = a.roles.iter().map(|r| p.name(r.name)).collect();
        assert_eq!(names, ["white", "black"]);
        assert_eq!(a.random, None);
        assert_eq!(a.dependency_of(rel("less", 2)), Dependency::Static);
        assert_eq!(a.dependency_of(rel("big", 0)), Dependency::State);
        assert_eq!(a.dependency_of(rel("moved", 0)), Dependency::Move);
        assert_eq!(a.dependency_of(RelId::NEXT), Dependency::Move);
        assert_eq!(a.dependency_of(RelId::LEGAL), Dependency::State);
        assert!(a.is_static(RelId::ROLE));
        assert!(a.is_recursive(rel("less", 2)));
        assert!(!a.is_recursive(rel("big", 0)));
        assert!(a.stratified);
        assert_eq!(a.stratum(rel("big", 0)), 0);
        assert_eq!(a.stratum(rel("small", 0)), 1);
        assert_eq!(a.stratum(RelId::GOAL), 1);
        // Dependencies come before their dependents.
        for e in &a.edges {
            assert!(a.component(e.from) <= a.component(e.to));
        }
        assert_eq!(a.rules_of(rel("less", 2)).len(), 2);
        assert!(
            a.dependencies
                .successors(rel("small", 0).0)
                .contains(&rel("big", 0).0)
        );
    }

    #[test]
    fn a_negative_cycle_is_a_warning_and_unstratified() {
        let text = format!("{GAME} (<= (goal white 0) (not (goal white 100)))");
        let l = load(FileId(0), &text, &ParseOptions::default()).expect("only a warning");
        assert!(!l.analysis.stratified);
        assert!(
            l.warnings
                .iter()
                .any(|w| w.code == crate::Code::RelationNegationCycle)
        );
    }
}
