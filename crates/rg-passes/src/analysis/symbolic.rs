//! What the ordinary variables hold at each node of a search graph, as functions of what two
//! arrivals with equal visited keys share: for `calculate_repeats_and_uniques`.
//!
//! Two states a search pushes at one node with equal keys have equal tags and equal ordinary
//! variables, and, being in one search, they came from one start state. So an *atom* is one
//! of: `Start(v)`, the value variable `v` had when the search started; `Tag(i)`, the `i`-th tag
//! added since the start; `Cur(v)`, the current value of another ordinary variable. A *term*
//! is an atom, a symbol, a constant, a lookup `m[k]` or a store (`m` with key `k` set to `x`,
//! normalised as the interpreter does) over terms.
//!
//! Per node and tracked variable `v` (an ordinary variable some walked edge assigns) the
//! analysis keeps
//!
//! * `terms`: a set of at most [`MAX_TERMS`] terms, one of which gives `v`'s value in every
//!   state at the node (`None`: unknown). With a single term `t`, `v` is a function of the
//!   atoms, the same function for every state at the node: equal tags, equal other variables
//!   and one search imply equal `v`. A term never mentions `Cur(v)` for its own variable.
//! * `values`: the symbols `v` may hold (`None`: unknown, maps included); at a search's start
//!   the members of its declared type (a proper game keeps every variable within its type: an
//!   assignment that stores anything else is an invalid action), as for a variable the
//!   searches never assign.
//!
//! and per tag index `i` below [`TAG_INDEXES`] the symbols the `i`-th tag since the start may
//! be. Transfers:
//!
//! * `v = r` gives `v` the terms of `r`, built from the facts before the edge (a variable
//!   without a single term there is `Cur(u)`; `Cur(v)` of the old `v` is replaced by `v`'s old
//!   term or the term is dropped), and rewrites `Cur(v)` in the other terms to `v`'s old term,
//!   or forgets those terms; `v`'s values are those of `r` (symbols, constants, lookups in
//!   constant maps at the possible keys).
//! * A cell store `v[k] = r` gives `v` a store term over `v`'s old term. When the cell's old
//!   value cannot be the stored one, the term is a *change*, which tells the key (see
//!   [`Terms::determines`]): either the constants analysis (facts on every walk from `begin`,
//!   so on every walk of a search) knows the old value and it differs, or a *cell fact* says
//!   the cell holds one of a set of symbols the stored ones avoid. A comparison `m[x] == y`
//!   records the values of `y` for the cell `m[x]`; an assignment to a variable the cell's
//!   expression mentions forgets it; a join keeps the cells known on both sides.
//! * `v = T(*)` forgets `v`'s term (rewriting `Cur(v)` as above) and gives the members of `T`
//!   as values.
//! * `x == s` / `x != s` with `s` a literal symbol: a plain variable `x` gets the term `s` and
//!   values `{s}`, or loses `s` from its values; if `x` is one term of a single atom with
//!   known values, the atom's values are narrowed to those for which the comparison holds
//!   (e.g. `up[pos] != null` drops the squares of the top row from `pos`). An empty set means
//!   no state passes the edge.
//! * `$ s` / `$$ v` add `s` / `v`'s values to the tag index of every possible tag count; at a
//!   fixed count `i` (every walk to the source has added `i` tags), `$$ v` also gives `v` the
//!   term `Tag(i)` and rewrites `Cur(v)` likewise.
//!
//! Joins take unions; sets and terms are capped, so the domain has finite height.
//!
//! Not computed (`None`) for a game with more (node, tracked variable) pairs than
//! [`BUDGET`].

use super::constants::{Constants, Facts};
use super::search_starts::VarSet;
use super::searches::{Order, SearchGraph, TagCounts, solve};
use super::values::{Known, NameKind, Values};
use crate::util::NodeMap;
use crate::util::set_members;
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, Symbol, TypeData, ValueData};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::rc::Rc;

/// Most terms kept per variable and node.
pub(crate) const MAX_TERMS: usize = 4;
/// Deepest term kept.
const MAX_DEPTH: u8 = 32;
/// Tag indexes whose values are tracked.
pub(crate) const TAG_INDEXES: usize = 16;
/// Most (node, tracked variable) pairs of a game the analysis runs on.
const BUDGET: usize = 2_000_000;

/// A term id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct TermId(u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Term {
    Start(u32),
    Cur(u32),
    Tag(u8),
    Sym(Symbol),
    /// The constant at this index of the constant list.
    Const(u32),
    Lookup(TermId, TermId),
    Store(TermId, TermId, TermId),
    /// A store that changes the cell: the map held something else at the key before.
    Change(TermId, TermId, TermId),
}

/// Hash-consed terms.
#[derive(Debug, Default)]
pub(crate) struct Terms {
    data: Vec<(Term, u8)>,
    index: HashMap<Term, TermId>,
}

impl Terms {
    fn make(&mut self, t: Term) -> Option<TermId> {
        if let Some(&id) = self.index.get(&t) {
            return Some(id);
        }
        let depth = match t {
            Term::Lookup(a, b) => 1 + self.depth(a).max(self.depth(b)),
            Term::Store(a, b, c) | Term::Change(a, b, c) => {
                1 + self.depth(a).max(self.depth(b)).max(self.depth(c))
            }
            _ => 0,
        };
        if depth > MAX_DEPTH {
            return None;
        }
        let id = TermId(self.data.len() as u32);
        self.data.push((t, depth));
        self.index.insert(t, id);
        Some(id)
    }

    fn depth(&self, t: TermId) -> u8 {
        self.data[t.0 as usize].1
    }

    pub(crate) fn get(&self, t: TermId) -> Term {
        self.data[t.0 as usize].0
    }

    /// Calls `f` on every atom of `t` (terms are at most [`MAX_DEPTH`] deep).
    pub(crate) fn atoms(&self, t: TermId, f: &mut impl FnMut(Term)) {
        match self.get(t) {
            a @ (Term::Start(_) | Term::Cur(_) | Term::Tag(_)) => f(a),
            Term::Sym(_) | Term::Const(_) => {}
            Term::Lookup(a, b) => {
                self.atoms(a, f);
                self.atoms(b, f);
            }
            Term::Store(a, b, c) | Term::Change(a, b, c) => {
                self.atoms(a, f);
                self.atoms(b, f);
                self.atoms(c, f);
            }
        }
    }

    /// `t` with `Cur(v)` replaced by `by` (`None` when `by` is `None` and `t` mentions it).
    fn subst(&mut self, t: TermId, v: u32, by: Option<TermId>) -> Option<TermId> {
        Some(match self.get(t) {
            Term::Cur(u) if u == v => by?,
            Term::Start(_) | Term::Cur(_) | Term::Tag(_) | Term::Sym(_) | Term::Const(_) => t,
            Term::Lookup(a, b) => {
                let (a, b) = (self.subst(a, v, by)?, self.subst(b, v, by)?);
                self.make(Term::Lookup(a, b))?
            }
            Term::Store(a, b, c) | Term::Change(a, b, c) => {
                let (a2, b2, c2) = (
                    self.subst(a, v, by)?,
                    self.subst(b, v, by)?,
                    self.subst(c, v, by)?,
                );
                self.make(match self.get(t) {
                    Term::Change(..) => Term::Change(a2, b2, c2),
                    _ => Term::Store(a2, b2, c2),
                })?
            }
        })
    }

    /// The value of `t` when its only atom `atom` holds `x` (`None`: not a known symbol or
    /// map, e.g. a store or another atom).
    pub(crate) fn eval(
        &self,
        g: &Game,
        values: &Values,
        t: TermId,
        atom: Term,
        x: Symbol,
    ) -> Option<Known> {
        match self.get(t) {
            a @ (Term::Start(_) | Term::Cur(_) | Term::Tag(_)) => {
                (a == atom).then_some(Known::Sym(x))
            }
            Term::Sym(s) => Some(Known::Sym(s)),
            Term::Const(i) => values.constant_value(g, i as usize),
            Term::Lookup(m, k) => {
                let Known::Sym(k) = self.eval(g, values, k, atom, x)? else {
                    return None;
                };
                let m = self.eval(g, values, m, atom, x)?;
                values.lookup(g, m, k)
            }
            Term::Store(..) | Term::Change(..) => None,
        }
    }

    /// Whether the value of `Cur(v)` follows from a map term `t` that mentions it only as
    /// the key of a top-level change: `t = change(b, Cur(v), x)`. Two maps equal to `t`
    /// with equal `b` and `x` (no `Cur(v)` in them) had their change at one key: elsewhere
    /// they equal `b`, at the key they hold `x`, which `b` did not.
    pub(crate) fn determines(&self, t: TermId, v: u32) -> bool {
        let Term::Change(b, k, x) = self.get(t) else {
            return false;
        };
        let mut mentions = false;
        for part in [b, x] {
            self.atoms(part, &mut |a| mentions |= a == Term::Cur(v));
        }
        self.get(k) == Term::Cur(v) && !mentions
    }
}

/// The symbols a game can hold or show at run time: the members of its set types, the names in
/// its expressions and values, and its tags (every run-time symbol is written somewhere). Sets
/// of symbols are bit sets over them.
#[derive(Debug)]
pub(crate) struct Universe {
    symbols: Vec<Symbol>,
    index: FxHashMap<Symbol, u32>,
}

impl Universe {
    fn new(g: &Game) -> Self {
        let mut u = Universe {
            symbols: Vec::new(),
            index: FxHashMap::default(),
        };
        let mut add = |s: Symbol| {
            if let std::collections::hash_map::Entry::Vacant(e) = u.index.entry(s) {
                e.insert(u.symbols.len() as u32);
                u.symbols.push(s);
            }
        };
        for i in 0..g.types().len() {
            if let TypeData::Set(ms) = g.ty(rg_core::TypeId::new(i)) {
                ms.iter().copied().for_each(&mut add);
            }
        }
        for i in 0..g.exprs().len() {
            if let ExprData::Ref(s) = g.expr(ExprId::new(i)) {
                add(s);
            }
        }
        for i in 0..g.values().len() {
            match g.value(rg_core::ValueId::new(i)) {
                ValueData::Element(s) => add(*s),
                ValueData::Map(entries) => entries.iter().filter_map(|e| e.key).for_each(&mut add),
            }
        }
        for (_, d) in g.edges() {
            if let Label::Tag(s) = d.label {
                add(s);
            }
        }
        u
    }

    fn words(&self) -> usize {
        self.symbols.len().div_ceil(64)
    }

    /// The set of these symbols (`None` if one is not a run-time symbol of the game).
    pub(crate) fn set(&self, symbols: impl IntoIterator<Item = Symbol>) -> Option<SymSet> {
        let mut out = SymSet(vec![0; self.words()]);
        for s in symbols {
            let i = *self.index.get(&s)? as usize;
            out.0[i / 64] |= 1 << (i % 64);
        }
        Some(out)
    }

    pub(crate) fn contains(&self, set: &SymSet, s: Symbol) -> bool {
        self.index
            .get(&s)
            .is_some_and(|&i| set.0[i as usize / 64] & (1 << (i % 64)) != 0)
    }

    /// The symbols of a set, in universe order.
    pub(crate) fn symbols<'a>(&'a self, set: &'a SymSet) -> impl Iterator<Item = Symbol> + 'a {
        set.0.iter().enumerate().flat_map(move |(k, &w)| {
            (0..64)
                .filter(move |b| w & (1u64 << b) != 0)
                .map(move |b| self.symbols[k * 64 + b])
        })
    }

    /// Keeps the symbols `keep` accepts.
    fn retain(&self, set: &mut SymSet, mut keep: impl FnMut(Symbol) -> bool) {
        for (k, w) in set.0.iter_mut().enumerate() {
            for b in 0..64 {
                if *w & (1u64 << b) != 0 && !keep(self.symbols[k * 64 + b]) {
                    *w &= !(1u64 << b);
                }
            }
        }
    }
}

/// The entries of a constant map at every symbol of a [`Universe`].
type Table = Rc<Vec<Option<Known>>>;

/// A set of symbols of a [`Universe`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SymSet(Vec<u64>);

impl SymSet {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The symbols in both.
    pub(crate) fn meet(&self, other: &SymSet) -> SymSet {
        SymSet(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }

    /// Whether no symbol is in both.
    pub(crate) fn apart(&self, other: &SymSet) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & b == 0)
    }
}

/// `a ∪= b` (`None`: any symbol); whether `a` grew.
fn union(a: &mut Option<SymSet>, b: &Option<SymSet>) -> bool {
    match (a.as_mut(), b) {
        (None, _) => false,
        (Some(_), None) => {
            *a = None;
            true
        }
        (Some(x), Some(y)) => {
            let mut grew = false;
            for (p, q) in x.0.iter_mut().zip(&y.0) {
                grew |= *q & !*p != 0;
                *p |= q;
            }
            grew
        }
    }
}

/// What is known of one tracked variable at a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarFact {
    /// Sorted, at most [`MAX_TERMS`].
    pub(crate) terms: Option<Vec<TermId>>,
    pub(crate) values: Option<SymSet>,
}

impl VarFact {
    /// The single term, if there is one.
    pub(crate) fn single(&self) -> Option<TermId> {
        match self.terms.as_deref() {
            Some([t]) => Some(*t),
            _ => None,
        }
    }

    fn join(&mut self, other: &VarFact) -> bool {
        let mut grew = false;
        match (self.terms.as_mut(), &other.terms) {
            (None, _) => {}
            (Some(_), None) => {
                self.terms = None;
                grew = true;
            }
            (Some(a), Some(b)) => {
                for t in b {
                    if let Err(i) = a.binary_search(t) {
                        a.insert(i, *t);
                        grew = true;
                    }
                }
                if a.len() > MAX_TERMS {
                    self.terms = None;
                }
            }
        }
        grew | union(&mut self.values, &other.values)
    }
}

/// `join(a, b)` for shared facts: `a` is copied only when it is shared and grows. `join`
/// must leave its first argument as it was when it returns false, and join a value with itself
/// to no change.
fn join_shared<T: Clone>(a: &mut Rc<T>, b: &Rc<T>, join: impl Fn(&mut T, &T) -> bool) -> bool {
    if Rc::ptr_eq(a, b) {
        return false;
    }
    if let Some(x) = Rc::get_mut(a) {
        return join(x, b);
    }
    let mut x = T::clone(a);
    let grew = join(&mut x, b);
    if grew {
        *a = Rc::new(x);
    }
    grew
}

/// What is known at a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NodeFacts {
    /// Per tracked variable; shared between nodes until changed (most edges change one
    /// variable or none, and a copy of every variable's facts per edge dominated the pass).
    pub(crate) vars: Vec<Rc<VarFact>>,
    /// Per tag index below [`TAG_INDEXES`]: the symbols a tag added there may be (shared
    /// like `vars`).
    pub(crate) tags: Rc<Vec<Option<SymSet>>>,
    /// Map cells (access expressions, casts stripped) with the symbols they may hold, from
    /// comparisons since no walk assigned a variable they mention; at most [`MAX_CELLS`].
    cells: Rc<Vec<(ExprId, SymSet)>>,
}

/// Most cell facts kept per node.
const MAX_CELLS: usize = 8;

impl NodeFacts {
    fn join(&mut self, other: &NodeFacts) -> bool {
        let mut grew = false;
        for (a, b) in self.vars.iter_mut().zip(&other.vars) {
            grew |= join_shared(a, b, VarFact::join);
        }
        grew |= join_shared(&mut self.tags, &other.tags, |mine, theirs| {
            let mut grew = false;
            for (a, b) in mine.iter_mut().zip(theirs) {
                grew |= union(a, b);
            }
            grew
        });
        grew | join_shared(&mut self.cells, &other.cells, |mine, theirs| {
            join_cells(mine, theirs)
        })
    }
}

/// Joins cell facts: a cell fact must hold on every walk, so it is kept where both have it,
/// with its values joined.
fn join_cells(mine: &mut Vec<(ExprId, SymSet)>, theirs: &[(ExprId, SymSet)]) -> bool {
    let mut grew = false;
    let before = mine.len();
    mine.retain_mut(|(e, vs)| match theirs.iter().find(|c| c.0 == *e) {
        Some((_, ws)) => {
            let mut x = Some(vs.clone());
            grew |= union(&mut x, &Some(ws.clone()));
            *vs = x.expect("a union of two sets is a set");
            true
        }
        None => false,
    });
    grew | (mine.len() != before)
}

/// The analysis of one search graph.
pub(crate) struct Symbolic<'a> {
    g: &'a Game,
    pub(crate) values: &'a Values,
    /// Per variable position: its index among the tracked variables.
    pub(crate) tracked: Vec<Option<usize>>,
    /// Per tracked index: the variable position.
    pub(crate) positions: Vec<usize>,
    tags: &'a NodeMap<Option<TagCounts>>,
    pub(crate) terms: std::cell::RefCell<Terms>,
    members: std::cell::RefCell<HashMap<rg_core::TypeId, Option<SymSet>>>,
    position: HashMap<Symbol, usize>,
    ordinary: &'a [bool],
    /// Per node: expressions with a known value on every walk from `begin` (the constants
    /// analysis), when computed: tells a store that changes its cell.
    cells: Option<&'a NodeMap<Option<Facts>>>,
    pub(crate) universe: Universe,
    tables: std::cell::RefCell<HashMap<u32, Option<Table>>>,
}

impl<'a> Symbolic<'a> {
    /// The analysis for the searches of `sg`, or `None` when the game is over [`BUDGET`].
    pub(crate) fn new(
        g: &'a Game,
        sg: &SearchGraph,
        values: &'a Values,
        ordinary: &'a [bool],
        tags: &'a NodeMap<Option<TagCounts>>,
        cells: Option<&'a NodeMap<Option<Facts>>>,
    ) -> Option<Self> {
        let position = crate::util::variable_positions(g);
        let mut written = VarSet::empty(g.variables.len());
        for (e, d) in g.edges() {
            if !sg.walked[e.index()] {
                continue;
            }
            if let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = d.label
                && let Some(&i) = position.get(&g.expr_root(lhs))
                && ordinary[i]
            {
                written.add(i);
            }
        }
        let positions: Vec<usize> = written.iter().collect();
        if positions.len().saturating_mul(g.node_capacity()) > BUDGET {
            return None;
        }
        let mut tracked = vec![None; g.variables.len()];
        for (k, &i) in positions.iter().enumerate() {
            tracked[i] = Some(k);
        }
        Some(Symbolic {
            g,
            values,
            tracked,
            positions,
            tags,
            terms: Default::default(),
            members: Default::default(),
            position,
            ordinary,
            cells,
            universe: Universe::new(g),
            tables: Default::default(),
        })
    }

    /// The facts at every node of `sg`.
    pub(crate) fn solve(&self, sg: &SearchGraph, order: &Order) -> NodeMap<Option<NodeFacts>> {
        let mut terms = self.terms.borrow_mut();
        let init = NodeFacts {
            vars: self
                .positions
                .iter()
                .map(|&i| {
                    Rc::new(VarFact {
                        terms: terms.make(Term::Start(i as u32)).map(|t| vec![t]),
                        values: self.declared(i),
                    })
                })
                .collect(),
            tags: Rc::new(vec![self.universe.set([]); TAG_INDEXES]),
            cells: Rc::default(),
        };
        drop(terms);
        solve(
            self.g,
            sg,
            order,
            init,
            |here, e| self.after(here, e),
            NodeFacts::join,
        )
    }

    /// The members of the declared type of the variable at `position`, if a set: what it
    /// holds in any state of a proper game (every stored value belongs to the location's type,
    /// an assignment that stores anything else is an invalid action), so also at the start of a
    /// search.
    pub(crate) fn declared(&self, position: usize) -> Option<SymSet> {
        self.members(self.g.variables[position].ty)
    }

    fn members(&self, ty: rg_core::TypeId) -> Option<SymSet> {
        self.members
            .borrow_mut()
            .entry(ty)
            .or_insert_with(|| self.universe.set(set_members(self.g, ty)?))
            .clone()
    }

    /// The entries of a constant map (the constant at index `c`) at every symbol of the
    /// universe, computed once per constant.
    fn table(&self, c: u32) -> Option<Table> {
        let mut tables = self.tables.borrow_mut();
        tables
            .entry(c)
            .or_insert_with(|| {
                let map = self.values.constant_value(self.g, c as usize)?;
                Some(Rc::new(self.values.lookup_each(
                    self.g,
                    map,
                    &self.universe.symbols,
                )))
            })
            .clone()
    }

    /// [`Terms::eval`], with lookups in constant maps through their tables.
    pub(crate) fn eval(&self, terms: &Terms, t: TermId, atom: Term, x: Symbol) -> Option<Known> {
        if let Term::Lookup(m, k) = terms.get(t)
            && let Term::Const(c) = terms.get(m)
        {
            let Known::Sym(k) = self.eval(terms, k, atom, x)? else {
                return None;
            };
            let i = *self.universe.index.get(&k)? as usize;
            return self.table(c)?[i];
        }
        terms.eval(self.g, self.values, t, atom, x)
    }

    /// The tracked index of a plain ordinary variable reference.
    fn plain_var(&self, e: ExprId) -> Option<usize> {
        match self.g.expr(self.g.strip_casts(e)) {
            ExprData::Ref(s) if self.values.kind(s) == NameKind::Variable => {
                self.tracked[*self.position.get(&s)?]
            }
            _ => None,
        }
    }

    /// The terms `e` may evaluate to in a state with facts `k`, never mentioning `Cur` of the
    /// variable at position `not` (the one being assigned).
    fn term_of(
        &self,
        terms: &mut Terms,
        k: &NodeFacts,
        e: ExprId,
        not: usize,
    ) -> Option<Vec<TermId>> {
        match self.g.expr(e) {
            ExprData::Cast(_, x) => self.term_of(terms, k, x, not),
            ExprData::Ref(s) => match self.values.kind(s) {
                NameKind::Symbol => Some(vec![terms.make(Term::Sym(s))?]),
                NameKind::Constant(i) => Some(vec![terms.make(Term::Const(i as u32))?]),
                NameKind::Variable => {
                    let &i = self.position.get(&s)?;
                    if !self.ordinary[i] {
                        return None; // goals, player, visible: not part of the key
                    }
                    match self.tracked[i] {
                        None => Some(vec![terms.make(Term::Start(i as u32))?]),
                        Some(t) => match &k.vars[t].terms {
                            Some(ts) => Some(ts.clone()),
                            None if i != not => Some(vec![terms.make(Term::Cur(i as u32))?]),
                            None => None,
                        },
                    }
                }
            },
            ExprData::Access(m, x) => {
                let ms = self.term_of(terms, k, m, not)?;
                let xs = self.term_of(terms, k, x, not)?;
                if ms.len() * xs.len() > MAX_TERMS {
                    return None;
                }
                let mut out = Vec::new();
                for &a in &ms {
                    for &b in &xs {
                        out.push(terms.make(Term::Lookup(a, b))?);
                    }
                }
                out.sort_unstable();
                out.dedup();
                Some(out)
            }
        }
    }

    /// The symbols `e` may evaluate to in a state with facts `k`.
    fn values_of(&self, k: &NodeFacts, e: ExprId) -> Option<SymSet> {
        match self.g.expr(e) {
            ExprData::Cast(_, x) => self.values_of(k, x),
            ExprData::Ref(s) => match self.values.kind(s) {
                NameKind::Symbol => self.universe.set([s]),
                NameKind::Constant(i) => match self.values.constant_value(self.g, i)? {
                    Known::Sym(x) => self.universe.set([x]),
                    Known::Map(..) => None,
                },
                NameKind::Variable => {
                    let i = *self.position.get(&s)?;
                    match self.tracked[i] {
                        Some(t) => k.vars[t].values.clone(),
                        // Never assigned by these searches: any member of its type.
                        None => self.declared(i),
                    }
                }
            },
            ExprData::Access(m, x) => {
                // A lookup in a constant map: its entries at the possible keys.
                let ExprData::Ref(name) = self.g.expr(self.g.strip_casts(m)) else {
                    return None;
                };
                let NameKind::Constant(i) = self.values.kind(name) else {
                    return None;
                };
                let table = self.table(i as u32)?;
                let keys = self.values_of(k, x)?;
                let mut out = Vec::new();
                for key in self.universe.symbols(&keys) {
                    match table[*self.universe.index.get(&key)? as usize]? {
                        Known::Sym(s) => out.push(s),
                        Known::Map(..) => return None,
                    }
                }
                self.universe.set(out)
            }
        }
    }

    /// The values an atom (`Tag`, `Cur` or `Start`) may take in a state with facts `k`, when
    /// known: the tag index's symbols, the variable's values, or for a start value the values
    /// of a variable that still holds it, else (proper games) its declared type's members.
    pub(crate) fn atom_values(&self, k: &NodeFacts, atom: Term) -> Option<SymSet> {
        match atom {
            Term::Tag(i) => k.tags.get(i as usize)?.clone(),
            Term::Cur(u) => k.vars[self.tracked[u as usize]?].values.clone(),
            Term::Start(u) => {
                let start = self.terms.borrow().index.get(&Term::Start(u)).copied();
                match self.tracked[u as usize] {
                    Some(t) if k.vars[t].single().is_some() && k.vars[t].single() == start => {
                        k.vars[t].values.clone()
                    }
                    _ => self.declared(u as usize),
                }
            }
            _ => None,
        }
    }

    /// The single term of `e` in a state with facts `k`, with `Cur` of any variable without
    /// a single term (its current value).
    pub(crate) fn rhs_term(&self, k: &NodeFacts, e: ExprId) -> Option<TermId> {
        let mut terms = self.terms.borrow_mut();
        match self.term_of(&mut terms, k, e, usize::MAX)?[..] {
            [t] => Some(t),
            _ => None,
        }
    }

    /// Rewrites `Cur(v)` (position `v`, tracked index `t`) in every other variable's terms to
    /// `v`'s term in `k`, or forgets those terms.
    fn release(&self, terms: &mut Terms, k: &mut NodeFacts, v: usize, t: usize) {
        let by = k.vars[t].single();
        for u in 0..k.vars.len() {
            if u == t {
                continue;
            }
            let Some(ts) = &k.vars[u].terms else { continue };
            let mut mentions = false;
            for &x in ts {
                terms.atoms(x, &mut |a| mentions |= a == Term::Cur(v as u32));
            }
            if !mentions {
                continue;
            }
            // Stops at the first term that cannot be rewritten: those terms are forgotten.
            let rewritten = ts
                .iter()
                .map(|&x| terms.subst(x, v as u32, by))
                .collect::<Option<Vec<_>>>()
                .map(|mut out| {
                    out.sort_unstable();
                    out.dedup();
                    out
                });
            Rc::make_mut(&mut k.vars[u]).terms = rewritten;
        }
    }

    /// The facts after walking `e` from a node with facts `here` (`None`: never walkable).
    pub(crate) fn after(&self, here: &NodeFacts, e: EdgeId) -> Option<NodeFacts> {
        let g = self.g;
        let d = g.edge(e);
        let mut k = here.clone();
        let mut terms = self.terms.borrow_mut();
        if let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = d.label {
            let v = g.expr_root(lhs);
            let stale = |(e, _): &(ExprId, SymSet)| super::constants::mentions(g, *e, v);
            if k.cells.iter().any(stale) {
                Rc::make_mut(&mut k.cells).retain(|c| !stale(c));
            }
        }
        match d.label {
            Label::Skip | Label::Reach { .. } => {}
            Label::Tag(_) | Label::TagVar(_) => {
                let (value, var) = match d.label {
                    Label::Tag(s) => (self.universe.set([s]), None),
                    Label::TagVar(v) => {
                        let t = self.position.get(&v).and_then(|&i| self.tracked[i]);
                        let values = match t {
                            Some(t) => k.vars[t].values.clone(),
                            None => None,
                        };
                        (values, t)
                    }
                    _ => unreachable!(),
                };
                let counts = self.tags[d.from];
                if counts.is_none() {
                    Rc::make_mut(&mut k.tags).iter_mut().for_each(|x| *x = None);
                }
                for i in counts.iter().flat_map(|c| c.counts()) {
                    if let Some(slot) = Rc::make_mut(&mut k.tags).get_mut(i) {
                        union(slot, &value);
                    }
                }
                let fixed = counts.and_then(TagCounts::single);
                if let (Some(i), Some(t)) = (fixed, var) {
                    let v = self.positions[t];
                    if let Some(tag) = u8::try_from(i).ok().and_then(|i| terms.make(Term::Tag(i))) {
                        Rc::make_mut(&mut k.vars[t]).terms = Some(vec![tag]);
                        self.release(&mut terms, &mut k, v, t);
                    }
                }
            }
            Label::Compare { lhs, rhs, negated } => {
                let side = match (
                    crate::util::literal_symbol(g, rhs),
                    crate::util::literal_symbol(g, lhs),
                ) {
                    (Some(s), _) => Some((lhs, s)),
                    (None, Some(s)) => Some((rhs, s)),
                    (None, None) => None,
                };
                if !negated {
                    self.learn_cell(&mut k, lhs, rhs);
                    self.learn_cell(&mut k, rhs, lhs);
                }
                if let Some((x, s)) = side {
                    if let Some(t) = self.plain_var(x) {
                        let f = Rc::make_mut(&mut k.vars[t]);
                        let u = &self.universe;
                        if negated {
                            if let Some(vs) = &mut f.values {
                                u.retain(vs, |y| y != s);
                            }
                        } else {
                            if f.values.as_ref().is_some_and(|vs| !u.contains(vs, s)) {
                                return None;
                            }
                            f.values = u.set([s]);
                            f.terms = terms.make(Term::Sym(s)).map(|t| vec![t]);
                        }
                        if f.values.as_ref().is_some_and(SymSet::is_empty) {
                            return None;
                        }
                    }
                    if !self.narrow_atom(&mut terms, &mut k, x, s, negated) {
                        return None;
                    }
                }
            }
            Label::Assign { lhs, rhs } => {
                let root = g.expr_root(lhs);
                let Some(&v) = self.position.get(&root) else {
                    return Some(k);
                };
                let Some(t) = self.tracked[v] else {
                    return Some(k);
                };
                let lhs = g.strip_casts(lhs);
                let (new_terms, new_values) = if let ExprData::Ref(_) = g.expr(lhs) {
                    (
                        self.term_of(&mut terms, &k, rhs, v),
                        self.values_of(&k, rhs),
                    )
                } else {
                    let changes = self.changes_cell(d.from, lhs, rhs)
                        || match (
                            here.cells.iter().find(|c| c.0 == lhs),
                            self.values_of(here, rhs),
                        ) {
                            (Some((_, old)), Some(new)) => old.apart(&new),
                            _ => false,
                        };
                    (self.store_term(&mut terms, &k, lhs, rhs, v, changes), None)
                };
                // The new terms are over the state before the edge: `Cur(v)` there is `v`'s
                // old term.
                let old = k.vars[t].single();
                let new_terms = new_terms.and_then(|ts| {
                    let mut out = ts
                        .into_iter()
                        .map(|x| terms.subst(x, v as u32, old))
                        .collect::<Option<Vec<_>>>()?;
                    out.sort_unstable();
                    out.dedup();
                    (out.len() <= MAX_TERMS).then_some(out)
                });
                self.release(&mut terms, &mut k, v, t);
                k.vars[t] = Rc::new(VarFact {
                    terms: new_terms,
                    values: new_values,
                });
            }
            Label::AssignAny { lhs, ty } => {
                let root = g.expr_root(lhs);
                let Some(&v) = self.position.get(&root) else {
                    return Some(k);
                };
                let Some(t) = self.tracked[v] else {
                    return Some(k);
                };
                let plain = matches!(g.expr(g.strip_casts(lhs)), ExprData::Ref(_));
                self.release(&mut terms, &mut k, v, t);
                k.vars[t] = Rc::new(VarFact {
                    terms: None,
                    values: if plain { self.members(ty) } else { None },
                });
            }
        }
        Some(k)
    }

    /// After `x == s` (or `x != s` when `negated`) held: if `x` is one term of a single
    /// atom (a tag or a tracked variable) whose values are known, they are narrowed to those
    /// for which the comparison holds. Whether values are left (none: no state passes).
    fn narrow_atom(
        &self,
        terms: &mut Terms,
        k: &mut NodeFacts,
        x: ExprId,
        s: Symbol,
        negated: bool,
    ) -> bool {
        let Some(term) = self
            .term_of(terms, k, x, usize::MAX)
            .and_then(|ts| self.single(ts))
        else {
            return true;
        };
        let mut atoms = Vec::new();
        terms.atoms(term, &mut |a| {
            if !atoms.contains(&a) {
                atoms.push(a);
            }
        });
        let start = |u: u32| terms.index.get(&Term::Start(u)).copied();
        let dom = match atoms[..] {
            [Term::Tag(i)] => Rc::make_mut(&mut k.tags)
                .get_mut(i as usize)
                .and_then(Option::as_mut),
            [Term::Cur(u)] => match self.tracked[u as usize] {
                Some(tu) => Rc::make_mut(&mut k.vars[tu]).values.as_mut(),
                None => None,
            },
            // The start value of a variable that still holds it: its values are the atom's.
            [Term::Start(u)] => match self.tracked[u as usize] {
                Some(tu) if k.vars[tu].single().is_some() && k.vars[tu].single() == start(u) => {
                    Rc::make_mut(&mut k.vars[tu]).values.as_mut()
                }
                _ => None,
            },
            _ => None,
        };
        let (Some(dom), &[atom]) = (dom, &atoms[..]) else {
            return true;
        };
        let mut d = dom.clone();
        self.universe
            .retain(&mut d, |y| match self.eval(terms, term, atom, y) {
                Some(Known::Sym(z)) => (z == s) != negated,
                Some(Known::Map(..)) => negated,
                None => true,
            });
        *dom = d;
        !dom.is_empty()
    }

    /// After `x == y` held: if `x` is a map cell (an access, casts stripped) and the values of
    /// `y` are known, the cell holds one of them.
    fn learn_cell(&self, k: &mut NodeFacts, x: ExprId, y: ExprId) {
        let x = self.g.strip_casts(x);
        if !matches!(self.g.expr(x), ExprData::Access(..)) {
            return;
        }
        let Some(vs) = self.values_of(k, y) else {
            return;
        };
        match k.cells.iter().position(|c| c.0 == x) {
            Some(i) => {
                let cells = Rc::make_mut(&mut k.cells);
                cells[i].1 = cells[i].1.meet(&vs);
            }
            None if k.cells.len() < MAX_CELLS => Rc::make_mut(&mut k.cells).push((x, vs)),
            None => {}
        }
    }

    /// The term of the map variable at position `v` after the cell store `lhs = rhs`.
    fn store_term(
        &self,
        terms: &mut Terms,
        k: &NodeFacts,
        lhs: ExprId,
        rhs: ExprId,
        v: usize,
        changes: bool,
    ) -> Option<Vec<TermId>> {
        let value = self.single(self.term_of(terms, k, rhs, v)?)?;
        let mut at = lhs;
        let mut value = value;
        // From the innermost cell outwards: `m[x] = value` becomes `m = store(m, x, value)`.
        loop {
            let ExprData::Access(m, x) = self.g.expr(at) else {
                return Some(vec![value]);
            };
            let map = self.single(self.term_of(terms, k, m, v)?)?;
            let key = self.single(self.term_of(terms, k, x, v)?)?;
            let m = self.g.strip_casts(m);
            let whole = matches!(self.g.expr(m), ExprData::Ref(_));
            value = terms.make(if changes && whole && at == lhs {
                Term::Change(map, key, value)
            } else {
                Term::Store(map, key, value)
            })?;
            at = m;
        }
    }

    /// Whether the store `lhs = rhs` (a cell `m[x]` of a variable) on an edge leaving `n`
    /// always changes the cell: the constants analysis knows the cell's old value and the
    /// stored symbol, and they differ.
    fn changes_cell(&self, n: rg_core::NodeId, lhs: ExprId, rhs: ExprId) -> bool {
        let Some(facts) = self.cells.and_then(|c| c[n].as_ref()) else {
            return false;
        };
        let c = Constants {
            values: self.values,
        };
        let (Some(old), Some(new)) = (c.eval(self.g, lhs, facts), c.eval(self.g, rhs, facts))
        else {
            return false;
        };
        self.values.equal(old, new) == Some(false)
    }

    fn single(&self, ts: Vec<TermId>) -> Option<TermId> {
        match ts[..] {
            [t] => Some(t),
            _ => None,
        }
    }
}
