//! The pass manager: the setup passes on a game that is not set up yet, then
//! the loop passes to a fixed point (restart or sweep scheduling, iteration and time limits),
//! then the final passes once; validation after every changing pass when asked; one trace
//! record per pass or validator invocation.
//!
//! Change detection has one source of truth: the game's generation ([`Game::generation`]),
//! which every mutation of the game changes and a write of something equal to what is there
//! does not. A pass changed the game exactly when the generation differs after it. A pass also
//! returns whether it changed the game; debug builds assert that the two agree, and release
//! builds follow the generation and note a disagreement in the trace.
//!
//! Validators are the caller's ([`Options::validators`], usually rg-validate's reference set):
//! the pass manager depends on rg-core's [`Validator`] trait only. A game they reject after a
//! pass is reported with the printed game annotated in place ([`rg_core::annotate`]).

use crate::{Pass, PassContext, PassError, PassPhase, Pipeline};
use rg_core::{Game, GameStats, Phase, PragmaKind, Severity, Validator, Violation};
use std::time::{Duration, Instant};

/// How loop passes are scheduled: the order in which they run until none changes the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// After the first pass that changes the game, start again with the first loop pass (the
    /// reference's order of rewrites).
    Restart,
    /// Run every enabled loop pass once per sweep, repeat sweeps until one changes nothing; a
    /// pass that already ran on the current game version is not run again. After an iteration
    /// in which only some passes changed the game, the next iteration runs only those, until
    /// one changes nothing; then a whole sweep runs again. The default: on the largest corpus
    /// games it reaches the same or smaller games several times faster than `Restart`, which
    /// re-runs the cheap early passes after every change.
    #[default]
    Sweep,
}

/// How to run a pipeline.
#[derive(Clone, Copy)]
pub struct Options {
    /// Run the validators after the setup passes and after every changing pass (on by default
    /// in debug builds).
    pub validate_each: bool,
    /// The validators to run (only their errors stop the pipeline). The caller supplies them
    /// (the CLI passes rg-validate's reference set); by default there are none, and
    /// `validate_each` then only keeps the game before each pass for error reports.
    pub validators: &'static [&'static dyn Validator],
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
            validators: &[],
            keep_snapshots: false,
            max_iterations: 10_000,
            time_limit: None,
            schedule: Schedule::Sweep,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let validators: Vec<&str> = self.validators.iter().map(|v| v.name()).collect();
        f.debug_struct("Options")
            .field("validate_each", &self.validate_each)
            .field("validators", &validators)
            .field("keep_snapshots", &self.keep_snapshots)
            .field("max_iterations", &self.max_iterations)
            .field("time_limit", &self.time_limit)
            .field("schedule", &self.schedule)
            .finish()
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
        /// The errors, `message (code)` joined by `; `.
        message: String,
        /// The errors, and the game with each under its line.
        rejection: Box<Rejection>,
        report: Box<PassReport>,
    },
    /// A pass produced a game the validators reject.
    #[error("pass {pass} produced an invalid game: {message}")]
    Invalid {
        pass: &'static str,
        /// The errors, `message (code)` joined by `; `.
        message: String,
        /// The errors, and the game after the pass with each under its line.
        rejection: Box<Rejection>,
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

/// What the validators rejected.
#[derive(Clone, Debug)]
pub struct Rejection {
    /// The errors found, in validator order.
    pub violations: Vec<Violation>,
    /// The printed game with each error under the line it concerns ([`rg_core::annotate`]).
    pub annotated: String,
}

impl Rejection {
    fn new(game: &Game, violations: Vec<Violation>) -> Box<Rejection> {
        Box::new(Rejection {
            annotated: rg_core::annotate(game, &violations),
            violations,
        })
    }
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

/// The errors the validators find in `game`, in validator order.
fn validation_errors(game: &Game, validators: &[&dyn Validator]) -> Vec<Violation> {
    let mut found = Vec::new();
    for v in validators {
        v.validate(game, &mut found);
    }
    found.retain(|v| v.severity == Severity::Error);
    found
}

/// The errors as one line: `message (code)` joined by `; `.
fn summary(errors: &[Violation]) -> String {
    let errors: Vec<String> = errors
        .iter()
        .map(|v| format!("{} ({})", v.message, v.code))
        .collect();
    errors.join("; ")
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
    before - game.pragmas.len()
}

/// The setup step for a game that callers check themselves (the CLI, which reports invalid input
/// with source spans): adds the built-in definitions (`add_builtins`, which reuses rg-core's step)
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
    run_observed(game, pipeline, opts, hook, None)
}

/// [`run`], handing every trace record to `observer` as soon as it is made. A record's RG
/// snapshot ([`Options::keep_snapshots`]) goes only to the observer: the returned report keeps
/// the statistics, so that memory does not grow with the number of passes (one snapshot of a
/// large GDL translation is tens of megabytes, and such a game sees a hundred changing passes).
pub fn run_observed<'a>(
    game: &mut Game,
    pipeline: &Pipeline,
    opts: &'a Options,
    hook: &'a mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
    observer: Option<&'a mut dyn FnMut(&TraceRecord)>,
) -> Result<PassReport, PipelineError> {
    let start = Instant::now();
    let mut m = Manager {
        opts,
        report: PassReport::default(),
        hook,
        observer,
        stats: None,
        cx: PassContext::default(),
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
            let errors = validation_errors(game, opts.validators);
            let stats = m.stats(game);
            let result = (!errors.is_empty()).then(|| summary(&errors));
            m.record_validation(0, PassPhase::Setup, t.elapsed(), stats, result.clone());
            if let Some(message) = result {
                return Err(PipelineError::InvalidInput {
                    message,
                    rejection: Rejection::new(game, errors),
                    report: Box::new(m.report),
                });
            }
        }
        game.phase = Phase::Ground;
    }
    let loop_passes = of_phase(PassPhase::Loop);
    let (iteration, any_change) = m.fixpoint(game, &loop_passes, start)?;
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
    observer: Option<&'a mut dyn FnMut(&TraceRecord)>,
    /// The statistics of the game at a generation: most pass runs change nothing, and counting
    /// a large game twice per run cost more than several passes (racer.kif: 0.7 s).
    stats: Option<(u64, GameStats)>,
    /// One context for the whole run, so that cached analyses outlive a pass that changed
    /// nothing.
    cx: PassContext,
}

impl Manager<'_> {
    /// Runs `loop_passes` to a fixed point (or a limit) as the schedule says; returns the
    /// number of iterations and whether any pass changed the game.
    fn fixpoint(
        &mut self,
        game: &mut Game,
        loop_passes: &[&'static dyn Pass],
        start: Instant,
    ) -> Result<(usize, bool), PipelineError> {
        // The game version after each pass's last run that changed nothing (sweep scheduling).
        let mut seen_version: Vec<Option<u64>> = vec![None; loop_passes.len()];
        let mut any_change = false;
        let mut iteration = 0;
        // Sweep scheduling: the loop passes the next iteration is limited to (see below).
        let mut focus: Option<Vec<usize>> = None;
        'fixpoint: loop {
            iteration += 1;
            if iteration > self.opts.max_iterations {
                self.report.warnings.push(format!(
                    "no fixed point after {} iterations; keeping the current game",
                    self.opts.max_iterations
                ));
                iteration -= 1;
                break;
            }
            // The loop passes this iteration runs: all of them, or (sweep scheduling, after an
            // iteration in which only some changed the game) only those.
            let focused = focus.is_some();
            let members: Vec<usize> = focus
                .take()
                .unwrap_or_else(|| (0..loop_passes.len()).collect());
            let mut changed_passes: Vec<usize> = Vec::new();
            for i in members {
                if !changed_passes.is_empty() && self.opts.schedule == Schedule::Restart {
                    break;
                }
                if seen_version[i] == Some(game.generation()) {
                    continue;
                }
                if let Some(limit) = self.opts.time_limit
                    && start.elapsed() > limit
                {
                    self.report.warnings.push(format!(
                        "time limit of {:.3} s reached in iteration {iteration}; keeping the current game",
                        limit.as_secs_f64()
                    ));
                    break 'fixpoint;
                }
                let changed = self.step(game, loop_passes[i], iteration)?;
                seen_version[i] = (!changed).then(|| game.generation());
                if changed {
                    changed_passes.push(i);
                }
            }
            any_change |= !changed_passes.is_empty();
            match (self.opts.schedule, focused) {
                // A fixed point needs a whole sweep that changes nothing.
                (_, false) if changed_passes.is_empty() => break,
                // The focused passes settled: a whole sweep looks at the game again.
                (_, true) if changed_passes.is_empty() => {}
                // Repeat the passes that changed the game, alone, until they settle: on large games
                // the same two or three passes often enable each other for many rounds (a shared
                // prefix joined one level per round on amazons.kif), and sweeping all the others in
                // each round costs several times their work.
                (Schedule::Sweep, _) if changed_passes.len() < loop_passes.len() => {
                    focus = Some(changed_passes);
                }
                _ => {}
            }
        }
        Ok((iteration, any_change))
    }

    /// Hands `record` to the observer, if any (the snapshot stays with it), and keeps it.
    fn push(&mut self, mut record: TraceRecord) {
        if let Some(observe) = self.observer.as_mut() {
            observe(&record);
            record.game_after = None;
        }
        self.report.records.push(record);
    }

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
        self.push(TraceRecord {
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
        let t = Instant::now();
        let reported = pass.run(game, &mut self.cx)?;
        let mut warnings = std::mem::take(&mut self.cx.warnings);
        let duration = t.elapsed();
        let after = self.stats(game);
        let changed = game.generation() != version;
        debug_assert!(
            reported == changed,
            "{} returned changed = {reported} but the game's generation says {changed}",
            pass.name()
        );
        if reported != changed {
            warnings.push(format!(
                "{} reported changed = {reported} but the game is {}",
                pass.name(),
                if changed { "different" } else { "unchanged" }
            ));
        }
        let after_text = (changed && opts.keep_snapshots).then(|| rg_core::print(game));
        self.report.warnings.extend(warnings.iter().cloned());
        self.push(TraceRecord {
            seq: self.report.records.len() + 1,
            iteration,
            pass: pass.name(),
            phase: pass.phase(),
            changed,
            duration,
            before,
            after,
            validation: None,
            game_after: after_text.clone(),
            warnings,
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
            let errors = validation_errors(game, opts.validators);
            let result = (!errors.is_empty()).then(|| summary(&errors));
            self.record_validation(iteration, pass.phase(), t.elapsed(), after, result.clone());
            if let Some(message) = result {
                let (before, after) = texts(game, after_text);
                return Err(PipelineError::Invalid {
                    pass: pass.name(),
                    message,
                    rejection: Rejection::new(game, errors),
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
            Ok(true)
        }
    }

    /// A pass that claims a change it did not make.
    struct Liar;

    impl Pass for Liar {
        meta!("liar", "claims a change", Safe, Loop, Prune);
        fn run(&self, _g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
            Ok(true)
        }
    }

    /// A validator for these tests: every comparison must read a declared variable.
    struct Declared;

    impl Validator for Declared {
        fn name(&self) -> &'static str {
            "declared"
        }
        fn cost(&self) -> rg_core::Cost {
            rg_core::Cost::Linear
        }
        fn validate(&self, g: &Game, out: &mut Vec<Violation>) {
            for (e, d) in g.edges() {
                if let rg_core::Label::Compare { lhs, .. } = d.label
                    && g.variable(g.expr_root(lhs)).is_none()
                {
                    out.push(Violation {
                        validator: "declared",
                        code: "test::undeclared",
                        severity: Severity::Error,
                        at: rg_core::Location::Edge(e),
                        message: "reads an undeclared variable".into(),
                        help: None,
                        span: None,
                        labels: Vec::new(),
                    });
                }
            }
        }
    }

    /// A pass that changes the game on each of its first `n` runs (it adds a node), then
    /// never again.
    struct Ticker(std::sync::atomic::AtomicUsize);

    impl Pass for Ticker {
        meta!("ticker", "changes the game a few times", Safe, Loop, Prune);
        fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
            use std::sync::atomic::Ordering::SeqCst;
            let left = self.0.load(SeqCst);
            if left == 0 {
                return Ok(false);
            }
            self.0.store(left - 1, SeqCst);
            g.node_named(&format!("tick{left}"));
            Ok(true)
        }
    }

    /// A pass that changes nothing and counts its runs.
    struct Idle(std::sync::atomic::AtomicUsize);

    impl Pass for Idle {
        meta!("idle", "counts its runs", Safe, Loop, Prune);
        fn run(&self, _g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(false)
        }
    }

    /// Sweep scheduling repeats the passes that changed the game alone until they settle, and
    /// then sweeps once more: a pass that never changes anything runs twice (the first sweep
    /// and the final one), not once per change of the others.
    #[test]
    fn a_sweep_repeats_only_the_passes_that_changed() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        static IDLE: Idle = Idle(AtomicUsize::new(0));
        static TICKER: Ticker = Ticker(AtomicUsize::new(5));
        let opts = Options::default();
        let mut hook = |_: &Game, _: &'static str| Ok(());
        let mut m = manager(&opts, &mut hook);
        let mut g = game();
        let (iterations, changed) = m
            .fixpoint(&mut g, &[&IDLE, &TICKER], Instant::now())
            .expect("runs");
        assert!(changed);
        assert_eq!(TICKER.0.load(SeqCst), 0, "the ticker ran out of changes");
        assert_eq!(IDLE.0.load(SeqCst), 2, "{:#?}", m.report.records);
        // One whole sweep, four repeats of the ticker that change the game, one that does not,
        // and the final whole sweep, in which only the idle pass has something new to look at.
        assert_eq!(iterations, 7);
        let runs: Vec<(usize, &str)> = m
            .report
            .records
            .iter()
            .map(|r| (r.iteration, r.pass))
            .collect();
        assert_eq!(
            runs.iter().filter(|(_, p)| *p == "ticker").count(),
            6,
            "{runs:?}"
        );
        assert_eq!(runs.last(), Some(&(7, "idle")), "{runs:?}");
    }

    /// With an observer, every record reaches it as it is made, snapshot included, and the
    /// report keeps no snapshot: memory does not grow with the number of changing passes.
    #[test]
    fn an_observer_gets_the_snapshots_and_the_report_does_not_keep_them() {
        use std::sync::atomic::AtomicUsize;
        static TICKER: Ticker = Ticker(AtomicUsize::new(3));
        let opts = Options {
            keep_snapshots: true,
            ..Options::default()
        };
        let mut hook = |_: &Game, _: &'static str| Ok(());
        let mut m = manager(&opts, &mut hook);
        let mut seen: Vec<(usize, &'static str, bool)> = Vec::new();
        let mut observe = |r: &TraceRecord| seen.push((r.seq, r.pass, r.game_after.is_some()));
        m.observer = Some(&mut observe);
        let mut g = game();
        m.fixpoint(&mut g, &[&TICKER], Instant::now())
            .expect("runs");
        let records: Vec<(usize, &'static str, bool)> = m
            .report
            .records
            .iter()
            .map(|r| (r.seq, r.pass, r.game_after.is_some()))
            .collect();
        drop(m);
        assert_eq!(seen.iter().filter(|s| s.2).count(), 3, "{seen:?}");
        assert!(records.iter().all(|r| !r.2), "{records:?}");
        let strip = |v: &[(usize, &'static str, bool)]| -> Vec<(usize, &'static str)> {
            v.iter().map(|r| (r.0, r.1)).collect()
        };
        assert_eq!(strip(&seen), strip(&records));
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
            validators: &[&Declared],
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
            observer: None,
            stats: None,
            cx: PassContext::default(),
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
        let PipelineError::Invalid {
            before,
            after,
            rejection,
            ..
        } = e
        else {
            panic!("{e}")
        };
        assert!(before.contains("var v: Player = x;"));
        assert!(!after.contains("var v"));
        let annotated = &rejection.annotated;
        assert!(
            annotated.contains(
                "begin, a: v == x;\n// ^ error[test::undeclared]: reads an undeclared variable\n"
            ),
            "{annotated}"
        );
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        should_panic(
            expected = "liar returned changed = true but the game's generation says false"
        )
    )]
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
