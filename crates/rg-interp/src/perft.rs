//! `perft` (the number of move sequences of a given length, keeper moves not counted),
//! iterative: an explicit stack of levels, each with its move list, so a
//! deep tree or a long run of keeper moves (which are free, so they do not shorten the depth)
//! cannot overflow the call stack. A keeper that moves in a cycle would make perft run forever;
//! it is reported as a run-time error, as is a run of keeper moves longer than [`KEEPER_LIMIT`].

use crate::error::{Fault, RuntimeError};
use crate::search::{Machine, Moves, State};
use crate::seen::{SeenSet, hash_words};
use std::collections::HashMap;

/// More keeper moves in a row than this, with no player moving, are an error (perft and `run`).
pub(crate) const KEEPER_LIMIT: usize = 100_000;

/// From this many keeper moves in a row on, states are remembered to detect a keeper cycle
/// (below it, nothing is hashed: games whose keeper makes a move or two per turn pay nothing).
pub(crate) const KEEPER_WATCH: usize = 16;

/// Reused buffers of perft and of the playouts.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    levels: Vec<Level>,
    dedup: SeenSet,
    pub(crate) key: Vec<u32>,
    /// Hashes of the watched keeper states on the perft stack, with their counts.
    watched: HashMap<u64, u32>,
    /// The ambiguity check of the playouts: groups of moves by node and tags, and the first
    /// move of each group.
    pub(crate) groups: SeenSet,
    pub(crate) first: Vec<u32>,
}

/// One state on the perft stack.
#[derive(Debug, Default)]
struct Level {
    moves: Moves,
    /// Random moves: the first move of each group of equal states, the ones expanded.
    keep: Vec<u32>,
    random: bool,
    keeper: bool,
    /// Depth of the children.
    depth: usize,
    /// Next position among the children to expand, and the move being expanded.
    next: usize,
    child: usize,
    total: u64,
    /// Keeper moves in a row that led to this state.
    run: usize,
    /// The state's hash, when it is watched for a keeper cycle.
    watched: Option<u64>,
}

/// The hash of a state for the keeper-cycle watch.
fn state_hash(node: u32, data: &[u32]) -> u64 {
    hash_words(data) ^ u64::from(node).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Machine<'_> {
    /// The number of move sequences of `depth` player or random moves from `s` (keeper moves
    /// are followed but not counted). On error the path leading to it is filled in.
    pub fn perft(&mut self, s: &State, depth: usize) -> Result<u64, Box<RuntimeError>> {
        if depth == 0 {
            return Ok(1);
        }
        let mut levels = std::mem::take(&mut self.bufs.levels);
        let held = self.held;
        let r = self.perft_stack(&mut levels, s, depth);
        self.held = held;
        self.bufs.levels = levels;
        self.bufs.watched.clear();
        r.map_err(|mut e| {
            e.finish_help();
            e
        })
    }

    fn perft_stack(
        &mut self,
        levels: &mut Vec<Level>,
        s: &State,
        depth: usize,
    ) -> Result<u64, Box<RuntimeError>> {
        let size = self.program().state_size();
        let new_level = || Level {
            moves: Moves::new(size),
            ..Level::default()
        };
        if levels.is_empty() {
            levels.push(new_level());
        }
        if let Some(count) = self.enter(&mut levels[0], s.node, &s.data, depth, 0)? {
            return Ok(count);
        }
        self.held += levels[0].moves.held_words();
        let mut len = 1;
        loop {
            let top = &mut levels[len - 1];
            let count = if top.random {
                top.keep.len()
            } else {
                top.moves.len()
            };
            if top.next == count {
                let total = top.total;
                if let Some(h) = top.watched.take() {
                    self.unwatch(h);
                }
                // The moves of the levels below a search count against its budget.
                self.held -= top.moves.held_words();
                len -= 1;
                if len == 0 {
                    return Ok(total);
                }
                levels[len - 1].total += total;
                continue;
            }
            let i = if top.random {
                top.keep[top.next] as usize
            } else {
                top.next
            };
            top.next += 1;
            top.child = i;
            let run = if top.keeper { top.run + 1 } else { 0 };
            let depth = top.depth;
            if levels.len() == len {
                levels.push(new_level());
            }
            let (below, above) = levels.split_at_mut(len);
            let parent = &below[len - 1];
            let (node, data) = (parent.moves.node(i), parent.moves.data(i));
            let mut watch = None;
            if run >= KEEPER_WATCH {
                let h = state_hash(node, data);
                if let Some(e) = self.keeper_cycle(below, s, node, data, run, h) {
                    return Err(self.path_error(e, below));
                }
                watch = Some(h);
            }
            match self.enter(&mut above[0], node, data, depth, run) {
                Ok(Some(c)) => levels[len - 1].total += c,
                Ok(None) => {
                    if let Some(h) = watch {
                        *self.bufs.watched.entry(h).or_default() += 1;
                        above[0].watched = Some(h);
                    }
                    self.held += above[0].moves.held_words();
                    len += 1;
                }
                Err(e) => return Err(self.path_error(e, below)),
            }
        }
    }

    /// Computes the moves of a state into `level`; returns its count when it is known without
    /// expanding the children (at depth 1 of a player or of random: the number of its moves).
    fn enter(
        &mut self,
        level: &mut Level,
        node: u32,
        data: &[u32],
        depth: usize,
        run: usize,
    ) -> Result<Option<u64>, Box<RuntimeError>> {
        level.moves.clear();
        self.moves_into(node, data, &mut level.moves)?;
        let player = self.player(data);
        let p = self.program();
        level.random = player == p.random;
        level.keeper = player == p.keeper;
        level.next = 0;
        level.total = 0;
        level.run = run;
        level.watched = None;
        if level.random {
            // Merge outcomes that lead to equal states (tags ignored).
            level.keep.clear();
            self.bufs.dedup.clear();
            let moves = &level.moves;
            for i in 0..moves.len() {
                self.bufs.key.clear();
                self.bufs.key.push(moves.node(i));
                self.bufs.key.extend_from_slice(moves.data(i));
                if self.bufs.dedup.insert(&self.bufs.key) {
                    level.keep.push(i as u32);
                }
            }
            if depth == 1 {
                return Ok(Some(level.keep.len() as u64));
            }
            level.depth = depth - 1;
        } else if level.keeper {
            // Keeper moves are free.
            level.depth = depth;
        } else {
            if depth == 1 {
                return Ok(Some(level.moves.len() as u64));
            }
            level.depth = depth - 1;
        }
        Ok(None)
    }

    /// The keeper-cycle error when the state `(node, data)`, reached by the keeper move being
    /// expanded on top of `levels` (the `run`-th in a row), is a state of the same run of keeper
    /// moves further down the stack; the error when the run is too long.
    fn keeper_cycle(
        &self,
        levels: &[Level],
        root: &State,
        node: u32,
        data: &[u32],
        run: usize,
        hash: u64,
    ) -> Option<Box<RuntimeError>> {
        let top = levels.last().expect("a parent");
        let edge = top.moves.edge(top.child);
        if run > KEEPER_LIMIT {
            return Some(self.error(
                Fault::KeeperMoves {
                    limit: KEEPER_LIMIT,
                },
                edge,
            ));
        }
        if !self.bufs.watched.contains_key(&hash) {
            return None;
        }
        // The run's levels: down from the top to the one its first keeper move started from.
        for k in (0..levels.len()).rev() {
            let l = &levels[k];
            if l.watched == Some(hash) {
                let (n, d) = if k == 0 {
                    (root.node, &root.data[..])
                } else {
                    let below = &levels[k - 1];
                    (below.moves.node(below.child), below.moves.data(below.child))
                };
                if n == node && d == data {
                    let p = self.program();
                    return Some(self.error(
                        Fault::KeeperCycle {
                            node: p.node_name(node).to_string(),
                            moves: run - l.run,
                        },
                        edge,
                    ));
                }
            }
            if l.run == 0 {
                break;
            }
        }
        None
    }

    fn unwatch(&mut self, h: u64) {
        if let Some(c) = self.bufs.watched.get_mut(&h) {
            *c -= 1;
            if *c == 0 {
                self.bufs.watched.remove(&h);
            }
        }
    }

    /// An error met below the moves being expanded on `levels`, with those moves as its path.
    fn path_error(&self, mut e: Box<RuntimeError>, levels: &[Level]) -> Box<RuntimeError> {
        let p = self.program();
        let mut path: Vec<Vec<String>> = levels
            .iter()
            .map(|l| {
                let tags = l.moves.tags(l.child);
                tags.iter().map(|&t| p.name(t).to_string()).collect()
            })
            .collect();
        path.append(&mut e.path);
        e.path = path;
        e
    }
}

/// A dead end found by [`Machine::find_dead_end`]: a state that is not final and has no legal
/// move, and the moves leading to it from the start (keeper moves included, as tag lists).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadEnd {
    pub state: State,
    pub path: Vec<Vec<u32>>,
}

impl Machine<'_> {
    /// Looks for a dead end — a state that is not final and has no legal move — reached from
    /// `s` by fewer than `depth` counted moves (keeper moves are free, as in perft). Depth-first,
    /// iterative, in the interpreter's move order; gives up (`Ok(None)`) after `limit` states.
    pub fn find_dead_end(
        &mut self,
        s: &State,
        depth: usize,
        limit: usize,
    ) -> Result<Option<DeadEnd>, Box<RuntimeError>> {
        // Every visited state: its parent and the tags of the move into it.
        let mut seen: Vec<(usize, Vec<u32>)> = vec![(usize::MAX, Vec::new())];
        let mut stack: Vec<(State, usize, usize)> = vec![(s.clone(), 0, 0)];
        while let Some((state, plies, at)) = stack.pop() {
            let moves = self.moves(&state)?;
            if moves.is_empty() {
                if self.is_final(&state) {
                    continue;
                }
                let mut path = Vec::new();
                let mut i = at;
                while i != 0 {
                    let (parent, tags) = &seen[i];
                    path.push(tags.clone());
                    i = *parent;
                }
                path.reverse();
                return Ok(Some(DeadEnd { state, path }));
            }
            let counted = plies + usize::from(!self.is_keeper(&state.data));
            if counted >= depth {
                continue;
            }
            for j in (0..moves.len()).rev() {
                if seen.len() >= limit {
                    return Ok(None);
                }
                seen.push((at, moves.tags(j).to_vec()));
                stack.push((moves.state(j), counted, seen.len() - 1));
            }
        }
        Ok(None)
    }
}
