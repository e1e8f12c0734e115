//! Lowering of the simplified ground game to RG.
//!
//! One GDL step becomes, in role-fact order, one RG move per role (the chance role `random`
//! included, as `player = random`), each made while only that role's `visible` entry is 1 so
//! that simultaneous choices stay hidden; then one keeper move that reveals the joint move
//! (GDL-I) or hands out the percepts (GDL-II), computes the next state into `n_` variables,
//! commits it, resets the scratch variables (so equal GDL states are equal RG states), and
//! tests `terminal`. The initial state is tested too (a game may be over before any move),
//! every condition and its negation are exclusive so that the keeper always has exactly one
//! way on (RG requires keeper walks to be unique), and a player none of whose goals holds gets
//! the lowest score (every player has a score at the end).
//!
//! Conditions over ground atoms are RG reachability checks into one sub-automaton per atom
//! (`d_<atom>_in` → `d_<atom>_out`, one path per rule, comparisons first), except that
//! constant conditions become skips or missing edges, literals over `true`/`does` become
//! comparisons, and a positive literal over an atom with one short rule is inlined as a chain.
//! Ground recursion (non-trivial SCCs) is lowered as graph reachability when linear and
//! materialised in Boolean variables otherwise, computed by a fixpoint loop.

pub(crate) mod lifted;

use crate::ast::Program;
use crate::error::{Code, GdlDiagnostic};
use crate::ground::Lit;
use crate::ground::terms::GTerm;
use crate::ground::{Atom, Grounding};
use crate::names::{Collision, Namer, mangle_into};
use crate::propnet::{Cond, Keyed, Kind, Net, Val};
use rg_core::{ExprId, Game, Label, NodeId, Span, Spans, Symbol, Typedef, Variable};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Compares two symbol names: integers numerically and before other names, then by text.
/// The most rules of one literal each a next-state condition may have to be emitted as a
/// decision chain rather than a check (each costs two edges either way; longer disjunctions are
/// left to the check, whose sub-automaton other conditions may share).
const MAX_DISJUNCTS: usize = 3;

fn name_cmp(a: &str, b: &str) -> Ordering {
    let num = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    match (num(a), num(b)) {
        (true, true) => {
            let (ta, tb) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
            ta.len()
                .cmp(&tb.len())
                .then_with(|| ta.cmp(tb))
                .then_with(|| a.len().cmp(&b.len()))
        }
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.cmp(b),
    }
}

/// How a literal over a derived atom is read.
#[derive(Clone, Copy, Debug)]
enum Access {
    /// Through the atom's sub-automaton.
    Sub,
    /// Linear recursion: `? c<s>_src -> c<s>_<i>`.
    Linear(u32, u32),
    /// Materialised: `r_<s>_<i> == 1`.
    Var(u32, u32),
    /// A shared atom evaluated once per turn: `h_<atom> == 1`.
    Held(ExprId),
}

struct Lowerer<'a> {
    p: &'a Program,
    g: &'a Grounding,
    net: &'a Net,
    game: Game,
    warnings: Vec<GdlDiagnostic>,
    one: ExprId,
    /// Per role: `does_<r>` and the value symbol of each action (by action number).
    does_var: Vec<Option<ExprId>>,
    action_sym: Vec<Vec<Option<Symbol>>>,
    /// Per fluent: the `f_` variable.
    fluent_var: Vec<Option<ExprId>>,
    /// Per derived atom: its RG name (assigned on first use) and its sub-automaton.
    atom_name: HashMap<Atom, String>,
    sub: HashMap<Atom, (NodeId, NodeId)>,
    access: HashMap<Atom, Access>,
    atom_namer: Namer,
    /// Materialised recursion variables per SCC.
    mat_vars: HashMap<u32, Vec<ExprId>>,
    /// SCC sub-automata built.
    linear_built: Vec<bool>,
    /// Variables of held (shared, evaluated once per turn) atoms.
    held: Vec<ExprId>,
    /// The variable of each held atom.
    held_of: HashMap<Atom, ExprId>,
    /// The lowering of lifted relations.
    lf: lifted::LiftedState,
    /// Per node name [`Lowerer::fresh`] was asked for twice or more: the next suffix to try.
    fresh_next: HashMap<Symbol, u32>,
}

/// An atom read by several conditions is held in a variable (evaluated once per turn) when the
/// evaluations this saves, (uses − 1) × its cost in search steps, reach this.
const HOLD_THRESHOLD: u64 = 32;

/// A unit evaluated by the keeper before use: a shared atom, or a non-linear SCC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Atom(Atom),
    Scc(u32),
}

/// A rule body in evaluation order, with the rule's span.
type Body = (Vec<Lit>, Option<Span>);

/// The roles as the lowering names them.
struct RoleNames {
    /// The RG name of every role (`random` included), in role order.
    names: Vec<String>,
    /// The roles that are players (not `random`), by role number.
    players: Vec<usize>,
    /// The RG symbol of each player, in `players` order.
    player_syms: Vec<Symbol>,
    /// Where the roles are declared.
    span: Option<Span>,
}

/// The members of the type `Score`.
struct Scores {
    /// The goal values a player may get, in canonical term order.
    values: Vec<GTerm>,
    /// Their RG symbols (the lone `0` when there is no value).
    syms: Vec<Symbol>,
    /// Where the goals are defined.
    span: Option<Span>,
}

/// A fluent in the state.
#[derive(Clone, Copy)]
struct StateVar {
    /// The fluent's number.
    fluent: usize,
    /// Its `f_` variable.
    var: ExprId,
    next: NextValue,
}

/// A fluent's value in the next state.
#[derive(Clone, Copy)]
enum NextValue {
    /// Computed each turn into its `n_` variable.
    Var(ExprId),
    /// Always the same.
    Const(bool),
}

/// The expressions every turn of the automaton assigns with.
struct TurnVars {
    /// The constant 0.
    zero: ExprId,
    /// The `keeper` player.
    keeper: ExprId,
    /// The variable `player`: who moves.
    player: ExprId,
    /// The array `visible`: who sees the next move.
    visible: ExprId,
}

/// Lowers a simplified ground game.
pub(crate) fn lower(p: &Program, g: &Grounding, net: &Net) -> (Game, Vec<GdlDiagnostic>) {
    let mut game = Game::new();
    let one = {
        let s = game.well_known().one;
        game.expr_ref(s)
    };
    let mut l = Lowerer {
        p,
        g,
        net,
        game,
        warnings: Vec::new(),
        one,
        does_var: Vec::new(),
        action_sym: Vec::new(),
        fluent_var: vec![None; net.fluents.len()],
        atom_name: HashMap::new(),
        sub: HashMap::new(),
        access: HashMap::new(),
        atom_namer: Namer::default(),
        mat_vars: HashMap::new(),
        linear_built: vec![false; net.sccs.len()],
        held: Vec::new(),
        held_of: HashMap::new(),
        lf: lifted::LiftedState::default(),
        fresh_next: HashMap::new(),
    };
    l.run();
    l.build_lifted();
    l.declare_lifted();
    (l.game, l.warnings)
}

impl Lowerer<'_> {
    fn span_of_rel(&self, rel: crate::ast::RelId) -> Option<Span> {
        self.p.rel_span(rel)
    }

    /// The natural (mangled) name of a ground term.
    fn term_name(&self, t: GTerm) -> String {
        let mut s = String::new();
        self.term_name_into(t, &mut s);
        s
    }

    fn term_name_into(&self, t: GTerm, out: &mut String) {
        let tup = self.g.store.tuple(t);
        mangle_into(self.p.name(sym(tup[0])), out);
        for &a in &tup[1..] {
            out.push('_');
            self.term_name_into(a, out);
        }
    }

    fn term_cmp(&self, a: GTerm, b: GTerm) -> Ordering {
        self.g.store.cmp(a, b, &|x, y| {
            name_cmp(self.p.name(sym(x)), self.p.name(sym(y)))
        })
    }

    /// Names `terms` (in the given order) in a fresh namespace, reporting collisions.
    fn name_terms(&mut self, terms: &[GTerm], values: bool, what: &str) -> Vec<String> {
        let natural: Vec<String> = terms.iter().map(|&t| self.term_name(t)).collect();
        let (names, collisions) = Namer::default().assign(&natural, values);
        self.report_collisions(&collisions, |l, i| l.g.display_term(l.p, terms[i]), what);
        names
    }

    fn report_collisions(
        &mut self,
        collisions: &[Collision],
        show: impl Fn(&Self, usize) -> String,
        what: &str,
    ) {
        for c in collisions {
            let span = self.p.rules().first().map(|r| r.span);
            let msg = format!(
                "`{}` and `{}` both flatten to `{}`; using `{}` and `{}` for these {what}",
                show(self, c.kept),
                show(self, c.renamed),
                c.name,
                c.name,
                c.new_name
            );
            let d = match span {
                Some(s) => GdlDiagnostic::new(Code::NameCollision, s, msg),
                None => GdlDiagnostic::global(Code::NameCollision, msg),
            };
            self.warnings.push(d.with_label("in this game"));
        }
    }

    /// Reports a name collision of generated RG names (W-LOW-060).
    fn warn_collision(&mut self, msg: String) {
        let span = self
            .p
            .rules()
            .first()
            .map(|r| r.span)
            .unwrap_or(Span::new(self.p.file(), 0, 0));
        self.warnings
            .push(GdlDiagnostic::new(Code::NameCollision, span, msg));
    }

    fn node(&mut self, name: &str) -> NodeId {
        self.game.node_named(name)
    }

    /// A new node named `name`, or `name_x<i>` when that is taken: inner nodes of chains are
    /// never shared, even when flattened atom names make their natural names coincide
    /// (`p` rule 1 and `(p 1)` rule 0 would both give `d_p_1_0`).
    fn fresh(&mut self, name: &str) -> NodeId {
        let s = self.game.sym(name);
        if self.game.find_node(s).is_none() {
            return self.game.node(s);
        }
        // Every suffix below the last one handed out for this name is taken (lowering removes
        // no node), so the search starts there: from 2 each time it was quadratic in the uses
        // of a name (chess.kif names some sub-automaton nodes thousands of times).
        let start = self.fresh_next.get(&s).copied().unwrap_or(2);
        let (i, node) = (start..)
            .find_map(|i| {
                let s = self.game.sym(&format!("{name}_x{i}"));
                self.game
                    .find_node(s)
                    .is_none()
                    .then(|| (i, self.game.node(s)))
            })
            .expect("some suffix is free");
        self.fresh_next.insert(s, i + 1);
        node
    }

    fn edge(&mut self, from: NodeId, to: NodeId, label: Label, span: Option<Span>) {
        self.game
            .add_edge_spanned(from, to, label, Spans::whole(span));
    }

    fn assign(&mut self, lhs: ExprId, rhs: ExprId) -> Label {
        Label::Assign { lhs, rhs }
    }

    fn cmp_label(&self, lhs: ExprId, rhs: ExprId, negated: bool) -> Label {
        Label::Compare { lhs, rhs, negated }
    }

    fn declare_var(
        &mut self,
        name: &str,
        ty: rg_core::TypeId,
        init: Symbol,
        span: Option<Span>,
    ) -> ExprId {
        let s = self.game.sym(name);
        let v = self.game.value_elem(init);
        self.game.variables.push(Variable {
            name: s,
            ty,
            init: v,
            spans: Spans::whole(span),
        });
        self.game.expr_ref(s)
    }

    fn typedef(&mut self, name: &str, members: Vec<Symbol>, span: Option<Span>) -> rg_core::TypeId {
        let s = self.game.sym(name);
        let ty = self.game.type_set(members);
        self.game.typedefs.push(Typedef {
            name: s,
            ty,
            spans: Spans::whole(span),
        });
        self.game.type_name(s)
    }

    /// Declares the game's types and variables, then builds its automaton: the per-turn
    /// evaluation and terminal test, one move per role, the keeper's reveal or percepts, the
    /// next state, the commit and the goals.
    fn run(&mut self) {
        let wk = *self.game.well_known();
        let bool_ty = self.game.type_name(wk.bool_type);
        let zero = self.game.expr_ref(wk.zero);
        let roles = self.declare_roles();
        let scores = self.declare_scores(&roles.players);
        self.declare_actions(&roles);
        let state = self.declare_fluents(bool_ty);
        let changed = self.declare_recursion(bool_ty);

        // ---- automaton ----
        let begin = self.node("begin");
        let eval = self.node("m_eval");
        self.edge(begin, eval, Label::Skip, None);
        // Shared atoms and non-linear recursion that depend on the state only, evaluated once
        // per turn; then the terminal test.
        let units = self.units(bool_ty, wk.zero);
        let mut at = eval;
        for &u in &units {
            if !self.unit_move_dep(u) {
                at = self.emit_unit(u, at, changed);
            }
        }
        let mut mats: Vec<u32> = self.mat_vars.keys().copied().collect();
        mats.sort_unstable();
        let check = self.node("m_check");
        self.edge(at, check, Label::Skip, None);
        let turn = self.node("m_turn");
        let goals_start = self.node("m_goals");
        self.emit_terminal_test(check, turn, goals_start);

        let keeper = self.game.expr_ref(wk.keeper);
        let player = self.game.expr_ref(wk.player);
        let visible = self.game.expr_ref(wk.visible);
        let turn_vars = TurnVars {
            zero,
            keeper,
            player,
            visible,
        };
        let mut at = self.emit_role_moves(turn, &roles, &turn_vars);
        // The same for what depends on the moves.
        for &u in &units {
            if self.unit_move_dep(u) {
                at = self.emit_unit(u, at, changed);
            }
        }
        at = self.emit_perception(at, &roles, &turn_vars);
        at = self.emit_next_state(at, &state);
        at = self.emit_commit(at, &state, &mats, zero);
        self.edge(at, eval, Label::Skip, None);
        let at = self.emit_goals(goals_start, &roles, &scores);
        let end = self.node("end");
        let lab = self.assign(player, keeper);
        self.edge(at, end, lab, None);
    }

    /// Names the roles and declares the type `Player` of those that are not `random`.
    fn declare_roles(&mut self) -> RoleNames {
        let net = self.net;
        let role_terms: Vec<GTerm> = net.roles.iter().map(|r| r.term).collect();
        let names = self.name_terms(&role_terms, true, "roles");
        let players: Vec<usize> = (0..net.roles.len())
            .filter(|&i| !net.roles[i].random)
            .collect();
        let player_syms: Vec<Symbol> = players.iter().map(|&i| self.game.sym(&names[i])).collect();
        let span = self.span_of_rel(crate::ast::RelId::ROLE);
        self.typedef("Player", player_syms.clone(), span);
        RoleNames {
            names,
            players,
            player_syms,
            span,
        }
    }

    /// Declares the type `Score`: every goal value a player may get, in canonical term order
    /// (`0` alone when there is none).
    fn declare_scores(&mut self, players: &[usize]) -> Scores {
        let net = self.net;
        let mut values: Vec<GTerm> = Vec::new();
        for &i in players {
            for k in &net.goals[i] {
                if net.cond(Some(k.atom)) != Cond::False && !values.contains(&k.term) {
                    values.push(k.term);
                }
            }
        }
        values.sort_by(|&a, &b| self.term_cmp(a, b));
        let value_names = if values.is_empty() {
            vec!["0".to_string()]
        } else {
            self.name_terms(&values, true, "goal values")
        };
        let syms: Vec<Symbol> = value_names.iter().map(|n| self.game.sym(n)).collect();
        let span = self.span_of_rel(crate::ast::RelId::GOAL);
        self.typedef("Score", syms.clone(), span);
        Scores { values, syms, span }
    }

    /// Names every role's possible actions and declares its `does_<role>` variable (of a type
    /// of its own); a role without any possible action gets no variable and a W-LOW warning.
    fn declare_actions(&mut self, roles: &RoleNames) {
        let net = self.net;
        let legal_span = self.span_of_rel(crate::ast::RelId::LEGAL);
        for (ri, role) in net.roles.iter().enumerate() {
            let mut acts: Vec<usize> = (0..role.actions.len())
                .filter(|&k| net.cond(role.actions[k].legal) != Cond::False)
                .collect();
            acts.sort_by(|&a, &b| self.term_cmp(role.actions[a].term, role.actions[b].term));
            let terms: Vec<GTerm> = acts.iter().map(|&k| role.actions[k].term).collect();
            let names = self.name_terms(&terms, true, "actions");
            let mut syms = vec![None; role.actions.len()];
            for (j, &k) in acts.iter().enumerate() {
                syms[k] = Some(self.game.sym(&names[j]));
            }
            if acts.is_empty() {
                let d = GdlDiagnostic::new(
                    Code::NoLegalMove,
                    legal_span
                        .or(roles.span)
                        .unwrap_or(Span::new(self.p.file(), 0, 0)),
                    format!(
                        "role `{}` never has a legal move",
                        self.g.display_term(self.p, role.term)
                    ),
                )
                .with_help("every play reaching this role's turn is stuck");
                self.warnings.push(d);
                self.does_var.push(None);
            } else {
                let members: Vec<Symbol> = acts.iter().map(|&k| syms[k].expect("named")).collect();
                let ty = self.typedef(
                    &format!("does_{}_type", roles.names[ri]),
                    members.clone(),
                    legal_span,
                );
                let v = self.declare_var(
                    &format!("does_{}", roles.names[ri]),
                    ty,
                    members[0],
                    legal_span,
                );
                self.does_var.push(Some(v));
            }
            self.action_sym.push(syms);
        }
    }

    /// Declares the Boolean `f_<fluent>` variable of every fluent that is used and not
    /// constant, and its `n_<fluent>` next-state variable unless its next value is constant.
    fn declare_fluents(&mut self, bool_ty: rg_core::TypeId) -> Vec<StateVar> {
        let net = self.net;
        let wk = *self.game.well_known();
        let mut fl: Vec<usize> = (0..net.fluents.len())
            .filter(|&f| net.fluent_used[f] && net.val[net.fluents[f].atom] == Val::Unknown)
            .collect();
        fl.sort_by(|&a, &b| self.term_cmp(net.fluents[a].term, net.fluents[b].term));
        let fterms: Vec<GTerm> = fl.iter().map(|&f| net.fluents[f].term).collect();
        let fnames = self.name_terms(&fterms, false, "fluents");
        let init_span = self.span_of_rel(crate::ast::RelId::INIT);
        let next_span = self.span_of_rel(crate::ast::RelId::NEXT);
        let mut state: Vec<StateVar> = Vec::new();
        for (j, &f) in fl.iter().enumerate() {
            let init = net.cond(net.fluents[f].init) == Cond::True;
            let fv = self.declare_var(
                &format!("f_{}", fnames[j]),
                bool_ty,
                if init { wk.one } else { wk.zero },
                init_span,
            );
            self.fluent_var[f] = Some(fv);
            let next = match net.cond(net.fluents[f].next) {
                Cond::True => NextValue::Const(true),
                Cond::False => NextValue::Const(false),
                Cond::Lit(_) => NextValue::Var(self.declare_var(
                    &format!("n_{}", fnames[j]),
                    bool_ty,
                    wk.zero,
                    next_span,
                )),
            };
            state.push(StateVar {
                fluent: f,
                var: fv,
                next,
            });
        }
        state
    }

    /// Decides how each ground SCC is read (graph reachability when linear) and declares the
    /// `r_<scc>_<i>` variables of the materialised ones, and `r_changed` (their fixpoint loop's
    /// flag) when there is any.
    fn declare_recursion(&mut self, bool_ty: rg_core::TypeId) -> Option<ExprId> {
        let net = self.net;
        let zero_sym = self.game.well_known().zero;
        for (s, members) in net.sccs.iter().enumerate() {
            if self.is_linear(s as u32) {
                for (i, &a) in members.iter().enumerate() {
                    self.access.insert(a, Access::Linear(s as u32, i as u32));
                }
            } else {
                let mut vars = Vec::new();
                for (i, &a) in members.iter().enumerate() {
                    vars.push(self.declare_var(&format!("r_{s}_{i}"), bool_ty, zero_sym, None));
                    self.access.insert(a, Access::Var(s as u32, i as u32));
                }
                self.mat_vars.insert(s as u32, vars);
            }
        }
        let needs_changed = !self.mat_vars.is_empty();
        if needs_changed {
            Some(self.declare_var("r_changed", bool_ty, zero_sym, None))
        } else {
            None
        }
    }

    /// The terminal test at `check`: on to the roles' moves at `turn` when `terminal` does not
    /// hold, to the goals at `goals_start` when it does (with a warning when it always holds).
    fn emit_terminal_test(&mut self, check: NodeId, turn: NodeId, goals_start: NodeId) {
        let term_cond = self.net.cond(self.net.terminal);
        let term_span = self.span_of_rel(crate::ast::RelId::TERMINAL);
        if term_cond == Cond::True {
            // Translated faithfully, but perft 1 0 0 … without a word puzzled users (issue 22).
            self.warnings.push(
                GdlDiagnostic::new(
                    Code::AlwaysTerminal,
                    term_span.unwrap_or(Span::new(self.p.file(), 0, 0)),
                    "`terminal` always holds: the game is over in its initial state and no role ever moves",
                )
                .with_help("`terminal` should depend on the state (`true`), so that play can begin"),
            );
        }
        self.cond_edge(check, turn, term_cond, false, "m_check_c", term_span);
        self.cond_edge(check, goals_start, term_cond, true, "m_check_t", term_span);
    }

    /// One move per role from `at`, in role order: only the role's own `visible` entry is set,
    /// the role (or `random`) chooses one of its legal actions into `does_<role>` and tags it,
    /// and the keeper takes over. Returns the node after the last role.
    fn emit_role_moves(&mut self, mut at: NodeId, roles: &RoleNames, v: &TurnVars) -> NodeId {
        let net = self.net;
        let one = self.one;
        let legal_span = self.span_of_rel(crate::ast::RelId::LEGAL);
        for (ri, role) in net.roles.iter().enumerate() {
            let rn = roles.names[ri].clone();
            for (j, &pi) in roles.players.iter().enumerate() {
                let n = self.node(&format!("m_vis_{j}_{rn}"));
                self.edge(at, n, Label::Skip, None);
                let q = self.game.expr_ref(roles.player_syms[j]);
                let lhs = self.game.expr_access(v.visible, q);
                let rhs = if pi == ri { one } else { v.zero };
                let nn = self.node(&format!("m_vis_{}_{rn}", j + 1));
                let lab = self.assign(lhs, rhs);
                self.edge(n, nn, lab, roles.span);
                at = nn;
            }
            let choose = self.node(&format!("m_choose_{rn}"));
            let who = if role.random {
                let random = self.game.well_known().random;
                self.game.expr_ref(random)
            } else {
                let j = roles.players.iter().position(|&x| x == ri).expect("player");
                self.game.expr_ref(roles.player_syms[j])
            };
            let lab = self.assign(v.player, who);
            self.edge(at, choose, lab, roles.span);
            let done = self.node(&format!("m_done_{rn}"));
            let mut acts: Vec<usize> = (0..role.actions.len())
                .filter(|&k| self.action_sym[ri][k].is_some())
                .collect();
            acts.sort_by(|&a, &b| self.term_cmp(role.actions[a].term, role.actions[b].term));
            for (j, &k) in acts.iter().enumerate() {
                let a = self.action_sym[ri][k].expect("named");
                let mv = self.node(&format!("m_move_{j}_{rn}"));
                let c = net.cond(role.actions[k].legal);
                self.cond_edge(
                    choose,
                    mv,
                    c,
                    true,
                    &format!("m_legal_{j}_{rn}"),
                    legal_span,
                );
                let set = self.node(&format!("m_set_{j}_{rn}"));
                let av = self.game.expr_ref(a);
                let lab = self.assign(self.does_var[ri].expect("role with actions"), av);
                self.edge(mv, set, lab, legal_span);
                self.edge(set, done, Label::Tag(a), legal_span);
            }
            let next = self.node(&format!("m_after_{rn}"));
            let lab = self.assign(v.player, v.keeper);
            self.edge(done, next, lab, roles.span);
            at = next;
        }
        at
    }

    /// What the players learn of the joint move, from `at`. In GDL-I (no `random`, no `sees`)
    /// every player sees everything: all `visible` entries are set and every `does_<role>` is
    /// revealed as a tag. In GDL-II each player in turn is made the only one to see, and gets a
    /// tag for every percept (`sees`) that holds. Returns the node after them.
    fn emit_perception(&mut self, mut at: NodeId, roles: &RoleNames, v: &TurnVars) -> NodeId {
        let net = self.net;
        let one = self.one;
        let gdl2 = net.roles.iter().any(|r| r.random) || net.sees.iter().any(|s| !s.is_empty());
        if !gdl2 {
            for (j, &q) in roles.player_syms.iter().enumerate() {
                let n = self.node(&format!("m_reveal_{}", j + 1));
                let qe = self.game.expr_ref(q);
                let lhs = self.game.expr_access(v.visible, qe);
                let lab = self.assign(lhs, one);
                self.edge(at, n, lab, None);
                at = n;
            }
            for ri in 0..net.roles.len() {
                if let Some(d) = self.does_var[ri] {
                    let n = self.node(&format!("m_reveal_tag_{ri}"));
                    let s = self.game.expr_root(d);
                    self.edge(at, n, Label::TagVar(s), None);
                    at = n;
                }
            }
            return at;
        }
        let sees_span = self.span_of_rel(crate::ast::RelId::SEES);
        for (pj, &ri) in roles.players.iter().enumerate() {
            let rn = roles.names[ri].clone();
            for (j, &q) in roles.player_syms.iter().enumerate() {
                let n = self.node(&format!("m_seevis_{j}_{rn}"));
                self.edge(at, n, Label::Skip, None);
                let qe = self.game.expr_ref(q);
                let lhs = self.game.expr_access(v.visible, qe);
                let nn = self.node(&format!("m_seevis_{}_{rn}", j + 1));
                let lab = self.assign(lhs, if j == pj { one } else { v.zero });
                self.edge(n, nn, lab, None);
                at = nn;
            }
            let mut percepts: Vec<Keyed> = net.sees[ri]
                .iter()
                .copied()
                .filter(|x| net.cond(Some(x.atom)) != Cond::False)
                .collect();
            percepts.sort_by(|a, b| self.term_cmp(a.term, b.term));
            let pterms: Vec<GTerm> = percepts.iter().map(|x| x.term).collect();
            let pnames = self.name_terms(&pterms, false, "percepts");
            for (k, x) in percepts.iter().enumerate() {
                let c = net.cond(Some(x.atom));
                let t = self.node(&format!("m_seet_{k}_{rn}"));
                let nx = self.node(&format!("m_see_{}_{rn}", k + 1));
                self.cond_edge(at, t, c, true, &format!("m_seec_{k}_{rn}"), sees_span);
                let ps = self.game.sym(&pnames[k]);
                self.edge(t, nx, Label::Tag(ps), sees_span);
                self.cond_edge(at, nx, c, false, &format!("m_seen_{k}_{rn}"), sees_span);
                at = nx;
            }
        }
        at
    }

    /// From `at`, sets each `n_<fluent>` to 1 when its `next` condition holds (a short
    /// disjunction as a decision chain, anything else as a check). Returns the node after them.
    fn emit_next_state(&mut self, mut at: NodeId, state: &[StateVar]) -> NodeId {
        let net = self.net;
        let one = self.one;
        let next_span = self.span_of_rel(crate::ast::RelId::NEXT);
        for (k, sv) in state.iter().enumerate() {
            let (f, nv) = match sv.next {
                NextValue::Var(nv) => (sv.fluent, nv),
                NextValue::Const(_) => continue,
            };
            let c = net.cond(net.fluents[f].next);
            let t = self.node(&format!("m_next_{k}_1"));
            let nx = self.node(&format!("m_next_{}", k + 1));
            let lab = self.assign(nv, one);
            if let Some(lits) = self.small_disjunction(c) {
                self.decide(at, t, nx, &lits, lab, &format!("m_nextd_{k}"), next_span);
            } else {
                self.cond_edge(at, t, c, true, &format!("m_nextc_{k}"), next_span);
                self.edge(t, nx, lab, next_span);
                self.cond_edge(at, nx, c, false, &format!("m_nextn_{k}"), next_span);
            }
            at = nx;
        }
        at
    }

    /// From `at`, a chain of assignments: the next state into the `f_` variables, then every
    /// scratch variable (`n_`, `does_`, the materialised recursion's `r_`, the held atoms' `h_`)
    /// back to its initial value, so that equal GDL states are equal RG states. Returns the
    /// node after them.
    fn emit_commit(
        &mut self,
        mut at: NodeId,
        state: &[StateVar],
        mats: &[u32],
        zero: ExprId,
    ) -> NodeId {
        let one = self.one;
        let mut commit: Vec<Label> = Vec::new();
        for sv in state {
            let fv = sv.var;
            let rhs = match sv.next {
                NextValue::Var(nv) => nv,
                NextValue::Const(true) => one,
                NextValue::Const(false) => zero,
            };
            commit.push(Label::Assign { lhs: fv, rhs });
        }
        for sv in state {
            if let NextValue::Var(nv) = sv.next {
                commit.push(Label::Assign { lhs: nv, rhs: zero });
            }
        }
        for ri in 0..self.net.roles.len() {
            if let Some(v) = self.does_var[ri] {
                let first = self
                    .game
                    .variables
                    .iter()
                    .find(|x| self.game.expr_root(v) == x.name)
                    .map(|x| x.init);
                if let Some(init) = first {
                    let rg_core::ValueData::Element(s) = self.game.value(init).clone() else {
                        continue;
                    };
                    let rhs = self.game.expr_ref(s);
                    commit.push(Label::Assign { lhs: v, rhs });
                }
            }
        }
        for s in mats {
            for &v in &self.mat_vars[s].clone() {
                commit.push(Label::Assign { lhs: v, rhs: zero });
            }
        }
        for &v in &self.held.clone() {
            commit.push(Label::Assign { lhs: v, rhs: zero });
        }
        for (k, lab) in commit.into_iter().enumerate() {
            let n = self.node(&format!("m_commit_{k}"));
            self.edge(at, n, lab, None);
            at = n;
        }
        at
    }

    /// The goals, from `at` (reached when `terminal` holds): per player, its values in
    /// descending order, the first that holds; else the lowest score. Returns the node after
    /// them.
    fn emit_goals(&mut self, mut at: NodeId, roles: &RoleNames, scores: &Scores) -> NodeId {
        let net = self.net;
        let goals_var = {
            let goals = self.game.well_known().goals;
            self.game.expr_ref(goals)
        };
        let fallback = self.game.expr_ref(scores.syms[0]);
        for (pj, &ri) in roles.players.iter().enumerate() {
            let rn = roles.names[ri].clone();
            let q = self.game.expr_ref(roles.player_syms[pj]);
            let slot = self.game.expr_access(goals_var, q);
            let after = self.node(&format!("m_goaled_{rn}"));
            let mut vals: Vec<(usize, Atom)> = net.goals[ri]
                .iter()
                .filter_map(|k| {
                    let i = scores.values.iter().position(|&x| x == k.term)?;
                    Some((i, k.atom))
                })
                .filter(|&(_, a)| net.cond(Some(a)) != Cond::False)
                .collect();
            vals.sort_by_key(|x| std::cmp::Reverse(x.0));
            let mut settled = false;
            for (k, &(vi, a)) in vals.iter().enumerate() {
                let c = net.cond(Some(a));
                let t = self.node(&format!("m_goalt_{k}_{rn}"));
                let nx = self.node(&format!("m_goal_{}_{rn}", k + 1));
                self.cond_edge(at, t, c, true, &format!("m_goalc_{k}_{rn}"), scores.span);
                let v = self.game.expr_ref(scores.syms[vi]);
                let lab = self.assign(slot, v);
                self.edge(t, after, lab, scores.span);
                if c == Cond::True {
                    settled = true;
                    break;
                }
                self.cond_edge(at, nx, c, false, &format!("m_goaln_{k}_{rn}"), scores.span);
                at = nx;
            }
            if !settled {
                let lab = self.assign(slot, fallback);
                self.edge(at, after, lab, scores.span);
            }
            at = after;
        }
        at
    }

    /// The derived atoms and calls an atom reads (aliases resolved by the simplification); a
    /// call reads the derived atoms its lifted relation may read.
    fn children(&mut self, a: Atom) -> Vec<Atom> {
        let net = self.net;
        if net.does_sets.contains_key(&a) {
            return Vec::new();
        }
        if let Kind::Call(rel) = net.kind[a] {
            return self
                .lf
                .touched
                .atoms(self.g, rel)
                .iter()
                .map(|&b| (net.resolve(Lit::pos(b))).atom())
                .filter(|&b| net.kind[b] == Kind::Derived && net.val[b] == Val::Unknown)
                .collect();
        }
        let mut v = Vec::new();
        for &r in &net.rules_of[a] {
            for &l in net.lits.get(r as usize) {
                let b = l.atom();
                if matches!(net.kind[b], Kind::Derived | Kind::Call(_)) {
                    v.push(b);
                }
            }
        }
        v
    }

    /// The atoms the conditions of the automaton read directly.
    fn root_atoms(&self) -> Vec<Atom> {
        let net = self.net;
        let mut conds: Vec<Cond> = Vec::new();
        for role in &net.roles {
            conds.extend(role.actions.iter().map(|x| net.cond(x.legal)));
        }
        conds.push(net.cond(net.terminal));
        for (ri, role) in net.roles.iter().enumerate() {
            if !role.random {
                conds.extend(
                    net.goals[ri]
                        .iter()
                        .chain(&net.sees[ri])
                        .map(|x| net.cond(Some(x.atom))),
                );
            }
        }
        for (f, fl) in net.fluents.iter().enumerate() {
            if net.fluent_used[f] && net.val[fl.atom] == Val::Unknown {
                conds.push(net.cond(fl.next));
            }
        }
        conds
            .into_iter()
            .filter_map(|c| match c {
                Cond::Lit(l) if matches!(net.kind[l.atom()], Kind::Derived | Kind::Call(_)) => {
                    Some(l.atom())
                }
                _ => None,
            })
            .collect()
    }

    /// Chooses the atoms to hold (read by at least two conditions or rules, and not trivially
    /// cheap), declares their variables, and returns every unit in dependency order.
    fn units(&mut self, bool_ty: rg_core::TypeId, zero: Symbol) -> Vec<Unit> {
        let net = self.net;
        let roots = self.root_atoms();
        let mut uses: HashMap<Atom, u32> = HashMap::new();
        for &a in &roots {
            *uses.entry(a).or_default() += 1;
        }
        // Iterative depth-first search: post-order = dependencies first.
        let mut order: Vec<Atom> = Vec::new();
        let mut seen: std::collections::HashSet<Atom> = Default::default();
        // The calls of a lifted relation all read the same atoms: the first one visited
        // orders them (and counts as their reader) for all.
        let mut called: std::collections::HashSet<u32> = Default::default();
        let mut children = |l: &mut Self, a: Atom| match net.kind[a] {
            Kind::Call(rel) if !called.insert(rel) => Vec::new(),
            _ => l.children(a),
        };
        for &root in &roots {
            if !seen.insert(root) {
                continue;
            }
            let mut stack: Vec<(Atom, Vec<Atom>, usize)> = vec![(root, children(self, root), 0)];
            while let Some(top) = stack.last_mut() {
                if top.2 < top.1.len() {
                    let c = top.1[top.2];
                    top.2 += 1;
                    *uses.entry(c).or_default() += 1;
                    if seen.insert(c) {
                        let ch = children(self, c);
                        stack.push((c, ch, 0));
                    }
                } else {
                    order.push(top.0);
                    stack.pop();
                }
            }
        }
        // Cost of evaluating an atom once (search steps, upper bound): its literals plus the
        // cost of the derived atoms it reads. Dependencies come first in `order`; members of
        // a cycle see each other at cost 1.
        let mut cost: HashMap<Atom, u64> = HashMap::new();
        for &a in &order {
            let c: u64 = if let Some(set) = net.does_sets.get(&a) {
                set.iter().map(|m| m.actions.len() as u64).sum::<u64>() + 1
            } else {
                net.rules_of[a]
                    .iter()
                    .flat_map(|&r| net.lits.get(r as usize).iter())
                    .map(|&l| {
                        let b = l.atom();
                        1 + if net.kind[b] == Kind::Derived {
                            cost.get(&b).copied().unwrap_or(1)
                        } else {
                            0
                        }
                    })
                    .sum()
            };
            cost.insert(a, c.min(1 << 40));
        }
        // Every held atom makes every state larger, so only the most profitable ones are.
        let mut candidates: Vec<(u64, Atom)> = order
            .iter()
            .filter(|&&a| net.scc_of[a] == u32::MAX)
            .filter_map(|&a| {
                let u = u64::from(uses.get(&a).copied().unwrap_or(0));
                let gain = u.saturating_sub(1).saturating_mul(cost[&a]);
                (u >= 2 && gain >= HOLD_THRESHOLD).then_some((gain, a))
            })
            .collect();
        candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let budget = (net.fluents.len() / 4).max(32);
        let chosen: std::collections::HashSet<Atom> =
            candidates.iter().take(budget).map(|x| x.1).collect();
        let mut units = Vec::new();
        let mut scc_left: HashMap<u32, usize> = HashMap::new();
        for a in order {
            let s = net.scc_of[a];
            if s != u32::MAX && self.mat_vars.contains_key(&s) {
                let left = scc_left.entry(s).or_insert(net.sccs[s as usize].len());
                *left -= 1;
                if *left == 0 {
                    units.push(Unit::Scc(s));
                }
                continue;
            }
            if chosen.contains(&a) {
                let name = self.atom_name(a);
                let v = self.declare_var(&format!("h_{name}"), bool_ty, zero, None);
                self.held.push(v);
                self.held_of.insert(a, v);
                units.push(Unit::Atom(a));
            }
        }
        units
    }

    fn unit_move_dep(&self, u: Unit) -> bool {
        match u {
            Unit::Atom(a) => self.net.move_dep[a],
            Unit::Scc(s) => self.scc_move_dep(s),
        }
    }

    /// Emits the evaluation of a unit after `at`; returns the node after it.
    fn emit_unit(&mut self, u: Unit, at: NodeId, changed: Option<ExprId>) -> NodeId {
        match u {
            Unit::Scc(s) => self.materialise(s, at, changed.expect("declared with the SCC")),
            Unit::Atom(a) => {
                let v = self.held_of[&a];
                let name = self.atom_name(a);
                let t = self.fresh(&format!("m_hold_{name}_t"));
                let nx = self.fresh(&format!("m_hold_{name}"));
                let pos = self.label(Lit::pos(a));
                let neg = match pos {
                    Label::Reach { from, to, .. } => Label::Reach {
                        from,
                        to,
                        negated: true,
                    },
                    Label::Compare { lhs, rhs, .. } => Label::Compare {
                        lhs,
                        rhs,
                        negated: true,
                    },
                    other => unreachable!("an atom's label is a check, got {other:?}"),
                };
                self.edge(at, t, pos, None);
                let lab = self.assign(v, self.one);
                self.edge(t, nx, lab, None);
                self.edge(at, nx, neg, None);
                self.access.insert(a, Access::Held(v));
                nx
            }
        }
    }

    /// Whether SCC `s` is linear: every rule of a member has at most one positive literal over
    /// the SCC.
    fn is_linear(&self, s: u32) -> bool {
        let net = self.net;
        net.sccs[s as usize].iter().all(|&a| {
            net.rules_of[a].iter().all(|&r| {
                net.lits
                    .get(r as usize)
                    .iter()
                    .filter(|&&l| net.scc_of[l.atom()] == s)
                    .count()
                    <= 1
            })
        })
    }

    fn scc_move_dep(&self, s: u32) -> bool {
        self.net.sccs[s as usize]
            .iter()
            .any(|&a| self.net.move_dep[a])
    }

    /// Emits `from → to` for condition `c` (or its negation when `positive` is false):
    /// a skip when it always holds, nothing when it never does, else the literal's edges.
    fn cond_edge(
        &mut self,
        from: NodeId,
        to: NodeId,
        c: Cond,
        positive: bool,
        base: &str,
        span: Option<Span>,
    ) {
        match (c, positive) {
            (Cond::True, true) | (Cond::False, false) => self.edge(from, to, Label::Skip, span),
            (Cond::True, false) | (Cond::False, true) => {}
            (Cond::Lit(l), pos) => {
                let l = if pos { l } else { l.negate() };
                self.lit_path(from, to, l, base, span, 0)
            }
        }
    }

    /// The literals `l1 … lk` (2 ≤ k ≤ [`MAX_DISJUNCTS`]) when condition `c` is an atom
    /// defined by k rules of one literal each, none of them derived (so each is one edge):
    /// `c ⇔ l1 ∨ … ∨ lk`. Reads of fluents come last (see [`Self::decide`]).
    fn small_disjunction(&self, c: Cond) -> Option<Vec<Lit>> {
        let net = self.net;
        let Cond::Lit(l) = c else { return None };
        let a = l.atom();
        if l.negated() || net.kind[a] != Kind::Derived || net.scc_of[a] != u32::MAX {
            return None;
        }
        let rules = &net.rules_of[a];
        if !(2..=MAX_DISJUNCTS).contains(&rules.len()) {
            return None;
        }
        let mut lits = Vec::with_capacity(rules.len());
        for &r in rules {
            let [x] = net.lits.get(r as usize) else {
                return None;
            };
            if matches!(net.kind[x.atom()], Kind::Derived | Kind::Call(_)) || lits.contains(x) {
                return None;
            }
            lits.push(*x);
        }
        lits.sort_by_key(|&x| (matches!(net.kind[x.atom()], Kind::Fluent(_)), x));
        Some(lits)
    }

    /// Emits "if `l1 ∨ … ∨ lk` then `effect`" from `from` to `to` as a decision chain instead of
    /// a check: `from → t: l1`, `from → d0: ¬l1`, `d0 → t: l2`, …, and the last literal with its
    /// own copy of the effect, `d → e: lk`, `e → to: effect`, `d → to: ¬lk`; `t → to: effect`.
    /// Exactly one route passes in every state, as with the check pair it replaces, and the
    /// last step is the shape join_conditional_assignments turns into a copy when `lk` reads a
    /// fluent (join_fork_suffixes merges the two effects otherwise).
    #[allow(clippy::too_many_arguments)]
    fn decide(
        &mut self,
        from: NodeId,
        t: NodeId,
        to: NodeId,
        lits: &[Lit],
        effect: Label,
        base: &str,
        span: Option<Span>,
    ) {
        let (last, rest) = lits.split_last().expect("at least two literals");
        let mut at = from;
        for (k, &l) in rest.iter().enumerate() {
            let d = self.fresh(&format!("{base}_{k}"));
            self.lit_path(at, t, l, &format!("{base}_{k}p"), span, 0);
            self.lit_path(at, d, l.negate(), &format!("{base}_{k}n"), span, 0);
            at = d;
        }
        self.edge(t, to, effect, span);
        let e = self.fresh(&format!("{base}_e"));
        self.lit_path(at, e, *last, &format!("{base}_lp"), span, 0);
        self.edge(e, to, effect, span);
        self.lit_path(at, to, last.negate(), &format!("{base}_ln"), span, 0);
    }

    /// Emits edges from `from` to `to` that pass iff literal `l` holds; intermediate nodes are
    /// named `<base>_<k>`.
    fn lit_path(
        &mut self,
        from: NodeId,
        to: NodeId,
        l: Lit,
        base: &str,
        span: Option<Span>,
        depth: u32,
    ) {
        let net = self.net;
        let a = l.atom();
        // A set of one role's moves: a chain of `!=` when the literal means "not in these",
        // one `==` for a single move; otherwise its sub-automaton.
        if let Some([m]) = net.does_sets.get(&a).map(Vec::as_slice) {
            if m.complement != l.negated() {
                let labels: Vec<Label> = m
                    .actions
                    .iter()
                    .map(|&k| self.move_cmp(m.role, k, true))
                    .collect();
                self.label_chain(from, to, labels, base, span);
                return;
            }
            if m.actions.len() == 1 {
                let lab = self.move_cmp(m.role, m.actions[0], false);
                self.edge(from, to, lab, span);
                return;
            }
        }
        // Inline a positive literal over an atom with one short rule.
        if !l.negated()
            && net.kind[a] == Kind::Derived
            && net.scc_of[a] == u32::MAX
            && depth < 3
            && net.rules_of[a].len() == 1
        {
            let r = net.rules_of[a][0] as usize;
            let lits = self.ordered(net.lits.get(r));
            if lits.len() <= 3 {
                let rspan = self.g.rule_span(self.p, net.rules[r].src).or(span);
                self.chain(from, to, &lits, base, rspan, depth + 1);
                return;
            }
        }
        let lab = self.label(l);
        self.edge(from, to, lab, span);
    }

    /// Emits a chain `from → … → to` with one literal per step.
    fn chain(
        &mut self,
        from: NodeId,
        to: NodeId,
        lits: &[Lit],
        base: &str,
        span: Option<Span>,
        depth: u32,
    ) {
        if lits.is_empty() {
            self.edge(from, to, Label::Skip, span);
            return;
        }
        let mut at = from;
        for (k, &l) in lits.iter().enumerate() {
            let nx = if k + 1 == lits.len() {
                to
            } else {
                self.fresh(&format!("{base}_{k}"))
            };
            self.lit_path(at, nx, l, &format!("{base}_{k}"), span, depth);
            at = nx;
        }
    }

    /// `does_<r> == a` (or `!=`).
    fn move_cmp(&mut self, role: u32, k: u32, negated: bool) -> Label {
        let v = self.does_var[role as usize].expect("a role whose move is read has actions");
        let s = self.action_sym[role as usize][k as usize].expect("a possible action");
        let e = self.game.expr_ref(s);
        self.cmp_label(v, e, negated)
    }

    /// A chain of single labels from `from` to `to` (a skip when empty).
    fn label_chain(
        &mut self,
        from: NodeId,
        to: NodeId,
        labels: Vec<Label>,
        base: &str,
        span: Option<Span>,
    ) {
        if labels.is_empty() {
            self.edge(from, to, Label::Skip, span);
            return;
        }
        let n = labels.len();
        let mut at = from;
        for (k, lab) in labels.into_iter().enumerate() {
            let nx = if k + 1 == n {
                to
            } else {
                self.fresh(&format!("{base}_{k}"))
            };
            self.edge(at, nx, lab, span);
            at = nx;
        }
    }

    /// Literals in evaluation order: comparisons first, then the rest, each by atom.
    fn ordered(&self, lits: &[Lit]) -> Vec<Lit> {
        let mut v = lits.to_vec();
        v.sort_by_key(|&l| {
            let derived = matches!(self.net.kind[l.atom()], Kind::Derived | Kind::Call(_));
            (derived, l)
        });
        v
    }

    /// The single-edge label of a literal.
    fn label(&mut self, l: Lit) -> Label {
        let net = self.net;
        let a = l.atom();
        let neg = l.negated();
        match net.kind[a] {
            Kind::Fluent(f) => {
                let v = self.fluent_var[f as usize]
                    .expect("a fluent read by a condition has a variable");
                self.cmp_label(v, self.one, neg)
            }
            Kind::Does(m) => self.move_cmp(m.role, m.action, neg),
            Kind::Call(_) => self.call_label(a, neg),
            Kind::Derived | Kind::Exact => {
                match self.access.get(&a).copied().unwrap_or(Access::Sub) {
                    Access::Sub => {
                        let (i, o) = self.sub_automaton(a);
                        Label::Reach {
                            from: i,
                            to: o,
                            negated: neg,
                        }
                    }
                    Access::Linear(s, i) => {
                        self.build_linear(s);
                        let src = self.node(&format!("c{s}_src"));
                        let t = self.node(&format!("c{s}_{i}"));
                        Label::Reach {
                            from: src,
                            to: t,
                            negated: neg,
                        }
                    }
                    Access::Var(s, i) => {
                        let v = self.mat_vars[&s][i as usize];
                        self.cmp_label(v, self.one, neg)
                    }
                    Access::Held(v) => self.cmp_label(v, self.one, neg),
                }
            }
        }
    }

    /// The RG name of a derived atom.
    fn atom_name(&mut self, a: Atom) -> String {
        if let Some(n) = self.atom_name.get(&a) {
            return n.clone();
        }
        let g = self.g;
        let rel = g.atom_rel(a);
        let mut natural = match g.rels[rel as usize].source {
            Some(s) => {
                let mut n = String::new();
                mangle_into(self.p.name(self.p.rel_name(s)), &mut n);
                n
            }
            None => format!("aux{rel}"),
        };
        for &t in g.atom_args(a) {
            natural.push('_');
            self.term_name_into(t, &mut natural);
        }
        let (names, collisions) = self
            .atom_namer
            .assign(std::slice::from_ref(&natural), false);
        if !collisions.is_empty() {
            // The name is taken by an atom named earlier: report against a display of both.
            let other = self
                .atom_name
                .iter()
                .filter(|(_, n)| **n == natural)
                .map(|(&x, _)| x)
                .min();
            if let Some(o) = other {
                let msg = format!(
                    "`{}` and `{}` both flatten to `{natural}`; using `{natural}` and `{}`",
                    g.display_atom(self.p, o),
                    g.display_atom(self.p, a),
                    names[0]
                );
                let span = self.p.rules().first().map(|r| r.span).unwrap_or(Span::new(
                    self.p.file(),
                    0,
                    0,
                ));
                self.warnings
                    .push(GdlDiagnostic::new(Code::NameCollision, span, msg));
            }
        }
        self.atom_name.insert(a, names[0].clone());
        names[0].clone()
    }

    /// The sub-automaton `d_<a>_in → d_<a>_out` of a derived atom, built on first use.
    fn sub_automaton(&mut self, a: Atom) -> (NodeId, NodeId) {
        if let Some(&x) = self.sub.get(&a) {
            return x;
        }
        let name = self.atom_name(a);
        let i = self.node(&format!("d_{name}_in"));
        let o = self.node(&format!("d_{name}_out"));
        self.sub.insert(a, (i, o));
        let net = self.net;
        if let Some(set) = net.does_sets.get(&a) {
            for (j, m) in set.iter().enumerate() {
                if m.complement {
                    let labels: Vec<Label> = m
                        .actions
                        .iter()
                        .map(|&k| self.move_cmp(m.role, k, true))
                        .collect();
                    self.label_chain(i, o, labels, &format!("d_{name}_{j}"), None);
                } else {
                    for &k in &m.actions {
                        let lab = self.move_cmp(m.role, k, false);
                        self.edge(i, o, lab, None);
                    }
                }
            }
            return (i, o);
        }
        let bodies: Vec<Body> = net.rules_of[a]
            .iter()
            .map(|&r| {
                let rule = &net.rules[r as usize];
                (
                    self.ordered(net.lits.get(r as usize)),
                    self.g.rule_span(self.p, rule.src),
                )
            })
            .collect();
        let refs: Vec<&Body> = bodies.iter().collect();
        let mut count = 0;
        self.trie(i, o, &refs, 0, &format!("d_{name}"), &mut count);
        (i, o)
    }

    /// Emits the rule bodies `rules` (ordered literals, all equal before position `k`) from
    /// `from` to `to` as a prefix tree: a literal shared by several bodies at position `k` is
    /// tested once, so neither the interpreter nor the optimiser sees repeated prefixes.
    fn trie(
        &mut self,
        from: NodeId,
        to: NodeId,
        rules: &[&Body],
        k: usize,
        base: &str,
        count: &mut usize,
    ) {
        let mut groups: Vec<(Lit, Vec<&Body>)> = Vec::new();
        let mut done = false;
        for &r in rules {
            match r.0.get(k) {
                None => done = true,
                Some(&l) => match groups.iter_mut().find(|g| g.0 == l) {
                    Some(g) => g.1.push(r),
                    None => groups.push((l, vec![r])),
                },
            }
        }
        if done {
            let span = rules.iter().find(|r| r.0.len() == k).and_then(|r| r.1);
            self.edge(from, to, Label::Skip, span);
        }
        for (l, group) in groups {
            let n = *count;
            *count += 1;
            let name = format!("{base}_{n}");
            if let [single] = group.as_slice() {
                self.chain(from, to, &single.0[k..], &name, single.1, 0);
                continue;
            }
            let mid = self.fresh(&name);
            self.lit_path(from, mid, l, &format!("{name}_l"), group[0].1, 0);
            self.trie(mid, to, &group, k + 1, base, count);
        }
    }

    /// The reachability graph of a linear SCC: `c<s>_src`, one node per member, a path per
    /// rule from the member its recursive literal reads (or from the source).
    fn build_linear(&mut self, s: u32) {
        if self.linear_built[s as usize] {
            return;
        }
        self.linear_built[s as usize] = true;
        let net = self.net;
        let src = self.node(&format!("c{s}_src"));
        let members = net.sccs[s as usize].clone();
        for (i, &a) in members.iter().enumerate() {
            let target = self.node(&format!("c{s}_{i}"));
            for (ri, &r) in net.rules_of[a].iter().enumerate() {
                let lits = self.ordered(net.lits.get(r as usize));
                let (rec, rest): (Vec<Lit>, Vec<Lit>) =
                    lits.iter().partition(|&&l| net.scc_of[l.atom()] == s);
                let from = match rec.first() {
                    Some(&l) => {
                        let j = members.iter().position(|&x| x == l.atom()).expect("member");
                        self.node(&format!("c{s}_{j}"))
                    }
                    None => src,
                };
                let span = self.g.rule_span(self.p, net.rules[r as usize].src);
                self.chain(from, target, &rest, &format!("c{s}_{i}_{ri}"), span, 0);
            }
        }
    }

    /// Emits the fixpoint loop of a non-linear SCC after `at` (its `r_` variables are
    /// recomputed from their rules until none changes); returns the node after it.
    fn materialise(&mut self, s: u32, at: NodeId, changed: ExprId) -> NodeId {
        let net = self.net;
        let members = net.sccs[s as usize].clone();
        let vars = self.mat_vars[&s].clone();
        let zero = {
            let z = self.game.well_known().zero;
            self.game.expr_ref(z)
        };
        let one = self.one;
        let round = self.node(&format!("m_mat_{s}_round"));
        self.edge(at, round, Label::Skip, None);
        let first = self.node(&format!("m_mat_{s}_0"));
        let lab = self.assign(changed, zero);
        self.edge(round, first, lab, None);
        for (i, &a) in members.iter().enumerate() {
            let x = self.node(&format!("m_mat_{s}_{i}"));
            let skip = self.node(&format!("m_mat_{s}_{i}_skip"));
            let try_ = self.node(&format!("m_mat_{s}_{i}_try"));
            let set = self.node(&format!("m_mat_{s}_{i}_set"));
            let set2 = self.node(&format!("m_mat_{s}_{i}_set2"));
            let l = self.cmp_label(vars[i], one, false);
            self.edge(x, skip, l, None);
            let l = self.cmp_label(vars[i], one, true);
            self.edge(x, try_, l, None);
            // The member's rules, reading the SCC through its variables.
            let ci = self.node(&format!("e{s}_{i}_in"));
            let co = self.node(&format!("e{s}_{i}_out"));
            for (ri, &r) in net.rules_of[a].iter().enumerate() {
                let lits = self.ordered(net.lits.get(r as usize));
                let span = self.g.rule_span(self.p, net.rules[r as usize].src);
                self.chain(ci, co, &lits, &format!("e{s}_{i}_{ri}"), span, 0);
            }
            self.edge(
                try_,
                set,
                Label::Reach {
                    from: ci,
                    to: co,
                    negated: false,
                },
                None,
            );
            self.edge(
                try_,
                skip,
                Label::Reach {
                    from: ci,
                    to: co,
                    negated: true,
                },
                None,
            );
            let lab = self.assign(vars[i], one);
            self.edge(set, set2, lab, None);
            let lab = self.assign(changed, one);
            self.edge(set2, skip, lab, None);
            let nx = if i + 1 == members.len() {
                self.node(&format!("m_mat_{s}_test"))
            } else {
                self.node(&format!("m_mat_{s}_{}", i + 1))
            };
            self.edge(skip, nx, Label::Skip, None);
        }
        let test = self.node(&format!("m_mat_{s}_test"));
        let out = self.node(&format!("m_mat_{s}_done"));
        let l = self.cmp_label(changed, one, false);
        self.edge(test, round, l, None);
        let l = self.cmp_label(changed, one, true);
        self.edge(test, out, l, None);
        out
    }
}

/// The program symbol of a grounder symbol index.
fn sym(i: u32) -> crate::ast::Sym {
    use rg_core::EntityId;
    crate::ast::Sym::new(i as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The -O0 translation of `text`, printed.
    fn lowered(text: &str) -> String {
        let (p, g) =
            crate::ground::tests::ground_text(text, &crate::ground::GroundLimits::default())
                .expect("grounds");
        let net = Net::build(&p, &g).expect("a net");
        rg_core::print(&lower(&p, &g, &net).0)
    }

    #[test]
    fn a_game_over_before_it_starts_is_reported() {
        let text = "(role x) (init (f)) (legal x wait) (<= (next (f)) (true (f))) terminal
             (goal x 100)";
        let (p, g) =
            crate::ground::tests::ground_text(text, &crate::ground::GroundLimits::default())
                .expect("grounds");
        let net = Net::build(&p, &g).expect("a net");
        let warnings: Vec<String> = lower(&p, &g, &net)
            .1
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert_eq!(
            warnings,
            [
                "`terminal` always holds: the game is over in its initial state and no role ever moves"
            ]
        );
    }

    /// "next(f) if does(x, set) or true(f)" becomes a decision chain without a check; the fluent
    /// is read last, next to its own copy of the store (the shape join_conditional_assignments
    /// turns into `n_f = f_f`).
    #[test]
    fn a_next_state_disjunction_of_single_literals_is_a_decision_chain() {
        let out = lowered(
            "(role x) (init (ctl)) (<= (legal x set) (true (ctl))) (<= (legal x wait) (true (ctl)))
             (<= (next (f)) (does x set)) (<= (next (f)) (true (f))) (<= (next (ctl)) (true (ctl)))
             (<= terminal (true (f))) (<= (goal x 100) (true (f))) (<= (goal x 0) (not (true (f))))",
        );
        assert!(!out.contains("? d_next"), "{out}");
        for want in [
            "m_reveal_tag_0, m_next_0_1: does_x == set;",
            "m_next_0_1, m_next_1: n_f = 1;",
            "m_reveal_tag_0, m_nextd_0_0: does_x != set;",
            "m_nextd_0_0, m_nextd_0_e: f_f == 1;",
            "m_nextd_0_e, m_next_1: n_f = 1;",
            "m_nextd_0_0, m_next_1: f_f != 1;",
        ] {
            assert!(out.contains(want), "{want} missing from\n{out}");
        }
    }

    #[test]
    fn names_order_numbers_numerically_first() {
        let mut v = vec!["b", "10", "2", "a", "02", "100"];
        v.sort_by(|a, b| name_cmp(a, b));
        assert_eq!(v, ["2", "02", "10", "100", "a", "b"]);
    }
}
