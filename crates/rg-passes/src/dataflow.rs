//! The forward data-flow framework of passes.md §2 and the analyses built on it.
//!
//! [`solve`] runs a worklist over the flow graph of §2.2 (with reachability, a check's source
//! also flows into the check's start). Two deliberate differences from the reference's solver:
//!
//! - the entry value is `join(extreme, transfer over every predecessor of begin)` (§2.3's
//!   entry-node defect fixed);
//! - a node not reached yet has no value (`None`) and is left out of joins, instead of
//!   contributing `bot`. For the constants analysis this is the optimistic variant §2.6 allows:
//!   a fact survives a loop head when the loop does not undo it. Both are sound: at the fixpoint
//!   every reached node's value is the join over all its reached predecessors.
//!
//! Predecessor lists are built once per solve; the worklist is FIFO with an in-queue flag, seeded
//! in node-id order, so results are deterministic.

use indexmap::IndexMap;
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId, Symbol, ValueData, ValueId};
use std::collections::VecDeque;

/// One forward analysis (§2.1).
pub(crate) trait Analysis {
    type Domain: Clone + PartialEq;
    /// Knowledge at `begin` before anything happens.
    fn extreme(&self, g: &Game) -> Self::Domain;
    /// Knowledge after walking `edge` (`None`: the synthetic skip from a check's source into
    /// its start).
    fn transfer(&self, g: &Game, k: &Self::Domain, edge: Option<EdgeId>) -> Self::Domain;
    /// Adds the knowledge of another incoming path to `acc`.
    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain);
    /// Whether knowledge flows from a check's source into the check's start.
    fn with_reachability(&self) -> bool;
}

/// The knowledge at every node (indexed by node id); `None` for nodes no walk reaches.
pub(crate) fn solve<A: Analysis>(g: &Game, a: &A) -> Vec<Option<A::Domain>> {
    let n = g.node_capacity();
    // Predecessors: (source, edge); `None` edge = synthetic reachability skip.
    let mut preds: Vec<Vec<(NodeId, Option<EdgeId>)>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for (id, e) in g.edges() {
        preds[e.to.0 as usize].push((e.from, Some(id)));
        succs[e.from.0 as usize].push(e.to);
        if a.with_reachability()
            && let Label::Reach { from, .. } = e.label
        {
            preds[from.0 as usize].push((e.from, None));
            succs[e.from.0 as usize].push(from);
        }
    }
    let mut value: Vec<Option<A::Domain>> = vec![None; n];
    let Some(begin) = g.begin() else {
        return value;
    };
    let extreme = a.extreme(g);
    value[begin.0 as usize] = Some(extreme.clone());
    let mut queued = vec![false; n];
    let mut work = VecDeque::new();
    for s in &succs[begin.0 as usize] {
        if !queued[s.0 as usize] {
            queued[s.0 as usize] = true;
            work.push_back(*s);
        }
    }
    while let Some(node) = work.pop_front() {
        queued[node.0 as usize] = false;
        let mut new: Option<A::Domain> = if node == begin {
            Some(extreme.clone())
        } else {
            None
        };
        for &(src, e) in &preds[node.0 as usize] {
            let Some(k) = &value[src.0 as usize] else {
                continue;
            };
            let t = a.transfer(g, k, e);
            match &mut new {
                None => new = Some(t),
                Some(acc) => a.join(acc, &t),
            }
        }
        if new != value[node.0 as usize] {
            value[node.0 as usize] = new;
            for s in &succs[node.0 as usize] {
                if !queued[s.0 as usize] {
                    queued[s.0 as usize] = true;
                    work.push_back(*s);
                }
            }
        }
    }
    value
}

/// Whether `e` mentions the name `v` anywhere.
pub(crate) fn mentions(g: &Game, e: ExprId, v: Symbol) -> bool {
    match g.expr(e) {
        ExprData::Ref(s) => s == v,
        ExprData::Cast(_, x) => mentions(g, x, v),
        ExprData::Access(m, i) => mentions(g, m, v) || mentions(g, i, v),
    }
}

/// A value as the constants analysis knows it: a declared value (as written), or a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Known {
    Value(ValueId),
    Symbol(Symbol),
}

/// One form per symbol: an element value becomes the symbol it names (values as written would
/// make `p` and `T(p)`-stored knowledge differ at joins).
pub(crate) fn norm(g: &Game, k: Known) -> Known {
    match k {
        Known::Value(v) => match g.value(v) {
            ValueData::Element(s) => Known::Symbol(*s),
            ValueData::Map(_) => k,
        },
        s => s,
    }
}

/// ConstantsAnalysis (§2.6): expression ↦ value known on every path reaching the node.
pub(crate) struct Constants {
    variables: Vec<Symbol>,
    is_variable: std::collections::HashSet<Symbol>,
}

pub(crate) type Knowledge = IndexMap<ExprId, Known>;

impl Constants {
    pub(crate) fn new(g: &Game) -> Self {
        let variables: Vec<Symbol> = g.variables.iter().map(|v| v.name).collect();
        let is_variable = variables.iter().copied().collect();
        Constants {
            variables,
            is_variable,
        }
    }

    pub(crate) fn is_variable(&self, s: Symbol) -> bool {
        self.is_variable.contains(&s)
    }

    /// Follows element constants from `k` until a symbol or a map is reached.
    pub(crate) fn deref(&self, g: &Game, mut k: Known) -> Known {
        for _ in 0..64 {
            let s = match k {
                Known::Symbol(s) => s,
                Known::Value(v) => match g.value(v) {
                    ValueData::Element(s) => *s,
                    ValueData::Map(_) => return k,
                },
            };
            match g.constant(s) {
                Some(c) if !self.is_variable(s) => k = Known::Value(c.value),
                _ => return Known::Symbol(s),
            }
        }
        k
    }

    /// The symbol `k` denotes, through element constants.
    pub(crate) fn as_symbol(&self, g: &Game, k: Known) -> Option<Symbol> {
        match self.deref(g, k) {
            Known::Symbol(s) => Some(s),
            Known::Value(_) => None,
        }
    }

    /// The entry of map value `m` (dereferenced) for key `i` (dereferenced to a symbol).
    pub(crate) fn lookup(&self, g: &Game, m: Known, i: Known) -> Option<Known> {
        let Known::Value(mv) = self.deref(g, m) else {
            return None;
        };
        let ValueData::Map(entries) = g.value(mv) else {
            return None;
        };
        let key = self.as_symbol(g, i)?;
        entries
            .iter()
            .find(|e| e.key == Some(key))
            .or_else(|| entries.iter().find(|e| e.key.is_none()))
            .map(|e| norm(g, Known::Value(e.value)))
    }

    /// `eval(e, K)` of §2.6.
    pub(crate) fn eval(&self, g: &Game, e: ExprId, k: &Knowledge) -> Option<Known> {
        if let Some(&v) = k.get(&e) {
            return Some(v);
        }
        match g.expr(e) {
            ExprData::Access(m, i) => {
                let m = self.eval(g, m, k)?;
                let i = self.eval(g, i, k)?;
                self.lookup(g, m, i)
            }
            ExprData::Cast(_, x) => self.eval(g, x, k),
            ExprData::Ref(s) if self.is_variable(s) => None,
            ExprData::Ref(s) => match g.constant(s) {
                Some(c) => Some(norm(g, Known::Value(c.value))),
                None => Some(Known::Symbol(s)),
            },
        }
    }

    fn kill(&self, g: &Game, k: &mut Knowledge, v: Symbol) {
        k.retain(|&key, _| !mentions(g, key, v));
    }
}

impl Analysis for Constants {
    type Domain = Knowledge;

    fn extreme(&self, g: &Game) -> Knowledge {
        let mut k = Knowledge::new();
        for v in &g.variables {
            if let Some(e) = g.exprs().find(&ExprData::Ref(v.name)) {
                k.insert(e, norm(g, Known::Value(v.init)));
            }
        }
        debug_assert!(k.len() <= self.variables.len());
        k
    }

    fn transfer(&self, g: &Game, k: &Knowledge, edge: Option<EdgeId>) -> Knowledge {
        let Some(edge) = edge else {
            return k.clone();
        };
        let mut out = k.clone();
        match g.edge(edge).label {
            Label::Assign { lhs, rhs } => {
                let v = g.expr_root(lhs);
                match self.eval(g, rhs, k) {
                    Some(c) => {
                        self.kill(g, &mut out, v);
                        out.insert(lhs, c);
                    }
                    None => self.kill(g, &mut out, v),
                }
            }
            Label::AssignAny { lhs, .. } => self.kill(g, &mut out, g.expr_root(lhs)),
            Label::Compare {
                lhs,
                rhs,
                negated: false,
            } => {
                let (l, r) = (g.strip_casts(lhs), g.strip_casts(rhs));
                match (self.eval(g, l, k), self.eval(g, r, k)) {
                    (Some(c), None) => {
                        out.insert(r, c);
                    }
                    (None, Some(c)) => {
                        out.insert(l, c);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        out
    }

    fn join(&self, acc: &mut Knowledge, other: &Knowledge) {
        acc.retain(|key, v| other.get(key) == Some(v));
    }

    fn with_reachability(&self) -> bool {
        true
    }
}

/// Which assignment edge last defined a variable (§2.7). Without `bot` contributions (see the
/// module doc) `Any` never arises: a reached node knows every variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Definition {
    /// The initial value.
    Init,
    /// Every incoming path defines the variable by this edge.
    All(EdgeId),
    /// Paths disagree.
    Mixed,
}

/// ReachingDefinitions (§2.7): variable ↦ definition, indexed by the variable's position.
pub(crate) struct ReachingDefinitions {
    index: std::collections::HashMap<Symbol, usize>,
    count: usize,
}

impl ReachingDefinitions {
    pub(crate) fn new(g: &Game) -> Self {
        let index: std::collections::HashMap<Symbol, usize> = g
            .variables
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name, i))
            .collect();
        ReachingDefinitions {
            count: g.variables.len(),
            index,
        }
    }

    /// The position of variable `v` in the domain.
    pub(crate) fn slot(&self, v: Symbol) -> Option<usize> {
        self.index.get(&v).copied()
    }
}

impl Analysis for ReachingDefinitions {
    type Domain = Box<[Definition]>;

    fn extreme(&self, _g: &Game) -> Self::Domain {
        vec![Definition::Init; self.count].into_boxed_slice()
    }

    fn transfer(&self, g: &Game, k: &Self::Domain, edge: Option<EdgeId>) -> Self::Domain {
        let mut out = k.clone();
        if let Some(e) = edge
            && let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = g.edge(e).label
            && let Some(i) = self.slot(g.expr_root(lhs))
        {
            out[i] = Definition::All(e);
        }
        out
    }

    fn join(&self, acc: &mut Self::Domain, other: &Self::Domain) {
        for (a, b) in acc.iter_mut().zip(other.iter()) {
            if a != b {
                *a = Definition::Mixed;
            }
        }
    }

    fn with_reachability(&self) -> bool {
        true
    }
}
