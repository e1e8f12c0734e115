//! `rgt opt`: optimise a game with a chosen pipeline and show what every pass did.

use crate::cmd::translate::Emit;
use crate::io::{output_target, write_game};
use crate::pipeline::{GameArgs, load_unoptimised, pass_failure};
use crate::report::{Failure, Session};
use rg_passes::{Options, PassReport, Pipeline, PipelineError, Schedule, TraceRecord};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// How much of the trace to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceMode {
    /// One line per pass run, the RG after every changing pass, and the summary.
    Full,
    /// One line per pass run and the summary.
    Lines,
    /// Only the summary table.
    Summary,
    /// One JSON object per pass run (RG snapshots included).
    Json,
}

/// How loop passes are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleArg {
    /// After a pass changes the game, start again with the first pass (the reference's order).
    Restart,
    /// Run every pass once per sweep, and the passes that changed the game alone until they
    /// settle; repeat until a sweep changes nothing (the default).
    Sweep,
}

/// Optimise a game and print it; with --trace, show every pass on standard error.
///
/// The game is translated and checked as by `translate -O0` (this adds the built-in definitions:
/// the setup pass `add_builtins`), then the passes of the chosen pipeline run to a fixed point
/// (by default those of the -O level, -O2 unless given) and the final passes run once. The trace
/// has one line per pass or validator run — sequence number, loop iteration, pass, whether it
/// changed the game, time, and nodes/edges/variables before→after — and a summary per pass.
/// When a pass produces an invalid game, or changes the perft counts with --check-perft, the
/// game before and after that pass is printed on standard error.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Write the optimised game here (`-` = standard output, the default).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Emit::Rg)]
    pub emit: Emit,

    /// Print the trace on standard error (`--trace` alone means `full`).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "full")]
    pub trace: Option<TraceMode>,

    /// Write NNN-<pass>.rg and NNN-<pass>.dot for every changing pass, and trace.jsonl, here.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub trace_dir: Option<PathBuf>,

    /// Pipelines to run (comma-separated, repeatable; their union): none, safe, reference,
    /// pragmas, compiler. Replaces the passes of the -O level.
    #[arg(long, value_name = "NAMES", value_delimiter = ',', value_parser = pipeline_names())]
    pub pipeline: Vec<String>,

    /// Enable one more pass (repeatable; a name listed by `rgt passes`, e.g. inline_assignment;
    /// inline-assignment is accepted too).
    #[arg(long = "pass", value_name = "PASS", value_parser = pass_names(), hide_possible_values = true)]
    pub passes: Vec<String>,

    /// Disable a pass (repeatable).
    #[arg(long = "no-pass", value_name = "PASS", value_parser = pass_names(), hide_possible_values = true)]
    pub no_passes: Vec<String>,

    /// Allow passes that may change the game (reorder_conditions; in `reference`, `compiler`).
    #[arg(long)]
    pub allow_unsafe: bool,

    /// Validate the game after every changing pass (always on with --trace and --check-perft).
    #[arg(long)]
    pub validate: bool,

    /// Stop at the first pass that changes the perft counts up to this depth.
    #[arg(long, value_name = "D")]
    pub check_perft: Option<usize>,

    /// Stop looking for a fixed point after this many loop iterations (the game stays valid).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_iterations: usize,

    /// Stop looking for a fixed point after this many seconds (the final passes still run).
    #[arg(long, value_name = "SECS")]
    pub time_limit: Option<f64>,

    /// How loop passes are scheduled.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Sweep)]
    pub schedule: ScheduleArg,
}

/// `--pass` and `--no-pass`: a pass name of the registry (snake_case, as `rgt passes` lists
/// them; kebab-case accepted). An unknown name is refused with the closest known one, not the
/// list of all; the names are offered to shell completion.
fn pass_names() -> PassName {
    PassName
}

/// The value parser of pass names.
#[derive(Clone, Copy, Debug)]
struct PassName;

impl clap::builder::TypedValueParser for PassName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        let text = value.to_string_lossy();
        if let Some(pass) = rg_passes::find(&text) {
            return Ok(pass.name().to_owned());
        }
        let mut err = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
        if let Some(arg) = arg {
            err.insert(
                ContextKind::InvalidArg,
                ContextValue::String(arg.to_string()),
            );
        }
        err.insert(
            ContextKind::InvalidValue,
            ContextValue::String(text.clone().into_owned()),
        );
        let names = rg_passes::registry().iter().map(|p| p.name());
        let suggestion = match rg_core::suggest::closest(&text.replace('-', "_"), names) {
            Some(close) => format!("a pass with a similar name exists: '{close}'"),
            None => "`rgt passes` lists the passes".to_owned(),
        };
        err.insert(
            ContextKind::Suggested,
            ContextValue::StyledStrs(vec![suggestion.into()]),
        );
        Err(err)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            rg_passes::registry()
                .iter()
                .map(|p| clap::builder::PossibleValue::new(p.name())),
        ))
    }
}

/// The named pipelines.
fn pipeline_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Pipeline::NAMES.iter().copied())
}

/// The pipeline chosen by the command line.
pub fn pipeline_of(args: &Args) -> Result<Pipeline, Failure> {
    let mut p = if args.pipeline.is_empty() {
        args.game.opt.pipeline()
    } else {
        let mut acc = Pipeline::default();
        for name in &args.pipeline {
            let named = Pipeline::named(name).ok_or_else(|| {
                Failure::Usage(format!(
                    "unknown pipeline `{name}` (known: {})",
                    Pipeline::NAMES.join(", ")
                ))
            })?;
            acc = acc.union(&named);
        }
        acc
    };
    let lookup = |name: &str| {
        rg_passes::find(name).ok_or_else(|| {
            let known: Vec<&str> = rg_passes::registry().iter().map(|p| p.name()).collect();
            let snake = name.replace('-', "_");
            Failure::Usage(
                match rg_core::suggest::closest(&snake, known.iter().copied()) {
                    Some(close) => format!("unknown pass `{name}`: did you mean `{close}`?"),
                    None => format!("unknown pass `{name}` (`rgt passes` lists them)"),
                },
            )
        })
    };
    for name in &args.passes {
        p.add(lookup(name)?.name());
    }
    for name in &args.no_passes {
        let pass = lookup(name)?;
        if pass.phase() == rg_passes::PassPhase::Setup {
            return Err(Failure::Usage(format!(
                "pass `{}` cannot be disabled: every game is loaded with the built-in definitions",
                pass.name()
            )));
        }
        p.remove(pass.name());
    }
    let risky: Vec<String> = p
        .unsafe_passes()
        .iter()
        .map(|x| x.name().to_owned())
        .collect();
    if !args.allow_unsafe && !risky.is_empty() {
        return Err(Failure::Usage(format!(
            "pass(es) {} may change the game; add --allow-unsafe to run them",
            risky.join(", ")
        )));
    }
    Ok(p)
}

/// Runs `rgt opt`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let pipeline = pipeline_of(&args)?;
    if args
        .time_limit
        .is_some_and(|t| !(t.is_finite() && t >= 0.0))
    {
        return Err(Failure::Usage(
            "--time-limit needs a number of seconds (0 or more)".into(),
        ));
    }
    let (mut game, mut setup) = load_unoptimised(session, &args.game)?;
    let tracing = args.trace.is_some() || args.trace_dir.is_some();
    // Only the full and JSON traces and the trace directory show the RG after each step.
    let snapshots =
        matches!(args.trace, Some(TraceMode::Full | TraceMode::Json)) || args.trace_dir.is_some();
    if snapshots && setup.changed {
        setup.game_after = Some(rg_core::print(&game));
    }
    let opts = Options {
        validate_each: args.validate
            || tracing
            || args.check_perft.is_some()
            || cfg!(debug_assertions),
        validators: rg_validate::REFERENCE_VALIDATORS,
        keep_snapshots: snapshots,
        max_iterations: args.max_iterations,
        time_limit: args.time_limit.map(std::time::Duration::from_secs_f64),
        schedule: match args.schedule {
            ScheduleArg::Restart => Schedule::Restart,
            ScheduleArg::Sweep => Schedule::Sweep,
        },
    };
    let mut reference = None;
    if let Some(d) = args.check_perft {
        reference = Some(perft(&game, d).map_err(|e| Failure::Usage(format!("perft: {e}")))?);
    }
    let mut hook = |g: &rg_core::Game, pass: &'static str| -> Result<(), String> {
        let (Some(d), Some(want)) = (args.check_perft, reference.as_ref()) else {
            return Ok(());
        };
        let got = perft(g, d)?;
        if &got == want {
            Ok(())
        } else {
            Err(format!(
                "{pass} changed perft counts from {want:?} to {got:?}"
            ))
        }
    };
    let mut sink = TraceSink::new(args.trace, args.trace_dir.as_deref())?;
    sink.emit(&setup, setup.seq);
    setup.game_after = None;
    let t = std::time::Instant::now();
    let result = {
        // The setup step ran while loading: the pipeline's records come after it.
        let streams = sink.streams();
        let mut observer = |r: &TraceRecord| sink.emit(r, r.seq + 1);
        let observer: Option<&mut dyn FnMut(&TraceRecord)> =
            streams.then_some(&mut observer as &mut dyn FnMut(&TraceRecord));
        rg_passes::run_observed(&mut game, &pipeline, &opts, &mut hook, observer)
    };
    let total = t.elapsed();
    let mut report = match result {
        Ok(r) => r,
        Err(e) => {
            let mut err = String::new();
            if let Some(mode) = args.trace
                && let Some(r) = e.report()
            {
                let mut r = r.clone();
                r.prepend(setup);
                err.push_str(&render_summary(&r, mode, total));
            }
            if let PipelineError::Invalid {
                pass,
                before,
                after,
                ..
            }
            | PipelineError::Hook {
                pass,
                before,
                after,
                ..
            } = &e
            {
                let _ = write!(
                    err,
                    "--- rg before {pass} ---\n{before}--- rg after {pass} ---\n{after}--- end ---\n"
                );
            }
            let _ = std::io::stderr().lock().write_all(err.as_bytes());
            // The pass's failure is the one to report; the trace directory has what was written.
            let _ = sink.finish();
            return Err(pass_failure(e));
        }
    };
    report.prepend(setup);
    if let Some(mode) = args.trace {
        let _ = std::io::stderr()
            .lock()
            .write_all(render_summary(&report, mode, total).as_bytes());
    }
    sink.finish()?;
    let target = output_target(args.output.as_deref());
    write_game(
        target.as_deref(),
        Some(&args.game.input),
        args.emit.emitter(),
        &game,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn perft(g: &rg_core::Game, depth: usize) -> Result<Vec<u64>, String> {
    let p = rg_interp::Program::new(g, rg_interp::CompileOptions::default())
        .map_err(|e| e.to_string())?;
    let mut m = rg_interp::Machine::new(&p);
    let s = m.initial();
    (0..=depth)
        .map(|d| m.perft(&s, d).map_err(|e| e.to_string()))
        .collect()
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn record_line(r: &TraceRecord, seq: usize) -> String {
    let mut line = format!(
        "trace {:>4} {:>4} {:<30} {:>3} {:>8.2}ms",
        seq,
        r.iteration,
        r.pass,
        match &r.validation {
            Some(Ok(())) => "ok",
            Some(Err(_)) => "err",
            None if r.changed => "yes",
            None => "no",
        },
        ms(r.duration)
    );
    if r.changed {
        let arrow = |a: usize, b: usize| format!("{a}→{b}");
        let (n, e) = (
            arrow(r.before.nodes, r.after.nodes),
            arrow(r.before.edges, r.after.edges),
        );
        let _ = write!(
            line,
            "   {n:<10} {e:<10} {}",
            arrow(r.before.variables, r.after.variables)
        );
    }
    line.push('\n');
    if let Some(Err(e)) = &r.validation {
        let _ = writeln!(line, "trace      validation failed: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(line, "trace      warning: {w}");
    }
    line
}

/// Where the trace records go as the passes run: lines (and RG snapshots) or JSON objects on
/// standard error, and files in the trace directory. Nothing is kept: a snapshot of a large
/// translation is tens of megabytes, and such a game sees a hundred changing passes.
struct TraceSink {
    mode: Option<TraceMode>,
    dir: Option<PathBuf>,
    jsonl: Option<std::io::BufWriter<std::fs::File>>,
    /// The first failure to write into the trace directory (writing stops there).
    failure: Option<Failure>,
}

impl TraceSink {
    fn new(mode: Option<TraceMode>, dir: Option<&std::path::Path>) -> Result<Self, Failure> {
        let mut jsonl = None;
        if let Some(dir) = dir {
            let io = |e: std::io::Error| Failure::Io(format!("{}: {e}", dir.display()));
            std::fs::create_dir_all(dir).map_err(io)?;
            let file = std::fs::File::create(dir.join("trace.jsonl")).map_err(io)?;
            jsonl = Some(std::io::BufWriter::new(file));
        }
        if matches!(mode, Some(TraceMode::Full | TraceMode::Lines)) {
            let _ = writeln!(
                std::io::stderr().lock(),
                "trace  seq iter pass                           chg     time   nodes      edges      vars"
            );
        }
        Ok(TraceSink {
            mode,
            dir: dir.map(std::path::Path::to_path_buf),
            jsonl,
            failure: None,
        })
    }

    /// Whether the records are shown as they come (all traces but the summary).
    fn streams(&self) -> bool {
        self.dir.is_some() || matches!(self.mode, Some(m) if m != TraceMode::Summary)
    }

    /// Shows `r`, numbered `seq`.
    fn emit(&mut self, r: &TraceRecord, seq: usize) {
        let text = match self.mode {
            Some(TraceMode::Json) => Some(format!("{}\n", record_json(r, seq))),
            Some(mode @ (TraceMode::Full | TraceMode::Lines)) => {
                let mut out = record_line(r, seq);
                if mode == TraceMode::Full
                    && let Some(text) = &r.game_after
                {
                    let _ = write!(
                        out,
                        "--- rg after #{seq} {} (iteration {}) ---\n{text}--- end ---\n",
                        r.pass, r.iteration
                    );
                }
                Some(out)
            }
            Some(TraceMode::Summary) | None => None,
        };
        if let Some(text) = text {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
        if self.failure.is_none()
            && let Some(dir) = &self.dir
            && let Err(e) = write_trace_files(dir, self.jsonl.as_mut(), r, seq)
        {
            self.failure = Some(e);
        }
    }

    /// Flushes the trace directory's `trace.jsonl`; reports the first failure to write there.
    fn finish(mut self) -> Result<(), Failure> {
        if let Some(e) = self.failure.take() {
            return Err(e);
        }
        if let (Some(dir), Some(jsonl)) = (&self.dir, self.jsonl.as_mut()) {
            jsonl
                .flush()
                .map_err(|e| Failure::Io(format!("{}: {e}", dir.display())))?;
        }
        Ok(())
    }
}

/// The summary table per pass (and, for the JSON trace, nothing: its records were the output).
fn render_summary(report: &PassReport, mode: TraceMode, total: std::time::Duration) -> String {
    let mut out = String::new();
    if mode == TraceMode::Json {
        return out;
    }
    // Summary per pass, by total time.
    let mut per: Vec<(&str, usize, usize, f64)> = Vec::new();
    for r in &report.records {
        match per.iter_mut().find(|p| p.0 == r.pass) {
            Some(p) => {
                p.1 += 1;
                p.2 += usize::from(r.changed);
                p.3 += ms(r.duration);
            }
            None => per.push((r.pass, 1, usize::from(r.changed), ms(r.duration))),
        }
    }
    per.sort_by(|a, b| b.3.total_cmp(&a.3).then(a.0.cmp(b.0)));
    let sum: f64 = per.iter().map(|p| p.3).sum();
    let _ = writeln!(
        out,
        "summary  {:<30} {:>5} {:>8} {:>10} {:>7}",
        "pass", "runs", "changed", "total ms", "share"
    );
    for (name, runs, changed, t) in &per {
        let share = if sum > 0.0 { 100.0 * t / sum } else { 0.0 };
        let _ = writeln!(
            out,
            "summary  {name:<30} {runs:>5} {changed:>8} {t:>10.2} {share:>6.1}%"
        );
    }
    let (first, last) = (report.records.first(), report.records.last());
    if let (Some(f), Some(l)) = (first, last) {
        let _ = writeln!(
            out,
            "summary  iterations {}, total {:.2} ms, nodes {}→{}, edges {}→{}, variables {}→{}",
            report.iterations,
            ms(total),
            f.before.nodes,
            l.after.nodes,
            f.before.edges,
            l.after.edges,
            f.before.variables,
            l.after.variables
        );
    } else {
        let _ = writeln!(out, "summary  no pass ran");
    }
    for w in &report.warnings {
        let _ = writeln!(out, "warning  {w}");
    }
    out
}

fn record_json(r: &TraceRecord, seq: usize) -> serde_json::Value {
    let stats = |s: &rg_core::GameStats| {
        serde_json::json!({"nodes": s.nodes, "edges": s.edges, "variables": s.variables,
            "constants": s.constants, "types": s.types})
    };
    serde_json::json!({
        "seq": seq,
        "iteration": r.iteration,
        "pass": r.pass,
        "phase": format!("{:?}", r.phase).to_lowercase(),
        "changed": r.changed,
        "ms": ms(r.duration),
        "before": stats(&r.before),
        "after": stats(&r.after),
        "validation": r.validation.as_ref().map(|v| v.clone().err().unwrap_or_else(|| "ok".into())),
        "game_after": r.game_after,
        "warnings": r.warnings,
    })
}

/// Writes `r` (numbered `seq`) into the trace directory: a line of `trace.jsonl`, and for a
/// changing pass its RG and DOT.
fn write_trace_files(
    dir: &std::path::Path,
    jsonl: Option<&mut std::io::BufWriter<std::fs::File>>,
    r: &TraceRecord,
    seq: usize,
) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::Io(format!("{}: {e}", dir.display()));
    if let Some(jsonl) = jsonl {
        writeln!(jsonl, "{}", record_json(r, seq)).map_err(io)?;
    }
    if let Some(text) = &r.game_after {
        let stem = format!("{seq:03}-{}", r.pass);
        std::fs::write(dir.join(format!("{stem}.rg")), text).map_err(io)?;
        let game = rg_core::parse(rg_core::FileId(0), text).map_err(|_| {
            Failure::Io(format!("internal: the RG after {} does not parse", r.pass))
        })?;
        let dot = rg_fmt::emit_to_string(&rg_fmt::dot::DotEmitter, &game);
        std::fs::write(dir.join(format!("{stem}.dot")), dot).map_err(io)?;
    }
    Ok(())
}
