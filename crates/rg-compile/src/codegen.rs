//! The C++ of one game: state accessors, one function per node and search kind, the API.
//!
//! **Move search** (the interpreter's depth-first search for legal moves). The interpreter expands
//! a state by scanning its node's edges in edge-list order, pushing finished moves (assignments to
//! `player`) on a result stack and every other successor on a pending stack; results are output
//! before the next pending state is expanded, both last in, first out. A recursive search produces
//! the same order when each node function first emits its finished moves in reverse edge order,
//! then continues into the other successors in reverse edge order (any-assignments in reverse
//! member order), checking the visited set on entry — which is when the interpreter pops. Every
//! condition of a node only reads the state the node was entered with, which the search restores
//! after each successor (assignments are undone in place), so evaluating it late gives the same
//! answer. At a node with a covering `@disjoint` only the first edge, in edge-list order, whose
//! action succeeds is taken; with `@disjointExhaustive` the last edge's condition is not even
//! tested.
//!
//! **Reachability checks** (`? a -> b`: a search from `a` reaches `b`) are searches of their
//! own (a fresh visited set, tags collected from the check on) that return at the first arrival
//! at the target; the order does not change their answer, so edges are tried in edge-list order.
//! Functions exist only for nodes from which the target can be reached: an edge into any other
//! node is skipped, except at a disjoint node, where it still ends the scan. Within one expansion
//! each `(a, b)` pair is evaluated at most once, as in the interpreter, and every check is guarded
//! against being entered again while it runs (the interpreter's error for a check that needs
//! itself).

use crate::error::CompileError;
use crate::expr::{ExprGen, Operand, Src};
use crate::layout::{Layout, RtVal, Shape};
use crate::search::{SearchPlan, Visit, assigns_player};
use crate::visits::{Check, Collide, KindChecks, Visits};
use rg_core::{EdgeId, EntityId, Game, Label, NodeId, Span, Symbol};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

/// How the continuation after an edge is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A move search: continue with `M<t>(c);`.
    Moves,
    /// A reachability search towards `b`: `r = R<b>_<t>(c);`, leaving loops when it holds.
    Reach(NodeId),
    /// Applying a move given by its tags: a move search that follows only walks whose tags are
    /// a prefix of the move's and stops, leaving the state as the move's, at the first one.
    Apply,
}

pub(crate) struct Gen<'a> {
    game: &'a Game,
    layout: &'a Layout,
    plan: &'a SearchPlan,
    visits: &'a Visits,
    ex: ExprGen<'a>,
    /// Distinct `(a, b)` pairs of checks with `a != b`, numbered.
    pairs: BTreeMap<(NodeId, NodeId), usize>,
    /// Check edges, numbered (for the recursion guard).
    check_edges: BTreeMap<EdgeId, usize>,
    /// `(node, (a, b))` where more than one edge of the node checks `? a -> b`: only there is
    /// the answer kept in a local (`rc<k>`) so that the node's expansion evaluates it once.
    shared_checks: std::collections::HashSet<(NodeId, (NodeId, NodeId))>,
    /// Per check target `b`, the nodes `a` of its checks `? a -> b` (where its searches start).
    check_starts: HashMap<NodeId, Vec<NodeId>>,
    /// Static arrays the functions refer to.
    statics: String,
    n_statics: usize,
    /// Static arrays already written, by content.
    static_ids: HashMap<String, String>,
    dynamic_visibility: bool,
    /// Check targets whose searches can nest.
    self_nesting: BTreeSet<NodeId>,
    /// Per search kind (`None`: move searches, else the check target), the nodes whose loop
    /// check is left out: see [`Gen::dropped_loops`].
    /// With `true`: the move-search nodes whose check an apply walk that takes the first move
    /// (`c.first_only`) leaves out as well.
    dropped_loops: HashMap<(Option<NodeId>, bool), std::collections::HashSet<usize>>,
    /// The scalar variable node functions also take as their argument `x` (its value in
    /// `c.s`, which stays up to date): the one the most edges assign (a board game's
    /// cursor), whose reads then need no load through the state just stored.
    hot: Option<usize>,
    /// Nodes where a listing may leave a move pending ([`crate::defer`]).
    deferred: Vec<bool>,
    /// Checks whose answers are remembered ([`crate::memo`]).
    memo: crate::memo::Memo,
    /// Whether some generated check reads the scope's epoch (stamp, loop and scoped checks)
    /// or `c.nondet`; when none does, tag edges leave both alone (`SCOPE_EPOCHS`,
    /// `SCOPE_NONDET`).
    scope_epochs: bool,
    scope_nondet: bool,
    /// The tag edges of move searches whose emissions are compared at run time, when the
    /// optimistic check is used (see [`KindChecks::optimistic`]; `OPTIMISTIC` in the header).
    optimistic: Option<&'a BTreeSet<EdgeId>>,
    /// For the check target whose functions are being written, the strongly connected
    /// component of each node of its search (one target at a time: they are written target
    /// by target).
    reach_comp: Option<(NodeId, Vec<usize>)>,
    /// For the check target whose functions are being written, whether each node of its
    /// search (by position) is folded into its only caller's function (see
    /// [`Gen::reach_folded`]).
    reach_folded: Option<(NodeId, Vec<bool>)>,
    /// Stamp slots after the analysis's: visit counters of apply walks that take the first
    /// move they find (`c.first_only`).
    extra_stamps: u64,
    /// Whether the move-search function being written loops over the members of a selection
    /// without a counting shortcut: it calls the next node once per member, also when only
    /// counting (see `moves_fn`).
    uncounted_loop: bool,
    /// Per check target, whether its search's functions may read the tags and whether they
    /// may read the hot variable from the state (see [`Gen::reach_reads`]).
    reach_reads: HashMap<NodeId, (bool, bool)>,
    /// Per tag edge of move searches, whether its scope event needs an epoch of its own (see
    /// [`Gen::tag_renews`]).
    tag_renews: HashMap<EdgeId, bool>,
}

/// The initialiser items of a C array of `items` (one `0` when there is none: C++ has no
/// empty arrays, so such an array is declared with one element).
fn array_items(items: &[String]) -> String {
    if items.is_empty() {
        "0".to_string()
    } else {
        items.join(", ")
    }
}

/// Node functions of more than this many bytes of source are spread over several translation
/// units of about this size (compilers take superlinear time and memory on one huge unit).
pub(crate) const UNIT_BYTES: usize = 1_500_000;
/// Variables per function of `describe`.
const DESCRIBE_VARS: usize = 256;

/// Where `game.cpp` of a game in several units gets the declarations it uses.
const SHARED_MARK: &str = "// @shared@";

/// The generated C++ of a game.
pub(crate) struct Generated {
    pub hpp: String,
    pub cpp: String,
    /// More node functions, one translation unit each (`game_1.cpp`, …).
    pub parts: Vec<String>,
}

/// Top-level C++ items (accessors, tables, declarations), each named by the identifier it
/// declares, from which a translation unit takes what its code uses.
struct Items {
    /// `(name, text)` in the order of the source, which declares before use.
    items: Vec<(String, String)>,
    by_name: HashMap<String, Vec<usize>>,
}

/// The identifiers of C++ source text.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

impl Items {
    /// Splits `text`: an item starts at a line beginning with a letter (a declaration; comment
    /// lines go with the next item, indented lines and closing braces with the current one).
    fn new(text: &str) -> Items {
        let mut items: Vec<(String, String)> = Vec::new();
        let mut comments = String::new();
        for line in text.lines() {
            if line.starts_with("//") {
                comments.push_str(line);
                comments.push('\n');
            } else if line.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let head = line.split(['(', '[', '=']).next().unwrap_or("");
                let name = identifiers(head).last().unwrap_or("").to_string();
                let mut t = std::mem::take(&mut comments);
                t.push_str(line);
                t.push('\n');
                items.push((name, t));
            } else if let Some(last) = items.last_mut() {
                last.1.push_str(line);
                last.1.push('\n');
            }
        }
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, (name, _)) in items.iter().enumerate() {
            by_name.entry(name.clone()).or_default().push(i);
        }
        Items { items, by_name }
    }

    /// The items `code` uses, directly or through other items, in source order.
    fn used_by(&self, code: &str) -> String {
        let mut taken = vec![false; self.items.len()];
        let mut seen: std::collections::HashSet<&str> = Default::default();
        let mut work: Vec<&str> = identifiers(code).collect();
        while let Some(w) = work.pop() {
            if !seen.insert(w) {
                continue;
            }
            for &i in self.by_name.get(w).map_or(&[][..], Vec::as_slice) {
                if !taken[i] {
                    taken[i] = true;
                    work.extend(identifiers(&self.items[i].1));
                }
            }
        }
        let mut out = String::new();
        for (i, (_, t)) in self.items.iter().enumerate() {
            if taken[i] {
                out.push_str(t);
            }
        }
        out
    }
}

/// `x` as a C++ string literal.
pub(crate) fn c_string(x: &str) -> String {
    let mut s = String::with_capacity(x.len() + 2);
    s.push('"');
    for ch in x.chars() {
        match ch {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if (c as u32) < 0x20 || c == '?' => {
                let _ = write!(s, "\\{:03o}", c as u32);
            }
            c if c.is_ascii() => s.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(s, "\\{b:03o}");
                }
            }
        }
    }
    s.push('"');
    s
}

/// Whether an edge with this label only tests the state (the search goes on from its target
/// exactly when the test holds), changing nothing.
fn is_test(label: Label) -> bool {
    matches!(
        label,
        Label::Skip | Label::Compare { .. } | Label::Reach { .. }
    )
}

/// `{prefix}_TEXT`, the names one after the other, each ended by a NUL (adjacent literals,
/// a few per line), and `{prefix}_AT`, where each name starts in it.
fn name_table<'n>(out: &mut String, prefix: &str, names: impl Iterator<Item = &'n str>) {
    let mut at: Vec<usize> = Vec::new();
    let mut offset = 0usize;
    let mut has_nul = false;
    let _ = write!(out, "const char {prefix}_TEXT[] =");
    for (i, name) in names.enumerate() {
        at.push(offset);
        offset += name.len() + 1;
        has_nul |= name.contains('\0');
        let lit = c_string(name);
        if i % 16 == 0 {
            out.push_str("\n    ");
        } else {
            out.push(' ');
        }
        // A three-digit octal escape, so that no digit after it can extend it.
        let _ = write!(out, "{}\\000\"", &lit[..lit.len() - 1]);
    }
    if at.is_empty() {
        out.push_str(" \"\"");
    }
    out.push_str(";\n");
    // The starts are found by scanning the text on first use (names.inc) unless a name holds
    // a NUL: an array of hundreds of thousands of numbers costs the C++ compiler far more
    // than the text itself.
    if has_nul {
        let at: Vec<String> = at.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "static const uint32_t {prefix}_AT_DATA[] = {{{}}};\nconst uint32_t* const {prefix}_AT = {prefix}_AT_DATA;",
            array_items(&at)
        );
    } else {
        let _ = writeln!(out, "const uint32_t* const {prefix}_AT = nullptr;");
    }
}

/// A C++ comment-safe rendering of a name.
fn comment(x: &str) -> String {
    x.replace("*/", "* /").replace('\n', " ")
}

fn int_type(width: u32) -> &'static str {
    match width {
        0..=8 => "uint8_t",
        9..=16 => "uint16_t",
        _ => "uint32_t",
    }
}

/// The tag edges of the optimistic check, when it applies: some move-search tag edge may emit
/// a symbol another emission of its scope event can, and the table of emissions (one word per
/// tag position and symbol) is small.
fn optimistic_edges<'v>(
    game: &Game,
    plan: &SearchPlan,
    visits: &'v Visits,
) -> Option<&'v BTreeSet<EdgeId>> {
    const MAX_EMITTED: u64 = 1 << 16;
    let edges = visits.moves.optimistic.as_ref()?;
    let depth = crate::visits::max_move_tags(game, plan).filter(|&k| k > 0 && k <= 64)?;
    let slots = u64::from(depth) * game.symbols().len() as u64;
    (!edges.is_empty() && slots <= MAX_EMITTED).then_some(edges)
}

impl<'a> Gen<'a> {
    pub fn new(
        game: &'a Game,
        layout: &'a Layout,
        plan: &'a SearchPlan,
        visits: &'a Visits,
        deferred: Vec<bool>,
        memo: crate::memo::Memo,
    ) -> Self {
        let mut pairs = BTreeMap::new();
        let mut check_edges = BTreeMap::new();
        let mut edges: Vec<_> = game.edges().collect();
        edges.sort_by_key(|(id, _)| *id);
        let mut uses: HashMap<(NodeId, (NodeId, NodeId)), u32> = HashMap::new();
        for (id, e) in &edges {
            if let Label::Reach { from, to, .. } = e.label
                && from != to
            {
                let n = pairs.len();
                pairs.entry((from, to)).or_insert(n);
                let n = check_edges.len();
                check_edges.insert(*id, n);
                *uses.entry((e.from, (from, to))).or_default() += 1;
            }
        }
        let mut check_starts: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        for &(a, b) in pairs.keys() {
            check_starts.entry(b).or_default().push(a);
        }
        let shared_checks = uses
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(k, _)| k)
            .collect();
        let dynamic_visibility = layout.visible.is_some_and(|v| {
            let name = layout.vars[v].name;
            edges.iter().any(|(_, e)| match e.label {
                Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => {
                    game.expr_root(lhs) == name
                }
                _ => false,
            })
        });
        Gen {
            game,
            layout,
            plan,
            visits,
            ex: ExprGen {
                game,
                layout,
                binders: HashMap::new(),
                sl_used: Default::default(),
                subst: None,
                wide: false,
            },
            pairs,
            check_edges,
            shared_checks,
            check_starts,
            statics: String::new(),
            n_statics: 0,
            static_ids: HashMap::new(),
            dynamic_visibility,
            self_nesting: plan.self_nesting_targets(game),
            dropped_loops: HashMap::new(),
            hot: hot_var(game, layout),
            deferred,
            memo,
            scope_epochs: false,
            scope_nondet: false,
            optimistic: optimistic_edges(game, plan, visits),
            reach_comp: None,
            reach_folded: None,
            extra_stamps: 0,
            uncounted_loop: false,
            reach_reads: HashMap::new(),
            tag_renews: HashMap::new(),
        }
    }

    /// The extra argument of a call of a node function (`@X@` until the value is known).
    fn xarg(&self) -> &'static str {
        if self.hot.is_some() { ", @X@" } else { "" }
    }

    /// The extra parameter of a node function.
    fn xparam(&self) -> &'static str {
        if self.hot.is_some() {
            ", [[maybe_unused]] uint32_t x"
        } else {
            ""
        }
    }

    /// The hot variable's value in the working state (where `x` is not known to hold it).
    fn xstate(&self) -> String {
        match self.hot {
            Some(v) => format!("G{v}(c.s, 0)"),
            None => String::new(),
        }
    }

    /// What the functions of check target `b`'s search read, as `(tags, hot)`: `tags` when a
    /// visited-state check or a nested check there may read the tags or the scope (some node
    /// has a check, or a nested check); `hot` when one may read the hot variable from the
    /// state rather than through the argument `x`: a check other than none or a stamp (keyed
    /// through `x`), a nested check (which starts from the state), a tag edge that is kept,
    /// or an any-assignment of another variable (its members' tests read the others from the
    /// state).
    fn reach_reads(&mut self, b: NodeId) -> (bool, bool) {
        if let Some(&r) = self.reach_reads.get(&b) {
            return r;
        }
        let checks = &self.visits.reach[&b];
        let nodes = &self.plan.reach[&b];
        let nested = nodes.iter().any(|q| {
            self.plan.out[q.index()]
                .iter()
                .any(|&e| matches!(self.game.edge(e).label, Label::Reach { .. }))
        });
        let checked = |q: NodeId, ok: &dyn Fn(&Check) -> bool| {
            checks.nondet(q.index()) || !ok(checks.det(q.index()))
        };
        let tags = nested || nodes.iter().any(|q| checked(q, &|c| *c == Check::None));
        let hot = nested
            || nodes
                .iter()
                .any(|q| checked(q, &|c| matches!(c, Check::None | Check::Stamp { .. })))
            || nodes.iter().any(|q| {
                self.plan.out[q.index()].iter().any(|&e| {
                    let label = self.game.edge(e).label;
                    (tags && label.is_tag())
                        || matches!(label, Label::AssignAny { lhs, .. }
                            if self.ex.location(lhs, "c.s", None).map_or(true, |l| Some(l.var) != self.hot))
                })
            });
        self.reach_reads.insert(b, (tags, hot));
        (tags, hot)
    }

    /// Whether the scope event a move search's tag edge `e` begins needs an epoch of its own:
    /// some node of its region (reached from the edge without another tag edge, within the
    /// move) has a check that reads the epoch (stamp, loop or scoped), or a tag edge leaving
    /// it notes its emission (the optimistic check). Otherwise nothing tells the new scope
    /// event from its parent, and it keeps the parent's epoch.
    fn tag_renews(&mut self, e: EdgeId) -> bool {
        const BUDGET: usize = 10_000;
        if let Some(&r) = self.tag_renews.get(&e) {
            return r;
        }
        let checks = &self.visits.moves;
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![self.game.edge(e).to];
        let mut r = false;
        while let Some(q) = stack.pop() {
            if !seen.insert(q) {
                continue;
            }
            if seen.len() > BUDGET
                || matches!(
                    checks.det(q.index()),
                    Check::Stamp { .. } | Check::Loop { .. } | Check::Scoped { .. }
                )
            {
                r = true;
                break;
            }
            for &o in &self.plan.out[q.index()] {
                let label = self.game.edge(o).label;
                if label.is_tag() {
                    if self.optimistic.is_some_and(|es| es.contains(&o)) {
                        r = true;
                        break;
                    }
                } else if !assigns_player(self.game, &label) {
                    stack.push(self.game.edge(o).to);
                }
            }
            if r {
                break;
            }
        }
        self.tag_renews.insert(e, r);
        r
    }

    /// Whether an assignment to variable `v` in a search of kind `mode` may leave the state
    /// alone: `v` is the hot variable, the search is a check's (its state is never listed or
    /// kept), and none of its functions reads `v` from the state ([`Gen::reach_reads`]). The
    /// new value travels as the argument `x`, every read of `v` there is `x`, and the state
    /// keeps the value the check began with.
    fn hot_off_state(&mut self, mode: Mode, v: usize) -> bool {
        match mode {
            Mode::Reach(b) if self.hot == Some(v) => !self.reach_reads(b).1,
            _ => false,
        }
    }

    /// A static array with these contents (deduplicated); returns its name.
    fn static_array(&mut self, ty: &str, items: &[String]) -> String {
        let body = items.join(", ");
        let key = format!("{ty}|{body}");
        if let Some(name) = self.static_ids.get(&key) {
            return name.clone();
        }
        let name = format!("T{}", self.n_statics);
        self.n_statics += 1;
        let _ = writeln!(
            self.statics,
            "static const {ty} {name}[{}] = {{{body}}};",
            items.len().max(1)
        );
        self.static_ids.insert(key, name.clone());
        name
    }

    fn span(&self, e: EdgeId) -> Option<Span> {
        self.game.edge(e).spans.whole
    }

    fn edge_text(&self, e: EdgeId) -> String {
        let d = self.game.edge(e);
        format!(
            "{}, {}: {}",
            self.game.node_name(d.from),
            self.game.node_name(d.to),
            rg_core::print::print_label(self.game, &d.label)
        )
    }

    // ----- conditions ------------------------------------------------------------------

    /// The condition of an edge (`None`: always taken), with the reach pairs it evaluates.
    fn condition(&self, e: EdgeId, st: &str) -> Result<Option<String>, CompileError> {
        let span = self.span(e);
        match self.game.edge(e).label {
            Label::Compare { lhs, rhs, negated } => {
                let eq = self.equality(lhs, rhs, st, span)?;
                Ok(Some(if negated { format!("!({eq})") } else { eq }))
            }
            Label::Reach { from, to, negated } => {
                if from == to {
                    return Ok(Some(if negated { "false" } else { "true" }.into()));
                }
                let k = self.pairs[&(from, to)];
                let check = self.check_edges[&e];
                let r = if self
                    .shared_checks
                    .contains(&(self.game.edge(e).from, (from, to)))
                {
                    format!("(rc{k} < 0 ? (rc{k} = E{check}(c)) : rc{k})")
                } else {
                    format!("E{check}(c)")
                };
                Ok(Some(if negated { format!("!{r}") } else { r }))
            }
            _ => Ok(None),
        }
    }

    /// `lhs == rhs` as C++.
    fn equality(
        &self,
        lhs: rg_core::ExprId,
        rhs: rg_core::ExprId,
        st: &str,
        span: Option<Span>,
    ) -> Result<String, CompileError> {
        let l = self.ex.operand(lhs, st, span)?;
        let r = self.ex.operand(rhs, st, span)?;
        Ok(match (l, r) {
            (Operand::Lit(a), Operand::Lit(b)) => (if a == b { "true" } else { "false" }).into(),
            (Operand::Lit(a), Operand::Scalar { code, class })
            | (Operand::Scalar { code, class }, Operand::Lit(a)) => {
                format!("{code} == {}u", self.ex.literal(a, class, span)?)
            }
            (Operand::Scalar { code: a, .. }, Operand::Scalar { code: b, .. }) => {
                format!("{a} == {b}")
            }
            (
                Operand::Elems {
                    src: sa,
                    index: ia,
                    shape,
                    depth: da,
                },
                Operand::Elems {
                    src: sb,
                    index: ib,
                    depth: db,
                    ..
                },
            ) => {
                // An explicit map holds its default and presence flags among its elements.
                let explicit = matches!(shape, Shape::Map { ext: true, .. });
                let (x, y) = (self.ex.default_at(sa, da), self.ex.default_at(sb, db));
                if !explicit && (x.is_none() || y.is_none()) {
                    return Err(CompileError::at(
                        "a comparison of maps whose defaults differ between their entries",
                        span,
                    ));
                }
                if !explicit && x != y {
                    "false".into()
                } else {
                    let n = shape.elements(&self.layout.classes);
                    format!(
                        "[&] {{ for (uint32_t j_ = 0; j_ < {n}u; ++j_) if ({} != {}) return false; return true; }}()",
                        self.ex.read(sa, &format!("({ia}) + j_"), st),
                        self.ex.read(sb, &format!("({ib}) + j_"), st)
                    )
                }
            }
            // A symbol never equals a map.
            _ => "false".into(),
        })
    }

    // ----- actions ---------------------------------------------------------------------

    /// Writes the statements of edge `e`'s action around the continuation `cont` (which sets
    /// `r` in reach mode). `reverse` orders any-assignment members last to first.
    fn action(
        &mut self,
        out: &mut String,
        ind: &str,
        e: EdgeId,
        cont: &str,
        mode: Mode,
        reverse: bool,
    ) -> Result<(), CompileError> {
        let span = self.span(e);
        let label = self.game.edge(e).label;
        // The hot variable's value after the edge.
        let xval = match label {
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. }
                if self.hot.is_some()
                    && self.ex.location(lhs, "c.s", span)?.var == self.hot.unwrap_or(0) =>
            {
                if matches!(label, Label::Assign { .. }) {
                    "v_"
                } else {
                    "m_"
                }
            }
            _ => "x",
        };
        let cont = &cont.replace("@X@", xval);
        match label {
            Label::Skip | Label::Compare { .. } | Label::Reach { .. } => {
                let _ = writeln!(out, "{ind}{cont}");
            }
            Label::Tag(_) | Label::TagVar(_) => self.tag_action(out, ind, e, cont, mode)?,
            Label::Assign { lhs, rhs } => {
                self.assign_action(out, ind, e, (lhs, rhs), cont, mode)?;
            }
            Label::AssignAny { lhs, ty } => {
                let loc = self.ex.location(lhs, "c.s", span)?;
                let v = loc.var;
                let Shape::Scalar(class) = loc.shape else {
                    return Err(CompileError::at("`T(*)` assigned to a map location", span));
                };
                let members = self.members(ty, class, span)?;
                let early = if matches!(mode, Mode::Reach(_)) {
                    "if (r) break; "
                } else {
                    ""
                };
                let _ = writeln!(out, "{ind}{{");
                let i2 = format!("{ind}  ");
                let idx = self.index_decl(out, &i2, &loc.index, "i_");
                self.domain_checks(out, &i2, e, v, &loc.checks);
                // In a check that reads `v` only through `x`, the state keeps its value.
                let off = self.hot_off_state(mode, v);
                let set = if off {
                    String::new()
                } else {
                    format!("S{v}(c.s, {idx}, m_); {}", self.flag_sets(v, &loc.flags))
                };
                if !off {
                    let _ = writeln!(out, "{i2}const uint32_t o_ = G{v}(c.s, {idx});");
                }
                self.flag_decls(out, &i2, v, &loc.flags);
                let (ftrail, frestore) = self.flag_trail_restore(v, &loc.flags, mode);
                let trail = self.trail_entry(v, &idx).filter(|_| mode == Mode::Moves);
                if let Some(t) = &trail {
                    let _ = writeln!(out, "{i2}{t}");
                }
                if !ftrail.is_empty() {
                    let _ = writeln!(out, "{i2}{ftrail}");
                }
                let lp = self.member_loop(&members, reverse);
                let select = match mode {
                    _ if loc.index != "0" => None,
                    Mode::Moves | Mode::Apply => self.selection_cond(e, v, None)?,
                    Mode::Reach(b) => self.selection_cond(e, v, Some(b))?,
                };
                match (&select, mode) {
                    (Some(cond), Mode::Moves) => {
                        // Counting: one move per member whose chain holds, in chunks that a
                        // byte counter holds (a loop the compiler vectorises).
                        let n = members.len();
                        let member = self.member_at(&members, false, "k_");
                        let _ = writeln!(
                            out,
                            "{i2}if (c.counting) {{ for (size_t b_ = 0; b_ < {n}u; b_ += COUNT_CHUNK) {{ const size_t e_ = b_ + COUNT_CHUNK < {n}u ? b_ + COUNT_CHUNK : {n}u; uint8_t n_ = 0; for (size_t k_ = b_; k_ < e_; ++k_) {{ const size_t m_ = {member}; n_ += uint8_t({cond}); }} c.nmoves += n_; }} }} else {{"
                        );
                        // Members whose chain fails are skipped without walking it.
                        let _ =
                            writeln!(out, "{i2}{lp} {{ if ({cond}) {{ {set}{cont} }} {early}}}");
                        let _ = writeln!(out, "{i2}}}");
                    }
                    (Some(cond), Mode::Apply) => {
                        // Any tags: the members whose chain holds are the moves, one each.
                        // Blocks of members whose moves are all skipped are only counted
                        // (in any order: a loop the compiler vectorises), then the block of
                        // the move is scanned in order.
                        let n = members.len();
                        let (base, in_block) = self.member_block(&members, reverse);
                        let member = self.member_at(&members, reverse, "k_");
                        let _ = writeln!(
                            out,
                            "{i2}if (c.any_tags) {{\n{i2}  uint32_t b_ = 0;\n{i2}  for (; b_ + SELECT_BLOCK <= {n}u; b_ += SELECT_BLOCK) {{ const size_t base_ = {base}; uint8_t n_ = 0; for (size_t j_ = 0; j_ < SELECT_BLOCK; ++j_) {{ const size_t m_ = {in_block}; n_ += uint8_t({cond}); }} if (c.goal_skip < n_) break; c.goal_skip -= n_; }}\n{i2}  for (uint32_t k_ = b_; k_ < {n}u; ++k_) {{ const uint32_t m_ = {member}; if ({cond}) {{ if (c.goal_skip) {{ --c.goal_skip; continue; }} {set}{cont} }} }}\n{i2}}} else {{"
                        );
                        let _ =
                            writeln!(out, "{i2}{lp} {{ if ({cond}) {{ {set}{cont} }} {early}}}");
                        let _ = writeln!(out, "{i2}}}");
                    }
                    (Some(cond), Mode::Reach(_)) => {
                        // The target is reached when some member's chain holds.
                        let _ = writeln!(out, "{i2}{lp} {{ if ({cond}) {{ r = true; break; }} }}");
                    }
                    _ => {
                        self.uncounted_loop |= mode == Mode::Moves;
                        let prefix = match mode {
                            _ if loc.index != "0" => None,
                            Mode::Moves | Mode::Apply => self.prefix_cond(e, v, None)?,
                            Mode::Reach(b) => self.prefix_cond(e, v, Some(b))?,
                        };
                        match prefix {
                            Some(cond) => {
                                let _ = writeln!(
                                    out,
                                    "{i2}{lp} {{ if ({cond}) {{ {set}{cont} }} {early}}}"
                                );
                            }
                            None => {
                                let _ = writeln!(out, "{i2}{lp} {{ {set}{cont} {early}}}");
                            }
                        }
                    }
                }
                if trail.is_some() {
                    let _ = writeln!(out, "{i2}pop_trail(c, {});", 1 + loc.flags.len());
                }
                if !loc.flags.is_empty() {
                    let _ = writeln!(out, "{i2}{frestore}");
                }
                if !off {
                    let _ = writeln!(out, "{i2}S{v}(c.s, {idx}, o_);");
                }
                let _ = writeln!(out, "{ind}}}");
            }
        }
        Ok(())
    }

    /// A tag edge `e`: pushes the tag (in apply mode only when it is the move's next tag or any
    /// tags are followed), with the condition under which its tag sequence may equal another
    /// walk's (then the visited-state check must consider it), runs `cont` and pops it.
    fn tag_action(
        &mut self,
        out: &mut String,
        ind: &str,
        e: EdgeId,
        cont: &str,
        mode: Mode,
    ) -> Result<(), CompileError> {
        // In a check's search, tags only key visited-state checks (whether the target is
        // reached does not depend on them): where nothing reads them, the edge does nothing.
        if let Mode::Reach(b) = mode
            && !self.reach_reads(b).0
        {
            let _ = writeln!(out, "{ind}{cont}");
            return Ok(());
        }
        let span = self.span(e);
        let label = self.game.edge(e).label;
        let value = match label {
            Label::Tag(s) => format!("{}u", s.0),
            Label::TagVar(v) => {
                let var = self.layout.var_by_name[&v];
                let class = self.layout.vars[var].shape.leaf();
                let table = self.class_table(class);
                format!("{table}[G{var}(c.s, 0)]")
            }
            _ => unreachable!("a tag"),
        };
        let vis = self.vis_code();
        let visits = self.visits;
        let checks = match mode {
            Mode::Reach(b) => &visits.reach[&b],
            Mode::Moves | Mode::Apply => &visits.moves,
        };
        let mut alts: Vec<String> = Vec::new();
        if checks.inherit.contains(&e) {
            alts.push("c.nondet".into());
            self.scope_nondet = true;
        }
        match checks.collide.get(&e).unwrap_or(&Collide::Never) {
            Collide::Never => {}
            Collide::Always => alts = vec!["true".into()],
            Collide::Some { syms, dynamic } => {
                alts.extend(syms.iter().map(|s| format!("tv_ == {}u", s.0)));
                for &(de, class) in dynamic {
                    let Label::Assign { rhs, .. } = self.game.edge(de).label else {
                        continue;
                    };
                    let code = self.ex.scalar_in(rhs, class, "c.s", span)?;
                    let table = self.class_table(class);
                    alts.push(format!("tv_ == {table}[{code}]"));
                }
            }
        }
        let mut shared = if alts.is_empty() {
            "false".to_string()
        } else {
            alts.join(" || ")
        };
        // With the optimistic check, scopes are shared only in the search run again after an
        // equal emission, and the emissions that may be equal are compared.
        let mut note = "";
        if let (Some(edges), Mode::Moves | Mode::Apply) = (self.optimistic, mode) {
            if !alts.is_empty() {
                shared = format!("c.pessimistic && ({shared})");
            }
            if edges.contains(&e) {
                note = "note_tag(c, tv_); ";
                self.scope_epochs = true;
            }
        }
        // A scope whose epoch nothing reads keeps its parent's.
        let ep = if matches!(mode, Mode::Reach(_)) || self.tag_renews(e) {
            ""
        } else {
            "<false>"
        };
        if mode == Mode::Apply {
            let _ = writeln!(
                out,
                "{ind}{{ const uint32_t tv_ = {value}; if (c.any_tags || (c.ntags < c.goal_n && tv_ == c.goal[c.ntags])) {{ {note}const Scope sc_ = push_tag{ep}(c, tv_, {vis}, {shared}); {cont} pop_tag{ep}(c, sc_); }} }}"
            );
        } else {
            let _ = writeln!(
                out,
                "{ind}{{ const uint32_t tv_ = {value}; {note}const Scope sc_ = push_tag{ep}(c, tv_, {vis}, {shared}); {cont} pop_tag{ep}(c, sc_); }}"
            );
        }
        Ok(())
    }

    /// An assignment edge `e` (`lhs = rhs`): stores the value, runs `cont` and restores the old
    /// value; a move search also records the change on the trail. A map-shaped location is
    /// stored element by element.
    fn assign_action(
        &mut self,
        out: &mut String,
        ind: &str,
        e: EdgeId,
        (lhs, rhs): (rg_core::ExprId, rg_core::ExprId),
        cont: &str,
        mode: Mode,
    ) -> Result<(), CompileError> {
        let span = self.span(e);
        let loc = self.ex.location(lhs, "c.s", span)?;
        let v = loc.var;
        let _ = writeln!(out, "{ind}{{");
        let i2 = format!("{ind}  ");
        let idx = self.index_decl(out, &i2, &loc.index, "i_");
        self.domain_checks(out, &i2, e, v, &loc.checks);
        match &loc.shape {
            Shape::Scalar(_) if self.hot_off_state(mode, v) => {
                let val = self.scalar_value(rhs, loc.shape.leaf(), span)?;
                let _ = writeln!(out, "{i2}const uint32_t v_ = {val};");
                let _ = writeln!(out, "{i2}{cont}");
            }
            Shape::Scalar(class) => {
                let val = self.scalar_value(rhs, *class, span)?;
                let _ = writeln!(out, "{i2}const uint32_t v_ = {val};");
                let _ = writeln!(out, "{i2}const uint32_t o_ = G{v}(c.s, {idx});");
                self.flag_decls(out, &i2, v, &loc.flags);
                let _ = writeln!(out, "{i2}S{v}(c.s, {idx}, v_);");
                let (ftrail, frestore) = self.flag_trail_restore(v, &loc.flags, mode);
                if !loc.flags.is_empty() {
                    let _ = writeln!(out, "{i2}{}{ftrail}", self.flag_sets(v, &loc.flags));
                }
                let trail = self.trail_entry(v, &idx).filter(|_| mode == Mode::Moves);
                if let Some(t) = &trail {
                    let _ = writeln!(out, "{i2}{t}");
                }
                let _ = writeln!(out, "{i2}{cont}");
                if trail.is_some() {
                    let _ = writeln!(out, "{i2}pop_trail(c, {});", 1 + loc.flags.len());
                }
                if !loc.flags.is_empty() {
                    let _ = writeln!(out, "{i2}{frestore}");
                }
                let _ = writeln!(out, "{i2}S{v}(c.s, {idx}, o_);");
            }
            shape => {
                let n = shape.elements(&self.layout.classes);
                let Operand::Elems {
                    src,
                    index: sidx,
                    depth: sdepth,
                    ..
                } = self.ex.operand(rhs, "c.s", span)?
                else {
                    return Err(CompileError::at(
                        "the assigned value has another shape than its location",
                        span,
                    ));
                };
                // An explicit map level stores its default with the value; a plain one has
                // one default for all its values (see the layout).
                let explicit = matches!(shape, Shape::Map { ext: true, .. });
                let target_default = self.ex.default_at(Src::Var(v), loc.depth);
                let source_default = self.ex.default_at(src, sdepth);
                if !explicit && (target_default.is_none() || target_default != source_default) {
                    return Err(CompileError::map_default(span));
                }
                let sread = self.ex.read(src, &format!("({sidx}) + j_"), "c.s");
                let _ = writeln!(out, "{i2}std::vector<uint32_t> o_({n}u), n_({n}u);");
                let _ = writeln!(
                    out,
                    "{i2}for (uint32_t j_ = 0; j_ < {n}u; ++j_) {{ o_[j_] = G{v}(c.s, {idx} + j_); n_[j_] = {sread}; }}"
                );
                self.flag_decls(out, &i2, v, &loc.flags);
                let _ = writeln!(
                    out,
                    "{i2}for (uint32_t j_ = 0; j_ < {n}u; ++j_) S{v}(c.s, {idx} + j_, n_[j_]);"
                );
                let (ftrail, frestore) = self.flag_trail_restore(v, &loc.flags, mode);
                if !loc.flags.is_empty() {
                    let _ = writeln!(out, "{i2}{}{ftrail}", self.flag_sets(v, &loc.flags));
                }
                let trail = self
                    .trail_entry(v, &format!("{idx} + j_"))
                    .filter(|_| mode == Mode::Moves);
                if let Some(t) = &trail {
                    let _ = writeln!(out, "{i2}for (uint32_t j_ = 0; j_ < {n}u; ++j_) {t}");
                }
                let _ = writeln!(out, "{i2}{cont}");
                if trail.is_some() {
                    let _ = writeln!(out, "{i2}pop_trail(c, {}u);", n + loc.flags.len() as u64);
                }
                if !loc.flags.is_empty() {
                    let _ = writeln!(out, "{i2}{frestore}");
                }
                let _ = writeln!(
                    out,
                    "{i2}for (uint32_t j_ = 0; j_ < {n}u; ++j_) S{v}(c.s, {idx} + j_, o_[j_]);"
                );
            }
        }
        let _ = writeln!(out, "{ind}}}");
        Ok(())
    }

    /// The trail entry of element `idx` of variable `v` (its bit position and width), pushed
    /// while a move search walks through an assignment so that a finished move records what
    /// its walk changed; `None` for a variable that takes no bits.
    fn trail_entry(&self, v: usize, idx: &str) -> Option<String> {
        let f = &self.layout.vars[v];
        if f.width == 0 {
            return None;
        }
        let bit = if idx == "0" || idx == "0u" {
            format!("{}u", f.bit)
        } else {
            format!("{}u + uint32_t({idx}) * {}u", f.bit, f.width)
        };
        Some(format!("trail_push(c, {bit}, {}u);", f.width))
    }

    /// The class-local numbers of the members of set type `ty`, in order (duplicates kept, as
    /// the interpreter pushes one successor per listed member).
    fn members(
        &self,
        ty: rg_core::TypeId,
        class: usize,
        span: Option<Span>,
    ) -> Result<Vec<u32>, CompileError> {
        let env = rg_core::typeck::TypeEnv::new(self.game);
        let Ok(rg_core::typeck::Resolved::Set(ms)) = env.resolve(ty) else {
            return Err(CompileError::at("`T(*)` needs a set type", span));
        };
        ms.as_slice()
            .iter()
            .map(|&m| self.ex.literal(m, class, span))
            .collect()
    }

    /// A `for` header binding `m_` to each member in order (or reversed).
    fn member_loop(&mut self, members: &[u32], reverse: bool) -> String {
        let contiguous = members.windows(2).all(|w| w[1] == w[0] + 1);
        if contiguous && !members.is_empty() {
            let (lo, hi) = (members[0], members[members.len() - 1]);
            return if reverse {
                format!("for (uint32_t m_ = {hi}u + 1; m_-- > {lo}u;)")
            } else {
                format!("for (uint32_t m_ = {lo}u; m_ <= {hi}u; ++m_)")
            };
        }
        let mut items: Vec<String> = members.iter().map(|m| format!("{m}u")).collect();
        if reverse {
            items.reverse();
        }
        let n = items.len();
        let arr = self.static_array("uint32_t", &items);
        format!("for (uint32_t k_ = 0, m_; k_ < {n}u && ((m_ = {arr}[k_]), true); ++k_)")
    }

    /// A selection loop: the any-assignment edge `e` to scalar variable `v` leads into a chain
    /// of nodes with one edge each — comparisons, tags and skips, no visited-state check, no
    /// reachability check — that ends in one assignment to `player` or at a deferred node
    /// (either way one finished move, see [`crate::defer`]), or, in the search of a
    /// reachability check (`target`), at the check's target. Then
    /// each member gives exactly one move when the chain's comparisons hold for it (they read
    /// the state the loop leaves unchanged but for `v`) and none otherwise, so the moves can
    /// be counted, and the k-th found, by evaluating the comparisons with `v` read as the loop
    /// variable `m_`, without walking the chain. Returns that condition (`true` when there is
    /// no comparison). (Apply walks with any tags are never trusted, so no `@simpleApply`
    /// shortcut is skipped.)
    fn selection_cond(
        &mut self,
        e: EdgeId,
        v: usize,
        target: Option<NodeId>,
    ) -> Result<Option<String>, CompileError> {
        const CHAIN_LIMIT: usize = 16;
        let checks = self.scope_checks(target);
        let mut q = self.game.edge(e).to;
        let mut conds: Vec<EdgeId> = Vec::new();
        let mut ended = false;
        for _ in 0..CHAIN_LIMIT {
            if Some(q) == target {
                ended = true;
                break;
            }
            let qi = q.index();
            if *checks.det(qi) != Check::None || checks.nondet(qi) {
                return Ok(None);
            }
            if target.is_none() && self.deferred[qi] {
                // Its complementary checks lead to one finished move either way.
                ended = true;
                break;
            }
            let [f] = self.plan.out[qi].as_slice() else {
                return Ok(None);
            };
            let d = self.game.edge(*f);
            if let Some(b) = target {
                if !self.plan.in_reach(b, d.to) {
                    return Ok(None);
                }
            } else if assigns_player(self.game, &d.label) {
                if !matches!(d.label, Label::Assign { .. }) {
                    return Ok(None);
                }
                ended = true;
                break;
            }
            match d.label {
                Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
                Label::Compare { .. } => conds.push(*f),
                _ => return Ok(None),
            }
            q = d.to;
        }
        if !ended {
            return Ok(None);
        }
        let parts = self.member_conditions(v, &conds, true)?;
        Ok(Some(if parts.is_empty() {
            "true".to_string()
        } else {
            parts.join(" && ")
        }))
    }

    /// The comparisons at the head of the chain that any-assignment `e` to scalar `v` leads
    /// into (nodes with one edge, a skip or a comparison, and no visited-state check), with `v`
    /// read as the loop variable `m_`: a member for which they fail walks no further, so the
    /// loop skips it without storing it and calling the next node. `None` when there is none.
    fn prefix_cond(
        &mut self,
        e: EdgeId,
        v: usize,
        target: Option<NodeId>,
    ) -> Result<Option<String>, CompileError> {
        const CHAIN_LIMIT: usize = 8;
        let checks = self.scope_checks(target);
        let mut q = self.game.edge(e).to;
        let mut conds: Vec<EdgeId> = Vec::new();
        for _ in 0..CHAIN_LIMIT {
            let qi = q.index();
            if Some(q) == target
                || *checks.det(qi) != Check::None
                || checks.nondet(qi)
                || (target.is_none() && self.deferred[qi])
            {
                break;
            }
            let [f] = self.plan.out[qi].as_slice() else {
                break;
            };
            let d = self.game.edge(*f);
            match d.label {
                Label::Skip => {}
                Label::Compare { .. } => conds.push(*f),
                _ => break,
            }
            if let Some(b) = target
                && !self.plan.in_reach(b, d.to)
            {
                break;
            }
            q = d.to;
        }
        if conds.is_empty() {
            return Ok(None);
        }
        let parts = self.member_conditions(v, &conds, false)?;
        Ok((!parts.is_empty()).then(|| parts.join(" && ")))
    }

    /// The visited-state checks of the scope a walk belongs to: the searches of the check
    /// towards `target`, or the move searches.
    fn scope_checks(&self, target: Option<NodeId>) -> &'a KindChecks {
        match target {
            Some(b) => &self.visits.reach[&b],
            None => &self.visits.moves,
        }
    }

    /// The C++ of comparisons `conds`, each parenthesised, with scalar `v` read as the member
    /// loop's variable `m_` (and, when `wide`, every variable through its wide accessor).
    fn member_conditions(
        &mut self,
        v: usize,
        conds: &[EdgeId],
        wide: bool,
    ) -> Result<Vec<String>, CompileError> {
        let saved = self.ex.subst.replace((v, "m_".to_string()));
        let saved_wide = std::mem::replace(&mut self.ex.wide, wide);
        let parts: Result<Vec<String>, CompileError> = conds
            .iter()
            .filter_map(|&c| {
                self.condition(c, "c.s")
                    .transpose()
                    .map(|r| r.map(|x| format!("({x})")))
            })
            .collect();
        self.ex.subst = saved;
        self.ex.wide = saved_wide;
        parts
    }

    /// Member number `k` (a C++ expression) of `members`, in order or reversed (as
    /// `member_loop` binds them).
    fn member_at(&mut self, members: &[u32], reverse: bool, k: &str) -> String {
        let contiguous = members.windows(2).all(|w| w[1] == w[0] + 1);
        if contiguous && !members.is_empty() {
            let (lo, hi) = (members[0], members[members.len() - 1]);
            return if reverse {
                format!("{hi}u - {k}")
            } else {
                format!("{lo}u + {k}")
            };
        }
        let mut items: Vec<String> = members.iter().map(|m| format!("{m}u")).collect();
        if reverse {
            items.reverse();
        }
        let arr = self.static_array("uint32_t", &items);
        format!("{arr}[{k}]")
    }

    /// The members of the block of `SELECT_BLOCK` members from number `b_` on (in order or
    /// reversed, as `member_loop` binds them), in any order: the block's base (`base_`) and
    /// member `j_` of the block, as `size_t` expressions (so that the compiler sees
    /// consecutive members at consecutive addresses).
    fn member_block(&mut self, members: &[u32], reverse: bool) -> (String, String) {
        let contiguous = members.windows(2).all(|w| w[1] == w[0] + 1);
        if contiguous && !members.is_empty() {
            let (lo, hi) = (members[0], members[members.len() - 1]);
            let base = if reverse {
                format!("size_t({hi}u) - b_ - (SELECT_BLOCK - 1)")
            } else {
                format!("size_t({lo}u) + b_")
            };
            return (base, "base_ + j_".into());
        }
        let mut items: Vec<String> = members.iter().map(|m| format!("{m}u")).collect();
        if reverse {
            items.reverse();
        }
        let arr = self.static_array("uint32_t", &items);
        ("size_t(b_)".into(), format!("{arr}[base_ + j_]"))
    }

    /// Declares `name` for a non-trivial index; returns the code to use for it.
    fn index_decl(&self, out: &mut String, ind: &str, index: &str, name: &str) -> String {
        if index.chars().all(|c| c.is_ascii_digit() || c == 'u') {
            return index.to_string();
        }
        let _ = writeln!(out, "{ind}const uint32_t {name} = {index};");
        name.to_string()
    }

    /// Declares, before a store into a location inside explicit maps, each flag's element and
    /// those of its entry and default (the keys are read before the store, as the
    /// interpreter reads them) and the flag's old value.
    fn flag_decls(&self, out: &mut String, ind: &str, v: usize, flags: &[crate::expr::Flag]) {
        for (j, f) in flags.iter().enumerate() {
            let _ = writeln!(
                out,
                "{ind}const uint32_t fi{j}_ = {}, fe{j}_ = {}, fd{j}_ = {}; const uint32_t fo{j}_ = G{v}(c.s, fi{j}_);",
                f.flag, f.entry, f.default
            );
        }
    }

    /// Statements setting the flags after a store (innermost first): a key stays listed
    /// exactly when its entry differs from its map's default (rg.md §12.1).
    fn flag_sets(&self, v: usize, flags: &[crate::expr::Flag]) -> String {
        let mut s = String::new();
        for (j, f) in flags.iter().enumerate().rev() {
            let differs = if f.len == 1 {
                format!("uint32_t(G{v}(c.s, fe{j}_) != G{v}(c.s, fd{j}_))")
            } else {
                format!(
                    "[&] {{ for (uint32_t q_ = 0; q_ < {}u; ++q_) if (G{v}(c.s, fe{j}_ + q_) != G{v}(c.s, fd{j}_ + q_)) return 1u; return 0u; }}()",
                    f.len
                )
            };
            let _ = write!(s, "S{v}(c.s, fi{j}_, {differs}); ");
        }
        s
    }

    /// The trail entries of the flags (a move search records them as changed) and the
    /// statements restoring their old values.
    fn flag_trail_restore(
        &self,
        v: usize,
        flags: &[crate::expr::Flag],
        mode: Mode,
    ) -> (String, String) {
        let mut trail = String::new();
        let mut restore = String::new();
        for j in 0..flags.len() {
            if mode == Mode::Moves
                && let Some(t) = self.trail_entry(v, &format!("fi{j}_"))
            {
                let _ = write!(trail, "{t} ");
            }
            let _ = write!(restore, "S{v}(c.s, fi{j}_, fo{j}_); ");
        }
        (trail, restore)
    }

    fn domain_checks(
        &mut self,
        out: &mut String,
        ind: &str,
        e: EdgeId,
        var: usize,
        checks: &[(usize, String)],
    ) {
        for (level, key) in checks {
            let Some(Some(mask)) = self.layout.vars[var].domains.get(*level) else {
                continue;
            };
            let items: Vec<String> = mask.iter().map(|&b| u8::from(b).to_string()).collect();
            let arr = self.static_array("uint8_t", &items);
            let msg = c_string(&format!(
                "edge `{}` stores into a map at a key outside its domain",
                self.edge_text(e)
            ));
            let _ = writeln!(out, "{ind}if (!{arr}[{key}]) fail({msg});");
        }
    }

    /// A scalar right-hand side of class `class`.
    fn scalar_value(
        &self,
        rhs: rg_core::ExprId,
        class: usize,
        span: Option<Span>,
    ) -> Result<String, CompileError> {
        self.ex.scalar_in(rhs, class, "c.s", span)
    }

    fn vis_code(&self) -> &'static str {
        if self.dynamic_visibility {
            "vis_mask(c.s)"
        } else {
            "0"
        }
    }

    /// The static table of the local numbers of class `class` in the order of their names
    /// (the order in which a state's description lists map keys).
    fn name_order_table(&mut self, class: usize) -> String {
        let mut order: Vec<(u32, &str)> = self.layout.classes[class]
            .members
            .iter()
            .enumerate()
            .map(|(i, &m)| (i as u32, self.game.name(m)))
            .collect();
        order.sort_by(|a, b| a.1.as_bytes().cmp(b.1.as_bytes()));
        let items: Vec<String> = order.iter().map(|(i, _)| format!("{i}u")).collect();
        self.static_array("uint32_t", &items)
    }

    /// The static table of class `class`: local number → symbol id.
    fn class_table(&mut self, class: usize) -> String {
        let items: Vec<String> = self.layout.classes[class]
            .members
            .iter()
            .map(|s| format!("{}u", s.0))
            .collect();
        self.static_array("uint32_t", &items)
    }

    // ----- visited-state checks ----------------------------------------------------------

    /// Byte ranges (start, length) covering these variables, merged.
    fn byte_ranges(&self, vars: impl Iterator<Item = usize>) -> Vec<(u64, u64)> {
        let mut ranges: Vec<(u64, u64)> = vars
            .map(|i| self.layout.vars[i].byte_range())
            .filter(|r| r.1 > 0)
            .collect();
        ranges.sort_unstable();
        ranges.dedup();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (s, l) in ranges {
            if let Some(last) = merged.last_mut()
                && s <= last.0 + last.1
            {
                last.1 = last.1.max(s + l - last.0);
                continue;
            }
            merged.push((s, l));
        }
        merged
    }

    fn ranges_array(&mut self, merged: &[(u64, u64)]) -> String {
        let items: Vec<String> = merged
            .iter()
            .flat_map(|&(s, l)| [format!("{s}u"), format!("{l}u")])
            .collect();
        self.static_array("uint32_t", &items)
    }

    /// The visited-state check at the top of a node function (`on_seen` leaves the function):
    /// the determined-scope check, and the interpreter's where the scope may be shared.
    fn visit_code(
        &mut self,
        n: NodeId,
        checks: &KindChecks,
        kind: Option<NodeId>,
        on_seen: &str,
        nested: bool,
    ) -> String {
        let det = checks.det(n.index());
        if matches!(det, Check::Loop { .. })
            && !checks.nondet(n.index())
            && self.dropped_loops(kind, checks, false).contains(&n.index())
        {
            return String::new();
        }
        if !checks.nondet(n.index()) || *det == Check::Full {
            return self.det_code(n, det, on_seen, nested);
        }
        self.scope_nondet = true;
        let full = self.det_code(n, &Check::Full, on_seen, nested);
        let full = full.trim().trim_start_matches("if (");
        if *det == Check::None {
            return format!("  if (c.nondet && {full}\n");
        }
        let inner = self.det_code(n, det, on_seen, nested);
        format!("  if (c.nondet) {{\n    if ({full}\n  }} else {{\n{inner}  }}\n")
    }

    /// The nodes of a search kind whose loop check (a cycle of a single walk) can be left out:
    /// the node has one edge, which neither emits a tag, nor ends the walk, nor forks it (an
    /// any-assignment), and following such
    /// edges leads to a node that keeps its check before coming back. A state repeated at the
    /// node is then repeated along that chain (each edge a function of the state, nothing
    /// listed or emitted on the way) and the loop check at its end counts the same rounds, one
    /// node later.
    ///
    /// With `first_only` (move searches), scope-keyed checks count too: an apply walk that
    /// takes the first move it finds only counts visits there (see `first_only_check`).
    fn dropped_loops(
        &mut self,
        kind: Option<NodeId>,
        checks: &KindChecks,
        first_only: bool,
    ) -> &std::collections::HashSet<usize> {
        let key = (kind, first_only);
        if !self.dropped_loops.contains_key(&key) {
            let mut dropped = if first_only {
                self.dropped_loops(kind, checks, false).clone()
            } else {
                std::collections::HashSet::new()
            };
            let game = self.game;
            let plan = self.plan;
            let in_kind = |t: NodeId| match kind {
                None => plan.moves[t.index()],
                Some(b) => t != b && plan.in_reach(b, t),
            };
            // The one edge a node passes a walk along, if it is such a node.
            let pass = |q: usize| -> Option<NodeId> {
                let [e] = plan.out[q].as_slice() else {
                    return None;
                };
                let ed = game.edge(*e);
                let fork = matches!(ed.label, Label::AssignAny { .. });
                (!fork && !ed.label.is_tag() && !assigns_player(game, &ed.label) && in_kind(ed.to))
                    .then_some(ed.to)
            };
            for q in 0..game.node_capacity() {
                let counted = if first_only {
                    matches!(checks.det(q), Check::Scoped { .. })
                } else {
                    matches!(checks.det(q), Check::Loop { .. })
                };
                if !counted || checks.nondet(q) || !in_kind(NodeId::new(q)) {
                    continue;
                }
                let mut cur = pass(q);
                let mut steps = 0;
                let keep = loop {
                    let Some(t) = cur else { break true };
                    let ti = t.index();
                    steps += 1;
                    if ti == q || steps > 64 {
                        break true;
                    }
                    // A node of a shared scope has the interpreter's check there, but with the
                    // optimistic check its scopes are shared only in a search run again.
                    let kept = (checks.nondet(ti) && (kind.is_some() || self.optimistic.is_none()))
                        || (*checks.det(ti) != Check::None && !dropped.contains(&ti));
                    if kept {
                        break false;
                    }
                    cur = pass(ti);
                };
                if !keep {
                    dropped.insert(q);
                }
            }
            self.dropped_loops.insert(key, dropped);
        }
        &self.dropped_loops[&key]
    }

    /// An apply walk that takes the first move it finds (`c.first_only`) needs no scope-keyed
    /// check for its result: a state expanded again finds no move the first expansion did not
    /// find (else the walk would have stopped), so it only counts the visits, as a loop
    /// check, which keeps the walk finite and its work bounded.
    fn first_only_check(&mut self, n: NodeId, check: String, apply: bool) -> String {
        let det = self.visits.moves.det(n.index());
        let Check::Scoped { vars } = det else {
            return check;
        };
        if !apply || self.visits.moves.nondet(n.index()) {
            return check;
        }
        let visits = self.visits;
        if self
            .dropped_loops(None, &visits.moves, true)
            .contains(&n.index())
        {
            return format!("  if (!c.first_only) {{\n    {}  }}\n", check.trim_start());
        }
        let base = self.visits.stamp_slots + self.extra_stamps;
        self.extra_stamps += 2;
        let counted = self.det_code(
            n,
            &Check::Loop {
                vars: vars.clone(),
                base,
            },
            "return false;",
            false,
        );
        format!(
            "  if (c.first_only) {{\n    {}  }} else {{\n    {}  }}\n",
            counted.trim_start(),
            check.trim_start()
        )
    }

    /// `nested`: the node belongs to searches that can run inside one another, whose marks
    /// are kept per nesting level.
    fn det_code(&mut self, n: NodeId, check: &Check, on_seen: &str, nested: bool) -> String {
        let stamps = if nested {
            "level_stamps(c)"
        } else {
            "c.stamps.data()"
        };
        let q = n.index();
        match check {
            Check::None => String::new(),
            Check::Stamp { vars, radix, base } => {
                self.scope_epochs = true;
                let mut idx = format!("{base}u");
                for (v, r) in vars.iter().zip(radix) {
                    // Node functions have the hot variable's value at hand.
                    if Some(*v) == self.hot {
                        let _ = write!(idx, " + x * {r}u");
                    } else {
                        let _ = write!(idx, " + G{v}(c.s, 0) * {r}u");
                    }
                }
                format!(
                    "  {{ uint64_t& st_ = {stamps}[{idx}]; if (st_ == c.epoch) {on_seen} st_ = c.epoch; }}\n"
                )
            }
            Check::Loop { vars, base } => {
                self.scope_epochs = true;
                let merged = self.byte_ranges(vars.iter().copied());
                let bytes: u64 = merged.iter().map(|r| r.1).sum();
                let arr = self.ranges_array(&merged);
                format!(
                    "  if (!loop_check(c, &{stamps}[{base}u], {q}u, {arr}, {}u, {}u)) {on_seen}\n",
                    merged.len(),
                    bytes.div_ceil(8)
                )
            }
            Check::Scoped { vars } => {
                self.scope_epochs = true;
                let merged = self.byte_ranges(vars.iter().copied());
                let bytes: u64 = merged.iter().map(|r| r.1).sum();
                let arr = self.ranges_array(&merged);
                format!(
                    "  if (!visit_scoped(c, {q}u, {arr}, {}u, {}u)) {on_seen}\n",
                    merged.len(),
                    bytes.div_ceil(8)
                )
            }
            Check::Full => match self.plan.visit[q].clone() {
                Visit::None | Visit::Full => {
                    format!("  if (!visit(c, {q}u, c.s.b, ORDINARY_WORDS)) {on_seen}\n")
                }
                Visit::Vars(vars) => {
                    let idx: Vec<usize> = vars
                        .iter()
                        .filter_map(|v| self.layout.var_by_name.get(v).copied())
                        .collect();
                    let merged = self.byte_ranges(idx.into_iter());
                    let bytes: u64 = merged.iter().map(|r| r.1).sum();
                    if merged.is_empty() {
                        return format!("  if (!visit(c, {q}u, nullptr, 0)) {on_seen}\n");
                    }
                    if merged.len() == 1 && merged[0].0 % 8 == 0 && merged[0].1 % 8 == 0 {
                        return format!(
                            "  if (!visit(c, {q}u, c.s.b + {}, {}u)) {on_seen}\n",
                            merged[0].0,
                            merged[0].1 / 8
                        );
                    }
                    let arr = self.ranges_array(&merged);
                    format!(
                        "  if (!visit_ranges(c, {q}u, {arr}, {}u, {}u)) {on_seen}\n",
                        merged.len(),
                        bytes.div_ceil(8)
                    )
                }
            },
        }
    }

    /// Declarations of the per-expansion reach results of node `n` (of the checks that more
    /// than one of its edges make).
    fn reach_cache(&self, n: NodeId) -> String {
        let mut ks: Vec<usize> = Vec::new();
        for &e in &self.plan.out[n.index()] {
            if let Label::Reach { from, to, .. } = self.game.edge(e).label
                && from != to
                && self.shared_checks.contains(&(n, (from, to)))
            {
                ks.push(self.pairs[&(from, to)]);
            }
        }
        ks.sort_unstable();
        ks.dedup();
        ks.iter().map(|k| format!("  int rc{k} = -1;\n")).collect()
    }

    // ----- node functions --------------------------------------------------------------

    /// The `@simpleApply` shortcuts of node `n` in apply mode. They are taken only when the
    /// move is known to be legal (`apply` of a listed move) and is the first listed with its
    /// tags (`goal_skip` 0): then the pragma's promise, which the interpreter does not use,
    /// gives its state without a search. A pattern whose assignments store whole maps is left
    /// to the search.
    fn simple_applies(&mut self, n: NodeId) -> Result<String, CompileError> {
        if self.plan.ignore_pragmas {
            return Ok(String::new());
        }
        let pragmas: Vec<_> = self
            .game
            .pragmas
            .iter()
            .filter_map(|p| match &p.kind {
                rg_core::PragmaKind::SimpleApply {
                    from,
                    to,
                    tags,
                    assignments,
                    exhaustive,
                } if *from == n => Some((*to, tags.clone(), assignments.clone(), *exhaustive)),
                _ => None,
            })
            .collect();
        if pragmas.is_empty() {
            return Ok(String::new());
        }
        // Only patterns whose binders all set a variable are used: a binder that no
        // assignment uses stands for a `$$ v` whose value the pattern does not check, and
        // another walk from the node may emit a symbol of that type next. And only when no
        // two patterns of the node can match one tag sequence.
        let binds_all =
            |tags: &[rg_core::PragmaTag], assignments: &[(rg_core::ExprId, rg_core::ExprId)]| {
                tags.iter().all(|t| match t {
                rg_core::PragmaTag::Symbol(_) => true,
                rg_core::PragmaTag::Variable(b, _) => assignments.iter().any(|&(_, r)| {
                    matches!(self.game.expr(self.game.strip_casts(r)), rg_core::ExprData::Ref(x) if x == *b)
                }),
            })
            };
        let overlap = |a: &[rg_core::PragmaTag], b: &[rg_core::PragmaTag]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| match (x, y) {
                    (rg_core::PragmaTag::Symbol(p), rg_core::PragmaTag::Symbol(q)) => p == q,
                    _ => true,
                })
        };
        for (i, p) in pragmas.iter().enumerate() {
            if !binds_all(&p.1, &p.2) || pragmas[i + 1..].iter().any(|q| overlap(&p.1, &q.1)) {
                return Ok(String::new());
            }
        }
        let wk = *self.game.well_known();
        let mut out = String::from("  if (c.trusted && c.goal_skip == 0) {\n");
        let mut all_exhaustive = true;
        for (to, tags, assignments, exhaustive) in pragmas {
            let k = tags.len();
            let mut conds = vec![format!("c.goal_n - c.ntags >= {k}u")];
            let mut binders = HashMap::new();
            for (i, t) in tags.iter().enumerate() {
                match t {
                    rg_core::PragmaTag::Symbol(s) => {
                        conds.push(format!("c.goal[c.ntags + {i}u] == {}u", s.0));
                    }
                    rg_core::PragmaTag::Variable(b, ty) => {
                        let env = rg_core::typeck::TypeEnv::new(self.game);
                        let Ok(Some(ms)) = env.values(*ty) else {
                            return Ok(String::new());
                        };
                        let mut mask = vec!["0".to_string(); self.game.symbols().len()];
                        for m in ms.as_slice() {
                            mask[m.index()] = "1".into();
                        }
                        let arr = self.static_array("uint8_t", &mask);
                        conds.push(format!("{arr}[c.goal[c.ntags + {i}u]]"));
                        binders.insert(*b, format!("c.goal[n0_ + {i}u]"));
                    }
                }
            }
            // The assignments, in order, with the binders bound.
            let ex = ExprGen {
                game: self.game,
                layout: self.layout,
                binders,
                sl_used: Default::default(),
                subst: None,
                wide: false,
            };
            let mut body = String::new();
            let mut ends = false;
            let mut ok = true;
            for (lhs, rhs) in &assignments {
                let Ok(loc) = ex.location(*lhs, "c.s", None) else {
                    ok = false;
                    break;
                };
                let Shape::Scalar(class) = loc.shape else {
                    ok = false;
                    break;
                };
                if !loc.flags.is_empty() {
                    ok = false; // a store into an explicit map sets presence flags too
                    break;
                }
                let Ok(val) = ex.scalar_in(*rhs, class, "c.s", None) else {
                    ok = false;
                    break;
                };
                let v = loc.var;
                if self.layout.vars[v].name == wk.player && loc.depth == 0 {
                    ends = true;
                }
                let _ = writeln!(
                    body,
                    "      {{ const uint32_t i_ = {}; const uint32_t v_ = {val}; S{v}(c.s, i_, v_); }}",
                    loc.index
                );
            }
            if !ok {
                all_exhaustive = false;
                continue;
            }
            for c in ex.sl_used.borrow().iter() {
                self.ex.sl_used.borrow_mut().insert(*c);
            }
            if ends {
                conds[0] = format!("c.goal_n - c.ntags == {k}u");
            }
            all_exhaustive &= exhaustive;
            let _ = writeln!(out, "    if ({}) {{", conds.join(" && "));
            out.push_str("      const uint32_t n0_ = c.ntags;\n");
            if !exhaustive && !ends {
                out.push_str(
                    "      const State sv_ = c.s;\n      const uint64_t ep_ = c.epoch;\n      const bool nd_ = c.nondet;\n",
                );
            }
            out.push_str(&body);
            for i in 0..k {
                let _ = writeln!(out, "      push_tag(c, c.goal[n0_ + {i}u], 0, true);");
            }
            if ends {
                let _ = writeln!(out, "      c.s.node = {}u;\n      return true;", to.index());
            } else if exhaustive {
                let _ = writeln!(out, "      return A{}(c{});", to.index(), self.xarg());
            } else {
                let _ = writeln!(
                    out,
                    "      if (A{}(c{})) return true;\n      c.s = sv_;\n      c.ntags = n0_;\n      c.epoch = ep_;\n      c.nondet = nd_;",
                    to.index(),
                    self.xarg()
                );
            }
            out.push_str("    }\n");
        }
        if all_exhaustive {
            out.push_str("    return false;\n");
        }
        out.push_str("  }\n");
        Ok(out)
    }

    /// The move-search function of node `n` (`M<n>`), or its apply-mode twin (`A<n>`).
    fn moves_fn(&mut self, n: NodeId, mode: Mode) -> Result<String, CompileError> {
        let apply = mode == Mode::Apply;
        let (prefix, ret, on_seen) = if apply {
            ("A", "bool", "return false;")
        } else {
            ("M", "void", "return;")
        };
        let xa = self.xarg();
        let cont_of = |t: NodeId| {
            if apply {
                format!("if (A{}(c{xa})) return true;", t.index())
            } else {
                format!("M{}(c{xa});", t.index())
            }
        };
        let mut f = String::new();
        self.uncounted_loop = false;
        let _ = writeln!(
            f,
            "static {ret} {prefix}{}(Cache& c{}) {{  // {}",
            n.index(),
            self.xparam(),
            comment(self.game.node_name(n))
        );
        self.ex.subst = self.hot.map(|v| (v, "x".to_string()));
        let visits = self.visits;
        let check = self.visit_code(n, &visits.moves, None, on_seen, false);
        f.push_str(&self.first_only_check(n, check, apply));
        if apply {
            f.push_str(&self.simple_applies(n)?);
        } else if self.deferred[n.index()] {
            // The checks below decide only where the move leads: `apply` finishes it.
            let _ = writeln!(
                f,
                "  if (c.lazy) {{ emit(c, {}u, G{}(c.s, 0)); return; }}",
                n.index(),
                self.layout.player
            );
        }
        f.push_str(&self.reach_cache(n));
        let edges = self.plan.out[n.index()].clone();
        let finishing = |g: &Gen<'_>, e: EdgeId| assigns_player(g.game, &g.game.edge(e).label);
        if let Some(exhaustive) = self.plan.disjoint[n.index()] {
            let mut first = true;
            for (i, &e) in edges.iter().enumerate() {
                let last = i + 1 == edges.len();
                let (head, unconditional) = self.disjoint_branch(e, exhaustive, first, last)?;
                f.push_str(&head);
                if finishing(self, e) {
                    self.finish(&mut f, "    ", e, mode)?;
                } else {
                    let cont = cont_of(self.game.edge(e).to);
                    self.action(&mut f, "    ", e, &cont, mode, true)?;
                }
                f.push_str("  }\n");
                first = false;
                if unconditional {
                    break;
                }
            }
        } else {
            for &e in edges.iter().rev() {
                if finishing(self, e) {
                    self.finish(&mut f, "  ", e, mode)?;
                }
            }
            for &e in edges.iter().rev() {
                if finishing(self, e) {
                    continue;
                }
                let cont = cont_of(self.game.edge(e).to);
                match self.condition(e, "c.s")? {
                    Some(cond) => {
                        let _ = writeln!(f, "  if ({cond}) {{");
                        self.action(&mut f, "    ", e, &cont, mode, true)?;
                        f.push_str("  }\n");
                    }
                    None => self.action(&mut f, "  ", e, &cont, mode, true)?,
                }
            }
        }
        if apply {
            f.push_str("  return false;\n");
        }
        f.push_str("}\n\n");
        self.ex.subst = None;
        let f = f.replace("@X@", &self.xstate());
        let mut f = f;
        if self.uncounted_loop {
            // A function that calls the next node once per member of a selection is kept out
            // of line: g++ then inlines the loop's body into it, which it stops doing once the
            // loop itself is inlined into a large caller (englishDraughts from HRG: count 180
            // -> 165 K instructions per play; with the body called per member, 199 K).
            f.insert_str(0, "[[gnu::noinline]] ");
        }
        Ok(f)
    }

    /// A finished move: copy the walk's state and apply the assignment to `player` to the
    /// copy; in apply mode, when every tag of the move matched, apply it to the state itself and
    /// stop (the first such move in output order is the one applied).
    fn finish(
        &mut self,
        out: &mut String,
        ind: &str,
        e: EdgeId,
        mode: Mode,
    ) -> Result<(), CompileError> {
        let d = self.game.edge(e);
        let span = d.spans.whole;
        let t = d.to.index();
        let p = self.layout.player;
        let class = self.layout.vars[p].shape.leaf();
        let apply = mode == Mode::Apply;
        match d.label {
            Label::Assign { rhs, .. } => {
                let val = self.scalar_value(rhs, class, span)?;
                if apply {
                    let _ = writeln!(
                        out,
                        "{ind}if (c.any_tags || c.ntags == c.goal_n) {{ if (c.goal_skip) --c.goal_skip; else {{ const uint32_t v_ = {val}; S{p}(c.s, 0, v_); c.s.node = {t}u; return true; }} }}"
                    );
                } else {
                    let _ = writeln!(out, "{ind}emit(c, {t}u, {val});");
                }
            }
            Label::AssignAny { ty, .. } => {
                let members = self.members(ty, class, span)?;
                if apply {
                    // Results come out last member first.
                    if !members.is_empty() {
                        let n = members.len();
                        let items: Vec<String> =
                            members.iter().rev().map(|m| format!("{m}u")).collect();
                        let arr = self.static_array("uint32_t", &items);
                        let _ = writeln!(
                            out,
                            "{ind}if (c.any_tags || c.ntags == c.goal_n) {{ if (c.goal_skip >= {n}u) c.goal_skip -= {n}u; else {{ S{p}(c.s, 0, {arr}[c.goal_skip]); c.s.node = {t}u; return true; }} }}"
                        );
                    }
                } else {
                    let lp = self.member_loop(&members, true);
                    let _ = writeln!(out, "{ind}{lp} emit(c, {t}u, m_);");
                }
            }
            _ => unreachable!("only assignments finish a move"),
        }
        Ok(())
    }

    /// The head of edge `e`'s branch at a node with a covering `@disjoint` (`if`, `else if`,
    /// or, for the last edge of an exhaustive one, `else`), and whether the branch is taken
    /// unconditionally (the edges after it are never tried).
    fn disjoint_branch(
        &mut self,
        e: EdgeId,
        exhaustive: bool,
        first: bool,
        last: bool,
    ) -> Result<(String, bool), CompileError> {
        let mut cond = self.condition(e, "c.s")?;
        if exhaustive && last && !first {
            cond = None;
        }
        let head = match (&cond, first) {
            (Some(c), true) => format!("  if ({c}) {{\n"),
            (Some(c), false) => format!("  else if ({c}) {{\n"),
            (None, true) => "  {\n".to_string(),
            (None, false) => "  else {\n".to_string(),
        };
        Ok((head, cond.is_none()))
    }

    /// The strongly connected component of each node of the search towards `b`, in the
    /// graph of its edges.
    fn reach_comp(&mut self, b: NodeId) -> &[usize] {
        if !matches!(&self.reach_comp, Some((x, _)) if *x == b) {
            // Over the search's own nodes only, numbered by their position in its set.
            let nodes = &self.plan.reach[&b];
            let succ: Vec<Vec<usize>> = nodes
                .iter()
                .map(|q| {
                    self.plan.out[q.index()]
                        .iter()
                        .filter_map(|&e| nodes.position(self.game.edge(e).to))
                        .collect()
                })
                .collect();
            let (comp, _) = crate::visits::components(nodes.len(), &succ);
            self.reach_comp = Some((b, comp));
        }
        &self.reach_comp.as_ref().expect("just set").1
    }

    /// The only edge that the search towards `b` follows from `n`, when `n` has no covering
    /// `@disjoint` and the edge only tests (a skip, a comparison or a check): the search goes
    /// on from its target exactly when the test holds.
    fn chain_edge(&self, b: NodeId, n: NodeId) -> Option<EdgeId> {
        if n == b || self.plan.disjoint[n.index()].is_some() {
            return None;
        }
        let mut inside = self.plan.out[n.index()]
            .iter()
            .filter(|&&e| self.plan.in_reach(b, self.game.edge(e).to));
        let e = *inside.next()?;
        (inside.next().is_none() && is_test(self.game.edge(e).label)).then_some(e)
    }

    /// Per node of the search towards `b` (by position in its set), whether its function is
    /// folded into its only caller's. Such a node is entered only through one test edge (a
    /// skip, a comparison or a check) of a node without a covering `@disjoint`, is not where a
    /// check starts, needs no visited check and keeps no check's answer in a local; and either
    /// that edge is the only one its caller follows ([`Gen::chain_edge`]: the caller goes on
    /// with the node's code, whatever it is), or the node's code is itself a chain of tests
    /// ending at `b` or at a node with a function of its own (the caller tests the whole chain
    /// in one condition). A GDL translation's checks are mostly such chains and disjunctions of
    /// them: one function each instead of one per node.
    fn reach_folded(&mut self, b: NodeId) -> &[bool] {
        if !matches!(&self.reach_folded, Some((x, _)) if *x == b) {
            let nodes: Vec<NodeId> = self.plan.reach[&b].iter().collect();
            let set = &self.plan.reach[&b];
            let checks = &self.visits.reach[&b];
            let game = self.game;
            let mut incoming = vec![0u32; nodes.len()];
            let mut via: Vec<Option<EdgeId>> = vec![None; nodes.len()];
            for &n in nodes.iter().filter(|&&n| n != b) {
                for &e in &self.plan.out[n.index()] {
                    if let Some(j) = set.position(game.edge(e).to) {
                        incoming[j] += 1;
                        via[j] = Some(e);
                    }
                }
            }
            let starts = self.check_starts.get(&b).map_or(&[][..], Vec::as_slice);
            let base: Vec<bool> = nodes
                .iter()
                .enumerate()
                .map(|(j, &t)| {
                    t != b
                        && incoming[j] == 1
                        && via[j].is_some_and(|e| {
                            self.plan.disjoint[game.edge(e).from.index()].is_none()
                                && is_test(game.edge(e).label)
                        })
                        && matches!(checks.det(t.index()), Check::None)
                        && !checks.nondet(t.index())
                        && !starts.contains(&t)
                        && !self.plan.out[t.index()].iter().any(|&e| {
                            matches!(game.edge(e).label, Label::Reach { from, to, .. } if self.shared_checks.contains(&(t, (from, to))))
                        })
                })
                .collect();
            let tail: Vec<bool> = (0..nodes.len())
                .map(|j| {
                    base[j]
                        && via[j].is_some_and(|e| self.chain_edge(b, game.edge(e).from).is_some())
                })
                .collect();
            // A chain of tests from `t`: through nodes folded in tail position, to `b` or to a
            // node with a function of its own (at most one step per node: no cycle).
            let test_chain = |t: NodeId| {
                let mut cur = t;
                for _ in 0..nodes.len() {
                    let Some(e) = self.chain_edge(b, cur) else {
                        return false;
                    };
                    let u = game.edge(e).to;
                    match set.position(u) {
                        Some(k) if u != b && tail[k] => cur = u,
                        _ => return true,
                    }
                }
                false
            };
            let folded = (0..nodes.len())
                .map(|j| tail[j] || (base[j] && test_chain(nodes[j])))
                .collect();
            self.reach_folded = Some((b, folded));
        }
        &self.reach_folded.as_ref().expect("just set").1
    }

    /// Whether the function of node `q` in the search towards `b` is folded into its caller's.
    fn is_folded(&mut self, b: NodeId, q: NodeId) -> bool {
        match self.plan.reach[&b].position(q) {
            Some(j) => self.reach_folded(b)[j],
            None => false,
        }
    }

    /// The continuation of a search towards `b` into node `t`: the target itself holds at once
    /// (it has no function), any other node's function is called.
    fn reach_call(&self, b: NodeId, t: NodeId) -> String {
        if t == b {
            "r = true;".to_string()
        } else {
            format!("r = R{}_{}(c{});", b.index(), t.index(), self.xarg())
        }
    }

    fn reach_fn(&mut self, b: NodeId, n: NodeId) -> Result<String, CompileError> {
        let mut f = String::new();
        let _ = writeln!(
            f,
            "static bool R{}_{}(Cache& c{}) {{  // {} -> {}",
            b.index(),
            n.index(),
            self.xparam(),
            comment(self.game.node_name(n)),
            comment(self.game.node_name(b))
        );
        self.ex.subst = self.hot.map(|v| (v, "x".to_string()));
        let visits = self.visits;
        let nested = self.self_nesting.contains(&b);
        f.push_str(&self.visit_code(n, &visits.reach[&b], Some(b), "return false;", nested));
        f.push_str(&self.reach_cache(n));
        // Folded nodes: the chain's tests one after the other, then the code of its last node.
        let mut n = n;
        while let Some(e) = self.chain_edge(b, n) {
            let t = self.game.edge(e).to;
            if t != b && !self.is_folded(b, t) {
                break;
            }
            if let Some(cond) = self.condition(e, "c.s")? {
                let _ = writeln!(f, "  if (!({cond})) return false;");
            }
            if t == b {
                f.push_str("  return true;\n}\n\n");
                self.ex.subst = None;
                return Ok(f.replace("@X@", &self.xstate()));
            }
            n = t;
        }
        f.push_str("  bool r = false;\n");
        let edges = self.plan.out[n.index()].clone();
        let mode = Mode::Reach(b);
        if let Some(exhaustive) = self.plan.disjoint[n.index()] {
            let mut first = true;
            for (i, &e) in edges.iter().enumerate() {
                let last = i + 1 == edges.len();
                let (head, unconditional) = self.disjoint_branch(e, exhaustive, first, last)?;
                f.push_str(&head);
                let t = self.game.edge(e).to;
                if self.plan.in_reach(b, t) {
                    let cont = self.reach_call(b, t);
                    self.action(&mut f, "    ", e, &cont, mode, false)?;
                    f.push_str("    return r;\n");
                } else {
                    f.push_str("    return false;\n");
                }
                f.push_str("  }\n");
                first = false;
                if unconditional {
                    break;
                }
            }
        } else {
            // A search that succeeds stops at once: the edges leaving a cycle are tried before
            // those going round it again (`down* {e}` checks the cell it is at before walking
            // on); the answer is the same in every order.
            let mut edges = edges;
            let game = self.game;
            let plan = self.plan;
            let nodes = &plan.reach[&b];
            let comp = self.reach_comp(b);
            // A target outside the search is never followed: its place does not matter.
            let comp_of = |q: NodeId| nodes.position(q).map(|i| comp[i]);
            edges.sort_by_key(|&e| comp_of(game.edge(e).to) == comp_of(n));
            for &e in &edges {
                let t = self.game.edge(e).to;
                if !self.plan.in_reach(b, t) {
                    continue;
                }
                if is_test(self.game.edge(e).label) && (t == b || self.is_folded(b, t)) {
                    // The edge and the chain of tests after it in one condition.
                    let mut conds: Vec<String> = Vec::new();
                    conds.extend(self.condition(e, "c.s")?.map(|c| format!("({c})")));
                    let mut end = t;
                    while end != b && self.is_folded(b, end) {
                        let Some(next) = self.chain_edge(b, end) else {
                            return Err(CompileError::at(
                                "internal: a folded check node without its test chain",
                                None,
                            ));
                        };
                        conds.extend(self.condition(next, "c.s")?.map(|c| format!("({c})")));
                        end = self.game.edge(next).to;
                    }
                    let test = if conds.is_empty() {
                        "true".to_string()
                    } else {
                        conds.join(" && ")
                    };
                    if end == b {
                        let _ = writeln!(f, "  if ({test}) return true;");
                    } else {
                        let call = self.xarg().replace("@X@", "x");
                        let _ = writeln!(
                            f,
                            "  if ({test}) {{\n    r = R{}_{}(c{call});\n    if (r) return true;\n  }}",
                            b.index(),
                            end.index()
                        );
                    }
                    continue;
                }
                let cont = self.reach_call(b, t);
                match self.condition(e, "c.s")? {
                    Some(cond) => {
                        let _ = writeln!(f, "  if ({cond}) {{");
                        self.action(&mut f, "    ", e, &cont, mode, false)?;
                        f.push_str("    if (r) return true;\n  }\n");
                    }
                    None => {
                        self.action(&mut f, "  ", e, &cont, mode, false)?;
                        f.push_str("  if (r) return true;\n");
                    }
                }
            }
        }
        f.push_str("  (void)r;\n  return false;\n}\n\n");
        self.ex.subst = None;
        Ok(f.replace("@X@", &self.xstate()))
    }

    // ----- whole files -----------------------------------------------------------------

    /// Accessors of every variable: `G<v>(state, element)` and `S<v>(state, element, value)`.
    fn accessors(&self) -> String {
        let mut s = String::new();
        for (v, f) in self.layout.vars.iter().enumerate() {
            let name = comment(self.game.name(f.name));
            let (get, set) = match f.width {
                0 => (
                    "(void)s; (void)i; return 0;".to_string(),
                    "(void)s; (void)i; (void)x;".to_string(),
                ),
                1 | 2 | 4 => {
                    let w = f.width;
                    let mask = (1u32 << w) - 1;
                    let bit = f.bit;
                    (
                        format!(
                            "const uint64_t p = {bit}u + uint64_t(i) * {w}u; return (s.b[p >> 3] >> (p & 7)) & {mask}u;"
                        ),
                        format!(
                            "const uint64_t p = {bit}u + uint64_t(i) * {w}u; uint8_t& r = s.b[p >> 3]; r = uint8_t((r & ~({mask}u << (p & 7))) | (x << (p & 7)));"
                        ),
                    )
                }
                8 => {
                    let o = f.bit / 8;
                    (
                        format!("return s.b[{o}u + i];"),
                        format!("s.b[{o}u + i] = uint8_t(x);"),
                    )
                }
                16 => {
                    let o = f.bit / 8;
                    (
                        format!("return ld16(s.b + {o}u + 2u * i);"),
                        format!("st16(s.b + {o}u + 2u * i, x);"),
                    )
                }
                _ => {
                    let o = f.bit / 8;
                    (
                        format!("return ld32(s.b + {o}u + 4u * i);"),
                        format!("st32(s.b + {o}u + 4u * i, x);"),
                    )
                }
            };
            let _ = writeln!(
                s,
                "// {name}: {} element(s) of {} bit(s) at bit {}",
                f.count, f.width, f.bit
            );
            let _ = writeln!(
                s,
                "static inline uint32_t G{v}(const State& s, uint32_t i) {{ {get} }}"
            );
            // The same with a 64-bit index, read in selection loops (consecutive members at
            // consecutive addresses, so the compiler vectorises their count).
            let _ = writeln!(
                s,
                "static inline uint32_t GW{v}(const State& s, size_t i) {{ {get} }}"
            );
            let _ = writeln!(
                s,
                "static inline void S{v}(State& s, uint32_t i, uint32_t x) {{ {set} }}"
            );
        }
        s
    }

    fn constants(&self) -> String {
        let mut s = String::new();
        for (k, c) in self.layout.consts.iter().enumerate() {
            let width = self.layout.classes[c.shape.leaf()].width();
            let items: Vec<String> = c.elements.iter().map(|x| x.to_string()).collect();
            let _ = writeln!(s, "// {}", comment(self.game.name(c.name)));
            let _ = writeln!(
                s,
                "static const {} K{k}[{}] = {{{}}};",
                int_type(width),
                items.len().max(1),
                items.join(", ")
            );
        }
        s
    }

    /// The printed form of a runtime value, as the interpreter prints it: a bare symbol, or
    /// `{ :d, k1: v1, … }` with the listed entries sorted by key.
    fn value_text(&self, v: &RtVal) -> String {
        match v {
            RtVal::Elem(s) => self.game.name(*s).to_string(),
            RtVal::Map(d, es) => {
                let mut out = format!("{{ :{}", self.value_text(d));
                let mut entries: Vec<(&str, &RtVal)> =
                    es.iter().map(|(k, v)| (self.game.name(*k), v)).collect();
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (k, v) in entries {
                    let _ = write!(out, ", {k}: {}", self.value_text(v));
                }
                out.push_str(" }");
                out
            }
        }
    }

    /// Statements appending the value of variable `v` (elements from `idx`, shape `shape`, map
    /// depth `depth`) to `o`, printed as the interpreter prints values.
    ///
    /// Element `idx` of `v` is read by its accessor `G{v}`, or when `generic` by the table
    /// model's `var_elem(s, v_, …)` of the variable `v_` the function is given at run time (so
    /// that variables of one shape share one function).
    #[allow(clippy::too_many_arguments)]
    fn fmt_code(
        &mut self,
        out: &mut String,
        v: usize,
        generic: bool,
        idx: &str,
        shape: &Shape,
        depth: usize,
        ind: &str,
    ) {
        let reader = |idx: &str| {
            if generic {
                format!("var_elem(s, v_, {idx})")
            } else {
                format!("G{v}(s, {idx})")
            }
        };
        match shape {
            Shape::Scalar(c) => {
                let t = self.class_table(*c);
                let get = reader(idx);
                let _ = writeln!(out, "{ind}o += symbol_name({t}[{get}]);");
            }
            Shape::Map { key, val, ext } => {
                let stride = val.elements(&self.layout.classes);
                let n = self.layout.classes[*key].members.len() as u64;
                let ord = self.name_order_table(*key);
                let keys = self.class_table(*key);
                // The opening with the default, and the statements that skip an entry the map
                // does not list.
                let mut skip = String::new();
                if *ext {
                    // The default and the presence flags are in the state.
                    let trailer = n * stride;
                    let _ = writeln!(out, "{ind}o += \"{{ :\";");
                    let default = format!("{idx} + {}u", trailer + n);
                    self.fmt_code(out, v, generic, &default, val, depth + 1, ind);
                    let _ = writeln!(
                        skip,
                        "{ind}  if (!{}) continue;",
                        reader(&format!("{idx} + {trailer}u + k{depth}_"))
                    );
                } else {
                    // The default is fixed; an entry equal to it is not listed.
                    let default = self.layout.vars[v].init.uniform_default(depth).cloned();
                    let (dtext, drow) = match &default {
                        Some(d) => {
                            let mut row = Vec::new();
                            flatten_into(d, val, &self.layout.classes, &mut row);
                            (self.value_text(d), row)
                        }
                        None => ("?".to_string(), Vec::new()),
                    };
                    let dlit = c_string(&dtext);
                    let rows: Vec<String> = drow.iter().map(|x| format!("{x}u")).collect();
                    let darr = self.static_array("uint32_t", &rows);
                    let _ = writeln!(out, "{ind}o += \"{{ :\"; o += {dlit};");
                    if default.is_some() {
                        let _ = writeln!(
                            skip,
                            "{ind}  bool d_ = true; for (uint32_t j_ = 0; j_ < {stride}u; ++j_) if ({} != {darr}[j_]) {{ d_ = false; break; }}",
                            reader(&format!("b{depth}_ + j_"))
                        );
                        let _ = writeln!(skip, "{ind}  if (d_) continue;");
                    }
                }
                let _ = writeln!(out, "{ind}for (uint32_t q_ = 0; q_ < {n}u; ++q_) {{");
                let _ = writeln!(
                    out,
                    "{ind}  const uint32_t k{depth}_ = {ord}[q_]; const uint32_t b{depth}_ = {idx} + k{depth}_ * {stride}u;"
                );
                out.push_str(&skip);
                let _ = writeln!(
                    out,
                    "{ind}  o += \", \"; o += symbol_name({keys}[k{depth}_]); o += \": \";"
                );
                let inner = format!("b{depth}_");
                let i2 = format!("{ind}  ");
                self.fmt_code(out, v, generic, &inner, val, depth + 1, &i2);
                let _ = writeln!(out, "{ind}}}");
                let _ = writeln!(out, "{ind}o += \" }}\";");
            }
        }
    }

    /// Generates `game.hpp` and `game.cpp`.
    /// `unit_bytes`: see [`UNIT_BYTES`].
    pub fn generate(mut self, name: &str, unit_bytes: usize) -> Result<Generated, CompileError> {
        let game = self.game;
        let begin = game.begin().ok_or(CompileError::NoBegin)?;
        let end = game.end().map_or(u32::MAX, |n| n.0);

        // Players: the declared keys of `goals`, else the players `player` can hold.
        let players: Vec<Symbol> = self.players();
        let static_vis = self.static_visibility(&players);

        // The order of these calls is the order in which static tables are numbered.
        let mut decls = String::new();
        let body = self.node_fns(&mut decls)?;
        let checks = self.check_fns(&mut decls);
        let guards = self.guard_fns(&mut decls);
        let fmt = self.fmt_fns();
        let accessors = self.accessors();
        let constants = self.constants();
        let vis_fn = self.vis_fn(&players);
        let goals_fns = self.goals_fns(&players, None);

        let hpp = self.header(name, begin, end, players.len(), static_vis, false);
        let sections = Sections {
            head: format!(
                "// Forward model of the game `{}`, generated by rgt (rg-compile). Do not edit.\n",
                comment(name)
            ),
            names: self.names(),
            shared: self.shared(&accessors, &constants, &vis_fn),
            decls,
            checks,
            guards,
            body,
            fmt,
        };
        let (mut cpp, split) = sections.units(unit_bytes);
        self.api(&mut cpp, end, &goals_fns);
        let _ = writeln!(cpp, "const char* const GAME_NAME = {};", c_string(name));
        if let Some((items, _)) = &split {
            // game.cpp declares what it uses too.
            let used = items.used_by(&cpp);
            cpp = cpp.replacen(SHARED_MARK, &used, 1);
        }
        // The hash of all units in order, without joining them (a large game has hundreds of
        // MB of them).
        let fingerprint = match &split {
            None => fingerprint(&cpp),
            Some((_, parts)) => parts
                .iter()
                .fold(fingerprint(&cpp), |h, p| fingerprint_from(h, p)),
        };
        let _ = writeln!(
            cpp,
            "const char* const GAME_FINGERPRINT = \"{fingerprint:016x}\";\n\n}}  // namespace rg"
        );
        let parts = split.map(|(_, parts)| parts).unwrap_or_default();
        Ok(Generated { hpp, cpp, parts })
    }

    /// `game.hpp` and `game.cpp` of the table model ([`crate::tables`]): the automaton as
    /// arrays and the fixed engine, with the same state layout, printing and API as the
    /// function model.
    pub fn generate_tables(mut self, name: &str) -> Result<Generated, CompileError> {
        let game = self.game;
        let begin = game.begin().ok_or(CompileError::NoBegin)?;
        let end = game.end().map_or(u32::MAX, |n| n.0);
        let players: Vec<Symbol> = self.players();
        let static_vis = self.static_visibility(&players);
        let tables = crate::tables::emit(game, self.layout, self.plan)?;
        let (fmt, formats) = self.shared_fmt_fns();
        let accessors = self.accessors();
        let constants = self.constants();
        let mut vis_fn = self.vis_fn(&players);
        if vis_fn.is_empty() {
            vis_fn = "static inline uint64_t vis_mask(const State&) { return 0; }\n\n".into();
        }
        let goals_fns = self.goals_fns(&players, Some(&formats));
        let hpp = self.header(name, begin, end, players.len(), static_vis, true);
        let mut cpp = format!(
            "// Forward model of the game `{}`, generated by rgt (rg-compile). Do not edit.\n// The table model: the automaton is data, walked by a fixed engine.\n",
            comment(name)
        );
        cpp.push_str("#include \"game.hpp\"\n\n#include <cmath>\n\nnamespace rg {\n\n");
        cpp.push_str(RUNTIME_DEFS);
        cpp.push_str("namespace {\n\nusing namespace detail;\n\n");
        cpp.push_str(&self.names());
        cpp.push_str(&self.shared(&accessors, &constants, &vis_fn));
        cpp.push_str(&tables);
        cpp.push_str(&fmt);
        cpp.push_str("\n}  // namespace\n\n");
        if self.layout.explicit_maps {
            cpp.push_str(&crate::tables::flag_engine(include_str!("cpp/tables.inc")));
        } else {
            cpp.push_str(include_str!("cpp/tables.inc"));
        }
        cpp.push_str(&goals_fns);
        self.describe_table_api(&mut cpp, &formats);
        cpp.push_str(include_str!("cpp/names.inc"));
        let _ = writeln!(cpp, "const char* const GAME_NAME = {};", c_string(name));
        let fingerprint = fingerprint(&cpp);
        let _ = writeln!(
            cpp,
            "const char* const GAME_FINGERPRINT = \"{fingerprint:016x}\";\n\n}}  // namespace rg"
        );
        Ok(Generated {
            hpp,
            cpp,
            parts: Vec::new(),
        })
    }

    /// The node functions of the move and apply searches (`M<n>`, `A<n>`) and of the
    /// reachability searches (`R<b>_<n>`), declaring each in `decls`.
    fn node_fns(&mut self, decls: &mut String) -> Result<Vec<String>, CompileError> {
        let mut body: Vec<String> = Vec::new();
        for n in 0..self.plan.moves.len() {
            if self.plan.moves[n] {
                let xp = if self.hot.is_some() {
                    ", uint32_t x"
                } else {
                    ""
                };
                let _ = writeln!(decls, "static void M{n}(Cache& c{xp});");
                let _ = writeln!(decls, "static bool A{n}(Cache& c{xp});");
                body.push(self.moves_fn(NodeId::new(n), Mode::Moves)?);
                body.push(self.moves_fn(NodeId::new(n), Mode::Apply)?);
            }
        }
        let plan = self.plan;
        for (b, nodes) in &plan.reach {
            for n in nodes.iter() {
                // The target has no function: reaching it is `true` where it is reached.
                if n == *b || self.is_folded(*b, n) {
                    continue;
                }
                let xp = if self.hot.is_some() {
                    ", uint32_t x"
                } else {
                    ""
                };
                let _ = writeln!(
                    decls,
                    "static bool R{}_{}(Cache& c{xp});",
                    b.index(),
                    n.index()
                );
                body.push(self.reach_fn(*b, n)?);
            }
        }
        Ok(body)
    }

    /// One function `Q<k>` per `(a, b)` pair of checks: the check's own search, its answer
    /// remembered in the memo table when it depends only on a few variables.
    fn check_fns(&self, decls: &mut String) -> String {
        let game = self.game;
        let mut checks = String::new();
        for (&(a, b), k) in &self.pairs {
            let _ = writeln!(decls, "static bool Q{k}(Cache& c);");
            let call = if self.plan.in_reach(b, a) {
                match self.hot {
                    Some(_) => format!("R{}_{}(c, {})", b.index(), a.index(), self.xstate()),
                    None => format!("R{}_{}(c)", b.index(), a.index()),
                }
            } else {
                "false".to_string()
            };
            let key = match self.memo.keys.get(&(a, b)) {
                Some(key) if self.plan.in_reach(b, a) => {
                    let mut idx = format!("{}u", key.base);
                    for (v, r) in key.vars.iter().zip(&key.radix) {
                        let _ = write!(idx, " + G{v}(c.s, 0) * {r}u");
                    }
                    Some(idx)
                }
                _ => None,
            };
            let _ = writeln!(
                checks,
                "static bool Q{k}(Cache& c) {{  // ? {} -> {}",
                comment(game.node_name(a)),
                comment(game.node_name(b))
            );
            if let Some(idx) = &key {
                // Its answer depends only on the key's variables.
                let _ = writeln!(
                    checks,
                    "  const uint32_t mk_ = {idx};\n  if (const uint8_t m_ = c.memo[mk_]) return m_ == 2;"
                );
            }
            if self.plain_check(b) {
                // Nothing in its search reads the search's context: no new one is needed.
                let _ = writeln!(checks, "  const bool r = {call};");
            } else if self.stamp_only_check(b) {
                // Its search reads only the epoch (stamps) and, when it can run inside
                // itself, the nesting level.
                let level = self.self_nesting.contains(&b);
                let _ = writeln!(
                    checks,
                    "{}  const uint64_t se_ = c.epoch;\n  c.epoch = ++c.next_epoch;\n  const bool r = {call};\n  c.epoch = se_;{}",
                    if level { "  ++c.level;\n" } else { "" },
                    if level { "\n  --c.level;" } else { "" }
                );
            } else {
                let _ = writeln!(
                    checks,
                    "  const Saved sv = begin_search(c);\n  const bool r = {call};\n  end_search(c, sv);"
                );
            }
            if key.is_some() {
                checks.push_str("  c.memo[mk_] = r ? 2 : 1;\n");
            }
            checks.push_str("  return r;\n}\n\n");
        }
        checks
    }

    /// Whether no node of the search of checks towards `b` has a visited-state check: then
    /// the search reads nothing of the context `begin_search` sets up (nesting level, tag
    /// base, epoch, visited sets), and nested checks set up their own.
    fn plain_check(&self, b: NodeId) -> bool {
        let (Some(nodes), Some(checks)) = (self.plan.reach.get(&b), self.visits.reach.get(&b))
        else {
            return false;
        };
        nodes
            .iter()
            .all(|n| n == b || (*checks.det(n.index()) == Check::None && !checks.nondet(n.index())))
    }

    /// Whether every node of the search of checks towards `b` has no visited-state check or a
    /// stamp, in determined scopes only: then the search reads only the epoch of its context
    /// (and the nesting level for the stamps of a search that runs inside itself).
    fn stamp_only_check(&self, b: NodeId) -> bool {
        let (Some(nodes), Some(checks)) = (self.plan.reach.get(&b), self.visits.reach.get(&b))
        else {
            return false;
        };
        nodes.iter().all(|n| {
            n == b
                || (matches!(checks.det(n.index()), Check::None | Check::Stamp { .. })
                    && !checks.nondet(n.index()))
        })
    }

    /// One function `E<i>` per check edge, calling its pair's `Q<k>`; a check whose search can
    /// come back to it is guarded against running inside itself.
    fn guard_fns(&self, decls: &mut String) -> String {
        let game = self.game;
        let mut guards = String::new();
        let recursive = self.plan.recursive_checks(game);
        for (&e, i) in &self.check_edges {
            let Label::Reach { from, to, .. } = game.edge(e).label else {
                continue;
            };
            let k = self.pairs[&(from, to)];
            let _ = writeln!(decls, "static bool E{i}(Cache& c);");
            if recursive.contains(&e) {
                let _ = writeln!(
                    guards,
                    "static bool E{i}(Cache& c) {{ Guard g(c, {i}u); return Q{k}(c); }}"
                );
            } else {
                // Its search cannot come back to it: no guard.
                let _ = writeln!(
                    guards,
                    "static inline bool E{i}(Cache& c) {{ return Q{k}(c); }}"
                );
            }
        }
        guards
    }

    /// The functions `F<v>` that print variable `v` as the interpreter does.
    fn fmt_fns(&mut self) -> String {
        let layout = self.layout;
        let mut fmt = String::new();
        for v in 0..layout.vars.len() {
            let shape = layout.vars[v].shape.clone();
            let _ = writeln!(fmt, "static void F{v}(const State& s, std::string& o) {{");
            let mut inner = String::new();
            self.fmt_code(&mut inner, v, false, "0u", &shape, 0, "  ");
            fmt.push_str(&inner);
            fmt.push_str("}\n");
        }
        fmt
    }

    /// The table model's formatters: one function per distinct formatting code, shared by
    /// the variables of one shape (`FS{k}(s, v_, o)` formats variable `v_`), and per variable
    /// the number of its function. A large GDL game has thousands of variables of a few shapes.
    fn shared_fmt_fns(&mut self) -> (String, Vec<u32>) {
        let mut fmt = String::new();
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut of_var = Vec::with_capacity(self.layout.vars.len());
        for v in 0..self.layout.vars.len() {
            let shape = self.layout.vars[v].shape.clone();
            let mut body = String::new();
            self.fmt_code(&mut body, v, true, "0u", &shape, 0, "  ");
            let next = ids.len() as u32;
            let id = *ids.entry(body.clone()).or_insert(next);
            if id == next {
                let _ = writeln!(
                    fmt,
                    "static void FS{id}([[maybe_unused]] const State& s, [[maybe_unused]] uint32_t v_, std::string& o) {{\n{body}}}"
                );
            }
            of_var.push(id);
        }
        let list: Vec<String> = (0..ids.len()).map(|k| format!("FS{k}")).collect();
        let _ = writeln!(
            fmt,
            "using Formatter = void (*)(const State&, uint32_t, std::string&);\nconst Formatter FORMATTERS[] = {{{}}};",
            array_items(&list)
        );
        (fmt, of_var)
    }

    /// The table model's `describe`: every variable's name and value, by a loop over the
    /// variables (`VAR_NAME`, `VAR_FORMAT`) instead of a line of code each.
    fn describe_table_api(&self, cpp: &mut String, formats: &[u32]) {
        let names: Vec<u32> = self.layout.vars.iter().map(|f| f.name.0).collect();
        crate::tables::array(cpp, crate::tables::int_type(&names), "VAR_NAME", &names);
        crate::tables::array(cpp, crate::tables::int_type(formats), "VAR_FORMAT", formats);
        let _ = write!(
            cpp,
            "std::string describe(const State& s) {{\n  std::string o = \"node: \";\n  o += node_name(s.node);\n  o += '\\n';\n  for (uint32_t v = 0; v < {}u; ++v) {{\n    o += symbol_name(VAR_NAME[v]);\n    o += \" = \";\n    FORMATTERS[VAR_FORMAT[v]](s, v, o);\n    o += '\\n';\n  }}\n  return o;\n}}\n\n",
            self.layout.vars.len()
        );
    }

    /// `game.hpp`: the game's constants, then the runtime and the API declarations.
    fn header(
        &self,
        name: &str,
        begin: NodeId,
        end: u32,
        num_players: usize,
        static_vis: u64,
        tables: bool,
    ) -> String {
        let game = self.game;
        let layout = self.layout;
        let wk = *game.well_known();
        let mut hpp = String::new();
        let _ = writeln!(
            hpp,
            "// Forward model of the game `{}`, generated by rgt (rg-compile). Do not edit.\n//\n// C++17, no dependency beyond the standard library. See `rgt compile --help`.\n#pragma once\n#include <algorithm>\n#include <cstdint>\n#include <cstring>\n#include <mutex>\n#include <stdexcept>\n#include <string>\n#include <vector>\n\nnamespace rg {{\n",
            comment(name)
        );
        let _ = writeln!(
            hpp,
            "constexpr uint32_t STATE_BYTES = {}u;",
            layout.state_bytes
        );
        let _ = writeln!(
            hpp,
            "constexpr uint32_t ORDINARY_WORDS = {}u;",
            layout.ordinary_bytes / 8
        );
        let _ = writeln!(
            hpp,
            "constexpr uint32_t NUM_NODES = {}u;",
            game.node_capacity()
        );
        let _ = writeln!(hpp, "constexpr uint32_t BEGIN_NODE = {}u;", begin.index());
        let _ = writeln!(hpp, "constexpr uint32_t END_NODE = {end}u;");
        let _ = writeln!(
            hpp,
            "constexpr uint32_t NUM_SYMBOLS = {}u;",
            game.symbols().len()
        );
        let _ = writeln!(hpp, "constexpr uint32_t KEEPER = {}u;", wk.keeper.0);
        let _ = writeln!(hpp, "constexpr uint32_t RANDOM = {}u;", wk.random.0);
        let _ = writeln!(hpp, "constexpr uint32_t NUM_PLAYERS = {num_players}u;");
        let _ = writeln!(
            hpp,
            "constexpr uint32_t NUM_CHECKS = {}u;",
            self.check_edges.len()
        );
        let pf = &layout.vars[layout.player];
        let _ = writeln!(hpp, "constexpr uint32_t PLAYER_BIT = {}u;", pf.bit);
        let _ = writeln!(hpp, "constexpr uint32_t PLAYER_WIDTH = {}u;", pf.width);
        {
            // `current_player` is inline: the playout loop asks it at every move.
            let player_class = layout.vars[layout.player].shape.leaf();
            let members: Vec<String> = layout.classes[player_class]
                .members
                .iter()
                .map(|s| format!("{}u", s.0))
                .collect();
            let _ = writeln!(
                hpp,
                "/// The symbol id of each stored value of `player`.\nconstexpr uint32_t PLAYER_SYMBOLS[{}] = {{{}}};",
                members.len().max(1),
                array_items(&members)
            );
        }
        let _ = writeln!(
            hpp,
            "constexpr uint32_t STAMP_SLOTS = {}u;",
            self.visits.stamp_slots + self.extra_stamps
        );
        let _ = writeln!(hpp, "constexpr uint32_t MEMO_SLOTS = {}u;", self.memo.slots);
        let _ = writeln!(
            hpp,
            "constexpr bool DISTINCT_MOVE_TAGS = {};  // no two legal moves share their tags",
            self.visits.distinct_move_tags
        );
        let max_tags = if tables {
            0
        } else {
            crate::visits::max_move_tags(self.game, self.plan)
                .filter(|&k| k <= 64)
                .unwrap_or(0)
        };
        let _ = writeln!(
            hpp,
            "constexpr uint32_t MAX_TAGS = {max_tags}u;  // 0: not bounded"
        );
        let _ = writeln!(
            hpp,
            "constexpr bool DYNAMIC_VISIBILITY = {};",
            self.dynamic_visibility
        );
        let (goals_byte, goals_bytes) =
            layout.goals.map_or((0, 0), |g| layout.vars[g].byte_range());
        let _ = writeln!(
            hpp,
            "constexpr uint32_t GOALS_BYTE = {goals_byte}u;  // the bytes holding `goals`\nconstexpr uint32_t GOALS_BYTES = {goals_bytes}u;"
        );
        let _ = writeln!(
            hpp,
            "constexpr bool SCOPE_EPOCHS = {};  // some check reads the scope's epoch",
            self.scope_epochs
        );
        let _ = writeln!(
            hpp,
            "constexpr bool SCOPE_NONDET = {};  // some check reads whether the scope is shared",
            self.scope_nondet
        );
        let _ = writeln!(
            hpp,
            "constexpr bool OPTIMISTIC = {};  // move searches compare some tag emissions (`note_tag`)",
            self.optimistic.is_some()
        );
        let _ = writeln!(
            hpp,
            "constexpr uint64_t STATIC_VISIBILITY = {static_vis}ULL;\n"
        );
        if tables {
            // The table engine keeps its buffers behind the cache (see `cpp/tables.inc`).
            let runtime = include_str!("cpp/runtime.hpp");
            assert!(
                runtime.contains(CACHE_ANCHOR),
                "the runtime declares `Cache`"
            );
            hpp = hpp.replacen(
                "#include <cstring>\n",
                "#include <cstring>\n#include <memory>\n",
                1,
            );
            hpp.push_str(&runtime.replacen(
                CACHE_ANCHOR,
                &format!(
                    "{CACHE_ANCHOR}  /// The table engine's buffers (created by its first search).\n  std::shared_ptr<void> engine;\n\n"
                ),
                1,
            ));
        } else {
            hpp.push_str(include_str!("cpp/runtime.hpp"));
        }
        hpp.push('\n');
        hpp.push_str(include_str!("cpp/api.hpp"));
        hpp.push_str("\n}  // namespace rg\n");
        hpp
    }

    /// The name tables and the initial state's bytes `INIT`. The names of the symbols are one
    /// string `SYMBOL_TEXT` (each name ended by a NUL), whose starts the look-ups find by
    /// scanning it once, and likewise `NODE_TEXT`: a large GDL translation has hundreds of
    /// thousands of names, which as an array of pointers to literals (or of their offsets)
    /// take the C++ compiler far longer than one literal.
    fn names(&self) -> String {
        let game = self.game;
        let mut names = String::new();
        name_table(
            &mut names,
            "SYMBOL",
            (0..game.symbols().len()).map(|i| game.name(Symbol::new(i))),
        );
        name_table(
            &mut names,
            "NODE",
            (0..game.node_capacity()).map(|i| game.node_name(NodeId::new(i))),
        );
        let init: Vec<String> = self.layout.init.iter().map(|b| b.to_string()).collect();
        let _ = writeln!(
            names,
            "const uint8_t INIT[STATE_BYTES] = {{{}}};\n",
            init.join(", ")
        );
        names
    }

    /// What the node functions use: accessors, constants, the visibility function, the static
    /// tables collected while generating, and the symbol-to-member tables of the `@simpleApply`
    /// binders.
    fn shared(&self, accessors: &str, constants: &str, vis_fn: &str) -> String {
        let game = self.game;
        let mut shared = String::new();
        shared.push_str(accessors);
        shared.push('\n');
        shared.push_str(constants);
        shared.push('\n');
        shared.push_str(vis_fn);
        // Statics collected while generating (static_array is called by the generators above).
        shared.push_str(&self.statics);
        // Symbol id -> number in a class, for the binders of @simpleApply patterns.
        let used: Vec<usize> = self.ex.sl_used.borrow().iter().copied().collect();
        for c in used {
            let mut table = vec!["4294967295u".to_string(); game.symbols().len()];
            for (i, m) in self.layout.classes[c].members.iter().enumerate() {
                table[m.index()] = format!("{i}u");
            }
            let _ = writeln!(
                shared,
                "static const uint32_t SLc{c}[{}] = {{{}}};",
                table.len().max(1),
                table.join(", ")
            );
        }
        shared.push('\n');
        shared
    }

    /// The API part of `game.cpp` after the node functions: searches, applying moves, goals,
    /// `describe` and the name look-ups.
    fn api(&self, cpp: &mut String, end: u32, goals_fns: &str) {
        let _ = writeln!(
            cpp,
            "State initial_state() {{\n  State s;\n  std::memcpy(s.b, INIT, STATE_BYTES);\n  s.node = BEGIN_NODE;\n  return s;\n}}\n"
        );
        let mut cases = String::new();
        let mut acases = String::new();
        for n in 0..self.plan.moves.len() {
            // Only where a state can be (and `end`, which has no move).
            if self.plan.moves[n] && (self.plan.starts[n] || n as u32 == end) {
                let xa = self.xarg().replace("@X@", &self.xstate());
                let _ = writeln!(cases, "    case {n}u: M{n}(c{xa}); break;");
                let _ = writeln!(acases, "    case {n}u: found = A{n}(c{xa}); break;");
            }
        }
        cpp.push_str(&include_str!("cpp/search.inc").replace("@CASES@", &cases));
        cpp.push('\n');
        cpp.push_str(include_str!("cpp/list_moves.inc"));
        cpp.push_str(&include_str!("cpp/walk.inc").replace("@ACASES@", &acases));
        cpp.push('\n');
        self.pending_api(cpp);
        cpp.push_str(include_str!("cpp/apply.inc"));
        let single: Vec<String> = self
            .visits
            .single_move
            .iter()
            .map(|&b| u8::from(b).to_string())
            .collect();
        let _ = writeln!(
            cpp,
            "bool has_single_move(const State& s) {{\n  static const uint8_t single[{}] = {{{}}};\n  return s.node < NUM_NODES && single[s.node];\n}}\n\nbool apply_only_move(State& s, Cache& c) {{\n  if (!has_single_move(s)) fail(\"the state's search may find several moves\");\n  return apply_walk(s, nullptr, 0, 0, false, true, c);\n}}\n\nbool apply_first_move(State& s, Cache& c) {{\n  return apply_walk(s, nullptr, 0, 0, false, true, c);\n}}\n",
            single.len().max(1),
            array_items(&single)
        );
        cpp.push_str(
            "void random_probabilities(const Moves& moves, std::vector<double>& out) {\n  out.assign(moves.size(), moves.empty() ? 0.0 : 1.0 / double(moves.size()));\n}\n\n",
        );
        cpp.push_str(goals_fns);
        self.describe_api(cpp);
        cpp.push_str(include_str!("cpp/names.inc"));
    }

    /// `finish_pending`: completes a move that a listing left pending at a deferred node.
    fn pending_api(&self, cpp: &mut String) {
        let mut pcases = String::new();
        let mut plabels = String::new();
        for (n, &d) in self.deferred.iter().enumerate() {
            if d {
                let xa = self.xarg().replace("@X@", &self.xstate());
                let _ = writeln!(pcases, "    case {n}u: found = A{n}(c{xa}); break;");
                let _ = writeln!(plabels, "    case {n}u:");
            }
        }
        if pcases.is_empty() {
            cpp.push_str(
                "namespace {\n\n/// No move is ever left pending (see `legal_moves`).\ninline void finish_pending(State&, Cache&) {}\n\n}  // namespace\n\n",
            );
        } else {
            cpp.push_str(
                &include_str!("cpp/pending.inc")
                    .replace("@PLABELS@", &plabels)
                    .replace("@PCASES@", &pcases),
            );
            cpp.push('\n');
        }
    }

    /// `describe`: every variable's name and value, in functions of at most
    /// [`DESCRIBE_VARS`] variables (compilers are slow on huge ones).
    fn describe_api(&self, cpp: &mut String) {
        let mut describe = String::new();
        let mut calls = String::new();
        for (k, chunk) in self.layout.vars.chunks(DESCRIBE_VARS).enumerate() {
            let _ = writeln!(
                describe,
                "namespace {{\nvoid describe_{k}(const State& s, std::string& o) {{"
            );
            for (j, f) in chunk.iter().enumerate() {
                let v = k * DESCRIBE_VARS + j;
                let _ = writeln!(
                    describe,
                    "  o += {}; o += \" = \"; F{v}(s, o); o += '\\n';",
                    c_string(self.game.name(f.name))
                );
            }
            describe.push_str("}\n}  // namespace\n\n");
            let _ = writeln!(calls, "  describe_{k}(s, o);");
        }
        let _ = write!(
            describe,
            "std::string describe(const State& s) {{\n  std::string o = \"node: \";\n  o += node_name(s.node);\n  o += '\\n';\n{calls}  return o;\n}}\n\n"
        );
        cpp.push_str(&describe);
    }

    fn players(&self) -> Vec<Symbol> {
        let layout = self.layout;
        let wk = self.game.well_known();
        if let Some(g) = layout.goals
            && let Shape::Map { key, .. } = &layout.vars[g].shape
        {
            let class = &layout.classes[*key];
            let mask = layout.vars[g].domains.first().cloned().flatten();
            return class
                .members
                .iter()
                .enumerate()
                .filter(|(i, _)| mask.as_ref().is_none_or(|m| m[*i]))
                .map(|(_, &s)| s)
                .filter(|&s| s != wk.keeper && s != wk.random)
                .collect();
        }
        let class = &layout.classes[layout.vars[layout.player].shape.leaf()];
        class
            .members
            .iter()
            .copied()
            .filter(|&s| s != wk.keeper && s != wk.random)
            .collect()
    }

    /// The players that see tags when `visible` never changes (bit p: player p).
    fn static_visibility(&self, players: &[Symbol]) -> u64 {
        let Some(v) = self.layout.visible else {
            return players
                .iter()
                .take(64)
                .enumerate()
                .fold(0, |m, (i, _)| m | 1 << i);
        };
        let f = &self.layout.vars[v];
        let mut m = 0u64;
        if let RtVal::Map(d, es) = &f.init {
            for (i, p) in players.iter().enumerate().take(64) {
                let val = es.get(p).unwrap_or(d);
                if *val == RtVal::Elem(self.game.well_known().one) {
                    m |= 1 << i;
                }
            }
        }
        m
    }

    /// `vis_mask(state)`: the players that see a tag collected in this state.
    fn vis_fn(&mut self, players: &[Symbol]) -> String {
        if !self.dynamic_visibility {
            return String::new();
        }
        let v = self
            .layout
            .visible
            .expect("dynamic visibility needs `visible`");
        let f = self.layout.vars[v].clone();
        let Shape::Map { key, val, .. } = &f.shape else {
            return "static inline uint64_t vis_mask(const State&) { return 0; }\n".into();
        };
        let one = self.layout.classes[val.leaf()].local(self.game.well_known().one);
        let mut s =
            String::from("static inline uint64_t vis_mask(const State& s) {\n  uint64_t m = 0;\n");
        if let Some(one) = one
            && matches!(**val, Shape::Scalar(_))
        {
            for (i, p) in players.iter().enumerate().take(64) {
                if let Some(k) = self.layout.classes[*key].local(*p) {
                    let _ = writeln!(s, "  if (G{v}(s, {k}u) == {one}u) m |= {}ULL;", 1u64 << i);
                }
            }
        }
        s.push_str("  return m;\n}\n\n");
        s
    }

    /// `formats`: the table model's formatter of each variable (see [`Self::shared_fmt_fns`]);
    /// the function model has one function `F{v}` per variable.
    fn goals_fns(&mut self, players: &[Symbol], formats: Option<&[u32]>) -> String {
        let game = self.game;
        let format = |g: usize| match formats {
            Some(f) => format!("FS{}(s, {g}u, o)", f[g]),
            None => format!("F{g}(s, o)"),
        };
        let items: Vec<String> = players.iter().map(|p| format!("{}u", p.0)).collect();
        let parr = self.static_array("uint32_t", &items);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "uint32_t player_symbol(uint32_t p) {{ return p < NUM_PLAYERS ? {parr}[p] : 0u; }}\n"
        );
        let _ = writeln!(
            s,
            "int32_t player_number(uint32_t sym) {{\n  for (uint32_t p = 0; p < NUM_PLAYERS; ++p)\n    if ({parr}[p] == sym) return int32_t(p);\n  return -1;\n}}\n"
        );
        match self
            .layout
            .goals
            .map(|g| (g, self.layout.vars[g].shape.clone()))
        {
            Some((g, Shape::Map { key, val, .. })) if matches!(*val, Shape::Scalar(_)) => {
                let keys: Vec<String> = players
                    .iter()
                    .map(|p| format!("{}u", self.layout.classes[key].local(*p).unwrap_or(0)))
                    .collect();
                let karr = self.static_array("uint32_t", &keys);
                let vclass = val.leaf();
                let vt = self.class_table(vclass);
                let nums: Vec<String> = self.layout.classes[vclass]
                    .members
                    .iter()
                    .map(|&m| match game.name(m).parse::<f64>() {
                        Ok(x) if x.is_finite() => format!("{x:?}"),
                        _ => "NAN".to_string(),
                    })
                    .collect();
                let narr = self.static_array("double", &nums);
                let _ = writeln!(
                    s,
                    "uint32_t goal_symbol(const State& s, uint32_t p) {{ return {vt}[G{g}(s, {karr}[p])]; }}\n"
                );
                let _ = writeln!(
                    s,
                    "double goal_value(const State& s, uint32_t p) {{ return {narr}[G{g}(s, {karr}[p])]; }}\n"
                );
                let _ = writeln!(
                    s,
                    "std::string goals_text(const State& s) {{ std::string o; {}; return o; }}\n",
                    format(g)
                );
            }
            Some((g, _)) => {
                let _ = writeln!(
                    s,
                    "uint32_t goal_symbol(const State&, uint32_t) {{ return 0u; }}\n\ndouble goal_value(const State&, uint32_t) {{ return NAN; }}\n\nstd::string goals_text(const State& s) {{ std::string o; {}; return o; }}\n",
                    format(g)
                );
            }
            None => {
                s.push_str(
                    "uint32_t goal_symbol(const State&, uint32_t) { return 0u; }\n\ndouble goal_value(const State&, uint32_t) { return NAN; }\n\nstd::string goals_text(const State&) { return std::string(); }\n\n",
                );
            }
        }
        s
    }
}

/// The parts of `game.cpp` before the API, as [`Gen::generate`] collects them.
struct Sections {
    /// The first line of every source file.
    head: String,
    /// `SYMBOLS`, `NODES`, `INIT`.
    names: String,
    /// Accessors, constants and static tables the node functions use.
    shared: String,
    /// Declarations of the node, check and guard functions.
    decls: String,
    /// The check functions `Q<k>`.
    checks: String,
    /// The guard functions `E<i>`.
    guards: String,
    /// The node functions, one string each.
    body: Vec<String>,
    /// The variable printers `F<v>`.
    fmt: String,
}

/// The line of the runtime after which the table model adds its engine's buffers to `Cache`.
const CACHE_ANCHOR: &str = "class Cache {\n public:\n";

/// Runtime functions defined once, in `game.cpp`.
const RUNTIME_DEFS: &str = "void detail::fail(const char* what) { throw RuntimeError(what); }\n\nvoid detail::grow_trail(Cache& c) { c.trail.resize(c.trail.size() * 2 + 16); }\n\nvoid detail::grow_tags(Cache& c) {\n  if (c.ntags >= TAG_LIMIT) fail(\"a walk collects more than 65536 tags (a cycle through tag edges)\");\n  c.tags.resize(c.tags.size() * 2 + 8);\n  if (DYNAMIC_VISIBILITY) c.vis.resize(c.tags.size());\n  c.tags_cap = static_cast<uint32_t>(c.tags.size());\n}\n\n";

impl Sections {
    /// The start of `game.cpp` and, when the node functions are too big for one unit, the
    /// declarations the units share and the other units (`game_1.cpp`, …).
    fn units(self, unit_bytes: usize) -> (String, Option<(Items, Vec<String>)>) {
        let body_bytes: usize = self.body.iter().map(String::len).sum();
        if body_bytes <= 2 * unit_bytes {
            (self.one_unit(), None)
        } else {
            let (cpp, items, parts) = self.several_units(unit_bytes);
            (cpp, Some((items, parts)))
        }
    }

    /// One translation unit: everything internal to it.
    fn one_unit(self) -> String {
        let mut cpp = String::new();
        cpp.push_str(&self.head);
        cpp.push_str("#include \"game.hpp\"\n\n#include <cmath>\n\nnamespace rg {\n\n");
        cpp.push_str(RUNTIME_DEFS);
        cpp.push_str("namespace {\n\nusing namespace detail;\n\n");
        cpp.push_str(&self.names);
        cpp.push_str(&self.shared);
        cpp.push_str(&self.decls);
        cpp.push('\n');
        cpp.push_str(&self.checks);
        cpp.push_str(&self.guards);
        cpp.push('\n');
        for f in &self.body {
            cpp.push_str(f);
        }
        cpp.push_str(&self.fmt);
        cpp.push_str("\n}  // namespace\n\n");
        cpp
    }

    /// Several translation units that a compiler handles in parallel and in bounded memory:
    /// the node functions get external linkage in `rg::gen`, and every unit declares only what
    /// its code uses (all of it would be most of every unit).
    fn several_units(self, unit_bytes: usize) -> (String, Items, Vec<String>) {
        let external = |t: &str| {
            t.replace("static void M", "void M")
                .replace("static bool A", "bool A")
                .replace("static bool R", "bool R")
                .replace("static bool Q", "bool Q")
        };
        let mut items = String::new();
        items.push_str(&self.shared);
        items.push_str(&external(&self.decls));
        items.push_str(&self.guards);
        let items = Items::new(&items);
        let open = "#include \"game.hpp\"\n\n#include <cmath>\n\nnamespace rg {\nnamespace gen {\n\nusing namespace detail;\n\n";
        let close = "\n}  // namespace gen\n}  // namespace rg\n";
        let mut parts: Vec<String> = Vec::new();
        let mut code = String::new();
        let mut flush = |code: &mut String| {
            let mut part = self.head.clone();
            part.push_str(open);
            part.push_str(&items.used_by(code));
            part.push('\n');
            part.push_str(code);
            part.push_str(close);
            parts.push(part);
            code.clear();
        };
        // The node functions are dropped as they are copied (they are most of the memory).
        for f in self.body.into_iter().chain(std::iter::once(self.checks)) {
            code.push_str(&external(&f));
            if code.len() >= unit_bytes {
                flush(&mut code);
            }
        }
        if !code.is_empty() {
            flush(&mut code);
        }
        let mut cpp = self.head.clone();
        let _ = write!(
            cpp,
            "#include \"game.hpp\"\n\n#include <cmath>\n\nnamespace rg {{\n\n{RUNTIME_DEFS}namespace gen {{\n\nusing namespace detail;\n\n{SHARED_MARK}\n"
        );
        cpp.push_str(&self.names);
        cpp.push_str(&self.fmt);
        cpp.push_str("\n}  // namespace gen\n\nusing namespace gen;\n\n");
        (cpp, items, parts)
    }
}

/// Elements of `v` (shape `shape`) row-major.
fn flatten_into(v: &RtVal, shape: &Shape, classes: &[crate::layout::Class], out: &mut Vec<u32>) {
    crate::layout::flatten_with(v, shape, classes, out, |c, x| {
        classes[c].local(x).unwrap_or(0)
    });
}

/// A 64-bit FNV-1a hash of the generated text (identifies the compiled description).
pub(crate) fn fingerprint(text: &str) -> u64 {
    fingerprint_from(0xcbf2_9ce4_8422_2325, text)
}

/// [`fingerprint`] of the text hashed to `h`, followed by `text`.
fn fingerprint_from(h: u64, text: &str) -> u64 {
    text.bytes().fold(h, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The scalar ordinary variable the most edges assign (see `Gen::hot`).
fn hot_var(game: &Game, layout: &Layout) -> Option<usize> {
    let mut count = vec![0usize; layout.vars.len()];
    for (_, e) in game.edges() {
        if let Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } = e.label
            && let rg_core::ExprData::Ref(x) = game.expr(game.strip_casts(lhs))
            && let Some(&v) = layout.var_by_name.get(&x)
        {
            count[v] += 1;
        }
    }
    (0..layout.vars.len())
        .filter(|&v| {
            let f = &layout.vars[v];
            f.ordinary
                && f.width > 0
                && v != layout.player
                && Some(v) != layout.goals
                && Some(v) != layout.visible
                && matches!(f.shape, Shape::Scalar(_))
                && count[v] > 0
        })
        .max_by_key(|&v| (count[v], std::cmp::Reverse(v)))
}
