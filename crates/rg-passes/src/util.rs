//! Shared vocabulary of the passes: what a label reads and assigns, negation pairs, the total
//! orders passes sort by, fresh node names, reachability over edges.

use rg_core::{
    EdgeId, ExprData, ExprId, Game, Label, NodeId, PragmaKind, Symbol, TypeData, TypeId, ValueData,
};
use std::collections::HashSet;

/// A side table with one entry per node of a game, indexed by [`NodeId`].
pub(crate) type NodeMap<T> = rg_core::IndexVec<NodeId, T>;

/// `is_equal_reference`: the same name, or accesses with the same map and index references;
/// casts ignored at every level.
pub(crate) fn same_reference(g: &Game, a: ExprId, b: ExprId) -> bool {
    let (a, b) = (g.strip_casts(a), g.strip_casts(b));
    if a == b {
        return true;
    }
    match (g.expr(a), g.expr(b)) {
        (ExprData::Ref(x), ExprData::Ref(y)) => x == y,
        (ExprData::Access(m1, i1), ExprData::Access(m2, i2)) => {
            same_reference(g, m1, m2) && same_reference(g, i1, i2)
        }
        _ => false,
    }
}

/// Calls `f` on every name in reference position in `e`.
pub(crate) fn names_of(g: &Game, e: ExprId, f: &mut impl FnMut(Symbol)) {
    match g.expr(e) {
        ExprData::Ref(s) => f(s),
        ExprData::Cast(_, inner) => names_of(g, inner, f),
        ExprData::Access(m, i) => {
            names_of(g, m, f);
            names_of(g, i, f);
        }
    }
}

/// `reads(L)`: the names label `L` reads (both sides of a comparison, the right side and the
/// index parts of the left side of an assignment), with the fix that `$$ v` reads `v`.
pub(crate) fn reads(g: &Game, label: &Label, f: &mut impl FnMut(Symbol)) {
    match *label {
        Label::Assign { lhs, rhs } => {
            if matches!(g.expr(g.strip_casts(lhs)), ExprData::Access(..)) {
                names_of(g, lhs, f);
            }
            names_of(g, rhs, f);
        }
        Label::AssignAny { lhs, .. } => {
            // The keys of a cell assignment are read (the reference counts nothing here).
            if let ExprData::Access(..) = g.expr(g.strip_casts(lhs)) {
                names_of(g, lhs, f);
            }
        }
        Label::Compare { lhs, rhs, .. } => {
            names_of(g, lhs, f);
            names_of(g, rhs, f);
        }
        Label::TagVar(v) => f(v),
        Label::Reach { .. } | Label::Skip | Label::Tag(_) => {}
    }
}

/// The assigned variable of an assignment or any-assignment.
pub(crate) fn assigned(g: &Game, label: &Label) -> Option<Symbol> {
    match *label {
        Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => Some(g.expr_root(lhs)),
        _ => None,
    }
}

/// Nodes that are the start or end of some reachability check.
pub(crate) fn check_nodes(g: &Game) -> NodeMap<bool> {
    let mut out = NodeMap::from_elem(false, g.node_capacity());
    for (_, e) in g.edges() {
        if let Label::Reach { from, to, .. } = e.label {
            out[from] = true;
            out[to] = true;
        }
    }
    out
}

/// Nodes that can ever be visited: from `begin`, and (with `checks`) from the start of every
/// check whose edge's source can be visited (a search runs a check's sub-automaton from there).
/// The tags that `@artificialTag` pragmas declare.
pub(crate) fn artificial_tags(g: &Game) -> HashSet<Symbol> {
    g.pragmas
        .iter()
        .filter_map(|p| match &p.kind {
            PragmaKind::ArtificialTag(ts) => Some(ts.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect()
}

pub(crate) fn reachable_nodes(g: &Game, checks: bool) -> NodeMap<bool> {
    let mut seen = NodeMap::from_elem(false, g.node_capacity());
    let Some(begin) = g.begin() else { return seen };
    let mut stack = vec![begin];
    seen[begin] = true;
    while let Some(n) = stack.pop() {
        for &e in g.outgoing(n) {
            let d = g.edge(e);
            let mut visit = |m: NodeId, stack: &mut Vec<NodeId>| {
                if !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            };
            visit(d.to, &mut stack);
            if checks && let Label::Reach { from, .. } = d.label {
                visit(from, &mut stack);
            }
        }
    }
    seen
}

/// Whether an edge into `end` can be reached from `begin` over the edges other than `without`
/// (labels ignored): what the validators require of every game, so a pass
/// that deletes edges it proved never walkable keeps them when the game would lose its `end`.
pub(crate) fn end_reachable_without(g: &Game, without: &[EdgeId]) -> bool {
    let (Some(begin), Some(end)) = (g.begin(), g.end()) else {
        return false;
    };
    let mut seen = NodeMap::from_elem(false, g.node_capacity());
    seen[begin] = true;
    let mut stack = vec![begin];
    while let Some(n) = stack.pop() {
        for &e in g.outgoing(n) {
            let to = g.edge(e).to;
            if without.contains(&e) || seen[to] {
                continue;
            }
            if to == end {
                return true;
            }
            seen[to] = true;
            stack.push(to);
        }
    }
    false
}

/// Live edges in edge-list order.
pub(crate) fn edge_ids(g: &Game) -> Vec<EdgeId> {
    g.edges().map(|(id, _)| id).collect()
}

/// Whether a label type checks in `env` (both sides resolve and the right side is assignable
/// to, or for comparisons comparable with, the left); used by passes that build new labels to
/// keep every rewrite well typed.
pub(crate) fn label_well_typed(env: &rg_core::typeck::TypeEnv<'_>, label: &Label) -> bool {
    use rg_core::typeck::Ty;
    let ok = |l: Ty, r: Ty| env.assignable(l, r, false).unwrap_or(false);
    match *label {
        Label::Assign { lhs, rhs } => match (env.infer(lhs), env.infer(rhs)) {
            (Ok(l), Ok(r)) => ok(l, r),
            _ => false,
        },
        Label::AssignAny { lhs, ty } => match env.infer(lhs) {
            Ok(l) => env.assignable(l, Ty::Id(ty), true).unwrap_or(false),
            Err(_) => false,
        },
        Label::Compare { lhs, rhs, .. } => match (env.infer(lhs), env.infer(rhs)) {
            (Ok(l), Ok(r)) => ok(l, r) || ok(r, l),
            _ => false,
        },
        Label::Reach { .. } | Label::Skip | Label::Tag(_) | Label::TagVar(_) => true,
    }
}

/// The negation of a conditional label (`==` ↔ `!=`, `?` ↔ `!`); `None` for other labels.
pub(crate) fn negate(label: &Label) -> Option<Label> {
    match *label {
        Label::Compare { lhs, rhs, negated } => Some(Label::Compare {
            lhs,
            rhs,
            negated: !negated,
        }),
        Label::Reach { from, to, negated } => Some(Label::Reach {
            from,
            to,
            negated: !negated,
        }),
        _ => None,
    }
}

/// Whether two labels are negations of each other: comparisons with the same
/// sides (also swapped: equality is symmetric) and opposite operators, or checks with the same
/// nodes and opposite polarity.
pub(crate) fn negation_pair(a: &Label, b: &Label) -> bool {
    match (*a, negate(b)) {
        (
            Label::Compare { lhs, rhs, negated },
            Some(Label::Compare {
                lhs: l2,
                rhs: r2,
                negated: n2,
            }),
        ) => negated == n2 && ((lhs, rhs) == (l2, r2) || (lhs, rhs) == (r2, l2)),
        (a, Some(nb)) => a == nb,
        _ => false,
    }
}

/// Edges as (source, target, label), to be added.
pub(crate) type NewEdges = Vec<(NodeId, NodeId, Label)>;

/// Replaces edges in place: `f` gives, for an edge, the edges (source, target, label) that
/// take its position in the edge list, or `None` to keep it. Edges after the first replaced one
/// are re-added in order (edge ids change); returns whether anything was replaced.
pub(crate) fn replace_edges(
    g: &mut Game,
    mut f: impl FnMut(&mut Game, EdgeId) -> Option<NewEdges>,
) -> bool {
    let ids = edge_ids(g);
    let mut replaced: Vec<(EdgeId, NewEdges)> = Vec::new();
    for &e in &ids {
        if let Some(new) = f(g, e) {
            replaced.push((e, new));
        }
    }
    let Some(&(first, _)) = replaced.first() else {
        return false;
    };
    let mut replaced = replaced.into_iter().peekable();
    for &e in ids.iter().skip_while(|&&e| e != first) {
        let d = g.edge(e).clone();
        g.remove_edge(e);
        match replaced.next_if(|(r, _)| *r == e) {
            Some((_, new)) => {
                for (from, to, label) in new {
                    g.add_edge_spanned(from, to, label, rg_core::Spans::whole(d.spans.whole));
                }
            }
            None => {
                g.add_edge_spanned(d.from, d.to, d.label, d.spans);
            }
        }
    }
    true
}

/// Whether `s`, written as a bare name in an expression, denotes the symbol itself (no
/// variable or constant of that name shadows it).
pub(crate) fn is_plain_symbol(g: &Game, s: Symbol) -> bool {
    g.variable(s).is_none() && g.constant(s).is_none()
}

/// The single symbol an expression always evaluates to: a literal symbol or an element constant.
pub(crate) fn literal_symbol(g: &Game, e: ExprId) -> Option<Symbol> {
    let ExprData::Ref(s) = g.expr(g.strip_casts(e)) else {
        return None;
    };
    if g.variable(s).is_some() {
        return None;
    }
    match g.constant(s) {
        Some(c) => match g.value(c.value) {
            ValueData::Element(v) if g.constant(*v).is_none() => Some(*v),
            _ => None,
        },
        None => Some(s),
    }
}

/// Every variable's position in `Game::variables` (the first declaration of a name).
pub(crate) fn variable_positions(g: &Game) -> std::collections::HashMap<Symbol, usize> {
    g.variables
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (v.name, i))
        .collect()
}

/// Whether the label assigns `player` (and so ends a move: the interpreter's search for a
/// move stops at such an edge).
pub(crate) fn assigns_player(g: &Game, label: &Label) -> bool {
    let player = g.well_known().player;
    matches!(*label, Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
        if g.expr(g.strip_casts(lhs)) == ExprData::Ref(player))
}

/// The reference's total order of expressions: access < cast < reference, then by fields;
/// names byte-wise.
pub(crate) fn cmp_expr(g: &Game, a: ExprId, b: ExprId) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if a == b {
        return Ordering::Equal;
    }
    let rank = |e: &ExprData| match e {
        ExprData::Access(..) => 0,
        ExprData::Cast(..) => 1,
        ExprData::Ref(_) => 2,
    };
    let (x, y) = (g.expr(a), g.expr(b));
    rank(&x).cmp(&rank(&y)).then_with(|| match (x, y) {
        (ExprData::Access(m1, i1), ExprData::Access(m2, i2)) => {
            cmp_expr(g, m1, m2).then_with(|| cmp_expr(g, i1, i2))
        }
        (ExprData::Cast(t1, e1), ExprData::Cast(t2, e2)) => {
            cmp_type(g, t1, t2).then_with(|| cmp_expr(g, e1, e2))
        }
        (ExprData::Ref(s1), ExprData::Ref(s2)) => g.name(s1).cmp(g.name(s2)),
        _ => Ordering::Equal,
    })
}

/// The reference's total order of types: arrow < set < type name.
pub(crate) fn cmp_type(g: &Game, a: TypeId, b: TypeId) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if a == b {
        return Ordering::Equal;
    }
    let rank = |t: &TypeData| match t {
        TypeData::Arrow(..) => 0,
        TypeData::Set(_) => 1,
        TypeData::Name(_) => 2,
    };
    let (x, y) = (g.ty(a), g.ty(b));
    rank(x).cmp(&rank(y)).then_with(|| match (x, y) {
        (TypeData::Arrow(l1, r1), TypeData::Arrow(l2, r2)) => {
            cmp_type(g, *l1, *l2).then_with(|| cmp_type(g, *r1, *r2))
        }
        (TypeData::Set(m1), TypeData::Set(m2)) => m1
            .iter()
            .map(|s| g.name(*s))
            .cmp(m2.iter().map(|s| g.name(*s))),
        (TypeData::Name(n1), TypeData::Name(n2)) => g.name(*n1).cmp(g.name(*n2)),
        _ => Ordering::Equal,
    })
}

/// The reference's total order of labels: by kind (assignment < any-assignment < comparison <
/// reachability < skip < tag < tag variable), then by fields.
pub(crate) fn cmp_label(g: &Game, a: &Label, b: &Label) -> std::cmp::Ordering {
    let rank = |l: &Label| match l {
        Label::Assign { .. } => 0,
        Label::AssignAny { .. } => 1,
        Label::Compare { .. } => 2,
        Label::Reach { .. } => 3,
        Label::Skip => 4,
        Label::Tag(_) => 5,
        Label::TagVar(_) => 6,
    };
    let node = |n: NodeId| g.node_name(n).as_bytes();
    rank(a).cmp(&rank(b)).then_with(|| match (*a, *b) {
        (Label::Assign { lhs: l1, rhs: r1 }, Label::Assign { lhs: l2, rhs: r2 }) => {
            cmp_expr(g, l1, l2).then_with(|| cmp_expr(g, r1, r2))
        }
        (Label::AssignAny { lhs: l1, ty: t1 }, Label::AssignAny { lhs: l2, ty: t2 }) => {
            cmp_expr(g, l1, l2).then_with(|| cmp_type(g, t1, t2))
        }
        (
            Label::Compare {
                lhs: l1,
                rhs: r1,
                negated: n1,
            },
            Label::Compare {
                lhs: l2,
                rhs: r2,
                negated: n2,
            },
        ) => cmp_expr(g, l1, l2)
            .then_with(|| cmp_expr(g, r1, r2))
            .then(n1.cmp(&n2)),
        (
            Label::Reach {
                from: f1,
                to: t1,
                negated: n1,
            },
            Label::Reach {
                from: f2,
                to: t2,
                negated: n2,
            },
        ) => node(f1)
            .cmp(node(f2))
            .then_with(|| node(t1).cmp(node(t2)))
            .then(n1.cmp(&n2)),
        (Label::Tag(x), Label::Tag(y)) | (Label::TagVar(x), Label::TagVar(y)) => {
            g.name(x).cmp(g.name(y))
        }
        _ => std::cmp::Ordering::Equal,
    })
}

/// Fresh node names (names no node has, so new nodes never merge with old ones): decimal numbers
/// above the largest node name that parses as an unsigned integer, skipping names that exist.
pub(crate) struct FreshNodes {
    last: u64,
}

impl FreshNodes {
    pub(crate) fn new(g: &Game) -> Self {
        let last = g
            .nodes()
            .iter()
            .filter_map(|(n, _)| g.node_name(n).parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        FreshNodes { last }
    }

    /// Fresh names above `last`, the largest node name that parses as an unsigned integer
    /// ([`crate::PassContext::fresh_nodes`] keeps it between passes).
    pub(crate) fn above(last: u64) -> Self {
        FreshNodes { last }
    }

    /// A node that did not exist before.
    pub(crate) fn node(&mut self, g: &mut Game) -> NodeId {
        loop {
            self.last += 1;
            let name = self.last.to_string();
            if g.find_sym(&name).and_then(|s| g.find_node(s)).is_none() {
                return g.node_named(&name);
            }
        }
    }
}

/// The members of the set type `t` resolves to (`None` for an arrow or an unresolvable type).
pub(crate) fn set_members(g: &Game, t: TypeId) -> Option<Vec<Symbol>> {
    let env = rg_core::typeck::TypeEnv::new(g);
    match env.resolve(t) {
        Ok(rg_core::typeck::Resolved::Set(ms)) => Some(ms.as_slice().to_vec()),
        _ => None,
    }
}

/// Fast hashing for the hot maps of the passes; no output depends on their order.
pub(crate) use rustc_hash::{FxHashMap, FxHashSet};

/// Sorts `nodes` by name (bytewise), fetching each name once. Node names are unique, so equal
/// names are the same node and the order is that of a stable sort.
pub(crate) fn sort_by_name(g: &Game, nodes: &mut [NodeId]) {
    let mut named: Vec<(&str, NodeId)> = nodes.iter().map(|&n| (g.node_name(n), n)).collect();
    named.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (slot, (_, n)) in nodes.iter_mut().zip(named) {
        *slot = n;
    }
}

/// The strongly connected component of every vertex of the graph given by successor lists (the
/// numbers are arbitrary but deterministic). Tarjan's algorithm with an explicit stack: a
/// recursive search overflows the thread's stack on long chains (a game of 100 000 edges in a
/// row), and petgraph's `tarjan_scc` recurses.
pub(crate) fn strongly_connected_components(succ: &[Vec<u32>]) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    // The search path: a vertex and how many of its successors it has looked at.
    let mut path: Vec<(u32, usize)> = Vec::new();
    let (mut next_index, mut next_component) = (0u32, 0u32);
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        path.push((root, 0));
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = path.last_mut() {
            let vs = v as usize;
            if let Some(&w) = succ[vs].get(*i) {
                *i += 1;
                let ws = w as usize;
                if index[ws] == UNSEEN {
                    index[ws] = next_index;
                    low[ws] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[ws] = true;
                    path.push((w, 0));
                } else if on_stack[ws] {
                    low[vs] = low[vs].min(index[ws]);
                }
                continue;
            }
            path.pop();
            if let Some(&(u, _)) = path.last() {
                low[u as usize] = low[u as usize].min(low[vs]);
            }
            if low[vs] == index[vs] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = next_component;
                    if w == v {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// Empties a hash map that is reused per node. Clearing costs the map's capacity, so a map
/// grown for one node of large degree is dropped rather than cleared again for every later
/// node (which made passes quadratic on games with a hub node, amazons.kif).
pub(crate) fn reset_map<K, V, S: Default>(m: &mut std::collections::HashMap<K, V, S>) {
    if m.capacity() > 2 * m.len() + 64 {
        *m = std::collections::HashMap::default();
    } else {
        m.clear();
    }
}

/// [`reset_map`] for a hash set.
pub(crate) fn reset_set<T, S: Default>(s: &mut HashSet<T, S>) {
    if s.capacity() > 2 * s.len() + 64 {
        *s = HashSet::default();
    } else {
        s.clear();
    }
}

#[cfg(test)]
mod scc_tests {
    use super::strongly_connected_components;

    #[test]
    fn components_of_cycles_and_chains() {
        // 0 → 1 → 2 → 0 is a cycle, 2 → 3 → 4 a chain, 4 → 4 a self-loop.
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![4]];
        let c = strongly_connected_components(&succ);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[2] != c[3] && c[3] != c[4]);
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let n = 1_000_000u32;
        let mut succ: Vec<Vec<u32>> = (0..n).map(|i| vec![i + 1]).collect();
        succ.push(vec![0]); // closes one big cycle
        let c = strongly_connected_components(&succ);
        assert!(c.iter().all(|&x| x == c[0]));
    }
}
