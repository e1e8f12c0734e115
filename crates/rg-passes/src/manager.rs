//! The pass manager (passes.md §5.3): loop passes to a fixed point in restart mode, then the
//! final passes; validation after every changing pass when asked; one trace record per pass
//! invocation.

use crate::{Pass, PassContext, PassError, PassPhase, Pipeline};
use rg_core::{Game, GameStats, PragmaKind, Severity};
use std::time::{Duration, Instant};

/// How to run a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Run the cheap validators after every changing pass (always on in debug builds).
    pub validate_each: bool,
    /// Keep the RG text after every changing pass in the trace.
    pub keep_snapshots: bool,
    /// Stop the loop after this many iterations (the game stays valid; a warning is recorded).
    pub max_iterations: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            validate_each: cfg!(debug_assertions),
            keep_snapshots: false,
            max_iterations: 10_000,
        }
    }
}

/// One pass (or validation) invocation.
#[derive(Clone, Debug)]
pub struct TraceRecord {
    pub seq: usize,
    /// Loop iteration: 0 for setup, last + 1 for the final phase.
    pub iteration: usize,
    pub pass: &'static str,
    pub phase: PassPhase,
    pub changed: bool,
    pub duration: Duration,
    pub before: GameStats,
    pub after: GameStats,
    /// `Some(Ok)` for a validation that passed.
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

/// Why a pipeline stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Pass(#[from] PassError),
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
        report: Box<PassReport>,
    },
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

/// Runs the enabled passes of `pipeline` on a checked game. `hook` is called after every
/// changing pass (e.g. to compare perft counts); an `Err` stops the pipeline.
pub fn run(
    game: &mut Game,
    pipeline: &Pipeline,
    opts: &Options,
    hook: &mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
) -> Result<PassReport, PipelineError> {
    let mut report = PassReport::default();
    let passes = pipeline.passes();
    let loop_passes: Vec<&dyn Pass> = passes
        .iter()
        .copied()
        .filter(|p| p.phase() == PassPhase::Loop)
        .collect();
    let final_passes: Vec<&dyn Pass> = passes
        .iter()
        .copied()
        .filter(|p| p.phase() == PassPhase::Final)
        .collect();
    let mut any_change = false;
    let mut iteration = 0;
    loop {
        iteration += 1;
        if iteration > opts.max_iterations {
            report.warnings.push(format!(
                "no fixed point after {} iterations; keeping the current game",
                opts.max_iterations
            ));
            break;
        }
        let mut changed_any = false;
        for p in &loop_passes {
            if changed_any {
                break;
            }
            let changed = step(game, *p, iteration, opts, &mut report, hook)?;
            changed_any |= changed;
        }
        any_change |= changed_any;
        if !changed_any {
            break;
        }
    }
    report.iterations = iteration;
    if any_change {
        let dropped = drop_node_pragmas(game);
        if dropped > 0 {
            report.warnings.push(format!(
                "dropped {dropped} pragma(s) that describe nodes of the changed automaton"
            ));
        }
    }
    for p in &final_passes {
        step(game, *p, iteration + 1, opts, &mut report, hook)?;
    }
    game.compact();
    Ok(report)
}

fn step(
    game: &mut Game,
    pass: &'static dyn Pass,
    iteration: usize,
    opts: &Options,
    report: &mut PassReport,
    hook: &mut dyn FnMut(&Game, &'static str) -> Result<(), String>,
) -> Result<bool, PipelineError> {
    let before_text = opts.validate_each.then(|| rg_core::print(game));
    let before = GameStats::of(game);
    let mut cx = PassContext::default();
    let t = Instant::now();
    let changed = pass.run(game, &mut cx)?;
    let duration = t.elapsed();
    let after = GameStats::of(game);
    let mut validation = None;
    if changed && opts.validate_each {
        if let Some(message) = validation_errors(game) {
            return Err(PipelineError::Invalid {
                pass: pass.name(),
                message,
                before: before_text.unwrap_or_default(),
                after: rg_core::print(game),
                report: Box::new(std::mem::take(report)),
            });
        }
        validation = Some(Ok(()));
    }
    if changed && let Err(message) = hook(game, pass.name()) {
        return Err(PipelineError::Hook {
            pass: pass.name(),
            message,
            report: Box::new(std::mem::take(report)),
        });
    }
    report.warnings.extend(cx.warnings.iter().cloned());
    report.records.push(TraceRecord {
        seq: report.records.len() + 1,
        iteration,
        pass: pass.name(),
        phase: pass.phase(),
        changed,
        duration,
        before,
        after,
        validation,
        game_after: (changed && opts.keep_snapshots).then(|| rg_core::print(game)),
        warnings: cx.warnings,
    });
    Ok(changed)
}
