//! Playing a loaded game: the legal moves of a position, applying one, the goals at the end.
//!
//! A thin, owned wrapper over the interpreter of `rg-interp` for embedders: positions and moves
//! are values, player names and tags are strings, and goals are typed.
//!
//! ```no_run
//! # fn main() -> Result<(), rg_pipeline::Error> {
//! let mut p = rg_pipeline::Pipeline::default();
//! let game = p.load_path("examples/nim.rg")?.game;
//! let play = rg_pipeline::Playable::new(&game)?;
//! let mut pos = play.initial();
//! while let Some(m) = play.moves(&pos)?.into_iter().next() {
//!     pos = play.apply(&m);
//! }
//! println!("{:?}", play.goals(&pos));
//! # Ok(()) }
//! ```

use crate::error::Error;
use rg_core::Game;
use rg_interp::{CompileOptions, Machine, Program, State};

/// A game compiled for playing.
#[derive(Debug)]
pub struct Playable {
    program: Program,
}

/// A position: the current node of the automaton and the values of the variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    state: State,
}

/// A legal move: its tags (empty for a keeper's move) and the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The tags of the move, in order (as `rgt moves` prints them).
    pub tags: Vec<String>,
    next: State,
}

/// The value a player scores.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GoalValue {
    /// A number (goal types are usually integer ranges).
    Int(i64),
    /// Any other symbol.
    Symbol(String),
}

/// One player's score.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Goal {
    /// The player.
    pub player: String,
    /// What `goals[player]` holds.
    pub value: GoalValue,
}

impl Playable {
    /// Compiles a checked game (from [`crate::Pipeline`]) for the interpreter.
    pub fn new(game: &Game) -> Result<Playable, Error> {
        let program =
            Program::new(game, CompileOptions::default()).map_err(|e| Error::input(&e, None))?;
        Ok(Playable { program })
    }

    /// The initial position.
    pub fn initial(&self) -> Position {
        Position {
            state: Machine::new(&self.program).initial(),
        }
    }

    /// The legal moves at `pos`, in the interpreter's order (duplicates included). Empty at
    /// the end of the game.
    pub fn moves(&self, pos: &Position) -> Result<Vec<Move>, Error> {
        let mut m = Machine::new(&self.program);
        let moves = m
            .moves(&pos.state)
            .map_err(|e| Error::input(e.as_ref(), None))?;
        Ok((0..moves.len())
            .map(|i| Move {
                tags: moves
                    .tags(i)
                    .iter()
                    .map(|&t| self.program.name(t).to_owned())
                    .collect(),
                next: moves.state(i),
            })
            .collect())
    }

    /// The position a move of [`Playable::moves`] leads to.
    pub fn apply(&self, mv: &Move) -> Position {
        Position {
            state: mv.next.clone(),
        }
    }

    /// Whether `pos` is at the end of the game.
    pub fn is_final(&self, pos: &Position) -> bool {
        Machine::new(&self.program).is_final(&pos.state)
    }

    /// The player to move at `pos` (`keeper` for the game's own bookkeeping moves).
    pub fn player(&self, pos: &Position) -> String {
        let m = Machine::new(&self.program);
        self.program.name(m.player(&pos.state.data)).to_owned()
    }

    /// Every player's score at `pos`, in the order of the `Player` type.
    pub fn goals(&self, pos: &Position) -> Vec<Goal> {
        self.program
            .goal_entries(&pos.state.data)
            .into_iter()
            .map(|(player, value)| Goal {
                player,
                value: match value.parse() {
                    Ok(n) => GoalValue::Int(n),
                    Err(_) => GoalValue::Symbol(value),
                },
            })
            .collect()
    }

    /// The number of move sequences of length `depth` from `pos` (keeper moves are free).
    pub fn perft(&self, pos: &Position, depth: usize) -> Result<u64, Error> {
        Machine::new(&self.program)
            .perft(&pos.state, depth)
            .map_err(|e| Error::input(e.as_ref(), None))
    }
}
