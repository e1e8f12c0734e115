//! Shared vocabulary of the passes (passes.md §1.2).

use rg_core::{EdgeId, ExprData, ExprId, Game, Label, NodeId, Symbol};

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

/// `reads(L)` (passes.md §1.2), with the fix that `$$ v` reads `v`.
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
pub(crate) fn check_nodes(g: &Game) -> Vec<bool> {
    let mut out = vec![false; g.node_capacity()];
    for (_, e) in g.edges() {
        if let Label::Reach { from, to, .. } = e.label {
            out[from.0 as usize] = true;
            out[to.0 as usize] = true;
        }
    }
    out
}

/// Nodes that can ever be visited: from `begin`, and (with `checks`) from the start of every
/// check whose edge's source can be visited (passes.md §2.5).
pub(crate) fn reachable_nodes(g: &Game, checks: bool) -> Vec<bool> {
    let mut seen = vec![false; g.node_capacity()];
    let Some(begin) = g.begin() else { return seen };
    let mut stack = vec![begin];
    seen[begin.0 as usize] = true;
    while let Some(n) = stack.pop() {
        for &e in g.outgoing(n) {
            let d = g.edge(e);
            let mut visit = |m: NodeId, stack: &mut Vec<NodeId>| {
                if !seen[m.0 as usize] {
                    seen[m.0 as usize] = true;
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

/// Live edges in edge-list order.
pub(crate) fn edge_ids(g: &Game) -> Vec<EdgeId> {
    g.edges().map(|(id, _)| id).collect()
}

/// Whether a label type checks (rg.md §7.4) in `env`; used by passes that build new labels to
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

/// A parsed game with the built-ins added (`type Player = {x}; type Score = {0};` are prepended
/// unless the text declares them), for unit tests.
#[cfg(test)]
pub(crate) fn test_game(text: &str) -> Game {
    let mut src = String::new();
    if !text.contains("type Player") {
        src.push_str("type Player = {x};\n");
    }
    if !text.contains("type Score") {
        src.push_str("type Score = {0};\n");
    }
    src.push_str(text);
    let mut g = rg_core::parse(rg_core::FileId(0), &src).expect("test game parses");
    rg_core::builtins::add_builtins(&mut g).expect("test game has valid built-ins");
    g
}
