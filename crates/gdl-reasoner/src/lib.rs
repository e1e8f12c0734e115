//! An independent GDL reasoner, implementing the game semantics of GDL directly (a state is the
//! set of its fluents; the model of the rules over it gives the legal moves, the next state,
//! termination, goals and percepts): the test oracle of the translation and the engine of
//! `rgt perft --engine gdl`, whose counts equal the RG perft of the translation.
//!
//! It is deliberately simple and shares no code with the grounder, so that the two can prove each
//! other: this crate depends on `front-gdl-syntax` (the reader, the normalised rules, their
//! validation and the RG spelling of terms) but not on `front-gdl`, and `.ci/run` checks that it
//! stays so. A state is a set of ground fluents, and `legal`, `next`, `terminal`, `goal` and `sees`
//! are read off the stratified model of the (normalised, validated) rules over the state's `true`
//! facts and the joint move's `does` facts, computed bottom-up.
//!
//! * Relations are split by the relation dependency graph into three layers: *static* (depending
//!   on neither `true` nor `does`: evaluated once, when the reasoner is built, and cached with its
//!   indexes), *state* (depending on `true`: evaluated once per state) and *move* (depending on
//!   `does`: evaluated once per joint move, on top of the state's model). A relation that does not
//!   depend on `does` has the same extension in `M(s ∪ m)` as in `M(s)`, so this is exact.
//! * Within a layer the strongly connected components of the dependency graph are evaluated in
//!   dependency order. A component without negation inside is evaluated semi-naively (each round
//!   joins at least one literal against the previous round's new facts); negation over lower
//!   components is negation as failure against their complete extension.
//! * A component with a negative edge inside (relation-level stratification fails, e.g.
//!   `(<= (goal r 100) (not (goal r 0)))`, which may still be stratified atom by atom) is evaluated by the alternating fixpoint
//!   (the well-founded model). If the ground program is stratified the result is total and equals
//!   the stratified model; otherwise some atom stays undefined and the reasoner reports the ground
//!   negation cycle.
//! * A rule body is a join: literals are ordered greedily (the most selective positive literal
//!   next, negations and `distinct` as soon as their variables are bound) and each positive
//!   literal is looked up in a hash index on its bound argument positions — or, for a compound
//!   argument such as `(true (cell ?x ?y ?p))`, on its functor and bound sub-arguments. Indexes are
//!   built lazily and kept up to date as facts are appended.
//! * A relation whose atoms the rules only ever test with every argument bound (negated, or
//!   read positively after other literals bound its variables; not a keyword, not recursive)
//!   is materialised while it is small; once one evaluation gives it more than a set number of
//!   facts it is *answered on demand* from then on: `(not (r a b))` joins `r`'s rules with
//!   their head bound to `(a b)`, and the answer is kept for the rest of the evaluation (for
//!   good, for a static relation). Only the atoms the rules ask about are decided, which keeps
//!   rules such as chess's "is the king still attacked if this piece moves" from enumerating
//!   every square, piece and ignored square at every state.

use front_gdl_syntax::ast::{Literal, Program, RelId, Sym, Term, TermId};
use rg_core::{EntityId, Span};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A ground term of one [`Reasoner`]: equal terms have equal ids (hash-consing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroundTerm(u32);

/// A game state: the set of its fluents, sorted by id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State(Vec<GroundTerm>);

impl State {
    /// A state from any collection of fluents (sorted and deduplicated).
    pub fn new(mut fluents: Vec<GroundTerm>) -> Self {
        fluents.sort_unstable();
        fluents.dedup();
        State(fluents)
    }

    /// The fluents, in id order.
    pub fn fluents(&self) -> &[GroundTerm] {
        &self.0
    }
}

/// What can stop the reasoner.
#[derive(Debug)]
pub enum ReasonerError {
    /// A variable of a rule is bound by no positive literal (validation rejects such rules).
    Unsafe {
        /// The rule.
        span: Span,
    },
    /// The ground program has a cycle through negation (E-VAL-031): an atom that depends on its
    /// own negation has no stratified meaning.
    NegationCycle {
        /// An atom of the cycle.
        atom: String,
        /// A rule of the cycle.
        span: Span,
    },
    /// A keyword relation depends on something it must not (validation rejects such games).
    KeywordDependency {
        /// The keyword relation.
        relation: &'static str,
        /// `the current state` or `the moves`.
        on: &'static str,
    },
    /// A `role` fact whose argument is not ground.
    Role {
        /// The fact.
        span: Span,
    },
    /// A joint move has the wrong number of actions.
    JointMove {
        /// Number of roles.
        roles: usize,
        /// Number of actions given.
        found: usize,
    },
    /// One evaluation derived more facts than the limit.
    Limit {
        /// The limit.
        limit: usize,
    },
}

impl std::fmt::Display for ReasonerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReasonerError::Unsafe { .. } => {
                f.write_str("unsafe rule: a variable is bound by no positive literal of the body")
            }
            ReasonerError::NegationCycle { atom, .. } => {
                write!(f, "negation cycle: `{atom}` depends on its own negation")
            }
            ReasonerError::KeywordDependency { relation, on } => {
                write!(f, "`{relation}` must not depend on {on}")
            }
            ReasonerError::Role { .. } => f.write_str("a role must be a ground term"),
            ReasonerError::JointMove { roles, found } => write!(
                f,
                "a joint move needs one action per role ({roles}), found {found}"
            ),
            ReasonerError::Limit { limit } => write!(
                f,
                "the reasoner derived more than {limit} facts in one evaluation"
            ),
        }
    }
}

impl std::error::Error for ReasonerError {}

impl miette::Diagnostic for ReasonerError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = match self {
            ReasonerError::Unsafe { .. } => "gdl::reasoner::unsafe-rule",
            ReasonerError::NegationCycle { .. } => "gdl::reasoner::negation-cycle",
            ReasonerError::KeywordDependency { .. } => "gdl::reasoner::keyword-dependency",
            ReasonerError::Role { .. } => "gdl::reasoner::role",
            ReasonerError::JointMove { .. } => "gdl::reasoner::joint-move",
            ReasonerError::Limit { .. } => "gdl::reasoner::limit",
        };
        Some(Box::new(code))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let (span, text) = match self {
            ReasonerError::Unsafe { span } => (span, "this rule"),
            ReasonerError::NegationCycle { span, .. } => (span, "a rule of the cycle"),
            ReasonerError::Role { span } => (span, "this role"),
            _ => return None,
        };
        let label = miette::LabeledSpan::new_with_span(Some(text.to_owned()), *span);
        Some(Box::new(std::iter::once(label)))
    }
}

// ---------------------------------------------------------------------------------------------
// Hashing: keys are hashed once by `hash_words`; the maps only spread the resulting `u64`.

#[derive(Clone, Copy, Debug, Default)]
struct PreHashed(u64);

impl Hasher for PreHashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type HashMap64<V> = HashMap<u64, V, BuildHasherDefault<PreHashed>>;

/// An open-addressing set of ids whose hashes the owner keeps (`hashes[id]`), so that entries
/// cost no allocation.
#[derive(Clone, Debug, Default)]
struct IdTable {
    slots: Vec<u32>,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl IdTable {
    fn find(&self, h: u64, hashes: &[u64], mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let id = self.slots[i];
            if id == EMPTY {
                return None;
            }
            if hashes[id as usize] == h && eq(id) {
                return Some(id);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds an id known to be absent.
    fn insert(&mut self, id: u32, hashes: &[u64]) {
        if (self.len + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(16);
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; cap]);
            for o in old.into_iter().filter(|&o| o != EMPTY) {
                self.place(o, hashes);
            }
        }
        self.place(id, hashes);
        self.len += 1;
    }

    fn place(&mut self, id: u32, hashes: &[u64]) {
        let mask = self.slots.len() - 1;
        let mut i = hashes[id as usize] as usize & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = id;
    }

    /// Empties the table, which holds the ids `0..len` with these hashes. A table much larger
    /// than what it holds (a store cleared at every evaluation, after one large one) has only
    /// the slots of its ids emptied.
    fn clear(&mut self, hashes: &[u64]) {
        if self.len * 8 >= self.slots.len() {
            self.slots.iter_mut().for_each(|s| *s = EMPTY);
        } else {
            let mask = self.slots.len() - 1;
            for (id, &h) in hashes.iter().enumerate().take(self.len) {
                let mut i = h as usize & mask;
                while self.slots[i] != id as u32 {
                    i = (i + 1) & mask;
                }
                self.slots[i] = EMPTY;
            }
        }
        self.len = 0;
    }
}

/// Multiplicative hashing of a word sequence, with a final mix.
fn hash_words(words: impl IntoIterator<Item = u32>) -> u64 {
    let mut h: u64 = 0x243f_6a88_85a3_08d3;
    for w in words {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

// ---------------------------------------------------------------------------------------------
// Ground terms.

#[derive(Clone, Debug, Default)]
struct Terms {
    /// Per term: functor, start of its arguments in `args`, number of arguments (0: constant).
    nodes: Vec<(Sym, u32, u32)>,
    args: Vec<GroundTerm>,
    hashes: Vec<u64>,
    index: IdTable,
}

impl Terms {
    fn key(f: Sym, args: &[GroundTerm]) -> u64 {
        hash_words(std::iter::once(f.0).chain(args.iter().map(|a| a.0)))
    }

    fn functor(&self, t: GroundTerm) -> Sym {
        self.nodes[t.0 as usize].0
    }

    fn args(&self, t: GroundTerm) -> &[GroundTerm] {
        let (_, start, len) = self.nodes[t.0 as usize];
        &self.args[start as usize..(start + len) as usize]
    }

    fn find(&self, f: Sym, args: &[GroundTerm]) -> Option<GroundTerm> {
        let h = Self::key(f, args);
        self.index
            .find(h, &self.hashes, |i| {
                let t = GroundTerm(i);
                self.functor(t) == f && self.args(t) == args
            })
            .map(GroundTerm)
    }

    fn intern(&mut self, f: Sym, args: &[GroundTerm]) -> GroundTerm {
        if let Some(t) = self.find(f, args) {
            return t;
        }
        let t = GroundTerm(self.nodes.len() as u32);
        self.nodes
            .push((f, self.args.len() as u32, args.len() as u32));
        self.args.extend_from_slice(args);
        self.hashes.push(Self::key(f, args));
        self.index.insert(t.0, &self.hashes);
        t
    }
}

/// A term of a rule: variables are numbered per rule, ground subterms are interned.
#[derive(Clone, Debug)]
enum Pat {
    Var(u32),
    Ground(GroundTerm),
    Fn(Sym, Box<[Pat]>),
}

/// "Not bound" in a binding vector.
const UNBOUND: u32 = u32::MAX;

impl Pat {
    fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Pat::Var(v) => {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
            Pat::Ground(_) => {}
            Pat::Fn(_, ps) => ps.iter().for_each(|p| p.vars(out)),
        }
    }

    fn is_bound(&self, bound: &[bool]) -> bool {
        match self {
            Pat::Var(v) => bound[*v as usize],
            Pat::Ground(_) => true,
            Pat::Fn(_, ps) => ps.iter().all(|p| p.is_bound(bound)),
        }
    }

    /// Matches a ground term, binding variables (recorded in `trail`); on failure the caller
    /// undoes the trail.
    fn matches(
        &self,
        terms: &Terms,
        t: GroundTerm,
        binds: &mut [u32],
        trail: &mut Vec<u32>,
    ) -> bool {
        match self {
            Pat::Var(v) => {
                let b = &mut binds[*v as usize];
                if *b == UNBOUND {
                    *b = t.0;
                    trail.push(*v);
                    true
                } else {
                    *b == t.0
                }
            }
            Pat::Ground(g) => *g == t,
            Pat::Fn(f, ps) => {
                terms.functor(t) == *f && {
                    let args = terms.args(t);
                    args.len() == ps.len()
                        && ps
                            .iter()
                            .zip(args)
                            .all(|(p, &a)| p.matches(terms, a, binds, trail))
                }
            }
        }
    }

    /// The ground term of a bound pattern, if it exists in the store (if it does not, no fact
    /// can contain it).
    fn resolve(&self, terms: &Terms, binds: &[u32]) -> Option<GroundTerm> {
        match self {
            Pat::Var(v) => {
                let b = binds[*v as usize];
                (b != UNBOUND).then_some(GroundTerm(b))
            }
            Pat::Ground(g) => Some(*g),
            Pat::Fn(f, ps) => {
                let mut args = Vec::with_capacity(ps.len());
                for p in ps.iter() {
                    args.push(p.resolve(terms, binds)?);
                }
                terms.find(*f, &args)
            }
        }
    }

    /// The ground term of a bound pattern, interned.
    fn instantiate(&self, terms: &mut Terms, binds: &[u32]) -> GroundTerm {
        match self {
            Pat::Var(v) => GroundTerm(binds[*v as usize]),
            Pat::Ground(g) => *g,
            Pat::Fn(f, ps) => {
                let args: Vec<GroundTerm> =
                    ps.iter().map(|p| p.instantiate(terms, binds)).collect();
                terms.intern(*f, &args)
            }
        }
    }

    /// Whether the pattern has a variable without a value.
    fn is_open(&self, binds: &[u32]) -> bool {
        match self {
            Pat::Var(v) => binds[*v as usize] == UNBOUND,
            Pat::Ground(_) => false,
            Pat::Fn(_, ps) => ps.iter().any(|p| p.is_open(binds)),
        }
    }

    /// Whether two patterns are identical after substituting the bindings, an unbound variable
    /// being identical only to itself (GGP-Base's `distinct`).
    fn same_open(&self, other: &Pat, terms: &Terms, binds: &[u32]) -> bool {
        match (self.is_open(binds), other.is_open(binds)) {
            (false, false) => self.same(other, terms, binds),
            (true, true) => match (self, other) {
                (Pat::Var(x), Pat::Var(y)) => x == y,
                (Pat::Fn(f, ps), Pat::Fn(g, qs)) => {
                    f == g
                        && ps.len() == qs.len()
                        && ps
                            .iter()
                            .zip(qs.iter())
                            .all(|(p, q)| p.same_open(q, terms, binds))
                }
                _ => false,
            },
            // A term with a variable is never identical to a ground term.
            _ => false,
        }
    }

    /// Whether two bound patterns denote the same ground term (syntactic equality).
    fn same(&self, other: &Pat, terms: &Terms, binds: &[u32]) -> bool {
        match (self.resolve(terms, binds), other.resolve(terms, binds)) {
            (Some(a), Some(b)) => a == b,
            (None, None) => match (self, other) {
                // Both are compound terms the store does not have: compare structurally.
                (Pat::Fn(f, ps), Pat::Fn(g, qs)) => {
                    f == g
                        && ps.len() == qs.len()
                        && ps
                            .iter()
                            .zip(qs.iter())
                            .all(|(p, q)| p.same(q, terms, binds))
                }
                _ => false,
            },
            // One exists in the store and the other does not: they differ.
            _ => false,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Relations: append-only tuple lists with a duplicate check and lazy hash indexes.

/// One component of an index key: the whole argument `k` (`sub == WHOLE`), the functor and
/// arity of argument `k` (`sub == FUNCTOR`) or sub-argument `sub` of argument `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct KeyPart {
    arg: u16,
    sub: u16,
}

const WHOLE: u16 = u16::MAX;
const FUNCTOR: u16 = u16::MAX - 1;

#[derive(Clone, Debug)]
struct Index {
    key: Box<[KeyPart]>,
    /// Tuples below this id are indexed.
    built: u32,
    /// Key hash → first and last tuple of its chain.
    chains: HashMap64<(u32, u32)>,
    /// Per tuple, the next tuple of its chain (ascending), or `EMPTY`.
    next: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct Store {
    arity: usize,
    data: Vec<GroundTerm>,
    len: u32,
    /// Per tuple, the hash of the whole tuple.
    hashes: Vec<u64>,
    /// The tuples by hash (the duplicate check).
    set: IdTable,
    indexes: Vec<Index>,
}

/// The word of a key part in a tuple (a value no term has when the part does not exist).
fn tuple_part(terms: &Terms, tuple: &[GroundTerm], p: KeyPart) -> [u32; 2] {
    let t = tuple[p.arg as usize];
    match p.sub {
        WHOLE => [t.0, 0],
        FUNCTOR => [terms.functor(t).0, terms.args(t).len() as u32],
        j => [terms.args(t).get(j as usize).map_or(UNBOUND, |a| a.0), 0],
    }
}

impl Store {
    fn new(arity: usize) -> Self {
        Store {
            arity,
            ..Store::default()
        }
    }

    fn clear(&mut self) {
        if self.len == 0 && self.indexes.is_empty() {
            return;
        }
        self.set.clear(&self.hashes);
        self.data.clear();
        self.len = 0;
        self.hashes.clear();
        self.indexes.clear();
    }

    fn tuple(&self, i: u32) -> &[GroundTerm] {
        let a = self.arity;
        &self.data[i as usize * a..(i as usize + 1) * a]
    }

    fn tuples(&self) -> impl Iterator<Item = &[GroundTerm]> {
        (0..self.len).map(|i| self.tuple(i))
    }

    fn contains(&self, t: &[GroundTerm]) -> bool {
        let h = hash_words(t.iter().map(|g| g.0));
        self.set
            .find(h, &self.hashes, |i| self.tuple(i) == t)
            .is_some()
    }

    /// Appends a tuple unless present; whether it was new.
    fn insert(&mut self, t: &[GroundTerm]) -> bool {
        let h = hash_words(t.iter().map(|g| g.0));
        if self
            .set
            .find(h, &self.hashes, |i| self.tuple(i) == t)
            .is_some()
        {
            return false;
        }
        self.hashes.push(h);
        self.data.extend_from_slice(t);
        self.set.insert(self.len, &self.hashes);
        self.len += 1;
        true
    }

    fn key_hash(terms: &Terms, tuple: &[GroundTerm], key: &[KeyPart]) -> u64 {
        hash_words(key.iter().flat_map(|&p| tuple_part(terms, tuple, p)))
    }

    /// Makes sure an up-to-date index on `key` exists.
    fn ensure_index(&mut self, terms: &Terms, key: &[KeyPart]) {
        let i = match self.indexes.iter().position(|ix| *ix.key == *key) {
            Some(i) => i,
            None => {
                self.indexes.push(Index {
                    key: key.into(),
                    built: 0,
                    chains: HashMap64::default(),
                    next: Vec::new(),
                });
                self.indexes.len() - 1
            }
        };
        let (arity, data, len) = (self.arity, &self.data, self.len);
        let ix = &mut self.indexes[i];
        for id in ix.built..len {
            let tuple = &data[id as usize * arity..(id as usize + 1) * arity];
            let h = Self::key_hash(terms, tuple, &ix.key);
            ix.next.push(EMPTY);
            match ix.chains.get_mut(&h) {
                Some((_, last)) => {
                    ix.next[*last as usize] = id;
                    *last = id;
                }
                None => {
                    ix.chains.insert(h, (id, id));
                }
            }
        }
        ix.built = len;
    }

    /// The tuples whose key hashes to `h`, ascending, from the first at or above `lo`.
    fn chain(&self, key: &[KeyPart], h: u64, lo: u32) -> Chain<'_> {
        let ix = self
            .indexes
            .iter()
            .find(|ix| *ix.key == *key)
            .expect("the index was built before the join");
        let mut at = ix.chains.get(&h).map_or(EMPTY, |&(first, _)| first);
        while at != EMPTY && at < lo {
            at = ix.next[at as usize];
        }
        Chain { next: &ix.next, at }
    }
}

/// The tuple ids of one index chain.
struct Chain<'a> {
    next: &'a [u32],
    at: u32,
}

impl Iterator for Chain<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let id = self.at;
        (id != EMPTY).then(|| {
            self.at = self.next[id as usize];
            id
        })
    }
}

/// The facts of every relation in one layer (relations of other layers stay empty).
type Db = Vec<Store>;

// ---------------------------------------------------------------------------------------------
// Compiled rules and the evaluation plan.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Static = 0,
    State = 1,
    Move = 2,
}

#[derive(Clone, Debug)]
struct Lit {
    rel: usize,
    args: Box<[Pat]>,
    vars: Vec<u32>,
}

/// A body literal of a rule evaluated in source order: an index into `pos`, `neg` or `distinct`.
#[derive(Clone, Copy, Debug)]
enum Src {
    Pos(usize),
    Neg(usize),
    Distinct(usize),
}

#[derive(Clone, Debug)]
struct CRule {
    /// `--lenient`: an unsafe rule, evaluated as GGP-Base's prover does, left to right in this
    /// order (see [`Reasoner::with_options`]).
    order: Option<Vec<Src>>,
    /// (`--lenient`) The rule means what it does only with its head bound by the caller: its
    /// relation is answered on demand.
    asked: bool,
    head_rel: usize,
    head: Box<[Pat]>,
    head_vars: Vec<u32>,
    pos: Vec<Lit>,
    neg: Vec<Lit>,
    distinct: Vec<(Pat, Pat, Vec<u32>)>,
    nvars: usize,
    span: Span,
}

/// A strongly connected component of the relation graph that has rules.
#[derive(Clone, Debug)]
struct Component {
    rels: Vec<usize>,
    rules: Vec<usize>,
    /// Whether a rule negates a relation of the component itself.
    negation_inside: bool,
}

#[derive(Clone, Debug)]
enum Step {
    Pos {
        lit: usize,
        key: Box<[KeyPart]>,
        lo: u32,
        hi: u32,
    },
    Neg(usize),
    /// A positive literal over an on-demand relation, asked once its variables are bound.
    Ask(usize),
    Distinct(usize),
    /// (`--lenient`) A negation with unbound variables: true when no tuple matches.
    NegExists(usize),
    /// (`--lenient`) A `distinct` with unbound variables, each identical only to itself.
    DistinctOpen(usize),
}

/// Which tuples of a recursive literal a join reads (semi-naive evaluation).
#[derive(Clone, Copy, Debug)]
struct Round<'a> {
    /// The component's relations and, per relation, the previous round's new tuples `lo..hi`.
    rels: &'a [usize],
    lo: &'a [u32],
    hi: &'a [u32],
    /// The literal (index into `pos`) that reads only the new tuples; `None` in the first round.
    pivot: Option<usize>,
}

impl Round<'_> {
    /// The tuple range literal `i` over `rel` reads, or `None` to read everything.
    fn range(&self, i: usize, rel: usize) -> Option<(u32, u32)> {
        let c = self.rels.iter().position(|&r| r == rel)?;
        Some(match self.pivot {
            None => (0, self.hi[c]),
            Some(p) if p == i => (self.lo[c], self.hi[c]),
            Some(p) if i < p => (0, self.lo[c]),
            Some(_) => (0, self.hi[c]),
        })
    }
}

/// The mutable world of one evaluation.
struct Ctx<'a> {
    terms: &'a mut Terms,
    dbs: [&'a mut Db; 3],
    layer: &'a [Layer],
    /// Facts derived in this evaluation, against `limit`.
    derived: usize,
    limit: usize,
    /// The join plans of the rules of on-demand relations (by rule), made on first use in this
    /// evaluation; `None` for a rule with a literal over an empty relation.
    plans: Plans,
    /// The answers about on-demand atoms found in this evaluation.
    memo: &'a mut Memo,
}

type Plans = HashMap<usize, Option<Box<[Step]>>>;

/// Remembered answers about the atoms of on-demand relations, per relation.
#[derive(Clone, Debug, Default)]
struct Memo {
    holds: Vec<Store>,
    fails: Vec<Store>,
}

impl Memo {
    fn new(arity: &[usize]) -> Self {
        Memo {
            holds: empty_db(arity),
            fails: empty_db(arity),
        }
    }

    /// Forgets the answers of the relations in `rels`.
    fn clear(&mut self, rels: &[usize]) {
        for &r in rels {
            self.holds[r].clear();
            self.fails[r].clear();
        }
    }
}

impl Ctx<'_> {
    fn store(&self, rel: usize) -> &Store {
        &self.dbs[self.layer[rel] as usize][rel]
    }

    fn store_mut(&mut self, rel: usize) -> &mut Store {
        &mut self.dbs[self.layer[rel] as usize][rel]
    }
}

/// A depth-first join of one rule along a plan.
struct Join<'a> {
    rule: &'a CRule,
    steps: &'a [Step],
    terms: &'a Terms,
    dbs: [&'a Db; 3],
    layer: &'a [Layer],
    /// Negative literals over these relations read these stores instead (alternating fixpoint).
    neg_ref: &'a [(usize, Store)],
    binds: Vec<u32>,
    trail: Vec<u32>,
    /// The head variables' values of every solution, back to back.
    out: Vec<u32>,
    /// Whether a solution was found.
    found: bool,
    /// Stop at the first solution (the head has no variables).
    first_only: bool,
    /// What answers literals over on-demand relations.
    demand: Demand<'a>,
    /// The most words `out` may hold; the join stops, `over`, when a solution would exceed it.
    cap: usize,
    over: bool,
}

/// The rules of on-demand relations, their plans and the answers found so far.
#[derive(Clone, Copy)]
struct Demand<'a> {
    game: &'a Game,
    plans: &'a Plans,
    memo: &'a std::cell::RefCell<Memo>,
}

impl<'a> Join<'a> {
    fn store(&self, rel: usize) -> &'a Store {
        let db: &'a Db = self.dbs[self.layer[rel] as usize];
        &db[rel]
    }

    fn run(&mut self, i: usize) {
        if self.over || (self.found && self.first_only) {
            return;
        }
        let steps: &'a [Step] = self.steps;
        let rule: &'a CRule = self.rule;
        let Some(step) = steps.get(i) else {
            if self.out.len() >= self.cap {
                self.over = true;
                return;
            }
            self.found = true;
            let binds = &self.binds;
            self.out
                .extend(self.rule.head_vars.iter().map(|&v| binds[v as usize]));
            return;
        };
        match step {
            Step::Pos { lit, key, lo, hi } => {
                let lit = &rule.pos[*lit];
                let store = self.store(lit.rel);
                let (lo, hi) = (*lo, (*hi).min(store.len));
                if key.is_empty() {
                    for id in lo..hi {
                        self.try_tuple(lit, store, id, i);
                    }
                } else {
                    let Some(h) = self.pattern_key(lit, key) else {
                        return;
                    };
                    for id in store.chain(key, h, lo) {
                        if id >= hi {
                            break;
                        }
                        self.try_tuple(lit, store, id, i);
                    }
                }
            }
            Step::Ask(p) => {
                let lit = &rule.pos[*p];
                let mut tuple = Vec::with_capacity(lit.args.len());
                for p in lit.args.iter() {
                    match p.resolve(self.terms, &self.binds) {
                        Some(t) => tuple.push(t),
                        // Only variables and ground terms are asked about (see `on_demand`).
                        None => return,
                    }
                }
                if self.query(lit.rel, &tuple) {
                    self.run(i + 1);
                }
            }
            Step::Neg(n) => {
                let lit = &self.rule.neg[*n];
                let mut tuple = Vec::with_capacity(lit.args.len());
                for p in lit.args.iter() {
                    match p.resolve(self.terms, &self.binds) {
                        Some(t) => tuple.push(t),
                        // The atom mentions a term no fact has: it is false.
                        None => return self.run(i + 1),
                    }
                }
                let holds = if self.demand.game.on_demand[lit.rel] {
                    self.query(lit.rel, &tuple)
                } else {
                    match self.neg_ref.iter().find(|(r, _)| *r == lit.rel) {
                        Some((_, s)) => s.contains(&tuple),
                        None => self.store(lit.rel).contains(&tuple),
                    }
                };
                if !holds {
                    self.run(i + 1);
                }
            }
            Step::Distinct(d) => {
                let (a, b, _) = &self.rule.distinct[*d];
                if !a.same(b, self.terms, &self.binds) {
                    self.run(i + 1);
                }
            }
            Step::NegExists(n) => {
                let lit = &self.rule.neg[*n];
                let store = match self.neg_ref.iter().find(|(r, _)| *r == lit.rel) {
                    Some((_, s)) => s,
                    None => self.store(lit.rel),
                };
                let mut binds = self.binds.clone();
                let mut trail = Vec::new();
                let terms = self.terms;
                let holds = store.tuples().any(|t| {
                    let ok = lit
                        .args
                        .iter()
                        .zip(t)
                        .all(|(p, &g)| p.matches(terms, g, &mut binds, &mut trail));
                    for v in trail.drain(..) {
                        binds[v as usize] = UNBOUND;
                    }
                    ok
                });
                if !holds {
                    self.run(i + 1);
                }
            }
            Step::DistinctOpen(d) => {
                let (a, b, _) = &self.rule.distinct[*d];
                if !a.same_open(b, self.terms, &self.binds) {
                    self.run(i + 1);
                }
            }
        }
    }

    /// Whether the ground atom `rel(tuple)` of an on-demand relation holds: some rule of `rel`
    /// has a solution with its head bound to `tuple`. Nested queries go one on-demand relation
    /// deeper each time, and those relations form a chain of bounded length.
    fn query(&self, rel: usize, tuple: &[GroundTerm]) -> bool {
        let d = self.demand;
        {
            let memo = d.memo.borrow();
            if memo.holds[rel].contains(tuple) {
                return true;
            }
            if memo.fails[rel].contains(tuple) {
                return false;
            }
        }
        let mut holds = false;
        for &ri in &d.game.rules_of[rel] {
            debug_assert!(d.plans.contains_key(&ri), "on-demand rule {ri} has no plan");
            let Some(Some(steps)) = d.plans.get(&ri) else {
                continue; // a literal over an empty relation: the rule has no solution
            };
            let rule = &d.game.rules[ri];
            let mut binds = vec![UNBOUND; rule.nvars];
            let mut trail = Vec::new();
            let head_matches = rule
                .head
                .iter()
                .zip(tuple)
                .all(|(p, &t)| p.matches(self.terms, t, &mut binds, &mut trail));
            if !head_matches {
                continue;
            }
            let mut sub = Join {
                rule,
                steps,
                terms: self.terms,
                dbs: self.dbs,
                layer: self.layer,
                neg_ref: &[],
                binds,
                trail: Vec::new(),
                out: Vec::new(),
                found: false,
                first_only: true,
                demand: d,
                cap: usize::MAX,
                over: false,
            };
            sub.run(0);
            if sub.found {
                holds = true;
                break;
            }
        }
        let mut memo = d.memo.borrow_mut();
        if holds {
            memo.holds[rel].insert(tuple);
        } else {
            memo.fails[rel].insert(tuple);
        }
        holds
    }

    fn try_tuple(&mut self, lit: &Lit, store: &'a Store, id: u32, i: usize) {
        let mark = self.trail.len();
        let tuple = store.tuple(id);
        let ok = lit
            .args
            .iter()
            .zip(tuple)
            .all(|(p, &t)| p.matches(self.terms, t, &mut self.binds, &mut self.trail));
        if ok {
            self.run(i + 1);
        }
        for v in self.trail.drain(mark..) {
            self.binds[v as usize] = UNBOUND;
        }
    }

    /// The key hash of a literal's bound parts, or `None` when a bound part is a term no fact
    /// contains.
    fn pattern_key(&self, lit: &Lit, key: &[KeyPart]) -> Option<u64> {
        let mut words = Vec::with_capacity(key.len() * 2);
        for p in key {
            let pat = &lit.args[p.arg as usize];
            let w = match (p.sub, pat) {
                (WHOLE, _) => [pat.resolve(self.terms, &self.binds)?.0, 0],
                (FUNCTOR, Pat::Fn(f, ps)) => [f.0, ps.len() as u32],
                (j, Pat::Fn(_, ps)) => [ps[j as usize].resolve(self.terms, &self.binds)?.0, 0],
                _ => unreachable!("sub-argument keys are only made for compound patterns"),
            };
            words.extend(w);
        }
        Some(hash_words(words))
    }
}

/// The key parts of a literal that are bound given `bound`, and an estimate of how many tuples
/// of `n` match (0 for a pure membership test).
fn bound_key(lit: &Lit, bound: &[bool], n: u32) -> (Vec<KeyPart>, u64) {
    let mut key = Vec::new();
    let mut shift = 0u32;
    let mut all = true;
    for (k, p) in lit.args.iter().enumerate() {
        let Ok(arg) = u16::try_from(k) else {
            all = false;
            continue;
        };
        if p.is_bound(bound) {
            key.push(KeyPart { arg, sub: WHOLE });
            shift += 3;
            continue;
        }
        all = false;
        if let Pat::Fn(_, ps) = p {
            key.push(KeyPart { arg, sub: FUNCTOR });
            shift += 1;
            for (j, q) in ps.iter().enumerate() {
                if let Ok(sub) = u16::try_from(j) {
                    if sub < FUNCTOR && q.is_bound(bound) {
                        key.push(KeyPart { arg, sub });
                        shift += 3;
                    }
                }
            }
        }
    }
    let est = if all {
        0
    } else {
        (u64::from(n) >> shift.min(63)).max(1)
    };
    (key, est)
}

// ---------------------------------------------------------------------------------------------
// The reasoner.

/// The compiled game: everything that does not change while reasoning.
#[derive(Clone, Debug)]
struct Game {
    rules: Vec<CRule>,
    layer: Vec<Layer>,
    arity: Vec<usize>,
    /// Components of each layer in dependency order.
    components: [Vec<Component>; 3],
    /// Per relation, whether it is evaluated on demand (see the module documentation).
    on_demand: Vec<bool>,
    /// Per relation, whether it may be (see [`eligible_on_demand`]).
    eligible: Vec<bool>,
    /// Per layer, the facts past which an eligible relation is answered on demand.
    demand_at: [usize; 3],
    /// Per relation, its rules.
    rules_of: Vec<Vec<usize>>,
    /// The on-demand relations whose answers depend on the state (forgotten between
    /// evaluations; static answers are kept for good).
    demanded: Vec<usize>,
    names: Vec<Box<str>>,
    rel_names: Vec<Sym>,
    roles: Vec<GroundTerm>,
    random: Option<usize>,
}

/// A state with its model (the state layer), ready for [`Reasoner::next`].
#[derive(Clone, Debug)]
pub struct Evaluated {
    state: State,
    db: Db,
    terminal: bool,
    legal: Vec<Vec<GroundTerm>>,
}

impl Evaluated {
    /// The state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Whether the state is terminal.
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// The legal actions of each role (in role order), each list in derivation order.
    pub fn legal(&self) -> &[Vec<GroundTerm>] {
        &self.legal
    }
}

/// The outcome of one joint move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The next state.
    pub state: State,
    /// Per role (in role order), the percepts `p` with `sees(role, p)`.
    pub percepts: Vec<Vec<GroundTerm>>,
}

/// The GDL reasoner of one game (see the module documentation).
#[derive(Clone, Debug)]
pub struct Reasoner {
    game: Game,
    terms: Terms,
    stat: Db,
    /// Scratch database of the move layer.
    scratch: Db,
    /// Answers about on-demand atoms (kept for one evaluation).
    memo: Memo,
    /// The layer of every relation (as in the game, which may change while `Ctx` reads these).
    layers: Vec<Layer>,
    init: State,
    limit: usize,
}

/// Default bound on the facts derived by one evaluation.
pub const DEFAULT_LIMIT: usize = 20_000_000;

impl Reasoner {
    /// Compiles a normalised, validated program and computes its static model.
    pub fn new(program: &Program) -> Result<Self, ReasonerError> {
        Self::with_limit(program, DEFAULT_LIMIT)
    }

    /// [`Reasoner::new`] with a bound on the facts derived by one evaluation.
    pub fn with_limit(program: &Program, limit: usize) -> Result<Self, ReasonerError> {
        Self::with_options(program, limit, false)
    }

    /// [`Reasoner::with_limit`]; with `lenient`, an unsafe rule (which `--lenient` validation
    /// let through) means what GGP-Base's prover makes of it: its body is evaluated left to
    /// right, a negation with unbound variables holds when no instance of it does, a `distinct`
    /// with unbound variables fails only on identical terms (an unbound variable is identical
    /// only to itself), and the role argument of `legal`, `goal` and `sees` is bound first, to
    /// each role (as the game asks role by role). Other unsafe rules are an error.
    pub fn with_options(
        program: &Program,
        limit: usize,
        lenient: bool,
    ) -> Result<Self, ReasonerError> {
        let mut terms = Terms::default();
        let nrels = program.relation_count();
        let arity: Vec<usize> = program.relations().map(|r| program.rel_arity(r)).collect();
        let mut rules = Vec::with_capacity(program.rules().len());
        // Whether every query of `legal`, `goal` and `sees` (the game's, role by role, and the
        // body literals') binds the role.
        let asked = if lenient {
            front_gdl_syntax::validate::asked_bound(program)
        } else {
            Vec::new()
        };
        for rule in program.rules() {
            let role_asked = asked
                .get(rule.head.rel.index())
                .and_then(|a| a.first())
                .copied()
                .unwrap_or(false);
            rules.push(compile_rule(
                program, rule, &mut terms, lenient, role_asked,
            )?);
        }
        let (layer, components) = plan_layers(nrels, &rules);
        let (eligible, rules_of) = eligible_on_demand(&rules, &layer, &components);
        let mut on_demand = vec![false; nrels];
        for r in rules.iter().filter(|r| r.asked) {
            on_demand[r.head_rel] = true;
            // Answered atom by atom: not recursive, and every reader binds its arguments.
            let recursive =
                components.iter().flatten().any(|c| {
                    c.rels.contains(&r.head_rel) && (c.rels.len() > 1 || c.negation_inside)
                }) || rules.iter().any(|q| {
                    q.head_rel == r.head_rel
                        && q.pos.iter().chain(&q.neg).any(|l| l.rel == r.head_rel)
                });
            if recursive {
                return Err(ReasonerError::Unsafe { span: r.span });
            }
        }
        if let Some(bad) = unsafe_demand(&rules, &on_demand) {
            let span = rules
                .iter()
                .find(|r| r.head_rel == bad)
                .map_or(Span::default(), |r| r.span);
            return Err(ReasonerError::Unsafe { span });
        }
        let demanded = (0..nrels)
            .filter(|&r| on_demand[r] && layer[r] != Layer::Static)
            .collect();
        for (rel, relation, on, bad) in [
            (RelId::ROLE, "role", "the current state", Layer::State),
            (RelId::INIT, "init", "the current state", Layer::State),
            (RelId::LEGAL, "legal", "the moves", Layer::Move),
            (RelId::GOAL, "goal", "the moves", Layer::Move),
            (RelId::TERMINAL, "terminal", "the moves", Layer::Move),
        ] {
            if layer[rel.index()] >= bad {
                return Err(ReasonerError::KeywordDependency { relation, on });
            }
        }
        let names = (0..program.symbols().len())
            .map(|i| program.name(Sym(i as u32)).into())
            .collect();
        let mut roles = Vec::new();
        for rule in program.rules() {
            if rule.head.rel == RelId::ROLE && rule.is_fact() {
                let &[arg] = program.args(rule.head.args) else {
                    continue;
                };
                let r = ground(program, arg, &mut terms).ok_or(ReasonerError::Role {
                    span: rule.head.span,
                })?;
                if !roles.contains(&r) {
                    roles.push(r);
                }
            }
        }
        let random = roles
            .iter()
            .position(|&r| terms.args(r).is_empty() && terms.functor(r) == Sym::RANDOM);
        let mut game = Game {
            rules,
            layer,
            arity,
            components,
            demanded,
            on_demand,
            eligible,
            demand_at: DEMAND_AT,
            rules_of,
            names,
            rel_names: program.relations().map(|r| program.rel_name(r)).collect(),
            roles,
            random,
        };
        let mut stat = empty_db(&game.arity);
        let (mut state, mut mov) = (empty_db(&game.arity), empty_db(&game.arity));
        let mut memo = Memo::new(&game.arity);
        let layers = game.layer.clone();
        let mut ctx = Ctx {
            terms: &mut terms,
            dbs: [&mut stat, &mut state, &mut mov],
            layer: &layers,
            derived: 0,
            limit,
            plans: Plans::new(),
            memo: &mut memo,
        };
        eval_layer(&mut game, &mut ctx, Layer::Static)?;
        let init = State::new(
            read(&game, [&stat, &state, &mov], RelId::INIT)
                .map(|t| t[0])
                .collect(),
        );
        let scratch = empty_db(&game.arity);
        Ok(Reasoner {
            game,
            terms,
            stat,
            scratch,
            memo,
            layers,
            init,
            limit,
        })
    }

    /// The roles, in role-fact order.
    pub fn roles(&self) -> &[GroundTerm] {
        &self.game.roles
    }

    /// The index of the GDL-II chance role `random`, if the game has one.
    pub fn random_role(&self) -> Option<usize> {
        self.game.random
    }

    /// The initial state.
    pub fn initial(&self) -> &State {
        &self.init
    }

    /// A ground term in prefix KIF, symbols spelled as in the program.
    pub fn show(&self, t: GroundTerm) -> String {
        let mut s = String::new();
        write_term(&self.game, &self.terms, &mut s, t);
        s
    }

    /// The RG value name the translation gives a ground term (a role, an action, a goal value)
    /// when no other term of its namespace flattens to the same name: symbols
    /// mangled, a compound term's functor and arguments joined by `_`, reserved names prefixed
    /// with `v_`. Terms whose names collide are renamed by the translation (warning W-LOW-060),
    /// so a caller pairing actions by name must check that the names it compares are distinct.
    pub fn rg_name(&self, t: GroundTerm) -> String {
        let mut out = String::new();
        // Depth first, left to right, without recursion: the arguments are pushed reversed.
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if !out.is_empty() {
                out.push('_');
            }
            front_gdl_syntax::names::mangle_into(
                &self.game.names[self.terms.functor(t).0 as usize],
                &mut out,
            );
            stack.extend(self.terms.args(t).iter().rev());
        }
        front_gdl_syntax::names::value_name(out)
    }

    /// Computes the model of a state: terminal, legal moves, goals.
    pub fn evaluate(&mut self, state: &State) -> Result<Evaluated, ReasonerError> {
        let mut db = empty_db(&self.game.arity);
        let truth = RelId::TRUE.index();
        for &f in state.fluents() {
            db[truth].insert(&[f]);
        }
        self.scratch.iter_mut().for_each(Store::clear);
        self.memo.clear(&self.game.demanded);
        let mut ctx = Ctx {
            terms: &mut self.terms,
            dbs: [&mut self.stat, &mut db, &mut self.scratch],
            layer: &self.layers,
            derived: 0,
            limit: self.limit,
            plans: Plans::new(),
            memo: &mut self.memo,
        };
        eval_layer(&mut self.game, &mut ctx, Layer::State)?;
        let game = &self.game;
        let dbs = [&self.stat, &db, &self.scratch];
        let terminal = read(game, dbs, RelId::TERMINAL).next().is_some();
        let legal = self.by_role(read(game, dbs, RelId::LEGAL));
        Ok(Evaluated {
            state: state.clone(),
            db,
            terminal,
            legal,
        })
    }

    /// The goal values of each role (in role order) in an evaluated state, in derivation order
    /// (a well-formed game has exactly one per role in terminal states).
    pub fn goals(&self, ev: &Evaluated) -> Vec<Vec<GroundTerm>> {
        self.by_role(read(
            &self.game,
            [&self.stat, &ev.db, &self.scratch],
            RelId::GOAL,
        ))
    }

    /// Groups `(role, x)` tuples by role.
    fn by_role<'t>(&self, tuples: impl Iterator<Item = &'t [GroundTerm]>) -> Vec<Vec<GroundTerm>> {
        let mut out = vec![Vec::new(); self.game.roles.len()];
        for t in tuples {
            if let Some(i) = self.game.roles.iter().position(|&r| r == t[0]) {
                out[i].push(t[1]);
            }
        }
        out
    }

    /// The next state and the percepts after a joint move (one action per role, in role order;
    /// legality is not checked).
    pub fn next(
        &mut self,
        ev: &mut Evaluated,
        joint: &[GroundTerm],
    ) -> Result<Transition, ReasonerError> {
        let game = &self.game;
        if joint.len() != game.roles.len() {
            return Err(ReasonerError::JointMove {
                roles: game.roles.len(),
                found: joint.len(),
            });
        }
        self.scratch.iter_mut().for_each(Store::clear);
        let does = RelId::DOES.index();
        for (&r, &a) in game.roles.iter().zip(joint) {
            self.scratch[does].insert(&[r, a]);
        }
        self.memo.clear(&game.demanded);
        let mut ctx = Ctx {
            terms: &mut self.terms,
            dbs: [&mut self.stat, &mut ev.db, &mut self.scratch],
            layer: &self.layers,
            derived: 0,
            limit: self.limit,
            plans: Plans::new(),
            memo: &mut self.memo,
        };
        eval_layer(&mut self.game, &mut ctx, Layer::Move)?;
        let game = &self.game;
        let dbs = [&self.stat, &ev.db, &self.scratch];
        let state = State::new(read(game, dbs, RelId::NEXT).map(|t| t[0]).collect());
        let percepts = self.by_role(read(game, dbs, RelId::SEES));
        Ok(Transition { state, percepts })
    }

    /// Perft from the initial state ([`Reasoner::perft_from`]): the number of move sequences of
    /// length `depth`, joint moves sequentialised in role-fact order as the translation does
    /// (one RG move per role), so that it equals the RG perft of the translation.
    pub fn perft(&mut self, depth: usize) -> Result<u64, ReasonerError> {
        let s = self.init.clone();
        self.perft_from(&s, depth)
    }

    /// Perft from a state: with `n` roles, `perft(t·n + i)` counts the sequences of `t` complete
    /// joint moves through non-terminal states followed by the choices of the first `i` roles
    /// in the next (non-terminal) state. A role without legal moves blocks the play. Every
    /// legal action counts once, `random`'s included (its actions are distinct moves, so they
    /// never lead to equal positions).
    pub fn perft_from(&mut self, state: &State, depth: usize) -> Result<u64, ReasonerError> {
        if depth == 0 {
            return Ok(1);
        }
        let mut ev = self.evaluate(state)?;
        if ev.terminal {
            return Ok(0);
        }
        let n = self.game.roles.len();
        if n == 0 {
            return Ok(0);
        }
        if depth <= n {
            return Ok(ev.legal[..depth].iter().map(|l| l.len() as u64).product());
        }
        let legal = ev.legal.clone();
        if legal.iter().any(Vec::is_empty) {
            return Ok(0);
        }
        let mut total = 0u64;
        let mut choice = vec![0usize; n];
        let mut joint: Vec<GroundTerm> = legal.iter().map(|l| l[0]).collect();
        loop {
            let next = self.next(&mut ev, &joint)?;
            total += self.perft_from(&next.state, depth - n)?;
            // The next joint move in lexicographic order (the last role varies fastest).
            let mut r = n;
            loop {
                if r == 0 {
                    return Ok(total);
                }
                r -= 1;
                choice[r] += 1;
                if choice[r] < legal[r].len() {
                    joint[r] = legal[r][choice[r]];
                    break;
                }
                choice[r] = 0;
                joint[r] = legal[r][0];
            }
        }
    }
}

/// A ground term of the program (none if it has a variable).
fn ground(program: &Program, t: TermId, terms: &mut Terms) -> Option<GroundTerm> {
    match program.term(t) {
        Term::Var(_) => None,
        Term::Const(c) => Some(terms.intern(c, &[])),
        Term::Fn(f, args) => {
            let mut ids = Vec::with_capacity(args.len());
            for &a in program.args(args) {
                ids.push(ground(program, a, terms)?);
            }
            Some(terms.intern(f, &ids))
        }
    }
}

fn pattern(program: &Program, t: TermId, terms: &mut Terms) -> Pat {
    match program.term(t) {
        Term::Var(v) => Pat::Var(v.0),
        Term::Const(c) => Pat::Ground(terms.intern(c, &[])),
        Term::Fn(f, args) => {
            let ps: Vec<Pat> = program
                .args(args)
                .iter()
                .map(|&a| pattern(program, a, terms))
                .collect();
            if ps.iter().all(|p| matches!(p, Pat::Ground(_))) {
                let ids: Vec<GroundTerm> = ps
                    .iter()
                    .map(|p| match p {
                        Pat::Ground(g) => *g,
                        _ => unreachable!("all ground"),
                    })
                    .collect();
                Pat::Ground(terms.intern(f, &ids))
            } else {
                Pat::Fn(f, ps.into())
            }
        }
    }
}

fn compile_rule(
    program: &Program,
    rule: &front_gdl_syntax::ast::Rule,
    terms: &mut Terms,
    lenient: bool,
    role_asked: bool,
) -> Result<CRule, ReasonerError> {
    let pats = |args: front_gdl_syntax::ast::Args, terms: &mut Terms| -> Box<[Pat]> {
        program
            .args(args)
            .iter()
            .map(|&a| pattern(program, a, terms))
            .collect()
    };
    let mk_lit = |rel: RelId, args: Box<[Pat]>| {
        let mut vars = Vec::new();
        args.iter().for_each(|p| p.vars(&mut vars));
        Lit {
            rel: rel.index(),
            args,
            vars,
        }
    };
    let head = pats(rule.head.args, terms);
    let mut head_vars = Vec::new();
    head.iter().for_each(|p| p.vars(&mut head_vars));
    let (mut pos, mut neg, mut distinct) = (Vec::new(), Vec::new(), Vec::new());
    let mut order = Vec::with_capacity(rule.body.len());
    for lit in &rule.body {
        match lit {
            Literal::Pos(a) => {
                let args = pats(a.args, terms);
                order.push(Src::Pos(pos.len()));
                pos.push(mk_lit(a.rel, args));
            }
            Literal::Neg(a) => {
                let args = pats(a.args, terms);
                order.push(Src::Neg(neg.len()));
                neg.push(mk_lit(a.rel, args));
            }
            Literal::Distinct { left, right, .. } => {
                let (l, r) = (
                    pattern(program, *left, terms),
                    pattern(program, *right, terms),
                );
                let mut vars = Vec::new();
                l.vars(&mut vars);
                r.vars(&mut vars);
                order.push(Src::Distinct(distinct.len()));
                distinct.push((l, r, vars));
            }
        }
    }
    // Safety: every variable must be bound by the positive literals.
    let mut bound = vec![false; rule.vars.len()];
    for l in &pos {
        for &v in &l.vars {
            bound[v as usize] = true;
        }
    }
    let safe = head_vars
        .iter()
        .chain(neg.iter().flat_map(|l| &l.vars))
        .chain(distinct.iter().flat_map(|d| &d.2))
        .all(|&v| bound[v as usize]);
    let mut asked = false;
    let order = if safe {
        None
    } else if lenient {
        // GGP-Base asks `legal`, `goal` and `sees` role by role: a variable role is bound before
        // the body runs. Evaluated first, `(role ?p)` does that.
        let keyword = [RelId::LEGAL, RelId::GOAL, RelId::SEES].contains(&rule.head.rel);
        if let (true, true, Some(Pat::Var(v))) = (keyword, role_asked, head.first()) {
            bound[*v as usize] = true;
            order.insert(0, Src::Pos(pos.len()));
            pos.push(mk_lit(RelId::ROLE, vec![Pat::Var(*v)].into()));
        }
        if !rule.head.rel.is_keyword() {
            // A relation of the game's own: when a head variable is bound by no positive
            // literal, or read by a negation or `distinct` before one binds it, its meaning
            // is the caller's, and the rule is answered atom by atom (on demand), its head
            // bound. (Validation let it through only if every caller binds every argument.)
            let mut seen = vec![false; rule.vars.len()];
            for &src in &order {
                let vars: &[u32] = match src {
                    Src::Pos(i) => {
                        for &v in &pos[i].vars {
                            seen[v as usize] = true;
                        }
                        continue;
                    }
                    Src::Neg(i) => &neg[i].vars,
                    Src::Distinct(i) => &distinct[i].2,
                };
                asked |= vars
                    .iter()
                    .any(|&v| !seen[v as usize] && head_vars.contains(&v));
            }
            asked |= !head_vars.iter().all(|&v| bound[v as usize]);
        }
        // A head variable nothing binds would be answered unbound.
        if !asked && !head_vars.iter().all(|&v| bound[v as usize]) {
            return Err(ReasonerError::Unsafe { span: rule.span });
        }
        Some(order)
    } else {
        return Err(ReasonerError::Unsafe { span: rule.span });
    };
    Ok(CRule {
        asked,
        order,
        head_rel: rule.head.rel.index(),
        head,
        head_vars,
        pos,
        neg,
        distinct,
        nvars: rule.vars.len(),
        span: rule.span,
    })
}

fn empty_db(arity: &[usize]) -> Db {
    arity.iter().map(|&a| Store::new(a)).collect()
}

/// The tuples of a keyword relation, from the layer that holds it.
fn read<'d>(
    game: &Game,
    dbs: [&'d Db; 3],
    rel: RelId,
) -> impl Iterator<Item = &'d [GroundTerm]> + 'd {
    let r = rel.index();
    dbs[game.layer[r] as usize][r].tuples()
}

/// Layers of the relations and the components of each layer in dependency order.
fn plan_layers(nrels: usize, rules: &[CRule]) -> (Vec<Layer>, [Vec<Component>; 3]) {
    // Edges body relation → head relation.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nrels];
    for r in rules {
        for l in r.pos.iter().chain(&r.neg) {
            if !succ[l.rel].contains(&r.head_rel) {
                succ[l.rel].push(r.head_rel);
            }
        }
    }
    let reach = |from: usize| {
        let mut seen = vec![false; nrels];
        let mut stack = vec![from];
        seen[from] = true;
        while let Some(q) = stack.pop() {
            for &p in &succ[q] {
                if !seen[p] {
                    seen[p] = true;
                    stack.push(p);
                }
            }
        }
        seen
    };
    let on_does = reach(RelId::DOES.index());
    let on_true = reach(RelId::TRUE.index());
    let layer: Vec<Layer> = (0..nrels)
        .map(|r| {
            if on_does[r] {
                Layer::Move
            } else if on_true[r] {
                Layer::State
            } else {
                Layer::Static
            }
        })
        .collect();
    let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); nrels];
    for (i, r) in rules.iter().enumerate() {
        by_head[r.head_rel].push(i);
    }
    let mut components: [Vec<Component>; 3] = Default::default();
    for scc in sccs_in_dependency_order(&succ) {
        let mut rel_rules: Vec<usize> = scc.iter().flat_map(|&r| by_head[r].clone()).collect();
        if rel_rules.is_empty() {
            continue;
        }
        rel_rules.sort_unstable();
        let negation_inside = rel_rules
            .iter()
            .any(|&i| rules[i].neg.iter().any(|l| scc.contains(&l.rel)));
        let l = layer[scc[0]];
        components[l as usize].push(Component {
            rels: scc,
            rules: rel_rules,
            negation_inside,
        });
    }
    (layer, components)
}

/// On-demand relations form chains (one negating the next) at most this long; a relation deeper
/// in such a chain is materialised instead, so that nested queries stay shallow.
const MAX_DEMAND_DEPTH: usize = 32;

/// Which relations may be answered on demand, and the rules of every relation. A relation may
/// when its atoms can be asked about instead of enumerated:
/// * it is not a keyword (the reasoner reads those whole) and not recursive (its component is
///   itself alone and no rule of it mentions it);
/// * every literal over it has only variables and ground terms as arguments (so an asked atom
///   is made of terms that exist);
/// * every positive literal over it has all its variables in positive literals of the same rule
///   over relations that are materialised (or in the head, for a rule that is itself answered on
///   demand), so it only ever tests bound atoms — assuming every eligible relation is answered
///   on demand, the fewest binders; materialising some of them only adds binders, except for
///   a rule whose head is then materialised, which [`lazy_set_is_safe`] checks.
fn eligible_on_demand(
    rules: &[CRule],
    layer: &[Layer],
    components: &[Vec<Component>; 3],
) -> (Vec<bool>, Vec<Vec<usize>>) {
    let nrels = layer.len();
    let mut rules_of: Vec<Vec<usize>> = vec![Vec::new(); nrels];
    for (i, r) in rules.iter().enumerate() {
        rules_of[r.head_rel].push(i);
    }
    let keywords = RelId::SEES.index();
    let mut ok: Vec<bool> = (0..nrels)
        .map(|r| r > keywords && !rules_of[r].is_empty())
        .collect();
    let simple = |l: &Lit| {
        l.args
            .iter()
            .all(|p| matches!(p, Pat::Var(_) | Pat::Ground(_)))
    };
    for r in rules {
        for l in r.pos.iter().chain(&r.neg) {
            if l.rel == r.head_rel || !simple(l) || r.order.is_some() {
                ok[l.rel] = false;
            }
        }
        if r.order.is_some() {
            ok[r.head_rel] = false;
        }
    }
    for comp in components.iter().flatten() {
        if comp.rels.len() > 1 {
            comp.rels.iter().for_each(|&r| ok[r] = false);
        }
    }
    // Dropping one relation can expose another: iterate to the fixpoint.
    while let Some(r) = unsafe_demand(rules, &ok) {
        ok[r] = false;
    }
    (ok, rules_of)
}

/// A relation answered on demand (in `lazy`) that some rule reads positively without binding
/// all the literal's variables first (by materialised literals, or by the head of a rule that is
/// itself answered on demand), if there is one.
fn unsafe_demand(rules: &[CRule], lazy: &[bool]) -> Option<usize> {
    for r in rules {
        let mut bound: Vec<u32> = if lazy[r.head_rel] {
            r.head_vars.clone()
        } else {
            Vec::new()
        };
        for l in r.pos.iter().filter(|l| !lazy[l.rel]) {
            bound.extend(&l.vars);
        }
        for l in &r.pos {
            if lazy[l.rel] && !l.vars.iter().all(|v| bound.contains(v)) {
                return Some(l.rel);
            }
        }
    }
    None
}

/// The longest chain of on-demand relations asking one another.
fn demand_depth(rules: &[CRule], lazy: &[bool], components: &[Vec<Component>; 3]) -> usize {
    // Components come in dependency order (static, then state, then move), so the relations a
    // rule asks about have their depth before the rule's head.
    let mut depth = vec![0usize; lazy.len()];
    let mut max = 0;
    for comp in components.iter().flatten() {
        let r = comp.rels[0];
        if comp.rels.len() > 1 || !lazy[r] {
            continue;
        }
        depth[r] = 1 + comp
            .rules
            .iter()
            .flat_map(|&i| rules[i].pos.iter().chain(&rules[i].neg))
            .map(|l| depth[l.rel])
            .max()
            .unwrap_or(0);
        max = max.max(depth[r]);
    }
    max
}

impl Game {
    /// Answers the eligible relation `r` on demand from now on, with the eligible relations whose
    /// rules then need their heads bound; false (and nothing changes) when that would make an
    /// unsafe set or too deep a chain. Only relations not evaluated yet may follow `r`: those
    /// that read it, which come after it.
    fn switch_to_demand(&mut self, r: usize) -> bool {
        let mut lazy = self.on_demand.clone();
        lazy[r] = true;
        loop {
            let mut changed = false;
            for rule in &self.rules {
                if lazy[rule.head_rel] {
                    continue;
                }
                let bound: Vec<u32> = rule
                    .pos
                    .iter()
                    .filter(|l| !lazy[l.rel])
                    .flat_map(|l| l.vars.iter().copied())
                    .collect();
                let needs_head = rule
                    .pos
                    .iter()
                    .any(|l| lazy[l.rel] && !l.vars.iter().all(|v| bound.contains(v)));
                if needs_head {
                    if !self.eligible[rule.head_rel] {
                        return false;
                    }
                    lazy[rule.head_rel] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if unsafe_demand(&self.rules, &lazy).is_some()
            || demand_depth(&self.rules, &lazy, &self.components) > MAX_DEMAND_DEPTH
        {
            return false;
        }
        self.demanded = (0..lazy.len())
            .filter(|&q| lazy[q] && self.layer[q] != Layer::Static)
            .collect();
        self.on_demand = lazy;
        true
    }
}

/// Strongly connected components of a graph, every component after those it has edges from,
/// members in ascending order (the syntax crate's iterative Tarjan).
fn sccs_in_dependency_order(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let edges = succ
        .iter()
        .enumerate()
        .flat_map(|(v, ws)| ws.iter().map(move |&w| (v as u32, w as u32)));
    let g = front_gdl_syntax::graph::Csr::from_edges(succ.len(), edges);
    front_gdl_syntax::graph::sccs(&g)
        .components
        .into_iter()
        .map(|c| c.into_iter().map(|v| v as usize).collect())
        .collect()
}

/// A relation that may be answered on demand is materialised until one evaluation gives it more
/// facts than this (per layer: static relations are computed once); then it is answered on
/// demand from then on. Small relations are cheaper to enumerate than to ask about atom by atom.
const DEMAND_AT: [usize; 3] = [200_000, 50_000, 50_000];

/// Evaluates the components of one layer in order. A relation that may be answered on demand
/// (see [`eligible_on_demand`]) and grows past [`DEMAND_AT`] is switched to on demand — chess's
/// "is the king attacked after this move" has millions of atoms per state where legality asks
/// about hundreds, sudoku's "exactly one of these nine" 9·10^8.
fn eval_layer(game: &mut Game, ctx: &mut Ctx<'_>, layer: Layer) -> Result<(), ReasonerError> {
    for c in 0..game.components[layer as usize].len() {
        let comp = &game.components[layer as usize][c];
        if comp.rels.iter().all(|&r| game.on_demand[r]) {
            continue; // answered when a rule asks
        }
        let r = comp.rels[0];
        if comp.rels.len() > 1 || !game.eligible[r] {
            eval_component(game, ctx, &game.components[layer as usize][c])?;
            continue;
        }
        // Eligible: a single relation, not recursive, so no negation inside.
        let (derived, limit) = (ctx.derived, ctx.limit);
        let budget = derived.saturating_add(game.demand_at[layer as usize]);
        ctx.limit = limit.min(budget);
        let res = semi_naive(game, ctx, &game.components[layer as usize][c], &[]);
        ctx.limit = limit;
        match res {
            Err(ReasonerError::Limit { .. }) if game.switch_to_demand(r) => {
                ctx.derived = derived;
                ctx.store_mut(r).clear();
                ctx.plans.clear();
            }
            Err(ReasonerError::Limit { .. }) if budget < limit => {
                // Materialise it after all, under the whole limit.
                ctx.derived = derived;
                ctx.store_mut(r).clear();
                semi_naive(game, ctx, &game.components[layer as usize][c], &[])?;
            }
            other => other?,
        }
    }
    Ok(())
}

fn eval_component(game: &Game, ctx: &mut Ctx<'_>, comp: &Component) -> Result<(), ReasonerError> {
    if comp.negation_inside {
        alternating_fixpoint(game, ctx, comp)
    } else {
        semi_naive(game, ctx, comp, &[])
    }
}

/// The least model of a component on top of the complete lower components; negative literals
/// over the component's own relations read `neg_ref`.
fn semi_naive(
    game: &Game,
    ctx: &mut Ctx<'_>,
    comp: &Component,
    neg_ref: &[(usize, Store)],
) -> Result<(), ReasonerError> {
    for &r in &comp.rels {
        ctx.store_mut(r).clear();
    }
    let k = comp.rels.len();
    let mut lo = vec![0u32; k];
    let mut hi = vec![0u32; k];
    // First round: every rule against everything (the component's relations are empty, so only
    // rules without recursive literals fire).
    for &ri in &comp.rules {
        let round = Round {
            rels: &comp.rels,
            lo: &lo,
            hi: &hi,
            pivot: None,
        };
        fire(game, ctx, &game.rules[ri], round, neg_ref)?;
    }
    loop {
        let mut changed = false;
        for (c, &r) in comp.rels.iter().enumerate() {
            lo[c] = hi[c];
            hi[c] = ctx.store(r).len;
            changed |= lo[c] < hi[c];
        }
        if !changed {
            return Ok(());
        }
        for &ri in &comp.rules {
            let rule = &game.rules[ri];
            for (p, lit) in rule.pos.iter().enumerate() {
                if !comp.rels.contains(&lit.rel) {
                    continue;
                }
                let round = Round {
                    rels: &comp.rels,
                    lo: &lo,
                    hi: &hi,
                    pivot: Some(p),
                };
                fire(game, ctx, rule, round, neg_ref)?;
            }
        }
    }
}

/// The well-founded model of a component with negation inside, by the alternating fixpoint:
/// `K` (certainly true) grows from nothing, `U` (possibly true) is the least model with
/// negation read against `K`, the next `K` the least model with negation read against `U`.
/// A stratified ground program makes the two meet.
fn alternating_fixpoint(
    game: &Game,
    ctx: &mut Ctx<'_>,
    comp: &Component,
) -> Result<(), ReasonerError> {
    let snapshot = |ctx: &Ctx<'_>| -> Vec<(usize, Store)> {
        comp.rels
            .iter()
            .map(|&r| {
                let mut s = ctx.store(r).clone();
                s.indexes.clear();
                (r, s)
            })
            .collect()
    };
    let mut known: Vec<(usize, Store)> = comp
        .rels
        .iter()
        .map(|&r| (r, Store::new(game.arity[r])))
        .collect();
    loop {
        semi_naive(game, ctx, comp, &known)?;
        let possible = snapshot(ctx);
        semi_naive(game, ctx, comp, &possible)?;
        let grown = snapshot(ctx);
        let same = grown
            .iter()
            .zip(&known)
            .all(|((_, g), (_, k))| g.len == k.len && g.tuples().all(|t| k.contains(t)));
        if same {
            // The database holds `known`; every possible fact must be known.
            for ((r, p), (_, k)) in possible.iter().zip(&known) {
                if let Some(t) = p.tuples().find(|t| !k.contains(t)) {
                    let rule = comp
                        .rules
                        .iter()
                        .map(|&i| &game.rules[i])
                        .find(|rule| rule.head_rel == *r)
                        .expect("a component relation has rules");
                    return Err(ReasonerError::NegationCycle {
                        atom: atom_text(game, ctx.terms, *r, t),
                        span: rule.span,
                    });
                }
            }
            return Ok(());
        }
        known = grown;
    }
}

fn atom_text(game: &Game, terms: &Terms, rel: usize, tuple: &[GroundTerm]) -> String {
    let mut s = String::new();
    let name = &game.names[game.rel_names[rel].0 as usize];
    if tuple.is_empty() {
        s.push_str(name);
        return s;
    }
    s.push('(');
    s.push_str(name);
    for &t in tuple {
        s.push(' ');
        write_term(game, terms, &mut s, t);
    }
    s.push(')');
    s
}

fn write_term(game: &Game, terms: &Terms, out: &mut String, t: GroundTerm) {
    let f = &game.names[terms.functor(t).0 as usize];
    let args = terms.args(t);
    if args.is_empty() {
        out.push_str(f);
    } else {
        out.push('(');
        out.push_str(f);
        for &a in args {
            out.push(' ');
            write_term(game, terms, out, a);
        }
        out.push(')');
    }
}

/// A join plan for `rule` given the variables bound before it starts: the pivot first, then
/// greedily the cheapest positive literal (`range` gives the tuples a literal reads), negations
/// and `distinct` as soon as their variables are bound. `None` when a literal reads no tuple.
fn plan(
    rule: &CRule,
    on_demand: &[bool],
    mut bound: Vec<bool>,
    pivot: Option<usize>,
    range: impl Fn(usize, &Lit) -> (u32, u32),
) -> Result<Option<Vec<Step>>, ReasonerError> {
    let mut steps = Vec::with_capacity(rule.pos.len() + rule.neg.len() + rule.distinct.len());
    if let Some(order) = &rule.order {
        // GGP-Base's order (the relations involved are never answered on demand).
        for &src in order {
            match src {
                Src::Pos(i) if on_demand[rule.pos[i].rel] => {
                    let lit = &rule.pos[i];
                    if !lit.vars.iter().all(|&v| bound[v as usize]) {
                        return Err(ReasonerError::Unsafe { span: rule.span });
                    }
                    steps.push(Step::Ask(i));
                }
                Src::Pos(i) => {
                    let lit = &rule.pos[i];
                    let (lo, hi) = range(i, lit);
                    if lo >= hi {
                        return Ok(None);
                    }
                    let (key, _) = bound_key(lit, &bound, hi - lo);
                    for &v in &lit.vars {
                        bound[v as usize] = true;
                    }
                    steps.push(Step::Pos {
                        lit: i,
                        key: key.into(),
                        lo,
                        hi,
                    });
                }
                Src::Neg(n) => steps.push(if rule.neg[n].vars.iter().all(|&v| bound[v as usize]) {
                    Step::Neg(n)
                } else {
                    Step::NegExists(n)
                }),
                Src::Distinct(d) => {
                    steps.push(if rule.distinct[d].2.iter().all(|&v| bound[v as usize]) {
                        Step::Distinct(d)
                    } else {
                        Step::DistinctOpen(d)
                    })
                }
            }
        }
        return Ok(Some(steps));
    }
    let mut pos_done = vec![false; rule.pos.len()];
    let mut neg_done = vec![false; rule.neg.len()];
    let mut dis_done = vec![false; rule.distinct.len()];
    loop {
        for (p, lit) in rule.pos.iter().enumerate() {
            if !pos_done[p] && on_demand[lit.rel] && lit.vars.iter().all(|&v| bound[v as usize]) {
                pos_done[p] = true;
                steps.push(Step::Ask(p));
            }
        }
        for (n, lit) in rule.neg.iter().enumerate() {
            if !neg_done[n] && lit.vars.iter().all(|&v| bound[v as usize]) {
                neg_done[n] = true;
                steps.push(Step::Neg(n));
            }
        }
        for (d, (_, _, vars)) in rule.distinct.iter().enumerate() {
            if !dis_done[d] && vars.iter().all(|&v| bound[v as usize]) {
                dis_done[d] = true;
                steps.push(Step::Distinct(d));
            }
        }
        let pick = match pivot.filter(|&p| !pos_done[p]) {
            Some(p) => Some(p),
            None => (0..rule.pos.len())
                .filter(|&i| !pos_done[i] && !on_demand[rule.pos[i].rel])
                .min_by_key(|&i| {
                    let (lo, hi) = range(i, &rule.pos[i]);
                    bound_key(&rule.pos[i], &bound, hi.saturating_sub(lo)).1
                }),
        };
        let Some(i) = pick else { break };
        let lit = &rule.pos[i];
        let (lo, hi) = range(i, lit);
        if lo >= hi {
            return Ok(None);
        }
        let (key, _) = bound_key(lit, &bound, hi - lo);
        pos_done[i] = true;
        for &v in &lit.vars {
            bound[v as usize] = true;
        }
        steps.push(Step::Pos {
            lit: i,
            key: key.into(),
            lo,
            hi,
        });
    }
    if pos_done.contains(&false) || neg_done.contains(&false) || dis_done.contains(&false) {
        return Err(ReasonerError::Unsafe { span: rule.span });
    }
    Ok(Some(steps))
}

/// Makes sure the stores a plan looks up have their indexes.
fn ensure_indexes(ctx: &mut Ctx<'_>, rule: &CRule, steps: &[Step]) {
    for step in steps {
        if let Step::Pos { lit, key, .. } = step {
            if !key.is_empty() {
                let rel = rule.pos[*lit].rel;
                let terms: &Terms = ctx.terms;
                let store = &mut ctx.dbs[ctx.layer[rel] as usize][rel];
                store.ensure_index(terms, key);
            }
        }
    }
}

/// Plans (once per evaluation) the rules of every on-demand relation `rule` may ask about,
/// directly or through other on-demand relations, with their heads bound.
fn prepare_on_demand(game: &Game, ctx: &mut Ctx<'_>, rule: &CRule) -> Result<(), ReasonerError> {
    let asked = |r: &CRule| -> Vec<usize> {
        r.pos
            .iter()
            .chain(&r.neg)
            .map(|l| l.rel)
            .filter(|&q| game.on_demand[q])
            .collect()
    };
    let mut work = asked(rule);
    while let Some(rel) = work.pop() {
        for &ri in &game.rules_of[rel] {
            if ctx.plans.contains_key(&ri) {
                continue;
            }
            let r = &game.rules[ri];
            let mut bound = vec![false; r.nvars];
            for v in &r.head_vars {
                bound[*v as usize] = true;
            }
            let steps = plan(r, &game.on_demand, bound, None, |_, lit| {
                (0, ctx.store(lit.rel).len)
            })?;
            if let Some(steps) = &steps {
                ensure_indexes(ctx, r, steps);
            }
            ctx.plans.insert(ri, steps.map(Vec::into_boxed_slice));
            work.extend(asked(r));
        }
    }
    Ok(())
}

/// Joins one rule for one round and adds the new head facts.
fn fire(
    game: &Game,
    ctx: &mut Ctx<'_>,
    rule: &CRule,
    round: Round<'_>,
    neg_ref: &[(usize, Store)],
) -> Result<(), ReasonerError> {
    let range = |i: usize, lit: &Lit, ctx: &Ctx<'_>| {
        round
            .range(i, lit.rel)
            .unwrap_or((0, ctx.store(lit.rel).len))
    };
    let bound = vec![false; rule.nvars];
    let Some(steps) = plan(rule, &game.on_demand, bound, round.pivot, |i, lit| {
        range(i, lit, ctx)
    })?
    else {
        return Ok(()); // an empty literal: no solution
    };
    ensure_indexes(ctx, rule, &steps);
    prepare_on_demand(game, ctx, rule)?;
    let memo = std::cell::RefCell::new(std::mem::take(ctx.memo));
    let width = rule.head_vars.len();
    let (out, found, over) = {
        let mut join = Join {
            rule,
            steps: &steps,
            terms: ctx.terms,
            dbs: [&*ctx.dbs[0], &*ctx.dbs[1], &*ctx.dbs[2]],
            layer: ctx.layer,
            neg_ref,
            binds: vec![UNBOUND; rule.nvars],
            trail: Vec::new(),
            out: Vec::new(),
            found: false,
            first_only: rule.head_vars.is_empty(),
            demand: Demand {
                game,
                plans: &ctx.plans,
                memo: &memo,
            },
            // Solutions are kept until the join ends: as many as facts may be derived.
            cap: ctx.limit.saturating_mul(width.max(1)),
            over: false,
        };
        join.run(0);
        (join.out, join.found, join.over)
    };
    *ctx.memo = memo.into_inner();
    if over {
        return Err(ReasonerError::Limit { limit: ctx.limit });
    }
    let mut binds = vec![UNBOUND; rule.nvars];
    let mut tuple = Vec::with_capacity(rule.head.len());
    let mut emit = |binds: &[u32], ctx: &mut Ctx<'_>| -> Result<(), ReasonerError> {
        tuple.clear();
        for p in rule.head.iter() {
            tuple.push(p.instantiate(ctx.terms, binds));
        }
        if ctx.store_mut(rule.head_rel).insert(&tuple) {
            ctx.derived += 1;
            if ctx.derived > ctx.limit {
                return Err(ReasonerError::Limit { limit: ctx.limit });
            }
        }
        Ok(())
    };
    if width == 0 {
        // A head without variables: one fact if the body has a solution.
        if found {
            emit(&binds, ctx)?;
        }
        return Ok(());
    }
    for sol in out.chunks_exact(width) {
        for (&v, &val) in rule.head_vars.iter().zip(sol) {
            binds[v as usize] = val;
        }
        emit(&binds, ctx)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasoner(text: &str) -> Reasoner {
        let loaded = front_gdl_syntax::load(
            rg_core::FileId(0),
            text,
            &front_gdl_syntax::ParseOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        Reasoner::new(&loaded.program).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The legal moves of the only role in the initial state, shown and sorted.
    fn legal(r: &mut Reasoner) -> Vec<String> {
        let init = r.initial().clone();
        let ev = r.evaluate(&init).expect("evaluates");
        let mut v: Vec<String> = ev.legal()[0].iter().map(|&t| r.show(t)).collect();
        v.sort();
        v
    }

    const FRAME: &str = "(role p) (init s) (<= (next t) (does p ?m)) (<= terminal (true t)) \
                         (<= (goal p 100) (true t))";

    #[test]
    fn rg_names_are_the_translation_names() {
        let mut r = reasoner(
            "(role player) (role random) (init s) (<= (next t) (does player ?m)) \
             (<= terminal (true t)) (<= (goal player 100) (true t)) \
             (<= (legal player (move (a-b 2) c)) (true s)) (<= (legal player f_x) (true s)) \
             (<= (legal random noop) (true s))",
        );
        let roles: Vec<String> = r.roles().iter().map(|&t| r.rg_name(t)).collect();
        assert_eq!(roles, ["v_player", "v_random"]);
        let init = r.initial().clone();
        let ev = r.evaluate(&init).expect("evaluates");
        let mut names: Vec<String> = ev.legal()[0].iter().map(|&t| r.rg_name(t)).collect();
        names.sort();
        assert_eq!(names, ["move_asub_b_2_c", "v_f_x"]);
    }

    /// Whether relation `name` is answered on demand.
    fn is_on_demand(r: &Reasoner, name: &str) -> bool {
        let rel = r
            .game
            .rel_names
            .iter()
            .position(|s| &*r.game.names[s.0 as usize] == name)
            .unwrap_or_else(|| panic!("no relation {name}"));
        r.game.on_demand[rel]
    }

    #[test]
    fn negated_only_relations_are_answered_on_demand() {
        // `far` has 10^6 - 10^5 atoms in every state; the rules only ask about ten of them. It
        // is materialised until it passes the derivation limit, then answered on demand.
        let text = format!(
            "{FRAME} (num 0) (num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8)              (num 9) (<= (far ?a ?b ?c ?d ?e ?f) (true s) (num ?a) (num ?b) (num ?c) (num ?d)              (num ?e) (num ?f) (distinct ?a 3))              (<= (legal p (pick ?x)) (true s) (num ?x) (not (far ?x ?x ?x ?x ?x ?x)))"
        );
        let loaded = front_gdl_syntax::load(
            rg_core::FileId(0),
            &text,
            &front_gdl_syntax::ParseOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let mut r = Reasoner::with_limit(&loaded.program, 10_000).expect("builds");
        assert!(!is_on_demand(&r, "far"), "materialised until it grows");
        assert_eq!(legal(&mut r), ["(pick 3)"]);
        assert!(is_on_demand(&r, "far"));
        assert_eq!(legal(&mut r), ["(pick 3)"]);
    }

    #[test]
    fn the_limit_also_bounds_the_solutions_of_one_join() {
        // 10^5 solutions of one join give only 10 facts: the solutions are what is bounded.
        let text = format!(
            "{FRAME} (v 0) (v 1) (v 2) (v 3) (v 4) (v 5) (v 6) (v 7) (v 8) (v 9) \
             (<= (one ?a) (v ?a) (v ?b) (v ?c) (v ?d) (v ?e)) \
             (<= (legal p (go ?a)) (one ?a))"
        );
        let loaded = front_gdl_syntax::load(
            rg_core::FileId(0),
            &text,
            &front_gdl_syntax::ParseOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        match Reasoner::with_limit(&loaded.program, 1_000) {
            Err(ReasonerError::Limit { limit: 1_000 }) => {}
            other => panic!("expected the limit, got {:?}", other.map(|_| ())),
        }
        assert!(Reasoner::with_limit(&loaded.program, 100_000).is_ok());
    }

    #[test]
    fn large_static_relations_read_with_bound_atoms_are_answered_on_demand() {
        // `big` would have 10^6 atoms, past the size where static relations stop being
        // materialised; `wrap` reads it with its head's variables only, so it follows.
        // `pair` is small and read with an unbound variable: materialised.
        let text = format!(
            "{FRAME} (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9) \
             (init (at 1 2 3 4 5 6)) (init (at 7 7 7 7 7 7)) \
             (<= (big ?a ?b ?c ?e ?f ?g) (d ?a) (d ?b) (d ?c) (d ?e) (d ?f) (d ?g) \
              (distinct ?a ?g)) \
             (<= (wrap ?a ?b ?c ?e ?f ?g) (big ?g ?f ?e ?c ?b ?a)) \
             (<= (pair ?a ?b) (d ?a) (d ?b) (distinct ?a ?b)) \
             (<= (legal p (ok ?a)) (true (at ?a ?b ?c ?e ?f ?g)) (wrap ?a ?b ?c ?e ?f ?g)) \
             (<= (legal p (two ?a ?b)) (true (at 1 ?a ?x ?y ?z ?w)) (pair ?a ?b) (distinct ?b 0))"
        );
        let mut r = reasoner(&text);
        assert!(is_on_demand(&r, "big"));
        assert!(is_on_demand(&r, "wrap"));
        assert!(!is_on_demand(&r, "pair"));
        let moves = legal(&mut r);
        assert!(moves.contains(&"(ok 1)".to_string()), "{moves:?}");
        assert!(!moves.contains(&"(ok 7)".to_string()), "{moves:?}");
        assert_eq!(moves.len(), 1 + 8, "{moves:?}");
    }

    #[test]
    fn small_static_relations_stay_materialised_even_when_they_could_be_asked() {
        let text = format!(
            "{FRAME} (d 0) (d 1) (d 2) (init (at 1 2)) \
             (<= (differ ?a ?b) (d ?a) (d ?b) (distinct ?a ?b)) \
             (<= (legal p (go ?a)) (true (at ?a ?b)) (differ ?a ?b))"
        );
        let mut r = reasoner(&text);
        assert!(!is_on_demand(&r, "differ"));
        assert_eq!(legal(&mut r), ["(go 1)"]);
    }

    #[test]
    fn on_demand_queries_nest_and_serve_the_next_state() {
        // `lit`, `dark` (a repeated head variable) and `ok` are only negated, each by the next
        // one; `next` asks `dark` about the state being left. `num` is static.
        let text = "(role p) (init s) (init (on 1)) (init (on 2)) (num 1) (num 2) (num 3) \
                    (<= (lit ?x) (true (on ?x))) \
                    (<= (dark ?x ?x) (num ?x) (not (lit ?x))) \
                    (<= (ok ?x) (num ?x) (not (dark ?x ?x))) \
                    (<= (legal p (flip ?x)) (true s) (num ?x) (not (ok ?x))) \
                    (<= (legal p (keep ?x ?y)) (true s) (num ?x) (num ?y) (not (dark ?x ?y))) \
                    (<= (next (on ?x)) (does p (flip ?x))) \
                    (<= (next (on ?x)) (does p ?m) (num ?x) (not (dark ?x ?x))) \
                    (<= (next t) (does p ?m)) (<= terminal (true t)) (<= (goal p 100) (true t))";
        let mut r = reasoner(text);
        // Every eligible state relation with a fact is answered on demand from the first
        // evaluation on.
        r.game.demand_at = [0, 0, 0];
        let _ = legal(&mut r);
        assert!(is_on_demand(&r, "dark"));
        assert!(is_on_demand(&r, "ok"));
        assert!(is_on_demand(&r, "lit"));
        assert!(!is_on_demand(&r, "num"));
        // (dark 3 3) holds, so (ok 3) does not; (dark x y) fails whenever x ≠ y.
        let moves = legal(&mut r);
        assert_eq!(moves.len(), 1 + 8, "{moves:?}");
        assert!(moves.contains(&"(flip 3)".to_string()));
        assert!(!moves.contains(&"(keep 3 3)".to_string()));
        let init = r.initial().clone();
        let mut ev = r.evaluate(&init).expect("evaluates");
        let flip = ev.legal()[0]
            .iter()
            .copied()
            .find(|&m| r.show(m) == "(flip 3)")
            .expect("flip 3 is legal");
        let next = r.next(&mut ev, &[flip]).expect("next");
        let mut fluents: Vec<String> = next.state.fluents().iter().map(|&f| r.show(f)).collect();
        fluents.sort();
        assert_eq!(fluents, ["(on 1)", "(on 2)", "(on 3)", "t"]);
    }

    #[test]
    fn transitive_closure_is_complete() {
        // A chain 0 -> 1 -> ... -> 30 has 31·30/2 ordered reachable pairs.
        let mut text = String::from(FRAME);
        for i in 0..30 {
            text.push_str(&format!(" (edge n{i} n{})", i + 1));
        }
        text.push_str(
            " (<= (reach ?x ?y) (edge ?x ?y)) (<= (reach ?x ?z) (reach ?x ?y) (edge ?y ?z))\
             (<= (legal p (go ?x ?y)) (true s) (reach ?x ?y))",
        );
        let mut r = reasoner(&text);
        assert_eq!(legal(&mut r).len(), 31 * 30 / 2);
        assert_eq!(r.perft(1).expect("perft"), 465);
    }

    #[test]
    fn state_dependent_recursion_with_negation_above_it() {
        // Reachability over open cells, then its complement one stratum up.
        let text = format!(
            "{FRAME} (init (open 1)) (init (open 2)) (init (open 4)) \
             (link 1 2) (link 2 3) (link 3 4) (cell 1) (cell 2) (cell 3) (cell 4) \
             (<= (reach 1) (true (open 1))) \
             (<= (reach ?y) (reach ?x) (link ?x ?y) (true (open ?y))) \
             (<= (legal p (cut ?c)) (true s) (cell ?c) (not (reach ?c)))"
        );
        let mut r = reasoner(&text);
        assert_eq!(legal(&mut r), ["(cut 3)", "(cut 4)"]);
    }

    #[test]
    fn relation_level_negative_cycle_is_evaluated_ground() {
        // goal 100 unless goal 0: a negative self-edge at the relation level only.
        let text = "(role p) (init s) (<= (legal p go) (true s)) (<= (next t) (does p go)) \
                    (<= terminal (true t)) (<= (goal p 0) (true t)) \
                    (<= (goal p 100) (not (goal p 0)))";
        let mut r = reasoner(text);
        let init = r.initial().clone();
        let mut ev = r.evaluate(&init).expect("evaluates");
        let g: Vec<String> = r.goals(&ev)[0].iter().map(|&t| r.show(t)).collect();
        assert_eq!(g, ["100"]);
        let go = ev.legal()[0][0];
        let t = r.next(&mut ev, &[go]).expect("next");
        let ev = r.evaluate(&t.state).expect("evaluates");
        let g: Vec<String> = r.goals(&ev)[0].iter().map(|&t| r.show(t)).collect();
        assert_eq!(g, ["0"]);
    }

    #[test]
    fn compound_terms_absent_from_the_store_are_handled() {
        // `(distinct (f ?x) (f ?y))` and `(not (seen (g ?x)))` mention terms no fact has.
        let text = format!(
            "{FRAME} (v a) (v b) (seen (g a)) \
             (<= (legal p (pair ?x ?y)) (true s) (v ?x) (v ?y) (distinct (f ?x) (f ?y)) \
                 (not (seen (g ?y))))"
        );
        let mut r = reasoner(&text);
        assert_eq!(legal(&mut r), ["(pair a b)"]);
    }

    #[test]
    fn partial_depths_count_the_first_roles_choices() {
        let text = "(role a) (role b) (init s) (n 1) (n 2) (n 3) \
                    (<= (legal a (x ?i)) (true s) (n ?i)) (<= (legal b (y ?i)) (true s) (n ?i) \
                    (distinct ?i 3)) (<= (next s) (true s)) (<= terminal (true t)) \
                    (<= (goal a 0) (role a)) (<= (goal b 0) (role b))";
        let mut r = reasoner(text);
        let counts: Vec<u64> = (0..=4).map(|d| r.perft(d).expect("perft")).collect();
        assert_eq!(counts, [1, 3, 6, 18, 36]);
    }

    #[test]
    fn the_derivation_limit_stops_a_blow_up() {
        let text = format!(
            "{FRAME} (v 1) (v 2) (v 3) (v 4) (v 5) \
             (<= (big ?a ?b ?c ?d) (v ?a) (v ?b) (v ?c) (v ?d)) \
             (<= (legal p (go ?a)) (big ?a ?b ?c ?d))"
        );
        let loaded = front_gdl_syntax::load(
            rg_core::FileId(0),
            &text,
            &front_gdl_syntax::ParseOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        match Reasoner::with_limit(&loaded.program, 100) {
            Err(ReasonerError::Limit { limit: 100 }) => {}
            other => panic!("expected the limit, got {:?}", other.map(|_| ())),
        }
    }
}
