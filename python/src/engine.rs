//! The game as Python sees it, without Python: players, stable action ids, positions where a
//! real player or chance is to move (keeper moves applied), what each player observes, goals as
//! numbers, and batched random playouts run by the interpreter itself.
//!
//! A [`Core`] is built once per loaded game and shared (read-only, but for the table of action
//! ids, which grows when a game has no finite alphabet) by every state of it.

use crate::alphabet;
use crate::observe;
use rg_core::typeck::TypeEnv;
use rg_core::{Game, GameStats, Symbol};
use rg_interp::{CompileOptions, Machine, PlayStats, Program, State};
use std::collections::HashMap;
use std::sync::Mutex;

/// The most sequences a move alphabet may have to be numbered up front (OpenSpiel's action
/// counts are 32-bit integers).
pub const ALPHABET_LIMIT: u64 = i32::MAX as u64;

/// The most keeper moves in a row between two decisions (a keeper that moves in a cycle is a
/// broken game, and must not hang Python).
const KEEPER_LIMIT: usize = 100_000;

/// Who is to move at a settled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// A real player, by index into [`Core::players`].
    Player(usize),
    /// `random`: a chance node.
    Chance,
    /// The game is over.
    Terminal,
}

/// One move: its real tags and, per player, the tags that player saw (runtime symbols; empty
/// in a game of perfect information, where every player sees every tag).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Step {
    pub tags: Vec<u32>,
    pub seen: Vec<Vec<u32>>,
}

/// A legal move at a settled position. Only its place in the interpreter's list of moves is
/// kept, not the state it leads to: a position can have a hundred thousand moves (two stones
/// of connect6), and MCTS keeps and clones many positions. Playing it generates the moves of
/// the position again (the interpreter's order is deterministic).
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub action: u64,
    /// The first of the interpreter's moves with its tags.
    pub index: u32,
    /// How many of the interpreter's moves have these tags (chance weighs outcomes by it).
    pub weight: u32,
}

/// A position where a real player or chance is to move, or the end, with its legal moves
/// sorted by action id.
#[derive(Clone, Debug)]
pub struct Settled {
    pub pos: State,
    pub turn: Turn,
    pub choices: Vec<Choice>,
}

/// The ids of moves: the alphabet's ranks up front (`0..alphabet size`), then moves outside it
/// (in a game without an alphabet, every move) numbered as they are met.
#[derive(Debug, Default)]
struct Actions {
    alphabet: Option<alphabet::Alphabet>,
    /// Moves met outside the alphabet; the first has the id `alphabet size`.
    met: Vec<Vec<String>>,
    by_names: HashMap<Vec<String>, u64>,
    by_tags: HashMap<Vec<u32>, u64>,
}

/// A loaded game ready to play.
#[derive(Debug)]
pub struct Core {
    pub name: String,
    pub language: &'static str,
    /// The game as interpreted by `rgt run` and `rgt perft`.
    program: Program,
    /// The copy with visibility markers (games that hide tags), for stepping.
    marked: Option<Program>,
    pub players: Vec<String>,
    player_index: HashMap<String, usize>,
    /// Goal values as numbers.
    scores: HashMap<String, f64>,
    pub min_utility: f64,
    pub max_utility: f64,
    /// The size of the alphabet, when there is one.
    pub num_actions: Option<u64>,
    actions: Mutex<Actions>,
    pub perfect_information: bool,
    pub has_chance: bool,
    pub rg_text: String,
    pub stats: GameStats,
}

impl Core {
    /// Prepares an optimised, checked game.
    pub fn new(name: String, language: &'static str, game: &Game) -> Result<Core, String> {
        let compile = |g: &Game, ignore_pragmas: bool| {
            Program::new(
                g,
                CompileOptions {
                    ignore_pragmas,
                    ..CompileOptions::default()
                },
            )
            .map_err(|e| e.to_string())
        };
        let program = compile(game, false)?;
        let wk = *game.well_known();
        let env = TypeEnv::new(game);
        let members = |t: Symbol| -> Vec<Symbol> {
            game.typedef(t)
                .and_then(|d| env.values(d.ty).ok().flatten())
                .map(|m| m.as_slice().to_vec())
                .unwrap_or_default()
        };
        let player_syms = members(wk.player_type);
        let players: Vec<String> = player_syms
            .iter()
            .map(|&s| game.name(s).to_owned())
            .collect();
        let score_names: Vec<String> = members(wk.score_type)
            .iter()
            .map(|&s| game.name(s).to_owned())
            .collect();
        let scores = score_values(&score_names);
        let (min_utility, max_utility) = scores
            .values()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let perfect_information = observe::perfect_information(game);
        let marked = if perfect_information {
            None
        } else {
            Some(compile(&observe::with_markers(game, &player_syms), true)?)
        };
        let alphabet = alphabet::move_alphabet(game, ALPHABET_LIMIT);
        let num_actions = alphabet.as_ref().map(alphabet::Alphabet::size);
        let actions = Actions {
            alphabet,
            ..Actions::default()
        };
        let has_chance = game.edges().any(|(_, e)| {
            matches!(e.label, rg_core::Label::Assign { rhs, .. }
                if matches!(game.expr(game.strip_casts(rhs)), rg_core::ExprData::Ref(s) if s == wk.random))
        });
        Ok(Core {
            name,
            language,
            program,
            marked,
            player_index: players
                .iter()
                .enumerate()
                .map(|(i, p)| (p.clone(), i))
                .collect(),
            players,
            scores,
            min_utility: if min_utility.is_finite() {
                min_utility
            } else {
                0.0
            },
            max_utility: if max_utility.is_finite() {
                max_utility
            } else {
                0.0
            },
            num_actions,
            actions: Mutex::new(actions),
            perfect_information,
            has_chance,
            rg_text: rg_pipeline::emit(game, rg_pipeline::Emit::Rg),
            stats: GameStats::of(game),
        })
    }

    /// The program positions of the Python API belong to.
    fn stepper(&self) -> &Program {
        self.marked.as_ref().unwrap_or(&self.program)
    }

    /// The tags of an action id, or `None` for an id never handed out.
    pub fn action_tags(&self, action: u64) -> Option<Vec<String>> {
        let table = self.table();
        let size = table.size();
        match &table.alphabet {
            Some(a) if action < size => a.unrank(action),
            _ => table.met.get(usize::try_from(action - size).ok()?).cloned(),
        }
    }

    /// The number of action ids handed out so far: the alphabet's and those met outside it.
    pub fn actions_known(&self) -> u64 {
        let table = self.table();
        table.size() + table.met.len() as u64
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Actions> {
        // A panic while the lock was held cannot leave the table inconsistent (every update is
        // one insertion after the other): use it anyway.
        self.actions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The names of runtime symbols.
    pub fn names(&self, tags: &[u32]) -> Vec<String> {
        let p = self.stepper();
        tags.iter().map(|&t| p.name(t).to_owned()).collect()
    }

    /// The initial position, keeper moves applied; `trail` receives them.
    pub fn initial(&self, trail: &mut Vec<Step>) -> Result<Settled, String> {
        let m = Machine::new(self.stepper());
        self.settle(m.initial(), trail)
    }

    /// Applies keeper moves from `pos` until a real player or chance is to move or the game is
    /// over; lists the legal moves there.
    pub fn settle(&self, mut pos: State, trail: &mut Vec<Step>) -> Result<Settled, String> {
        let p = self.stepper();
        let mut m = Machine::new(p);
        for _ in 0..=KEEPER_LIMIT {
            let moves = m.moves(&pos).map_err(|e| e.to_string())?;
            if moves.is_empty() {
                if m.is_final(&pos) {
                    return Ok(Settled {
                        pos,
                        turn: Turn::Terminal,
                        choices: Vec::new(),
                    });
                }
                return Err(format!(
                    "the game unexpectedly ended in `{}`: a player is to move and has no legal \
                     move",
                    p.node_name(pos.node)
                ));
            }
            if m.is_keeper(&pos.data) {
                if moves.len() != 1 {
                    return Err(format!(
                        "the keeper had {} moves in `{}` (a proper game's keeper has exactly one)",
                        moves.len(),
                        p.node_name(pos.node)
                    ));
                }
                trail.push(self.step(moves.tags(0)));
                pos = moves.state(0);
                continue;
            }
            let turn = if m.is_random(&pos.data) {
                Turn::Chance
            } else {
                let who = p.name(m.player(&pos.data));
                match self.player_index.get(who) {
                    Some(&i) => Turn::Player(i),
                    None => return Err(format!("`player` holds `{who}`, which is not a player")),
                }
            };
            let mut choices: Vec<Choice> = Vec::new();
            let mut at: HashMap<Vec<u32>, usize> = HashMap::new();
            for i in 0..moves.len() {
                let step = self.step(moves.tags(i));
                if let Some(&k) = at.get(&step.tags) {
                    choices[k].weight += 1;
                    continue;
                }
                choices.push(Choice {
                    action: self.action_id(&step.tags),
                    index: i as u32,
                    weight: 1,
                });
                at.insert(step.tags, choices.len() - 1);
            }
            choices.sort_by_key(|c| c.action);
            return Ok(Settled { pos, turn, choices });
        }
        Err(format!(
            "the keeper made more than {KEEPER_LIMIT} moves in a row (in `{}`)",
            p.node_name(pos.node)
        ))
    }

    /// Plays a legal move of a settled position: what the players saw of it and the state it
    /// leads to (before the keeper's moves that follow; see [`Core::settle`]).
    pub fn play(&self, at: &Settled, choice: Choice) -> Result<(Step, State), String> {
        let mut m = Machine::new(self.stepper());
        let moves = m.moves(&at.pos).map_err(|e| e.to_string())?;
        let i = choice.index as usize;
        if i >= moves.len() {
            return Err("the moves of a position changed between two searches".to_owned());
        }
        Ok((self.step(moves.tags(i)), moves.state(i)))
    }

    /// Splits the tags of a move of the stepping program into the real tags and what each
    /// player saw.
    fn step(&self, tags: &[u32]) -> Step {
        let n = self.players.len();
        let Some(marked) = &self.marked else {
            // Everyone sees everything: `seen` stays empty (see [`Core::seen`]).
            return Step {
                tags: tags.to_vec(),
                seen: Vec::new(),
            };
        };
        let mut step = Step {
            tags: Vec::with_capacity(tags.len()),
            seen: vec![Vec::new(); n],
        };
        for &t in tags {
            match marked.name(t).strip_prefix(observe::MARKER_PREFIX) {
                Some(i) => {
                    if let (Ok(i), Some(&last)) = (i.parse::<usize>(), step.tags.last())
                        && i < n
                    {
                        step.seen[i].push(last);
                    }
                }
                None => step.tags.push(t),
            }
        }
        step
    }

    /// The tags of a move that `player` saw.
    pub fn seen<'s>(&self, step: &'s Step, player: usize) -> &'s [u32] {
        if self.marked.is_none() {
            &step.tags
        } else {
            step.seen.get(player).map_or(&[], Vec::as_slice)
        }
    }

    /// The id of a move with these (real, runtime) tags.
    fn action_id(&self, tags: &[u32]) -> u64 {
        let mut table = self.table();
        if let Some(&id) = table.by_tags.get(tags) {
            return id;
        }
        let id = table.intern(self.names(tags));
        table.by_tags.insert(tags.to_vec(), id);
        id
    }

    /// Every player's goal as a number, in player order.
    pub fn returns(&self, pos: &State) -> Vec<f64> {
        let entries = self.stepper().goal_entries(&pos.data);
        let mut out = vec![0.0; self.players.len()];
        for (player, value) in entries {
            if let (Some(&i), Some(&v)) = (self.player_index.get(&player), self.scores.get(&value))
            {
                out[i] = v;
            }
        }
        out
    }

    /// `goals` as printed by `rgt run`.
    pub fn goals_text(&self, pos: &State) -> String {
        self.stepper().format_goals(&pos.data).unwrap_or_default()
    }

    /// The node a position is at.
    pub fn node_name(&self, pos: &State) -> &str {
        self.stepper().node_name(pos.node)
    }

    /// The interpreter's perft from a position (keeper moves free, random outcomes merged by
    /// state), as `rgt perft` counts.
    pub fn perft(&self, pos: &State, depth: usize) -> Result<u64, String> {
        Machine::new(self.stepper())
            .perft(pos, depth)
            .map_err(|e| e.to_string())
    }

    /// `plays` random playouts from `pos` (or from the initial position), as `rgt run`.
    pub fn rollouts(
        &self,
        pos: Option<&State>,
        plays: u64,
        seed: u64,
    ) -> Result<PlayStats, String> {
        // From the start the plain game is played: the same program `rgt run` plays.
        let program = if pos.is_some() {
            self.stepper()
        } else {
            &self.program
        };
        let mut m = Machine::new(program);
        let start = match pos {
            Some(p) => p.clone(),
            None => m.initial(),
        };
        m.playouts(&start, plays, seed).map_err(|e| e.to_string())
    }
}

impl Core {
    /// Every player's goal as a number, from `goals` as `rgt run` prints it (`{ :0, a: 100 }`:
    /// the default value, then the entries that differ from it).
    pub fn returns_of_text(&self, text: &str) -> Vec<f64> {
        let inner = text
            .trim()
            .trim_start_matches('{')
            .trim_end_matches('}')
            .trim();
        let mut default = 0.0;
        let mut out: Vec<Option<f64>> = vec![None; self.players.len()];
        for entry in inner.split(", ") {
            let Some((key, value)) = entry.split_once(':') else {
                continue;
            };
            let v = self.scores.get(value.trim()).copied().unwrap_or(0.0);
            match key.trim() {
                "" => default = v,
                k => {
                    if let Some(&i) = self.player_index.get(k) {
                        out[i] = Some(v);
                    }
                }
            }
        }
        out.into_iter().map(|v| v.unwrap_or(default)).collect()
    }

    /// The mean of every player's goal over the plays of `stats`.
    pub fn mean_returns(&self, stats: &PlayStats) -> Vec<f64> {
        let mut sum = vec![0.0; self.players.len()];
        let mut plays = 0u64;
        for (text, &n) in &stats.goals {
            for (s, r) in sum.iter_mut().zip(self.returns_of_text(text)) {
                *s += r * n as f64;
            }
            plays += n;
        }
        if plays > 0 {
            for s in &mut sum {
                *s /= plays as f64;
            }
        }
        sum
    }
}

impl Actions {
    /// The size of the alphabet (0 without one).
    fn size(&self) -> u64 {
        self.alphabet.as_ref().map_or(0, alphabet::Alphabet::size)
    }

    fn intern(&mut self, names: Vec<String>) -> u64 {
        if let Some(id) = self.alphabet.as_ref().and_then(|a| a.rank(&names)) {
            return id;
        }
        if let Some(&id) = self.by_names.get(&names) {
            return id;
        }
        let id = self.size() + self.met.len() as u64;
        self.by_names.insert(names.clone(), id);
        self.met.push(names);
        id
    }
}

/// Goal symbols as numbers: integers (and decimals) as themselves; when any symbol is not a
/// number, every symbol is its index in the `Score` type.
fn score_values(names: &[String]) -> HashMap<String, f64> {
    let numbers: Option<Vec<f64>> = names.iter().map(|n| n.parse::<f64>().ok()).collect();
    match numbers {
        Some(vs) => names.iter().cloned().zip(vs).collect(),
        None => names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as f64))
            .collect(),
    }
}
