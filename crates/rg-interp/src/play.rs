//! Seeded random playouts (rg.md §12.12) and their statistics.

use crate::error::{RuntimeError, format_path};
use crate::search::{Machine, Moves, State};
use crate::seen::hash_words;
use std::collections::BTreeMap;
use std::time::Instant;

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

/// Why a playout could not go on (rg.md §12.12; the reference aborts the command with these).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PlayError {
    #[error(
        "game unexpectedly ended in `{node}` after the moves {}",
        format_path(path)
    )]
    #[diagnostic(
        code(rg::interp::dead_end),
        help("a state that is not at `end` must have a legal move (rg.md §11, continuability)")
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
        help("the keeper must have exactly one legal move (rg.md §11, deterministic keeper)")
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
            "move walks with the same tags must lead to the same state (rg.md §11, move unambiguity)"
        )
    )]
    Ambiguous {
        tags: String,
        from: String,
        to: String,
        path: Vec<Vec<String>>,
    },
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
    /// Plays `plays` random playouts from `start` (rg.md §12.12): moves are picked uniformly
    /// from the output list (a duplicate counts twice), keeper moves included.
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
        let mut picked: Vec<Vec<u32>> = Vec::new();
        let mut state = start.clone();
        let t0 = Instant::now();
        for _ in 0..plays {
            state.node = start.node;
            state.data.clear();
            state.data.extend_from_slice(&start.data);
            picked.clear();
            let mut turn = 0u64;
            loop {
                moves.clear();
                if let Err(mut e) = self.moves_into(state.node, &state.data, &mut moves) {
                    e.path = self.names_of(&picked);
                    e.finish_help();
                    return Err(PlayError::Runtime(e));
                }
                if moves.is_empty() {
                    if !self.is_final(&state) {
                        return Err(PlayError::DeadEnd {
                            node: p.node_name(state.node).to_string(),
                            path: self.names_of(&picked),
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
                        path: self.names_of(&picked),
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
                        path: self.names_of(&picked),
                    });
                }
                let k = rng.below(moves.len());
                picked.push(moves.tags(k).to_vec());
                state.node = moves.node(k);
                state.data.copy_from_slice(moves.data(k));
            }
            turns.add(turn as f64);
            length.add(picked.len() as f64);
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

/// Two moves with the same node and tags but different ordinary-variable values (the check of
/// rg.md §12.12), as indices into `moves`.
pub(crate) fn ambiguous_pair(m: &Machine<'_>, moves: &Moves) -> Option<(usize, usize)> {
    if moves.len() < 2 {
        return None;
    }
    let ordinary = m.program().ordinary as usize;
    let mut by_key: std::collections::HashMap<u64, Vec<usize>> = std::collections::HashMap::new();
    let mut key = Vec::new();
    for i in 0..moves.len() {
        key.clear();
        key.push(moves.node(i));
        key.extend_from_slice(moves.tags(i));
        let same = by_key.entry(hash_words(&key)).or_default();
        for &j in same.iter() {
            if moves.node(j) == moves.node(i)
                && moves.tags(j) == moves.tags(i)
                && moves.data(j)[..ordinary] != moves.data(i)[..ordinary]
            {
                return Some((j, i));
            }
        }
        same.push(i);
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
