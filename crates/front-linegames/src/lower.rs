//! Lowering to HRG: the checked game becomes an HRG syntax tree, built
//! directly (no HRG text is parsed), with every node spanned by the `.lg` statement it comes
//! from, so that anything reported about the generated program points into the user's file.
//! The program is laid out as domains, direction maps and the step table, side and material
//! helpers, counters, state variables, then graphs (see [`to_hrg`]).

use crate::ast::{Continuation, Obligation};
use crate::check::LineGame;
use crate::setup::Man;
use front_hrg::ast::{
    BinOp, Binding, Decl, Element, Expr, ExprKind, Function, Graph, MapPart, Pattern, Stmt,
    StmtKind, Type, Values,
};
use rg_core::Span;

/// Builds HRG nodes, all with the span of one `.lg` statement.
#[derive(Clone, Copy)]
struct At(Span);

impl At {
    fn expr(self, kind: ExprKind) -> Expr {
        Expr { kind, span: self.0 }
    }

    fn name(self, name: &str) -> Expr {
        self.expr(ExprKind::Name(name.to_owned()))
    }

    fn int(self, v: u64) -> Expr {
        self.name(&v.to_string())
    }

    fn ctor(self, c: &str, args: Vec<Expr>) -> Expr {
        self.expr(ExprKind::Ctor(c.to_owned(), args))
    }

    /// `base[k1][k2]…`
    fn index(self, base: &str, keys: impl IntoIterator<Item = Expr>) -> Expr {
        keys.into_iter().fold(self.name(base), |m, k| {
            self.expr(ExprKind::Access(Box::new(m), Box::new(k)))
        })
    }

    /// `f(args)` as an expression (`reachable(g())`, `not(e)`).
    fn apply(self, f: &str, args: Vec<Expr>) -> Expr {
        self.expr(ExprKind::Call(Box::new(self.name(f)), args))
    }

    fn reachable(self, graph: &str) -> Expr {
        self.apply("reachable", vec![self.apply(graph, Vec::new())])
    }

    fn bin(self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.expr(ExprKind::Bin(op, Box::new(a), Box::new(b)))
    }

    fn ite(self, c: Expr, a: Expr, b: Expr) -> Expr {
        self.expr(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)))
    }

    fn stmt(self, kind: StmtKind) -> Stmt {
        Stmt { kind, span: self.0 }
    }

    /// `var[keys]… = e`
    fn set(self, var: &str, keys: Vec<Expr>, e: Expr) -> Stmt {
        self.stmt(StmtKind::Assign(var.to_owned(), keys, e))
    }

    /// `var = Ty(*)`
    fn any(self, var: &str, ty: &str) -> Stmt {
        self.stmt(StmtKind::AssignAny(var.to_owned(), Vec::new(), named(ty)))
    }

    fn check(self, e: Expr) -> Stmt {
        self.stmt(StmtKind::Call("check".to_owned(), vec![e]))
    }

    /// A call statement without arguments: a graph, `end()` or `break()`.
    fn call(self, graph: &str) -> Stmt {
        self.stmt(StmtKind::Call(graph.to_owned(), Vec::new()))
    }

    fn tag(self, t: &str) -> Stmt {
        self.stmt(StmtKind::Tag(vec![t.to_owned()], false))
    }

    fn branch(self, arms: Vec<Vec<Stmt>>) -> Stmt {
        self.stmt(StmtKind::Branch(arms))
    }

    /// `branch d in Dir { body }`
    fn each_dir(self, body: Vec<Stmt>) -> Stmt {
        self.stmt(StmtKind::BranchIn("d".to_owned(), named("Dir"), body))
    }

    fn if_(self, c: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>) -> Stmt {
        self.stmt(StmtKind::If(c, then, els))
    }

    fn graph(self, name: &str, body: Vec<Stmt>) -> Decl {
        Decl::Graph(Graph {
            name: name.to_owned(),
            reusable: false,
            params: Vec::new(),
            body,
            span: self.0,
        })
    }

    fn domain(self, name: &str, elements: &[&str]) -> Decl {
        Decl::Domain(
            name.to_owned(),
            elements
                .iter()
                .map(|e| Element::Name((*e).to_owned()))
                .collect(),
            self.0,
        )
    }

    /// `domain Name = C(K) where K in 0..max`
    fn counter_domain(self, name: &str, ctor: &str, max: u64) -> Decl {
        Decl::Domain(
            name.to_owned(),
            vec![Element::Generator {
                name: ctor.to_owned(),
                params: vec!["K".to_owned()],
                bindings: vec![Binding {
                    name: "K".to_owned(),
                    values: Values::Range(0, max as i64),
                }],
            }],
            self.0,
        )
    }

    fn function(self, name: &str, ty: &[&str], cases: Vec<(Vec<Pattern>, Expr)>) -> Decl {
        Decl::Function(Function {
            name: name.to_owned(),
            ty: arrow(ty),
            cases,
            span: self.0,
        })
    }

    fn variable(self, name: &str, ty: &[&str], init: Expr) -> Decl {
        Decl::Variable(name.to_owned(), arrow(ty), Some(init), self.0)
    }

    /// The pattern variable `K` of counter cases `f(C(K)) = …`.
    fn k(self) -> Expr {
        self.name("K")
    }

    /// `nextX(C(K)) = if K < max then C(K + 1) else C(K)`
    fn saturating_next(self, fun: &str, domain: &str, ctor: &str, max: u64) -> Decl {
        let body = self.ite(
            self.bin(BinOp::Lt, self.k(), self.int(max)),
            self.ctor(ctor, vec![self.bin(BinOp::Add, self.k(), self.int(1))]),
            self.ctor(ctor, vec![self.k()]),
        );
        self.function(fun, &[domain, domain], vec![(vec![k_pattern(ctor)], body)])
    }
}

fn named(ty: &str) -> Type {
    Type::Name(ty.to_owned(), None)
}

/// `A -> B -> C`
fn arrow(names: &[&str]) -> Type {
    let (last, init) = names.split_last().expect("a type has a name");
    init.iter().rev().fold(named(last), |rest, n| {
        Type::Name((*n).to_owned(), Some(Box::new(rest)))
    })
}

fn pat(name: &str) -> Pattern {
    Pattern::Name(name.to_owned())
}

/// The pattern `C(K)`.
fn k_pattern(ctor: &str) -> Pattern {
    Pattern::Ctor(ctor.to_owned(), vec![pat("K")])
}

/// The HRG program of a checked game (without the title comment): domains, one map per
/// direction and the `step` table, side and material helpers, counters for the limits present,
/// state variables, then the graphs.
pub fn to_hrg(g: &LineGame) -> Vec<Decl> {
    let o = &g.origins;
    let (game, board, setup, rules) = (At(o.game), At(o.board), At(o.setup), At(o.capture));
    let mut out = Vec::new();

    // Domains.
    out.push(game.domain("Player", &["white", "black"]));
    out.push(game.domain("Score", &["0", "50", "100"]));
    out.push(game.domain("Cell", &["empty", "whiteMan", "blackMan", "border"]));
    let mut order: Vec<usize> = (0..g.board.len()).collect();
    order.sort_by(|&a, &b| g.board.name(a).cmp(g.board.name(b)));
    let names: Vec<&str> = order.iter().map(|&p| g.board.name(p)).collect();
    out.push(board.domain("Point", &names));
    out.push(board.domain("PointOrNull", &["null", "Point"]));
    let dirs = g.board.directions();
    out.push(board.counter_domain("Dir", "S", dirs.len() as u64 - 1));

    // Direction maps and the step table.
    for &d in dirs {
        let mut cases: Vec<(Vec<Pattern>, Expr)> = order
            .iter()
            .filter_map(|&p| {
                let q = g.board.neighbour(p, d)?;
                Some((vec![pat(g.board.name(p))], board.name(g.board.name(q))))
            })
            .collect();
        cases.push((vec![Pattern::Wildcard], board.name("null")));
        out.push(board.function(d.name(), &["PointOrNull", "PointOrNull"], cases));
    }
    let steps = dirs
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let key = Pattern::Ctor("S".to_owned(), vec![pat(&k.to_string())]);
            (vec![key], board.name(d.name()))
        })
        .collect();
    out.push(board.function("step", &["Dir", "PointOrNull", "PointOrNull"], steps));

    // Sides and material.
    let swap = |a: &str, b: &str| (vec![pat(a)], game.name(b));
    out.push(game.function(
        "other",
        &["Player", "Player"],
        vec![swap("white", "black"), swap("black", "white")],
    ));
    out.push(game.function(
        "manOf",
        &["Player", "Cell"],
        vec![swap("white", "whiteMan"), swap("black", "blackMan")],
    ));
    let (w0, b0) = (g.men(Man::White) as u64, g.men(Man::Black) as u64);
    let men = w0 + b0;
    out.push(setup.counter_domain("Margin", "M", men));
    let s = setup;
    let m = |e: Expr| s.ctor("M", vec![e]);
    let gain = |side: &str, op: BinOp, bound: u64, step: BinOp| {
        let cond = s.bin(op, s.k(), s.int(bound));
        let body = s.ite(cond, m(s.bin(step, s.k(), s.int(1))), m(s.k()));
        (vec![pat(side), k_pattern("M")], body)
    };
    out.push(s.function(
        "gain",
        &["Player", "Margin", "Margin"],
        vec![
            gain("white", BinOp::Lt, men, BinOp::Add),
            gain("black", BinOp::Gt, 0, BinOp::Sub),
        ],
    ));
    for (name, ahead) in [("whiteScore", BinOp::Gt), ("blackScore", BinOp::Lt)] {
        let body = s.ite(
            s.bin(ahead, s.k(), s.int(b0)),
            s.int(100),
            s.ite(s.bin(BinOp::Eq, s.k(), s.int(b0)), s.int(50), s.int(0)),
        );
        out.push(s.function(
            name,
            &["Margin", "Score"],
            vec![(vec![k_pattern("M")], body)],
        ));
    }

    // Counters, only for the limits present.
    let counters = [
        (g.turns, o.turns, "Turns", "T", "nextTurn", "turns"),
        (g.quiet, o.quiet, "Quiet", "Q", "nextQuiet", "quiet"),
    ];
    for (limit, span, domain, ctor, next, _) in counters {
        if let (Some(max), Some(span)) = (limit, span) {
            let at = At(span);
            out.push(at.counter_domain(domain, ctor, max.into()));
            out.push(at.saturating_next(next, domain, ctor, max.into()));
        }
    }

    // State variables.
    let mut entries = vec![MapPart {
        key: pat("null"),
        value: setup.name("border"),
        bindings: Vec::new(),
    }];
    for &p in &order {
        if let Some(man) = g.cells[p] {
            entries.push(MapPart {
                key: pat(g.board.name(p)),
                value: setup.name(match man {
                    Man::White => "whiteMan",
                    Man::Black => "blackMan",
                }),
                bindings: Vec::new(),
            });
        }
    }
    let cells = setup.expr(ExprKind::Map(Some(Box::new(setup.name("empty"))), entries));
    out.push(setup.variable("board", &["PointOrNull", "Cell"], cells));
    out.push(game.variable("me", &["Player"], game.name("white")));
    out.push(game.variable("at", &["PointOrNull"], game.name("null")));
    out.push(setup.variable("margin", &["Margin"], m(setup.int(w0))));
    for (limit, span, domain, ctor, _, var) in counters {
        if let (Some(_), Some(span)) = (limit, span) {
            let at = At(span);
            out.push(at.variable(var, &[domain], at.ctor(ctor, vec![at.int(0)])));
        }
    }

    out.extend(graphs(g, rules));
    out
}

/// The lowering's vocabulary: expressions and statements over the generated game's variables
/// (`board`, `at`, `me`, the direction `d` of `each_dir`), all with the span of `self`.
impl At {
    /// `board[e]`: the cell at point `e`.
    fn cell(self, e: Expr) -> Expr {
        self.index("board", [e])
    }

    /// `step[d][e]`: the neighbour of point `e` in direction `d`.
    fn step_d(self, e: Expr) -> Expr {
        self.index("step", [self.name("d"), e])
    }

    /// `manOf[me]`: a man of the side to move.
    fn own(self) -> Expr {
        self.index("manOf", [self.name("me")])
    }

    /// `manOf[other[me]]`: a man of the opponent.
    fn enemy(self) -> Expr {
        self.index("manOf", [self.index("other", [self.name("me")])])
    }

    /// `a == b`.
    fn eq(self, a: Expr, b: Expr) -> Expr {
        self.bin(BinOp::Eq, a, b)
    }

    /// `at`: the point of the man that moves.
    fn at(self) -> Expr {
        self.name("at")
    }

    /// Chooses a point `at` holding a man of the side to move.
    fn pick(self) -> Vec<Stmt> {
        vec![
            self.any("at", "Point"),
            self.check(self.eq(self.cell(self.at()), self.own())),
        ]
    }

    /// Some direction leads from `at` to an empty point.
    fn can_step(self) -> Stmt {
        self.each_dir(vec![self.check(
            self.eq(self.cell(self.step_d(self.at())), self.name("empty")),
        )])
    }

    /// The keeper takes over and the man is put down at `at`.
    fn put_down(self) -> Vec<Stmt> {
        vec![
            self.set("player", Vec::new(), self.name("keeper")),
            self.set("board", vec![self.at()], self.own()),
        ]
    }

    /// The man is lifted from `at`.
    fn lift(self) -> Stmt {
        self.set("board", vec![self.at()], self.name("empty"))
    }

    /// `at` moves one step in direction `d`.
    fn move_on(self) -> Stmt {
        self.set("at", Vec::new(), self.step_d(self.at()))
    }

    /// The side to move keeps moving (`player = me`).
    fn same_side(self) -> Stmt {
        self.set("player", Vec::new(), self.name("me"))
    }
}

/// The graphs of the generated game: the move searches, the moves, the limits and the turn
/// loop `rules`.
fn graphs(g: &LineGame, r: At) -> Vec<Decl> {
    let mut out = search_graphs(r);
    out.extend(move_graphs(g, r));
    out.push(limits_graph(g, r));
    out.extend(turn_graphs(g, r));
    out
}

/// `jumpFrom` (a jump is possible from `at`), `anyJump`, `anyStep`, `anyMove` (the side to
/// move has a man that can jump, step, or do either) and `pickMan` (chooses that man and tags
/// its point).
fn search_graphs(r: At) -> Vec<Decl> {
    let mut out = Vec::new();
    out.push(r.graph(
        "jumpFrom",
        vec![r.each_dir(vec![
            r.check(r.eq(r.cell(r.step_d(r.at())), r.enemy())),
            r.check(r.eq(r.cell(r.step_d(r.step_d(r.at()))), r.name("empty"))),
        ])],
    ));
    let mut any_jump = r.pick();
    any_jump.push(r.call("jumpFrom"));
    out.push(r.graph("anyJump", any_jump));
    let mut any_step = r.pick();
    any_step.push(r.can_step());
    out.push(r.graph("anyStep", any_step));
    let mut any_move = r.pick();
    any_move.push(r.branch(vec![vec![r.can_step()], vec![r.call("jumpFrom")]]));
    out.push(r.graph("anyMove", any_move));
    let mut pick_man = r.pick();
    pick_man.push(r.stmt(StmtKind::TagVar("at".to_owned())));
    out.push(r.graph("pickMan", pick_man));
    out
}

/// `stepOn` (a step to an empty neighbour, which advances the quiet-move counter),
/// `jumpOnce` (one jump over an enemy man, which changes the material margin) and
/// `captureOn` (jumps chained as the game's obligation and continuation say, which resets the
/// quiet-move counter).
fn move_graphs(g: &LineGame, r: At) -> Vec<Decl> {
    let quiet = g.origins.quiet.map(At);
    let mut out = Vec::new();
    let mut step_on = vec![
        r.tag("NORMAL"),
        r.lift(),
        r.each_dir(vec![
            r.move_on(),
            r.check(r.eq(r.cell(r.at()), r.name("empty"))),
            r.tag("d"),
        ]),
    ];
    step_on.extend(r.put_down());
    if let Some(q) = quiet {
        step_on.push(q.set("quiet", Vec::new(), q.index("nextQuiet", [q.name("quiet")])));
    }
    out.push(r.graph("stepOn", step_on));

    out.push(r.graph(
        "jumpOnce",
        vec![
            r.each_dir(vec![
                r.move_on(),
                r.check(r.eq(r.cell(r.at()), r.enemy())),
                r.lift(),
                r.move_on(),
                r.check(r.eq(r.cell(r.at()), r.name("empty"))),
                r.tag("d"),
            ]),
            r.set(
                "margin",
                Vec::new(),
                r.index("gain", [r.name("me"), r.name("margin")]),
            ),
        ],
    ));

    let stop_unless_jump = || {
        r.if_(
            r.apply("not", vec![r.reachable("jumpFrom")]),
            vec![r.call("break")],
            None,
        )
    };
    let chain = match (g.obligation, g.continuation) {
        (_, Continuation::Single) => vec![r.call("jumpOnce")],
        (Obligation::Mandatory, Continuation::Chain) => {
            vec![r.stmt(StmtKind::Loop(vec![r.call("jumpOnce"), stop_unless_jump()]))]
        }
        (Obligation::Optional, Continuation::Chain) => vec![r.stmt(StmtKind::Loop(vec![
            r.call("jumpOnce"),
            r.branch(vec![Vec::new(), vec![r.call("break")]]),
        ]))],
        (Obligation::Mandatory, Continuation::Split) => vec![r.stmt(StmtKind::Loop(vec![
            r.call("jumpOnce"),
            stop_unless_jump(),
            r.tag("CONTINUE"),
            r.same_side(),
        ]))],
        (Obligation::Optional, Continuation::Split) => vec![r.stmt(StmtKind::Loop(vec![
            r.call("jumpOnce"),
            stop_unless_jump(),
            r.branch(vec![vec![r.tag("CONTINUE")], vec![r.call("break")]]),
            r.same_side(),
        ]))],
    };
    let mut capture_on = vec![r.tag("CAPTURE"), r.lift()];
    capture_on.extend(chain);
    capture_on.extend(r.put_down());
    if let Some(q) = quiet {
        capture_on.push(q.set("quiet", Vec::new(), q.ctor("Q", vec![q.int(0)])));
    }
    out.push(r.graph("captureOn", capture_on));
    out
}

/// `limits`: when the turn or quiet-move limit is reached, the game ends with goals read from
/// the material margin.
fn limits_graph(g: &LineGame, r: At) -> Decl {
    let o = &g.origins;
    let limit_test = |span: Option<Span>, var: &str, ctor: &str, max: Option<u32>| {
        let (span, max) = (span?, max?);
        let l = At(span);
        Some(l.bin(
            BinOp::Eq,
            l.name(var),
            l.ctor(ctor, vec![l.int(max.into())]),
        ))
    };
    let condition = match (
        limit_test(o.turns, "turns", "T", g.turns),
        limit_test(o.quiet, "quiet", "Q", g.quiet),
    ) {
        (Some(t), Some(q)) => Some(r.bin(BinOp::Or, t, q)),
        (t, q) => t.or(q),
    };
    let limits_span = o.turns.or(o.quiet).unwrap_or(o.capture);
    let l = At(limits_span);
    let result = |side: &str, table: &str| {
        l.set(
            "goals",
            vec![l.name(side)],
            l.index(table, [l.name("margin")]),
        )
    };
    let material = vec![
        result("white", "whiteScore"),
        result("black", "blackScore"),
        l.call("end"),
    ];
    // A game always has a limit (LG004); without one the material ending is never reached.
    let limits = match condition {
        Some(c) => vec![l.if_(c, material, None)],
        None => Vec::new(),
    };
    l.graph("limits", limits)
}

/// `stuck` (the side to move loses) and `rules`: the turn loop — a side that cannot move is
/// stuck; otherwise the limits are tested, a man picked and moved (a capture first when
/// capturing is mandatory), the turn counter advanced and the other side is to move.
fn turn_graphs(g: &LineGame, r: At) -> Vec<Decl> {
    let mut out = Vec::new();
    out.push(r.graph(
        "stuck",
        vec![
            r.set("goals", vec![r.name("me")], r.int(0)),
            r.set("goals", vec![r.index("other", [r.name("me")])], r.int(100)),
            r.call("end"),
        ],
    ));

    let start = |then: &str| {
        vec![
            r.call("limits"),
            r.same_side(),
            r.call("pickMan"),
            r.call(then),
        ]
    };
    let mut turn = match g.obligation {
        Obligation::Mandatory => vec![r.if_(
            r.reachable("anyJump"),
            start("captureOn"),
            Some(vec![r.if_(
                r.reachable("anyStep"),
                start("stepOn"),
                Some(vec![r.call("stuck")]),
            )]),
        )],
        Obligation::Optional => vec![
            r.if_(
                r.apply("not", vec![r.reachable("anyMove")]),
                vec![r.call("stuck")],
                None,
            ),
            r.call("limits"),
            r.same_side(),
            r.call("pickMan"),
            r.branch(vec![vec![r.call("stepOn")], vec![r.call("captureOn")]]),
        ],
    };
    if let Some(span) = g.origins.turns {
        let t = At(span);
        turn.push(t.set("turns", Vec::new(), t.index("nextTurn", [t.name("turns")])));
    }
    turn.push(r.set("me", Vec::new(), r.index("other", [r.name("me")])));
    out.push(r.graph("rules", vec![r.stmt(StmtKind::Loop(turn))]));
    out
}
