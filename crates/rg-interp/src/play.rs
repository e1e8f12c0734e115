//! Seeded random playouts (uniform over the legal moves, as the reference's `run`) and their
//! statistics.

use crate::error::{Fault, RuntimeError, format_path};
use crate::perft::{KEEPER_LIMIT, KEEPER_WATCH};
use crate::search::{Machine, Moves, State};
use crate::seen::SeenSet;
use std::collections::BTreeMap;
use std::time::Instant;

/// A play longer than this many moves (keeper and random moves included) is an error: the game
/// may never end, and a playout must.
pub const PLAY_LIMIT: usize = 1_000_000;

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same plays on every
/// machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// Why a playout could not go on (a proper game never stops so; the reference aborts the
/// command with these).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PlayError {
    #[error(
        "game unexpectedly ended in `{node}` after the moves {}",
        format_path(path)
    )]
    #[diagnostic(
        code(rg::interp::dead_end),
        help("a proper game is continuable: every state that is not at `end` has a legal move")
    )]
    DeadEnd {
        node: String,
        path: Vec<Vec<String>>,
    },
    #[error(
        "keeper had {count} moves in `{node}` after the moves {}",
        format_path(path)
    )]
    #[diagnostic(
        code(rg::interp::keeper_moves),
        help("a proper game's keeper is deterministic: one legal move wherever it is to move")
    )]
    KeeperMoves {
        count: usize,
        node: String,
        path: Vec<Vec<String>>,
    },
    #[error(
        "two moves `{tags}` from `{from}` to `{to}` lead to different states, after the moves {}",
        format_path(path)
    )]
    #[diagnostic(
        code(rg::interp::ambiguous_move),
        help(
            "a proper game's moves are unambiguous: walks with the same tags reach the same state"
        )
    )]
    Ambiguous {
        tags: String,
        from: String,
        to: String,
        path: Vec<Vec<String>>,
    },
    #[error("a play did not end after {limit} moves (it was at `{node}`)")]
    #[diagnostic(
        code(rg::interp::play_too_long),
        help("a proper game is finite: every play ends; `rgt check` looks for repeated states")
    )]
    TooLong { limit: usize, node: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Runtime(Box<RuntimeError>),
}

/// Minimum, mean, population standard deviation and maximum of a sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub min: f64,
    pub mean: f64,
    pub std_dev: f64,
    pub max: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    n: u64,
    sum: f64,
    sum_sq: f64,
    min: f64,
    max: f64,
}

impl Acc {
    fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    fn summary(&self) -> Summary {
        if self.n == 0 {
            return Summary::default();
        }
        let mean = self.sum / self.n as f64;
        let var = (self.sum_sq / self.n as f64 - mean * mean).max(0.0);
        Summary {
            min: self.min,
            mean,
            std_dev: var.sqrt(),
            max: self.max,
        }
    }
}

/// Statistics of a series of playouts.
#[derive(Clone, Debug, Default)]
pub struct PlayStats {
    pub plays: u64,
    pub seconds: f64,
    /// Number of legal moves at each decision of a real player.
    pub branching: Summary,
    /// Decisions of real players per play.
    pub turns: Summary,
    /// Moves of any player (keeper and random included) per play.
    pub length: Summary,
    /// How often each final `goals` value occurred, by its printed form.
    pub goals: BTreeMap<String, u64>,
}

impl Machine<'_> {
    /// Plays `plays` random playouts from `start`, as the reference's `run`: moves are picked
    /// uniformly from the output list (a duplicate counts twice), keeper moves included.
    pub fn playouts(
        &mut self,
        start: &State,
        plays: u64,
        seed: u64,
    ) -> Result<PlayStats, PlayError> {
        let p = self.program();
        let mut rng = Rng::new(seed);
        let mut moves = Moves::new(p.state_size());
        let (mut branching, mut turns, mut length) =
            (Acc::default(), Acc::default(), Acc::default());
        let mut goals: BTreeMap<String, u64> = BTreeMap::new();
        // The moves of the current play: their tags back to back, and where each ends.
        let (mut picked, mut picked_ends): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        // States after the watched part of a run of keeper moves (to detect a keeper cycle).
        let mut chain = SeenSet::default();
        let mut key: Vec<u32> = Vec::new();
        let mut state = start.clone();
        let t0 = Instant::now();
        for _ in 0..plays {
            state.node = start.node;
            state.data.clear();
            state.data.extend_from_slice(&start.data);
            picked.clear();
            picked_ends.clear();
            let mut turn = 0u64;
            let mut keeper_run = 0usize;
            loop {
                moves.clear();
                if let Err(mut e) = self.moves_into(state.node, &state.data, &mut moves) {
                    e.path = self.flat_names(&picked, &picked_ends);
                    e.finish_help();
                    return Err(PlayError::Runtime(e));
                }
                if moves.is_empty() {
                    if !self.is_final(&state) {
                        return Err(PlayError::DeadEnd {
                            node: p.node_name(state.node).to_string(),
                            path: self.flat_names(&picked, &picked_ends),
                        });
                    }
                    let g = p.format_goals(&state.data).unwrap_or_default();
                    *goals.entry(g).or_default() += 1;
                    break;
                }
                let keeper = self.is_keeper(&state.data);
                if keeper && moves.len() != 1 {
                    return Err(PlayError::KeeperMoves {
                        count: moves.len(),
                        node: p.node_name(state.node).to_string(),
                        path: self.flat_names(&picked, &picked_ends),
                    });
                }
                if !keeper && !self.is_random(&state.data) {
                    branching.add(moves.len() as f64);
                    turn += 1;
                }
                if let Some((i, j)) = ambiguous_pair(self, &moves) {
                    return Err(PlayError::Ambiguous {
                        tags: self.tag_text(moves.tags(i)),
                        from: p.node_name(state.node).to_string(),
                        to: p.node_name(moves.node(j)).to_string(),
                        path: self.flat_names(&picked, &picked_ends),
                    });
                }
                let k = rng.below(moves.len());
                picked.extend_from_slice(moves.tags(k));
                picked_ends.push(picked.len() as u32);
                state.node = moves.node(k);
                state.data.copy_from_slice(moves.data(k));
                if picked_ends.len() > PLAY_LIMIT {
                    return Err(PlayError::TooLong {
                        limit: PLAY_LIMIT,
                        node: p.node_name(state.node).to_string(),
                    });
                }
                keeper_run = if keeper { keeper_run + 1 } else { 0 };
                if keeper_run >= KEEPER_WATCH {
                    if keeper_run == KEEPER_WATCH {
                        chain.clear();
                    }
                    key.clear();
                    key.push(state.node);
                    key.extend_from_slice(&state.data);
                    let (at, new) = chain.intern(&key);
                    let fault = if !new {
                        Some(Fault::KeeperCycle {
                            node: p.node_name(state.node).to_string(),
                            moves: keeper_run - (KEEPER_WATCH + at as usize),
                        })
                    } else if keeper_run > KEEPER_LIMIT {
                        Some(Fault::KeeperMoves {
                            limit: KEEPER_LIMIT,
                        })
                    } else {
                        None
                    };
                    if let Some(fault) = fault {
                        let mut e = self.error(fault, moves.edge(k));
                        e.path = self.flat_names(&picked, &picked_ends);
                        e.finish_help();
                        return Err(PlayError::Runtime(e));
                    }
                }
            }
            turns.add(turn as f64);
            length.add(picked_ends.len() as f64);
        }
        Ok(PlayStats {
            plays,
            seconds: t0.elapsed().as_secs_f64(),
            branching: branching.summary(),
            turns: turns.summary(),
            length: length.summary(),
            goals,
        })
    }

    /// The moves of a play kept as tags back to back and the end of each move, as names.
    fn flat_names(&self, tags: &[u32], ends: &[u32]) -> Vec<Vec<String>> {
        let p = self.program();
        let mut start = 0;
        ends.iter()
            .map(|&end| {
                let m = &tags[start..end as usize];
                start = end as usize;
                m.iter().map(|&t| p.name(t).to_string()).collect()
            })
            .collect()
    }

    /// Tag lists as names.
    pub(crate) fn names_of(&self, moves: &[Vec<u32>]) -> Vec<Vec<String>> {
        let p = self.program();
        moves
            .iter()
            .map(|m| m.iter().map(|&t| p.name(t).to_string()).collect())
            .collect()
    }

    /// Tags as printed by `moves` (space-separated).
    pub fn tag_text(&self, tags: &[u32]) -> String {
        let p = self.program();
        tags.iter()
            .map(|&t| p.name(t))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Two moves with the same node and tags but different ordinary-variable values (a proper game has
/// none: the reference's playouts check it at every state), as indices into `moves`: the first move
/// that differs from an earlier one of its group, and the group's first move. (Until then every
/// move equals the first of its group, so comparing with the first is enough.) Allocates nothing
/// once the machine's buffers have grown.
pub(crate) fn ambiguous_pair(m: &mut Machine<'_>, moves: &Moves) -> Option<(usize, usize)> {
    if moves.len() < 2 {
        return None;
    }
    let ordinary = m.program().ordinary as usize;
    let b = &mut m.bufs;
    b.groups.clear();
    b.first.clear();
    for i in 0..moves.len() {
        b.key.clear();
        b.key.push(moves.node(i));
        b.key.extend_from_slice(moves.tags(i));
        let (g, new) = b.groups.intern(&b.key);
        if new {
            b.first.push(i as u32);
        } else {
            let j = b.first[g as usize] as usize;
            if moves.data(j)[..ordinary] != moves.data(i)[..ordinary] {
                return Some((j, i));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[a.below(3)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 800), "{counts:?}");
    }
}
