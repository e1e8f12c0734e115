//! Randomised differential test of the optimiser: small random RG games (two players taking
//! turns over a few variables, a map, a constant, tags, any-assignments, shift loops, early ends
//! and reachability checks, nested in checks or over the players' own move automata),
//! generated from fixed seeds, must keep their game tree at every
//! optimisation level (`passes::levels_keep_the_game_tree`). The fixtures cover each pass on a
//! shape chosen for it; these games combine the passes on shapes nobody chose.
//!
//! Long runs: `RGT_FUZZ_GAMES=N` tries `N` seeds of every kind of game (the default keeps the
//! suite fast), `RGT_FUZZ_FIRST=S` starts at seed `S` instead of 0, `RGT_FUZZ_KINDS=a,b` runs
//! only those kinds (`plain`, `shapes`, `extended`, `shared`) and `RGT_FUZZ_SECONDS=T` stops
//! after `T` seconds; the test prints how many games it generated and checked, e.g.
//! `RGT_FUZZ_GAMES=30000 RGT_FUZZ_SECONDS=2400 cargo test --release -p rgt-tests --test harness
//! passes_fuzz -- --nocapture`.

use crate::passes::{is_proper, levels_keep_the_game_tree};
use rg_interp::Rng;
use rg_interp::equiv::EquivOptions;
use rg_pipeline::Lang;
use rgt_tests::load;
use std::fmt::Write;

/// Seeds tried by default (about a minute in the test profile: 180 games, each also checked
/// search by search for false pragmas). Seed 117 is the first whose optimised game (without
/// pragma shapes) splits a move when inline_assignment drops a store after an untagged loop.
const GAMES: u64 = 120;

/// Seeds tried by default with the extended shapes ([`Gen::extended`]).
const EXTENDED_GAMES: u64 = 80;

/// Seeds tried by default with the shared shapes ([`Gen::shared`]).
const SHARED_GAMES: u64 = 48;

/// Lighter than the fixtures' oracle: many games, each small.
const ORACLE: EquivOptions = EquivOptions {
    depth: 3,
    plays: 10,
    seed: 11,
};

const VALUES: &[&str] = &["v0", "v1", "v2"];
const KEYS: &[&str] = &["k0", "k1", "k2"];

/// Where an edge is: in a player's move, in the keeper's segment, or inside a check.
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Player(&'static str),
    Keeper,
    Check,
}

struct Gen {
    rng: Rng,
    /// Also the shapes of [`Gen::pragma_shape`], and a tag of its own on every branch. Off,
    /// the generator makes exactly the games it made before they existed (seed 117 of those
    /// caught an inline_assignment defect).
    shapes: bool,
    edges: Vec<(String, String, String)>,
    tags: usize,
    mids: usize,
    /// Start and end nodes of the check sub-automata made so far (a check automaton may use
    /// the earlier ones: checks nested in checks).
    checks: Vec<(String, String)>,
    /// The players' move segments (prefix, length): checks may also run over the game flow,
    /// e.g. "does the other player have a move" over that player's own move automaton, so
    /// that their start and end nodes are shared with ordinary moves (issue 23).
    flows: Vec<(&'static str, usize)>,
    /// Whether checks may run over the game flow and nest. Off, the generator makes the games
    /// it made before these shapes were added (their seeds are known regressions).
    extended: bool,
    /// Also (with `extended`) the shapes of issue 23 that share a check's nodes with the game
    /// flow more closely: moves that fork by two skips into branches whose starts are checked
    /// ("can x still play this branch", the shape join_fork_prefixes got wrong), a guard "has
    /// the next player a move" over that player's whole move before the turn passes, and
    /// check automata that run checks over the game flow (checks nested in checks).
    shared: bool,
    /// The branches of skip forks in moves (player, start, end), checked in `shared` games.
    branches: Vec<(String, String, String)>,
}

impl Gen {
    fn chance(&mut self, percent: usize) -> bool {
        self.rng.below(100) < percent
    }

    fn pick(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.rng.below(xs.len())]
    }

    fn edge(&mut self, from: &str, to: &str, label: impl Into<String>) {
        self.edges.push((from.into(), to.into(), label.into()));
    }

    fn mid(&mut self) -> String {
        self.mids += 1;
        format!("m{}", self.mids)
    }

    /// A tag label no other edge has.
    fn fresh_tag(&mut self) -> String {
        self.tags += 1;
        format!("$ t{}", self.tags)
    }

    fn comparison(&mut self) -> String {
        let op = self.pick(&["==", "!="]);
        let v = self.pick(VALUES);
        let key = self.pick(KEYS);
        match self.rng.below(7) {
            0 => format!("a {op} {v}"),
            1 => format!("b {op} a"),
            2 => format!("m[k] {op} {v}"),
            3 => format!("c[k] {op} a"),
            4 => format!("k {op} {key}"),
            5 => format!("m[{key}] {op} b"),
            _ => format!("a {op} c[{key}]"),
        }
    }

    fn assignment(&mut self, ctx: Ctx) -> String {
        let v = self.pick(VALUES);
        let key = self.pick(KEYS);
        match (self.rng.below(9), ctx) {
            (0, _) => format!("a = {v}"),
            (1, _) => "b = a".into(),
            (2, _) => "a = m[k]".into(),
            (3, _) => "m[k] = a".into(),
            (4, _) => format!("m[{key}] = {v}"),
            (5, _) => format!("k = {key}"),
            (6, _) => "a = c[k]".into(),
            (7, Ctx::Player(p)) => format!("goals[{p}] = {}", self.pick(&["0", "50", "100"])),
            _ => format!("b = m[{key}]"),
        }
    }

    /// One edge `from → to` with a random label (one that always holds when `passable`);
    /// any-assignments are followed by a tag of the chosen value and, in moves, branches by a
    /// fresh tag, so that most games stay proper.
    fn random_edge(&mut self, from: &str, to: &str, ctx: Ctx, branching: bool, passable: bool) {
        let roll = if passable {
            30 + self.rng.below(50)
        } else {
            self.rng.below(100)
        };
        let (label, tag_after) = if roll < 30 {
            (self.comparison(), None)
        } else if roll < 60 {
            (self.assignment(ctx), None)
        } else if roll < 68 && ctx != Ctx::Keeper {
            let (var, ty) = if self.chance(50) {
                ("k", "K")
            } else {
                ("a", "V")
            };
            (format!("{var} = {ty}(*)"), Some(format!("$$ {var}")))
        } else if roll < 76 && ctx != Ctx::Keeper {
            (self.fresh_tag(), None)
        } else if roll < 80 && ctx != Ctx::Keeper {
            (format!("$$ {}", self.pick(&["k", "b"])), None)
        } else if roll < 80 {
            (String::new(), None)
        } else if roll < 88
            && let Some((s, e)) = self.check_over(ctx)
        {
            let sign = self.pick(&["?", "!"]);
            (format!("{sign} {s} -> {e}"), None)
        } else if roll < 92 {
            (String::new(), None)
        } else {
            (self.comparison(), None)
        };
        // A branch of a move ends in a tag of its own, also after `$$ v`: two branches that
        // both show `$$ k` could differ only in `goals`, which the visited check does not
        // compare, so the interpreter would merge them and the game would look proper
        // although its moves are ambiguous (seed 1711 was such a game).
        let mut tags: Vec<String> = tag_after.into_iter().collect();
        if branching && matches!(ctx, Ctx::Player(_)) && (tags.is_empty() || self.shapes) {
            tags.push(self.fresh_tag());
        }
        let mut at = from.to_string();
        let mut label = label;
        for t in tags {
            let m = self.mid();
            self.edge(&at, &m, label);
            at = m;
            label = t;
        }
        self.edge(&at, to, label);
    }

    /// The start and end of a check usable in `ctx`: an earlier check automaton, or a stretch
    /// of a move segment of the game flow (another player's in a move, any in the keeper's
    /// segment, none inside checks).
    fn check_over(&mut self, ctx: Ctx) -> Option<(String, String)> {
        if !self.extended {
            if ctx == Ctx::Check || self.checks.is_empty() {
                return None;
            }
            return Some(self.checks[self.rng.below(self.checks.len())].clone());
        }
        let other = |p: &str| match ctx {
            Ctx::Player(q) => p != q,
            Ctx::Keeper => true,
            Ctx::Check => self.shared,
        };
        let flows: Vec<(&str, usize)> = self
            .flows
            .iter()
            .copied()
            .filter(|&(p, _)| other(p))
            .collect();
        let branches: Vec<(String, String)> = self
            .branches
            .iter()
            .filter(|(p, _, _)| other(p))
            .map(|(_, s, e)| (s.clone(), e.clone()))
            .collect();
        if !branches.is_empty() && self.chance(40) {
            return Some(branches[self.rng.below(branches.len())].clone());
        }
        if !flows.is_empty() && (self.checks.is_empty() || self.chance(50)) {
            let (p, n) = flows[self.rng.below(flows.len())];
            let i = self.rng.below(n);
            let j = i + 1 + self.rng.below(n - i);
            return Some((format!("{p}{i}"), format!("{p}{j}")));
        }
        if self.checks.is_empty() {
            return None;
        }
        Some(self.checks[self.rng.below(self.checks.len())].clone())
    }

    /// A segment of `n` steps from `{p}0` to `{p}{n}`: a chain with forward shortcuts, shift
    /// loops `k = kn[k]` and, in moves, early ends of the game. Outside checks the chain's
    /// edges always hold, so every move can be completed (continuability), and the keeper's
    /// segment is a plain chain (a deterministic keeper).
    ///
    /// Half the shift loops end untagged: their walks then differ only in `k` until a later
    /// `k = <key>` merges them (or the game is not proper), and a pass that dropped that store
    /// as dead would split the move into one per value of `k`.
    fn segment(&mut self, p: &str, n: usize, ctx: Ctx) {
        let node = |i: usize| format!("{p}{i}");
        for i in 0..n {
            let shortcut = ctx != Ctx::Keeper && i + 2 <= n && self.chance(40);
            if self.shapes && ctx != Ctx::Keeper && self.chance(10) {
                self.pragma_shape(&node(i), &node(i + 1), ctx);
            } else if self.shared && matches!(ctx, Ctx::Player(_)) && self.chance(20) {
                // Two skips into two branches, each a move of its own (a fresh tag ends it),
                // whose starts other parts of the game check.
                for _ in 0..2 {
                    let b = self.mid();
                    self.edge(&node(i), &b, "");
                    self.random_edge(&b, &node(i + 1), ctx, true, true);
                    self.branches.push((p.to_string(), b, node(i + 1)));
                }
            } else if ctx != Ctx::Keeper && self.chance(12) {
                // A shift loop `k = kn[k]` on the way to the next step, its end tagged with `k`
                // (as RBG moves tag the square they reach) or not.
                let (l, m, t) = (self.mid(), self.mid(), self.mid());
                let end = if self.chance(50) { "$$ k" } else { "" };
                self.edge(&node(i), &l, "");
                self.edge(&l, &m, "k = kn[k]");
                self.edge(&m, &l, "");
                self.edge(&l, &t, end);
                self.random_edge(&t, &node(i + 1), ctx, false, ctx != Ctx::Check);
            } else {
                self.random_edge(&node(i), &node(i + 1), ctx, shortcut, ctx != Ctx::Check);
            }
            if shortcut {
                let j = i + 2 + self.rng.below(n - i - 1);
                self.random_edge(&node(i), &node(j), ctx, true, false);
            }
            if matches!(ctx, Ctx::Player(_)) && self.chance(10) {
                // Tagged, so that two early ends are never the same move counted twice (a
                // pass may merge such walks; the interpreter's move search counts them apart:
                // finished moves are not deduplicated).
                let (c, m, m2) = (self.comparison(), self.mid(), self.mid());
                let t = self.fresh_tag();
                self.edge(&node(i), &m, c);
                self.edge(&m, &m2, t);
                self.edge(&m2, "end", "player = keeper");
            }
        }
    }

    /// A step `from → to` of the shapes the pragma inference reasons about (and could get
    /// wrong): several lookups from one node into one node (`kn`, `kp`, `kq` coincide on some
    /// keys and not on others), an any-assignment followed by a map write, a tag recording a
    /// variable that is then overwritten, and branches on exclusive or overlapping conditions
    /// that meet again. Half of them tag what they chose, so that most games stay proper.
    fn pragma_shape(&mut self, from: &str, to: &str, ctx: Ctx) {
        let (p, q) = (self.mid(), self.mid());
        match self.rng.below(4) {
            0 => {
                for m in ["kn", "kp", "kq"] {
                    if self.chance(70) {
                        self.edge(from, &p, format!("k = {m}[k]"));
                    }
                }
                self.edge(from, &p, "k = kq[k]");
            }
            1 => {
                let v = self.pick(VALUES);
                self.edge(from, &q, "k = K(*)");
                self.edge(&q, &p, format!("m[k] = {v}"));
            }
            2 => {
                let next = self.pick(&["k = K(*)", "k = kn[k]", "k = kp[k]", "k = k1"]);
                self.edge(from, &q, "$$ k");
                self.edge(&q, &p, next);
            }
            _ => {
                let v = self.pick(VALUES);
                let w = self.pick(VALUES);
                let other = self.pick(&["a", "b"]);
                self.edge(from, &q, format!("a == {v}"));
                self.edge(from, &q, format!("{other} != {w}"));
                self.edge(&q, &p, "");
            }
        }
        if ctx == Ctx::Check || self.chance(50) {
            self.edge(&p, to, "");
        } else {
            let t = self.mid();
            self.edge(&p, &t, "$$ k");
            self.edge(&t, to, "$$ a");
        }
    }

    fn game(seed: u64, shapes: bool, extended: bool, shared: bool) -> String {
        let mut g = Gen {
            rng: Rng::new(seed),
            shapes,
            edges: Vec::new(),
            tags: 0,
            mids: 0,
            checks: Vec::new(),
            flows: Vec::new(),
            extended: extended || shared,
            shared,
            branches: Vec::new(),
        };
        // Shared games know the moves' lengths first: their check automata check the moves.
        let lengths = shared.then(|| (1 + g.rng.below(5), 1 + g.rng.below(5)));
        if let Some((nx, ny)) = lengths {
            g.flows = vec![("x", nx), ("y", ny)];
        }
        for r in 0..g.rng.below(3) {
            let n = 1 + g.rng.below(4);
            g.segment(&format!("r{r}_"), n, Ctx::Check);
            g.checks.push((format!("r{r}_0"), format!("r{r}_{n}")));
        }
        let (nx, ny) = lengths.unwrap_or_else(|| (1 + g.rng.below(5), 1 + g.rng.below(5)));
        if extended {
            g.flows = vec![("x", nx), ("y", ny)];
        }
        g.segment("x", nx, Ctx::Player("x"));
        g.segment("y", ny, Ctx::Player("y"));
        g.edge("begin", "x0", "player = x");
        for (p, n, next, q, nq) in [("x", nx, "y0", "y", ny), ("y", ny, "x0", "x", nx)] {
            let (t, mut go, fin) = (format!("{p}t"), format!("{p}go"), format!("{p}fin"));
            g.edge(&format!("{p}{n}"), &t, "turn = nx[turn]");
            g.edge(&t, &fin, "turn == t3");
            g.edge(&fin, "end", "player = keeper");
            g.edge(&t, &go, "turn != t3");
            if shared && g.chance(50) {
                // The game ends when the next player has no move: a check over that player's
                // whole move, from its first node (shared with the flow) to its last.
                let (has, none) = (format!("{p}has"), format!("{p}none"));
                g.edge(&go, &has, format!("? {q}0 -> {q}{nq}"));
                g.edge(&go, &none, format!("! {q}0 -> {q}{nq}"));
                g.edge(&none, "end", "player = keeper");
                go = has;
            }
            if g.chance(30) {
                // The keeper moves between the turns.
                let kn = 1 + g.rng.below(3);
                let kp = format!("{p}k");
                g.edge(&go, &format!("{kp}0"), "player = keeper");
                g.segment(&kp, kn, Ctx::Keeper);
                g.edge(&format!("{kp}{kn}"), next, format!("player = {q}"));
            } else {
                g.edge(&go, next, format!("player = {q}"));
            }
        }
        let mut text = String::from(
            "type Player = { x, y };\n\
             type Score = { 0, 50, 100 };\n\
             type V = { v0, v1, v2 };\n\
             type K = { k0, k1, k2 };\n\
             type T = { t0, t1, t2, t3 };\n\
             const nx: T -> T = { t0: t1, t1: t2, :t3 };\n\
             const kn: K -> K = { k0: k1, k1: k2, :k0 };\n",
        );
        if shapes {
            text.push_str(
                "const kp: K -> K = { k0: k2, k1: k0, :k1 };\n\
                 const kq: K -> K = { k0: k1, k1: k1, :k0 };\n",
            );
        }
        let c: Vec<&str> = (0..3).map(|_| g.pick(VALUES)).collect();
        let m: Vec<&str> = (0..2).map(|_| g.pick(VALUES)).collect();
        let (a, b, k) = (g.pick(VALUES), g.pick(VALUES), g.pick(KEYS));
        let _ = writeln!(
            text,
            "const c: K -> V = {{ k0: {}, k1: {}, :{} }};",
            c[0], c[1], c[2]
        );
        let _ = writeln!(text, "var m: K -> V = {{ k1: {}, :{} }};", m[0], m[1]);
        let _ = writeln!(text, "var a: V = {a};\nvar b: V = {b};\nvar k: K = {k};");
        text.push_str("var turn: T = t0;\n");
        for (from, to, label) in &g.edges {
            let _ = writeln!(text, "{from}, {to}: {label};");
        }
        text
    }
}

#[test]
fn optimisation_levels_keep_the_game_tree_of_random_proper_games() {
    let games = std::env::var("RGT_FUZZ_GAMES")
        .ok()
        .and_then(|n| n.parse().ok());
    let (plain, extended, shared) = match games {
        Some(n) => (n, n, n),
        None => (GAMES, EXTENDED_GAMES, SHARED_GAMES),
    };
    let first = std::env::var("RGT_FUZZ_FIRST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let kinds = std::env::var("RGT_FUZZ_KINDS").ok();
    let kind_on = |k: &str| {
        kinds
            .as_deref()
            .is_none_or(|ks| ks.split(',').any(|x| x == k))
    };
    let seconds: Option<u64> = std::env::var("RGT_FUZZ_SECONDS")
        .ok()
        .and_then(|n| n.parse().ok());
    let started = std::time::Instant::now();
    let mut checked = 0;
    let mut tried = 0;
    // Every seed's game as before the pragma shapes, every other one also with them; then the
    // games with checks over the game flow and nested checks; then those with the shared shapes.
    let seeds = (first..first + plain)
        .flat_map(|s| [(s, false, false, false), (s, true, false, false)])
        .filter(|&(s, shapes, _, _)| if shapes { s % 2 == 0 } else { kind_on("plain") })
        .filter(|&(_, shapes, _, _)| !shapes || kind_on("shapes"))
        .chain((first..first + extended).map(|s| (s, false, true, false)))
        .filter(|&(_, _, extended, _)| !extended || kind_on("extended"))
        .chain(
            (first..first + shared)
                .map(|s| (s, false, false, true))
                .filter(|_| kind_on("shared")),
        );
    for (seed, shapes, extended, shared) in seeds {
        if seconds.is_some_and(|t| started.elapsed().as_secs() >= t) {
            break;
        }
        tried += 1;
        let text = Gen::game(seed, shapes, extended, shared);
        let kind = match (shapes, extended, shared) {
            (true, _, _) => " (with pragma shapes)",
            (_, true, _) => " (extended)",
            (_, _, true) => " (shared)",
            _ => "",
        };
        let what = format!("random game of seed {seed}{kind}:\n{text}");
        let game = load(Lang::Rg, "random.rg", &text)
            .unwrap_or_else(|d| panic!("{what}\ndoes not load:\n{d}"));
        if !is_proper(&game) {
            continue;
        }
        checked += 1;
        levels_keep_the_game_tree(&game, &what, &ORACLE);
        if tried % 1000 == 0 {
            println!(
                "passes_fuzz: {tried} games generated, {checked} proper and checked, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "passes_fuzz: {tried} games generated, {checked} proper and checked, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Passes keep the tree of proper games only (those where every non-final state has a
    // move, moves are unambiguous, the keeper deterministic and every play ends: e.g. a move
    // into a state without moves may be pruned). The generator aims at them; if most were not, little is checked.
    assert!(
        checked * 2 >= tried,
        "only {checked} of {tried} random games are proper"
    );
}

/// The states reached from `s` within `depth` moves, each with the moves of every state on
/// the way, as two machines list them.
fn same_moves_to_depth(
    a: &mut rg_interp::Machine<'_>,
    b: &mut rg_interp::Machine<'_>,
    s: rg_interp::State,
    depth: usize,
    what: &str,
) {
    let mut stack = vec![(s, 0usize)];
    while let Some((s, d)) = stack.pop() {
        if a.is_final(&s) || d == depth {
            continue;
        }
        let (ma, mb) = (a.moves(&s), b.moves(&s));
        let (ma, mb) = match (ma, mb) {
            (Ok(x), Ok(y)) => (x, y),
            (Err(x), Err(y)) => {
                assert_eq!(x.fault, y.fault, "{what}\nafter {s:?}");
                continue;
            }
            (x, y) => panic!(
                "{what}\nafter {s:?}: one machine fails, the other not: {:?} / {:?}",
                x.err().map(|e| e.fault),
                y.err().map(|e| e.fault)
            ),
        };
        assert_eq!(ma.len(), mb.len(), "{what}\nnumber of moves after {s:?}");
        for i in 0..ma.len() {
            assert_eq!(ma.tags(i), mb.tags(i), "{what}\nmove {i} after {s:?}");
            assert_eq!(ma.state(i), mb.state(i), "{what}\nmove {i} after {s:?}");
            stack.push((ma.state(i), d + 1));
        }
    }
}

/// The interpreter keeps answers of reachability checks between questions
/// (`rg_interp::CheckMemoMode`); with every usable answer kept from the first question, every
/// random game lists exactly the moves it lists without keeping any, state by state to depth
/// 4, errors included. The games have checks nested in checks, over the players' own moves,
/// reading and writing the map, so a footprint missing a variable changes some answer.
#[test]
fn kept_check_answers_list_the_same_moves_in_random_games() {
    let games: Option<u64> = std::env::var("RGT_FUZZ_GAMES")
        .ok()
        .and_then(|n| n.parse().ok());
    let (plain, extended, shared) = match games {
        Some(n) => (n, n, n),
        None => (GAMES, EXTENDED_GAMES, SHARED_GAMES),
    };
    let seeds = (0..plain)
        .map(|s| (s, s % 2 == 0, false, false))
        .chain((0..extended).map(|s| (s, false, true, false)))
        .chain((0..shared).map(|s| (s, false, false, true)));
    let mut checked = 0;
    for (seed, shapes, extended, shared) in seeds {
        let text = Gen::game(seed, shapes, extended, shared);
        let what = format!("random game of seed {seed}:\n{text}");
        let game = load(Lang::Rg, "random.rg", &text)
            .unwrap_or_else(|d| panic!("{what}\ndoes not load:\n{d}"));
        let p = rg_interp::Program::new(&game, rg_interp::CompileOptions::default())
            .unwrap_or_else(|e| panic!("{what}\ndoes not compile: {e}"));
        let mut off = rg_interp::Machine::new(&p);
        off.set_check_memo(rg_interp::CheckMemoMode::Off);
        let mut eager = rg_interp::Machine::new(&p);
        eager.set_check_memo(rg_interp::CheckMemoMode::Eager);
        let s = off.initial();
        same_moves_to_depth(&mut off, &mut eager, s, 4, &what);
        checked += 1;
    }
    println!("kept check answers: {checked} random games compared");
}
