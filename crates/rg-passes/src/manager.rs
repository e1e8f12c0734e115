//! The pass manager (passes.md §5.3): the setup passes on a game that is not set up yet, then
//! the loop passes to a fixed point (restart or sweep scheduling, iteration and time limits),
//! then the final passes once; validation after every changing pass when asked; one trace
//! record per pass or validator invocation.
//!
//! Change detection: a pass reports whether it changed the game, and the manager compares the
//! game's modification counter ([`Game::generation`]) before and after the call. A pass that
//! touched nothing is unchanged whatever it reports. When the manager validates (debug builds,
//! `--validate`, `--trace`) it also compares the printed game before and after, so a rewrite of
//! something into itself counts as unchanged (termination depends on it) and a pass whose flag
//! disagrees with its effect gets a warning in the trace.

use crate::{Pass, PassContext, PassError, PassPhase, Pipeline};
use rg_core::{Game, GameStats, Phase, PragmaKind, Severity, Violation};
use std::time::{Duration, Instant};

/// How loop passes are scheduled (passes.md §5.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// After the first pass that changes the game, start again with the first loop pass (the
    /// reference's order of rewrites, passes.md §5.3).
    Restart,
    /// Run every enabled loop pass once per sweep, repeat sweeps until one changes nothing; a
    /// pass that already ran on the current game version is not run again. The default: on the
    /// largest corpus games it reaches the same or smaller games several times faster than
    /// `Restart`, which re-runs the cheap early passes after every change.
    #[default]
    Sweep,
}

/// How to run a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Run the validators after every changing pass (always on in debug builds).
    pub validate_each: bool,
    /// Keep the RG text after every changing pass in the trace.
    pub keep_snapshots: bool,
    /// Stop the loop after this many iterations (the game stays valid; a warning is recorded).
    pub max_iterations: usize,
    /// Stop the loop when this much time has passed (checked before every loop pass; the game
    /// stays valid, the final passes still run, a warning is recorded).
    pub time_limit: Option<Duration>,
    pub schedule: Schedule,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            validate_each: cfg!(debug_assertions),
            keep_snapshots: false,
            max_iterations: 10_000,
            time_limit: None,
            schedule: Schedule::Sweep,
        }
    }
}

/// The name of the trace records of validator runs.
pub const VALIDATE: &str = "validate";

/// One pass (or validation) invocation.
#[derive(Clone, Debug)]
pub struct TraceRecord {
    pub seq: usize,
    /// Loop iteration: 0 for setup, last + 1 for the final phase.
    pub iteration: usize,
    /// The pass, or [`VALIDATE`] for a validator run.
    pub pass: &'static str,
    pub phase: PassPhase,
    pub changed: bool,
    pub duration: Duration,
    pub before: GameStats,
    pub after: GameStats,
    /// The result of a validator run (`None` for passes).
    pub validation: Option<Result<(), String>>,
    pub game_after: Option<String>,
    pub warnings: Vec<String>,
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    pub records: Vec<TraceRecord>,
    pub iterations: usize,
    pub warnings: Vec<String>,
}

impl PassReport {
    /// Puts `record` first and renumbers every record (the CLI runs the setup step while
    /// loading the game, before the pipeline).
    pub fn prepend(&mut self, record: TraceRecord) {
        self.records.insert(0, record);
        for (i, r) in self.records.iter_mut().enumerate() {
            r.seq = i + 1;
        }
    }
}

/// Why a pipeline stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Pass(#[from] PassError),
    /// The game after the setup passes is not valid (the input's fault, not a pass's).
    #[error("the game is not valid: {message}")]
    InvalidInput {
        message: String,
        report: Box<PassReport>,
    },
    /// A pass produced a game the validators reject.
    #[error("pass {pass} produced an invalid game: {message}")]
    Invalid {
        pass: &'static str,
        message: String,
        before: String,
        after: String,
        report: Box<PassReport>,
    },
    /// A hook (e.g. a perft check) rejected the game after a pass.
    #[error("after pass {pass}: {message}")]
    Hook {
        pass: &'static str,
        message: String,
        before: String,
        after: String,
        report: Box<PassReport>,
    },
}

impl PipelineError {
    /// The trace up to the failure, if the pipeline got that far.
    pub fn report(&self) -> Option<&PassReport> {
        match self {
            PipelineError::Pass(_) => None,
            PipelineError::InvalidInput { report, .. }
            | PipelineError::Invalid { report, .. }
            | PipelineError::Hook { report, .. } => Some(report),
        }
    }
}

fn validation_errors(game: &Game) -> Option<String> {
    let errors: Vec<String> = rg_validate::validate(game, rg_validate::Selection::Reference)
        .into_iter()
        .filter(|v| v.severity == Severity::Error)
        .map(|v| format!("{} ({})", v.message, v.code))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// Drops the pragmas that describe nodes (`@disjoint`, `@unique`, `@repeat`, `@simpleApply`,
/// `@tagIndex`, `@iterator`…): after the automaton changed they may no longer hold, and the
/// interpreter trusts some of them. The pragma passes recompute them.
fn drop_node_pragmas(game: &mut Game) -> usize {
    let before = game.pragmas.len();
    game.pragmas.retain(|p| {
        let mut names_nodes = false;
        p.kind.for_each_node(|_| names_nodes = true);
        !names_nodes && !matches!(p.kind, PragmaKind::Unique(_))
    });
    let dropped = before - game.pragmas.len();
    if dropped > 0 {
        game.touch();
    }
    dropped
}

/// The setup step for a game that callers check themselves (the CLI, which reports invalid
/// input with source spans): adds the built-in definitions (passes.md §3.1, reusing rg-core's)
/// and returns the trace record of `add_builtins`, or the first problem found.
pub fn setup(game: &mut Game) -> Result<TraceRecord, Box<Violation>> {
    let before = GameStats::of(game);
    let t = Instant::now();
    let changed = crate::passes::add_builtins::add(game)?;
    Ok(TraceRecord {
        seq: 1,
        iteration: 0,
        pass: "add_builtins",
        phase: PassPhase::Setup,
        changed,
        duration: t.elapsed(),
        before,
        after: GameStats::of(game),
        validation: None,
        game_after: None,
        warnings: Vec::new(),
    })
}

/// Runs the enabled passes of `pipeline`. The setup passes run only on a game that is not set
/// up yet ([`Phase::Parsed`]); the game is then validated and marked [`Phase::Ground`]. `hook`
/// is called after every changing pass (e.g. to compare perft counts); an `Err` stops the
/// pipeline.
pub fn run(
    game: &mut Game,
    pipeline: &Pipeline,
    opts: &Options,
    hook: &mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
) -> Result<PassReport, PipelineError> {
    let start = Instant::now();
    let mut m = Manager {
        opts,
        report: PassReport::default(),
        hook,
        stats: None,
    };
    let passes = pipeline.passes();
    let of_phase = |phase: PassPhase| -> Vec<&'static dyn Pass> {
        passes
            .iter()
            .copied()
            .filter(|p| p.phase() == phase)
            .collect()
    };
    if game.phase == Phase::Parsed {
        let mut changed = false;
        for p in of_phase(PassPhase::Setup) {
            changed |= m.step(game, p, 0)?;
        }
        if changed || m.opts.validate_each {
            let t = Instant::now();
            let result = validation_errors(game);
            let stats = m.stats(game);
            m.record_validation(0, PassPhase::Setup, t.elapsed(), stats, result.clone());
            if let Some(message) = result {
                return Err(PipelineError::InvalidInput {
                    message,
                    report: Box::new(m.report),
                });
            }
        }
        game.phase = Phase::Ground;
    }
    let loop_passes = of_phase(PassPhase::Loop);
    // The game version after each pass's last run that changed nothing (sweep scheduling).
    let mut seen_version: Vec<Option<u64>> = vec![None; loop_passes.len()];
    let mut any_change = false;
    let mut iteration = 0;
    'fixpoint: loop {
        iteration += 1;
        if iteration > opts.max_iterations {
            m.report.warnings.push(format!(
                "no fixed point after {} iterations; keeping the current game",
                opts.max_iterations
            ));
            iteration -= 1;
            break;
        }
        let mut changed_any = false;
        for (i, p) in loop_passes.iter().enumerate() {
            if changed_any && opts.schedule == Schedule::Restart {
                break;
            }
            if seen_version[i] == Some(game.generation()) {
                continue;
            }
            if let Some(limit) = opts.time_limit
                && start.elapsed() > limit
            {
                m.report.warnings.push(format!(
                    "time limit of {:.3} s reached in iteration {iteration}; keeping the current game",
                    limit.as_secs_f64()
                ));
                break 'fixpoint;
            }
            let changed = m.step(game, *p, iteration)?;
            seen_version[i] = (!changed).then(|| game.generation());
            changed_any |= changed;
        }
        any_change |= changed_any;
        if !changed_any {
            break;
        }
    }
    m.report.iterations = iteration;
    if any_change {
        let dropped = drop_node_pragmas(game);
        if dropped > 0 {
            m.report.warnings.push(format!(
                "dropped {dropped} pragma(s) that describe nodes of the changed automaton"
            ));
        }
    }
    for p in of_phase(PassPhase::Final) {
        m.step(game, p, iteration + 1)?;
    }
    game.compact();
    Ok(m.report)
}

struct Manager<'a> {
    opts: &'a Options,
    report: PassReport,
    hook: &'a mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
    /// The statistics of the game at a generation: most pass runs change nothing, and counting
    /// a large game twice per run cost more than several passes (racer.kif: 0.7 s).
    stats: Option<(u64, GameStats)>,
}

impl Manager<'_> {
    /// [`GameStats::of`] the game, counted again only when it changed since the last call.
    fn stats(&mut self, game: &Game) -> GameStats {
        match self.stats {
            Some((generation, s)) if generation == game.generation() => s,
            _ => {
                let s = GameStats::of(game);
                self.stats = Some((game.generation(), s));
                s
            }
        }
    }

    fn record_validation(
        &mut self,
        iteration: usize,
        phase: PassPhase,
        duration: Duration,
        stats: GameStats,
        result: Option<String>,
    ) {
        self.report.records.push(TraceRecord {
            seq: self.report.records.len() + 1,
            iteration,
            pass: VALIDATE,
            phase,
            changed: false,
            duration,
            before: stats,
            after: stats,
            validation: Some(result.map_or(Ok(()), Err)),
            game_after: None,
            warnings: Vec::new(),
        });
    }

    /// Runs one pass and records it; validates and calls the hook when it changed the game.
    fn step(
        &mut self,
        game: &mut Game,
        pass: &'static dyn Pass,
        iteration: usize,
    ) -> Result<bool, PipelineError> {
        let opts = self.opts;
        let before_text = opts.validate_each.then(|| rg_core::print(game));
        let before = self.stats(game);
        let version = game.generation();
        let mut cx = PassContext::default();
        let t = Instant::now();
        let reported = pass.run(game, &mut cx)?;
        let duration = t.elapsed();
        let after = self.stats(game);
        let mut changed = reported && game.generation() != version;
        if reported && !changed {
            cx.warnings.push(format!(
                "{} reported a change but modified nothing",
                pass.name()
            ));
        }
        let mut after_text = None;
        if let Some(before_text) = &before_text
            && game.generation() != version
        {
            let text = rg_core::print(game);
            let differs = &text != before_text;
            if differs != changed {
                cx.warnings.push(format!(
                    "{} reported changed = {reported} but the game is {}",
                    pass.name(),
                    if differs { "different" } else { "unchanged" }
                ));
            }
            changed = differs;
            after_text = Some(text);
        }
        self.report.warnings.extend(cx.warnings.iter().cloned());
        self.report.records.push(TraceRecord {
            seq: self.report.records.len() + 1,
            iteration,
            pass: pass.name(),
            phase: pass.phase(),
            changed,
            duration,
            before,
            after,
            validation: None,
            game_after: (changed && opts.keep_snapshots)
                .then(|| after_text.clone().unwrap_or_else(|| rg_core::print(game))),
            warnings: cx.warnings,
        });
        if !changed {
            return Ok(false);
        }
        let texts = |game: &Game, after_text: Option<String>| {
            (
                before_text.clone().unwrap_or_default(),
                after_text.unwrap_or_else(|| rg_core::print(game)),
            )
        };
        if opts.validate_each {
            let t = Instant::now();
            let result = validation_errors(game);
            self.record_validation(iteration, pass.phase(), t.elapsed(), after, result.clone());
            if let Some(message) = result {
                let (before, after) = texts(game, after_text);
                return Err(PipelineError::Invalid {
                    pass: pass.name(),
                    message,
                    before,
                    after,
                    report: Box::new(std::mem::take(&mut self.report)),
                });
            }
        }
        if let Err(message) = (self.hook)(game, pass.name()) {
            let (before, after) = texts(game, after_text);
            return Err(PipelineError::Hook {
                pass: pass.name(),
                message,
                before,
                after,
                report: Box::new(std::mem::take(&mut self.report)),
            });
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::meta;

    /// A broken pass: deletes every variable (the game no longer validates).
    struct Breaker;

    impl Pass for Breaker {
        meta!("breaker", "deletes every variable", Safe, Loop, Prune);
        fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
            g.variables.clear();
            g.touch();
            Ok(true)
        }
    }

    /// A pass that claims a change it did not make.
    struct Liar;

    impl Pass for Liar {
        meta!("liar", "claims a change", Safe, Loop, Prune);
        fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
            g.touch();
            Ok(true)
        }
    }

    fn game() -> Game {
        let mut g = rg_core::parse(
            rg_core::FileId(0),
            "type Player = { x }; type Score = { 0 }; var v: Player = x;\n\
             begin, a: v == x; a, end: player = keeper;",
        )
        .expect("parses");
        setup(&mut g).expect("builtins");
        g
    }

    fn validating() -> Options {
        Options {
            validate_each: true,
            ..Options::default()
        }
    }

    fn manager<'a>(
        opts: &'a Options,
        hook: &'a mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
    ) -> Manager<'a> {
        Manager {
            opts,
            report: PassReport::default(),
            hook,
            stats: None,
        }
    }

    #[test]
    fn an_invalid_game_names_the_pass_and_keeps_the_game_before_and_after() {
        let opts = validating();
        let mut hook = |_: &Game, _: &'static str| Ok(());
        let mut m = manager(&opts, &mut hook);
        let mut g = game();
        let e = m.step(&mut g, &Breaker, 1).expect_err("invalid");
        assert!(
            e.to_string()
                .starts_with("pass breaker produced an invalid game: ")
        );
        let PipelineError::Invalid { before, after, .. } = e else {
            panic!("{e}")
        };
        assert!(before.contains("var v: Player = x;"));
        assert!(!after.contains("var v"));
    }

    #[test]
    fn a_claimed_change_that_changes_nothing_is_no_change_and_a_warning() {
        let opts = validating();
        let mut hook = |_: &Game, _: &'static str| Ok(());
        let mut m = manager(&opts, &mut hook);
        let mut g = game();
        assert!(!m.step(&mut g, &Liar, 1).expect("runs"));
        let r = &m.report.records[0];
        assert!(!r.changed);
        assert_eq!(
            r.warnings,
            ["liar reported changed = true but the game is unchanged"]
        );
    }
}
