//! Bounded checks of the proper-game conditions (every action evaluable, moves with the same tags
//! lead to the same state, a state not at `end` has a move, the keeper has exactly one move, every
//! play ends) by playing: a full exploration to a depth plus seeded random playouts, in strict mode
//! (every action must be evaluable).

use crate::error::{Fault, RuntimeError, format_path};
use crate::play::{Rng, ambiguous_pair};
use crate::search::{Machine, Moves, State};
use crate::seen::SeenSet;
use rg_core::Span;

/// How much of the game tree to explore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Every state reached by at most this many moves (keeper moves included) is checked.
    pub depth: usize,
    /// Random playouts, each checked to its end.
    pub plays: u64,
    pub seed: u64,
    /// A play longer than this many moves is reported as possibly infinite.
    pub max_length: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            depth: 4,
            plays: 100,
            seed: 0,
            max_length: 100_000,
        }
    }
}

/// Which condition of a proper game is violated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Condition {
    /// 1. An action that cannot be evaluated.
    ActionValidity,
    /// 2. Two move walks with the same tags lead to different states.
    MoveUnambiguity,
    /// 3. A state that is not final has no legal move.
    Continuability,
    /// 4. The keeper has not exactly one legal move.
    DeterministicKeeper,
    /// 5. A state repeats along a play, or a play does not end.
    Finiteness,
    /// A pragma the interpreter trusts (`@disjoint`, `@unique`, `@repeat`) is wrong: the game tree
    /// differs with and without pragmas (pragmas may only speed the search up).
    PragmaTruth,
}

impl Condition {
    /// The condition's name.
    pub fn name(self) -> &'static str {
        match self {
            Condition::ActionValidity => "action validity",
            Condition::MoveUnambiguity => "move unambiguity",
            Condition::Continuability => "continuability",
            Condition::DeterministicKeeper => "deterministic keeper",
            Condition::Finiteness => "finiteness",
            Condition::PragmaTruth => "pragma truth",
        }
    }
}

/// One violation found by [`Machine::check`], with the moves that lead to it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{} violated: {message}", condition.name())]
#[diagnostic(code(rg::interp::proper))]
pub struct ProperViolation {
    pub condition: Condition,
    pub message: String,
    pub path: Vec<Vec<String>>,
    #[label("here")]
    pub label: Option<miette::SourceSpan>,
    pub span: Option<Span>,
    #[help]
    pub help: String,
}

struct Checker<'m, 'p> {
    m: &'m mut Machine<'p>,
    found: Vec<ProperViolation>,
    /// (condition, node or edge) pairs already reported: one report per place.
    reported: std::collections::HashSet<(Condition, String)>,
    path: Vec<Vec<u32>>,
    /// An error that stops the check: a search over its limit (not a property of the game).
    stop: Option<Box<RuntimeError>>,
}

impl Checker<'_, '_> {
    fn report(&mut self, condition: Condition, place: String, message: String, span: Option<Span>) {
        if !self.reported.insert((condition, place)) {
            return;
        }
        let path = self.m.names_of(&self.path);
        self.found.push(ProperViolation {
            condition,
            help: format!("reached after the moves {}", format_path(&path)),
            message,
            path,
            label: span.map(Into::into),
            span,
        });
    }

    fn runtime(&mut self, e: RuntimeError) {
        let place = format!("{:?}", e.edge);
        let msg = format!("`{}`: {}", e.edge_text, e.fault);
        self.report(Condition::ActionValidity, place, msg, e.span);
    }

    /// Moves of a state with every per-state check applied; `None` when they cannot be computed
    /// (and when the check is stopped).
    fn moves_checked(&mut self, s: &State) -> Option<Moves> {
        if self.stop.is_some() {
            return None;
        }
        let moves = match self.m.moves(s) {
            Ok(ms) => ms,
            Err(mut e) if matches!(e.fault, Fault::SearchLimit { .. }) => {
                e.path = self.m.names_of(&self.path);
                e.finish_help();
                self.stop = Some(e);
                return None;
            }
            Err(e) => {
                self.runtime(*e);
                return None;
            }
        };
        let p = self.m.program();
        let node = p.node_name(s.node).to_string();
        if moves.is_empty() && !self.m.is_final(s) {
            self.report(
                Condition::Continuability,
                node.clone(),
                format!("no legal move in `{node}`, which is not `end`"),
                None,
            );
        }
        if self.m.is_keeper(&s.data) && moves.len() > 1 {
            self.report(
                Condition::DeterministicKeeper,
                node.clone(),
                format!("keeper has {} legal moves in `{node}`", moves.len()),
                None,
            );
        }
        if let Some((i, j)) = ambiguous_pair(self.m, &moves) {
            let tags = self.m.tag_text(moves.tags(i));
            self.report(
                Condition::MoveUnambiguity,
                node.clone(),
                format!(
                    "two moves `{tags}` from `{node}` to `{}` lead to different states",
                    p.node_name(moves.node(j))
                ),
                None,
            );
        }
        Some(moves)
    }

    /// Checks every state within `depth` moves of `s`, depth first in move order. Iterative: the
    /// depth is the user's.
    fn explore(&mut self, s: &State, depth: usize) {
        if depth == 0 {
            return;
        }
        let Some(moves) = self.moves_checked(s) else {
            return;
        };
        let base = self.path.len();
        let held = self.m.held;
        // The moves on the stack count against the budget of each search.
        self.m.held += moves.held_words();
        // Per level: the moves of its state and the next one to explore. The path holds the
        // moves leading to the top level's state.
        let mut stack: Vec<(Moves, usize)> = vec![(moves, 0)];
        while let Some((moves, next)) = stack.last_mut() {
            if *next == moves.len() {
                self.m.held -= moves.held_words();
                stack.pop();
                if !stack.is_empty() {
                    self.path.pop();
                }
                continue;
            }
            let i = *next;
            *next += 1;
            let child = moves.state(i);
            self.path.push(moves.tags(i).to_vec());
            if stack.len() < depth
                && let Some(m) = self.moves_checked(&child)
            {
                self.m.held += m.held_words();
                stack.push((m, 0));
                continue;
            }
            self.path.pop();
        }
        self.m.held = held;
        debug_assert_eq!(self.path.len(), base);
    }

    fn play(&mut self, start: &State, rng: &mut Rng, max_length: usize) {
        let mut s = start.clone();
        let mut seen = SeenSet::default();
        let base = self.path.len();
        let mut key = Vec::new();
        loop {
            key.clear();
            key.push(s.node);
            key.extend_from_slice(&s.data);
            if !seen.insert(&key) {
                let node = self.m.program().node_name(s.node).to_string();
                self.report(
                    Condition::Finiteness,
                    node.clone(),
                    format!("a play returns to a state it already passed, at `{node}`"),
                    None,
                );
                break;
            }
            if self.path.len() - base > max_length {
                self.report(
                    Condition::Finiteness,
                    String::new(),
                    format!("a play is longer than {max_length} moves"),
                    None,
                );
                break;
            }
            let Some(moves) = self.moves_checked(&s) else {
                break;
            };
            if moves.is_empty() {
                break;
            }
            let k = rng.below(moves.len());
            self.path.push(moves.tags(k).to_vec());
            s = moves.state(k);
        }
        self.path.truncate(base);
    }
}

/// Compares perft counts to `depth` from `start` with the pragmas honoured (`with`) and ignored
/// (`without`); a difference means a wrong pragma.
pub fn check_pragmas(
    with: &crate::Program,
    without: &crate::Program,
    start: &State,
    depth: usize,
) -> Option<ProperViolation> {
    let (mut a, mut b) = (Machine::new(with), Machine::new(without));
    for d in 1..=depth {
        let (x, y) = (a.perft(start, d).ok()?, b.perft(start, d).ok()?);
        if x != y {
            return Some(ProperViolation {
                condition: Condition::PragmaTruth,
                message: format!(
                    "perft({d}) is {x} with the pragmas and {y} without: a pragma hides or adds moves"
                ),
                path: Vec::new(),
                label: None,
                span: None,
                help: "check the @disjoint/@unique/@repeat pragmas, or run with --ignore-pragmas"
                    .into(),
            });
        }
    }
    None
}

impl Machine<'_> {
    /// Explores every state within `opts.depth` moves of `start` and plays `opts.plays` random
    /// playouts, in strict mode, and returns every violation of the proper-game conditions met
    /// (one per condition and place), in the order found. A search over its limit
    /// ([`Fault::SearchLimit`]) stops the check with that error: it says nothing about the
    /// game's properness.
    pub fn check(
        &mut self,
        start: &State,
        opts: &CheckOptions,
    ) -> Result<Vec<ProperViolation>, Box<RuntimeError>> {
        let strict = self.strict();
        self.set_strict(true);
        let mut c = Checker {
            m: self,
            found: Vec::new(),
            reported: Default::default(),
            path: Vec::new(),
            stop: None,
        };
        c.explore(start, opts.depth);
        let mut rng = Rng::new(opts.seed);
        for _ in 0..opts.plays {
            if c.stop.is_some() {
                break;
            }
            c.play(start, &mut rng, opts.max_length);
        }
        let (found, stop) = (c.found, c.stop);
        self.set_strict(strict);
        match stop {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }
}
