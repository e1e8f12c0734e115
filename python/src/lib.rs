//! `rgt._rgt`: the native half of the Python package `rgt`.
//!
//! It loads a game in any language `rgt` reads (through `rg-pipeline`, on a thread with the
//! pipeline's large stack and without holding the GIL), and plays it with the interpreter of
//! `rg-interp`: states where a real player or chance is to move (the keeper's moves are applied
//! automatically), stable integer action ids, chance outcomes with their probabilities, goals
//! as numbers, what each player observes, and batched random playouts run entirely in Rust with
//! the GIL released. The pure-Python package on top (`rgt/__init__.py`, `rgt/openspiel.py`)
//! adds the loading conveniences and the OpenSpiel registration.
//!
//! Errors never cross into Python as crashes: a game with errors raises `rgt.GameError` (its
//! diagnostics attached), a game that breaks the rules of a proper game while being played
//! raises `rgt.PlayError`, and a wrong argument raises `ValueError`.

mod alphabet;
mod engine;
mod observe;

use engine::{Core, Settled, Step, Turn};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rg_pipeline::{Diagnostic, Lang, OptLevel, Options, Pipeline};
use std::sync::Arc;

create_exception!(
    _rgt,
    GameError,
    PyException,
    "The game has errors (see `diagnostics`)."
);
create_exception!(
    _rgt,
    PlayError,
    PyException,
    "The game broke a rule of proper games while being played."
);

/// OpenSpiel's id of the chance player.
const CHANCE: i64 = -1;
/// OpenSpiel's id of the player at a terminal state.
const TERMINAL: i64 = -4;

/// One diagnostic as plain data.
#[derive(Debug)]
struct DiagRecord {
    severity: &'static str,
    code: Option<String>,
    message: String,
    line: Option<usize>,
    column: Option<usize>,
}

/// Why a load failed: a message, the rendered diagnostics, and each diagnostic.
#[derive(Debug)]
struct LoadFailure {
    message: String,
    rendered: String,
    diagnostics: Vec<DiagRecord>,
}

fn record(pipeline: &Pipeline, d: &Diagnostic) -> DiagRecord {
    let (line, column) = match (d.file, &d.primary) {
        (Some(f), Some(l)) => match pipeline.sources.line_col(f, l.offset as u32) {
            Some((line, col)) => (Some(line), Some(col)),
            None => (None, None),
        },
        _ => (None, None),
    };
    DiagRecord {
        severity: d.severity.as_str(),
        code: d.code.clone(),
        message: d.message.clone(),
        line,
        column,
    }
}

fn parse_lang(name: &str) -> Result<Lang, String> {
    let lower = name.to_ascii_lowercase();
    let lower = if lower == "gdl" {
        "kif".to_owned()
    } else {
        lower
    };
    Lang::ALL
        .into_iter()
        .find(|l| l.name() == lower)
        .ok_or_else(|| format!("unknown language `{name}` (known: rg, hrg, rbg, kif or gdl, lg)"))
}

/// Loads and prepares a game (runs on the loading thread).
fn load_core(
    source: String,
    is_path: bool,
    lang: Option<Lang>,
    opt: OptLevel,
    name: Option<String>,
) -> Result<(Core, Vec<DiagRecord>), LoadFailure> {
    let mut pipeline = Pipeline::new(Options {
        lang,
        opt,
        ..Options::default()
    });
    let fail = |pipeline: &Pipeline, e: &rg_pipeline::Error| LoadFailure {
        message: e.to_string(),
        rendered: pipeline.render_error(e),
        diagnostics: match e {
            rg_pipeline::Error::Input(ds) => ds.iter().map(|d| record(pipeline, d)).collect(),
            _ => Vec::new(),
        },
    };
    let (lang, display) = if is_path {
        match Lang::detect(&source, lang) {
            Ok(l) => (l, name.unwrap_or_else(|| source.clone())),
            Err(e) => return Err(fail(&pipeline, &e)),
        }
    } else {
        (
            lang.unwrap_or(Lang::Rg),
            name.unwrap_or_else(|| "<text>".to_owned()),
        )
    };
    let loaded = if is_path {
        pipeline.load_path(&source)
    } else {
        pipeline.load_text(lang, display.clone(), source)
    };
    let loaded = loaded.map_err(|e| fail(&pipeline, &e))?;
    let warnings = loaded
        .diagnostics
        .iter()
        .map(|d| record(&pipeline, d))
        .collect();
    let core = Core::new(display, lang.name(), &loaded.game).map_err(|m| LoadFailure {
        rendered: format!("error: {m}\n"),
        message: m,
        diagnostics: Vec::new(),
    })?;
    Ok((core, warnings))
}

fn diag_list<'py>(py: Python<'py>, ds: &[DiagRecord]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in ds {
        let dict = PyDict::new(py);
        dict.set_item("severity", d.severity)?;
        dict.set_item("code", &d.code)?;
        dict.set_item("message", &d.message)?;
        dict.set_item("line", d.line)?;
        dict.set_item("column", d.column)?;
        list.append(dict)?;
    }
    Ok(list)
}

fn game_error(py: Python<'_>, f: LoadFailure) -> PyErr {
    let err = GameError::new_err(f.message.clone());
    let value = err.value(py);
    let first = f
        .diagnostics
        .iter()
        .find(|d| d.severity == "error")
        .or(f.diagnostics.first());
    let set = || -> PyResult<()> {
        value.setattr("message", first.map_or(&f.message, |d| &d.message))?;
        value.setattr("code", first.and_then(|d| d.code.clone()))?;
        value.setattr("line", first.and_then(|d| d.line))?;
        value.setattr("column", first.and_then(|d| d.column))?;
        value.setattr("rendered", &f.rendered)?;
        value.setattr("diagnostics", diag_list(py, &f.diagnostics)?)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Loads a game: `source` is a path when `is_path`, else the text itself (in `language`, RG
/// by default). `optimize` is the `-O` level (0, 1 or 2).
#[pyfunction]
#[pyo3(signature = (source, is_path, language=None, optimize=2, name=None))]
fn load(
    py: Python<'_>,
    source: String,
    is_path: bool,
    language: Option<&str>,
    optimize: u8,
    name: Option<String>,
) -> PyResult<Game> {
    let lang = language
        .map(parse_lang)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let opt = match optimize {
        0 => OptLevel::O0,
        1 => OptLevel::O1,
        2 => OptLevel::O2,
        n => {
            return Err(PyValueError::new_err(format!(
                "optimize must be 0, 1 or 2, not {n}"
            )));
        }
    };
    let result = py.allow_threads(|| {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("rgt-load".to_owned())
                .stack_size(rg_pipeline::STACK_SIZE)
                .spawn_scoped(s, move || load_core(source, is_path, lang, opt, name))
                .map(|h| h.join())
        })
    });
    match result {
        Ok(Ok(Ok((core, warnings)))) => Ok(Game {
            core: Arc::new(core),
            warnings: Arc::new(warnings),
        }),
        Ok(Ok(Err(f))) => Err(game_error(py, f)),
        Ok(Err(_)) => Err(PlayError::new_err(
            "internal error in rgt while loading the game (please report it with the game)",
        )),
        Err(e) => Err(PyException::new_err(format!(
            "cannot start the loading thread: {e}"
        ))),
    }
}

/// A loaded game.
#[pyclass(module = "rgt._rgt", frozen)]
#[derive(Debug)]
struct Game {
    core: Arc<Core>,
    warnings: Arc<Vec<DiagRecord>>,
}

fn play_error(m: String) -> PyErr {
    PlayError::new_err(m)
}

/// A summary (min, mean, std_dev, max) as a dict.
fn summary<'py>(py: Python<'py>, s: &rg_interp::Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("min", s.min)?;
    d.set_item("mean", s.mean)?;
    d.set_item("std_dev", s.std_dev)?;
    d.set_item("max", s.max)?;
    Ok(d)
}

fn stats_dict<'py>(
    py: Python<'py>,
    core: &Core,
    st: &rg_interp::PlayStats,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("returns", core.mean_returns(st))?;
    d.set_item("plays", st.plays)?;
    d.set_item("seed", seed)?;
    d.set_item("seconds", st.seconds)?;
    d.set_item("branching", summary(py, &st.branching)?)?;
    d.set_item("turns", summary(py, &st.turns)?)?;
    d.set_item("length", summary(py, &st.length)?)?;
    let goals = PyDict::new(py);
    for (g, n) in &st.goals {
        goals.set_item(g, n)?;
    }
    d.set_item("goals", goals)?;
    Ok(d)
}

fn run_rollouts<'py>(
    py: Python<'py>,
    core: &Arc<Core>,
    pos: Option<&rg_interp::State>,
    plays: u64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let stats = py
        .allow_threads(|| core.rollouts(pos, plays, seed))
        .map_err(play_error)?;
    stats_dict(py, core, &stats, seed)
}

#[pymethods]
impl Game {
    /// The players, in the order of the `Player` type (OpenSpiel's player ids).
    #[getter]
    fn players(&self) -> Vec<String> {
        self.core.players.clone()
    }

    fn num_players(&self) -> usize {
        self.core.players.len()
    }

    /// The name the game was loaded as (its path, or the `name` given with a text).
    #[getter]
    fn name(&self) -> &str {
        &self.core.name
    }

    /// The source language: `rg`, `hrg`, `rbg`, `kif` or `lg`.
    #[getter]
    fn language(&self) -> &str {
        self.core.language
    }

    /// The warnings of loading, as dicts (severity, code, message, line, column).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diag_list(py, &self.warnings)
    }

    /// Whether every player sees every move (nothing ever hides a tag).
    #[getter]
    fn perfect_information(&self) -> bool {
        self.core.perfect_information
    }

    /// Whether `random` ever moves.
    #[getter]
    fn has_chance(&self) -> bool {
        self.core.has_chance
    }

    fn new_initial_state(&self, py: Python<'_>) -> PyResult<State> {
        let core = self.core.clone();
        let (settled, trail) = py
            .allow_threads(|| {
                let mut trail = Vec::new();
                core.initial(&mut trail).map(|s| (s, trail))
            })
            .map_err(play_error)?;
        Ok(State {
            core: self.core.clone(),
            settled,
            trail,
            history: Vec::new(),
        })
    }

    /// The number of distinct action ids, when the game has a finite move alphabet (`None`
    /// otherwise: ids are then handed out as moves are met).
    fn num_distinct_actions(&self) -> Option<u64> {
        self.core.num_actions
    }

    /// The number of action ids handed out so far (the alphabet's size when there is one).
    fn num_actions_known(&self) -> u64 {
        self.core.actions_known()
    }

    /// The tags of an action, space-separated (as `rgt moves` prints them).
    fn action_to_string(&self, action: u64) -> PyResult<String> {
        self.core
            .action_tags(action)
            .map(|t| t.join(" "))
            .ok_or_else(|| PyValueError::new_err(format!("no action has id {action}")))
    }

    /// The tags of an action, as a list.
    fn action_tags(&self, action: u64) -> PyResult<Vec<String>> {
        self.core
            .action_tags(action)
            .ok_or_else(|| PyValueError::new_err(format!("no action has id {action}")))
    }

    /// The lowest and highest goal values.
    fn min_utility(&self) -> f64 {
        self.core.min_utility
    }

    fn max_utility(&self) -> f64 {
        self.core.max_utility
    }

    /// The game as canonical RG text (after optimisation).
    fn to_rg(&self) -> String {
        self.core.rg_text.clone()
    }

    /// Size statistics of the (optimised) game, as `rgt stats` counts them.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.core.stats;
        let d = PyDict::new(py);
        d.set_item("nodes", s.nodes)?;
        d.set_item("edges", s.edges)?;
        d.set_item("variables", s.variables)?;
        d.set_item("constants", s.constants)?;
        d.set_item("types", s.types)?;
        d.set_item("reachability_checks", s.reachability_checks)?;
        d.set_item("tags", s.tags)?;
        d.set_item("pragmas", s.pragmas)?;
        d.set_item("state_bits", s.state_bits)?;
        Ok(d)
    }

    /// `plays` random playouts from the initial state, exactly as `rgt run --plays N --seed S`
    /// plays them (same moves, same statistics), in Rust with the GIL released.
    #[pyo3(signature = (plays, seed=0))]
    fn rollouts<'py>(
        &self,
        py: Python<'py>,
        plays: u64,
        seed: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        run_rollouts(py, &self.core, None, plays, seed)
    }

    fn __repr__(&self) -> String {
        format!("<rgt.Game {} ({})>", self.core.name, self.core.language)
    }
}

/// A state of a game where a real player or chance is to move, or the end.
#[pyclass(module = "rgt._rgt")]
#[derive(Clone, Debug)]
struct State {
    core: Arc<Core>,
    settled: Settled,
    /// Every move played so far, keeper moves included (what the players observed).
    trail: Vec<Step>,
    /// The actions applied so far.
    history: Vec<u64>,
}

impl State {
    fn choice(&self, action: u64) -> PyResult<engine::Choice> {
        let cs = &self.settled.choices;
        cs.binary_search_by_key(&action, |c| c.action)
            .map(|i| cs[i])
            .map_err(|_| {
                PyValueError::new_err(format!(
                    "action {action} is not legal here (legal: {:?})",
                    cs.iter().map(|c| c.action).collect::<Vec<_>>()
                ))
            })
    }

    fn apply(&mut self, py: Python<'_>, action: u64) -> PyResult<()> {
        let choice = self.choice(action)?;
        let core = self.core.clone();
        let settled = &self.settled;
        let mut trail = std::mem::take(&mut self.trail);
        let result = py.allow_threads(|| {
            let (step, next) = core.play(settled, choice)?;
            trail.push(step);
            core.settle(next, &mut trail)
        });
        self.trail = trail;
        self.settled = result.map_err(play_error)?;
        self.history.push(action);
        Ok(())
    }

    fn path_of(&self, steps: impl Iterator<Item = Vec<String>>) -> String {
        let mut s = String::from("/");
        for tags in steps {
            s.push_str(&tags.join(" "));
            s.push('/');
        }
        s
    }

    fn player_index(&self, player: i64) -> PyResult<usize> {
        usize::try_from(player)
            .ok()
            .filter(|&p| p < self.core.players.len())
            .ok_or_else(|| PyValueError::new_err(format!("no player has id {player}")))
    }
}

#[pymethods]
impl State {
    /// The player to move: its index, -1 (chance) or -4 (terminal), as OpenSpiel numbers them.
    fn current_player(&self) -> i64 {
        match self.settled.turn {
            Turn::Player(i) => i as i64,
            Turn::Chance => CHANCE,
            Turn::Terminal => TERMINAL,
        }
    }

    fn is_terminal(&self) -> bool {
        self.settled.turn == Turn::Terminal
    }

    fn is_chance_node(&self) -> bool {
        self.settled.turn == Turn::Chance
    }

    /// The legal action ids, ascending (of `player` when given: empty unless it is to move).
    #[pyo3(signature = (player=None))]
    fn legal_actions(&self, player: Option<i64>) -> Vec<u64> {
        if player.is_some_and(|p| p != self.current_player()) {
            return Vec::new();
        }
        self.settled.choices.iter().map(|c| c.action).collect()
    }

    /// The legal moves as their tags (space-separated), in the order of `legal_actions`.
    fn legal_moves(&self) -> Vec<String> {
        self.settled
            .choices
            .iter()
            .map(|c| {
                self.core
                    .action_tags(c.action)
                    .unwrap_or_default()
                    .join(" ")
            })
            .collect()
    }

    /// At a chance node, each outcome's action id and probability (uniform over the
    /// interpreter's moves, so an outcome listed twice is twice as likely).
    fn chance_outcomes(&self) -> Vec<(u64, f64)> {
        if self.settled.turn != Turn::Chance {
            return Vec::new();
        }
        let total: u32 = self.settled.choices.iter().map(|c| c.weight).sum();
        self.settled
            .choices
            .iter()
            .map(|c| (c.action, f64::from(c.weight) / f64::from(total.max(1))))
            .collect()
    }

    /// Plays an action, then the keeper's moves that follow.
    fn apply_action(&mut self, py: Python<'_>, action: u64) -> PyResult<()> {
        self.apply(py, action)
    }

    /// The state after an action (this one is unchanged).
    fn child(&self, py: Python<'_>, action: u64) -> PyResult<State> {
        let mut s = self.clone();
        s.apply(py, action)?;
        Ok(s)
    }

    fn clone(&self) -> State {
        Clone::clone(self)
    }

    fn __copy__(&self) -> State {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        Clone::clone(self)
    }

    /// The actions applied so far.
    fn history(&self) -> Vec<u64> {
        self.history.clone()
    }

    fn move_number(&self) -> usize {
        self.history.len()
    }

    /// Every player's goal as a number at the end (zeros before it).
    fn returns(&self) -> Vec<f64> {
        if self.settled.turn == Turn::Terminal {
            self.core.returns(&self.settled.pos)
        } else {
            vec![0.0; self.core.players.len()]
        }
    }

    /// Every player's current goal value as a number (goals may change before the end).
    fn goals(&self) -> Vec<f64> {
        self.core.returns(&self.settled.pos)
    }

    /// What `player` has observed: every move so far (keeper moves included) reduced to the
    /// tags it saw, written as a path `/tags/tags/…/`.
    fn observation_string(&self, player: i64) -> PyResult<String> {
        let p = self.player_index(player)?;
        Ok(self.path_of(
            self.trail
                .iter()
                .map(|s| self.core.names(self.core.seen(s, p))),
        ))
    }

    /// The same as `observation_string`: a player remembers every observation.
    fn information_state_string(&self, player: i64) -> PyResult<String> {
        self.observation_string(player)
    }

    /// The node of the automaton the state is at.
    fn node(&self) -> String {
        self.core.node_name(&self.settled.pos).to_owned()
    }

    /// `rgt perft` from this state: move sequences of length `depth` (keeper moves free,
    /// random outcomes that lead to the same state merged). Runs without the GIL.
    fn perft(&self, py: Python<'_>, depth: usize) -> PyResult<u64> {
        let core = self.core.clone();
        let pos = &self.settled.pos;
        py.allow_threads(|| core.perft(pos, depth))
            .map_err(play_error)
    }

    /// `plays` random playouts from this state (as `rgt run`), in Rust without the GIL.
    #[pyo3(signature = (plays, seed=0))]
    fn rollouts<'py>(
        &self,
        py: Python<'py>,
        plays: u64,
        seed: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        run_rollouts(py, &self.core, Some(&self.settled.pos), plays, seed)
    }

    fn action_to_string(&self, action: u64) -> PyResult<String> {
        self.core
            .action_tags(action)
            .map(|t| t.join(" "))
            .ok_or_else(|| PyValueError::new_err(format!("no action has id {action}")))
    }

    fn __eq__(&self, other: &State) -> bool {
        Arc::ptr_eq(&self.core, &other.core) && self.settled.pos == other.settled.pos
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.settled.pos.hash(&mut h);
        h.finish()
    }

    /// The moves played (every player's and the keeper's tags, as a path), who is to move and
    /// the goals.
    fn __str__(&self) -> String {
        let path = self.path_of(self.trail.iter().map(|s| self.core.names(&s.tags)));
        let who = match self.settled.turn {
            Turn::Player(i) => self.core.players[i].clone(),
            Turn::Chance => "random".to_owned(),
            Turn::Terminal => "nobody (the game is over)".to_owned(),
        };
        format!(
            "moves: {path}\nto move: {who}\ngoals: {}",
            self.core.goals_text(&self.settled.pos)
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<rgt.State of {} after {} actions>",
            self.core.name,
            self.history.len()
        )
    }
}

/// The native module.
#[pymodule]
fn _rgt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add("GameError", m.py().get_type::<GameError>())?;
    m.add("PlayError", m.py().get_type::<PlayError>())?;
    m.add("ALPHABET_LIMIT", engine::ALPHABET_LIMIT)?;
    Ok(())
}
