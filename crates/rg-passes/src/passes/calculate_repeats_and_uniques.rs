//! calculate_repeats_and_uniques: `@unique` for nodes that no search reaches twice with the
//! same state, `@repeat n : v…` for nodes where comparing the listed variables (and the tags)
//! decides whether a state was seen.
//!
//! The interpreter trusts both (its visited-state check skips a `@unique` node and compares
//! only the listed variables at a `@repeat` node): a wrong `@unique` duplicates moves, a wrong
//! `@repeat` merges walks that differ; a compiled move generator trusts them too. So this pass
//! promises only what it proves, with its own rules instead of the reference's
//! ReachingAssignments (which clears its records at every tag and is not sound in general).
//!
//! # What is proved
//!
//! A search (the interpreter's depth-first successor search, from one start state, with a set
//! of visited keys of its own) *arrives* at a node each time it pushes a state there: its start,
//! and every successor of a state it expands. The *key* of a state is what the visited check
//! compares: node, tags and ordinary variables (not `goals`, `player`, `visible`). `@unique n`
//! is true when, in every search, the arrivals at `n` have pairwise different keys. The
//! searches are described by [`SearchGraph`]s, one for move searches and one for reach
//! searches, and a node gets `@unique` when the rules below prove it for each kind of search
//! that visits it.
//!
//! The rules assume that the states a search *expands* at any node have pairwise different
//! keys. At a node without `@unique` the visited check makes it so; at a node with `@unique`
//! it is what the rules prove. This is not circular: take the first moment a search pushes a
//! state at a `@unique` node whose key an earlier arrival there had. Both arrivals come from
//! expansions (or the start) before that moment, when every node still had different keys
//! among its expanded states, and the rule that marked the node excludes exactly that.
//!
//! Facts about single walks hold for every arrival, whatever is merged: which variables a
//! walk from the search's start may have assigned ([`assigned_since_start`]), how many tags it
//! may have added ([`tag_counts`]), which walks may lead to a node ([`arrivals`]), and what
//! the variables and tags hold as functions of what two arrivals with equal keys share
//! ([`Symbolic`]).
//!
//! # The rules
//!
//! 1. **Arrives once.** If a search arrives at `n` at most once, `n` is unique. [`arrivals`]
//!    proves it when `n` lies on no cycle of the search graph (a cycle through `n` walked
//!    twice arrives twice) and the walks that lead to `n` from one start all pairwise took
//!    exclusive branches at some node: `x == a` / `x == b` with different symbols, a condition
//!    and its negation. Such a node is itself reached at most once per search, by induction
//!    along a topological order, so its one state passes at most one of the two branches. An
//!    edge that gives a state several successors (an any-assignment over two or more values)
//!    makes its target's arrivals many; walks from different starts belong to different
//!    searches. This proves most of a turn between two player assignments, and the tail of a
//!    check: once the branching choices of a move are made, the rest is a chain of if-else
//!    decisions.
//! 2. **Target of a check.** A node that reach searches visit only as the target of their
//!    check is unique for them: such a search ends at the first state it takes there.
//! 3. **Injective edges, disjoint images.** Otherwise the arrivals at `n` are the images of
//!    the expanded states of its predecessors under its incoming edges (plus the start when
//!    `n` starts a search). `n` is unique when each edge maps different states to different
//!    keys and gives one state different keys for different successors, no two edges can
//!    produce the same key, and the start's key is none of theirs. An edge that the symbolic
//!    facts at its source show no state can pass (see below) delivers nothing and is left
//!    out.
//!    * *Injective*: a skip, comparison, check or assignment to `goals`, `player`, `visible`
//!      keeps the key; a tag appends to it (equal results had equal tags before). An
//!      assignment, or any-assignment over pairwise different values, to an ordinary variable
//!      `v` is injective when two states the search expands at the source that agree on
//!      everything but `v` agree on `v` too: then two equal results came from equal states.
//!      That holds when (i) no walk from the search's start to the source assigns `v` (all
//!      states there have the start's value); (ii) the source is reached once per search
//!      (rule 1: one state); (iii) `v` has a single symbolic term at the source, one function
//!      of the tags, the start and the other variables (see [`Symbolic`]); (iv) another map
//!      variable's single term is a *change* at key `v`: the map equals a function `b` of the
//!      other atoms except at key `v`, where it holds `x` and `b` did not (a store `m[v] = x`
//!      where the cell is known to have held something else, as when a piece is lifted from
//!      square `v`), so the map tells `v`. Also (v) `v = r` is injective when
//!      `r` is a function of `v`'s old value alone, one-to-one on the values `v` may hold at
//!      the source. An any-assignment stores a different value for each member, and a store
//!      into a map cell keeps the stored value readable at that cell, so different members
//!      give different results. An any-assignment to `goals`, `player` or `visible` over two
//!      values is not injective.
//!    * *Disjoint images* of two edges: (a) the tag counts of their arrivals never coincide
//!      (keys with different numbers of tags differ); (b) both are tags `$ s`, `$ t` with
//!      `s ≠ t`; (c) both sources are reached at most once per search and every walk through
//!      the first edge excludes every walk through the second from the same start (one search
//!      never takes both); (d) same source and both keep the key: the conditions are
//!      exclusive (equal results would be one expanded state passing both); (e) same source,
//!      both assign the same location of an ordinary variable the source agrees on (as
//!      above): from two different symbols, from two expressions of one atom that differ at
//!      each of its possible values, or any-assigns from types without a common member (equal
//!      results would come from one state and store one value); (f) the symbolic facts after
//!      the two edges separate them: a tag index below both tag counts filled from disjoint
//!      symbol sets, an ordinary variable with disjoint value sets, or one whose terms over a
//!      single atom (a tag or a variable: equal in two states of one search with equal keys)
//!      differ at each value the atom may take.
//!    * *The start*: a search starting at `n` arrives there again only along a cycle; if
//!      every arriving edge adds at least one tag (tag counts), its key differs from the
//!      start's, which has no tags of the search yet.
//! 4. **No outgoing edges.** A node without outgoing edges is unique: expanding a state there
//!    twice does nothing.
//!
//! `@repeat n : V` lists the ordinary variables that some walk from the start of a search to
//! `n` may assign, less those that are, in every kind of search visiting `n`, a single term
//! whose `Cur` atoms are variables that stay listed: two arrivals in one search with equal
//! tags and equal `V` then have equal dropped variables (one function of what they share), and
//! every variable never assigned still has the start's value, so they are the same state. Not
//! added when `V` is every ordinary variable (that is the default check), nor when `V` has
//! more than [`MAX_LISTED`] variables: the pragma then saves a consumer little over the
//! default check and makes the output huge (a GDL translation with thousands of variables
//! would list thousands of names at each of thousands of nodes). `@repeat` never merges more
//! states than the default check, so leaving it out changes no game tree.
//!
//! Nodes that no search visits, and nodes that already have a `@unique` or `@repeat` pragma,
//! get nothing.
//!
//! # Cost
//!
//! Two search graphs, each O(nodes + edges) (the reach graph under a budget linear in the
//! game's size, see [`SearchGraph::reach`]); per graph the components, the tag counts (at
//! most 65 changes per node), the assigned variables (O(edges · variables / 64) per change,
//! at most `variables` changes per node), the walks (at most 16 walks of at most 16 branches
//! per node) and the symbolic facts (bounded sets and terms per variable, skipped above a
//! budget of (node, variable) pairs); the constants analysis of the game once. Rule 3 looks
//! at nodes with at most [`MAX_ARRIVING`] arriving edges and compares at most [`MAX_PAIRS`]
//! pairs of them (edges ending in different symbol tags need no comparing); the term
//! evaluations of all its checks share a budget of [`EVALUATIONS`], after which the rules that
//! evaluate terms prove nothing more.
//!
//! The value sets assume a proper game: every variable holds a member of its declared type, at
//! a search's start as after any store (storing anything else is an invalid action).

use super::meta;
use crate::analysis::constants::{Constants, solve_facts_quietly};
use crate::analysis::search_starts::VarSet;
use crate::analysis::searches::{
    Arrivals, Order, SearchGraph, TagCounts, Walk, arrivals, assigned_since_start, branches,
    exclusive, fan_out, tag_counts,
};
use crate::analysis::symbolic::{NodeFacts, Symbolic, TAG_INDEXES, Term, TermId, VarFact};
use crate::analysis::values::{Known, Values};
use crate::util::NodeMap;
use crate::util::{literal_symbol, same_reference, set_members};
use crate::{Pass, PassContext, PassError};
use rg_core::{EdgeId, EntityId, ExprId, Game, Label, NodeId, Pragma, PragmaKind, Symbol, TypeId};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug)]
pub(crate) struct CalculateRepeatsAndUniques;

/// The most variables a `@repeat` lists.
const MAX_LISTED: usize = 64;

/// What is known about the searches of one kind.
struct Facts {
    sg: SearchGraph,
    order: Order,
    assigned: NodeMap<Option<std::rc::Rc<VarSet>>>,
    tags: NodeMap<Option<TagCounts>>,
    arrivals: NodeMap<Option<Arrivals>>,
    branches: Vec<bool>,
    is_start: NodeMap<bool>,
}

/// The symbolic facts of one kind of search (see [`Symbolic`]), when computed.
struct Sym<'a> {
    analysis: Symbolic<'a>,
    at: NodeMap<Option<NodeFacts>>,
}

impl Sym<'_> {
    /// The fact about the variable at `position` at node `n`.
    fn var(&self, n: NodeId, position: usize) -> Option<&VarFact> {
        let t = self.analysis.tracked[position]?;
        Some(self.at[n].as_ref()?.vars[t].as_ref())
    }

    /// Whether the states at `n` that agree on everything but the variable at `position`
    /// agree on it: it has a single term (one function of the atoms), or another variable's
    /// single term is a change of a cell at its key ([`Terms::determines`]).
    fn determined(&self, n: NodeId, position: usize) -> bool {
        let Some(here) = self.at[n].as_ref() else {
            return false;
        };
        if self.var(n, position).is_some_and(|f| f.single().is_some()) {
            return true;
        }
        let terms = self.analysis.terms.borrow();
        here.vars
            .iter()
            .enumerate()
            .filter(|&(t, _)| self.analysis.positions[t] != position)
            .filter_map(|(_, f)| f.single())
            .any(|t| terms.determines(t, position as u32))
    }
}

impl Facts {
    fn new(g: &Game, sg: SearchGraph) -> Facts {
        let order = Order::of(g, &sg);
        let branches = branches(g, &sg);
        let mut is_start = NodeMap::from_elem(false, g.node_capacity());
        for &s in &sg.starts {
            is_start[s] = true;
        }
        Facts {
            assigned: assigned_since_start(g, &sg, &order),
            tags: tag_counts(g, &sg, &order),
            arrivals: arrivals(g, &sg, &order, &branches),
            branches,
            is_start,
            order,
            sg,
        }
    }

    fn once(&self, n: NodeId) -> Option<&[Walk]> {
        match &self.arrivals[n] {
            Some(Arrivals::Once(ws)) => Some(ws),
            _ => None,
        }
    }

    /// Whether the states expanded at `n` in one search that agree on everything but the
    /// variable at `position` agree on it too: one state (arrives once), the value from the
    /// start (no walk assigns it), or one function of the tags, the start and the other
    /// variables (a single term).
    fn agree_on(&self, sym: Option<&Sym<'_>>, n: NodeId, position: usize) -> bool {
        self.once(n).is_some()
            || self.assigned[n]
                .as_ref()
                .is_some_and(|a| !a.contains(position))
            || sym.is_some_and(|s| s.determined(n, position))
    }

    /// The tag counts of the arrivals through `e`.
    fn tags_after(&self, g: &Game, e: EdgeId) -> Option<TagCounts> {
        Some(self.tags[g.edge(e).from]?.after(g, e))
    }
}

/// The game's variables as the visited check sees them.
struct Variables {
    position: HashMap<Symbol, usize>,
    /// Per position: an ordinary variable (part of the key).
    ordinary: Vec<bool>,
    names: Vec<Symbol>,
}

impl Variables {
    fn new(g: &Game) -> Self {
        let wk = *g.well_known();
        let position = crate::util::variable_positions(g);
        let ordinary = g
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| {
                ![wk.goals, wk.player, wk.visible].contains(&v.name)
                    && position.get(&v.name) == Some(&i)
            })
            .collect();
        Variables {
            position,
            ordinary,
            names: g.variables.iter().map(|v| v.name).collect(),
        }
    }
}

/// The rules of the module documentation for one node and one kind of search.
struct Prover<'a> {
    g: &'a Game,
    vars: &'a Variables,
    values: &'a Values,
    members: HashMap<TypeId, Option<Vec<Symbol>>>,
    fans: HashMap<TypeId, usize>,
    /// Term evaluations left to the separation checks (they stop proving when it runs out).
    budget: usize,
}

/// Most arriving edges of a node that rule 3 looks at.
const MAX_ARRIVING: usize = 1024;
/// Most pairs of arriving edges of a node rule 3 compares.
const MAX_PAIRS: usize = 1024;

/// Term evaluations the separation checks may make in one run.
const EVALUATIONS: usize = 20_000_000;
/// Largest atom domain the separation checks enumerate.
const MAX_DOMAIN: usize = 1024;

/// What an edge does to the key of a state.
enum Effect {
    /// Keeps it (skip, comparison, check, assignment to `goals`/`player`/`visible`).
    Keeps,
    /// Appends a tag.
    Tags,
    /// Writes the ordinary variable at this position.
    Writes(usize),
    /// Anything else (an assignment to a name that is no variable).
    Unknown,
}

impl Prover<'_> {
    fn effect(&self, label: &Label) -> Effect {
        match *label {
            Label::Skip | Label::Compare { .. } | Label::Reach { .. } => Effect::Keeps,
            Label::Tag(_) | Label::TagVar(_) => Effect::Tags,
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => {
                match self.vars.position.get(&self.g.expr_root(lhs)) {
                    Some(&i) if self.vars.ordinary[i] => Effect::Writes(i),
                    Some(_) => Effect::Keeps,
                    None => Effect::Unknown,
                }
            }
        }
    }

    /// The members of a set type, if pairwise different.
    fn distinct_members(&mut self, ty: TypeId) -> Option<&[Symbol]> {
        let g = self.g;
        self.members
            .entry(ty)
            .or_insert_with(|| {
                let ms = set_members(g, ty)?;
                let mut sorted = ms.clone();
                sorted.sort_unstable();
                sorted.dedup();
                (sorted.len() == ms.len()).then_some(ms)
            })
            .as_deref()
    }

    /// Whether `e` gives different keys for different expanded states at its source, and for
    /// different successors of one state.
    fn injective(&mut self, f: &Facts, sym: Option<&Sym<'_>>, e: EdgeId) -> bool {
        let d = self.g.edge(e);
        let label = d.label;
        if let Label::AssignAny { ty, .. } = label {
            let fan = fan_out(self.g, e, &mut self.fans);
            let keeps = matches!(self.effect(&label), Effect::Keeps);
            if (keeps && fan > 1) || self.distinct_members(ty).is_none() {
                return false;
            }
        }
        match self.effect(&label) {
            Effect::Keeps | Effect::Tags => true,
            Effect::Writes(v) => f.agree_on(sym, d.from, v) || self.injective_update(sym, e, v),
            Effect::Unknown => false,
        }
    }

    /// Whether `e` is `v = r` with `r` a function of `v`'s old value alone that is one-to-one
    /// on the values `v` may hold at the source: then different results had different `v`.
    fn injective_update(&mut self, sym: Option<&Sym<'_>>, e: EdgeId, v: usize) -> bool {
        let g = self.g;
        let (Some(sym), Label::Assign { lhs, rhs }) = (sym, g.edge(e).label) else {
            return false;
        };
        if !matches!(g.expr(g.strip_casts(lhs)), rg_core::ExprData::Ref(_)) {
            return false;
        }
        let Some(here) = sym.at[g.edge(e).from].as_ref() else {
            return false;
        };
        let Some(xs) = sym.var(g.edge(e).from, v).and_then(|f| f.values.clone()) else {
            return false;
        };
        let Some(t) = sym.analysis.rhs_term(here, rhs) else {
            return false;
        };
        let terms = sym.analysis.terms.borrow();
        let mut only_v = true;
        terms.atoms(t, &mut |a| only_v &= a == Term::Cur(v as u32));
        let xs: Vec<Symbol> = sym.analysis.universe.symbols(&xs).collect();
        if !only_v || xs.len() > MAX_DOMAIN || self.budget < xs.len() {
            return false;
        }
        self.budget -= xs.len();
        let mut images = Vec::with_capacity(xs.len());
        for &x in &xs {
            match sym.analysis.eval(&terms, t, Term::Cur(v as u32), x) {
                Some(Known::Sym(y)) => images.push(y),
                _ => return false,
            }
        }
        images.sort_unstable();
        images.dedup();
        images.len() == xs.len()
    }

    /// Whether two arrivals with these facts and tag counts never have equal keys: a tag
    /// index both have filled with symbols from disjoint sets, or an ordinary variable whose
    /// values or terms never meet.
    fn separated(
        &mut self,
        sym: &Sym<'_>,
        a: &NodeFacts,
        b: &NodeFacts,
        ta: TagCounts,
        tb: TagCounts,
    ) -> bool {
        let filled = ta.min().max(tb.min()).min(TAG_INDEXES);
        for i in 0..filled {
            if let (Some(x), Some(y)) = (&a.tags[i], &b.tags[i])
                && x.apart(y)
            {
                return true;
            }
        }
        for (fa, fb) in a.vars.iter().zip(&b.vars) {
            if fa == fb {
                continue;
            }
            if let (Some(x), Some(y)) = (&fa.values, &fb.values)
                && x.apart(y)
            {
                return true;
            }
            if self.terms_apart(sym, a, b, fa, fb) {
                return true;
            }
        }
        false
    }

    /// Whether no value of the one atom the terms of `fa` and `fb` mention makes a term of
    /// one equal to a term of the other (within their value sets).
    fn terms_apart(
        &mut self,
        sym: &Sym<'_>,
        a: &NodeFacts,
        b: &NodeFacts,
        fa: &VarFact,
        fb: &VarFact,
    ) -> bool {
        let (Some(ta), Some(tb)) = (&fa.terms, &fb.terms) else {
            return false;
        };
        let terms = sym.analysis.terms.borrow();
        let mut atoms: Vec<Term> = Vec::new();
        for &t in ta.iter().chain(tb) {
            terms.atoms(t, &mut |x| {
                if !atoms.contains(&x) {
                    atoms.push(x);
                }
            });
        }
        // The atom's possible values where both arrivals agree on it.
        let uni = &sym.analysis.universe;
        let (atom, domain) = match atoms[..] {
            [] => (Term::Tag(u8::MAX), vec![self.g.well_known().player]),
            [atom] => match (
                sym.analysis.atom_values(a, atom),
                sym.analysis.atom_values(b, atom),
            ) {
                (Some(x), Some(y)) => (atom, uni.symbols(&x.meet(&y)).collect()),
                _ => return false,
            },
            _ => return false,
        };
        let cost = domain.len() * (ta.len() + tb.len());
        if domain.len() > MAX_DOMAIN || self.budget < cost {
            return false;
        }
        self.budget -= cost;
        let feasible = |f: &VarFact, ts: &[TermId], x: Symbol| -> Option<Vec<Known>> {
            let mut out = Vec::new();
            for &t in ts {
                let v = sym.analysis.eval(&terms, t, atom, x)?;
                match (v, &f.values) {
                    (Known::Sym(s), Some(vs)) if !uni.contains(vs, s) => {}
                    _ => out.push(v),
                }
            }
            Some(out)
        };
        for &x in &domain {
            let (Some(va), Some(vb)) = (feasible(fa, ta, x), feasible(fb, tb, x)) else {
                return false;
            };
            for p in &va {
                for q in &vb {
                    if self.values.equal(*p, *q) != Some(false) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Whether no arrival through `a` has the key of an arrival through `b` in one search.
    fn disjoint(
        &mut self,
        f: &Facts,
        sym: Option<&Sym<'_>>,
        (a, after_a): (EdgeId, Option<&NodeFacts>),
        (b, after_b): (EdgeId, Option<&NodeFacts>),
    ) -> bool {
        let g = self.g;
        let (da, db) = (g.edge(a), g.edge(b));
        let (tags_a, tags_b) = (f.tags_after(g, a), f.tags_after(g, b));
        if let (Some(x), Some(y)) = (tags_a, tags_b)
            && x.apart(y)
        {
            return true;
        }
        if let (Label::Tag(s), Label::Tag(t)) = (da.label, db.label)
            && s != t
        {
            return true;
        }
        if let (Some(wa), Some(wb)) = (f.once(da.from), f.once(db.from)) {
            let through = |w: &Walk, e: EdgeId| {
                let mut w = w.clone();
                if f.branches[e.index()] {
                    w.branches.push(e);
                }
                w
            };
            let apart = wa.iter().all(|x| {
                let x = through(x, a);
                wb.iter().all(|y| {
                    let y = through(y, b);
                    x.start != y.start || x.excludes(g, &y)
                })
            });
            if apart {
                return true;
            }
        }
        if da.from == db.from && self.same_source_apart(f, sym, a, b) {
            return true;
        }
        match (sym, after_a, after_b, tags_a, tags_b) {
            (Some(sym), Some(x), Some(y), Some(ta), Some(tb)) => self.separated(sym, x, y, ta, tb),
            _ => false,
        }
    }

    /// [`Self::disjoint`] for two edges leaving one node (rules (d) and (e)).
    fn same_source_apart(
        &mut self,
        f: &Facts,
        sym: Option<&Sym<'_>>,
        a: EdgeId,
        b: EdgeId,
    ) -> bool {
        let g = self.g;
        let (da, db) = (g.edge(a), g.edge(b));
        let s = da.from;
        match (self.effect(&da.label), self.effect(&db.label)) {
            (Effect::Keeps, Effect::Keeps) => exclusive(g, &da.label, &db.label),
            (Effect::Writes(v), Effect::Writes(w)) if v == w && f.agree_on(sym, s, v) => {
                match (da.label, db.label) {
                    (Label::Assign { lhs: l1, rhs: r1 }, Label::Assign { lhs: l2, rhs: r2 }) => {
                        same_reference(g, l1, l2)
                            && (matches!(
                                (literal_symbol(g, r1), literal_symbol(g, r2)),
                                (Some(x), Some(y)) if x != y
                            ) || self.values_differ(sym, s, r1, r2))
                    }
                    (
                        Label::AssignAny { lhs: l1, ty: t1 },
                        Label::AssignAny { lhs: l2, ty: t2 },
                    ) => {
                        if !same_reference(g, l1, l2) {
                            return false;
                        }
                        let m1 = self.distinct_members(t1).map(<[Symbol]>::to_vec);
                        match (m1, self.distinct_members(t2)) {
                            (Some(m1), Some(m2)) => m1.iter().all(|x| !m2.contains(x)),
                            _ => false,
                        }
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Whether `r1` and `r2` evaluate to different symbols in every state at `s`: both are
    /// functions of one atom (a tag or a variable) whose values at `s` are known, and differ
    /// at each of them.
    fn values_differ(&mut self, sym: Option<&Sym<'_>>, s: NodeId, r1: ExprId, r2: ExprId) -> bool {
        let g = self.g;
        let Some(sym) = sym else { return false };
        let Some(here) = sym.at[s].as_ref() else {
            return false;
        };
        let (Some(t1), Some(t2)) = (
            sym.analysis.rhs_term(here, r1),
            sym.analysis.rhs_term(here, r2),
        ) else {
            return false;
        };
        let terms = sym.analysis.terms.borrow();
        let mut atoms: Vec<Term> = Vec::new();
        for t in [t1, t2] {
            terms.atoms(t, &mut |x| {
                if !atoms.contains(&x) {
                    atoms.push(x);
                }
            });
        }
        let (atom, domain): (Term, Vec<Symbol>) = match atoms[..] {
            [] => (Term::Tag(u8::MAX), vec![g.well_known().player]),
            [atom] => match sym.analysis.atom_values(here, atom) {
                Some(x) => (atom, sym.analysis.universe.symbols(&x).collect()),
                None => return false,
            },
            _ => return false,
        };
        if domain.len() > MAX_DOMAIN || self.budget < 2 * domain.len() {
            return false;
        }
        self.budget -= 2 * domain.len();
        domain.iter().all(|&x| {
            match (
                sym.analysis.eval(&terms, t1, atom, x),
                sym.analysis.eval(&terms, t2, atom, x),
            ) {
                (Some(a), Some(b)) => self.values.equal(a, b) == Some(false),
                _ => false,
            }
        })
    }

    /// Whether the searches of this kind never arrive twice at `n` with one key.
    fn unique(&mut self, f: &Facts, sym: Option<&Sym<'_>>, n: NodeId) -> bool {
        let g = self.g;
        if !f.sg.visited[n] || f.sg.target_only[n] || f.once(n).is_some() {
            return true;
        }
        // Edges that the symbolic facts show no state passes deliver nothing.
        let mut into: Vec<EdgeId> = Vec::new();
        let mut after: Vec<Option<NodeFacts>> = Vec::new();
        for e in f.sg.entering(g, n) {
            if into.len() == MAX_ARRIVING {
                return false;
            }
            let facts = sym.and_then(|s| Some((s, s.at[g.edge(e).from].as_ref()?)));
            match facts.map(|(s, here)| s.analysis.after(here, e)) {
                Some(None) => {}
                Some(facts) => {
                    into.push(e);
                    after.push(facts);
                }
                None => {
                    into.push(e);
                    after.push(None);
                }
            }
        }
        if f.is_start[n]
            && f.order.cyclic[n]
            && into
                .iter()
                .any(|&e| f.tags_after(g, e).is_none_or(TagCounts::may_be_zero))
        {
            return false;
        }
        if !into.iter().all(|&e| self.injective(f, sym, e)) {
            return false;
        }
        // Edges `$ s` and `$ t` with `s ≠ t` are apart (rule (b)): only pairs in one class
        // (tag edges with one symbol, or any pair with an edge that is no symbol tag) are
        // compared, at most MAX_PAIRS of them.
        let class = |e: EdgeId| match g.edge(e).label {
            Label::Tag(s) => Some(s),
            _ => None,
        };
        let mut by_class: BTreeMap<Option<Symbol>, Vec<usize>> = BTreeMap::new();
        for (i, &e) in into.iter().enumerate() {
            by_class.entry(class(e)).or_default().push(i);
        }
        let others = by_class.get(&None).map_or(0, Vec::len);
        let pairs: usize = by_class
            .values()
            .map(|c| c.len() * c.len() / 2)
            .sum::<usize>()
            + others * into.len();
        if pairs > MAX_PAIRS {
            return false;
        }
        let mut compared: Vec<(usize, usize)> = Vec::with_capacity(pairs);
        for (c, members) in &by_class {
            for (k, &i) in members.iter().enumerate() {
                compared.extend(members[k + 1..].iter().map(|&j| (i, j)));
                if c.is_none() {
                    // Against every symbol tag (the other non-tags are its own class).
                    for (d, others) in &by_class {
                        if d.is_some() {
                            compared.extend(others.iter().map(|&j| (i, j)));
                        }
                    }
                }
            }
        }
        compared.into_iter().all(|(i, j)| {
            self.disjoint(
                f,
                sym,
                (into[i], after[i].as_ref()),
                (into[j], after[j].as_ref()),
            )
        })
    }

    /// The variables of `listed` (positions) that a `@repeat` at `n` must compare: a variable
    /// that is, in every kind of search visiting `n`, one function of the tags, the start and
    /// variables that stay listed (a single term) need not be.
    fn needed(
        &self,
        kinds: &[(&Facts, Option<&Sym<'_>>)],
        n: NodeId,
        listed: &[usize],
    ) -> Vec<usize> {
        // Sets over variable positions: a node lists up to every variable, and lists scanned
        // for membership made this quadratic in the number of variables per node.
        let count = self.g.variables.len();
        let mut dropped = VarSet::empty(count);
        let mut needed = VarSet::empty(count);
        let mut deps = Vec::new();
        'vars: for &v in listed {
            if needed.contains(v) {
                continue;
            }
            deps.clear();
            for (f, sym) in kinds {
                if !f.sg.visited[n] || f.assigned[n].as_ref().is_some_and(|a| !a.contains(v)) {
                    continue;
                }
                let Some(sym) = sym else { continue 'vars };
                let Some(t) = sym.var(n, v).and_then(VarFact::single) else {
                    continue 'vars;
                };
                let terms = sym.analysis.terms.borrow();
                terms.atoms(t, &mut |a| {
                    if let Term::Cur(u) = a {
                        deps.push(u as usize);
                    }
                });
            }
            if deps.iter().any(|&u| dropped.contains(u)) {
                continue;
            }
            dropped.add(v);
            for &u in &deps {
                needed.add(u);
            }
        }
        listed
            .iter()
            .copied()
            .filter(|&v| !dropped.contains(v))
            .collect()
    }
}

impl Pass for CalculateRepeatsAndUniques {
    meta!(
        "calculate_repeats_and_uniques",
        "add @unique for nodes no search reaches twice with one state, @repeat for nodes where a few variables decide",
        Safe,
        Final,
        Pragma
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let mut decided = NodeMap::from_elem(false, g.node_capacity());
        for p in &g.pragmas {
            if let PragmaKind::Unique(ns) | PragmaKind::Repeat { nodes: ns, .. } = &p.kind {
                for n in ns {
                    decided[*n] = true;
                }
            }
        }
        let kinds = [
            Facts::new(g, SearchGraph::moves(g)),
            Facts::new(g, SearchGraph::reach(g)),
        ];
        let vars = Variables::new(g);
        let values = cx.values(g);
        // Known cell values tell the stores that change their cell; without them (a game too
        // large for the analysis) every store is only a store.
        // (Usually solved already, for the game's last version in the loop: the pragma passes
        // before this one change only pragmas.)
        let cells = solve_facts_quietly(g, &Constants { values: &values }, cx);
        let syms: Vec<Option<Sym<'_>>> = kinds
            .iter()
            .map(|f| {
                let analysis =
                    Symbolic::new(g, &f.sg, &values, &vars.ordinary, &f.tags, cells.as_deref())?;
                let at = analysis.solve(&f.sg, &f.order);
                Some(Sym { analysis, at })
            })
            .collect();
        let both: Vec<(&Facts, Option<&Sym<'_>>)> =
            kinds.iter().zip(syms.iter().map(Option::as_ref)).collect();
        let ordinaries = vars.ordinary.iter().filter(|&&o| o).count();
        let mut prover = Prover {
            g,
            vars: &vars,
            values: &values,
            members: HashMap::new(),
            fans: HashMap::new(),
            budget: EVALUATIONS,
        };
        let mut unique: Vec<NodeId> = Vec::new();
        let mut repeats: BTreeMap<Vec<Symbol>, Vec<NodeId>> = BTreeMap::new();
        for n in g.nodes().ids() {
            let visiting = both.iter().filter(|(f, _)| f.sg.visited[n]);
            if visiting.clone().next().is_none() || decided[n] {
                continue;
            }
            if g.outgoing(n).is_empty() || visiting.clone().all(|&(f, s)| prover.unique(f, s, n)) {
                unique.push(n);
                continue;
            }
            let mut assigned = VarSet::empty(g.variables.len());
            for (f, _) in visiting {
                if let Some(a) = &f.assigned[n] {
                    assigned.union(a);
                }
            }
            let listed: Vec<usize> = assigned.iter().filter(|&i| vars.ordinary[i]).collect();
            let listed = prover.needed(&both, n, &listed);
            if listed.len() == ordinaries || listed.len() > MAX_LISTED {
                continue;
            }
            let mut listed: Vec<Symbol> = listed.iter().map(|&i| vars.names[i]).collect();
            listed.sort_by(|a, b| g.name(*a).cmp(g.name(*b)));
            repeats.entry(listed).or_default().push(n);
        }
        let mut added = Vec::new();
        let mut repeats: Vec<(Vec<Symbol>, Vec<NodeId>)> = repeats.into_iter().collect();
        for (_, nodes) in &mut repeats {
            crate::util::sort_by_name(g, nodes);
        }
        // Deterministic order: by the first node's name.
        repeats.sort_by(|a, b| g.node_name(a.1[0]).cmp(g.node_name(b.1[0])));
        for (variables, nodes) in repeats {
            added.push(PragmaKind::Repeat { nodes, variables });
        }
        if !unique.is_empty() {
            crate::util::sort_by_name(g, &mut unique);
            added.push(PragmaKind::Unique(unique));
        }
        if added.is_empty() {
            return Ok(false);
        }
        g.pragmas.extend(added.into_iter().map(|kind| Pragma {
            kind,
            derived: true,
            span: None,
        }));
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::game;
    use rg_interp::{Verified, VerifyOptions, verify_pragmas};

    /// The game of `text` after the pass, which must hold up to the search-by-search check of
    /// the interpreter.
    fn after(text: &str) -> Game {
        let mut g = game(text);
        CalculateRepeatsAndUniques
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        match verify_pragmas(&g, &VerifyOptions::default()) {
            Verified::Holds { .. } => g,
            other => panic!("{other:?}\n{}", rg_core::print(&g)),
        }
    }

    fn unique(g: &Game) -> Vec<&str> {
        let mut out: Vec<&str> = g
            .pragmas
            .iter()
            .filter_map(|p| match &p.kind {
                PragmaKind::Unique(ns) => Some(ns.iter().map(|&n| g.node_name(n))),
                _ => None,
            })
            .flatten()
            .collect();
        out.sort_unstable();
        out
    }

    /// The variables of the `@repeat` listing `node` (`None`: no `@repeat`).
    fn repeat<'g>(g: &'g Game, node: &str) -> Option<Vec<&'g str>> {
        g.pragmas.iter().find_map(|p| match &p.kind {
            PragmaKind::Repeat { nodes, variables }
                if nodes.iter().any(|&n| g.node_name(n) == node) =>
            {
                Some(variables.iter().map(|&v| g.name(v)).collect())
            }
            _ => None,
        })
    }

    fn is_unique(text: &str, node: &str) -> bool {
        unique(&after(text)).contains(&node)
    }

    /// A negative test is only worth something if the claim it refuses is false: `@unique
    /// node` added by hand must be caught by the interpreter's check.
    fn claim_is_false(text: &str, node: &str) {
        let g = game(&format!("@unique {node};\n{text}"));
        assert!(
            matches!(
                verify_pragmas(&g, &VerifyOptions::default()),
                Verified::Violated(_)
            ),
            "@unique {node} is true after all"
        );
    }

    /// `s` branches on `cond_p` / `cond_q`; both branches meet at `m`, which goes on.
    fn diamond(cond_p: &str, cond_q: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             var v: T = a;\n\
             var w: T = a;\n\
             begin, s: player = x;\n\
             s, p: {cond_p};\n\
             s, q: {cond_q};\n\
             p, m: ;\n\
             q, m: ;\n\
             m, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    #[test]
    fn walks_that_took_exclusive_branches_arrive_once() {
        assert!(is_unique(&diamond("v == a", "v == b"), "m"));
        assert!(is_unique(&diamond("v == a", "v != a"), "m"));
    }

    #[test]
    fn walks_through_conditions_that_can_both_hold_arrive_twice() {
        let text = diamond("v == a", "w == a");
        assert!(!is_unique(&text, "m"));
        claim_is_false(&text, "m");
    }

    /// A check from `s` whose search loops `r -> y -> (back) -> r` before it reaches `t`.
    fn check_with_loop(back: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             var v: T = a;\n\
             begin, s: player = x;\n\
             s, u: ? r -> t;\n\
             u, end: player = keeper;\n\
             r, y: v == a;\n\
             y, y2: v = b;\n\
             y2, r: {back};\n\
             y, z: ;\n\
             z, t: ;\n"
        )
    }

    #[test]
    fn a_cycle_inside_a_reach_search_arrives_twice_at_its_start() {
        // The loop leaves `v = b`, but the start of a check can be any state: with `v = b`
        // already, `r` is reached again with its start state... if `r -> y` held. It does not,
        // yet nothing here knows; with `v = a` the second arrival differs. Two keys may meet.
        let text = check_with_loop("v = b");
        assert!(!is_unique(&text, "r"));
        // Around a tag the start's key (no tags of its own) differs from every later one.
        assert!(is_unique(&check_with_loop("$ back"), "r"));
    }

    #[test]
    fn a_loop_back_to_the_start_of_a_check_is_a_second_arrival() {
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            begin, s: player = x;\n\
            s, u: ? r -> t;\n\
            u, end: player = keeper;\n\
            r, y: ;\n\
            y, r: ;\n\
            y, t: v == b;\n";
        assert!(!is_unique(text, "r"));
        claim_is_false(text, "r");
    }

    #[test]
    fn a_reach_search_follows_assignments_to_player() {
        // A move search would stop at `player = x`; the check's search walks it and comes back
        // to `r` with the key it started with (`player` is not part of it).
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            begin, s: player = x;\n\
            s, c: ? r -> t;\n\
            c, end: player = keeper;\n\
            r, r2: player = x;\n\
            r2, r: ;\n\
            r, t: v == b;\n";
        assert!(!is_unique(text, "r"));
        claim_is_false(text, "r");
    }

    #[test]
    fn the_target_of_a_check_is_taken_once() {
        // `t` is reached twice with one state, but the check's search ends at the first.
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            begin, s: player = x;\n\
            s, u: ? r -> t;\n\
            u, end: player = keeper;\n\
            r, t: ;\n\
            r, t: v == a;\n\
            t, z: $ z;\n";
        assert!(is_unique(text, "t"));
        // Walked on by a second check, it is an ordinary node of that search.
        let text = format!("{text}u, e2: ? r -> z;\ne2, end: player = keeper;\n");
        assert!(!is_unique(&text, "t"));
    }

    /// After a move starts: `v = T(*)` then `second` then `$ t`.
    fn after_any(second: &str) -> String {
        format!(
            "type T = {{ a, b, c }};\n\
             const m: T -> T = {{ a: b, b: b, :c }};\n\
             var v: T = a;\n\
             var w: T = a;\n\
             begin, s: player = x;\n\
             s, p: v = T(*);\n\
             {second}\
             q, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    #[test]
    fn an_any_assignment_of_a_variable_not_yet_assigned_keeps_states_apart() {
        let g = after(&after_any("p, q: w = T(*);\n"));
        assert!(unique(&g).contains(&"p") && unique(&g).contains(&"q"));
    }

    #[test]
    fn an_assignment_after_an_any_assignment_of_the_same_variable_merges_states() {
        // All three values of `v` at `p` become `a` at `q`.
        let text = after_any("p, q: v = a;\n");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
        // Through a map that is not one-to-one: `m[a] = m[b] = b`.
        let text = after_any("p, q: v = m[v];\n");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    #[test]
    fn a_variable_recorded_in_a_tag_may_be_overwritten() {
        let text = after_any("p, p2: $$ v;\np2, q: v = m[v];\n");
        assert!(is_unique(&text, "q"));
    }

    #[test]
    fn a_tag_recorded_before_the_variable_changes_again_does_not_help() {
        let text = after_any("p, p2: $$ v;\np2, p3: v = T(*);\np3, q: v = m[v];\n");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    #[test]
    fn a_value_computed_from_a_variable_that_changed_since_is_not_known() {
        // At `r`, `w` was `m[v]` for the `v` of before: no function of the new `v`.
        for change in ["v = T(*)", "v = c"] {
            let text = after_any(&format!(
                "p, p2: w = m[v];\np2, r: {change};\nr, q: w = a;\n"
            ));
            assert!(!is_unique(&text, "q"), "after {change}");
            claim_is_false(&text, "q");
        }
    }

    #[test]
    fn a_one_to_one_update_keeps_states_apart() {
        let text = "type T = { a, b, c };\n\
            const succ: T -> T = { a: b, b: c, :a };\n\
            var v: T = a;\n\
            begin, s: player = x;\n\
            s, p: v = T(*);\n\
            p, q: v = succ[v];\n\
            q, t: $ t;\n\
            t, end: player = keeper;\n";
        assert!(is_unique(text, "q"));
    }

    /// From `p` (where `v` was recorded) two edges assign `v` from `m1[v]` and `m2[v]`.
    fn two_lookups(m2: &str) -> String {
        format!(
            "type T = {{ a, b, c }};\n\
             const m1: T -> T = {{ a: b, b: c, :a }};\n\
             const m2: T -> T = {m2};\n\
             var v: T = a;\n\
             begin, s: player = x;\n\
             s, r: v = T(*);\n\
             r, p: $$ v;\n\
             p, q: v = m1[v];\n\
             p, q: v = m2[v];\n\
             q, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    #[test]
    fn two_lookups_that_never_give_one_value_keep_states_apart() {
        assert!(is_unique(&two_lookups("{ a: c, b: a, :b }"), "q"));
    }

    #[test]
    fn two_lookups_that_agree_on_one_key_merge_states() {
        // m1[b] = m2[b] = c.
        let text = two_lookups("{ a: c, b: c, :b }");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    /// A move search starting at `s` (after the first move) with `v` as the previous move left
    /// it; two lookups `m1[v]`, `m2[v]` lead to `q`.
    fn from_start_value(m2: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             type U = {{ a, b, c, d }};\n\
             const m1: U -> U = {{ a: b, b: c, :d }};\n\
             const m2: U -> U = {m2};\n\
             var v: U = a;\n\
             var t: T = a;\n\
             begin, r: player = x;\n\
             r, r2: t = T(*);\n\
             r2, r3: $$ t;\n\
             r3, s: player = x;\n\
             s, q: v = m1[v];\n\
             s, q: v = m2[v];\n\
             q, w: $ w;\n\
             w, end: player = keeper;\n"
        )
    }

    #[test]
    fn a_start_value_is_a_member_of_its_type() {
        // Nothing is known of `v` when the search starts but its type: m1 and m2 differ at
        // each of its members.
        assert!(is_unique(
            &from_start_value("{ a: c, b: d, c: a, :b }"),
            "q"
        ));
    }

    #[test]
    fn lookups_of_a_start_value_that_meet_on_a_member_merge_states() {
        // m1[a] = m2[a] = b.
        let text = from_start_value("{ a: b, b: d, c: a, :b }");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    /// `s` (after `k = T(*)`) reaches `q` by one edge per tag of `tags`.
    fn many_tags(tags: &[String]) -> String {
        let mut text = String::from(
            "type T = { a, b };\n\
             var k: T = a;\n\
             begin, s0: player = x;\n\
             s0, s: k = T(*);\n\
             q, end: player = keeper;\n",
        );
        for t in tags {
            text.push_str(&format!("s, q: $ {t};\n"));
        }
        text
    }

    #[test]
    fn many_arriving_edges_with_different_tags_keep_states_apart() {
        let tags: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        assert!(is_unique(&many_tags(&tags), "q"));
    }

    #[test]
    fn two_of_many_arriving_edges_with_one_tag_merge_states() {
        let mut tags: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        tags.push("t7".into());
        let text = many_tags(&tags);
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    /// Two edges from `p` (after `v = T(*)`) to `q`.
    fn two_edges(e1: &str, e2: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             var v: T = a;\n\
             var w: T = a;\n\
             var k: T = a;\n\
             begin, s: player = x;\n\
             s, p: k = T(*);\n\
             p, q: {e1};\n\
             p, q: {e2};\n\
             q, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    #[test]
    fn assignments_of_different_symbols_keep_states_apart() {
        assert!(is_unique(&two_edges("v = a", "v = b"), "q"));
        assert!(is_unique(&two_edges("w == a", "w != a"), "q"));
        assert!(is_unique(&two_edges("$ l", "$ r"), "q"));
    }

    #[test]
    fn assignments_that_may_leave_one_state_merge_states() {
        // With v = w = a both edges leave the state as it was.
        let text = two_edges("v = a", "w = a");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
        let text = two_edges("v == a", "w == a");
        assert!(!is_unique(&text, "q"));
        claim_is_false(&text, "q");
    }

    #[test]
    fn an_any_assignment_of_goals_gives_one_key_twice() {
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            begin, s: player = x;\n\
            s, p: goals[x] = Score(*);\n\
            p, t: $ t;\n\
            t, end: player = keeper;\n";
        assert!(!is_unique(text, "p"));
        claim_is_false(text, "p");
    }

    /// `s` reaches `m` along two routes; `left` and `right` are the tags on them.
    fn routes(left: &str, right: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             var v: T = a;\n\
             begin, s: player = x;\n\
             s, k: v = T(*);\n\
             k, p: {left};\n\
             k, q: {right};\n\
             p, m: ;\n\
             q, r: ;\n\
             r, m: $ r;\n\
             m, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    /// `s` reaches `m` by `s -($ l)-> p -> m` and `s -($ {other})-> q -> m`.
    fn earlier_tags(other: &str) -> String {
        format!(
            "type T = {{ a, b }};\n\
             var v: T = a;\n\
             begin, s0: player = x;\n\
             s0, s: v = T(*);\n\
             s, p: $ l;\n\
             s, q: $ {other};\n\
             p, m: ;\n\
             q, m: ;\n\
             m, t: $ t;\n\
             t, end: player = keeper;\n"
        )
    }

    #[test]
    fn tags_chosen_before_two_routes_meet_keep_them_apart() {
        assert!(is_unique(&earlier_tags("r"), "m"));
    }

    #[test]
    fn the_same_tag_chosen_on_two_routes_merges_them() {
        let text = earlier_tags("l");
        assert!(!is_unique(&text, "m"));
        claim_is_false(&text, "m");
    }

    #[test]
    fn different_numbers_of_tags_keep_states_apart() {
        assert!(is_unique(&routes("", ""), "m"));
    }

    #[test]
    fn the_same_tags_along_two_routes_merge_states() {
        let text = routes("$ r", "");
        assert!(!is_unique(&text, "m"));
        claim_is_false(&text, "m");
    }

    /// A check (as RBG's "can the player move" guards): pick a square `pos` (`lift` between),
    /// empty it, step, find a square with a piece.
    fn guard(board: &str, lift: &str, step: &str) -> String {
        format!(
            "type P = {{ p0, p1, p2, p3 }};\n\
             type C = {{ e, w, y, z }};\n\
             const m: P -> P = {{ p0: p1, p1: p2, :p0 }};\n\
             const l: P -> P = {{ p0: p1, p1: p0, p2: p3, :p2 }};\n\
             const r: P -> P = {{ p0: p2, p1: p0, p2: p1, :p3 }};\n\
             const drop: P -> C = {{ p1: z, :y }};\n\
             var pos: P = p0;\n\
             var board: P -> C = {board};\n\
             begin, s: player = x;\n\
             s, u: ? g0 -> gf;\n\
             u, end: player = keeper;\n\
             g0, g1: pos = P(*);\n\
             g1, g2: {lift};\n\
             g2, g3: board[pos] = e;\n\
             {step}\
             g4, g5: board[pos] == w;\n\
             g5, gf: ;\n"
        )
    }

    #[test]
    fn a_store_that_changes_its_cell_tells_its_key() {
        // The square held `w` and now holds `e`: the board tells which square `pos` was, so
        // `m` (which takes p2 and p3 to p0) keeps states apart.
        let text = guard(
            "{ p0: w, p1: w, :e }",
            "board[pos] == w",
            "g3, g4: pos = m[pos];\n",
        );
        assert!(is_unique(&text, "g4"));
    }

    #[test]
    fn a_store_that_may_leave_its_cell_as_it_was_tells_nothing() {
        // Emptying the empty p2 or p3 leaves the board as it was; `m` takes both to p0.
        let text = guard("{ p0: w, p1: w, :e }", "", "g3, g4: pos = m[pos];\n");
        assert!(!is_unique(&text, "g4"));
        claim_is_false(&text, "g4");
    }

    /// A check from a state where `who` was just chosen: lift a square holding `own[who]`,
    /// empty it, move with `m` (p2 and p3 go to p0).
    fn lift_own(own: &str) -> String {
        lift_own_with(own, "g1, g2: board[pos] == own[who];\n")
    }

    fn lift_own_with(own: &str, lift: &str) -> String {
        format!(
            "type P = {{ p0, p1, p2, p3 }};\n\
             type C = {{ e, w, y }};\n\
             type W = {{ w1, w2 }};\n\
             const m: P -> P = {{ p0: p1, p1: p2, :p0 }};\n\
             const own: W -> C = {own};\n\
             var pos: P = p0;\n\
             var who: W = w1;\n\
             var board: P -> C = {{ p0: w, p1: w, :e }};\n\
             begin, s: player = x;\n\
             s, s1: who = W(*);\n\
             s1, s2: $$ who;\n\
             s2, u: ? g0 -> gf;\n\
             u, end: player = keeper;\n\
             g0, g1: pos = P(*);\n\
             {lift}\
             g2, g3: board[pos] = e;\n\
             g3, g4: pos = m[pos];\n\
             g4, g5: board[pos] == w;\n\
             g5, gf: ;\n"
        )
    }

    #[test]
    fn a_cell_compared_with_values_apart_from_the_stored_one_changes() {
        // `own[who]` is `w` or `y`, never the `e` stored: the board tells the square.
        assert!(is_unique(&lift_own("{ w1: w, :y }"), "g4"));
    }

    #[test]
    fn a_cell_compared_with_values_that_include_the_stored_one_may_stay() {
        // With `who = w2` the lifted square held `e` already.
        let text = lift_own("{ w1: w, :e }");
        assert!(!is_unique(&text, "g4"));
        claim_is_false(&text, "g4");
    }

    #[test]
    fn a_cell_compared_before_its_key_changed_tells_nothing() {
        let lift = "g1, g1b: board[pos] == own[who];\ng1b, g2: pos = P(*);\n";
        let text = lift_own_with("{ w1: w, :y }", lift);
        assert!(!is_unique(&text, "g4"));
        claim_is_false(&text, "g4");
    }

    #[test]
    fn a_cell_compared_on_one_route_only_tells_nothing() {
        let lift = "g1, g2: board[pos] == own[who];\ng1, g2: ;\n";
        let text = lift_own_with("{ w1: w, :y }", lift);
        assert!(!is_unique(&text, "g4"));
        claim_is_false(&text, "g4");
    }

    #[test]
    fn a_store_that_changes_another_cell_tells_nothing() {
        // The board changes at p0 whatever `pos` is; `m` takes p2 and p3 to p0.
        let text = "type P = { p0, p1, p2, p3 };\n\
            type C = { e, w };\n\
            const m: P -> P = { p0: p1, p1: p2, :p0 };\n\
            var pos: P = p0;\n\
            var board: P -> C = { p0: w, :e };\n\
            begin, s: player = x;\n\
            s, u: ? g0 -> gf;\n\
            u, end: player = keeper;\n\
            g0, g1: pos = P(*);\n\
            g1, g2: board[p0] == w;\n\
            g2, g3: board[p0] = e;\n\
            g3, g4: pos = m[pos];\n\
            g4, g5: board[pos] == w;\n\
            g5, gf: ;\n";
        assert!(!is_unique(text, "g4"));
        claim_is_false(text, "g4");
    }

    /// Two steps `l`, `r` from one square, which meet (at p0) only from p1; `cut` may drop p1.
    fn steps(cut: &str) -> String {
        let step = format!("g3, g3b: {cut};\ng3b, g4: pos = l[pos];\ng3b, g4: pos = r[pos];\n");
        guard("{ :w }", "board[pos] == w", &step)
    }

    #[test]
    fn two_steps_that_never_meet_keep_states_apart() {
        assert!(is_unique(&steps("drop[pos] != z"), "g4"));
    }

    #[test]
    fn two_steps_that_meet_somewhere_merge_states() {
        let text = steps("");
        assert!(!is_unique(&text, "g4"));
        claim_is_false(&text, "g4");
    }

    #[test]
    fn a_node_on_a_counting_loop_is_unique() {
        // `i` runs n0, n1, n2 once; `inc` is one-to-one where the loop applies it.
        let text = "type N = { n0, n1, n2 };\n\
            const inc: N -> N = { n0: n1, n1: n2, :n2 };\n\
            var i: N = n0;\n\
            begin, k: player = x;\n\
            k, walk: i = n0;\n\
            walk, walk2: i != n2;\n\
            walk2, walk: i = inc[i];\n\
            walk, a: i == n2;\n\
            a, b: $ done;\n\
            b, end: player = keeper;\n";
        let g = after(text);
        assert!(unique(&g).contains(&"walk") && unique(&g).contains(&"walk2"));
    }

    #[test]
    fn a_loop_that_stays_put_is_not() {
        // `stop` is not one-to-one: n1 and n2 both go to n2, so `walk` sees n2 twice.
        let text = "type N = { n0, n1, n2 };\n\
            const stop: N -> N = { n0: n1, n1: n2, :n2 };\n\
            var i: N = n0;\n\
            begin, k: player = x;\n\
            k, walk: i = N(*);\n\
            walk, walk2: ;\n\
            walk2, walk: i = stop[i];\n\
            walk, a: i == n2;\n\
            a, b: $ done;\n\
            b, end: player = keeper;\n";
        assert!(!is_unique(text, "walk"));
        claim_is_false(text, "walk");
    }

    #[test]
    fn repeat_leaves_out_what_the_tags_determine() {
        // After `$$ pos`, `board` is the initial board with `pos` emptied: a function of the
        // first tag. `pos` then moves along a loop and must be compared.
        let text = "type P = { p0, p1, p2 };\n\
            type C = { e, f };\n\
            const nx: P -> P = { p0: p1, p1: p2, :p0 };\n\
            var pos: P = p0;\n\
            var board: P -> C = { :f };\n\
            begin, s: player = x;\n\
            s, a: pos = P(*);\n\
            a, b: $$ pos;\n\
            b, c: board[pos] = e;\n\
            c, c2: ;\n\
            c2, c: pos = nx[pos];\n\
            c, d: $ d;\n\
            d, end: player = keeper;\n";
        let g = after(text);
        assert_eq!(repeat(&g, "c"), Some(vec!["pos"]), "{}", rg_core::print(&g));
    }

    #[test]
    fn repeat_keeps_a_variable_two_routes_set_differently() {
        // At `c`, `w` is `a` or `pos`: no single function of what the key shares.
        let text = "type P = { a, b };\n\
            var pos: P = a;\n\
            var w: P = a;\n\
            begin, s: player = x;\n\
            s, c0: pos = P(*);\n\
            c0, c1: w = a;\n\
            c0, c1: w = pos;\n\
            c1, c: ;\n\
            c, c2: ;\n\
            c2, c: pos = b;\n\
            c, d: $ d;\n\
            d, end: player = keeper;\n";
        let g = after(text);
        assert_eq!(repeat(&g, "c"), None, "{}", rg_core::print(&g));
    }
}
