//! Lowering of lifted relations (issue 24; the grounder leaves them ungrounded, see
//! [`crate::ground::lift`]).
//!
//! A lifted relation `L` of arity k gets *registers* `lf_<L>_0 … lf_<L>_<k-1>` and a
//! sub-automaton `lf_<L>_in → lf_<L>_out` with one path per rule. A call `L(t1 … tk)` whose
//! arguments are bound assigns the registers and checks `? lf_<L>_in -> lf_<L>_out` (`!` when
//! negated); a call atom of the ground program does so in its own small sub-automaton. Inside,
//! the variables of a rule are RG variables bound at run time:
//!
//! * a literal over a grounded relation is a *trie* over the atoms it can match: comparisons of
//!   its bound variables with each atom's arguments, the atom's own condition (a fluent, a
//!   move, a derived atom's check; nothing for a static fact), then assignments of the
//!   variables it binds;
//! * a literal over a lifted relation is a call when its arguments are bound, and is *inlined*
//!   otherwise (each rule unfolded on its own path, binding the caller's variables);
//! * a literal over a linearly self-recursive lifted relation (a counter walking a board with
//!   accumulators) is a *loop* in place ([`Lowerer::loop_call`]): registers of its own for the
//!   bound arguments, each rule tried from the loop's head, the recursive rule going round
//!   again with the recursive literal's arguments, the others binding the outputs;
//! * negative literals are checks of sub-automata (`!`), `distinct` is `!=` (or a check when a
//!   side is a compound term).
//!
//! Every assignment happens inside a reachability check (the checks of derived atoms, call
//! atoms and negations), so none of these variables changes from one game state to the next:
//! they keep their initial values between moves, and each is declared with the set of values
//! it is assigned or compared with.
//!
//! Bounded recursion: the sub-automata of lifted relations are built from a work list
//! ([`Lowerer::build_lifted`]), not by recursing from a call into the callee, so a long chain
//! of lifted relations costs no stack. What remains recursive is bounded:
//!
//! * unfolding inlined calls (`body` → `literal` → `inline_call` → `body`) by
//!   [`MAX_INLINE_DEPTH`]: a call with unbound arguments deeper than that is error E-LOW-061;
//! * the walks over rule patterns ([`Pat`]: `shape_matches`, `unify`, `Env::resolve`) by the
//!   reader's nesting limit [`MAX_DEPTH`] (a rule's terms are nested less deeply than its
//!   lists);
//! * the walks over resolved patterns ([`RPat`]: `is_bound`, `eq_paths`, `match_free`,
//!   `rpat_depth` is iterative) by 2 × [`MAX_DEPTH`]: a rule pattern (≤ [`MAX_DEPTH`]) with its
//!   variables replaced by the caller's compound patterns, each at most [`MAX_DEPTH`] deep
//!   ([`Lowerer::unify`] reports E-LOW-061 instead of binding a deeper one), while walks that
//!   also follow a ground term stop at the term's depth.

use super::Lowerer;
use crate::error::{Code, GdlDiagnostic};
use crate::ground::rules::{IRule, Lit, LitKind, Mode, Pat};
use crate::ground::terms::GTerm;
use crate::ground::{Atom, Grounding, Lit as GroundLit};
use crate::names::{Namer, mangle_into};
use crate::propnet::{Cond, Kind};
use crate::reader::MAX_DEPTH;
use rg_core::{ExprId, Label, NodeId, Symbol};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The atoms a lifted relation may read at run time: those of grounded relations matching a
/// literal of its rules or of the lifted relations they call (static facts excluded).
#[derive(Debug, Default)]
pub(crate) struct Touched {
    memo: HashMap<u32, Vec<Atom>>,
}

impl Touched {
    /// The atoms lifted relation `rel` may read (sorted, without duplicates).
    pub(crate) fn atoms(&mut self, g: &Grounding, rel: u32) -> &[Atom] {
        self.memo.entry(rel).or_insert_with(|| touched_by(g, rel))
    }
}

/// The atoms lifted relation `rel` may read (see [`Touched::atoms`]).
fn touched_by(g: &Grounding, rel: u32) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    let mut seen: HashSet<u32> = HashSet::new();
    let mut stack = vec![rel];
    seen.insert(rel);
    while let Some(r) = stack.pop() {
        for rule in g.rules.iter().filter(|x| x.rel == r) {
            for l in &rule.body {
                if l.kind == LitKind::Distinct {
                    continue;
                }
                match g.rels[l.rel as usize].mode {
                    Mode::Exact => {}
                    Mode::Lifted => {
                        if seen.insert(l.rel) {
                            stack.push(l.rel);
                        }
                    }
                    Mode::Relaxed => {
                        let t = &g.tables[l.rel as usize];
                        for row in 0..t.len() {
                            if shape_matches(g, &l.args, t.row(row)) {
                                out.push(t.atom(row));
                            }
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a row can match patterns, looking at constants and functors only.
fn shape_matches(g: &Grounding, pats: &[Pat], row: &[GTerm]) -> bool {
    fn one(g: &Grounding, p: &Pat, t: GTerm) -> bool {
        match p {
            Pat::Var(_) => true,
            Pat::Ground(x) => *x == t,
            Pat::Fn(f, args) => {
                let tup = g.store.tuple(t);
                tup[0] == *f
                    && tup.len() == args.len() + 1
                    && args.iter().zip(&tup[1..]).all(|(a, &s)| one(g, a, s))
            }
        }
    }
    pats.iter().zip(row).all(|(p, &t)| one(g, p, t))
}

/// What a rule variable stands for at a point of a lifted body.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bind {
    /// Not bound yet.
    Free,
    /// Not bound yet; the value goes into this RG variable (a caller's, when inlining).
    Into(Symbol),
    /// A term known at translation time.
    Const(GTerm),
    /// The value of an RG variable.
    Var(Symbol),
    /// A compound term of bound parts.
    Pat(RPat),
}

/// A pattern with the rule's variables resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RPat {
    Ground(GTerm),
    /// An RG variable holding a term.
    Var(Symbol),
    /// A variable of the rule not bound yet (its number).
    Free(u16),
    Fn(u32, Vec<RPat>),
}

impl RPat {
    /// Nesting depth (0 for a leaf), computed without recursion.
    fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(&RPat, usize)> = vec![(self, 0)];
        while let Some((p, d)) = stack.pop() {
            deepest = deepest.max(d);
            if let RPat::Fn(_, args) = p {
                stack.extend(args.iter().map(|a| (a, d + 1)));
            }
        }
        deepest
    }

    fn is_bound(&self) -> bool {
        match self {
            RPat::Ground(_) | RPat::Var(_) => true,
            RPat::Free(_) => false,
            RPat::Fn(_, a) => a.iter().all(RPat::is_bound),
        }
    }
}

/// The variables of one rule being lowered.
#[derive(Clone, Debug)]
struct Env {
    /// The relation and rule number (for variable names).
    rel: u32,
    rule: usize,
    binds: Vec<Bind>,
}

impl Env {
    fn new(rel: u32, rule: usize, nvars: usize) -> Self {
        Env {
            rel,
            rule,
            binds: vec![Bind::Free; nvars],
        }
    }

    fn resolve(&self, p: &Pat) -> RPat {
        match p {
            Pat::Ground(g) => RPat::Ground(*g),
            Pat::Var(v) => match &self.binds[*v as usize] {
                Bind::Free | Bind::Into(_) => RPat::Free(*v),
                Bind::Const(g) => RPat::Ground(*g),
                Bind::Var(s) => RPat::Var(*s),
                Bind::Pat(p) => p.clone(),
            },
            Pat::Fn(f, args) => RPat::Fn(*f, args.iter().map(|a| self.resolve(a)).collect()),
        }
    }

    fn bound(&self) -> Vec<bool> {
        self.binds
            .iter()
            .map(|b| !matches!(b, Bind::Free | Bind::Into(_)))
            .collect()
    }
}

/// A binding of a free variable made by matching a pattern against a term.
type Binding = (u16, GTerm);

/// A term of a shape being destructured: the term, the comparisons it needs, the bindings it
/// makes.
type ShapeRow = (GTerm, Vec<(Symbol, GTerm)>, Vec<Binding>);

/// The state of the lifted lowering.
#[derive(Debug, Default)]
pub(super) struct LiftedState {
    /// Per lifted relation: its sub-automaton.
    subs: HashMap<u32, (NodeId, NodeId)>,
    /// Per call atom: its sub-automaton.
    calls: HashMap<Atom, (NodeId, NodeId)>,
    /// Per ground term: its RG value symbol.
    value_sym: HashMap<GTerm, Symbol>,
    namer: Namer,
    /// Per lifted RG variable (in creation order): the values it is assigned or compared with.
    vars: Vec<(Symbol, Vec<GTerm>)>,
    var_index: HashMap<Symbol, usize>,
    /// Copies `a = b` between lifted variables (a's values include b's).
    copies: Vec<(Symbol, Symbol)>,
    /// Counter for node names.
    nodes: u64,
    /// Per (functor, arity): the ground terms of that shape.
    shapes: HashMap<(u32, usize), Vec<GTerm>>,
    pub(super) touched: Touched,
    /// Lifted relations whose sub-automaton is asked for, in order; those before `built`
    /// have their rules emitted.
    pending: Vec<u32>,
    built: usize,
    /// Relations a lowering limit (E-LOW-061) was reported for.
    limit_reported: BTreeSet<u32>,
    /// Per lifted relation asked about: whether one of its rules reads it (linear
    /// self-recursion, lowered as a loop by [`Lowerer::loop_call`]).
    recursive: HashMap<u32, bool>,
    /// Loops made so far (for register names).
    loops: u64,
}

/// Deepest nesting of inlined calls (a recursion is a loop, not nested inlining, so this is at
/// most the depth of the lifted part of the relation graph; a call with bound arguments is made
/// through registers at any depth, one with unbound arguments beyond it is error E-LOW-061).
const MAX_INLINE_DEPTH: u32 = 24;

impl Lowerer<'_> {
    /// The label of a literal over a call atom.
    pub(super) fn call_label(&mut self, atom: Atom, negated: bool) -> Label {
        let (i, o) = match self.lf.calls.get(&atom) {
            Some(&x) => x,
            None => {
                let name = self.atom_name(atom);
                let i = self.fresh(&format!("lc_{name}_in"));
                let o = self.fresh(&format!("lc_{name}_out"));
                self.lf.calls.insert(atom, (i, o));
                let g = self.g;
                let rel = g.atom_rel(atom);
                let args: Vec<RPat> = g.atom_args(atom).iter().map(|&t| RPat::Ground(t)).collect();
                if self.is_recursive(rel) {
                    let outputs = vec![None; args.len()];
                    let inputs = args.into_iter().map(Some).collect::<Vec<_>>();
                    self.loop_call(i, o, rel, &inputs, &outputs, 0);
                } else {
                    self.register_call(i, o, rel, &args, false);
                }
                (i, o)
            }
        };
        Label::Reach {
            from: i,
            to: o,
            negated,
        }
    }

    /// A new node for lifted code.
    fn lf_node(&mut self) -> NodeId {
        self.lf.nodes += 1;
        let n = self.lf.nodes;
        self.fresh(&format!("lf_n{n}"))
    }

    /// The RG value symbol of a ground term.
    fn value(&mut self, t: GTerm) -> Symbol {
        if let Some(&s) = self.lf.value_sym.get(&t) {
            return s;
        }
        let natural = self.term_name(t);
        let (names, collisions) = self.lf.namer.assign(std::slice::from_ref(&natural), true);
        if !collisions.is_empty() {
            let other = self
                .lf
                .value_sym
                .iter()
                .filter(|(_, s)| {
                    self.game.name(**s) == natural || format!("v_{natural}") == self.game.name(**s)
                })
                .map(|(&x, _)| x)
                .min();
            if let Some(o) = other {
                let g = self.g;
                let msg = format!(
                    "`{}` and `{}` both flatten to `{natural}`; using `{}` for the second",
                    g.display_term(self.p, o),
                    g.display_term(self.p, t),
                    names[0]
                );
                self.warn_collision(msg);
            }
        }
        let s = self.game.sym(&names[0]);
        self.lf.value_sym.insert(t, s);
        s
    }

    fn value_expr(&mut self, t: GTerm) -> ExprId {
        let s = self.value(t);
        self.game.expr_ref(s)
    }

    /// Records that RG variable `v` is lifted and may hold or be compared with `t`.
    fn note(&mut self, v: Symbol, t: Option<GTerm>) {
        let i = match self.lf.var_index.get(&v) {
            Some(&i) => i,
            None => {
                self.lf.vars.push((v, Vec::new()));
                self.lf.var_index.insert(v, self.lf.vars.len() - 1);
                self.lf.vars.len() - 1
            }
        };
        if let Some(t) = t {
            let vals = &mut self.lf.vars[i].1;
            if !vals.contains(&t) {
                vals.push(t);
            }
        }
    }

    /// The register of position `i` of lifted relation `rel`.
    fn register(&mut self, rel: u32, i: usize) -> Symbol {
        let name = format!("lf_{}_{i}", self.rel_name(rel));
        let s = self.game.sym(&name);
        self.note(s, None);
        s
    }

    /// The RG variable of variable `v` of a lifted rule.
    fn rule_var(&mut self, env: &Env, v: u16) -> Symbol {
        let name = format!("lf_{}_r{}_v{v}", self.rel_name(env.rel), env.rule);
        let s = self.game.sym(&name);
        self.note(s, None);
        s
    }

    /// The mangled name of a grounder relation.
    fn rel_name(&self, rel: u32) -> String {
        let g = self.g;
        match g.rels[rel as usize].source {
            Some(s) => {
                let mut n = String::new();
                mangle_into(self.p.name(self.p.rel_name(s)), &mut n);
                n
            }
            None => format!("aux{rel}"),
        }
    }

    /// Ground terms of shape `(f …)` with `n` arguments (all that exist).
    fn terms_of_shape(&mut self, f: u32, n: usize) -> Vec<GTerm> {
        if let Some(v) = self.lf.shapes.get(&(f, n)) {
            return v.clone();
        }
        // Fill every shape at once: one pass over the store.
        if self.lf.shapes.is_empty() {
            let store = &self.g.store;
            let mut all: HashMap<(u32, usize), Vec<GTerm>> = HashMap::new();
            for t in 0..store.term_count() as GTerm {
                let tup = store.tuple(t);
                if tup.len() > 1 {
                    all.entry((tup[0], tup.len() - 1)).or_default().push(t);
                }
            }
            // A marker so the store is scanned once.
            all.entry((u32::MAX, 0)).or_default();
            self.lf.shapes = all;
        }
        self.lf.shapes.get(&(f, n)).cloned().unwrap_or_default()
    }

    /// `from → to` through the call `rel(args)` with bound arguments: registers assigned, then
    /// the relation's check (negated when asked). Arguments must be ground terms or variables.
    fn register_call(&mut self, from: NodeId, to: NodeId, rel: u32, args: &[RPat], negated: bool) {
        let mut at = from;
        for (i, a) in args.iter().enumerate() {
            let reg = self.register(rel, i);
            let lhs = self.game.expr_ref(reg);
            let rhs = match a {
                RPat::Ground(t) => {
                    self.note(reg, Some(*t));
                    self.value_expr(*t)
                }
                RPat::Var(s) => {
                    self.lf.copies.push((reg, *s));
                    self.game.expr_ref(*s)
                }
                _ => unreachable!("register calls take ground terms and variables"),
            };
            let nx = self.lf_node();
            self.edge(at, nx, Label::Assign { lhs, rhs }, None);
            at = nx;
        }
        let (i, o) = self.lifted_sub(rel);
        self.edge(
            at,
            to,
            Label::Reach {
                from: i,
                to: o,
                negated,
            },
            None,
        );
    }

    /// The sub-automaton of a lifted relation: its rules with the head read from the registers.
    /// Only its ends are made here; [`Self::build_lifted`] emits the rules later, so that a
    /// chain of calls does not recurse.
    fn lifted_sub(&mut self, rel: u32) -> (NodeId, NodeId) {
        if let Some(&x) = self.lf.subs.get(&rel) {
            return x;
        }
        let name = self.rel_name(rel);
        let i = self.fresh(&format!("lf_{name}_in"));
        let o = self.fresh(&format!("lf_{name}_out"));
        self.lf.subs.insert(rel, (i, o));
        self.lf.pending.push(rel);
        (i, o)
    }

    /// Emits the rules of every lifted sub-automaton asked for, including those asked for
    /// while emitting (a work list: no recursion from caller to callee).
    pub(super) fn build_lifted(&mut self) {
        while let Some(&rel) = self.lf.pending.get(self.lf.built) {
            self.lf.built += 1;
            let (i, o) = self.lf.subs[&rel];
            self.lifted_rules(rel, i, o);
        }
    }

    /// The rules of lifted relation `rel` from `i` to `o`, the head read from the registers.
    fn lifted_rules(&mut self, rel: u32, i: NodeId, o: NodeId) {
        let g = self.g;
        let rules: Vec<(usize, &IRule)> = g
            .rules
            .iter()
            .filter(|r| r.rel == rel)
            .enumerate()
            .collect();
        let arity = g.rels[rel as usize].arity;
        let regs: Vec<RPat> = (0..arity)
            .map(|k| RPat::Var(self.register(rel, k)))
            .collect();
        for (k, rule) in rules {
            let mut env = Env::new(rel, k, rule.nvars);
            let start = self.lf_node();
            self.edge(i, start, Label::Skip, None);
            if let Some(at) = self.unify_head(start, rule, &regs, &mut env) {
                self.body(at, o, rule, &mut env, Vec::new(), 0);
            }
        }
    }

    /// Reports a limit of the lifted lowering met in relation `rel` (E-LOW-061, once per
    /// relation).
    fn lifting_limit(&mut self, rel: u32, what: String) {
        if !self.lf.limit_reported.insert(rel) {
            return;
        }
        let name = self.rel_name(rel);
        let span = self.g.rels[rel as usize]
            .source
            .and_then(|s| self.p.rel_span(s))
            .or_else(|| self.p.rules().first().map(|r| r.span));
        let msg = format!("cannot lower lifted relation `{name}`: {what}");
        let d = match span {
            Some(s) => GdlDiagnostic::new(Code::LiftingLimit, s, msg),
            None => GdlDiagnostic::global(Code::LiftingLimit, msg),
        };
        self.warnings.push(d.with_help(
            "grounding left these relations to be evaluated at run time (lifted), and they \
             call each other too deeply for the lowering; shorten the chain of relations",
        ));
    }

    /// Unifies a rule's head with the caller's arguments; emits the tests it needs from `from`
    /// and returns the node after them (`None` when they can never hold).
    fn unify_head(
        &mut self,
        from: NodeId,
        rule: &IRule,
        args: &[RPat],
        env: &mut Env,
    ) -> Option<NodeId> {
        let mut at = from;
        for (h, a) in rule.head.iter().zip(args) {
            at = self.unify(at, h, a, env)?;
        }
        Some(at)
    }

    /// Unifies callee pattern `h` (over `env`) with caller pattern `a` (bound parts, or
    /// `Free` caller variables already turned into `Var` targets by the caller: see
    /// [`Self::inline_call`]).
    fn unify(&mut self, from: NodeId, h: &Pat, a: &RPat, env: &mut Env) -> Option<NodeId> {
        match (h, a) {
            (Pat::Var(v), _) => {
                let v = *v as usize;
                match env.binds[v].clone() {
                    Bind::Free => {
                        if matches!(a, RPat::Fn(..)) && a.depth() > MAX_DEPTH {
                            // Keeps every resolved pattern within 2 × MAX_DEPTH (see the
                            // module documentation).
                            self.lifting_limit(
                                env.rel,
                                format!(
                                    "a term built through inlined calls is nested more than \
                                     {MAX_DEPTH} levels deep"
                                ),
                            );
                            return None;
                        }
                        env.binds[v] = match a {
                            RPat::Ground(t) => Bind::Const(*t),
                            RPat::Var(s) => Bind::Var(*s),
                            RPat::Fn(..) => Bind::Pat(a.clone()),
                            RPat::Free(_) => unreachable!("caller outputs are targets"),
                        };
                        Some(from)
                    }
                    Bind::Into(target) => {
                        // Already an output: it equals `a`.
                        let to = self.lf_node();
                        self.assign_pat(from, to, target, a)?;
                        env.binds[v] = Bind::Var(target);
                        Some(to)
                    }
                    _ => {
                        let mine = env.resolve(&Pat::Var(v as u16));
                        let to = self.lf_node();
                        self.eq_paths(from, to, &mine, a);
                        Some(to)
                    }
                }
            }
            (Pat::Ground(t), _) => {
                let to = self.lf_node();
                if !self.eq_paths(from, to, &RPat::Ground(*t), a) {
                    return None;
                }
                Some(to)
            }
            (Pat::Fn(f, hs), RPat::Fn(g, cs)) => {
                if f != g || hs.len() != cs.len() {
                    return None;
                }
                let mut at = from;
                for (x, y) in hs.iter().zip(cs) {
                    at = self.unify(at, x, y, env)?;
                }
                Some(at)
            }
            (Pat::Fn(f, hs), RPat::Ground(t)) => {
                let tup = self.g.store.tuple(*t).to_vec();
                if tup[0] != *f || tup.len() != hs.len() + 1 {
                    return None;
                }
                let mut at = from;
                for (x, &y) in hs.iter().zip(&tup[1..]) {
                    at = self.unify(at, x, &RPat::Ground(y), env)?;
                }
                Some(at)
            }
            (Pat::Fn(f, hs), RPat::Var(s)) => {
                // Destructure the caller's value: one path per term of the shape.
                let to = self.lf_node();
                let pat = Pat::Fn(*f, hs.clone());
                let any = self.destructure(from, to, *s, &pat, env);
                if !any {
                    return None;
                }
                Some(to)
            }
            (Pat::Fn(..), RPat::Free(_)) => unreachable!("caller outputs are targets"),
        }
    }

    /// `from → to` assigning the value of bound pattern `a` to `target` (one path per
    /// possible value when `a` is a compound pattern of variables). Returns `None` when `a`
    /// cannot be built.
    fn assign_pat(&mut self, from: NodeId, to: NodeId, target: Symbol, a: &RPat) -> Option<()> {
        let lhs = self.game.expr_ref(target);
        match a {
            RPat::Ground(t) => {
                self.note(target, Some(*t));
                let rhs = self.value_expr(*t);
                self.edge(from, to, Label::Assign { lhs, rhs }, None);
            }
            RPat::Var(s) => {
                self.lf.copies.push((target, *s));
                let rhs = self.game.expr_ref(*s);
                self.edge(from, to, Label::Assign { lhs, rhs }, None);
            }
            RPat::Fn(f, args) => {
                // Every term of the shape that the parts can form.
                let mut any = false;
                for t in self.terms_of_shape(*f, args.len()) {
                    let sub = self.g.store.tuple(t)[1..].to_vec();
                    let mut tests = Vec::new();
                    if !match_bound(self.g, args, &sub, &mut tests) {
                        continue;
                    }
                    any = true;
                    let mut at = from;
                    for (s, v) in tests {
                        let nx = self.lf_node();
                        let lab = self.cmp_value(s, v, false);
                        self.edge(at, nx, lab, None);
                        at = nx;
                    }
                    self.note(target, Some(t));
                    let rhs = self.value_expr(t);
                    self.edge(at, to, Label::Assign { lhs, rhs }, None);
                }
                if !any {
                    return None;
                }
            }
            RPat::Free(_) => unreachable!("only bound patterns are assigned"),
        }
        Some(())
    }

    /// `v == t` (or `!=`), noting the value.
    fn cmp_value(&mut self, v: Symbol, t: GTerm, negated: bool) -> Label {
        self.note(v, Some(t));
        let lhs = self.game.expr_ref(v);
        let rhs = self.value_expr(t);
        Label::Compare { lhs, rhs, negated }
    }

    /// Paths `from → to` that pass iff bound patterns `a` and `b` are equal; false when they
    /// never are (no path).
    fn eq_paths(&mut self, from: NodeId, to: NodeId, a: &RPat, b: &RPat) -> bool {
        match (a, b) {
            (RPat::Ground(x), RPat::Ground(y)) => {
                if x == y {
                    self.edge(from, to, Label::Skip, None);
                    true
                } else {
                    false
                }
            }
            (RPat::Var(s), RPat::Ground(t)) | (RPat::Ground(t), RPat::Var(s)) => {
                let lab = self.cmp_value(*s, *t, false);
                self.edge(from, to, lab, None);
                true
            }
            (RPat::Var(x), RPat::Var(y)) => {
                self.note(*x, None);
                self.note(*y, None);
                self.lf.copies.push((*x, *y));
                self.lf.copies.push((*y, *x));
                let lhs = self.game.expr_ref(*x);
                let rhs = self.game.expr_ref(*y);
                self.edge(
                    from,
                    to,
                    Label::Compare {
                        lhs,
                        rhs,
                        negated: false,
                    },
                    None,
                );
                true
            }
            (RPat::Fn(f, xs), RPat::Fn(g, ys)) => {
                if f != g || xs.len() != ys.len() {
                    return false;
                }
                let mut at = from;
                for (k, (x, y)) in xs.iter().zip(ys).enumerate() {
                    let nx = if k + 1 == xs.len() {
                        to
                    } else {
                        self.lf_node()
                    };
                    if !self.eq_paths(at, nx, x, y) {
                        return false;
                    }
                    at = nx;
                }
                if xs.is_empty() {
                    self.edge(from, to, Label::Skip, None);
                }
                true
            }
            (RPat::Fn(f, xs), RPat::Ground(t)) | (RPat::Ground(t), RPat::Fn(f, xs)) => {
                let tup = self.g.store.tuple(*t).to_vec();
                if tup[0] != *f || tup.len() != xs.len() + 1 {
                    return false;
                }
                let ys: Vec<RPat> = tup[1..].iter().map(|&s| RPat::Ground(s)).collect();
                self.eq_paths(from, to, &RPat::Fn(*f, xs.clone()), &RPat::Fn(*f, ys))
            }
            (RPat::Fn(f, xs), RPat::Var(s)) | (RPat::Var(s), RPat::Fn(f, xs)) => {
                let mut any = false;
                for t in self.terms_of_shape(*f, xs.len()) {
                    let sub = self.g.store.tuple(t)[1..].to_vec();
                    let mut tests = Vec::new();
                    if !match_bound(self.g, xs, &sub, &mut tests) {
                        continue;
                    }
                    any = true;
                    let mut at = from;
                    tests.insert(0, (*s, t));
                    let n = tests.len();
                    for (k, (v, x)) in tests.into_iter().enumerate() {
                        let nx = if k + 1 == n { to } else { self.lf_node() };
                        let lab = self.cmp_value(v, x, false);
                        self.edge(at, nx, lab, None);
                        at = nx;
                    }
                }
                any
            }
            (RPat::Free(_), _) | (_, RPat::Free(_)) => unreachable!("equality of bound patterns"),
        }
    }

    /// `from → to` binding the variables of pattern `pat` (over `env`) from the value of RG
    /// variable `s`: one path per term of the pattern's shape. False when no term fits.
    fn destructure(
        &mut self,
        from: NodeId,
        to: NodeId,
        s: Symbol,
        pat: &Pat,
        env: &mut Env,
    ) -> bool {
        let Pat::Fn(f, hs) = pat else {
            unreachable!("destructuring a compound pattern")
        };
        let rp = env.resolve(pat);
        let RPat::Fn(_, parts) = &rp else {
            unreachable!("a compound pattern resolves to one")
        };
        let mut rows: Vec<ShapeRow> = Vec::new();
        for t in self.terms_of_shape(*f, hs.len()) {
            let sub = self.g.store.tuple(t)[1..].to_vec();
            let mut tests = Vec::new();
            let mut binds = Vec::new();
            if match_free(self.g, parts, &sub, &mut tests, &mut binds) {
                rows.push((t, tests, binds));
            }
        }
        if rows.is_empty() {
            return false;
        }
        let targets = self.targets(env, rows.iter().flat_map(|r| r.2.iter().map(|b| b.0)));
        for (t, tests, binds) in rows {
            let mut labels = vec![self.cmp_value(s, t, false)];
            for (v, x) in tests {
                labels.push(self.cmp_value(v, x, false));
            }
            for (v, x) in binds {
                let target = targets[&v];
                self.note(target, Some(x));
                let lhs = self.game.expr_ref(target);
                let rhs = self.value_expr(x);
                labels.push(Label::Assign { lhs, rhs });
            }
            self.lf_chain(from, to, labels);
        }
        for (v, target) in targets {
            env.binds[v as usize] = Bind::Var(target);
        }
        true
    }

    /// The caller's variables not bound yet in the arguments `pats` of a call, with the RG
    /// variables the callee binds them into (see [`Self::targets`]).
    fn output_targets(&mut self, env: &Env, pats: &[Pat]) -> BTreeMap<u16, Symbol> {
        let mut outs: Vec<u16> = Vec::new();
        for p in pats {
            p.for_each_var(&mut |v| {
                if matches!(env.binds[v as usize], Bind::Free | Bind::Into(_)) && !outs.contains(&v)
                {
                    outs.push(v);
                }
            });
        }
        self.targets(env, outs.into_iter())
    }

    /// The RG variables the free variables `vs` are bound into.
    fn targets(&mut self, env: &Env, vs: impl Iterator<Item = u16>) -> BTreeMap<u16, Symbol> {
        let mut out = BTreeMap::new();
        let mut order: Vec<u16> = vs.collect();
        order.sort_unstable();
        order.dedup();
        for v in order {
            let s = match env.binds[v as usize] {
                Bind::Into(s) => s,
                Bind::Free => self.rule_var(env, v),
                _ => unreachable!("only free variables are bound"),
            };
            out.insert(v, s);
        }
        out
    }

    /// A chain of labels `from → … → to` (a skip when empty).
    fn lf_chain(&mut self, from: NodeId, to: NodeId, labels: Vec<Label>) {
        if labels.is_empty() {
            self.edge(from, to, Label::Skip, None);
            return;
        }
        let n = labels.len();
        let mut at = from;
        for (k, lab) in labels.into_iter().enumerate() {
            let nx = if k + 1 == n { to } else { self.lf_node() };
            self.edge(at, nx, lab, None);
            at = nx;
        }
    }

    /// The body of `rule` from `from` to `to` (head already unified into `env`), then the
    /// outputs in `post`.
    fn body(
        &mut self,
        from: NodeId,
        to: NodeId,
        rule: &IRule,
        env: &mut Env,
        post: Vec<(Symbol, Pat)>,
        depth: u32,
    ) {
        let order = self.plan(rule, env);
        let mut at = from;
        for i in order {
            let nx = self.lf_node();
            if !self.literal(at, nx, &rule.body[i], env, depth) {
                return;
            }
            at = nx;
        }
        for (target, pat) in post {
            let nx = self.lf_node();
            let rp = env.resolve(&pat);
            if self.assign_pat(at, nx, target, &rp).is_none() {
                return;
            }
            at = nx;
        }
        self.edge(at, to, Label::Skip, None);
    }

    /// An evaluation order for a lifted body given what is bound: filters as soon as their
    /// variables are bound, then fully bound literals, then the generator expected to match
    /// the fewest atoms, calls that bind variables last.
    fn plan(&self, rule: &IRule, env: &Env) -> Vec<usize> {
        let g = self.g;
        let mut bound = env.bound();
        let mut done = vec![false; rule.body.len()];
        let mut order = Vec::with_capacity(rule.body.len());
        let all_bound = |l: &Lit, bound: &[bool]| l.vars().iter().all(|&v| bound[v as usize]);
        while order.len() < rule.body.len() {
            let ready = (0..rule.body.len())
                .filter(|&i| !done[i] && all_bound(&rule.body[i], &bound))
                .min_by_key(|&i| (rule.body[i].kind == LitKind::Pos, i));
            let pick = ready.or_else(|| {
                (0..rule.body.len())
                    .filter(|&i| !done[i] && rule.body[i].kind == LitKind::Pos)
                    .min_by(|&a, &b| {
                        let c = |i: usize| -> f64 {
                            let l = &rule.body[i];
                            if g.rels[l.rel as usize].mode == Mode::Lifted {
                                return f64::MAX;
                            }
                            let t = &g.tables[l.rel as usize];
                            let mut est = f64::from(t.len());
                            for (p, a) in l.args.iter().enumerate() {
                                let mut b = true;
                                a.for_each_var(&mut |v| b &= bound[v as usize]);
                                if b {
                                    est /= t.distinct_in(p).max(1) as f64;
                                }
                            }
                            est
                        };
                        c(a).total_cmp(&c(b)).then(a.cmp(&b))
                    })
            });
            let Some(i) = pick else {
                // Unsafe (validation rejects it): the rest can never be evaluated.
                break;
            };
            done[i] = true;
            order.push(i);
            if rule.body[i].kind == LitKind::Pos {
                for v in rule.body[i].vars() {
                    bound[v as usize] = true;
                }
            }
        }
        order
    }

    /// One literal from `from` to `to`; false when it can never hold (nothing emitted).
    fn literal(&mut self, from: NodeId, to: NodeId, l: &Lit, env: &mut Env, depth: u32) -> bool {
        let g = self.g;
        match l.kind {
            LitKind::Distinct => {
                let a = env.resolve(&l.args[0]);
                let b = env.resolve(&l.args[1]);
                match (&a, &b) {
                    (RPat::Ground(x), RPat::Ground(y)) => {
                        if x == y {
                            return false;
                        }
                        self.edge(from, to, Label::Skip, None);
                    }
                    (RPat::Var(s), RPat::Ground(t)) | (RPat::Ground(t), RPat::Var(s)) => {
                        let lab = self.cmp_value(*s, *t, true);
                        self.edge(from, to, lab, None);
                    }
                    (RPat::Var(x), RPat::Var(y)) => {
                        self.lf.copies.push((*x, *y));
                        self.lf.copies.push((*y, *x));
                        let lhs = self.game.expr_ref(*x);
                        let rhs = self.game.expr_ref(*y);
                        self.edge(
                            from,
                            to,
                            Label::Compare {
                                lhs,
                                rhs,
                                negated: true,
                            },
                            None,
                        );
                    }
                    _ => {
                        let i = self.lf_node();
                        let o = self.lf_node();
                        if self.eq_paths(i, o, &a, &b) {
                            self.edge(
                                from,
                                to,
                                Label::Reach {
                                    from: i,
                                    to: o,
                                    negated: true,
                                },
                                None,
                            );
                        } else {
                            self.edge(from, to, Label::Skip, None);
                        }
                    }
                }
                true
            }
            LitKind::Neg => {
                let args: Vec<RPat> = l.args.iter().map(|a| env.resolve(a)).collect();
                debug_assert!(args.iter().all(RPat::is_bound), "safe negation");
                if g.rels[l.rel as usize].mode == Mode::Lifted
                    && !self.is_recursive(l.rel)
                    && args
                        .iter()
                        .all(|a| matches!(a, RPat::Ground(_) | RPat::Var(_)))
                {
                    self.register_call(from, to, l.rel, &args, true);
                    return true;
                }
                if g.rels[l.rel as usize].mode != Mode::Lifted
                    && args.iter().all(|a| matches!(a, RPat::Ground(_)))
                {
                    let key: Vec<GTerm> = args
                        .iter()
                        .map(|a| match a {
                            RPat::Ground(t) => *t,
                            _ => unreachable!("checked ground"),
                        })
                        .collect();
                    let t = &g.tables[l.rel as usize];
                    return match t.find(&key) {
                        None => {
                            self.edge(from, to, Label::Skip, None);
                            true
                        }
                        Some(row) => match self.atom_cond(t.atom(row)) {
                            Cond::True => false,
                            Cond::False => {
                                self.edge(from, to, Label::Skip, None);
                                true
                            }
                            Cond::Lit(x) => {
                                let lab = self.atom_label(x.negate());
                                self.edge(from, to, lab, None);
                                true
                            }
                        },
                    };
                }
                // The positive literal in its own sub-automaton, negated.
                let i = self.lf_node();
                let o = self.lf_node();
                let mut inner = env.clone();
                let pos = Lit {
                    kind: LitKind::Pos,
                    rel: l.rel,
                    args: l.args.clone(),
                };
                if self.literal(i, o, &pos, &mut inner, depth) {
                    self.edge(
                        from,
                        to,
                        Label::Reach {
                            from: i,
                            to: o,
                            negated: true,
                        },
                        None,
                    );
                } else {
                    self.edge(from, to, Label::Skip, None);
                }
                true
            }
            LitKind::Pos | LitKind::Domain => {
                let args: Vec<RPat> = l.args.iter().map(|a| env.resolve(a)).collect();
                match g.rels[l.rel as usize].mode {
                    Mode::Lifted if self.is_recursive(l.rel) => {
                        self.recursive_call(from, to, l.rel, &l.args, env, depth)
                    }
                    Mode::Lifted => {
                        if args
                            .iter()
                            .all(|a| matches!(a, RPat::Ground(_) | RPat::Var(_)))
                        {
                            self.register_call(from, to, l.rel, &args, false);
                            true
                        } else if depth >= MAX_INLINE_DEPTH {
                            // Dropping the literal would make the game wrong: an error.
                            self.lifting_limit(
                                l.rel,
                                format!(
                                    "calls with unbound arguments are nested more than \
                                     {MAX_INLINE_DEPTH} levels deep"
                                ),
                            );
                            false
                        } else {
                            self.inline_call(from, to, l.rel, &l.args, env, depth)
                        }
                    }
                    Mode::Exact | Mode::Relaxed => self.atom_trie(from, to, l.rel, &args, env),
                }
            }
        }
    }

    /// The condition of a grounded atom.
    fn atom_cond(&self, a: Atom) -> Cond {
        match self.net.kind[a] {
            Kind::Exact => Cond::True,
            _ => self.net.cond(Some(a)),
        }
    }

    /// The single-edge label of a literal read from lifted code (held atoms are read through
    /// their sub-automata: lifted code may run before they are evaluated).
    fn atom_label(&mut self, l: GroundLit) -> Label {
        let a = l.atom();
        if let Kind::Call(_) = self.net.kind[a] {
            return self.call_label(a, l.negated());
        }
        if let Some(super::Access::Held(_)) = self.access.get(&a) {
            let (i, o) = self.sub_automaton(a);
            return Label::Reach {
                from: i,
                to: o,
                negated: l.negated(),
            };
        }
        self.label(l)
    }

    /// A literal over a grounded relation: a trie over its atoms that can match.
    fn atom_trie(
        &mut self,
        from: NodeId,
        to: NodeId,
        rel: u32,
        args: &[RPat],
        env: &mut Env,
    ) -> bool {
        let g = self.g;
        let t = &g.tables[rel as usize];
        struct Row {
            tests: Vec<(Symbol, GTerm)>,
            binds: Vec<Binding>,
            cond: Cond,
        }
        let mut rows: Vec<Row> = Vec::new();
        for r in 0..t.len() {
            let mut tests = Vec::new();
            let mut binds = Vec::new();
            if !match_free(g, args, t.row(r), &mut tests, &mut binds) {
                continue;
            }
            let cond = self.atom_cond(t.atom(r));
            if cond == Cond::False {
                continue;
            }
            rows.push(Row { tests, binds, cond });
        }
        if rows.is_empty() {
            return false;
        }
        let targets = self.targets(env, rows.iter().flat_map(|r| r.binds.iter().map(|b| b.0)));
        // A prefix tree over the tests (every row tests the same variables in the same order).
        let ntests = rows[0].tests.len();
        let mut groups: Vec<(NodeId, Vec<usize>)> = vec![(from, (0..rows.len()).collect())];
        for level in 0..ntests {
            let mut next = Vec::new();
            for (at, members) in groups {
                let mut by_value: Vec<(GTerm, Vec<usize>)> = Vec::new();
                let mut slot: HashMap<GTerm, usize> = HashMap::new();
                for m in members {
                    let v = rows[m].tests[level].1;
                    let k = *slot.entry(v).or_insert_with(|| {
                        by_value.push((v, Vec::new()));
                        by_value.len() - 1
                    });
                    by_value[k].1.push(m);
                }
                for (v, ms) in by_value {
                    let s = rows[ms[0]].tests[level].0;
                    let nx = self.lf_node();
                    let lab = self.cmp_value(s, v, false);
                    self.edge(at, nx, lab, None);
                    next.push((nx, ms));
                }
            }
            groups = next;
        }
        for (at, members) in groups {
            for m in members {
                let mut labels = Vec::new();
                if let Cond::Lit(l) = rows[m].cond {
                    labels.push(self.atom_label(l));
                }
                for &(v, x) in &rows[m].binds {
                    let target = targets[&v];
                    self.note(target, Some(x));
                    let lhs = self.game.expr_ref(target);
                    let rhs = self.value_expr(x);
                    labels.push(Label::Assign { lhs, rhs });
                }
                self.lf_chain(at, to, labels);
            }
        }
        for (v, target) in targets {
            env.binds[v as usize] = Bind::Var(target);
        }
        true
    }

    /// A positive literal over lifted relation `rel` with unbound arguments, its rules unfolded
    /// from `from` to `to`; the caller's variables it binds are bound in `env` afterwards.
    fn inline_call(
        &mut self,
        from: NodeId,
        to: NodeId,
        rel: u32,
        pats: &[Pat],
        env: &mut Env,
        depth: u32,
    ) -> bool {
        let g = self.g;
        // The caller's free variables become RG variables every rule path assigns.
        let targets = self.output_targets(env, pats);
        // The caller's arguments with outputs as `Into` markers: resolved per argument below.
        let mut any = false;
        let rules: Vec<(usize, &IRule)> = g
            .rules
            .iter()
            .filter(|r| r.rel == rel)
            .enumerate()
            .collect();
        for (k, rule) in rules {
            let mut callee = Env::new(rel, k, rule.nvars);
            let start = self.lf_node();
            let mut post: Vec<(Symbol, Pat)> = Vec::new();
            let mut at = Some(start);
            // Outputs that are whole arguments are bound straight into the caller's target;
            // outputs inside compound arguments are read back after the body.
            let mut readback: Vec<(Symbol, Pat)> = Vec::new();
            for (h, p) in rule.head.iter().zip(pats) {
                let Some(cur) = at else { break };
                at = match p {
                    Pat::Var(v) if targets.contains_key(v) => {
                        let target = targets[v];
                        self.unify_output(cur, h, target, &mut callee, &mut post)
                    }
                    _ if !pattern_bound(p, env, &targets) => {
                        // A compound argument with outputs: the callee's value of this
                        // position goes into a temporary, destructured afterwards.
                        let tmp = self.game.sym(&format!(
                            "lf_{}_r{}_t{}",
                            self.rel_name(env.rel),
                            env.rule,
                            readback.len()
                        ));
                        self.note(tmp, None);
                        readback.push((tmp, p.clone()));
                        self.unify_output(cur, h, tmp, &mut callee, &mut post)
                    }
                    _ => {
                        let a = env.resolve(p);
                        self.unify(cur, h, &a, &mut callee)
                    }
                };
            }
            let Some(at) = at else { continue };
            let end = self.lf_node();
            self.body(at, end, rule, &mut callee, post, depth + 1);
            // Read compound outputs back into the caller's targets.
            let mut cur = end;
            let mut ok = true;
            for (tmp, p) in &readback {
                let nx = self.lf_node();
                let mut e2 = env.clone();
                for (&v, &s) in &targets {
                    e2.binds[v as usize] = Bind::Into(s);
                }
                if !self.destructure(cur, nx, *tmp, p, &mut e2) {
                    ok = false;
                    break;
                }
                cur = nx;
            }
            if ok {
                self.edge(cur, to, Label::Skip, None);
                self.edge(from, start, Label::Skip, None);
                any = true;
            }
        }
        for (v, s) in targets {
            env.binds[v as usize] = Bind::Var(s);
        }
        any
    }

    /// Whether lifted relation `rel` reads itself (the grounder lifts such a relation only
    /// when the recursion is linear: each rule reads it at most once, positively).
    fn is_recursive(&mut self, rel: u32) -> bool {
        if let Some(&r) = self.lf.recursive.get(&rel) {
            return r;
        }
        let g = self.g;
        let r = g
            .rules
            .iter()
            .any(|x| x.rel == rel && x.own_literal().is_some());
        self.lf.recursive.insert(rel, r);
        r
    }

    /// A literal over a recursive lifted relation, from a lifted body: the caller's bound
    /// arguments are its inputs, its free variables (whole arguments) its outputs, made by
    /// [`Self::loop_call`].
    fn recursive_call(
        &mut self,
        from: NodeId,
        to: NodeId,
        rel: u32,
        pats: &[Pat],
        env: &mut Env,
        depth: u32,
    ) -> bool {
        let targets = self.output_targets(env, pats);
        let mut inputs = Vec::with_capacity(pats.len());
        let mut outputs = Vec::with_capacity(pats.len());
        // An output variable at a second place: its value goes into a temporary compared
        // with the first place's afterwards (`(count ?n ?n)`).
        let mut equal: Vec<(Symbol, Symbol)> = Vec::new();
        for (i, p) in pats.iter().enumerate() {
            match p {
                Pat::Var(v) if targets.contains_key(v) => {
                    let mut target = targets[v];
                    if outputs.contains(&Some(target)) {
                        let name = self.rel_name(rel);
                        let tmp = self
                            .game
                            .sym(&format!("lf_{name}_k{}_e{i}", self.lf.loops + 1));
                        self.note(tmp, None);
                        self.lf.copies.push((tmp, target));
                        self.lf.copies.push((target, tmp));
                        equal.push((tmp, target));
                        target = tmp;
                    }
                    inputs.push(None);
                    outputs.push(Some(target));
                }
                _ if pattern_bound(p, env, &targets) => {
                    inputs.push(Some(env.resolve(p)));
                    outputs.push(None);
                }
                _ => {
                    self.lifting_limit(
                        rel,
                        "a recursive relation is called with a compound argument that is \
                         not bound"
                            .to_owned(),
                    );
                    return false;
                }
            }
        }
        let done = if equal.is_empty() { to } else { self.lf_node() };
        let any = self.loop_call(from, done, rel, &inputs, &outputs, depth);
        if !equal.is_empty() {
            let labels = equal
                .into_iter()
                .map(|(a, b)| Label::Compare {
                    lhs: self.game.expr_ref(a),
                    rhs: self.game.expr_ref(b),
                    negated: false,
                })
                .collect();
            self.lf_chain(done, to, labels);
        }
        for (v, s) in targets {
            env.binds[v as usize] = Bind::Var(s);
        }
        any
    }

    /// `from → to` through a linearly self-recursive lifted relation as a loop: registers of
    /// the call's own hold the bound arguments (`inputs`); at the loop's head each rule is
    /// tried with its head unified with them; a rule without the recursive literal binds the
    /// outputs (into `outputs`' RG variables) and leaves the loop, the recursive rule evaluates
    /// the rest of its body, assigns the recursive literal's arguments to the registers and
    /// goes round again. An output position must pass through the recursive rule unchanged
    /// (the same variable at the same place of its head and of the recursive literal, and
    /// nowhere else), so the loop's last round binds it: otherwise E-LOW-061. The loop runs
    /// inside a reachability check like every lifted evaluation, so the interpreter's
    /// visited-state check ends a recursion that does not.
    fn loop_call(
        &mut self,
        from: NodeId,
        to: NodeId,
        rel: u32,
        inputs: &[Option<RPat>],
        outputs: &[Option<Symbol>],
        depth: u32,
    ) -> bool {
        let g = self.g;
        self.lf.loops += 1;
        let k = self.lf.loops;
        let name = self.rel_name(rel);
        let mut regs: Vec<Option<Symbol>> = Vec::with_capacity(inputs.len());
        let mut at = from;
        for (i, a) in inputs.iter().enumerate() {
            let Some(a) = a else {
                regs.push(None);
                continue;
            };
            let reg = self.game.sym(&format!("lf_{name}_k{k}_{i}"));
            self.note(reg, None);
            let nx = self.lf_node();
            if self.assign_pat(at, nx, reg, a).is_none() {
                return false;
            }
            at = nx;
            regs.push(Some(reg));
        }
        let head = self.lf_node();
        self.edge(at, head, Label::Skip, None);
        let rules: Vec<(usize, &IRule)> = g
            .rules
            .iter()
            .filter(|r| r.rel == rel)
            .enumerate()
            .collect();
        let mut leaves = false;
        for (r, rule) in rules {
            let own = rule.own_literal();
            let mut env = Env::new(rel, r, rule.nvars);
            let start = self.lf_node();
            let mut post: Vec<(Symbol, Pat)> = Vec::new();
            let mut cur = Some(start);
            for (i, h) in rule.head.iter().enumerate() {
                let Some(c) = cur else { break };
                cur = match (regs[i], outputs[i], own) {
                    (Some(reg), _, _) => self.unify(c, h, &RPat::Var(reg), &mut env),
                    (None, Some(target), None) => {
                        self.unify_output(c, h, target, &mut env, &mut post)
                    }
                    (None, _, Some(j)) => {
                        if !rule.passes_through(j, i) {
                            self.lifting_limit(
                                rel,
                                format!(
                                    "argument {} of a recursive call is not bound, and the \
                                     recursion does not pass it through unchanged",
                                    i + 1
                                ),
                            );
                            return false;
                        }
                        Some(c)
                    }
                    (None, None, None) => unreachable!("a position is an input or an output"),
                };
            }
            let Some(c) = cur else { continue };
            self.edge(head, start, Label::Skip, None);
            let Some(j) = own else {
                self.body(c, to, rule, &mut env, post, depth + 1);
                leaves = true;
                continue;
            };
            // The rest of the body, then the next round's registers.
            let mut rest = rule.clone();
            let call = rest.body.remove(j);
            let end = self.lf_node();
            self.body(c, end, &rest, &mut env, Vec::new(), depth + 1);
            let args: Vec<(Symbol, RPat)> = regs
                .iter()
                .zip(&call.args)
                .filter_map(|(reg, p)| reg.map(|reg| (reg, env.resolve(p))))
                .collect();
            if args.iter().any(|(_, a)| !a.is_bound()) {
                self.lifting_limit(
                    rel,
                    "an argument of the recursive call that the caller binds is not bound by \
                     the rule"
                        .to_owned(),
                );
                return false;
            }
            // Through temporaries when an argument reads another register (a swap).
            let reads_register = args.iter().any(|(reg, a)| {
                matches!(a, RPat::Var(s) if s != reg && regs.contains(&Some(*s)))
                    || matches!(a, RPat::Fn(..))
            });
            let mut at = end;
            let mut staged: Vec<(Symbol, RPat)> = Vec::new();
            for (n, (reg, a)) in args.into_iter().enumerate() {
                let target = if reads_register {
                    let t = self.game.sym(&format!("lf_{name}_k{k}_t{n}"));
                    self.note(t, None);
                    staged.push((reg, RPat::Var(t)));
                    t
                } else {
                    reg
                };
                let nx = self.lf_node();
                if self.assign_pat(at, nx, target, &a).is_none() {
                    return false;
                }
                at = nx;
            }
            for (reg, a) in staged {
                let nx = self.lf_node();
                if self.assign_pat(at, nx, reg, &a).is_none() {
                    return false;
                }
                at = nx;
            }
            self.edge(at, head, Label::Skip, None);
        }
        leaves
    }

    /// Unifies callee head pattern `h` with a caller output going into `target`.
    fn unify_output(
        &mut self,
        from: NodeId,
        h: &Pat,
        target: Symbol,
        env: &mut Env,
        post: &mut Vec<(Symbol, Pat)>,
    ) -> Option<NodeId> {
        match h {
            Pat::Var(v) => match env.binds[*v as usize].clone() {
                Bind::Free => {
                    env.binds[*v as usize] = Bind::Into(target);
                    Some(from)
                }
                Bind::Into(other) => {
                    // Two outputs bound by the same callee variable: copied after the body.
                    post.push((target, Pat::Var(*v)));
                    let _ = other;
                    Some(from)
                }
                _ => {
                    let a = env.resolve(h);
                    let to = self.lf_node();
                    self.assign_pat(from, to, target, &a)?;
                    Some(to)
                }
            },
            Pat::Ground(t) => {
                let to = self.lf_node();
                self.assign_pat(from, to, target, &RPat::Ground(*t))?;
                Some(to)
            }
            Pat::Fn(..) => {
                post.push((target, h.clone()));
                Some(from)
            }
        }
    }
}

/// Whether every variable of `p` is bound in `env` (targets count as unbound).
fn pattern_bound(p: &Pat, env: &Env, targets: &BTreeMap<u16, Symbol>) -> bool {
    let mut ok = true;
    p.for_each_var(&mut |v| {
        ok &= !targets.contains_key(&v)
            && !matches!(env.binds[v as usize], Bind::Free | Bind::Into(_));
    });
    ok
}

/// Matches bound patterns against ground terms at translation time: constants and functors
/// must agree, variables give run-time tests.
fn match_bound(
    g: &Grounding,
    pats: &[RPat],
    terms: &[GTerm],
    tests: &mut Vec<(Symbol, GTerm)>,
) -> bool {
    let mut binds = Vec::new();
    match_free(g, pats, terms, tests, &mut binds) && binds.is_empty()
}

/// Matches patterns against ground terms: constants and functors must agree, bound variables
/// give run-time tests, free variables bindings (a free variable met twice must match equal
/// terms).
fn match_free(
    g: &Grounding,
    pats: &[RPat],
    terms: &[GTerm],
    tests: &mut Vec<(Symbol, GTerm)>,
    binds: &mut Vec<Binding>,
) -> bool {
    fn one(
        g: &Grounding,
        p: &RPat,
        t: GTerm,
        tests: &mut Vec<(Symbol, GTerm)>,
        binds: &mut Vec<Binding>,
    ) -> bool {
        match p {
            RPat::Ground(x) => *x == t,
            RPat::Var(s) => {
                tests.push((*s, t));
                true
            }
            RPat::Free(v) => match binds.iter().find(|b| b.0 == *v) {
                Some(b) => b.1 == t,
                None => {
                    binds.push((*v, t));
                    true
                }
            },
            RPat::Fn(f, args) => {
                let tup = g.store.tuple(t);
                if tup[0] != *f || tup.len() != args.len() + 1 {
                    return false;
                }
                let sub = tup[1..].to_vec();
                args.iter()
                    .zip(sub)
                    .all(|(a, s)| one(g, a, s, tests, binds))
            }
        }
    }
    pats.iter()
        .zip(terms)
        .all(|(p, &t)| one(g, p, t, tests, binds))
}

impl Lowerer<'_> {
    /// Declares every lifted variable with the values it may hold or be compared with.
    pub(super) fn declare_lifted(&mut self) {
        // Copies: a variable's values include those of the variables copied into it.
        let mut sets: Vec<BTreeSet<GTerm>> = self
            .lf
            .vars
            .iter()
            .map(|(_, v)| v.iter().copied().collect())
            .collect();
        let copies: Vec<(usize, usize)> = self
            .lf
            .copies
            .iter()
            .filter_map(|(a, b)| Some((*self.lf.var_index.get(a)?, *self.lf.var_index.get(b)?)))
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b) in &copies {
                if a == b {
                    continue;
                }
                let add: Vec<GTerm> = sets[b]
                    .iter()
                    .copied()
                    .filter(|t| !sets[a].contains(t))
                    .collect();
                if !add.is_empty() {
                    sets[a].extend(add);
                    changed = true;
                }
            }
        }
        for (i, set) in sets.iter().enumerate() {
            let mut vals: Vec<GTerm> = set.iter().copied().collect();
            // Distinct terms never compare equal; the id breaks ties all the same.
            vals.sort_by(|&a, &b| self.term_cmp(a, b).then(a.cmp(&b)));
            let name = self.lf.vars[i].0;
            let syms: Vec<Symbol> = if vals.is_empty() {
                // Never assigned a value (only compared with variables): any symbol will do.
                vec![self.game.well_known().zero]
            } else {
                vals.iter().map(|&t| self.value(t)).collect()
            };
            let ty = self.game.type_set(syms.clone());
            let init = self.game.value_elem(syms[0]);
            self.game.variables.push(rg_core::Variable {
                name,
                ty,
                init,
                spans: rg_core::Spans::whole(None),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::error::{Code, GdlErrors};
    use crate::ground::Lifting;
    use crate::translate::{TranslateOptions, Translation, translate};
    use rg_core::FileId;

    /// A one-player game whose legal move `(m ?v)` needs `(r ?v)`, followed by `rules`.
    fn game(rules: &str) -> String {
        format!(
            "(role x) (init (c 0)) (val 0) (val 1)
             (<= (legal x (m ?v)) (true (c ?v)) (r ?v))
             (<= (next (c ?v)) (does x (m ?v)))
             (<= terminal (true (c 1)))
             (<= (goal x 100) (true (c 1)))
             (<= (goal x 0) (not (true (c 1))))
             {rules}"
        )
    }

    /// Translates `text` with everything liftable lifted, on a thread with a small stack (1 MiB,
    /// half the default of test threads) so that unbounded recursion shows.
    fn lifted(text: String) -> Result<Translation, GdlErrors> {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let mut opts = TranslateOptions::default();
                opts.limits.lifting = Lifting::All;
                translate(FileId(0), &text, &opts, &mut |_| {})
            })
            .expect("a thread")
            .join()
            .expect("no panic")
    }

    /// A chain of 3000 lifted relations, each calling the next with bound arguments: the calls
    /// go through registers and the sub-automata are built from a work list (recursing from
    /// each call into its callee overflowed the stack).
    #[test]
    fn a_long_chain_of_lifted_calls_needs_no_stack() {
        let n = 3000;
        let mut rules = String::from("(<= (r ?v) (q0 ?v))\n");
        for i in 0..n {
            rules.push_str(&format!("(<= (q{i} ?v) (q{} ?v) (val ?v))\n", i + 1));
        }
        rules.push_str(&format!("(<= (q{n} ?v) (val ?v))\n"));
        let t = lifted(game(&rules)).unwrap_or_else(|e| panic!("{:?}", e.diagnostics));
        let out = rg_core::print(&t.game);
        for want in ["lf_q0_in", &format!("lf_q{n}_in"), &format!("lf_q{n}_out")] {
            assert!(out.contains(want), "{want} missing");
        }
    }

    /// A linearly self-recursive relation is lifted and lowered as a loop (it used to be
    /// refused, and grounded in full: Nine Men's Morris's piece count `count_loop/6` stopped
    /// the translation at the atom limit): registers of the loop, one path back to its head,
    /// and the output that the recursion passes through assigned by the base rule only.
    #[test]
    fn a_linear_recursion_is_lowered_as_a_loop() {
        let rules = "(nx 0 1) (nx 1 2) (nx 2 3)
             (<= (upto 3 ?n ?n) (val ?n))
             (<= (upto ?a ?acc ?out) (nx ?a ?b) (upto ?b ?acc ?out))
             (<= (r ?v) (upto 0 ?v ?w) (val ?w))";
        let t = lifted(game(rules)).unwrap_or_else(|e| panic!("{:?}", e.diagnostics));
        let out = rg_core::print(&t.game);
        for want in ["lf_upto_k1_0", "lf_upto_k1_1"] {
            assert!(out.contains(want), "{want} missing:\n{out}");
        }
        // The first register is advanced along `nx` by the recursive rule.
        assert!(out.contains("lf_upto_k1_0 = lf_upto_r1_v"), "{out}");
        // A recursion that does not pass an unbound argument through is not lifted.
        let rules = "(nx 0 1) (nx 1 2) (nx 2 3)
             (<= (upto 3 ?n ?n) (val ?n))
             (<= (upto ?a ?acc ?out) (nx ?a ?b) (upto ?b ?acc ?o2) (nx ?o2 ?out))
             (<= (r ?v) (upto 0 ?v ?w))";
        let t = lifted(game(rules)).unwrap_or_else(|e| panic!("{:?}", e.diagnostics));
        assert!(!rg_core::print(&t.game).contains("lf_upto_k"));
    }

    /// Calls with unbound arguments are inlined; nested deeper than [`MAX_INLINE_DEPTH`] they
    /// are error E-LOW-061 (they used to be dropped silently, making the literal false).
    ///
    /// [`MAX_INLINE_DEPTH`]: super::MAX_INLINE_DEPTH
    #[test]
    fn calls_with_unbound_arguments_nested_too_deeply_are_an_error() {
        let chain = |n: u32| {
            // `?w` is unbound in `r`: `s0` and every `s<i>` it calls are inlined.
            let mut rules = String::from("(<= (r ?v) (s0 ?v ?w))\n");
            for i in 0..n {
                rules.push_str(&format!("(<= (s{i} ?v ?w) (s{} ?v ?w))\n", i + 1));
            }
            rules.push_str(&format!("(<= (s{n} ?v ?w) (val ?v) (val ?w))\n"));
            game(&rules)
        };
        let t = lifted(chain(10)).unwrap_or_else(|e| panic!("{:?}", e.diagnostics));
        // Inlined to the end of the chain: `?w` of `r` takes the values of `val`.
        let out = rg_core::print(&t.game);
        assert!(out.contains("lf_r_r0_v1 = 1;"), "{out}");
        let e = lifted(chain(super::MAX_INLINE_DEPTH + 10)).expect_err("too deep");
        assert!(e.has(Code::LiftingLimit), "{:?}", e.diagnostics);
        assert_eq!(e.errors().count(), 1, "reported once: {:?}", e.diagnostics);
    }

    /// A term built through inlined calls, each wrapping the caller's argument in 200 more
    /// functions, goes past the reader's nesting limit after two calls: error E-LOW-061 (so
    /// resolved patterns stay within twice the reader's limit).
    #[test]
    fn terms_built_too_deeply_through_inlined_calls_are_an_error() {
        let wrap = |x: &str| format!("{}{x}{}", "(f ".repeat(200), ")".repeat(200));
        let mut rules = String::from("(<= (r ?v) (t0 ?v ?y))\n");
        for i in 0..3 {
            rules.push_str(&format!(
                "(<= (t{i} ?x ?y) (t{} {} ?y))\n",
                i + 1,
                wrap("?x")
            ));
        }
        rules.push_str("(dd 0) (<= (t3 ?x ?y) (dd ?x) (val ?y))\n");
        let e = lifted(game(&rules)).expect_err("too deep");
        assert!(e.has(Code::LiftingLimit), "{:?}", e.diagnostics);
    }
}
