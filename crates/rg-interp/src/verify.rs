//! An independent check of the pragmas the interpreter trusts (`@unique`, `@repeat`,
//! `@disjoint`), state by state, on the game as written: a small, slow re-implementation of the
//! successor search (moves, visited keys, reachability checks) that runs *without* the pragmas
//! and watches for the events that would make them change the search.
//!
//! Perft with and without pragmas ([`crate::check_pragmas`]) only sees a wrong pragma when it
//! changes a count; a wrong `@unique` whose duplicate walks die a step later changes none, yet a
//! compiled move generator that trusts it does twice the work or worse. Here every search from
//! every game state within a depth is explored in full, and
//!
//! * `@unique n`: a state at `n` taken from the pending stack whose visited key (node, tags,
//!   ordinary variables) was already taken in the same search is a violation, unless `n` has
//!   no outgoing edges (expanding a state twice there does nothing);
//! * `@repeat n : V`: two states at `n` with equal tags and equal values of `V` but different
//!   visited keys are a violation (the interpreter would merge them);
//! * a fully disjoint node (a `@disjoint` listing as many targets as the node has edges) where
//!   more than one outgoing edge succeeds in one state
//!   is a violation.
//!
//! Without pragmas the interpreter merges at every node; with true pragmas it does exactly the
//! same work, because none of these events happens. Up to the first such event the two runs are
//! identical, so a search with a wrong pragma shows the event here. The check is stronger than
//! the interpreter needs in one way: a reachability search is explored in full (every state
//! that can reach its target node is explored, except the target's own edges), not only until
//! the first arrival at the target, so a pragma must hold whatever order a consumer explores
//! the search in. Arrivals at the target node of a reachability search are not checked: no
//! search ever takes a second one from its stack.
//!
//! Values follow the interpreter's exactly (maps keep explicitly written default entries; a store
//! removes a key set to the default), so the visited keys are the interpreter's. Everything is
//! bounded: the number of game states explored, the number of tags of a walk and the nesting of
//! reachability checks; a game that exceeds a bound, or an action that cannot be evaluated,
//! makes the check inconclusive rather than wrong.

use crate::check::{Condition, ProperViolation};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{
    EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, PragmaKind, Symbol, ValueData, ValueId,
};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// How much to explore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Game states reached by at most this many moves (keeper moves included) are searched.
    pub depth: usize,
    /// At most this many game states are searched.
    pub max_states: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            depth: 3,
            max_states: 2_000,
        }
    }
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verified {
    /// Every explored search kept the promises of the pragmas; `states` game states were
    /// searched, with `arrivals` states taken from pending stacks in all their searches.
    Holds { states: usize, arrivals: usize },
    /// Pragmas that do not hold, one report per pragma kind and node.
    Violated(Vec<ProperViolation>),
    /// The check could not finish (an action that cannot be evaluated, a bound exceeded).
    Inconclusive(String),
}

/// Checks the trusted pragmas of `g` (a game with its built-ins) on every search from the game
/// states within `opts.depth` moves of the initial state.
pub fn verify_pragmas(g: &Game, opts: &VerifyOptions) -> Verified {
    let v = match Verifier::new(g) {
        Ok(v) => v,
        Err(e) => return Verified::Inconclusive(e),
    };
    v.run(opts)
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Val {
    Sym(Symbol),
    Map(Rc<MapVal>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct MapVal {
    default: Val,
    entries: BTreeMap<Symbol, Val>,
}

/// What a name in an edge label denotes, if not a symbol (`goals`, `player`, `visible`, then a
/// constant, then a variable).
#[derive(Clone, Copy)]
enum Name {
    Var(usize),
    Const(usize),
}

/// The variables' values (in `Game::variables` order).
type Data = Rc<[Val]>;

/// A visited key: node, tags, ordinary variable values.
type Key = (NodeId, Vec<Symbol>, Vec<Val>);

/// A finished move: its tags, the node and the variables after it.
type Finished = (Vec<Symbol>, NodeId, Data);

/// Most tags of one walk; more means a cycle through tags.
const MAX_TAGS: usize = 4_096;
/// Deepest nesting of reachability checks.
const MAX_NESTING: usize = 64;
/// Most states taken from pending stacks in one check.
const MAX_ARRIVALS: usize = 20_000_000;

struct Verifier<'g> {
    g: &'g Game,
    names: HashMap<Symbol, Name>,
    consts: Vec<Val>,
    init: Vec<Val>,
    ordinary: Vec<usize>,
    player: Option<usize>,
    unique: Vec<bool>,
    /// Per node: the positions of the variables its `@repeat` compares.
    repeat: Vec<Option<Vec<usize>>>,
    disjoint: Vec<bool>,
    members: HashMap<rg_core::TypeId, Vec<Symbol>>,
}

/// The state of one run of the check.
struct Run {
    arrivals: usize,
    found: Vec<ProperViolation>,
    reported: HashSet<(&'static str, NodeId)>,
    path: Vec<Vec<String>>,
    active: Vec<EdgeId>,
}

/// The state of one search of [`Verifier::search`].
struct Search {
    /// The reachability target, or `None` in a move search.
    target: Option<NodeId>,
    /// The finished moves found.
    results: Vec<Finished>,
    pending: Vec<Pending>,
    seen: HashSet<Key>,
    /// Under `@repeat`: the full key of the first state with each key of listed variables.
    by_repeat: HashMap<Key, Key>,
    /// The answers of the reachability checks of the state being expanded.
    cache: Vec<(NodeId, NodeId, bool)>,
}

struct Pending {
    node: NodeId,
    data: Data,
    tags: Vec<Symbol>,
}

impl<'g> Verifier<'g> {
    fn new(g: &'g Game) -> Result<Self, String> {
        let wk = *g.well_known();
        let special = [wk.goals, wk.player, wk.visible];
        let mut names = HashMap::new();
        for (i, v) in g.variables.iter().enumerate() {
            names.entry(v.name).or_insert(Name::Var(i));
        }
        for (i, c) in g.constants.iter().enumerate() {
            if !special.contains(&c.name) {
                // A constant shadows a variable of the same name, and the first one counts.
                match names.get(&c.name) {
                    Some(Name::Const(_)) => {}
                    _ => {
                        names.insert(c.name, Name::Const(i));
                    }
                }
            }
        }
        let mut v = Verifier {
            g,
            names,
            consts: Vec::new(),
            init: Vec::new(),
            ordinary: Vec::new(),
            player: None,
            unique: vec![false; g.node_capacity()],
            repeat: vec![None; g.node_capacity()],
            disjoint: vec![false; g.node_capacity()],
            members: HashMap::new(),
        };
        for i in 0..g.constants.len() {
            let c = v.value(g.constants[i].value, i)?;
            v.consts.push(c);
        }
        for var in &g.variables {
            let x = v.value(var.init, g.constants.len())?;
            v.init.push(x);
        }
        let position: HashMap<Symbol, usize> = g
            .variables
            .iter()
            .enumerate()
            .rev()
            .map(|(i, x)| (x.name, i))
            .collect();
        for (i, x) in g.variables.iter().enumerate() {
            if !special.contains(&x.name) && position.get(&x.name) == Some(&i) {
                v.ordinary.push(i);
            }
        }
        v.player = position.get(&wk.player).copied();
        for p in &g.pragmas {
            match &p.kind {
                PragmaKind::Unique(ns) => ns.iter().for_each(|n| v.unique[n.index()] = true),
                PragmaKind::Repeat { nodes, variables } => {
                    let listed: Vec<usize> = variables
                        .iter()
                        .filter(|x| !special.contains(x))
                        .filter_map(|x| position.get(x).copied())
                        .collect();
                    for n in nodes {
                        v.repeat[n.index()] = Some(listed.clone());
                    }
                }
                PragmaKind::Disjoint { node, nodes }
                | PragmaKind::DisjointExhaustive { node, nodes }
                    if g.outgoing(*node).len() == nodes.len() =>
                {
                    v.disjoint[node.index()] = true;
                }
                _ => {}
            }
        }
        let env = TypeEnv::new(g);
        for (_, e) in g.edges() {
            if let Label::AssignAny { ty, .. } = e.label
                && let std::collections::hash_map::Entry::Vacant(slot) = v.members.entry(ty)
            {
                match env.resolve(ty) {
                    Ok(Resolved::Set(ms)) => {
                        slot.insert(ms.as_slice().to_vec());
                    }
                    _ => return Err("an any-assignment of a type that is not a set".into()),
                }
            }
        }
        Ok(v)
    }

    /// The runtime value of a declared value whose names see the first `visible` constants.
    fn value(&self, id: ValueId, visible: usize) -> Result<Val, String> {
        Ok(match self.g.value(id) {
            ValueData::Element(n) => {
                let c = self.g.constants[..visible.min(self.consts.len())]
                    .iter()
                    .position(|c| c.name == *n);
                match c {
                    Some(i) => self.consts[i].clone(),
                    None => Val::Sym(*n),
                }
            }
            ValueData::Map(entries) => {
                let mut default = None;
                let mut map = BTreeMap::new();
                for e in entries.iter() {
                    let x = self.value(e.value, visible)?;
                    match e.key {
                        Some(k) => {
                            map.entry(k).or_insert(x);
                        }
                        None => default = default.or(Some(x)),
                    }
                }
                let default = default.ok_or("a map value without a default")?;
                Val::Map(Rc::new(MapVal {
                    default,
                    entries: map,
                }))
            }
        })
    }

    fn eval(&self, e: ExprId, data: &[Val]) -> Result<Val, String> {
        match self.g.expr(e) {
            ExprData::Ref(s) => Ok(match self.names.get(&s) {
                Some(Name::Var(i)) => data[*i].clone(),
                Some(Name::Const(i)) => self.consts[*i].clone(),
                _ => Val::Sym(s),
            }),
            ExprData::Cast(_, x) => self.eval(x, data),
            ExprData::Access(m, k) => {
                let Val::Sym(k) = self.eval(k, data)? else {
                    return Err("a map key that is a map".into());
                };
                let Val::Map(m) = self.eval(m, data)? else {
                    return Err("an access into a symbol".into());
                };
                Ok(m.entries.get(&k).unwrap_or(&m.default).clone())
            }
        }
    }

    /// `data` with `value` stored into the location `l`: every key evaluated
    /// before the store.
    fn store(&self, l: ExprId, value: Val, data: &Data) -> Result<Data, String> {
        let mut keys = Vec::new();
        let mut at = self.g.strip_casts(l);
        while let ExprData::Access(m, k) = self.g.expr(at) {
            let Val::Sym(k) = self.eval(k, data)? else {
                return Err("a map key that is a map".into());
            };
            keys.push((m, k));
            at = self.g.strip_casts(m);
        }
        let ExprData::Ref(root) = self.g.expr(at) else {
            return Err("an assignment to an expression".into());
        };
        let Some(Name::Var(slot)) = self.names.get(&root).copied() else {
            return Err("an assignment to a constant or a symbol".into());
        };
        // From the innermost key outwards: the maps along the path, then the rebuilt ones.
        let mut maps = Vec::new();
        for &(m, _) in keys.iter().rev() {
            let Val::Map(map) = self.eval(m, data)? else {
                return Err("an access into a symbol".into());
            };
            maps.push(map);
        }
        let mut v = value;
        for (map, &(_, k)) in maps.iter().rev().zip(keys.iter()) {
            let mut m = MapVal::clone(map);
            if v == m.default {
                m.entries.remove(&k);
            } else {
                m.entries.insert(k, v);
            }
            v = Val::Map(Rc::new(m));
        }
        let mut out = data.to_vec();
        out[slot] = v;
        Ok(out.into())
    }

    fn key(&self, node: NodeId, tags: &[Symbol], data: &[Val]) -> Key {
        let vals = self.ordinary.iter().map(|&i| data[i].clone()).collect();
        (node, tags.to_vec(), vals)
    }

    fn report(&self, run: &mut Run, what: &'static str, node: NodeId, message: String) {
        if !run.reported.insert((what, node)) {
            return;
        }
        run.found.push(ProperViolation {
            condition: Condition::PragmaTruth,
            message,
            path: run.path.clone(),
            label: None,
            span: None,
            help: format!(
                "in a search from the state after the moves {}",
                crate::format_path(&run.path)
            ),
        });
    }

    /// One search from `(node, data, tags)`: in moves mode (`target == None`) the finished
    /// moves (tags and state), in reach mode whether `target` is reached.
    fn search(
        &self,
        run: &mut Run,
        node: NodeId,
        data: Data,
        tags: Vec<Symbol>,
        target: Option<NodeId>,
    ) -> Result<(Vec<Finished>, bool), String> {
        let g = self.g;
        let mut s = Search {
            target,
            results: Vec::new(),
            pending: vec![Pending { node, data, tags }],
            seen: HashSet::new(),
            by_repeat: HashMap::new(),
            cache: Vec::new(),
        };
        let mut reached = false;
        while let Some(Pending { node, data, tags }) = s.pending.pop() {
            if target == Some(node) {
                reached = true;
                continue;
            }
            run.arrivals += 1;
            if run.arrivals > MAX_ARRIVALS {
                return Err(format!("more than {MAX_ARRIVALS} search states"));
            }
            if !self.first_visit(run, &mut s, node, &tags, &data) {
                continue;
            }
            let mut succeeded = 0;
            s.cache.clear();
            for &e in g.outgoing(node) {
                let ok = self.take_edge(run, &mut s, e, &data, &tags)?;
                succeeded += usize::from(ok);
            }
            if succeeded > 1 && self.disjoint[node.index()] {
                let name = g.node_name(node);
                self.report(
                    run,
                    "@disjoint",
                    node,
                    format!(
                        "@disjoint {name} is false: {succeeded} edges leaving `{name}` succeed \
                         in one state"
                    ),
                );
            }
        }
        Ok((s.results, reached))
    }

    /// Records the state `(node, tags, data)` as visited; whether it is new. Checks the
    /// pragmas at `node` on the way: under `@repeat`, two states with the same tags and listed
    /// variables must be equal; a `@unique` node with edges must not be reached twice.
    fn first_visit(
        &self,
        run: &mut Run,
        s: &mut Search,
        node: NodeId,
        tags: &[Symbol],
        data: &Data,
    ) -> bool {
        let g = self.g;
        let key = self.key(node, tags, data);
        if let Some(vars) = &self.repeat[node.index()] {
            let rkey = (
                node,
                tags.to_vec(),
                vars.iter().map(|&i| data[i].clone()).collect(),
            );
            match s.by_repeat.get(&rkey) {
                Some(full) if *full != key => {
                    let name = g.node_name(node);
                    self.report(
                        run,
                        "@repeat",
                        node,
                        format!(
                            "@repeat {name} is false: two states at `{name}` with the same \
                             tags and listed variables differ in another variable"
                        ),
                    );
                }
                Some(_) => {}
                None => {
                    s.by_repeat.insert(rkey, key.clone());
                }
            }
        }
        if !s.seen.insert(key) {
            // Expanding a state twice at a node without edges does nothing.
            if self.unique[node.index()] && !g.outgoing(node).is_empty() {
                let name = g.node_name(node);
                self.report(
                    run,
                    "@unique",
                    node,
                    format!(
                        "@unique {name} is false: a search reaches `{name}` twice with the \
                         same tags and variables"
                    ),
                );
            }
            return false;
        }
        true
    }

    /// Tries edge `e` from the state `(data, tags)`: its successor becomes pending or, when it
    /// finishes a move, a result; whether the edge was taken.
    fn take_edge(
        &self,
        run: &mut Run,
        s: &mut Search,
        e: EdgeId,
        data: &Data,
        tags: &[Symbol],
    ) -> Result<bool, String> {
        let d = self.g.edge(e);
        let to = d.to;
        let target = s.target;
        let ok = match d.label {
            Label::Skip => {
                s.pending.push(Pending {
                    node: to,
                    data: data.clone(),
                    tags: tags.to_vec(),
                });
                true
            }
            Label::Tag(t) | Label::TagVar(t) => {
                let t = if matches!(d.label, Label::TagVar(_)) {
                    match self.names.get(&t) {
                        Some(Name::Var(i)) => match &data[*i] {
                            Val::Sym(s) => *s,
                            Val::Map(_) => return Err("a variable tag of a map".into()),
                        },
                        _ => return Err("a variable tag of a non-variable".into()),
                    }
                } else {
                    t
                };
                if tags.len() >= MAX_TAGS {
                    return Err(format!("a walk with more than {MAX_TAGS} tags"));
                }
                let mut tags = tags.to_vec();
                tags.push(t);
                s.pending.push(Pending {
                    node: to,
                    data: data.clone(),
                    tags,
                });
                true
            }
            Label::Assign { lhs, rhs } => {
                let v = self.eval(rhs, data)?;
                let next = self.store(lhs, v, data)?;
                self.successor(&mut s.results, &mut s.pending, target, lhs, to, next, tags);
                true
            }
            Label::AssignAny { lhs, ty } => {
                for &m in &self.members[&ty] {
                    let next = self.store(lhs, Val::Sym(m), data)?;
                    self.successor(&mut s.results, &mut s.pending, target, lhs, to, next, tags);
                }
                true
            }
            Label::Compare { lhs, rhs, negated } => {
                let holds = (self.eval(lhs, data)? == self.eval(rhs, data)?) != negated;
                if holds {
                    s.pending.push(Pending {
                        node: to,
                        data: data.clone(),
                        tags: tags.to_vec(),
                    });
                }
                holds
            }
            Label::Reach {
                from,
                to: b,
                negated,
            } => {
                let r = match s.cache.iter().find(|c| (c.0, c.1) == (from, b)) {
                    Some(c) => c.2,
                    None => {
                        let r = self.reach(run, e, from, b, data, tags)?;
                        s.cache.push((from, b, r));
                        r
                    }
                };
                if r != negated {
                    s.pending.push(Pending {
                        node: to,
                        data: data.clone(),
                        tags: tags.to_vec(),
                    });
                }
                r != negated
            }
        };
        Ok(ok)
    }

    #[allow(clippy::too_many_arguments)]
    fn successor(
        &self,
        results: &mut Vec<Finished>,
        pending: &mut Vec<Pending>,
        target: Option<NodeId>,
        lhs: ExprId,
        to: NodeId,
        next: Data,
        tags: &[Symbol],
    ) {
        let ends_move = target.is_none()
            && matches!(self.g.expr(self.g.strip_casts(lhs)), ExprData::Ref(v)
                if v == self.g.well_known().player);
        if ends_move {
            results.push((tags.to_vec(), to, next));
        } else {
            pending.push(Pending {
                node: to,
                data: next,
                tags: tags.to_vec(),
            });
        }
    }

    /// `? a -> b` from a state: whether a search from `a` reaches `b`.
    fn reach(
        &self,
        run: &mut Run,
        edge: EdgeId,
        a: NodeId,
        b: NodeId,
        data: &Data,
        tags: &[Symbol],
    ) -> Result<bool, String> {
        if a == b {
            return Ok(true);
        }
        if run.active.contains(&edge) {
            return Err("a recursive reachability check".into());
        }
        if run.active.len() >= MAX_NESTING {
            return Err(format!(
                "reachability checks nested deeper than {MAX_NESTING}"
            ));
        }
        run.active.push(edge);
        let r = self.search(run, a, data.clone(), tags.to_vec(), Some(b));
        run.active.pop();
        Ok(r?.1)
    }

    fn run(&self, opts: &VerifyOptions) -> Verified {
        let Some(begin) = self.g.begin() else {
            return Verified::Inconclusive("no `begin` node".into());
        };
        let mut run = Run {
            arrivals: 0,
            found: Vec::new(),
            reported: HashSet::new(),
            path: Vec::new(),
            active: Vec::new(),
        };
        let start: Data = self.init.clone().into();
        let mut known: HashSet<(NodeId, Data)> = HashSet::new();
        known.insert((begin, start.clone()));
        let mut queue = VecDeque::from([(begin, start, Vec::new(), 0usize)]);
        let mut states = 0;
        while let Some((node, data, path, depth)) = queue.pop_front() {
            if states >= opts.max_states {
                break;
            }
            states += 1;
            run.path = path;
            let moves = match self.search(&mut run, node, data, Vec::new(), None) {
                Ok((moves, _)) => moves,
                Err(e) => return Verified::Inconclusive(e),
            };
            if depth >= opts.depth {
                continue;
            }
            for (tags, to, next) in moves {
                if known.insert((to, next.clone())) {
                    let mut p = run.path.clone();
                    p.push(tags.iter().map(|&t| self.g.name(t).to_string()).collect());
                    queue.push_back((to, next, p, depth + 1));
                }
            }
        }
        if run.found.is_empty() {
            Verified::Holds {
                states,
                arrivals: run.arrivals,
            }
        } else {
            Verified::Violated(run.found)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(text: &str) -> Game {
        let text = format!("type Player = {{ x }};\ntype Score = {{ 0, 1 }};\n{text}");
        let mut g = rg_core::parse(rg_core::FileId(0), &text).expect("test game parses");
        rg_core::builtins::add_builtins(&mut g).expect("built-ins");
        g
    }

    fn violations(text: &str) -> Vec<String> {
        match verify_pragmas(&game(text), &VerifyOptions::default()) {
            Verified::Holds { .. } => Vec::new(),
            Verified::Violated(v) => v.into_iter().map(|v| v.message).collect(),
            Verified::Inconclusive(e) => panic!("inconclusive: {e}"),
        }
    }

    /// Two walks reach `m` with the same state; the second dies at once, so perft cannot tell.
    const MERGE: &str = "type T = { a, b };\n\
        var v: T = a;\n\
        begin, s: player = x;\n\
        s, m: ;\n\
        s, m: v == a;\n\
        m, t: v == b;\n\
        m, u: $ u;\n\
        u, end: player = keeper;\n";

    #[test]
    fn a_unique_node_reached_twice_with_one_state_is_reported() {
        let found = violations(&format!("@unique m;\n{MERGE}"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("@unique m is false"), "{found:?}");
        assert_eq!(
            violations(&format!("@unique s u;\n{MERGE}")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_repeat_that_merges_different_states_is_reported() {
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            var w: T = a;\n\
            begin, s: player = x;\n\
            s, m: v = T(*);\n\
            m, n: w = v;\n\
            n, e: $ e;\n\
            e, end: player = keeper;\n";
        let wrong = violations(&format!("@repeat n : v;\n@repeat m : w;\n{text}"));
        assert_eq!(wrong.len(), 1, "{wrong:?}");
        assert!(wrong[0].contains("@repeat m is false"), "{wrong:?}");
    }

    #[test]
    fn a_disjoint_node_with_two_edges_that_hold_is_reported() {
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            var w: T = a;\n\
            begin, s: player = x;\n\
            s, p: v == a;\n\
            s, q: w == a;\n\
            p, end: player = keeper;\n\
            q, r: $ r;\n\
            r, end: player = keeper;\n";
        let found = violations(&format!("@disjoint s : p q;\n{text}"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("@disjoint s is false"), "{found:?}");
    }

    #[test]
    fn the_target_of_a_check_is_not_checked_and_its_edges_not_walked() {
        // `c` is reached twice in the check's search, but the search ends at the first.
        let text = "type T = { a, b };\n\
            var v: T = a;\n\
            @unique c d;\n\
            begin, s: player = x;\n\
            s, t: ? r -> c;\n\
            t, end: player = keeper;\n\
            r, c: ;\n\
            r, c: v == a;\n\
            c, d: ;\n\
            c, d: $ d;\n";
        assert_eq!(violations(text), Vec::<String>::new());
    }

    #[test]
    fn default_entries_written_in_a_map_keep_states_apart() {
        // `{ k: a, :a }` and `{ :a }` are different values: not a duplicate.
        let text = "type T = { a, b };\n\
            type K = { k };\n\
            var m: K -> T = { k: a, :a };\n\
            @unique n;\n\
            begin, s: player = x;\n\
            s, n: ;\n\
            s, t: m[k] = a;\n\
            t, n: ;\n\
            n, e: $ e;\n\
            e, end: player = keeper;\n";
        assert_eq!(violations(text), Vec::<String>::new());
    }
}
