//! Grounding: from the normalised rules to a finite propositional program.
//!
//! 1. The rules are read into the grounder's form with every ground sub-term interned
//!    (`terms`), and the relations are classified on the dependency graph (`rules`):
//!    *exact* relations (static and stratified: `role`, `init`, tables such as `succ`) are
//!    computed completely; every other relation is *relaxed*: evaluated in the relaxed program
//!    R⁺ (negative literals over relaxed relations dropped, `true ⇐ init`, `true ⇐ next`,
//!    `does ⇐ legal` added), whose least model M⁺ contains everything that can hold in a
//!    reachable state. Existential variables of relaxed literals are projected into auxiliary
//!    relations first.
//! 2. Both are one stratified semi-naive bottom-up evaluation over the components of the
//!    dependency graph in topological order (`join` plans and runs each rule). Every instance
//!    of a rule with a relaxed head is recorded as it is found: the exact literals are already
//!    decided, the relaxed ones become literals over ground atoms. A negative relaxed literal
//!    whose atom never enters M⁺ is true and disappears.
//! 3. Guards (atoms, instances, the terms instances store, term depth, wall-clock) stop the
//!    grounding with E-GND-050 naming the relation that grew most and the rule producing it,
//!    instead of running out of memory; a progress callback sees the counts while it runs.
//!    Every guard and soft limit is checked as a join emits (`join::Budgets`), before what it
//!    emits is stored, so memory stays proportional to the limits whatever the input.
//!
//! The result, `Grounding`, is simplified and lowered by `propnet`.

mod hash;
pub(crate) mod join;
pub(crate) mod lift;
pub(crate) mod rules;
mod table;
pub(crate) mod terms;

use crate::ast::Program;
use crate::error::{Code, GdlDiagnostic};
use join::{AtomLimit, Emitted, Exec, NegAtoms, Pending, Stop};
use rg_core::{EntityId, Span};
use rules::{IRule, LitKind, Mode, Rel};
use std::time::{Duration, Instant};
use table::Table;
use terms::TermStore;

/// Limits of the grounder, which keep a game whose grounding explodes (or whose terms grow
/// without bound from turn to turn) from exhausting memory or time. Exceeding one is error
/// E-GND-050.
#[derive(Clone, Debug)]
pub struct GroundLimits {
    /// Ground atoms (exact facts and M⁺ atoms together).
    pub max_atoms: u64,
    /// Recorded ground rule instances. The terms they store (three per instance, one per body
    /// literal, and the arguments of literals resolved at the end) are limited to 16 per
    /// instance allowed here.
    pub max_instances: u64,
    /// Nesting depth of a ground term.
    pub max_depth: u16,
    /// Wall-clock budget of the grounding.
    pub time_limit: Option<Duration>,
    /// What may be left ungrounded (issue 24).
    pub lifting: Lifting,
}

impl Default for GroundLimits {
    fn default() -> Self {
        GroundLimits {
            max_atoms: 5_000_000,
            max_instances: 20_000_000,
            max_depth: 64,
            time_limit: None,
            lifting: Lifting::Measured,
        }
    }
}

impl GroundLimits {
    /// The terms recorded instances may store in all ([`TERMS_PER_INSTANCE`] per instance).
    fn max_terms(&self) -> u64 {
        self.max_instances.saturating_mul(TERMS_PER_INSTANCE)
    }

    /// The words the store of ground terms may take ([`STORE_WORDS_PER_INSTANCE`] per
    /// instance).
    fn max_store_words(&self) -> u64 {
        self.max_instances.saturating_mul(STORE_WORDS_PER_INSTANCE)
    }
}

/// Which relations and rule bodies the grounder leaves to the lowering (see `lift`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lifting {
    /// Those whose ground size exceeds soft limits.
    #[default]
    Measured,
    /// Nothing: ground everything (up to the guards).
    Off,
    /// Everything that can be: every liftable relation and every rule with an existential
    /// variable (a test of the lowering, and slow to play).
    All,
}

/// A progress report of a running translation.
#[derive(Clone, Debug)]
pub struct Progress {
    /// What is being done (`"grounding"`, `"simplifying"`, `"lowering"`).
    pub phase: &'static str,
    /// Ground atoms so far.
    pub atoms: u64,
    /// Ground rule instances so far.
    pub instances: u64,
    /// Time since the translation started.
    pub elapsed: Duration,
}

rg_core::entity_id! {
    /// A ground atom: its index in [`Grounding::atoms`]. The grounder's instances, the
    /// propositional network ([`crate::propnet`]) and the lowering name atoms by it (or by a
    /// [`Lit`]).
    pub(crate) struct Atom, "atom";
}

/// A literal: an atom, negated or not, packed as `atom << 1 | negated` (so that literals sort
/// by atom, the positive one first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Lit(u32);

impl Lit {
    /// The literal `a`.
    #[inline]
    pub(crate) fn pos(a: Atom) -> Lit {
        Lit(a.0 << 1)
    }
    /// The literal `not a`.
    #[inline]
    pub(crate) fn neg(a: Atom) -> Lit {
        Lit(a.0 << 1 | 1)
    }
    /// The opposite literal.
    #[inline]
    pub(crate) fn negate(self) -> Lit {
        Lit(self.0 ^ 1)
    }
    /// No literal (a marker).
    pub(crate) const NONE: Lit = Lit(u32::MAX);
    #[inline]
    pub(crate) fn atom(self) -> Atom {
        Atom(self.0 >> 1)
    }
    #[inline]
    pub(crate) fn negated(self) -> bool {
        self.0 & 1 == 1
    }
    /// `self`, negated when `other` is.
    #[inline]
    pub(crate) fn signed_as(self, other: Lit) -> Lit {
        Lit(self.0 ^ (other.0 & 1))
    }
}

/// The ground rule instances, flat: instance `i` has head atom `head[i]`, comes from rule
/// `rule[i]` and has the body literals `lits[ends[i-1]..ends[i]]`.
#[derive(Debug, Default)]
pub(crate) struct Instances {
    pub(crate) head: Vec<Atom>,
    pub(crate) rule: Vec<u32>,
    pub(crate) ends: Vec<u32>,
    pub(crate) lits: Vec<Lit>,
}

impl Instances {
    pub(crate) fn len(&self) -> usize {
        self.head.len()
    }

    pub(crate) fn body(&self, i: usize) -> &[Lit] {
        let a = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.lits[a as usize..self.ends[i] as usize]
    }
}

/// Where a ground atom is stored: its relation and its row in that relation's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AtomRow {
    pub(crate) rel: u32,
    pub(crate) row: u32,
}

/// The result of grounding.
#[derive(Debug)]
pub(crate) struct Grounding {
    pub(crate) store: TermStore,
    pub(crate) rels: Vec<Rel>,
    pub(crate) rules: Vec<IRule>,
    pub(crate) tables: Vec<Table>,
    /// Per atom id: where the atom is stored.
    pub(crate) atoms: Vec<AtomRow>,
    pub(crate) inst: Instances,
}

impl Grounding {
    /// Every atom, in order.
    pub(crate) fn atom_ids(&self) -> impl Iterator<Item = Atom> + use<> {
        (0..self.atoms.len()).map(Atom::new)
    }

    /// The argument terms of an atom.
    pub(crate) fn atom_args(&self, a: Atom) -> &[u32] {
        let AtomRow { rel, row } = self.atoms[a.index()];
        self.tables[rel as usize].row(row)
    }

    /// The relation of an atom.
    pub(crate) fn atom_rel(&self, a: Atom) -> u32 {
        self.atoms[a.index()].rel
    }

    /// The `k` relations with the most atoms.
    pub(crate) fn largest_relations(&self, p: &Program, k: usize) -> Vec<(String, usize)> {
        let mut v: Vec<(String, usize)> = (0..self.rels.len())
            .map(|r| {
                (
                    rel_display(p, &self.rels, r as u32),
                    self.tables[r].len() as usize,
                )
            })
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }

    /// The `k` source rules (by line) with the most recorded instances.
    pub(crate) fn largest_rules(&self, p: &Program, text: &str, k: usize) -> Vec<(usize, usize)> {
        let mut per_rule: std::collections::HashMap<u32, usize> = Default::default();
        for &r in &self.inst.rule {
            *per_rule.entry(r).or_default() += 1;
        }
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut count: std::collections::HashMap<usize, usize> = Default::default();
        for (r, k) in per_rule {
            if let Some(span) = self.rule_span(p, r) {
                let line = line_starts.partition_point(|&s| s <= span.start as usize);
                *count.entry(line).or_default() += k;
            }
        }
        let mut v: Vec<(usize, usize)> = count.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }

    /// A ground term in prefix KIF.
    pub(crate) fn display_term(&self, p: &Program, t: u32) -> String {
        let tup = self.store.tuple(t);
        let name = p.name(crate::ast::Sym::new(tup[0] as usize));
        if tup.len() == 1 {
            return name.to_string();
        }
        let args: Vec<String> = tup[1..].iter().map(|&a| self.display_term(p, a)).collect();
        format!("({name} {})", args.join(" "))
    }

    /// A ground atom in prefix KIF.
    pub(crate) fn display_atom(&self, p: &Program, a: Atom) -> String {
        let rel = self.atom_rel(a);
        let name = match self.rels[rel as usize].source {
            Some(s) => p.name(p.rel_name(s)).to_string(),
            None => format!("projection{rel}"),
        };
        let args = self.atom_args(a);
        if args.is_empty() {
            return name;
        }
        let args: Vec<String> = args.iter().map(|&t| self.display_term(p, t)).collect();
        format!("({name} {})", args.join(" "))
    }

    /// The source span of a rule (of the source rule it was derived from).
    pub(crate) fn rule_span(&self, p: &Program, rule: u32) -> Option<Span> {
        self.rules[rule as usize]
            .origin
            .map(|o| p.rules()[o as usize].span)
    }
}

/// Counters shared with the guard.
struct Guard<'a> {
    limits: &'a GroundLimits,
    start: Instant,
    last_report: Instant,
    progress: &'a mut dyn FnMut(&Progress),
    atoms: u64,
    instances: u64,
    timed_out: bool,
}

impl Guard<'_> {
    /// Checks the clock (and reports progress); false when over time.
    fn tick(&mut self) -> bool {
        let now = Instant::now();
        if now.duration_since(self.last_report) >= Duration::from_millis(200) {
            self.last_report = now;
            (self.progress)(&Progress {
                phase: "grounding",
                atoms: self.atoms,
                instances: self.instances,
                elapsed: now.duration_since(self.start),
            });
        }
        if let Some(t) = self.limits.time_limit {
            if now.duration_since(self.start) > t {
                self.timed_out = true;
                return false;
            }
        }
        true
    }
}

/// Grounds a validated program, lifting what would explode (see [`lift`]).
pub(crate) fn ground(
    p: &Program,
    limits: &GroundLimits,
    start: Instant,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Grounding, GdlDiagnostic> {
    let mut plan = lift::Plan::default();
    let mut soft = match limits.lifting {
        Lifting::Measured => Some(lift::Soft::default()),
        Lifting::Off | Lifting::All => None,
    };
    let mut everything = limits.lifting == Lifting::All;
    loop {
        let mut store = TermStore::default();
        let prepared = lift::prepare(p, &plan, &mut store)
            .map_err(|e| GdlDiagnostic::new(Code::GroundingLimit, e.span, e.message))?;
        let (rels, rules) = match prepared {
            Ok(x) => x,
            Err(rel) => {
                plan.relations.remove(&rel);
                plan.refused.insert(rel);
                continue;
            }
        };
        if everything {
            // Lift all that can be, then ground once.
            everything = false;
            if plan.everything(p, &rels, &rules) {
                continue;
            }
        }
        match instantiate(p, store, rels, rules, limits, soft, start, progress) {
            Ok(g) => return Ok(g),
            Err(Failure::Hard(e)) => {
                // A guard tripped with something lifted: take the last decision back.
                if e.code == Code::GroundingLimit && plan.revert() {
                    continue;
                }
                return Err(e);
            }
            Err(Failure::Soft(over, rels, rules)) => {
                if !plan.decide(p, &rels, &rules, over) {
                    soft = None;
                }
            }
        }
    }
}

/// Why [`instantiate`] stopped.
enum Failure {
    /// A guard: the translation fails.
    Hard(GdlDiagnostic),
    /// A soft limit: lift something and try again.
    Soft(lift::Overflow, Vec<Rel>, Vec<IRule>),
}

/// Grounds the prepared rules (one attempt of [`ground`]).
#[allow(clippy::too_many_arguments)]
fn instantiate(
    p: &Program,
    mut store: TermStore,
    mut rels: Vec<Rel>,
    mut rules: Vec<IRule>,
    limits: &GroundLimits,
    soft: Option<lift::Soft>,
    start: Instant,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Grounding, Failure> {
    let (comps, comp_of, rules_of_comp) = component_rules(&mut rels, &mut rules);
    let mut tables: Vec<Table> = rels.iter().map(|r| Table::new(r.arity)).collect();
    let mut found = Found {
        atoms: Vec::new(),
        inst: Instances::default(),
        pending: Vec::new(),
        per_rule: vec![0u64; rules.len()],
    };
    let mut neg = NegAtoms::default();
    let mut guard = Guard {
        limits,
        start,
        last_report: start,
        progress,
        atoms: 0,
        instances: 0,
        timed_out: false,
    };
    let mut out = Emitted::default();

    for (c, members) in comps.iter().enumerate() {
        let crules = &rules_of_comp[c];
        if crules.is_empty() {
            for &m in members {
                let t = &mut tables[m as usize];
                t.stable = t.len();
                t.frontier = t.len();
            }
            continue;
        }
        let recursive = |r: &IRule| -> Vec<usize> {
            r.body
                .iter()
                .enumerate()
                .filter(|(_, l)| {
                    matches!(l.kind, LitKind::Pos | LitKind::Domain)
                        && comp_of[l.rel as usize] == c as u32
                        && rels[l.rel as usize].mode != Mode::Lifted
                })
                .map(|(i, _)| i)
                .collect()
        };
        let mut round = 0;
        loop {
            let jobs = round_jobs(crules, round, &rules, &tables, recursive);
            if round > 0 && jobs.is_empty() {
                break;
            }
            for (ri, pivot) in jobs {
                let rule = &rules[ri as usize];
                let plan = join::plan(rule, pivot, &rels, &comp_of, &mut tables).map_err(|m| {
                    Failure::Hard(GdlDiagnostic::new(
                        Code::UnsafeRule,
                        grounding_span(p, rule),
                        format!("cannot ground this rule: {m}"),
                    ))
                })?;
                for &(rel, ix) in &plan.indexes {
                    tables[rel as usize].refresh_index(ix, &store);
                }
                out.clear();
                let head = &tables[rule.rel as usize];
                let budgets = run_budgets(
                    soft,
                    limits,
                    &guard,
                    &found,
                    (rule, ri),
                    (&rels[rule.rel as usize], head),
                );
                let mut tick = || guard.tick();
                let mut exec = Exec::new(
                    &tables,
                    &mut store,
                    &mut neg,
                    &rels,
                    limits.max_depth,
                    &mut tick,
                );
                exec.budgets = budgets;
                if let Err(stop) = exec.run(rule, &plan, &mut out) {
                    if let Some(o) = soft_stop(&stop, soft, rule) {
                        return Err(Failure::Soft(o, rels, rules));
                    }
                    return Err(Failure::Hard(limit_error(
                        p,
                        &rels,
                        &rules,
                        &tables,
                        &found.per_rule,
                        ri,
                        stop,
                        limits,
                        &guard,
                        out.count as u64,
                    )));
                }
                let arity = rels[rule.rel as usize].arity;
                found.record(rule, ri, arity, &out, &mut tables);
                guard.atoms = found.atoms.len() as u64;
                guard.instances = found.inst.head.len() as u64;
                if let Some(soft) = soft {
                    let over =
                        soft_overflow(soft, &rels, &rules, ri, &tables, &found.per_rule, &guard);
                    if let Some(o) = over {
                        return Err(Failure::Soft(o, rels, rules));
                    }
                }
                if guard.atoms > limits.max_atoms || guard.instances > limits.max_instances {
                    return Err(Failure::Hard(limit_error(
                        p,
                        &rels,
                        &rules,
                        &tables,
                        &found.per_rule,
                        ri,
                        Stop::Guard,
                        limits,
                        &guard,
                        0,
                    )));
                }
            }
            for &m in members {
                let t = &mut tables[m as usize];
                t.stable = if round == 0 { 0 } else { t.frontier };
                t.frontier = t.len();
            }
            round += 1;
        }
        for &m in members {
            let t = &mut tables[m as usize];
            t.stable = t.len();
            t.frontier = t.len();
        }
    }

    let (atoms, inst) = found.resolve(&neg, &mut tables);
    Ok(Grounding {
        store,
        rels,
        rules,
        tables,
        atoms,
        inst,
    })
}

/// Classifies the relations (exact, relaxed or lifted) and splits them into the components of
/// their dependency graph, in evaluation order. Returns the components, the component of each
/// relation, and the rules to instantiate for each component: rules of lifted relations never
/// are, and rules with an exact head only compute facts (they record no instances).
fn component_rules(
    rels: &mut [Rel],
    rules: &mut [IRule],
) -> (Vec<Vec<u32>>, Vec<u32>, Vec<Vec<u32>>) {
    let comps = rules::classify(rels, rules);
    // Rules with an exact head only compute facts.
    for r in rules.iter_mut() {
        if rels[r.rel as usize].mode == Mode::Exact {
            r.record = false;
        }
    }
    let mut comp_of = vec![0u32; rels.len()];
    for (c, m) in comps.iter().enumerate() {
        for &r in m {
            comp_of[r as usize] = c as u32;
        }
    }
    // Rules of lifted relations are never instantiated.
    let mut rules_of_comp: Vec<Vec<u32>> = vec![Vec::new(); comps.len()];
    for (i, r) in rules.iter().enumerate() {
        if rels[r.rel as usize].mode != Mode::Lifted {
            rules_of_comp[comp_of[r.rel as usize] as usize].push(i as u32);
        }
    }
    (comps, comp_of, rules_of_comp)
}

/// The jobs of one semi-naive round of a component, as (rule, pivot literal): in round 0 each
/// rule without a `recursive` literal (one inside the component); in later rounds each
/// recursive literal whose relation got new atoms in the previous round, as the pivot that
/// must match one of them.
fn round_jobs(
    crules: &[u32],
    round: usize,
    rules: &[IRule],
    tables: &[Table],
    recursive: impl Fn(&IRule) -> Vec<usize>,
) -> Vec<(u32, Option<usize>)> {
    let mut jobs: Vec<(u32, Option<usize>)> = Vec::new();
    for &ri in crules {
        let rec = recursive(&rules[ri as usize]);
        if round == 0 {
            if rec.is_empty() {
                jobs.push((ri, None));
            }
        } else {
            for i in rec {
                let t = &tables[rules[ri as usize].body[i].rel as usize];
                if t.frontier > t.stable {
                    jobs.push((ri, Some(i)));
                }
            }
        }
    }
    jobs
}

/// The soft limit that rule `ri`'s latest instances exceed, if any: the atoms of its head
/// relation (lift that relation), or the instances of one rule or of all rules (lift the
/// rule with the most instances).
fn soft_overflow(
    soft: lift::Soft,
    rels: &[Rel],
    rules: &[IRule],
    ri: u32,
    tables: &[Table],
    per_rule: &[u64],
    guard: &Guard<'_>,
) -> Option<lift::Overflow> {
    let head = rules[ri as usize].rel;
    if tables[head as usize].len() > soft.atoms_of(&rels[head as usize]) {
        Some(lift::Overflow::Relation(head))
    } else if per_rule[ri as usize] > soft.rule_instances || guard.instances > soft.total_instances
    {
        let worst = (0..per_rule.len())
            .max_by_key(|&i| (per_rule[i], std::cmp::Reverse(i)))
            .unwrap_or(ri as usize);
        rules[worst].origin.map(lift::Overflow::Rule)
    } else {
        None
    }
}

/// The limits of one run of rule `ri` whose head relation has the table `head` (see
/// [`join::Budgets`]): the instances left under the guard, and under its soft limit (when
/// exceeding it lifts something: the rule comes from the source); the new atoms a rule that records no
/// instances may find, which with soft limits is what its head relation may still get before
/// it is lifted (the hard limit is then checked after the run, as for every rule, so the
/// outcome does not depend on where in the run a limit trips) and without them what is left
/// under the hard limit; and the terms recorded instances may store.
fn run_budgets(
    soft: Option<lift::Soft>,
    limits: &GroundLimits,
    guard: &Guard<'_>,
    found: &Found,
    (rule, ri): (&IRule, u32),
    (rel, head): (&Rel, &Table),
) -> join::Budgets {
    let soft_instances = match soft {
        Some(soft) if rule.origin.is_some() => soft
            .rule_instances
            .saturating_sub(found.per_rule[ri as usize]),
        _ => u64::MAX,
    };
    let (new_atoms, over_new_atoms) = match soft {
        Some(soft) => (
            u64::from(soft.atoms_of(rel)).saturating_sub(u64::from(head.len())),
            AtomLimit::Soft,
        ),
        None => (
            limits.max_atoms.saturating_sub(guard.atoms),
            AtomLimit::Hard,
        ),
    };
    join::Budgets {
        instances: limits.max_instances.saturating_sub(guard.instances),
        soft_instances,
        new_atoms,
        over_new_atoms,
        max_terms: limits.max_terms(),
        terms_before: found.terms(),
        max_store_words: limits.max_store_words(),
    }
}

/// The soft limit a run that stopped early (`stop`) exceeded, if any: too many atoms of the
/// rule's head relation lift the relation; too many instances, or instances storing too many
/// terms, lift the rule's existential part (or its relation) when lifting is on. (The rule is
/// the one with the most instances, as [`soft_overflow`] would choose after the run: every
/// other rule stayed below the soft limit it exceeds.)
fn soft_stop(stop: &Stop, soft: Option<lift::Soft>, rule: &IRule) -> Option<lift::Overflow> {
    match stop {
        Stop::Atoms(AtomLimit::Soft) => Some(lift::Overflow::Relation(rule.rel)),
        Stop::Terms | Stop::SoftInstances if soft.is_some() => {
            rule.origin.map(lift::Overflow::Rule)
        }
        _ => None,
    }
}

/// The terms recorded instances may store per instance allowed (`GroundLimits::max_instances`)
/// on average: three for the instance, the others for its body literals and their arguments.
/// Bounds the memory of instances with long bodies.
const TERMS_PER_INSTANCE: u64 = 16;

/// The words the store of ground terms may take per instance allowed: bounds the memory of
/// wide atoms (a relation of a few million atoms with hundreds of arguments each), which the
/// limits of atoms and instances do not see (64 M words, 256 MB, at the default limits).
const STORE_WORDS_PER_INSTANCE: u64 = 4;

/// The atoms and rule instances grounding has found so far.
struct Found {
    /// Every atom, by id.
    atoms: Vec<AtomRow>,
    /// The recorded instances; their body literals are in `pending` until [`Found::resolve`].
    inst: Instances,
    /// The body literals of the instances, [`Pending`]-encoded.
    pending: Vec<u32>,
    /// The number of instances recorded of each rule.
    per_rule: Vec<u64>,
}

impl Found {
    /// The terms the recorded instances store so far (see [`Exec::max_terms`]), without the
    /// interned literals.
    fn terms(&self) -> u64 {
        3 * self.inst.head.len() as u64 + self.pending.len() as u64
    }

    /// Inserts the heads of rule `ri`'s new instances (`out`) into its relation's table and,
    /// when the rule records instances, records them (head atom, rule, body literals).
    fn record(&mut self, rule: &IRule, ri: u32, arity: usize, out: &Emitted, tables: &mut [Table]) {
        let mut lit_start = 0usize;
        for k in 0..out.count {
            let head = &out.heads[k * arity..(k + 1) * arity];
            let (row, new) = tables[rule.rel as usize].insert(head, self.atoms.len() as u32);
            if new {
                self.atoms.push(AtomRow { rel: rule.rel, row });
            }
            if rule.record {
                let end = out.ends[k] as usize;
                self.inst.head.push(tables[rule.rel as usize].atom(row));
                self.inst.rule.push(ri);
                self.pending.extend_from_slice(&out.lits[lit_start..end]);
                self.inst.ends.push(self.pending.len() as u32);
                lit_start = end;
            }
        }
        if rule.record {
            self.per_rule[ri as usize] += out.count as u64;
        }
    }

    /// The atoms and the instances with their body literals resolved to atoms.
    ///
    /// Negative literals over relaxed relations: an atom outside M⁺ is false, so the literal
    /// is true and disappears; otherwise it refers to the atom. Literals over lifted relations
    /// become call atoms.
    fn resolve(self, neg: &NegAtoms, tables: &mut [Table]) -> (Vec<AtomRow>, Instances) {
        let Found {
            mut atoms,
            mut inst,
            pending,
            ..
        } = self;
        let mut lits = Vec::with_capacity(pending.len());
        let mut ends = Vec::with_capacity(inst.ends.len());
        let mut a = 0usize;
        for &e in &inst.ends {
            for &l in &pending[a..e as usize] {
                match Pending::decode(l) {
                    (Pending::Atom, atom) => lits.push(Lit::pos(Atom(atom))),
                    (Pending::Negated, n) => {
                        let key = neg.get(n);
                        if let Some(row) = tables[key[0] as usize].find(&key[1..]) {
                            lits.push(Lit::neg(tables[key[0] as usize].atom(row)));
                        }
                    }
                    (call, n) => {
                        let key = neg.get(n);
                        let rel = key[0];
                        let (row, new) = tables[rel as usize].insert(&key[1..], atoms.len() as u32);
                        if new {
                            atoms.push(AtomRow { rel, row });
                        }
                        let atom = tables[rel as usize].atom(row);
                        lits.push(if call == Pending::NegatedCall {
                            Lit::neg(atom)
                        } else {
                            Lit::pos(atom)
                        });
                    }
                }
            }
            ends.push(lits.len() as u32);
            a = e as usize;
        }
        inst.lits = lits;
        inst.ends = ends;
        (atoms, inst)
    }
}

/// The span to blame for a rule of the grounder.
fn grounding_span(p: &Program, rule: &IRule) -> Span {
    match rule.origin {
        Some(o) => p.rules()[o as usize].span,
        None => p
            .rules()
            .first()
            .map_or(Span::new(p.file(), 0, 0), |r| r.span),
    }
}

/// E-GND-050 for a tripped guard.
#[allow(clippy::too_many_arguments)]
fn limit_error(
    p: &Program,
    rels: &[Rel],
    rules: &[IRule],
    tables: &[Table],
    per_rule: &[u64],
    running: u32,
    stop: Stop,
    limits: &GroundLimits,
    guard: &Guard<'_>,
    running_new: u64,
) -> GdlDiagnostic {
    let limit = match stop {
        Stop::Depth => format!("the term depth limit of {}", limits.max_depth),
        Stop::Guard if guard.timed_out => format!(
            "its time limit of {:.1} s",
            limits.time_limit.map_or(0.0, |t| t.as_secs_f64())
        ),
        Stop::Guard if guard.atoms > limits.max_atoms => {
            format!("the limit of {} ground atoms", limits.max_atoms)
        }
        Stop::Atoms(_) => format!("the limit of {} ground atoms", limits.max_atoms),
        Stop::Terms => format!(
            "the limit of {} terms stored for {} rule instances",
            limits.max_terms(),
            limits.max_instances
        ),
        Stop::Store => format!(
            "the limit of {} words of ground terms",
            limits.max_store_words()
        ),
        // (A soft stop never gets here: it lifts something.)
        Stop::Guard | Stop::SoftInstances => {
            format!("the limit of {} rule instances", limits.max_instances)
        }
    };
    // The relation with the most atoms, and the rule with the most instances (the running
    // rule when it is the one that tripped the guard).
    let (big, size) = tables
        .iter()
        .enumerate()
        .map(|(i, t)| (i, u64::from(t.len())))
        .max_by_key(|&(_, n)| n)
        .unwrap_or((0, 0));
    // A rule stopped while finding atoms: its relation, with the atoms found so far.
    let (big, size) = match stop {
        Stop::Atoms(_) | Stop::Store => {
            let head = rules[running as usize].rel as usize;
            (head, u64::from(tables[head].len()) + running_new)
        }
        _ => (big, size),
    };
    let worst = per_rule
        .iter()
        .enumerate()
        .max_by_key(|&(_, n)| *n)
        .filter(|&(_, n)| *n > 0)
        .map_or(running as usize, |(i, _)| i);
    let running_blamed = matches!(
        stop,
        Stop::Depth | Stop::Atoms(_) | Stop::Terms | Stop::Store
    ) || guard.timed_out;

    let (blame, label) = if running_blamed {
        (running as usize, "while grounding this rule")
    } else {
        (worst, "this rule produced the most instances")
    };
    let rel_name = rel_display(p, rels, big as u32);
    let span = grounding_span(p, &rules[blame]);
    GdlDiagnostic::new(
        Code::GroundingLimit,
        span,
        format!("grounding exceeded {limit}: relation `{rel_name}` reached {size} atoms"),
    )
    .with_label(label)
    .with_help(
        "the game is too large to ground completely; `rgt` raises the limits of ground atoms \
         and rule instances with --size-limit",
    )
}

/// `name/arity` of a relation of the grounder.
pub(crate) fn rel_display(p: &Program, rels: &[Rel], r: u32) -> String {
    match rels[r as usize].source {
        Some(s) => p.display_rel(s).to_string(),
        None => format!("(projection)/{}", rels[r as usize].arity),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rg_core::FileId;

    /// Loads and grounds a description (panics on errors: test input is valid).
    pub(crate) fn ground_text(
        text: &str,
        limits: &GroundLimits,
    ) -> Result<(Program, Grounding), GdlDiagnostic> {
        let loaded = crate::load(FileId(0), text, &crate::ParseOptions::default())
            .unwrap_or_else(|e| panic!("invalid test game: {:?}", e.diagnostics));
        let g = ground(&loaded.program, limits, Instant::now(), &mut |_| {})?;
        Ok((loaded.program, g))
    }

    /// The atoms of relation `name` in KIF, sorted.
    pub(crate) fn atoms(p: &Program, g: &Grounding, name: &str) -> Vec<String> {
        let mut v: Vec<String> = g
            .atom_ids()
            .filter(|&a| {
                g.rels[g.atom_rel(a) as usize]
                    .source
                    .is_some_and(|r| p.name(p.rel_name(r)) == name)
            })
            .map(|a| g.display_atom(p, a))
            .collect();
        v.sort();
        v
    }

    /// Instances recorded for rules with a head over relation `name`.
    fn instances_of(p: &Program, g: &Grounding, name: &str) -> usize {
        g.inst
            .head
            .iter()
            .filter(|&&h| {
                g.rels[g.atom_rel(h) as usize]
                    .source
                    .is_some_and(|r| p.name(p.rel_name(r)) == name)
            })
            .count()
    }

    /// A one-role game around `rules`; `legal`, `terminal` and `goal` come from the caller.
    fn game(rules: &str) -> String {
        format!(
            "(role a) (init s0) (<= (next s1) (true s0)) (<= terminal (true s1)) (<= (goal a 100) (true s1)) {rules}"
        )
    }

    #[test]
    fn static_joins_and_recursion_are_exact() {
        let text = game(
            "(edge 1 2) (edge 2 3) (edge 3 4) (edge 9 9)
             (<= (reach ?x ?y) (edge ?x ?y))
             (<= (reach ?x ?z) (reach ?x ?y) (edge ?y ?z))
             (<= (two ?x ?z) (edge ?x ?y) (edge ?y ?z))
             (<= (legal a (go ?x ?y)) (true s0) (reach ?x ?y) (not (two ?x ?y)))",
        );
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        assert_eq!(
            atoms(&p, &g, "reach"),
            [
                "(reach 1 2)",
                "(reach 1 3)",
                "(reach 1 4)",
                "(reach 2 3)",
                "(reach 2 4)",
                "(reach 3 4)",
                "(reach 9 9)"
            ]
        );
        assert_eq!(
            atoms(&p, &g, "two"),
            ["(two 1 3)", "(two 2 4)", "(two 9 9)"]
        );
        // Static literals are decided: (go 9 9) is excluded by `not two`, (go 1 3) and (go 2 4)
        // too; every legal instance has the single literal `true s0`.
        assert_eq!(
            atoms(&p, &g, "legal"),
            [
                "(legal a (go 1 2))",
                "(legal a (go 1 4))",
                "(legal a (go 2 3))",
                "(legal a (go 3 4))"
            ]
        );
        assert!(
            g.inst
                .head
                .iter()
                .enumerate()
                .all(|(i, _)| g.inst.body(i).len() <= 1)
        );
    }

    /// A sub-search that fails for some value of `?y` is entered again for every `?x`; the
    /// remembered failures must not lose or add any answer.
    #[test]
    fn repeated_failing_sub_searches_keep_every_answer() {
        let text = game(
            "(p 1) (p 2) (p 3) (q 1) (q 2) (q 3) (q 4)
             (c 1 5) (c 2 6) (c 3 5) (c 4 7) (c 4 8) (d 5) (d 7)
             (<= (r ?x ?y) (p ?x) (q ?y) (c ?y ?w) (d ?w))
             (<= (legal a (go ?x ?y)) (true s0) (r ?x ?y))
             (<= (legal a (mv ?x ?y)) (true s0) (p ?x) (q ?y) (c ?y ?w) (d ?w))",
        );
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        let mut expected = Vec::new();
        for x in 1..=3 {
            for y in [1, 3, 4] {
                expected.push(format!("(r {x} {y})"));
            }
        }
        expected.sort();
        assert_eq!(atoms(&p, &g, "r"), expected);
        assert_eq!(atoms(&p, &g, "legal").len(), 18);
        assert_eq!(instances_of(&p, &g, "legal"), 18);
    }

    #[test]
    fn relaxed_reachability_follows_next_and_does() {
        // A counter that only advances when the move is `inc`; `(count 3)` is the last.
        let text = "(role a) (succ 0 1) (succ 1 2) (succ 2 3) (init (count 0))
            (<= (legal a inc) (true (count ?n)) (succ ?n ?m))
            (<= (legal a stay) (true (count ?n)))
            (<= (next (count ?m)) (does a inc) (true (count ?n)) (succ ?n ?m))
            (<= (next (count ?n)) (does a stay) (true (count ?n)))
            (<= terminal (true (count 3)))
            (<= (goal a 100) (true (count 3)))";
        let (p, g) = ground_text(text, &GroundLimits::default()).expect("grounds");
        assert_eq!(
            atoms(&p, &g, "true"),
            [
                "(true (count 0))",
                "(true (count 1))",
                "(true (count 2))",
                "(true (count 3))"
            ]
        );
        assert_eq!(atoms(&p, &g, "does"), ["(does a inc)", "(does a stay)"]);
        // legal inc for counts 0..2, stay for 0..3; next count 1..3 from inc, 0..3 from stay.
        assert_eq!(instances_of(&p, &g, "legal"), 7);
        assert_eq!(instances_of(&p, &g, "next"), 7);
    }

    #[test]
    fn independent_parts_of_a_body_are_split_and_existentials_projected() {
        // Without splitting, next(cell) would have (cells × moves) instances.
        let cells: String = (1..=8)
            .map(|i| format!("(index {i}) (init (cell {i} b)) "))
            .collect();
        let text = format!(
            "(role a) {cells}
             (<= (legal a (mark ?i ?j)) (true (cell ?i b)) (index ?j))
             (<= (next (cell ?i x)) (does a (mark ?i ?j)))
             (<= (next (cell ?k ?v)) (true (cell ?k ?v)) (does a (mark ?i ?j)) (distinct ?i ?k))
             (<= terminal (true (cell 1 x)))
             (<= (goal a 100) (true (cell 1 x)))"
        );
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        assert_eq!(atoms(&p, &g, "does").len(), 64);
        let next = instances_of(&p, &g, "next");
        // 8 cells × 8 columns for the mark rule, 16 fluents for the frame rule (its move part
        // is an auxiliary atom per cell), far below 16 × 64.
        assert_eq!(next, 64 + 16, "next instances: {next}");
    }

    #[test]
    fn relevance_restricts_to_demanded_constants() {
        // Only (count 1 2 ...) is read: count is not grounded for the other pairs.
        let nums: String = (1..=9).map(|i| format!("(n {i}) ")).collect();
        let text = game(&format!(
            "{nums}
             (<= (count ?x ?y) (n ?x) (n ?y) (true s0))
             (<= (legal a go) (count 1 2))"
        ));
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        assert_eq!(atoms(&p, &g, "count"), ["(count 1 2)"]);
    }

    #[test]
    fn guards_stop_with_the_relation_that_grew() {
        let nums: String = (0..40).map(|i| format!("(n {i}) ")).collect();
        let text = game(&format!(
            "{nums} (<= (pair ?x ?y ?z) (n ?x) (n ?y) (n ?z) (true s0)) (<= (legal a go) (pair ?x ?y ?z))"
        ));
        let limits = GroundLimits {
            max_atoms: 10_000,
            ..GroundLimits::default()
        };
        let e = ground_text(&text, &limits).expect_err("over the atom limit");
        assert_eq!(e.code, Code::GroundingLimit);
        assert!(e.message.contains("pair/3"), "{}", e.message);
        // A term growing across turns trips the depth guard.
        let text = "(role a) (init (c z)) (<= (next (c (s ?n))) (true (c ?n)))
            (<= (legal a go) (true (c ?n))) (<= terminal (true (c z)) (true (c (s z))))
            (<= (goal a 100) (true (c z)))";
        let limits = GroundLimits {
            max_depth: 10,
            ..GroundLimits::default()
        };
        let e = ground_text(text, &limits).expect_err("over the depth limit");
        assert_eq!(e.code, Code::GroundingLimit);
        assert!(e.message.contains("depth"), "{}", e.message);
    }

    /// The atoms a diagnostic says the relation reached.
    fn reached(message: &str) -> u64 {
        let at = message.find("reached ").expect("a size") + "reached ".len();
        let digits: String = message[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().expect("a number")
    }

    /// Thirty values and a static relation over five of them: 30⁵ = 24 300 000 atoms.
    fn product_game(use_it: &str) -> String {
        let nums: String = (0..30).map(|i| format!("(n {i}) ")).collect();
        game(&format!(
            "{nums} (<= (big ?a ?b ?c ?d ?e) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e)) {use_it}"
        ))
    }

    /// A static relation whose join explodes stops at the atom limit while it is being
    /// computed, not after all its atoms were found (issue 24: the guard must trip before
    /// memory runs out).
    #[test]
    fn an_exploding_static_relation_stops_at_the_atom_limit() {
        let text =
            product_game("(<= (legal a (go ?a ?b ?c ?d ?e)) (true s0) (big ?a ?b ?c ?d ?e))");
        let limits = GroundLimits {
            max_atoms: 10_000,
            lifting: Lifting::Off,
            ..GroundLimits::default()
        };
        let e = ground_text(&text, &limits).expect_err("over the atom limit");
        assert_eq!(e.code, Code::GroundingLimit);
        assert!(e.message.contains("big/5"), "{}", e.message);
        assert!(e.message.contains("10000 ground atoms"), "{}", e.message);
        assert!(reached(&e.message) <= 10_001, "{}", e.message);
        assert!(
            e.help.as_deref().unwrap_or("").contains("--size-limit"),
            "{e:?}"
        );
    }

    /// Wide terms: 900 actions of 401 arguments each stay far below the limits of atoms and
    /// instances but not below the words the store of ground terms may take.
    #[test]
    fn wide_terms_stop_at_the_limit_of_term_words() {
        let args: String = (0..400).map(|_| "?b ").collect();
        let text = product_game(&format!(
            "(<= (legal a (go ?a {args})) (true s0) (n ?a) (n ?b))"
        ));
        let limits = GroundLimits {
            max_instances: 50_000,
            lifting: Lifting::Off,
            ..GroundLimits::default()
        };
        let e = ground_text(&text, &limits)
            .map(|_| ())
            .expect_err("over the limit of term words");
        assert_eq!(e.code, Code::GroundingLimit);
        assert!(e.message.contains("200000 words"), "{}", e.message);
        assert!(e.message.contains("legal/2"), "{}", e.message);
        // The same game within the default limits grounds.
        assert!(ground_text(&text, &GroundLimits::default()).is_ok());
    }

    /// With lifting, the same relation trips the soft limit per relation as it grows and is
    /// lifted: the game grounds, without `big`'s atoms.
    #[test]
    fn an_exploding_static_relation_is_lifted_as_it_grows() {
        let text = product_game("(<= (legal a (go ?a)) (true s0) (n ?a) (big ?a ?a ?a ?a ?a))");
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        assert!(
            atoms(&p, &g, "big").len() <= 30,
            "{:?}",
            atoms(&p, &g, "big").len()
        );
        assert_eq!(atoms(&p, &g, "legal").len(), 30);
    }

    /// Instances with long bodies count the terms they store: a rule of 24 body literals
    /// stops at the limit of terms before it reaches the limit of instances.
    #[test]
    fn long_instances_stop_at_the_limit_of_stored_terms() {
        let lits: String = (0..24).map(|i| format!("(true (c{i} ?x)) ")).collect();
        let inits: String = (0..24)
            .flat_map(|i| (0..40).map(move |x| format!("(init (c{i} {x})) ")))
            .collect();
        let text = format!(
            "(role a) {inits} (<= (next (c0 ?x)) (true (c0 ?x)))
             (<= (long ?x ?y) {lits} (true (c1 ?y)))
             (<= (legal a (go ?x ?y)) (long ?x ?y))
             (<= terminal (true (c0 0))) (<= (goal a 100) (true (c0 0)))"
        );
        let limits = GroundLimits {
            max_instances: 1_000,
            lifting: Lifting::Off,
            ..GroundLimits::default()
        };
        let e = ground_text(&text, &limits).expect_err("over the limit of terms");
        assert_eq!(e.code, Code::GroundingLimit);
        assert!(e.message.contains("16000 terms"), "{}", e.message);
    }

    #[test]
    fn negative_literals_outside_reachability_disappear() {
        let text = game(
            "(<= (legal a go) (true s0) (not (true s7))) (<= (legal a no) (true s0) (not (true s1)))",
        );
        let (p, g) = ground_text(&text, &GroundLimits::default()).expect("grounds");
        // `true s7` is never reachable: the literal is true and dropped; `true s1` stays.
        let lens: Vec<usize> = (0..g.inst.len())
            .filter(|&i| {
                g.rels[g.atom_rel(g.inst.head[i]) as usize]
                    .source
                    .is_some_and(|r| p.name(p.rel_name(r)) == "legal")
            })
            .map(|i| g.inst.body(i).len())
            .collect();
        assert_eq!(lens.iter().sum::<usize>(), 3);
    }
}
