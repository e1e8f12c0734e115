//! `inline_assignment`: replace reads of a variable by the expression last assigned
//! to it, so that the assignment disappears, and remove dead stores.
//!
//! The def-use chains come from one solve of ReachingDefinitions as sets
//! (`analysis::definitions`) instead of one forward search per definition (the reference's
//! O(A · E)). A *usage* of a definition `d = (x → y: v = r)` is an edge `f` that reads `v`
//! (`reads`, counting `$$ v` and the cells and keys of a left side) where `d` may
//! reach `f`'s source. `d` is inlined when, for every usage `f`:
//!
//! - `d` is the only definition of `v` that reaches `f` (no walk reaches `f` with another
//!   value of `v`, the initial one included);
//! - every other variable `w` read by `r` has a single definition reaching `x`, and the same
//!   single definition reaches `f` — so `r` evaluates at `f` to what it evaluated to at `d`
//!   (a redefinition of `w` between them would add a definition at `f`, and a loop that
//!   re-executes that definition would reach `x` through it too);
//! - if `r` reads `v` itself, `d` does not reach its own source `x` (otherwise `v` at `x`
//!   depends on `d`, which is removed);
//! - `f` is neither `$$ v` (a tag variable cannot take an expression) nor an assignment to a
//!   cell of `v` (it would update the value `d` no longer stores: the reference's defect D4).
//!
//! Then `d` becomes a skip and every usage reads `r` (cast to `v`'s type name when the types
//! differ) instead of `v`. A definition with no usage is a dead store and becomes a skip, for
//! any kind of assignment (whole, cell, or `T(*)`), except assignments to `player` and
//! `visible`, and to `goals` when the definition may reach `end` (the outcome reads it). One run
//! inlines a definition only if neither it nor its usages were touched by an earlier definition
//! of the same run, and a rewritten label that would not type check cancels its definition.
//!
//! A plain store (whole or cell) also stays, inlinable or dead, when the variable may differ
//! before it between walks of one move with the same tags and a move can end after it before
//! the variable is assigned again (`analysis::walk_dependent`): the store is what makes those
//! walks end in one state, and the reference's pass, which drops it, splits one move into many.
//!
//! Why the game tree is kept: every usage reads the value `d` would have stored, and nothing
//! else observes that variable where `d`'s value reaches; a dead store only changes a value no
//! walk reads (walks differing only in it are merged by the interpreter's visited check, so no
//! move is lost or added), and the rule above keeps the stores that end such differences.
//!
//! Complexity: one solve, O(E · V · CAP) (see `analysis::definitions`), then O(E · R · CAP) to
//! build the chains for R names read per label, and O(U · R) to decide, U usages in total.

use super::meta;
use crate::analysis::definitions::{Def, Defs, ReachingDefinitions, Solution, solve_sets};
use crate::analysis::values::Values;
use crate::analysis::walk_dependent::{WalkDependent, walk_dependent};
use crate::util::NodeMap;
use crate::util::{assigns_player, edge_ids, label_well_typed, reads};
use crate::{Pass, PassContext, PassError};
use rg_core::typeck::{Ty, TypeEnv};
use rg_core::{EdgeId, EntityId, ExprData, ExprId, Game, Label, NodeId, Symbol, TypeData};
use std::collections::{HashMap, HashSet};

/// Replaces variables by the expression last assigned to them; removes dead stores.
#[derive(Debug)]
pub(crate) struct InlineAssignment;

/// The distinct names a label reads.
fn read_names(g: &Game, label: &Label) -> Vec<Symbol> {
    let mut out = Vec::new();
    reads(g, label, &mut |s| {
        if !out.contains(&s) {
            out.push(s);
        }
    });
    out
}

/// Whether `label` assigns a cell of `v` (plain or any).
fn assigns_cell_of(g: &Game, label: &Label, v: Symbol) -> bool {
    matches!(*label, Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
        if g.expr_root(lhs) == v && matches!(g.expr(g.strip_casts(lhs)), ExprData::Access(..)))
}

/// `e` with every reference to `v` replaced by `r`.
pub(crate) fn substitute(g: &mut Game, e: ExprId, v: Symbol, r: ExprId) -> ExprId {
    match g.expr(e) {
        ExprData::Ref(s) if s == v => r,
        ExprData::Ref(_) => e,
        ExprData::Cast(t, x) => {
            let x = substitute(g, x, v, r);
            g.expr_cast(t, x)
        }
        ExprData::Access(m, i) => {
            let m = substitute(g, m, v, r);
            let i = substitute(g, i, v, r);
            g.expr_access(m, i)
        }
    }
}

/// A left side with `v` replaced in its index parts only (the assigned cell keeps its root).
fn substitute_lhs(g: &mut Game, e: ExprId, v: Symbol, r: ExprId) -> ExprId {
    match g.expr(e) {
        ExprData::Ref(_) => e,
        ExprData::Cast(t, x) => {
            let x = substitute_lhs(g, x, v, r);
            g.expr_cast(t, x)
        }
        ExprData::Access(m, i) => {
            let m = substitute_lhs(g, m, v, r);
            let i = substitute(g, i, v, r);
            g.expr_access(m, i)
        }
    }
}

/// The label of usage `f` reading `r` instead of `v`.
fn substitute_label(g: &mut Game, label: Label, v: Symbol, r: ExprId) -> Label {
    match label {
        Label::Assign { lhs, rhs } => Label::Assign {
            lhs: substitute_lhs(g, lhs, v, r),
            rhs: substitute(g, rhs, v, r),
        },
        Label::AssignAny { lhs, ty } => Label::AssignAny {
            lhs: substitute_lhs(g, lhs, v, r),
            ty,
        },
        Label::Compare { lhs, rhs, negated } => Label::Compare {
            lhs: substitute(g, lhs, v, r),
            rhs: substitute(g, rhs, v, r),
            negated,
        },
        other => other,
    }
}

/// What one run decided.
#[derive(Default)]
struct Plan {
    /// Definitions that become skips, with the variable and replacement of inlined ones.
    defs: Vec<(EdgeId, Option<(Symbol, ExprId)>)>,
    /// The usages of each inlined definition.
    usages: HashMap<EdgeId, Vec<EdgeId>>,
}

struct Chains {
    /// Reaching definitions at each node.
    at: Solution,
    rd: ReachingDefinitions,
    /// The usages each definition may reach.
    uses: HashMap<EdgeId, Vec<EdgeId>>,
    /// Variables with a usage reached by unknown definitions.
    blocked: HashSet<Symbol>,
    /// Definitions of `goals` that may reach `end`.
    observed_at_end: HashSet<EdgeId>,
    /// The variables each edge reads, by edge index.
    reads: Vec<Vec<Symbol>>,
}

/// The solve keeps one definition set per tracked variable at every node. Beyond this many
/// (node, variable) slots the pass does not run: a 650k-edge GDL translation with 1464
/// variables (racer.kif) needed 21 GB and minutes. The corpus's RBG and HRG games stay far
/// below it.
const SLOT_BUDGET: usize = 4_000_000;

impl Chains {
    /// `None` when the game is too large for the solve (see [`SLOT_BUDGET`]).
    fn new(g: &Game, values: &Values) -> Option<Self> {
        let rd = ReachingDefinitions::new(g, values);
        if g.node_capacity().saturating_mul(rd.len()) > SLOT_BUDGET {
            return None;
        }
        let at = solve_sets(g, &rd);
        let mut uses: HashMap<EdgeId, Vec<EdgeId>> = HashMap::new();
        let mut blocked = HashSet::new();
        let mut edge_reads = vec![Vec::new(); g.edge_entries().len()];
        for (f, d) in g.edges() {
            edge_reads[f.index()] = read_names(g, &d.label);
            if !at.reached(d.from) {
                continue;
            }
            for &v in &edge_reads[f.index()] {
                let Some(slot) = rd.slot(v) else { continue };
                let Some(defs) = at.defs(d.from, slot) else {
                    continue;
                };
                match defs.items() {
                    None => {
                        blocked.insert(v);
                    }
                    Some(defs) => {
                        for e in defs.iter().filter_map(|d| d.as_edge()) {
                            uses.entry(e).or_default().push(f);
                        }
                    }
                }
            }
        }
        let goals = g.well_known().goals;
        let mut observed_at_end = HashSet::new();
        if let (Some(end), Some(slot)) = (g.end(), rd.slot(goals))
            && let Some(defs) = at.defs(end, slot)
        {
            match defs.items() {
                None => {
                    blocked.insert(goals);
                }
                Some(defs) => observed_at_end.extend(defs.iter().filter_map(|d| d.as_edge())),
            }
        }
        Some(Chains {
            at,
            rd,
            uses,
            blocked,
            observed_at_end,
            reads: edge_reads,
        })
    }

    fn defs_at(&self, g: &Game, e: EdgeId, v: Symbol) -> Option<Defs> {
        self.at.defs(g.edge(e).from, self.rd.slot(v)?)
    }
}

/// Whether definition `d` (assigning `v = r`) may replace `v` by `r` at every usage.
/// Edges the searches of one run may visit in total.
const SEARCH_BUDGET: usize = 1_000_000;

/// Forward searches over the automaton, sharing one budget and one visited buffer.
struct Searcher {
    /// Edges the searches may still visit.
    budget: usize,
    /// Per node: the number of the search that last reached it.
    stamp: NodeMap<u32>,
    search: u32,
}

impl Searcher {
    fn new(g: &Game) -> Self {
        Searcher {
            budget: SEARCH_BUDGET,
            stamp: NodeMap::from_elem(0, g.node_capacity()),
            search: 0,
        }
    }

    /// Marks the nodes the value stored by `d` (assigning `v`) may reach: a search from its
    /// target over edges that do not assign `v`, also entering check subautomata. `on_edge`
    /// sees every edge leaving a reached node. `false` when the budget runs out.
    fn run(&mut self, g: &Game, d: EdgeId, v: Symbol, mut on_edge: impl FnMut(EdgeId)) -> bool {
        self.search += 1;
        let y = g.edge(d).to;
        let mut stack = vec![y];
        self.stamp[y] = self.search;
        while let Some(n) = stack.pop() {
            for &f in g.outgoing(n) {
                let Some(left) = self.budget.checked_sub(1) else {
                    return false;
                };
                self.budget = left;
                on_edge(f);
                let e = g.edge(f);
                let next = match e.label {
                    Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
                        if g.expr_root(lhs) == v =>
                    {
                        continue;
                    }
                    Label::Reach { from, .. } => [Some(e.to), Some(from)],
                    _ => [Some(e.to), None],
                };
                for m in next.into_iter().flatten() {
                    if self.stamp[m] != self.search {
                        self.stamp[m] = self.search;
                        stack.push(m);
                    }
                }
            }
        }
        true
    }

    /// Whether node `n` was reached by the last search.
    fn reached(&self, n: NodeId) -> bool {
        self.stamp[n] == self.search
    }

    /// Whether the value stored by `d` may reach `d`'s own source (`None`: budget exhausted).
    fn reaches_own_source(&mut self, g: &Game, d: EdgeId, v: Symbol) -> Option<bool> {
        self.run(g, d, v, |_| {})
            .then(|| self.reached(g.edge(d).from))
    }

    /// The usages of `d` found by a search (for variables whose chains are incomplete), and
    /// whether its value may reach `end`.
    fn usages(
        &mut self,
        g: &Game,
        ch: &Chains,
        d: EdgeId,
        v: Symbol,
    ) -> Option<(Vec<EdgeId>, bool)> {
        let mut usages = Vec::new();
        let complete = self.run(g, d, v, |f| {
            if ch.reads[f.index()].contains(&v) {
                usages.push(f);
            }
        });
        complete.then(|| (usages, g.end().is_some_and(|e| self.reached(e))))
    }
}

fn inlinable(
    g: &Game,
    ch: &Chains,
    d: EdgeId,
    (v, r): (Symbol, ExprId),
    usages: &[EdgeId],
    search: &mut Searcher,
) -> bool {
    let mut r_reads = Vec::new();
    crate::util::names_of(g, r, &mut |s| {
        if ch.rd.slot(s).is_some() && !r_reads.contains(&s) {
            r_reads.push(s);
        }
    });
    // The definitions of the other variables of `r` at the definition point.
    let mut at_def = Vec::new();
    for &w in &r_reads {
        let Some(defs) = ch.defs_at(g, d, w) else {
            return false;
        };
        if w == v {
            let reaches = match defs.items() {
                Some(ds) => ds.contains(&Def::edge(d)),
                // Too many definitions to list: search.
                None => search.reaches_own_source(g, d, v).unwrap_or(true),
            };
            if reaches {
                return false;
            }
            continue;
        }
        let Some(single) = defs.single() else {
            return false;
        };
        at_def.push((w, single));
    }
    usages.iter().all(|&f| {
        let label = g.edge(f).label;
        !matches!(label, Label::TagVar(_))
            && !assigns_cell_of(g, &label, v)
            && ch.defs_at(g, f, v).and_then(|x| x.single()) == Some(Def::edge(d))
            && at_def
                .iter()
                .all(|&(w, def)| ch.defs_at(g, f, w).and_then(|x| x.single()) == Some(def))
    })
}

/// The nodes from which a walk can end a move (assign `player`) without assigning `v` as a whole
/// first: one backward search.
fn nodes_reaching_a_move_end(g: &Game, v: Symbol) -> NodeMap<bool> {
    let whole = |lhs: ExprId| g.expr(g.strip_casts(lhs)) == ExprData::Ref(v);
    let mut seen = NodeMap::from_elem(false, g.node_capacity());
    let mut stack = Vec::new();
    for (_, e) in g.edges() {
        if assigns_player(g, &e.label) && !seen[e.from] {
            seen[e.from] = true;
            stack.push(e.from);
        }
    }
    while let Some(n) = stack.pop() {
        for &f in g.incoming(n) {
            let e = g.edge(f);
            let redefines = matches!(e.label,
                Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } if whole(lhs));
            if !redefines && !seen[e.from] {
                seen[e.from] = true;
                stack.push(e.from);
            }
        }
    }
    seen
}

/// Whether removing the plain store `d` to `v` (dead or inlined) could leave two walks of a move
/// with the same tags in different states: `v` may differ between them before `d`, and a move can
/// end after `d` before `v` is assigned again as a whole (see `analysis::walk_dependent`).
fn store_merges_walks(
    g: &Game,
    wd: &WalkDependent,
    d: EdgeId,
    v: Symbol,
    move_end: &mut HashMap<Symbol, NodeMap<bool>>,
) -> bool {
    let e = g.edge(d);
    wd.may_differ(e.from, v)
        && move_end
            .entry(v)
            .or_insert_with(|| nodes_reaching_a_move_end(g, v))[e.to]
}

fn plan(g: &mut Game, ch: &Chains, cx: &mut PassContext) -> Plan {
    let mut search = Searcher::new(g);
    let wd = walk_dependent(g);
    let mut move_end: HashMap<Symbol, NodeMap<bool>> = HashMap::new();
    let wk = *g.well_known();
    let mut touched: HashSet<EdgeId> = HashSet::new();
    let mut out = Plan::default();
    for d in edge_ids(g) {
        let label = g.edge(d).label;
        let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = label else {
            continue;
        };
        let v = g.expr_root(lhs);
        if v == wk.player
            || v == wk.visible
            || ch.rd.slot(v).is_none()
            || (v == wk.goals && ch.observed_at_end.contains(&d))
            || !ch.at.reached(g.edge(d).from)
            || touched.contains(&d)
        {
            continue;
        }
        let mut usages = if ch.blocked.contains(&v) {
            // Some usage of `v` is reached by too many definitions to list: search.
            match search.usages(g, ch, d, v) {
                Some((_, true)) if v == wk.goals => continue,
                Some((usages, _)) => usages,
                None => continue,
            }
        } else {
            ch.uses.get(&d).cloned().unwrap_or_default()
        };
        usages.sort_unstable();
        usages.dedup();
        if matches!(label, Label::Assign { .. }) && store_merges_walks(g, &wd, d, v, &mut move_end)
        {
            continue;
        }
        if usages.is_empty() {
            touched.insert(d);
            out.defs.push((d, None));
            continue;
        }
        let Label::Assign { rhs, .. } = label else {
            continue;
        };
        if !matches!(g.expr(g.strip_casts(lhs)), ExprData::Ref(_))
            || usages.iter().any(|f| touched.contains(f))
            || !inlinable(g, ch, d, (v, rhs), &usages, &mut search)
        {
            continue;
        }
        let r = replacement(g, v, rhs);
        touched.insert(d);
        touched.extend(usages.iter().copied());
        out.defs.push((d, Some((v, r))));
        out.usages.insert(d, usages);
    }
    if search.budget == 0 {
        cx.warnings.push(format!(
            "inline_assignment: kept definitions whose usages were not searched within \
             {SEARCH_BUDGET} edges"
        ));
    }
    one_store_before_a_difference(g, &wd, &mut out);
    out
}

/// A plain store of `v` that goes although `v` may differ before it leans on the later stores of
/// `v` staying (every move end after it is behind one), and the other stores' verdicts lean on it
/// (they saw `v` made equal by it): when the plan drops such a store, it is the only definition
/// of `v` the plan drops (the first in edge order); the next run decides the others on the game
/// without it. (Both of `x3, x4: k = k2; x4, x5: k = k2` after an untagged loop went in one run,
/// each kept by the other, and a move split into one per value of `k`.)
fn one_store_before_a_difference(g: &Game, wd: &WalkDependent, plan: &mut Plan) {
    let mut chosen: HashMap<Symbol, EdgeId> = HashMap::new();
    for &(d, _) in &plan.defs {
        let e = g.edge(d);
        if let Label::Assign { lhs, .. } = e.label {
            let v = g.expr_root(lhs);
            if wd.may_differ(e.from, v) {
                chosen.entry(v).or_insert(d);
            }
        }
    }
    if chosen.is_empty() {
        return;
    }
    plan.defs.retain(|&(d, _)| {
        let (Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }) = g.edge(d).label else {
            return true;
        };
        chosen.get(&g.expr_root(lhs)).is_none_or(|&c| c == d)
    });
    let kept: HashSet<EdgeId> = plan.defs.iter().map(|&(d, _)| d).collect();
    plan.usages.retain(|d, _| kept.contains(d));
}

/// `r` as the value of `v`: cast to `v`'s type name when `r`'s type is not that type.
pub(crate) fn replacement(g: &mut Game, v: Symbol, r: ExprId) -> ExprId {
    let Some(var) = g.variable(v) else { return r };
    let ty = var.ty;
    let TypeData::Name(_) = g.ty(ty) else {
        return r;
    };
    let same = TypeEnv::new(g).infer(r).ok() == Some(Ty::Id(ty));
    if same { r } else { g.expr_cast(ty, r) }
}

impl Pass for InlineAssignment {
    meta!(
        "inline_assignment",
        "replace reads of a variable by the expression last assigned to it; remove dead stores",
        Safe,
        Loop,
        Expression
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let values = cx.values(g);
        let Some(chains) = Chains::new(g, &values) else {
            return Ok(false);
        };
        let plan = plan(g, &chains, cx);
        // Build every new label, then keep the definitions whose rewrites all type check.
        let mut rewrites: Vec<(EdgeId, Vec<(EdgeId, Label)>)> = Vec::new();
        for &(d, inline) in &plan.defs {
            let mut labels = vec![(d, Label::Skip)];
            if let Some((v, r)) = inline {
                for &f in &plan.usages[&d] {
                    let l = substitute_label(g, g.edge(f).label, v, r);
                    labels.push((f, l));
                }
            }
            rewrites.push((d, labels));
        }
        let env = TypeEnv::new(g);
        rewrites.retain(|(_, labels)| labels.iter().all(|(_, l)| label_well_typed(&env, l)));
        let mut changed = false;
        for (_, labels) in rewrites {
            for (e, l) in labels {
                changed |= g.edge(e).label != l;
                g.set_label(e, l);
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::test_game;

    fn run(text: &str) -> String {
        let mut g = test_game(text);
        InlineAssignment
            .run(&mut g, &mut PassContext::default())
            .expect("runs");
        rg_core::print(&g)
            .lines()
            .filter(|l| {
                !l.starts_with("type ") && !l.starts_with("const ") && !l.starts_with("var ")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    const PRELUDE: &str = "type T = {p, q, r};\n\
        const nxt: T -> T = {p: q, q: r, :p};\n\
        var v: T = p;\n\
        var w: T = p;\n";

    #[test]
    fn the_example_of_the_spec_in_one_run() {
        let out = run(&format!(
            "{PRELUDE}begin, a: w = nxt[v];\n\
             a, b: w != r;\n\
             b, c: $ go;\n\
             c, d: v = w;\n\
             d, end: player = keeper;"
        ));
        assert_eq!(
            out,
            "begin, a: ;\na, b: nxt[v] != r;\nb, c: $ go;\nc, d: v = nxt[v];\nd, end: player = keeper;"
        );
    }

    #[test]
    fn a_later_cell_assignment_stops_the_inlining() {
        // The reference's defect: it inlined across a redefinition.
        let out = run("type T = {p, q};\n\
             const c: T -> T = {:q};\n\
             var m: T -> T = {:p};\n\
             begin, a: m = c;\n\
             a, b: m[p] = p;\n\
             b, k: m[q] == q;\n\
             k, end: player = keeper;");
        assert!(
            out.starts_with("begin, a: m = c;\na, b: m[p] = p;\nb, k: m[q] == q;"),
            "{out}"
        );
    }

    #[test]
    fn a_definition_in_a_loop_that_reads_its_own_variable_stays() {
        let text = format!(
            "{PRELUDE}begin, l: ;\n\
             l, m: v = nxt[v];\n\
             m, l: v != r;\n\
             m, end: player = keeper;"
        );
        assert!(run(&text).contains("l, m: v = nxt[v];"));
    }

    #[test]
    fn a_store_that_merges_the_walks_of_an_untagged_loop_stays() {
        // The loop runs 0, 1 or 2 times on walks that all show `go`; `v = q` makes their states
        // one. Nothing reads `v` later, but without the store the move `go` would lead to three
        // states (the oracle of `testing::run` counts them).
        let text = format!(
            "{PRELUDE}begin, s: player = x;\n\
             s, l: ;\nl, m: v = nxt[v];\nm, l: ;\nl, t: $ go;\n\
             t, u: v = q;\nu, end: player = keeper;\n"
        );
        let (_, after, _, _) = crate::testing::run(&InlineAssignment, &text);
        assert!(
            crate::testing::edges(&after).contains(&"t, u: v = q;".into()),
            "{}",
            rg_core::print(&after)
        );
        // Shown by the tag, `v` tells the walks apart: the store is dead and goes.
        let text = text.replace("l, t: $ go;", "l, t: $$ v;");
        let (_, after, changed, _) = crate::testing::run(&InlineAssignment, &text);
        assert!(changed);
        assert!(crate::testing::edges(&after).contains(&"t, u: ;".into()));
    }

    #[test]
    fn a_redefinition_between_definition_and_usage_stops_the_inlining() {
        let text = format!(
            "{PRELUDE}begin, a: v = nxt[w];\n\
             a, b: w = T(*);\n\
             b, c: v == q;\n\
             c, end: player = keeper;"
        );
        let out = run(&text);
        assert!(out.contains("begin, a: v = nxt[w];"), "{out}");
        assert!(out.contains("b, c: v == q;"), "{out}");
    }

    #[test]
    fn goals_written_on_the_way_to_end_are_kept_and_a_tag_variable_blocks() {
        let text = "type Score = {0, 1};\n\
             type T = {p, q};\n\
             var v: T = p;\n\
             begin, a: goals[x] = 1;\n\
             a, b: v = T(q);\n\
             b, c: $$ v;\n\
             c, end: player = keeper;";
        let out = run(text);
        assert!(out.contains("begin, a: goals[x] = 1;"), "{out}");
        assert!(out.contains("a, b: v = T(q);"), "{out}");
    }

    #[test]
    fn a_usage_reached_also_by_the_initial_value_stops_the_inlining() {
        let text = format!(
            "{PRELUDE}begin, a: ;\n\
             begin, a: v = q;\n\
             a, b: v == q;\n\
             b, end: player = keeper;"
        );
        assert!(run(&text).contains("begin, a: v = q;"));
    }
}
