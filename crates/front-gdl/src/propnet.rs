//! The ground program as a propositional network, simplified to a fixpoint, with its ground
//! SCCs (the recursion the lowering must loop over).
//!
//! Atoms are the grounding's atoms. *Inputs* are `true(f)` (the current state) and `does(r, a)`
//! (the joint move); every other atom is defined by its ground rules. Simplification is
//! sign-aware and driven by a worklist of newly decided atoms over per-atom occurrence lists:
//!
//! * a rule whose body is satisfied makes its head true; an atom without rules is false;
//! * a true positive / false negative literal is dropped; a false positive / true negative
//!   literal kills its rule;
//! * `true(f)` is constant false when `f` is not initial and can only be re-derived from
//!   itself, constant true when `f` is initial and `next(f)` is true or has the persistence
//!   rule `next(f) ⇐ true(f)` (GGP-Base's Relationizer, generalised);
//! * `does(r, a)` is false when `legal(r, a)` is, and true when `a` is `r`'s only possible
//!   action;
//! * atoms that do not depend on any input and are still undecided (positive cycles) get the
//!   value of the least model;
//! * an atom with a single rule with a single literal is replaced by that literal (aliasing),
//!   rules are deduplicated, and only the cone of influence of `legal`, `next`, `terminal`,
//!   `goal` and `sees` is kept.
//!
//! Then the ground dependency graph is split into strongly connected components: a negative
//! edge inside one is E-VAL-031; non-trivial ones are ground recursion, lowered by
//! [`crate::lower`] as reachability (linear) or materialised (non-linear).

use crate::ast::{Program, RelId};
use crate::error::{Code, GdlDiagnostic};
use crate::graph::{Csr, Sccs, sccs};
use crate::ground::rules::Mode;
use crate::ground::terms::GTerm;
use crate::ground::{Atom, AtomRow, Grounding, Lit};
use rg_core::{EntityId, IndexVec, Span};
use rustc_hash::FxHashSet;
use std::collections::HashMap;

/// A truth value during simplification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Unknown,
    True,
    False,
}

/// What an atom is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Defined by rules.
    Derived,
    /// Computed exactly during grounding (true).
    Exact,
    /// `true(f)`: fluent number.
    Fluent(u32),
    /// `does(r, a)`: the role's move (role `u32::MAX` for a term that is not a role).
    Does(RoleAction),
    /// A call of a lifted relation (the grounder's relation): evaluated at run time, never
    /// decided here.
    Call(u32),
}

/// No alias.
const NO_ALIAS: Lit = Lit::NONE;

/// A ground rule (its literals are in [`Net::lits`]).
#[derive(Clone, Debug)]
pub(crate) struct PRule {
    pub(crate) head: Atom,
    /// The grounder's rule it is an instance of (for spans).
    pub(crate) src: u32,
}

/// The literals of every rule, sorted and duplicate-free per rule, in one arena: the
/// simplification scans all rules many times, and a separate allocation per rule made each
/// scan a cache miss per rule. A rule's literals only ever shrink, so they are rewritten in
/// place.
#[derive(Clone, Debug, Default)]
pub(crate) struct RuleLits {
    data: Vec<Lit>,
    /// Per rule: start in `data` and current length.
    span: Vec<(u32, u32)>,
}

impl RuleLits {
    fn push(&mut self, lits: &[Lit]) {
        self.span.push((self.data.len() as u32, lits.len() as u32));
        self.data.extend_from_slice(lits);
    }

    /// The literals of rule `r`.
    #[inline]
    pub(crate) fn get(&self, r: usize) -> &[Lit] {
        let (s, n) = self.span[r];
        &self.data[s as usize..(s + n) as usize]
    }

    /// Replaces the literals of rule `r` by `lits`, which are no more.
    fn shrink(&mut self, r: usize, lits: &[Lit]) {
        let (s, n) = self.span[r];
        assert!(lits.len() <= n as usize, "rule literals only shrink");
        self.data[s as usize..s as usize + lits.len()].copy_from_slice(lits);
        self.span[r].1 = lits.len() as u32;
    }

    /// Keeps the literals of rule `r` that `keep` accepts.
    fn retain(&mut self, r: usize, keep: impl Fn(Lit) -> bool) {
        let (s, n) = self.span[r];
        let mut w = s as usize;
        for i in s as usize..(s + n) as usize {
            let l = self.data[i];
            if keep(l) {
                self.data[w] = l;
                w += 1;
            }
        }
        self.span[r].1 = (w - s as usize) as u32;
    }
}

/// A fluent: a term `f` with `true(f)` in M⁺.
#[derive(Clone, Debug)]
pub(crate) struct Fluent {
    pub(crate) term: GTerm,
    /// The `true(f)` atom.
    pub(crate) atom: Atom,
    /// `init(f)` (an atom, or none = false).
    pub(crate) init: Option<Atom>,
    /// `next(f)` (an atom, or none = false).
    pub(crate) next: Option<Atom>,
}

/// A role with its possible actions.
#[derive(Clone, Debug)]
pub(crate) struct Role {
    pub(crate) term: GTerm,
    /// The GDL-II chance player.
    pub(crate) random: bool,
    pub(crate) actions: Vec<Action>,
}

/// A possible action of a role.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Action {
    pub(crate) term: GTerm,
    /// The `does(role, action)` atom.
    pub(crate) does: Atom,
    /// The `legal(role, action)` atom (none = never legal).
    pub(crate) legal: Option<Atom>,
}

/// A term a role's keyword relation holds of, with the atom saying when it holds: a goal
/// value with its `goal(role, value)` atom, a percept with its `sees(role, percept)` atom.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keyed {
    pub(crate) term: GTerm,
    pub(crate) atom: Atom,
}

/// The simplified ground game.
#[derive(Debug)]
pub(crate) struct Net {
    pub(crate) val: IndexVec<Atom, Val>,
    pub(crate) kind: IndexVec<Atom, Kind>,
    pub(crate) rules: Vec<PRule>,
    pub(crate) lits: RuleLits,
    pub(crate) alive: Vec<bool>,
    pub(crate) roles: Vec<Role>,
    pub(crate) fluents: Vec<Fluent>,
    /// Per atom: whether it is in the cone of influence.
    pub(crate) needed: IndexVec<Atom, bool>,
    /// Per atom: live rules.
    pub(crate) rules_of: IndexVec<Atom, Vec<u32>>,
    /// Non-trivial ground SCCs (recursion), with per atom the SCC number.
    pub(crate) sccs: Vec<Vec<Atom>>,
    pub(crate) scc_of: IndexVec<Atom, u32>,
    /// Per atom: depends on a `does` atom.
    pub(crate) move_dep: IndexVec<Atom, bool>,
    /// Per atom: the literal it was replaced by (`NO_ALIAS` if not aliased).
    alias: IndexVec<Atom, Lit>,
    /// Per role: its goal values and its percepts.
    pub(crate) goals: Vec<Vec<Keyed>>,
    pub(crate) sees: Vec<Vec<Keyed>>,
    /// The `terminal` atom.
    pub(crate) terminal: Option<Atom>,
    /// Per fluent: read by some needed condition.
    pub(crate) fluent_used: Vec<bool>,
    /// Atoms that are sets of moves (see [`DoesSet`]).
    pub(crate) does_sets: HashMap<Atom, DoesSet>,
}

/// The simplification's working state around the network it builds (only [`Net::build`]
/// makes one).
struct Builder {
    net: Net,
    /// Per rule: its literals not decided yet.
    unresolved: Vec<u32>,
    /// Per atom: its live rules, counted.
    live: IndexVec<Atom, u32>,
    /// Per atom: the live rules reading it while it is undecided.
    occ: IndexVec<Atom, Vec<u32>>,
    /// Atoms decided and not propagated yet.
    queue: Vec<Atom>,
    /// Fluent number per `next` atom, per `legal` atom the (role, action), per `init` atom
    /// the fluent.
    next_of: IndexVec<Atom, u32>,
    init_of: IndexVec<Atom, u32>,
    legal_of: IndexVec<Atom, RoleAction>,
    /// Per fluent: live rules of `next(f)` without the literal `true(f)`.
    nonself: Vec<u32>,
    /// Per role: actions whose `legal` is not false.
    open_actions: Vec<u32>,
}

const NONE: u32 = u32::MAX;

/// A role's action: the role's number and the action's number among that role's actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoleAction {
    pub(crate) role: u32,
    pub(crate) action: u32,
}

impl RoleAction {
    /// No role's action (an atom that is not a `legal`, or a `does` of a non-role).
    const NONE: RoleAction = RoleAction {
        role: NONE,
        action: NONE,
    };
}

/// A `does` atom of a role, with the `legal` atom of the same move if there is one.
struct DoesAtom {
    role: u32,
    action: GTerm,
    atom: Atom,
    legal: Option<Atom>,
}

/// The components of the ground dependency graph (whose nodes are atom numbers) as atoms.
fn atoms_of_components(components: Vec<Vec<u32>>) -> Vec<Vec<Atom>> {
    components
        .into_iter()
        .map(|m| m.into_iter().map(Atom).collect())
        .collect()
}

/// An edge `body atom → head atom` of the ground dependency graph.
#[derive(Clone, Copy, Debug)]
struct DepEdge {
    body: Atom,
    head: Atom,
    /// The body atom is read negated.
    negative: bool,
}

/// The edges of the ground rules.
type RuleEdges = Vec<DepEdge>;

impl Net {
    /// Builds the network from a grounding and runs the simplification to its fixpoint.
    pub(crate) fn build(p: &Program, g: &Grounding) -> Result<Net, GdlDiagnostic> {
        let n = g.atoms.len();
        let rel_true = RelId::TRUE.index() as u32;
        let rel_does = RelId::DOES.index() as u32;
        let mut kind = IndexVec::from_elem(Kind::Derived, n);
        let mut val = IndexVec::from_elem(Val::Unknown, n);
        for (a, &AtomRow { rel, .. }) in g.atom_ids().zip(&g.atoms) {
            match g.rels[rel as usize].mode {
                Mode::Exact => {
                    kind[a] = Kind::Exact;
                    val[a] = Val::True;
                }
                Mode::Lifted => kind[a] = Kind::Call(rel),
                Mode::Relaxed => {}
            }
        }
        // Roles in role-fact order (the `role` table is filled by the facts in source order).
        let random_sym = crate::ast::Sym::RANDOM.index() as u32;
        let mut roles: Vec<Role> = Vec::new();
        let role_t = &g.tables[RelId::ROLE.index()];
        for r in 0..role_t.len() {
            let term = role_t.row(r)[0];
            roles.push(Role {
                term,
                random: g.store.tuple(term) == [random_sym],
                actions: Vec::new(),
            });
        }
        let role_index = |t: GTerm| roles.iter().position(|r| r.term == t).map(|i| i as u32);
        // Actions: the `does` atoms, linked to their `legal` atoms.
        let legal_t = &g.tables[RelId::LEGAL.index()];
        let does_t = &g.tables[rel_does as usize];
        let mut legal_of = IndexVec::from_elem(RoleAction::NONE, n);
        let mut role_of_does: Vec<DoesAtom> = Vec::new();
        for r in 0..does_t.len() {
            let row = does_t.row(r);
            let atom = does_t.atom(r);
            let legal = legal_t.find(row).map(|lr| legal_t.atom(lr));
            match role_index(row[0]) {
                Some(role) => role_of_does.push(DoesAtom {
                    role,
                    action: row[1],
                    atom,
                    legal,
                }),
                None => {
                    kind[atom] = Kind::Does(RoleAction::NONE);
                    val[atom] = Val::False;
                }
            }
        }
        for d in role_of_does {
            let role = &mut roles[d.role as usize];
            let ra = RoleAction {
                role: d.role,
                action: role.actions.len() as u32,
            };
            role.actions.push(Action {
                term: d.action,
                does: d.atom,
                legal: d.legal,
            });
            kind[d.atom] = Kind::Does(ra);
            if let Some(l) = d.legal {
                legal_of[l] = ra;
            }
        }
        // Fluents.
        let true_t = &g.tables[rel_true as usize];
        let next_t = &g.tables[RelId::NEXT.index()];
        let init_t = &g.tables[RelId::INIT.index()];
        let mut fluents = Vec::new();
        let mut next_of = IndexVec::from_elem(NONE, n);
        let mut init_of = IndexVec::from_elem(NONE, n);
        for r in 0..true_t.len() {
            let row = true_t.row(r);
            let atom = true_t.atom(r);
            let f = fluents.len() as u32;
            kind[atom] = Kind::Fluent(f);
            let next = next_t.find(row).map(|x| next_t.atom(x));
            let init = init_t.find(row).map(|x| init_t.atom(x));
            if let Some(x) = next {
                next_of[x] = f;
            }
            if let Some(x) = init {
                init_of[x] = f;
            }
            fluents.push(Fluent {
                term: row[0],
                atom,
                init,
                next,
            });
        }
        // Rules: literals sorted and deduplicated; a rule with `a` and `not a` never fires.
        let mut rules = Vec::with_capacity(g.inst.len());
        let mut rule_lits = RuleLits::default();
        let mut lits = Vec::new();
        for i in 0..g.inst.len() {
            lits.clear();
            lits.extend_from_slice(g.inst.body(i));
            lits.sort_unstable();
            lits.dedup();
            if lits.windows(2).any(|w| w[0].atom() == w[1].atom()) {
                continue;
            }
            rule_lits.push(&lits);
            rules.push(PRule {
                head: g.inst.head[i],
                src: g.inst.rule[i],
            });
        }
        let nf = fluents.len();
        let nr = roles.len();
        let net = Net {
            val,
            kind,
            alive: vec![true; rules.len()],
            rules,
            lits: rule_lits,
            roles,
            fluents,
            needed: IndexVec::new(),
            rules_of: IndexVec::new(),
            sccs: Vec::new(),
            scc_of: IndexVec::new(),
            move_dep: IndexVec::new(),
            alias: IndexVec::from_elem(NO_ALIAS, n),
            goals: Vec::new(),
            sees: Vec::new(),
            terminal: None,
            fluent_used: Vec::new(),
            does_sets: HashMap::new(),
        };
        let mut b = Builder {
            net,
            unresolved: Vec::new(),
            live: IndexVec::new(),
            occ: IndexVec::new(),
            queue: Vec::new(),
            next_of,
            init_of,
            legal_of,
            nonself: vec![0; nf],
            open_actions: vec![0; nr],
        };
        b.index();
        b.seed();
        b.propagate();
        loop {
            let settled = b.settle_independent(p, g)?;
            let aliased = b.alias();
            if !settled && !aliased {
                break;
            }
        }
        b.finish(p, g)?;
        Ok(b.net)
    }

    fn lit_value(&self, l: Lit) -> Val {
        match (self.val[l.atom()], l.negated()) {
            (Val::Unknown, _) => Val::Unknown,
            (Val::True, false) | (Val::False, true) => Val::True,
            _ => Val::False,
        }
    }

    /// Value of an optional atom (none = false).
    fn opt_val(&self, a: Option<Atom>) -> Val {
        a.map_or(Val::False, |a| self.val[a])
    }

    /// A literal with aliases followed to the end.
    pub(crate) fn resolve(&self, mut l: Lit) -> Lit {
        let mut steps = 0;
        while self.alias[l.atom()] != NO_ALIAS && steps <= self.alias.len() {
            l = self.alias[l.atom()].signed_as(l);
            steps += 1;
        }
        l
    }

    /// The condition an atom stands for, aliases followed.
    pub(crate) fn cond(&self, a: Option<Atom>) -> Cond {
        let Some(a) = a else { return Cond::False };
        let l = self.resolve(Lit::pos(a));
        match self.lit_value(l) {
            Val::True => Cond::True,
            Val::False => Cond::False,
            Val::Unknown => Cond::Lit(l),
        }
    }

    /// The actions of a role that can be played (legal not constant false), increasing.
    pub(crate) fn open_actions_of(&self, role: u32) -> Vec<u32> {
        self.roles[role as usize]
            .actions
            .iter()
            .enumerate()
            .filter(|(_, x)| self.opt_val(x.legal) != Val::False)
            .map(|(k, _)| k as u32)
            .collect()
    }
}

impl Builder {
    /// (Re)builds the occurrence lists and counters from the live rules.
    fn index(&mut self) {
        let n = self.net.val.len();
        for i in 0..self.net.rules.len() {
            if self.net.alive[i]
                && self
                    .net
                    .lits
                    .get(i)
                    .iter()
                    .any(|&l| self.net.lit_value(l) == Val::False)
            {
                self.net.alive[i] = false;
            }
        }
        self.unresolved = vec![0; self.net.rules.len()];
        self.live = IndexVec::from_elem(0, n);
        self.occ = IndexVec::from_elem(Vec::new(), n);
        self.net.rules_of = IndexVec::from_elem(Vec::new(), n);
        for (i, r) in self.net.rules.iter().enumerate() {
            if !self.net.alive[i] {
                continue;
            }
            self.live[r.head] += 1;
            self.net.rules_of[r.head].push(i as u32);
            let mut u = 0;
            for &l in self.net.lits.get(i) {
                if self.net.val[l.atom()] == Val::Unknown {
                    u += 1;
                    self.occ[l.atom()].push(i as u32);
                }
            }
            self.unresolved[i] = u;
        }
        for (f, fl) in self.net.fluents.iter().enumerate() {
            self.nonself[f] = fl.next.map_or(0, |x| {
                self.net.rules_of[x]
                    .iter()
                    .filter(|&&r| !self.net.lits.get(r as usize).contains(&Lit::pos(fl.atom)))
                    .count() as u32
            });
        }
        for (ri, role) in self.net.roles.iter().enumerate() {
            self.open_actions[ri] = role
                .actions
                .iter()
                .filter(|x| x.legal.is_some_and(|l| self.net.val[l] != Val::False))
                .count() as u32;
        }
    }

    /// Initial decisions: atoms without rules, rules with satisfied bodies, inputs.
    fn seed(&mut self) {
        for a in self.net.val.ids() {
            if self.net.val[a] == Val::Unknown
                && self.net.kind[a] == Kind::Derived
                && self.net.alias[a] == NO_ALIAS
                && self.live[a] == 0
            {
                self.set(a, Val::False);
            }
        }
        for i in 0..self.net.rules.len() {
            if self.net.alive[i]
                && self
                    .net
                    .lits
                    .get(i)
                    .iter()
                    .all(|&l| self.net.lit_value(l) == Val::True)
            {
                self.set(self.net.rules[i].head, Val::True);
            }
            if self.net.alive[i] && self.unresolved[i] == 1 {
                self.check_persistence(i as u32);
            }
        }
        for f in 0..self.net.fluents.len() {
            self.check_fluent(f as u32);
        }
        for r in 0..self.net.roles.len() {
            self.check_role(r as u32);
        }
    }

    fn set(&mut self, a: Atom, v: Val) {
        if self.net.val[a] == Val::Unknown {
            self.net.val[a] = v;
            self.queue.push(a);
        }
    }

    /// Decides `true(f)` when its value can no longer change.
    fn check_fluent(&mut self, f: u32) {
        let fl = &self.net.fluents[f as usize];
        if self.net.val[fl.atom] != Val::Unknown {
            return;
        }
        let (atom, init, next) = (
            fl.atom,
            self.net.opt_val(fl.init),
            self.net.opt_val(fl.next),
        );
        match init {
            // Every rule of next(f) reads true(f): it never starts holding (unless next(f)
            // is itself decided true, e.g. a fact).
            Val::False
                if next == Val::False
                    || (next == Val::Unknown && self.nonself[f as usize] == 0) =>
            {
                self.set(atom, Val::False)
            }
            Val::True if next == Val::True => self.set(atom, Val::True),
            _ => {}
        }
    }

    /// `next(f) ⇐ true(f)` with `f` initial: `true(f)` holds forever.
    fn check_persistence(&mut self, r: u32) {
        let rule = &self.net.rules[r as usize];
        let f = self.next_of[rule.head];
        if f == NONE {
            return;
        }
        let fl = &self.net.fluents[f as usize];
        if self.net.opt_val(fl.init) != Val::True || self.net.val[fl.atom] != Val::Unknown {
            return;
        }
        let mut rest = self
            .net
            .lits
            .get(r as usize)
            .iter()
            .filter(|&&l| self.net.val[l.atom()] == Val::Unknown);
        if rest.next() == Some(&Lit::pos(fl.atom)) && rest.next().is_none() {
            self.set(fl.atom, Val::True);
        }
    }

    /// A role with a single possible action always plays it.
    fn check_role(&mut self, r: u32) {
        let role = &self.net.roles[r as usize];
        let mut decide = Vec::new();
        for x in &role.actions {
            let lv = self.net.opt_val(x.legal);
            if lv == Val::False {
                decide.push((x.does, Val::False));
            } else if self.open_actions[r as usize] == 1 {
                decide.push((x.does, Val::True));
            }
        }
        for (a, v) in decide {
            self.set(a, v);
        }
    }

    fn kill(&mut self, r: u32) {
        if !self.net.alive[r as usize] {
            return;
        }
        self.net.alive[r as usize] = false;
        let head = self.net.rules[r as usize].head;
        self.live[head] -= 1;
        if self.live[head] == 0 && self.net.kind[head] == Kind::Derived {
            self.set(head, Val::False);
        }
        let f = self.next_of[head];
        if f != NONE {
            let self_lit = Lit::pos(self.net.fluents[f as usize].atom);
            if !self.net.lits.get(r as usize).contains(&self_lit) {
                self.nonself[f as usize] -= 1;
            }
            self.check_fluent(f);
        }
    }

    /// Propagates decisions to the fixpoint.
    fn propagate(&mut self) {
        while let Some(a) = self.queue.pop() {
            let v = self.net.val[a];
            let occ = std::mem::take(&mut self.occ[a]);
            for &r in &occ {
                if !self.net.alive[r as usize] {
                    continue;
                }
                // The literal(s) over `a` in rule r (both signs cannot occur: removed at build).
                let l = *self
                    .net
                    .lits
                    .get(r as usize)
                    .iter()
                    .find(|&&l| l.atom() == a)
                    .expect("occurrence lists point at rules with the atom");
                let holds = (v == Val::True) != l.negated();
                if holds {
                    self.unresolved[r as usize] -= 1;
                    match self.unresolved[r as usize] {
                        0 => self.set(self.net.rules[r as usize].head, Val::True),
                        1 => self.check_persistence(r),
                        _ => {}
                    }
                } else {
                    self.kill(r);
                }
            }
            self.occ[a] = occ;
            // Inputs that depend on this atom.
            let f = self.next_of[a];
            if f != NONE {
                self.check_fluent(f);
            }
            let f = self.init_of[a];
            if f != NONE {
                self.check_fluent(f);
                let nx = self.net.fluents[f as usize].next;
                if let Some(nx) = nx {
                    for r in self.net.rules_of[nx].clone() {
                        if self.net.alive[r as usize] && self.unresolved[r as usize] == 1 {
                            self.check_persistence(r);
                        }
                    }
                }
            }
            let role = self.legal_of[a].role;
            if role != NONE {
                if v == Val::False {
                    self.open_actions[role as usize] -= 1;
                }
                self.check_role(role);
            }
        }
    }

    /// The strongly connected components of [`Self::graph`] over the atoms `only` accepts, and
    /// its edges; a negative edge inside a component is a negation cycle, reported as an error.
    fn stratified_sccs(
        &self,
        p: &Program,
        g: &Grounding,
        only: impl Fn(Atom) -> bool,
    ) -> Result<(Sccs, RuleEdges), GdlDiagnostic> {
        let (csr, edges) = self.graph(only);
        let s = sccs(&csr);
        for e in &edges {
            if e.negative && s.component_of[e.body.index()] == s.component_of[e.head.index()] {
                return Err(self.negation_cycle(p, g, &csr, e.body, e.head));
            }
        }
        Ok((s, edges))
    }

    /// The ground dependency graph over undecided atoms and live rules: edges body → head,
    /// with a flag per edge for negative literals. Each edge is listed once, in the order of
    /// its first occurrence (rule, then literal position); many instances of one rule share
    /// their edges, and repeating an edge changes neither the components nor which negative
    /// edge is found first. Relies on `rules_of` listing every live rule of each atom in
    /// increasing order.
    fn graph(&self, only: impl Fn(Atom) -> bool) -> (Csr, RuleEdges) {
        // Per body atom and sign: the head of the last edge recorded.
        let mut last: IndexVec<Atom, [Option<Atom>; 2]> =
            IndexVec::from_elem([None; 2], self.net.val.len());
        // (rule, literal position, edge) of each edge's first occurrence.
        let mut first: Vec<(u32, u32, DepEdge)> = Vec::new();
        for h in self.net.val.ids() {
            if self.net.val[h] != Val::Unknown || !only(h) {
                continue;
            }
            for &r in &self.net.rules_of[h] {
                if !self.net.alive[r as usize] {
                    continue;
                }
                debug_assert_eq!(self.net.rules[r as usize].head, h);
                for (k, &l) in self.net.lits.get(r as usize).iter().enumerate() {
                    let a = l.atom();
                    let seen = &mut last[a][l.negated() as usize];
                    if *seen != Some(h) && self.net.val[a] == Val::Unknown && only(a) {
                        *seen = Some(h);
                        let e = DepEdge {
                            body: a,
                            head: h,
                            negative: l.negated(),
                        };
                        first.push((r, k as u32, e));
                    }
                }
            }
        }
        first.sort_unstable_by_key(|&(r, k, _)| (r, k));
        let edges: RuleEdges = first.into_iter().map(|(_, _, e)| e).collect();
        let plain: Vec<(u32, u32)> = edges.iter().map(|e| (e.body.0, e.head.0)).collect();
        (
            Csr::from_edges(self.net.val.len(), plain.iter().copied()),
            edges,
        )
    }

    /// Gives undecided atoms that depend on no input their least-model value. Returns whether
    /// anything changed.
    fn settle_independent(&mut self, p: &Program, g: &Grounding) -> Result<bool, GdlDiagnostic> {
        let (
            Sccs {
                components: comps,
                component_of: comp_of,
            },
            _,
        ) = self.stratified_sccs(p, g, |_| true)?;
        let comps = atoms_of_components(comps);
        // Dependent = an input, or a live rule reading a dependent atom.
        let mut dependent = IndexVec::from_elem(false, self.net.val.len());
        let mut changed = false;
        for m in &comps {
            if m.iter().all(|&a| self.net.val[a] != Val::Unknown) {
                continue;
            }
            let dep = m.iter().any(|&a| {
                matches!(
                    self.net.kind[a],
                    Kind::Fluent(_) | Kind::Does(..) | Kind::Call(_)
                ) || self.net.rules_of[a].iter().any(|&r| {
                    self.net.alive[r as usize]
                        && self.net.lits.get(r as usize).iter().any(|&l| {
                            let b = l.atom();
                            self.net.val[b] == Val::Unknown && dependent[b]
                        })
                })
            });
            if dep {
                for &a in m {
                    dependent[a] = true;
                }
                continue;
            }
            // Least fixpoint inside the component (its other literals are decided).
            let c = comp_of[m[0].index()];
            let mut derived = vec![false; m.len()];
            let pos = |a: Atom| m.iter().position(|&x| x == a);
            let mut grew = true;
            while grew {
                grew = false;
                for (k, &a) in m.iter().enumerate() {
                    if derived[k] || self.net.val[a] != Val::Unknown {
                        continue;
                    }
                    let fires = self.net.rules_of[a].iter().any(|&r| {
                        self.net.alive[r as usize]
                            && self.net.lits.get(r as usize).iter().all(|&l| {
                                let b = l.atom();
                                match self.net.lit_value(l) {
                                    Val::True => true,
                                    Val::False => false,
                                    Val::Unknown => {
                                        comp_of[b.index()] == c
                                            && !l.negated()
                                            && pos(b).is_some_and(|j| derived[j])
                                    }
                                }
                            })
                    });
                    if fires {
                        derived[k] = true;
                        grew = true;
                    }
                }
            }
            for (k, &a) in m.iter().enumerate() {
                if self.net.val[a] == Val::Unknown {
                    self.set(a, if derived[k] { Val::True } else { Val::False });
                    changed = true;
                }
            }
            self.propagate();
        }
        Ok(changed)
    }

    /// Replaces atoms defined by a single rule with a single literal by that literal (not
    /// atoms whose value decides an input: `next`, `init`, `legal`). Returns whether anything
    /// changed.
    fn alias(&mut self) -> bool {
        let mut any = false;
        for a in self.net.val.ids() {
            if self.net.val[a] != Val::Unknown
                || self.net.kind[a] != Kind::Derived
                || self.net.alias[a] != NO_ALIAS
                || self.next_of[a] != NONE
                || self.init_of[a] != NONE
                || self.legal_of[a].role != NONE
                || self.live[a] != 1
            {
                continue;
            }
            let r = self.net.rules_of[a]
                .iter()
                .copied()
                .find(|&r| self.net.alive[r as usize])
                .expect("one live rule");
            let mut rest = self
                .net
                .lits
                .get(r as usize)
                .iter()
                .copied()
                .filter(|&l| self.net.val[l.atom()] == Val::Unknown);
            if let (Some(l), None) = (rest.next(), rest.next()) {
                if l.atom() != a {
                    self.net.alias[a] = l;
                    any = true;
                }
            }
        }
        if !any {
            return false;
        }
        // Resolve chains first (a cycle of aliases cannot be undecided: it has no base case
        // and depends on no input, so `settle_independent` decided it).
        for a in self.net.val.ids() {
            if self.net.alias[a] != NO_ALIAS {
                let l = self.net.resolve(self.net.alias[a]);
                self.net.alias[a] = l;
            }
        }
        for i in 0..self.net.rules.len() {
            if !self.net.alive[i] {
                continue;
            }
            if self.net.alias[self.net.rules[i].head] != NO_ALIAS {
                self.net.alive[i] = false;
                continue;
            }
            // Sorted and duplicate-free already: only decided or aliased literals change it.
            if self.net.lits.get(i).iter().all(|&l| {
                self.net.val[l.atom()] == Val::Unknown && self.net.alias[l.atom()] == NO_ALIAS
            }) {
                continue;
            }
            let mut lits: Vec<Lit> = self
                .net
                .lits
                .get(i)
                .iter()
                .filter(|&&l| self.net.val[l.atom()] == Val::Unknown)
                .map(|&l| self.net.resolve(l))
                .collect();
            lits.sort_unstable();
            lits.dedup();
            if lits.windows(2).any(|w| w[0].atom() == w[1].atom()) {
                lits.clear();
                self.net.alive[i] = false;
            }
            self.net.lits.shrink(i, &lits);
        }
        self.index();
        self.seed();
        self.propagate();
        true
    }

    /// Keeps the cone of influence, deduplicates rules, computes ground SCCs (E-VAL-031 for a
    /// negative edge inside one) and which atoms depend on the moves.
    fn finish(&mut self, p: &Program, g: &Grounding) -> Result<(), GdlDiagnostic> {
        self.read_keywords(g);
        self.compute_does_sets();
        let (needed, fluent_used) = self.cone_of_influence(g);
        let mut rules_of = self.live_rules(&needed);
        self.drop_subsumed(&mut rules_of);
        self.net.rules_of = rules_of;
        self.net.needed = needed;
        self.net.fluent_used = fluent_used;
        self.ground_sccs(p, g)
    }

    /// Reads the keyword atoms the lowering uses: each role's `goal` and `sees` atoms and the
    /// `terminal` atom.
    fn read_keywords(&mut self, g: &Grounding) {
        let role_term: Vec<GTerm> = self.net.roles.iter().map(|r| r.term).collect();
        let by_role = |rel: RelId| -> Vec<Vec<Keyed>> {
            let t = &g.tables[rel.index()];
            let mut v = vec![Vec::new(); role_term.len()];
            for r in 0..t.len() {
                let row = t.row(r);
                if let Some(i) = role_term.iter().position(|&x| x == row[0]) {
                    v[i].push(Keyed {
                        term: row[1],
                        atom: t.atom(r),
                    });
                }
            }
            v
        };
        self.net.goals = by_role(RelId::GOAL);
        self.net.sees = by_role(RelId::SEES);
        let tt = &g.tables[RelId::TERMINAL.index()];
        self.net.terminal = tt.find(&[]).map(|r| tt.atom(r));
    }

    /// The cone of influence: the atoms that the legality of a move, `terminal`, a goal or a
    /// percept of a player depends on (through rules, the next state of fluents they read, and
    /// what lifted relations may read), and the fluents among them. Returns both as flags.
    fn cone_of_influence(&self, g: &Grounding) -> (IndexVec<Atom, bool>, Vec<bool>) {
        let mut needed = IndexVec::from_elem(false, self.net.val.len());
        let mut fluent_used = vec![false; self.net.fluents.len()];
        let mut stack: Vec<Atom> = Vec::new();
        let push = |c: Cond, needed: &mut IndexVec<Atom, bool>, stack: &mut Vec<Atom>| {
            if let Cond::Lit(l) = c {
                let a = l.atom();
                if !needed[a] {
                    needed[a] = true;
                    stack.push(a);
                }
            }
        };
        for role in &self.net.roles {
            for x in &role.actions {
                push(self.net.cond(x.legal), &mut needed, &mut stack);
            }
        }
        push(self.net.cond(self.net.terminal), &mut needed, &mut stack);
        for (ri, role) in self.net.roles.iter().enumerate() {
            if role.random {
                continue;
            }
            for k in self.net.goals[ri].iter().chain(&self.net.sees[ri]) {
                push(self.net.cond(Some(k.atom)), &mut needed, &mut stack);
            }
        }
        let mut touched = crate::lower::lifted::Touched::default();
        let mut called: FxHashSet<u32> = FxHashSet::default();
        while let Some(a) = stack.pop() {
            if let Kind::Call(rel) = self.net.kind[a] {
                // What the lifted relation may read at run time (the same for all its calls).
                if !called.insert(rel) {
                    continue;
                }
                for &b in touched.atoms(g, rel) {
                    // Resolved first: an aliased atom has lost its rules (and so its value
                    // reads false), its alias is what the lowering reads.
                    let l = self.net.resolve(Lit::pos(b));
                    if self.net.val[l.atom()] == Val::Unknown {
                        push(Cond::Lit(l), &mut needed, &mut stack);
                    }
                }
                continue;
            }
            if let Kind::Fluent(f) = self.net.kind[a] {
                if !fluent_used[f as usize] {
                    fluent_used[f as usize] = true;
                    push(
                        self.net.cond(self.net.fluents[f as usize].next),
                        &mut needed,
                        &mut stack,
                    );
                }
                continue;
            }
            if self.net.does_sets.contains_key(&a) {
                continue;
            }
            for &r in &self.net.rules_of[a] {
                if !self.net.alive[r as usize] {
                    continue;
                }
                for &l in self.net.lits.get(r as usize) {
                    if self.net.val[l.atom()] == Val::Unknown {
                        push(Cond::Lit(l), &mut needed, &mut stack);
                    }
                }
            }
        }
        (needed, fluent_used)
    }

    /// Drops the rules of atoms outside the cone of influence (`needed`) or already decided,
    /// the decided literals of the others, and duplicate rules (the first of equal rules
    /// stays). Returns the live rules of each atom.
    fn live_rules(&mut self, needed: &IndexVec<Atom, bool>) -> IndexVec<Atom, Vec<u32>> {
        let n = self.net.val.len();
        let val = &self.net.val;
        for (i, r) in self.net.rules.iter().enumerate() {
            if !self.net.alive[i] || !needed[r.head] || val[r.head] != Val::Unknown {
                self.net.alive[i] = false;
                continue;
            }
            self.net.lits.retain(i, |l| val[l.atom()] == Val::Unknown);
        }
        let mut rules_of: IndexVec<Atom, Vec<u32>> = IndexVec::from_elem(Vec::new(), n);
        let mut duplicates = Vec::new();
        let mut seen: FxHashSet<(Atom, &[Lit])> = FxHashSet::default();
        for (i, r) in self.net.rules.iter().enumerate() {
            if !self.net.alive[i] {
                continue;
            }
            if seen.insert((r.head, self.net.lits.get(i))) {
                rules_of[r.head].push(i as u32);
            } else {
                duplicates.push(i);
            }
        }
        drop(seen);
        for i in duplicates {
            self.net.alive[i] = false;
        }
        rules_of
    }

    /// A rule whose body is a superset of another rule's body for the same head adds nothing;
    /// drops it (cheap for the short rule lists GDL produces).
    fn drop_subsumed(&mut self, rules_of: &mut IndexVec<Atom, Vec<u32>>) {
        for (_, rs) in rules_of.iter_mut() {
            if rs.len() < 2 || rs.len() > 64 {
                continue;
            }
            let mut keep = Vec::with_capacity(rs.len());
            for (x, &r) in rs.iter().enumerate() {
                let lr = self.net.lits.get(r as usize);
                let subsumed = rs.iter().enumerate().any(|(y, &s)| {
                    let ls = self.net.lits.get(s as usize);
                    x != y
                        && (ls.len() < lr.len() || (ls.len() == lr.len() && y < x))
                        && ls.iter().all(|l| lr.binary_search(l).is_ok())
                });
                if subsumed {
                    self.net.alive[r as usize] = false;
                } else {
                    keep.push(r);
                }
            }
            *rs = keep;
        }
    }

    /// The ground SCCs over the needed atoms (an error for a negative edge inside one), and
    /// which atoms depend on the moves (`does`, directly or through rules or lifted calls).
    fn ground_sccs(&mut self, p: &Program, g: &Grounding) -> Result<(), GdlDiagnostic> {
        let n = self.net.val.len();
        let needed = &self.net.needed;
        let (
            Sccs {
                components: comps, ..
            },
            edges,
        ) = self.stratified_sccs(p, g, |a| needed[a])?;
        let comps = atoms_of_components(comps);
        let mut self_loop = IndexVec::from_elem(false, n);
        for e in &edges {
            if e.body == e.head {
                self_loop[e.body] = true;
            }
        }
        self.net.scc_of = IndexVec::from_elem(NONE, n);
        self.net.move_dep = IndexVec::from_elem(false, n);
        for m in &comps {
            if m.len() > 1 || self_loop[m[0]] {
                let k = self.net.sccs.len() as u32;
                for &a in m {
                    self.net.scc_of[a] = k;
                }
                self.net.sccs.push(m.clone());
            }
            let dep = m.iter().any(|&a| {
                matches!(self.net.kind[a], Kind::Does(..))
                    || matches!(self.net.kind[a], Kind::Call(rel) if g.rels[rel as usize].reads_does)
                    || self.net.does_sets.contains_key(&a)
                    || self.net.rules_of[a].iter().any(|&r| {
                        self.net.lits.get(r as usize).iter().any(|&l| {
                            let b = l.atom();
                            self.net.move_dep[b] || matches!(self.net.kind[b], Kind::Does(..))
                        })
                    })
            });
            for &a in m {
                self.net.move_dep[a] = dep;
            }
        }
        Ok(())
    }

    /// Finds the atoms that are sets of moves (see [`DoesSet`]), dependencies first.
    fn compute_does_sets(&mut self) {
        let universes: Vec<Vec<u32>> = (0..self.net.roles.len() as u32)
            .map(|r| self.net.open_actions_of(r))
            .collect();
        let (csr, _) = self.graph(|_| true);
        for m in atoms_of_components(sccs(&csr).components) {
            let a = m[0];
            if m.len() == 1 && self.net.kind[a] == Kind::Derived && self.net.val[a] == Val::Unknown
            {
                if let Some(set) = self.does_set_of(a, &universes) {
                    self.net.does_sets.insert(a, set);
                }
            }
        }
    }

    /// The move set atom `a` stands for, if it is one (its body atoms already analysed).
    fn does_set_of(&self, a: Atom, universes: &[Vec<u32>]) -> Option<DoesSet> {
        // Per role: the union of the plain parts, and the intersection of the complement
        // lists (a union of complements is the complement of the intersection).
        let mut plain: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut compl: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut any = false;
        let mut size = 0usize;
        for &r in &self.net.rules_of[a] {
            if !self.net.alive[r as usize] {
                continue;
            }
            any = true;
            let mut lits = self
                .net
                .lits
                .get(r as usize)
                .iter()
                .copied()
                .filter(|&l| self.net.val[l.atom()] == Val::Unknown);
            let (Some(l), None) = (lits.next(), lits.next()) else {
                return None;
            };
            if l.negated() {
                return None;
            }
            let b = l.atom();
            let mut add_plain =
                |role: u32, items: &[u32]| match plain.iter_mut().find(|x| x.0 == role) {
                    Some(x) => x.1.extend_from_slice(items),
                    None => plain.push((role, items.to_vec())),
                };
            match self.net.kind[b] {
                Kind::Does(RoleAction { role, action }) if role != NONE => {
                    add_plain(role, &[action])
                }
                Kind::Derived => {
                    for m in self.net.does_sets.get(&b)? {
                        if m.complement {
                            match compl.iter_mut().find(|x| x.0 == m.role) {
                                Some(x) => x.1.retain(|v| m.actions.binary_search(v).is_ok()),
                                None => compl.push((m.role, m.actions.clone())),
                            }
                        } else {
                            add_plain(m.role, &m.actions);
                        }
                        size += m.actions.len();
                    }
                }
                _ => return None,
            }
            size += 1;
            if size > 8 * MAX_DOES_SET {
                return None;
            }
        }
        if !any {
            return None;
        }
        let mut roles: Vec<u32> = plain.iter().chain(&compl).map(|x| x.0).collect();
        roles.sort_unstable();
        roles.dedup();
        let mut out: DoesSet = Vec::new();
        for role in roles {
            let universe = &universes[role as usize];
            let mut p = plain
                .iter()
                .find(|x| x.0 == role)
                .map(|x| x.1.clone())
                .unwrap_or_default();
            p.sort_unstable();
            p.dedup();
            let m = match compl.iter().find(|x| x.0 == role) {
                Some((_, c)) => MoveSet {
                    role,
                    complement: true,
                    actions: minus(c, &p),
                },
                None => MoveSet {
                    role,
                    complement: false,
                    actions: p,
                },
            };
            out.push(normalise(m, universe));
        }
        if out.iter().map(|m| m.actions.len()).sum::<usize>() > MAX_DOES_SET {
            return None;
        }
        Some(out)
    }

    /// E-VAL-031 for the negative edge `a → b` inside one component.
    fn negation_cycle(
        &self,
        p: &Program,
        g: &Grounding,
        csr: &Csr,
        a: Atom,
        b: Atom,
    ) -> GdlDiagnostic {
        // A path from b back to a closes the cycle (the graph's nodes are atom numbers).
        let (a, b) = (a.0, b.0);
        let mut prev = vec![NONE; self.net.val.len()];
        let mut queue = std::collections::VecDeque::from([b]);
        prev[b as usize] = b;
        while let Some(x) = queue.pop_front() {
            if x == a {
                break;
            }
            for &y in csr.successors(x) {
                if prev[y as usize] == NONE {
                    prev[y as usize] = x;
                    queue.push_back(y);
                }
            }
        }
        let mut path = vec![a];
        let mut x = a;
        while x != b && prev[x as usize] != NONE && path.len() <= self.net.val.len() {
            x = prev[x as usize];
            path.push(x);
        }
        path.reverse();
        let show = |x: u32| format!("`{}`", g.display_atom(p, Atom(x)));
        let via: Vec<String> = path.iter().map(|&x| show(x)).collect();
        let span = self.net.rules_of[Atom(b)]
            .iter()
            .find(|&&r| {
                self.net.alive[r as usize]
                    && self.net.lits.get(r as usize).contains(&Lit::neg(Atom(a)))
            })
            .and_then(|&r| g.rule_span(p, self.net.rules[r as usize].src))
            .unwrap_or(Span::new(p.file(), 0, 0));
        GdlDiagnostic::new(
            Code::GroundNegationCycle,
            span,
            format!(
                "negation cycle: {} depends on `not {}`, which depends on {} (path {})",
                show(b),
                g.display_atom(p, Atom(a)),
                show(b),
                via.join(" → ")
            ),
        )
        .with_label("this rule negates an atom that depends on its head")
        .with_help("GDL requires stratified negation: no atom may depend on its own negation")
    }
}

/// A set of moves of one role: `actions` (by action number, increasing), or every possible
/// action except them when `complement` is set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MoveSet {
    pub(crate) role: u32,
    pub(crate) complement: bool,
    pub(crate) actions: Vec<u32>,
}

/// An atom that holds iff some role's move is in a set: every rule has one positive literal,
/// over a `does` atom or another such atom. One entry per role involved.
pub(crate) type DoesSet = Vec<MoveSet>;

/// Largest does-set kept (entries over all roles), so memory stays linear in the game.
const MAX_DOES_SET: usize = 8192;

/// A condition of the lowering: constant, or a literal over an undecided atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    True,
    False,
    Lit(Lit),
}

/// Sorted-list difference `a \ b`.
fn minus(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter()
        .copied()
        .filter(|x| b.binary_search(x).is_err())
        .collect()
}

/// The smaller of a set's two representations, given the role's possible actions.
fn normalise(m: MoveSet, universe: &[u32]) -> MoveSet {
    if universe.len() - m.actions.len().min(universe.len()) < m.actions.len() {
        MoveSet {
            role: m.role,
            complement: !m.complement,
            actions: minus(universe, &m.actions),
        }
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::GroundLimits;
    use crate::ground::tests::ground_text;

    fn net(text: &str) -> Result<(Program, Grounding, Net), GdlDiagnostic> {
        let (p, g) = ground_text(text, &GroundLimits::default())?;
        let n = Net::build(&p, &g)?;
        Ok((p, g, n))
    }

    /// The value of the `true(f)` atom of the fluent displayed as `f`.
    fn fluent(p: &Program, g: &Grounding, n: &Net, f: &str) -> Val {
        let fl = n
            .fluents
            .iter()
            .find(|x| g.display_term(p, x.term) == f)
            .unwrap_or_else(|| panic!("no fluent {f}"));
        n.val[fl.atom]
    }

    fn atom_cond(p: &Program, g: &Grounding, n: &Net, a: &str) -> Cond {
        let id = g
            .atom_ids()
            .find(|&x| g.display_atom(p, x) == a)
            .unwrap_or_else(|| panic!("no atom {a}"));
        n.cond(Some(id))
    }

    #[test]
    fn constant_fluents_and_forced_moves_are_decided() {
        let text = "(role a) (role b)
            (init wall) (init (at 1)) (succ 1 2) (succ 2 3)
            (<= (next wall) (true wall))
            (<= (next (at ?y)) (true (at ?x)) (succ ?x ?y) (does a step))
            (<= (next ghost) (true ghost))
            (<= (legal a step) (true (at ?x)))
            (<= (legal b wait) (true wall))
            (<= (legal b jump) (true ghost))
            (<= terminal (true (at 3)))
            (<= (goal a 100) (true wall)) (<= (goal b 0) (true wall))";
        let (p, g, n) = net(text).expect("valid");
        // `wall` is initial and persists; `ghost` (if it were reachable) only re-derives itself.
        assert_eq!(fluent(&p, &g, &n, "wall"), Val::True);
        assert!(
            n.fluents
                .iter()
                .all(|f| g.display_term(&p, f.term) != "ghost")
        );
        assert_eq!(fluent(&p, &g, &n, "(at 2)"), Val::Unknown);
        // a's only action is forced; b's `jump` needs ghost, which never holds.
        assert_eq!(atom_cond(&p, &g, &n, "(does a step)"), Cond::True);
        assert_eq!(atom_cond(&p, &g, &n, "(legal b wait)"), Cond::True);
        // Goals read the constant fluent.
        assert_eq!(atom_cond(&p, &g, &n, "(goal a 100)"), Cond::True);
    }

    #[test]
    fn a_next_fact_makes_its_fluent_hold_after_the_first_step() {
        // GGP-Base's test_case_5b/5e: `(next done)` is a fact; `done` is false initially.
        let text = "(role a) (init s0) (next done)
            (<= (legal a go) (true s0))
            (<= terminal (true done)) (<= (goal a 100) (true done))";
        let (p, g, n) = net(text).expect("valid");
        assert_eq!(fluent(&p, &g, &n, "done"), Val::Unknown);
        assert!(matches!(atom_cond(&p, &g, &n, "terminal"), Cond::Lit(_)));
    }

    #[test]
    fn sign_aware_simplification() {
        // A derived constant (`blocked`) and an undefined relation (`q`) under negation.
        let text = "(role a) (init s0) (base_fact 1)
            (<= blocked (base_fact 1))
            (<= (legal a go) (true s0))
            (<= (legal a bad) (true s0) (not blocked))
            (<= (legal a ok) (true s0) (not q))
            (<= (next s1) (true s0))
            (<= terminal (true s1)) (<= (goal a 100) (true s1))";
        let (p, g, n) = net(text).expect("valid");
        let l = |a: &str| {
            g.atom_ids()
                .find(|&x| g.display_atom(&p, x) == a)
                .map(|x| n.cond(Some(x)))
        };
        assert!(matches!(l("(legal a go)"), Some(Cond::Lit(_))));
        assert!(matches!(l("(legal a ok)"), Some(Cond::Lit(_))));
        assert!(matches!(l("(legal a bad)"), None | Some(Cond::False)));
    }

    #[test]
    fn input_independent_cycles_take_their_least_model() {
        // A relation-level negation cycle that is stratified on ground atoms: p2 only
        // supports itself (false), so p1 = not p2 holds.
        let text = "(role a) (init s0)
            (<= (p 1) (not (p 2)))
            (<= (p 2) (p 2))
            (<= (legal a go) (true s0) (p 1))
            (<= (legal a no) (true s0) (p 2))
            (<= (next s1) (true s0))
            (<= terminal (true s1)) (<= (goal a 100) (true s1))";
        let (p, g, n) = net(text).expect("valid");
        assert!(matches!(
            atom_cond(&p, &g, &n, "(legal a go)"),
            Cond::Lit(_)
        ));
        assert_eq!(atom_cond(&p, &g, &n, "(p 1)"), Cond::True);
        // `(p 2)` has no well-founded support: the grounder never derives it.
        assert!(g.atom_ids().all(|x| g.display_atom(&p, x) != "(p 2)"));
    }

    #[test]
    fn ground_negation_cycles_are_errors() {
        let text = "(role a) (init s0) (init s2)
            (<= (p 1) (true s2) (not (q 1)))
            (<= (q 1) (true s2) (p 1))
            (<= (legal a go) (true s0) (q 1))
            (<= (next s1) (true s0))
            (<= terminal (true s1)) (<= (goal a 100) (true s1))";
        let e = net(text).expect_err("a ground negation cycle");
        assert_eq!(e.code, Code::GroundNegationCycle);
        assert!(
            e.message.contains("(q 1)") && e.message.contains("(p 1)"),
            "{}",
            e.message
        );
    }

    #[test]
    fn recursion_through_the_state_is_kept_as_components() {
        // Reachability over open nodes: linear recursion through the state.
        let text = "(role a)
            (init (open 1)) (init (open 2)) (init (open 3))
            (adj 1 2) (adj 2 1) (adj 2 3) (adj 3 2)
            (<= (reach 1) (true (open 1)))
            (<= (reach ?y) (reach ?x) (adj ?x ?y) (true (open ?y)))
            (<= (legal a (close ?x)) (true (open ?x)))
            (<= (next (open ?x)) (true (open ?x)) (not (does a (close ?x))))
            (<= (next done) (does a (close ?x)))
            (<= terminal (true done))
            (<= (goal a 100) (not (reach 2)))
            (<= (goal a 0) (reach 2))";
        let (_, _, n) = net(text).expect("valid");
        assert_eq!(n.sccs.len(), 1);
        assert_eq!(n.sccs[0].len(), 3);
    }
}
