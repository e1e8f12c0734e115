//! Join planning and execution for one rule, in semi-naive evaluation: each round joins at
//! least one literal (the pivot) against the atoms the previous round found.
//!
//! A [`Plan`] orders a rule's body for evaluation: the semi-naive pivot first, then greedily
//! the positive literal with the fewest expected matches given the variables bound so far
//! (relation size divided by the distinct-value counts of its bound columns), with every
//! `distinct`, negative and fully bound literal scheduled as soon as its variables are bound.
//! Literals that only serve to check that *some* value exists for variables used nowhere else
//! (neither in the head nor in a relaxed literal) form a final *exists block* that stops at
//! its first match, so such variables never multiply the instances.
//!
//! Scans look rows up in the relation's index for what is known at that point (built lazily,
//! one per access pattern actually used): the functor and arity of every compound sub-term of
//! the literal, and the value of every sub-term that is already bound, so `(true (cell ?x 3
//! ?p))` with `?x` bound visits only the `(cell x 3 _)` facts. The rest of the literal is
//! matched against each row found, binding variables. Because each variable's first binding step is known at
//! plan time, matching never needs to undo bindings.

use super::rules::{IRule, LitKind, Mode, Pat, Rel};
use super::table::{IndexSpec, Path, Table, at};
use super::terms::{GTerm, TermStore};

/// Which rows of a relation a literal reads (semi-naive evaluation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Range {
    /// Rows before the current delta.
    Old,
    /// The current delta.
    Delta,
    /// Old and delta (everything known at the start of the round).
    All,
}

impl Range {
    fn bounds(self, t: &Table) -> (u32, u32) {
        match self {
            Range::Old => (0, t.stable),
            Range::Delta => (t.stable, t.frontier),
            Range::All => (0, t.frontier),
        }
    }
}

/// A pattern compiled for matching against a ground term.
#[derive(Clone, Debug)]
enum MPat {
    /// First occurrence of a variable: bind it.
    Bind(u16),
    /// Later occurrence: compare.
    Check(u16),
    Ground(GTerm),
    /// `(f p1 … pk)`: the term's tuple must be `[f, …]` of length k + 1.
    Fn(u32, Box<[MPat]>),
}

#[derive(Clone, Debug)]
enum Step {
    /// Iterate the matching rows of a literal.
    Scan {
        lit: u16,
        rel: u32,
        range: Range,
        /// The index (into the table's indexes) and the key patterns (all bound), unless the
        /// literal constrains nothing before the scan (then every row in range is tried).
        index: Option<usize>,
        key: Box<[Pat]>,
        /// What the index does not check: the sub-term at a path and its pattern.
        rest: Box<[(Path, MPat)]>,
    },
    /// Look up a fully bound atom.
    Probe {
        lit: u16,
        rel: u32,
        range: Range,
        args: Box<[Pat]>,
        negated: bool,
    },
    /// `(distinct a b)` with both sides bound.
    Distinct(Pat, Pat),
}

/// An evaluation order for one rule and pivot.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    steps: Vec<Step>,
    /// `steps[exists_from..]` stop at their first complete match.
    exists_from: usize,
    /// Per step: the variables bound before it that it or a later step reads (not counting
    /// the emission), if the step is a scan worth remembering failures for. The steps from
    /// there on find a match or not depending on these values only, so a combination that
    /// found none is not searched again (this skips only searches that emit nothing: the
    /// output and its order do not change).
    memo: Vec<Option<Box<[u16]>>>,
    /// The indexes the plan reads: (relation, index number).
    pub(crate) indexes: Vec<(u32, usize)>,
}

/// Whether every variable of `p` is bound.
fn bound_pat(p: &Pat, bound: &[bool]) -> bool {
    match p {
        Pat::Var(v) => bound[*v as usize],
        Pat::Ground(_) => true,
        Pat::Fn(_, args) => args.iter().all(|a| bound_pat(a, bound)),
    }
}

fn compile_match(p: &Pat, bound: &mut [bool]) -> MPat {
    match p {
        Pat::Var(v) => {
            if bound[*v as usize] {
                MPat::Check(*v)
            } else {
                bound[*v as usize] = true;
                MPat::Bind(*v)
            }
        }
        Pat::Ground(g) => MPat::Ground(*g),
        Pat::Fn(f, args) => MPat::Fn(*f, args.iter().map(|a| compile_match(a, bound)).collect()),
    }
}

/// Splits the sub-pattern `p` at `path` of a scanned literal into what the index checks
/// (shape tests and keys: the parts bound before the scan, per `before`) and what is left to
/// match against each row (`rest`, binding variables in pre-order).
fn split(
    p: &Pat,
    path: &mut Vec<u32>,
    before: &[bool],
    bound: &mut [bool],
    spec: &mut IndexSpec,
    key: &mut Vec<Pat>,
    rest: &mut Vec<(Path, MPat)>,
) {
    if bound_pat(p, before) {
        spec.keys.push(path.as_slice().into());
        key.push(p.clone());
        return;
    }
    match p {
        Pat::Fn(f, args) => {
            spec.shapes
                .push((path.as_slice().into(), *f, args.len() as u32));
            for (c, a) in args.iter().enumerate() {
                path.push(c as u32);
                split(a, path, before, bound, spec, key, rest);
                path.pop();
            }
        }
        _ => rest.push((path.as_slice().into(), compile_match(p, bound))),
    }
}

/// Plans `rule` with `pivot` (the literal reading the delta), given the component `comp` of
/// each relation: literals over the head's component read old rows before the pivot and all
/// rows after it. Creates the indexes the plan needs (not yet refreshed).
///
/// The pivot comes first. Then, in two phases, filters and fully bound literals are scheduled
/// as soon as they can be, and otherwise the cheapest remaining positive literal: phase 0 takes
/// the literals that bind a variable of the head or of a relaxed or lifted literal (those that
/// make instances differ), phase 1 the rest, which only test that some binding exists.
pub(crate) fn plan(
    rule: &IRule,
    pivot: Option<usize>,
    rels: &[Rel],
    comp: &[u32],
    tables: &mut [Table],
) -> Result<Plan, String> {
    let mut pl = Planner::new(rule, pivot, rels, comp, tables);
    let mut exists_from = usize::MAX;
    if let Some(p) = pivot {
        pl.schedule(p);
        pl.done[p] = true;
    }
    for phase in 0..2 {
        if phase == 1 {
            exists_from = pl.steps.len();
        }
        loop {
            pl.schedule_ready();
            match pl.cheapest(phase) {
                Some(i) => {
                    pl.schedule(i);
                    pl.done[i] = true;
                }
                None => break,
            }
        }
    }
    pl.check_safety()?;
    let memo = memo_inputs(&pl.steps, rule.nvars);
    Ok(Plan {
        memo,
        steps: pl.steps,
        exists_from,
        indexes: pl.indexes,
    })
}

/// The state of [`plan`] for one rule: which variables are bound and which literals are
/// scheduled so far.
struct Planner<'r, 't> {
    rule: &'r IRule,
    pivot: Option<usize>,
    rels: &'r [Rel],
    comp: &'r [u32],
    tables: &'t mut [Table],
    /// Local variables: in neither the head nor a relaxed or lifted literal.
    local: Vec<bool>,
    /// The variables bound by the steps so far.
    bound: Vec<bool>,
    /// The body literals scheduled so far.
    done: Vec<bool>,
    steps: Vec<Step>,
    /// The indexes the steps use, as (relation, index).
    indexes: Vec<(u32, usize)>,
}

impl<'r, 't> Planner<'r, 't> {
    /// Nothing scheduled yet.
    fn new(
        rule: &'r IRule,
        pivot: Option<usize>,
        rels: &'r [Rel],
        comp: &'r [u32],
        tables: &'t mut [Table],
    ) -> Self {
        let mut pl = Planner {
            rule,
            pivot,
            rels,
            comp,
            tables,
            local: vec![true; rule.nvars],
            bound: vec![false; rule.nvars],
            done: vec![false; rule.body.len()],
            steps: Vec::new(),
            indexes: Vec::new(),
        };
        for h in rule.head.iter() {
            h.for_each_var(&mut |v| pl.local[v as usize] = false);
        }
        for (i, l) in rule.body.iter().enumerate() {
            if pl.is_relaxed(i) || pl.is_lifted(i) {
                l.args
                    .iter()
                    .for_each(|a| a.for_each_var(&mut |v| pl.local[v as usize] = false));
            }
        }
        pl
    }

    /// The rows literal `i` reads: literals over the head's component read old rows before
    /// the pivot, the delta at the pivot and all rows after it; the others all rows.
    fn range_of(&self, i: usize) -> Range {
        let l = &self.rule.body[i];
        if self.comp[l.rel as usize] != self.comp[self.rule.rel as usize] {
            return Range::All;
        }
        match self.pivot {
            Some(p) if i < p => Range::Old,
            Some(p) if i == p => Range::Delta,
            _ => Range::All,
        }
    }

    /// Relaxed literals that end up in ground instances (domain literals never do).
    fn is_relaxed(&self, i: usize) -> bool {
        matches!(self.rule.body[i].kind, LitKind::Pos | LitKind::Neg)
            && self.rels[self.rule.body[i].rel as usize].mode == Mode::Relaxed
    }

    /// Literals over lifted relations: recorded as calls once their variables are bound, never
    /// enumerated (they hold in M⁺).
    fn is_lifted(&self, i: usize) -> bool {
        matches!(self.rule.body[i].kind, LitKind::Pos | LitKind::Neg)
            && self.rels[self.rule.body[i].rel as usize].mode == Mode::Lifted
    }

    /// Schedules positive literal `i` as a probe (all its arguments bound) or a scan (through
    /// an index on its bound positions when it has any).
    fn schedule(&mut self, i: usize) {
        let l = &self.rule.body[i];
        let range = self.range_of(i);
        if l.args.iter().all(|a| bound_pat(a, &self.bound)) {
            self.steps.push(Step::Probe {
                lit: i as u16,
                rel: l.rel,
                range,
                args: l.args.clone(),
                negated: false,
            });
            return;
        }
        let before = self.bound.clone();
        let mut spec = IndexSpec::default();
        let mut key = Vec::new();
        let mut rest = Vec::new();
        let mut path = Vec::new();
        for (p, a) in l.args.iter().enumerate() {
            path.push(p as u32);
            split(
                a,
                &mut path,
                &before,
                &mut self.bound,
                &mut spec,
                &mut key,
                &mut rest,
            );
            path.pop();
        }
        let index = if spec.is_trivial() {
            None
        } else {
            let ix = self.tables[l.rel as usize].index_for(&spec);
            if !self.indexes.contains(&(l.rel, ix)) {
                self.indexes.push((l.rel, ix));
            }
            Some(ix)
        };
        self.steps.push(Step::Scan {
            lit: i as u16,
            rel: l.rel,
            range,
            index,
            key: key.into(),
            rest: rest.into(),
        });
    }

    /// Schedules filters and fully bound literals, until none is left whose variables are
    /// all bound (negations over relaxed relations and literals over lifted ones produce no
    /// step: they end up in the instances).
    fn schedule_ready(&mut self) {
        let rule = self.rule;
        let mut progress = true;
        while progress {
            progress = false;
            for (i, l) in rule.body.iter().enumerate() {
                if self.done[i] || !l.args.iter().all(|a| bound_pat(a, &self.bound)) {
                    continue;
                }
                match l.kind {
                    LitKind::Distinct => self
                        .steps
                        .push(Step::Distinct(l.args[0].clone(), l.args[1].clone())),
                    _ if self.is_lifted(i) => {}
                    LitKind::Neg => {
                        if !self.is_relaxed(i) {
                            self.steps.push(Step::Probe {
                                lit: i as u16,
                                rel: l.rel,
                                range: Range::All,
                                args: l.args.clone(),
                                negated: true,
                            });
                        }
                    }
                    LitKind::Pos | LitKind::Domain => self.schedule(i),
                }
                self.done[i] = true;
                progress = true;
            }
        }
    }

    /// The cheapest remaining positive literal of `phase` (the fewest rows expected after the
    /// bound positions are fixed), if any. Phase 0 skips the literals that bind only local
    /// variables (unless relaxed).
    fn cheapest(&self, phase: usize) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (i, l) in self.rule.body.iter().enumerate() {
            if self.done[i]
                || !matches!(l.kind, LitKind::Pos | LitKind::Domain)
                || self.is_lifted(i)
            {
                continue;
            }
            let mut has_main_var = false;
            l.args.iter().for_each(|a| {
                a.for_each_var(&mut |v| {
                    if !self.bound[v as usize] && !self.local[v as usize] {
                        has_main_var = true;
                    }
                })
            });
            if phase == 0 && !has_main_var && !self.is_relaxed(i) {
                continue;
            }
            let t = &self.tables[l.rel as usize];
            let (lo, hi) = self.range_of(i).bounds(t);
            let mut est = f64::from(hi.saturating_sub(lo));
            for (p, a) in l.args.iter().enumerate() {
                if bound_pat(a, &self.bound) {
                    est /= t.distinct_in(p).max(1) as f64;
                }
            }
            if best.is_none_or(|(b, _)| est < b) {
                best = Some((est, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Safety: every literal scheduled (but negations over relaxed relations, which go to the
    /// instances) and every variable of a negation or of the head bound.
    fn check_safety(&self) -> Result<(), String> {
        let rule = self.rule;
        for (i, l) in rule.body.iter().enumerate() {
            if !self.done[i] && (l.kind != LitKind::Neg || !self.is_relaxed(i)) {
                return Err("a variable of a negative or `distinct` literal is not bound by any positive literal".into());
            }
            if l.kind == LitKind::Neg && !l.args.iter().all(|a| bound_pat(a, &self.bound)) {
                return Err(
                    "a variable of a negative literal is not bound by any positive literal".into(),
                );
            }
        }
        if !rule.head.iter().all(|a| bound_pat(a, &self.bound)) {
            return Err("a variable of the head is not bound by any positive literal".into());
        }
        Ok(())
    }
}

/// [`Plan::memo`] for `steps`: scans after the first with a later step, keyed by their inputs.
fn memo_inputs(steps: &[Step], nvars: usize) -> Vec<Option<Box<[u16]>>> {
    fn pat_vars(p: &Pat, out: &mut Vec<u16>) {
        p.for_each_var(&mut |v| out.push(v));
    }
    fn mpat_vars(p: &MPat, checks: &mut Vec<u16>, binds: &mut Vec<u16>) {
        match p {
            MPat::Bind(v) => binds.push(*v),
            MPat::Check(v) => checks.push(*v),
            MPat::Ground(_) => {}
            MPat::Fn(_, args) => args.iter().for_each(|a| mpat_vars(a, checks, binds)),
        }
    }
    // Per step: variables read and bound.
    let mut reads = Vec::with_capacity(steps.len());
    let mut binds = Vec::with_capacity(steps.len());
    for st in steps {
        let (mut r, mut b) = (Vec::new(), Vec::new());
        match st {
            Step::Scan { key, rest, .. } => {
                key.iter().for_each(|p| pat_vars(p, &mut r));
                rest.iter().for_each(|(_, m)| mpat_vars(m, &mut r, &mut b));
            }
            Step::Probe { args, .. } => args.iter().for_each(|p| pat_vars(p, &mut r)),
            Step::Distinct(x, y) => {
                pat_vars(x, &mut r);
                pat_vars(y, &mut r);
            }
        }
        reads.push(r);
        binds.push(b);
    }
    let mut bound_before = vec![vec![false; nvars]; steps.len()];
    for k in 1..steps.len() {
        let mut b = bound_before[k - 1].clone();
        binds[k - 1].iter().for_each(|&v| b[v as usize] = true);
        bound_before[k] = b;
    }
    let mut memo = vec![None; steps.len()];
    let mut later = vec![false; nvars];
    for k in (1..steps.len()).rev() {
        reads[k].iter().for_each(|&v| later[v as usize] = true);
        if k + 1 < steps.len() && matches!(steps[k], Step::Scan { .. }) {
            let inputs: Box<[u16]> = (0..nvars as u16)
                .filter(|&v| later[v as usize] && bound_before[k][v as usize])
                .collect();
            if !inputs.is_empty() {
                memo[k] = Some(inputs);
            }
        }
    }
    memo
}

/// Why an execution stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A guard tripped (checked by the callback, or the instance budget).
    Guard,
    /// A term deeper than the limit would have been built.
    Depth,
    /// A rule that records no instances found more new atoms than [`Budgets::new_atoms`]
    /// allows, over the limit [`Budgets::over_new_atoms`] says.
    Atoms(AtomLimit),
    /// The recorded instances would store more terms than [`Budgets::max_terms`].
    Terms,
    /// A recording rule emitted more instances than [`Budgets::soft_instances`].
    SoftInstances,
    /// The ground terms built would take more words than [`Budgets::max_store_words`] (wide
    /// atoms: few of them, each with many arguments).
    Store,
}

/// The limit behind [`Budgets::new_atoms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomLimit {
    /// The hard limit of ground atoms (E-GND-050).
    Hard,
    /// The soft limit of atoms per relation: lift the head relation and ground again.
    Soft,
}

/// A recorded literal before grounding ends: a positive literal over a relaxed atom is known,
/// everything else is an interned `[rel, args…]` tuple ([`NegAtoms`]) resolved against the
/// final tables (a negative relaxed atom outside M⁺ is false) or, for lifted relations, made
/// into a call atom. Encoded as `id << 2 | tag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pending {
    /// A positive literal: the atom id.
    Atom = 0,
    /// A negative literal over a relaxed relation.
    Negated = 1,
    /// A positive literal over a lifted relation.
    Call = 2,
    /// A negative literal over a lifted relation.
    NegatedCall = 3,
}

impl Pending {
    pub(crate) fn encode(self, id: u32) -> u32 {
        id << 2 | self as u32
    }

    pub(crate) fn decode(x: u32) -> (Pending, u32) {
        let tag = match x & 3 {
            0 => Pending::Atom,
            1 => Pending::Negated,
            2 => Pending::Call,
            _ => Pending::NegatedCall,
        };
        (tag, x >> 2)
    }
}

/// Interned literals whose atom is resolved when grounding ends (see [`Pending`]):
/// `[rel, args…]` tuples.
#[derive(Debug, Default)]
pub(crate) struct NegAtoms {
    data: Vec<u32>,
    start: Vec<u32>,
    set: super::hash::TupleSet,
}

impl NegAtoms {
    pub(crate) fn intern(&mut self, key: &[u32]) -> u32 {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let h = super::hash::hash_tuple(key);
        let (data, start) = (&self.data, &self.start);
        if let Some(i) = self.set.find_hashed(h, key, |r| {
            &data[start[r as usize] as usize..start[r as usize + 1] as usize]
        }) {
            return i;
        }
        let id = (self.start.len() - 1) as u32;
        self.data.extend_from_slice(key);
        self.start.push(self.data.len() as u32);
        self.set.insert_new(h, id);
        id
    }

    /// The terms stored (the arguments of every interned literal and its relation).
    pub(crate) fn words(&self) -> usize {
        self.data.len()
    }

    pub(crate) fn get(&self, i: u32) -> &[u32] {
        &self.data[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// Output of one plan execution: head tuples and, for recorded rules, instance bodies.
#[derive(Debug, Default)]
pub(crate) struct Emitted {
    /// Head tuples, `arity` terms each.
    pub(crate) heads: Vec<GTerm>,
    pub(crate) count: usize,
    /// Per emitted head: end offset into `lits`.
    pub(crate) ends: Vec<u32>,
    /// Body literals, [`Pending`]-encoded.
    pub(crate) lits: Vec<u32>,
    /// For a rule that records no instances: the emitted heads (by number), so that each new
    /// head is emitted once and `count` is the number of new atoms.
    seen: super::hash::TupleSet,
}

impl Emitted {
    pub(crate) fn clear(&mut self) {
        self.heads.clear();
        self.count = 0;
        self.ends.clear();
        self.lits.clear();
        self.seen = super::hash::TupleSet::default();
    }
}

/// The limits of one run of a plan (see [`Exec::budgets`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budgets {
    /// Instances a recording rule may emit before the instance guard trips ([`Stop::Guard`]).
    pub(crate) instances: u64,
    /// Instances it may emit before its soft limit trips ([`Stop::SoftInstances`]).
    pub(crate) soft_instances: u64,
    /// New atoms a rule that records no instances may find (heads already in its table, or
    /// already found in this run, are not emitted again) before stopping with [`Stop::Atoms`]:
    /// the emitted heads never outgrow the atom limits.
    pub(crate) new_atoms: u64,
    /// Which limit `new_atoms` stands for.
    pub(crate) over_new_atoms: AtomLimit,
    /// The terms the recorded instances may store in all ([`Stop::Terms`]): three per
    /// instance, one per body literal, and the interned literals resolved when grounding ends
    /// ([`NegAtoms`]).
    pub(crate) max_terms: u64,
    /// The terms stored before this run, without the interned literals (counted as they grow).
    pub(crate) terms_before: u64,
    /// The words the store of ground terms may take ([`Stop::Store`]).
    pub(crate) max_store_words: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            instances: u64::MAX,
            soft_instances: u64::MAX,
            new_atoms: u64::MAX,
            over_new_atoms: AtomLimit::Hard,
            max_terms: u64::MAX,
            terms_before: 0,
            max_store_words: u64::MAX,
        }
    }
}

/// Runs plans.
pub(crate) struct Exec<'a> {
    pub(crate) tables: &'a [Table],
    pub(crate) store: &'a mut TermStore,
    pub(crate) neg: &'a mut NegAtoms,
    pub(crate) rels: &'a [Rel],
    pub(crate) max_depth: u16,
    /// Called every 4096 work units; returns false to stop.
    pub(crate) tick: &'a mut dyn FnMut() -> bool,
    pub(crate) work: u64,
    /// What this run may emit: everything it emits is counted before it is stored.
    pub(crate) budgets: Budgets,
    vals: Vec<GTerm>,
    rows: Vec<u32>,
    buf: Vec<u32>,
    /// Per step of the running plan: the input combinations that found no match.
    failed: Vec<Failed>,
}

/// Remembered failures of one step (see [`Plan::memo`]).
#[derive(Debug, Default)]
struct Failed {
    keys: Vec<u32>,
    set: super::hash::TupleSet,
    /// Lookups and hits, to stop remembering where it does not pay.
    lookups: u64,
    hits: u64,
}

impl Failed {
    fn clear(&mut self) {
        self.keys.clear();
        self.set = super::hash::TupleSet::default();
        self.lookups = 0;
        self.hits = 0;
    }

    /// Whether remembering still pays (after a trial period, at least one lookup in 16 hits)
    /// and the remembered keys are below [`FAILED_KEYS`]: what is remembered grows with the
    /// work done, not with a limit, so it stops growing at a fixed size.
    fn active(&self) -> bool {
        (self.lookups < 4096 || self.hits * 16 >= self.lookups) && self.keys.len() < FAILED_KEYS
    }
}

const UNBOUND: GTerm = u32::MAX;

/// The most terms of failed input combinations one step remembers (16 MiB of keys).
const FAILED_KEYS: usize = 1 << 22;

impl<'a> Exec<'a> {
    pub(crate) fn new(
        tables: &'a [Table],
        store: &'a mut TermStore,
        neg: &'a mut NegAtoms,
        rels: &'a [Rel],
        max_depth: u16,
        tick: &'a mut dyn FnMut() -> bool,
    ) -> Self {
        Exec {
            tables,
            store,
            neg,
            rels,
            max_depth,
            tick,
            work: 0,
            budgets: Budgets::default(),
            vals: Vec::new(),
            rows: Vec::new(),
            buf: Vec::new(),
            failed: Vec::new(),
        }
    }

    /// Runs `plan` for `rule`, appending to `out`.
    pub(crate) fn run(&mut self, rule: &IRule, plan: &Plan, out: &mut Emitted) -> Result<(), Stop> {
        self.vals.clear();
        self.vals.resize(rule.nvars, UNBOUND);
        self.rows.clear();
        self.rows.resize(rule.body.len(), u32::MAX);
        if self.failed.len() < plan.steps.len() {
            self.failed.resize_with(plan.steps.len(), Failed::default);
        }
        self.failed.iter_mut().for_each(Failed::clear);
        self.step(rule, plan, 0, out).map(|_| ())
    }

    /// The term a bound pattern denotes, if it exists (lookup only).
    #[inline]
    fn find(&mut self, p: &Pat) -> Option<GTerm> {
        match p {
            Pat::Var(v) => Some(self.vals[*v as usize]),
            Pat::Ground(g) => Some(*g),
            Pat::Fn(f, args) => self.find_fn(*f, args),
        }
    }

    /// [`Exec::find`] of a compound pattern `(f args…)`.
    #[inline(never)]
    fn find_fn(&mut self, f: u32, args: &[Pat]) -> Option<GTerm> {
        let mut key = Vec::with_capacity(args.len() + 1);
        key.push(f);
        for a in args.iter() {
            key.push(self.find(a)?);
        }
        self.store.find(&key)
    }

    /// The term a bound pattern denotes, interned.
    fn build(&mut self, p: &Pat) -> Result<GTerm, Stop> {
        match p {
            Pat::Var(v) => Ok(self.vals[*v as usize]),
            Pat::Ground(g) => Ok(*g),
            Pat::Fn(f, args) => {
                let mut key = Vec::with_capacity(args.len() + 1);
                key.push(*f);
                for a in args.iter() {
                    key.push(self.build(a)?);
                }
                let t = self.store.intern(&key);
                if self.store.depth(t) > self.max_depth {
                    return Err(Stop::Depth);
                }
                if self.store.words() as u64 > self.budgets.max_store_words {
                    return Err(Stop::Store);
                }
                Ok(t)
            }
        }
    }

    /// Structural equality of two bound patterns (without interning).
    fn same(&self, a: &Pat, b: &Pat) -> bool {
        match (a, b) {
            (Pat::Fn(f, xs), Pat::Fn(g, ys)) => {
                f == g
                    && xs.len() == ys.len()
                    && xs.iter().zip(ys.iter()).all(|(x, y)| self.same(x, y))
            }
            (Pat::Fn(f, xs), other) | (other, Pat::Fn(f, xs)) => {
                let t = match other {
                    Pat::Var(v) => self.vals[*v as usize],
                    Pat::Ground(g) => *g,
                    Pat::Fn(..) => unreachable!("handled above"),
                };
                let tup = self.store.tuple(t);
                tup[0] == *f
                    && tup.len() == xs.len() + 1
                    && xs
                        .iter()
                        .zip(&tup[1..])
                        .all(|(x, &y)| self.same(x, &Pat::Ground(y)))
            }
            _ => {
                let v = |p: &Pat| match p {
                    Pat::Var(v) => self.vals[*v as usize],
                    Pat::Ground(g) => *g,
                    Pat::Fn(..) => unreachable!("handled above"),
                };
                v(a) == v(b)
            }
        }
    }

    #[inline]
    fn matches(&mut self, p: &MPat, t: GTerm) -> bool {
        match p {
            MPat::Bind(v) => {
                self.vals[*v as usize] = t;
                true
            }
            MPat::Check(v) => self.vals[*v as usize] == t,
            MPat::Ground(g) => *g == t,
            MPat::Fn(f, args) => self.matches_fn(*f, args, t),
        }
    }

    /// [`Exec::matches`] of a compound pattern `(f args…)`.
    #[inline(never)]
    fn matches_fn(&mut self, f: u32, args: &[MPat], t: GTerm) -> bool {
        let tup = self.store.tuple(t);
        if tup[0] != f || tup.len() != args.len() + 1 {
            return false;
        }
        for (i, a) in args.iter().enumerate() {
            let sub = self.store.tuple(t)[i + 1];
            if !self.matches(a, sub) {
                return false;
            }
        }
        true
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.work += 1;
        if self.work & 0xfff == 0 && !(self.tick)() {
            return Err(Stop::Guard);
        }
        Ok(())
    }

    /// Runs steps from `i`; returns whether a complete match was found (used by the exists
    /// block to stop at the first one).
    fn step(
        &mut self,
        rule: &IRule,
        plan: &Plan,
        i: usize,
        out: &mut Emitted,
    ) -> Result<bool, Stop> {
        self.tick()?;
        let Some(step) = plan.steps.get(i) else {
            self.emit(rule, out)?;
            return Ok(true);
        };
        match step {
            Step::Distinct(a, b) => {
                if self.same(a, b) {
                    return Ok(false);
                }
                self.step(rule, plan, i + 1, out)
            }
            Step::Probe {
                lit,
                rel,
                range,
                args,
                negated,
            } => {
                let mut key = std::mem::take(&mut self.buf);
                key.clear();
                let mut exists = true;
                for a in args.iter() {
                    match self.find(a) {
                        Some(t) => key.push(t),
                        None => {
                            exists = false;
                            break;
                        }
                    }
                }
                let t = &self.tables[*rel as usize];
                let row = if exists { t.find(&key) } else { None };
                self.buf = key;
                let (lo, hi) = range.bounds(t);
                let row = row.filter(|&r| r >= lo && r < hi);
                if row.is_some() == *negated {
                    return Ok(false);
                }
                if let Some(r) = row {
                    self.rows[*lit as usize] = r;
                }
                self.step(rule, plan, i + 1, out)
            }
            Step::Scan { rel, range, .. } => {
                let t = &self.tables[*rel as usize];
                let (lo, hi) = range.bounds(t);
                if lo >= hi {
                    return Ok(false);
                }
                // The input combination is appended to the step's key arena: it stays there if
                // the search fails (a step's searches are never nested), else it is dropped.
                let memo = match &plan.memo[i] {
                    Some(inputs) if self.failed[i].active() => {
                        let f = &mut self.failed[i];
                        let n = inputs.len();
                        let at = f.keys.len();
                        f.keys.extend(inputs.iter().map(|&v| self.vals[v as usize]));
                        let (keys, key) = f.keys.split_at(at);
                        let h = super::hash::hash_tuple(key);
                        f.lookups += 1;
                        if f.set
                            .find_hashed(h, key, |r| &keys[r as usize * n..(r as usize + 1) * n])
                            .is_some()
                        {
                            f.hits += 1;
                            f.keys.truncate(at);
                            return Ok(false);
                        }
                        Some((h, at, n))
                    }
                    _ => None,
                };
                let found = self.scan(rule, plan, i, step, out)?;
                if let Some((h, at, n)) = memo {
                    let f = &mut self.failed[i];
                    if found {
                        f.keys.truncate(at);
                    } else {
                        f.set.insert_new(h, (at / n) as u32);
                    }
                }
                Ok(found)
            }
        }
    }

    /// The scan of step `i` (`step`): tries every matching row.
    fn scan(
        &mut self,
        rule: &IRule,
        plan: &Plan,
        i: usize,
        step: &Step,
        out: &mut Emitted,
    ) -> Result<bool, Stop> {
        let in_exists = i >= plan.exists_from;
        let Step::Scan {
            lit,
            rel,
            range,
            index,
            key,
            rest,
        } = step
        else {
            unreachable!("only scans are scanned")
        };
        let tables = self.tables;
        let t = &tables[*rel as usize];
        let (lo, hi) = range.bounds(t);
        let mut found = false;
        match index {
            Some(ix) => {
                let mut k = std::mem::take(&mut self.buf);
                k.clear();
                for p in key.iter() {
                    match self.find(p) {
                        Some(v) => k.push(v),
                        None => {
                            self.buf = k;
                            return Ok(false);
                        }
                    }
                }
                let rows = t.lookup(*ix, &k, lo, hi);
                self.buf = k;
                for &r in rows {
                    if self.try_row(rule, plan, i, *lit, t.row(r), r, rest, out)? {
                        found = true;
                        if in_exists {
                            break;
                        }
                    }
                }
            }
            None => {
                for r in lo..hi {
                    if self.try_row(rule, plan, i, *lit, t.row(r), r, rest, out)? {
                        found = true;
                        if in_exists {
                            break;
                        }
                    }
                }
            }
        }
        Ok(found)
    }

    #[allow(clippy::too_many_arguments)]
    fn try_row(
        &mut self,
        rule: &IRule,
        plan: &Plan,
        i: usize,
        lit: u16,
        row: &[GTerm],
        r: u32,
        rest: &[(Path, MPat)],
        out: &mut Emitted,
    ) -> Result<bool, Stop> {
        for (p, m) in rest {
            let t = match **p {
                [arg] => row[arg as usize],
                _ => at(self.store, row, p),
            };
            if !self.matches(m, t) {
                return Ok(false);
            }
        }
        self.rows[lit as usize] = r;
        self.step(rule, plan, i + 1, out)
    }

    fn emit(&mut self, rule: &IRule, out: &mut Emitted) -> Result<(), Stop> {
        let at = out.heads.len();
        for h in rule.head.iter() {
            let t = self.build(h)?;
            out.heads.push(t);
        }
        if !rule.record {
            return self.emit_new_head(rule, out, at);
        }
        out.count += 1;
        if out.count as u64 > self.budgets.instances {
            return Err(Stop::Guard);
        }
        if out.count as u64 > self.budgets.soft_instances {
            return Err(Stop::SoftInstances);
        }
        for (i, l) in rule.body.iter().enumerate() {
            let mode = self.rels.get(l.rel as usize).map(|r| r.mode);
            if matches!(l.kind, LitKind::Distinct | LitKind::Domain) || mode == Some(Mode::Exact) {
                continue;
            }
            if l.kind == LitKind::Pos && mode == Some(Mode::Relaxed) {
                let atom = self.tables[l.rel as usize].atom(self.rows[i]);
                out.lits.push(Pending::Atom.encode(atom.0));
            } else {
                let mut key = vec![l.rel];
                for a in l.args.iter() {
                    key.push(self.build(a)?);
                }
                let n = self.neg.intern(&key);
                let tag = match (l.kind == LitKind::Neg, mode == Some(Mode::Lifted)) {
                    (true, false) => Pending::Negated,
                    (false, _) => Pending::Call,
                    (true, true) => Pending::NegatedCall,
                };
                out.lits.push(tag.encode(n));
            }
        }
        out.ends.push(out.lits.len() as u32);
        let b = &self.budgets;
        let stored =
            b.terms_before + 3 * out.count as u64 + out.lits.len() as u64 + self.neg.words() as u64;
        if stored > b.max_terms {
            return Err(Stop::Terms);
        }
        Ok(())
    }

    /// Keeps the head just pushed at `out.heads[at..]` of a rule that records no instances
    /// only when it is a new atom: not in the head relation's table and not emitted before in
    /// this run. Counts it against [`Budgets::new_atoms`].
    fn emit_new_head(&mut self, rule: &IRule, out: &mut Emitted, at: usize) -> Result<(), Stop> {
        let (before, head) = out.heads.split_at(at);
        let table = &self.tables[rule.rel as usize];
        let n = head.len();
        let h = super::hash::hash_tuple(head);
        let old = table.find(head).is_some()
            || out
                .seen
                .find_hashed(h, head, |r| &before[r as usize * n..(r as usize + 1) * n])
                .is_some();
        if old {
            out.heads.truncate(at);
            return Ok(());
        }
        out.seen.insert_new(h, out.count as u32);
        out.count += 1;
        if out.count as u64 > self.budgets.new_atoms {
            return Err(Stop::Atoms(self.budgets.over_new_atoms));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(a ?x) (b ?x ?y) (c ?y) (e ?x ?z)`: the scan of `b` reads `?x` (bound by `a`), and so
    /// does the scan of `e`, after which nothing follows; the last step and the first are
    /// never remembered.
    #[test]
    fn failures_are_keyed_by_the_inputs_later_steps_read() {
        let scan = |rel: u32, key: Vec<Pat>, rest: Vec<(u32, MPat)>| Step::Scan {
            lit: rel as u16,
            rel,
            range: Range::All,
            index: None,
            key: key.into(),
            rest: rest.into_iter().map(|(p, m)| (vec![p].into(), m)).collect(),
        };
        let steps = vec![
            scan(0, vec![], vec![(0, MPat::Bind(0))]),
            scan(1, vec![Pat::Var(0)], vec![(1, MPat::Bind(1))]),
            Step::Probe {
                lit: 2,
                rel: 2,
                range: Range::All,
                args: vec![Pat::Var(1)].into(),
                negated: false,
            },
            scan(3, vec![], vec![(0, MPat::Check(0)), (1, MPat::Bind(2))]),
            scan(4, vec![Pat::Var(2)], vec![(1, MPat::Bind(3))]),
        ];
        let memo = memo_inputs(&steps, 4);
        assert_eq!(memo[0], None);
        assert_eq!(memo[1].as_deref(), Some(&[0u16][..]));
        // A probe is cheaper than remembering it.
        assert_eq!(memo[2], None);
        // `?1` is read by the probe only, before this scan: not an input of the scan.
        assert_eq!(memo[3].as_deref(), Some(&[0u16][..]));
        assert_eq!(memo[4], None);
    }
}
