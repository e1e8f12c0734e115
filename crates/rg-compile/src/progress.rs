//! Cycles whose walk never comes back to a state: rays such as `(dir {e})*`.
//!
//! A *simple* cycle (every member has one edge to the next member; other edges leave it) that
//! one walk of a scope event enters once goes round deterministically, each round taking the
//! state at a member `q` to the next one. If some scalar variable `v` is assigned on the cycle
//! only as `v = K[v]` (a constant map of `v`'s class), a round starting at `q` maps `v` by the
//! composition `f` of those maps, and it can run on only when the comparisons on the cycle that
//! are decided by `v` alone hold (`live`). Were a state at `q` repeated, its values of `v` would
//! run round a cycle of `f` made of live values; so when `f` has no such cycle, for every
//! member, the states at each member are pairwise different and none needs a visited-state
//! check (and the walk ends: the values cannot repeat).
//!
//! Comparisons decided by `v` alone: `v`, literals, constants and constant maps indexed by such
//! operands, and elements of a map variable at keys outside its declared domain — a store there
//! fails (as in the interpreter), so the element keeps its initial value, provided no edge
//! assigns the whole map; and elements no store can change. By induction over the steps of
//! all walks: while the element at key `k` holds its initial value `i`, every store into the
//! map either writes `i`, or stores at a key proven other than `k` — every walk to it passes,
//! after the last assignment to the key's variable, a comparison of that variable with
//! another symbol (`coord != null`), a comparison of the element it indexes with a symbol
//! other than `i` (`{w} [b]`: it is not `k`, whose element holds `i`), or an assignment of a
//! type without `k` (`coord = Coord(*)`). So RBG's off-board key, whose element holds the
//! board's default, is never written, and its comparisons are decided.
//!
//! Walks that meet at one state are told apart by visited-state checks unless they *die*
//! there: within a few edges, comparisons decided by `v` and steps `v = K[v]` only, every way
//! fails ([`dead_collisions`]): two directions that both leave the board meet at the off-board
//! key, where the next comparison of the board (or the one after the next step) fails.

use crate::layout::{Layout, NameRef, Shape};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, Symbol};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;

/// A store into a map variable: its edge, its key and the symbol it writes (when a literal).
type Store = (EdgeId, ExprId, Option<Symbol>);

/// What the analysis remembers across cycles of one game.
#[derive(Default)]
pub(crate) struct Stores {
    /// Per map variable, its stores (`None`: the map is assigned whole).
    by_var: RefCell<HashMap<usize, Option<Vec<Store>>>>,
    /// Per map variable and element, whether it always holds its initial value.
    kept: RefCell<HashMap<(usize, u32), bool>>,
    /// Per first node of a reachability check, the nodes the check is on.
    starts: OnceCell<HashMap<NodeId, Vec<NodeId>>>,
    /// The targets of reachability checks.
    targets: OnceCell<std::collections::HashSet<NodeId>>,
}

impl Stores {
    fn check_starts(&self, game: &Game) -> &HashMap<NodeId, Vec<NodeId>> {
        self.starts.get_or_init(|| {
            let mut m: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
            for (_, ed) in game.edges() {
                if let Label::Reach { from, .. } = ed.label {
                    m.entry(from).or_default().push(ed.from);
                }
            }
            m
        })
    }

    fn check_targets(&self, game: &Game) -> &std::collections::HashSet<NodeId> {
        self.targets.get_or_init(|| {
            game.edges()
                .filter_map(|(_, ed)| match ed.label {
                    Label::Reach { to, .. } => Some(to),
                    _ => None,
                })
                .collect()
        })
    }
}

/// Reads `width` bits at bit `bit` of `bytes` (the layout's packing).
fn read_bits(bytes: &[u8], bit: u64, width: u32) -> Option<u32> {
    let byte = (bit / 8) as usize;
    match width {
        1 | 2 | 4 => {
            let shift = (bit % 8) as u32;
            Some(u32::from(*bytes.get(byte)? >> shift) & ((1u32 << width) - 1))
        }
        8 | 16 | 32 => {
            let n = (width / 8) as usize;
            let mut b = [0u8; 4];
            b[..n].copy_from_slice(bytes.get(byte..byte + n)?);
            Some(u32::from_le_bytes(b))
        }
        _ => None,
    }
}

struct Eval<'a> {
    game: &'a Game,
    layout: &'a Layout,
    stores: &'a Stores,
    /// The variable and its class.
    var: usize,
    class: usize,
}

/// The most members a variable's class may have for the proof (it tabulates maps over them).
const MAX_CLASS: usize = 1 << 12;

impl<'a> Eval<'a> {
    /// The evaluator for scalar variable `v` and the number of members of its class; `None`
    /// when `v` is not a scalar or its class is empty or larger than [`MAX_CLASS`].
    fn of_scalar(
        game: &'a Game,
        layout: &'a Layout,
        stores: &'a Stores,
        v: usize,
    ) -> Option<(Self, usize)> {
        let Shape::Scalar(class) = layout.vars[v].shape else {
            return None;
        };
        let n = layout.classes[class].len() as usize;
        if n == 0 || n > MAX_CLASS {
            return None;
        }
        let ev = Eval {
            game,
            layout,
            stores,
            var: v,
            class,
        };
        Some((ev, n))
    }
}

impl<'a> Eval<'a> {
    fn var_of(&self, e: ExprId) -> Option<usize> {
        match self.game.expr(self.game.strip_casts(e)) {
            ExprData::Ref(x) => match self.layout.name_ref(self.game, x) {
                NameRef::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    /// The symbol a literal (or scalar constant) expression stands for.
    fn literal(&self, e: ExprId) -> Option<Symbol> {
        match self.game.expr(self.game.strip_casts(e)) {
            ExprData::Ref(r) => match self.layout.name_ref(self.game, r) {
                NameRef::Literal(s) => Some(s),
                NameRef::Const(k) => match self.layout.consts[k].shape {
                    Shape::Scalar(c) => {
                        let i = *self.layout.consts[k].elements.first()?;
                        self.layout.classes[c].members.get(i as usize).copied()
                    }
                    Shape::Map { .. } => None,
                },
                NameRef::Var(_) => None,
            },
            _ => None,
        }
    }

    /// The stores into map variable `m` (see [`Stores`]).
    fn stores_of(&self, m: usize) -> Option<Vec<Store>> {
        if let Some(r) = self.stores.by_var.borrow().get(&m) {
            return r.clone();
        }
        let game = self.game;
        let mut out = Some(Vec::new());
        for (e, ed) in game.edges() {
            let (lhs, rhs) = match ed.label {
                Label::Assign { lhs, rhs } => (lhs, Some(rhs)),
                Label::AssignAny { lhs, .. } => (lhs, None),
                _ => continue,
            };
            let mut root = self.game.strip_casts(lhs);
            let mut key = None;
            while let ExprData::Access(mm, k) = self.game.expr(root) {
                key = Some(k);
                root = self.game.strip_casts(mm);
            }
            if self.var_of(root) != Some(m) {
                continue;
            }
            let (Some(k), ExprData::Access(..)) = (key, self.game.expr(self.game.strip_casts(lhs)))
            else {
                out = None; // assigned whole
                break;
            };
            let written = rhs.and_then(|r| self.literal(r));
            if let Some(v) = out.as_mut() {
                v.push((e, k, written));
            }
        }
        self.stores.by_var.borrow_mut().insert(m, out.clone());
        out
    }

    /// Whether element `i` of map variable `m` (one map level) always holds its initial value
    /// `init`: by induction over the steps of every walk, each store into `m` either writes
    /// `init` or, while the element holds `init` in every state so far, never writes it (see
    /// [`Self::store_avoids`]).
    fn invariant(&self, m: usize, i: u32, init: Symbol) -> bool {
        let f = &self.layout.vars[m];
        if f.shape.has_ext() {
            return false; // a store of its value may still change its presence flag
        }
        if let Some(Some(dom)) = f.domains.first()
            && !dom.get(i as usize).copied().unwrap_or(true)
            && self.stores_of(m).is_some()
        {
            return true; // stores there fail
        }
        if let Some(&r) = self.stores.kept.borrow().get(&(m, i)) {
            return r;
        }
        let key = f
            .shape
            .scalar_map()
            .and_then(|(kc, _)| self.layout.classes[kc].members.get(i as usize).copied());
        let r = match (self.stores_of(m), key) {
            (Some(stores), Some(key)) => stores.iter().all(|&(e, k, written)| {
                written == Some(init) || self.store_avoids(e, m, k, key, init)
            }),
            _ => false,
        };
        self.stores.kept.borrow_mut().insert((m, i), r);
        r
    }

    /// Whether store edge `e` into `m[k]` never writes element `key` while that element holds
    /// `init`: `k` is a literal other than `key`, or a scalar variable `w` and every walk to
    /// `e` passes, after its last assignment to `w` that proves nothing, an edge that proves
    /// `w != key` and no assignment to `w` after it. Proofs: `w` compared unequal to `key` or
    /// equal to another literal, `m[w]` compared equal to a symbol other than `init` or unequal
    /// to `init` (the element at `key` holds `init`), `w` assigned another literal or
    /// `T(*)` of a type without `key`. Other edges keep `w` (a reachability check restores the
    /// state, and a check's search starts with the state of the node the check is on); the
    /// walks are followed backwards, each node once, within a budget.
    fn store_avoids(&self, e: EdgeId, m: usize, k: ExprId, key: Symbol, init: Symbol) -> bool {
        const BUDGET: usize = 20_000;
        if let Some(s) = self.literal(k) {
            return s != key;
        }
        let Some(w) = self.var_of(k) else {
            return false;
        };
        let game = self.game;
        let is_w = |x: ExprId| self.var_of(x) == Some(w);
        let is_mw = |x: ExprId| match game.expr(game.strip_casts(x)) {
            ExprData::Access(mm, kk) => self.var_of(mm) == Some(m) && is_w(kk),
            _ => false,
        };
        // Some(true): proves `w != key`; Some(false): assigns `w` without proof; None: keeps `w`.
        let judge = |label: Label| -> Option<bool> {
            match label {
                Label::Compare { lhs, rhs, negated } => {
                    let side = |a: ExprId, b: ExprId| -> Option<bool> {
                        let s = self.literal(b)?;
                        if is_w(a) {
                            Some(if negated { s == key } else { s != key })
                        } else if is_mw(a) {
                            Some(if negated { s == init } else { s != init })
                        } else {
                            None
                        }
                    };
                    match side(lhs, rhs).or_else(|| side(rhs, lhs)) {
                        Some(true) => Some(true),
                        _ => None,
                    }
                }
                Label::Assign { lhs, rhs } if is_w(lhs) => {
                    Some(self.literal(rhs).is_some_and(|s| s != key))
                }
                Label::AssignAny { lhs, ty } if is_w(lhs) => {
                    let env = rg_core::typeck::TypeEnv::new(game);
                    Some(match env.resolve(ty) {
                        Ok(rg_core::typeck::Resolved::Set(ms)) => !ms.as_slice().contains(&key),
                        _ => false,
                    })
                }
                _ => None,
            }
        };
        let starts = self.stores.check_starts(game);
        let begin = game.begin();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![game.edge(e).from];
        while let Some(q) = stack.pop() {
            if !seen.insert(q) {
                continue;
            }
            if seen.len() > BUDGET || Some(q) == begin {
                return false;
            }
            for &p in game.incoming(q) {
                match judge(game.edge(p).label) {
                    Some(true) => {}
                    Some(false) => return false,
                    None => stack.push(game.edge(p).from),
                }
            }
            if let Some(srcs) = starts.get(&q) {
                stack.extend(srcs.iter().copied());
            }
        }
        true
    }

    /// `e`'s value as a symbol when the variable holds class-local value `x`, if it depends
    /// on nothing else.
    fn value(&self, e: ExprId, x: u32) -> Option<Symbol> {
        let classes = &self.layout.classes;
        match self.game.expr(self.game.strip_casts(e)) {
            ExprData::Cast(..) => None,
            ExprData::Ref(r) => match self.layout.name_ref(self.game, r) {
                NameRef::Literal(s) => Some(s),
                NameRef::Var(v) if v == self.var => {
                    classes[self.class].members.get(x as usize).copied()
                }
                NameRef::Var(_) => None,
                NameRef::Const(k) => match &self.layout.consts[k].shape {
                    Shape::Scalar(c) => {
                        let i = *self.layout.consts[k].elements.first()?;
                        classes[*c].members.get(i as usize).copied()
                    }
                    Shape::Map { .. } => None,
                },
            },
            ExprData::Access(m, k) => {
                let key = self.value(k, x)?;
                let ExprData::Ref(mr) = self.game.expr(self.game.strip_casts(m)) else {
                    return None;
                };
                match self.layout.name_ref(self.game, mr) {
                    NameRef::Const(c) => {
                        let data = &self.layout.consts[c];
                        let (kc, vc) = data.shape.scalar_map()?;
                        let i = classes[kc].local(key)?;
                        let v = *data.elements.get(i as usize)?;
                        classes[vc].members.get(v as usize).copied()
                    }
                    NameRef::Var(mv) => {
                        let f = &self.layout.vars[mv];
                        let (kc, vc) = f.shape.scalar_map()?;
                        let i = classes[kc].local(key)?;
                        let v = read_bits(
                            &self.layout.init,
                            f.bit + u64::from(i) * u64::from(f.width),
                            f.width,
                        )?;
                        let init = classes[vc].members.get(v as usize).copied()?;
                        self.invariant(mv, i, init).then_some(init)
                    }
                    NameRef::Literal(_) => None,
                }
            }
        }
    }

    /// The constant map `rhs` applies to the variable (`v = K[v]`), as class-local values.
    fn self_map(&self, rhs: ExprId) -> Option<&'a [u32]> {
        let ExprData::Access(m, k) = self.game.expr(self.game.strip_casts(rhs)) else {
            return None;
        };
        if self.var_of(k) != Some(self.var) {
            return None;
        }
        let ExprData::Ref(mr) = self.game.expr(self.game.strip_casts(m)) else {
            return None;
        };
        let NameRef::Const(c) = self.layout.name_ref(self.game, mr) else {
            return None;
        };
        let data = &self.layout.consts[c];
        match &data.shape {
            Shape::Map {
                key,
                val,
                ext: false,
            } if *key == self.class && **val == Shape::Scalar(self.class) => Some(&data.elements),
            _ => None,
        }
    }
}

/// Whether the walk round the simple cycle `cycle` (its edges in order, each from the node the
/// previous one enters) never comes back to a state (see the module doc).
pub(crate) fn progressive(game: &Game, layout: &Layout, stores: &Stores, cycle: &[EdgeId]) -> bool {
    let assigned: Vec<usize> = (0..layout.vars.len())
        .filter(|&v| layout.vars[v].ordinary && layout.vars[v].width > 0)
        .filter(|&v| matches!(layout.vars[v].shape, Shape::Scalar(_)))
        .collect();
    'vars: for v in assigned {
        let Some((ev, n)) = Eval::of_scalar(game, layout, stores, v) else {
            continue;
        };
        // Per edge: Some(map) for `v = K[v]`, None for an edge that leaves `v` alone.
        let mut steps: Vec<Option<&[u32]>> = Vec::with_capacity(cycle.len());
        for &e in cycle {
            match game.edge(e).label {
                Label::Assign { lhs, rhs } if ev.var_of(lhs) == Some(v) => match ev.self_map(rhs) {
                    Some(k) if k.len() == n => steps.push(Some(k)),
                    _ => continue 'vars,
                },
                Label::AssignAny { lhs, .. } if ev.var_of(lhs) == Some(v) => continue 'vars,
                _ => steps.push(None),
            }
        }
        if steps.iter().all(Option::is_none) {
            continue;
        }
        // Whether comparison edge `e` can hold when `v` is `x`.
        let holds = |e: EdgeId, x: u32| -> bool {
            let Label::Compare { lhs, rhs, negated } = game.edge(e).label else {
                return true;
            };
            match (ev.value(lhs, x), ev.value(rhs, x)) {
                (Some(a), Some(b)) => (a == b) != negated,
                _ => true,
            }
        };
        for start in 0..cycle.len() {
            // One round from member `start`: where each live value goes.
            let mut next: Vec<Option<u32>> = Vec::with_capacity(n);
            for x0 in 0..n as u32 {
                let mut x = x0;
                let mut live = true;
                for i in 0..cycle.len() {
                    let j = (start + i) % cycle.len();
                    if !holds(cycle[j], x) {
                        live = false;
                        break;
                    }
                    if let Some(k) = steps[j] {
                        x = k[x as usize];
                        if x as usize >= n {
                            continue 'vars;
                        }
                    }
                }
                next.push(live.then_some(x));
            }
            // A cycle of live values? (0: unseen, 1: on the current path, 2: done)
            let mut mark = vec![0u8; n];
            for s in 0..n {
                let mut path = Vec::new();
                let mut x = s;
                while mark[x] == 0 {
                    mark[x] = 1;
                    path.push(x);
                    match next[x] {
                        Some(y) => x = y as usize,
                        None => break,
                    }
                }
                if mark[x] == 1 && next[x].is_some() {
                    continue 'vars; // back on the current path: a live cycle
                }
                for p in path {
                    mark[p] = 2;
                }
            }
        }
        return true;
    }
    false
}

/// How many edges a walk that meets another may take, comparisons and steps `v = K[v]` only,
/// before all its ways fail, for the two walks to count as one (see [`dead_collisions`]).
const DEAD_DEPTH: u32 = 4;

/// Whether edges `es` (from one node, each `v = K[v]` for one scalar variable `v` and constant
/// maps `K`) take a state to the same value of `v` only where the walk from node `q` (the node
/// they enter; `outs` are the out-edges of every node) dies: within [`DEAD_DEPTH`] edges,
/// comparisons decided by `v` and steps `v = K[v]` only, every way fails, reaching no
/// check's target. The walks that meet there end having done nothing, so they need not be
/// told apart.
pub(crate) fn dead_collisions(
    game: &Game,
    layout: &Layout,
    stores: &Stores,
    outs: &[Vec<EdgeId>],
    q: NodeId,
    es: &[EdgeId],
) -> bool {
    let Some((maps, dead)) = self_maps(game, layout, stores, outs, q, es) else {
        return false;
    };
    let n = maps[0].len();
    for x in 0..n {
        for i in 0..maps.len() {
            for j in i + 1..maps.len() {
                let y = maps[i][x];
                if y == maps[j][x] && !dead(y) {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether edge `e` (`v = K[v]` for a scalar variable `v` and a constant map `K`) takes two
/// values of `v` to one only where the walk from node `q` it enters dies (as in
/// [`dead_collisions`]): states that differ before it differ after it, or end at once.
pub(crate) fn dead_self_collisions(
    game: &Game,
    layout: &Layout,
    stores: &Stores,
    outs: &[Vec<EdgeId>],
    q: NodeId,
    e: EdgeId,
) -> bool {
    let Some((maps, dead)) = self_maps(game, layout, stores, outs, q, &[e]) else {
        return false;
    };
    let mut seen = std::collections::HashSet::new();
    maps[0].iter().all(|&y| dead(y) || seen.insert(y))
}

impl Eval<'_> {
    /// Whether every walk from node `q` with the variable at `y` fails within `depth` edges,
    /// taking only comparisons decided by the variable, skips and steps `v = K[v]`, and
    /// reaching no check's target.
    fn dies(&self, outs: &[Vec<EdgeId>], q: NodeId, y: u32, depth: u32) -> bool {
        let out = &outs[q.index()];
        if depth == 0 || out.is_empty() || self.stores.check_targets(self.game).contains(&q) {
            return false;
        }
        out.iter().all(|&e| {
            let ed = self.game.edge(e);
            match ed.label {
                Label::Compare { lhs, rhs, negated } => {
                    match (self.value(lhs, y), self.value(rhs, y)) {
                        (Some(a), Some(b)) => {
                            (a == b) == negated || self.dies(outs, ed.to, y, depth - 1)
                        }
                        _ => false,
                    }
                }
                Label::Skip => self.dies(outs, ed.to, y, depth - 1),
                Label::Assign { lhs, rhs } if self.var_of(lhs) == Some(self.var) => {
                    match self.self_map(rhs) {
                        Some(k) => k
                            .get(y as usize)
                            .is_some_and(|&z| self.dies(outs, ed.to, z, depth - 1)),
                        None => false,
                    }
                }
                _ => false,
            }
        })
    }
}

/// The value maps of edges `es` (each `v = K[v]` for one scalar variable `v`), and whether the
/// walk from node `q` with `v` at a value dies ([`Eval::dies`]).
#[allow(clippy::type_complexity)]
fn self_maps<'g>(
    game: &'g Game,
    layout: &'g Layout,
    stores: &'g Stores,
    outs: &'g [Vec<EdgeId>],
    q: NodeId,
    es: &[EdgeId],
) -> Option<(Vec<&'g [u32]>, impl Fn(u32) -> bool + 'g)> {
    let &first = es.first()?;
    let Label::Assign { lhs, .. } = game.edge(first).label else {
        return None;
    };
    let probe = Eval {
        game,
        layout,
        stores,
        var: usize::MAX,
        class: 0,
    };
    let v = probe.var_of(lhs)?;
    let (ev, n) = Eval::of_scalar(game, layout, stores, v)?;
    let mut maps: Vec<&[u32]> = Vec::with_capacity(es.len());
    for &e in es {
        match game.edge(e).label {
            Label::Assign { lhs, rhs } if ev.var_of(lhs) == Some(v) => match ev.self_map(rhs) {
                Some(k) if k.len() == n => maps.push(k),
                _ => return None,
            },
            _ => return None,
        }
    }
    let dead = move |y: u32| -> bool { ev.dies(outs, q, y, DEAD_DEPTH) };
    Some((maps, dead))
}
