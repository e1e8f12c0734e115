//! Library conversion: `rgt translate INPUT... --out-dir DIR` translates every game found under
//! the inputs, in parallel, each in its own worker process (see `supervise.rs` for why), and
//! reports per game and in total.

pub mod discover;
pub mod glob;
pub mod progress;
pub mod supervise;
pub mod worker;

use crate::cmd::translate::Output;
use crate::io::write_atomically;
use crate::lang::Lang;
use crate::report::{DiagRecord, Failure};
use discover::Job;
use progress::{Mode, Progress};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use supervise::Supervisor;

/// The options of library conversion (all need `--out-dir`).
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Library conversion (several INPUTs or directories)")]
pub struct BatchArgs {
    /// Translate every game of the INPUTs (files, or directories searched recursively for .rg
    /// .hrg .rbg .kif .gdl .lg) into DIR, keeping each game's path relative to its INPUT
    /// directory and taking the extension of --emit.
    #[arg(
        long,
        value_name = "DIR",
        value_hint = clap::ValueHint::DirPath,
        conflicts_with = "output"
    )]
    pub out_dir: Option<PathBuf>,

    /// Keep each INPUT's path (as written, without its root, `.` and `..`) in the output
    /// path: `rgt translate lib/hrg lib/rbg --out-dir out --preserve-paths` writes
    /// `lib/hrg/amazons.hrg` to `out/lib/hrg/amazons.rg` and `lib/rbg/amazons.rbg` to
    /// `out/lib/rbg/amazons.rg` (without it both would be `out/amazons.rg`).
    #[arg(long, requires = "out_dir")]
    pub preserve_paths: bool,

    /// Only take files of the searched directories matching PATTERN (repeatable: any may
    /// match). `*` `?` `[a-z]` `{kif,rbg}` match within a name, `**` across directories. A
    /// pattern without `/` is matched against the file name, one with `/` against the path
    /// relative to the INPUT directory. Files named explicitly are always taken.
    #[arg(long, value_name = "PATTERN", requires = "out_dir")]
    pub glob: Vec<String>,

    /// Games translated at the same time [default: the number of cores].
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_jobs, requires = "out_dir")]
    pub jobs: Option<NonZeroUsize>,

    /// Time limit per game, in seconds (0 = none). A game over it is stopped and reported as
    /// `timeout`; nothing is written for it.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 60.0,
        requires = "out_dir"
    )]
    pub timeout: f64,

    /// Resident memory limit per game, e.g. 512M or 2G (Linux). A game over it is stopped and
    /// reported as `memory-limit`; nothing is written for it. Sampled every 10 ms, so a very
    /// fast allocation may overshoot it briefly.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "out_dir")]
    pub max_memory: Option<u64>,

    /// Skip games whose output exists and is not older than their input (reported as
    /// `skipped`). Options such as --emit or -O are not compared.
    #[arg(long, requires = "out_dir")]
    pub skip_existing: bool,

    /// Write a JSON report to FILE: a summary and one record per game, ordered by path.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, requires = "out_dir")]
    pub report: Option<PathBuf>,

    /// Exit with status 0 even when games failed (the failures stay in the summary and report).
    #[arg(long, requires = "out_dir")]
    pub allow_failures: bool,

    /// No progress output: only the summary.
    #[arg(short = 'q', long, conflicts_with = "verbose", requires = "out_dir")]
    pub quiet: bool,

    /// One line per game (never a progress bar), with the diagnostics of failed games and all
    /// warnings.
    #[arg(short = 'v', long, requires = "out_dir")]
    pub verbose: bool,
}

/// Parses `--jobs`: a positive number of games.
fn parse_jobs(s: &str) -> Result<NonZeroUsize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) => NonZeroUsize::new(n).ok_or_else(|| {
            "at least one game must run at a time: give 1 or more (without -j, the number of cores)"
                .to_owned()
        }),
        Err(_) => Err(format!("`{s}` is not a number of games")),
    }
}

/// Parses `--max-memory`: bytes, or a number with K, M, G or T (powers of 1024; `KB`, `KiB`…
/// accepted).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 512M, 2G)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("`{s}`: unknown unit (use K, M, G or T)")),
    };
    let bytes = num * (1u64 << shift) as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("`{s}` is not a usable memory limit"));
    }
    Ok(bytes as u64)
}

/// Size statistics of a game (the fields of `rgt stats`, plus pragmas).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    pub nodes: usize,
    pub edges: usize,
    pub variables: usize,
    pub constants: usize,
    pub types: usize,
    pub reachability_checks: usize,
    pub tags: usize,
    pub pragmas: usize,
    pub state_bits: u64,
}

impl Stats {
    /// The statistics of `game`.
    pub fn of(game: &rg_core::Game) -> Self {
        let s = rg_core::GameStats::of(game);
        Stats {
            nodes: s.nodes,
            edges: s.edges,
            variables: s.variables,
            constants: s.constants,
            types: s.types,
            reachability_checks: s.reachability_checks,
            tags: s.tags,
            pragmas: s.pragmas,
            state_bits: s.state_bits,
        }
    }
}

/// What happened to one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Translated and written.
    Ok,
    /// The game has errors (or its output could not be written).
    Failed,
    /// Over `--timeout`.
    Timeout,
    /// Over `--max-memory`.
    MemoryLimit,
    /// rgt crashed on this game (a bug in rgt).
    InternalError,
    /// Up to date (`--skip-existing`).
    Skipped,
}

impl Status {
    const ALL: [Status; 6] = [
        Status::Ok,
        Status::Failed,
        Status::Timeout,
        Status::MemoryLimit,
        Status::InternalError,
        Status::Skipped,
    ];

    /// The name used in output and in the report.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Timeout => "timeout",
            Status::MemoryLimit => "memory-limit",
            Status::InternalError => "internal-error",
            Status::Skipped => "skipped",
        }
    }
}

/// The report record of one game.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GameRecord {
    /// The input file.
    pub path: String,
    /// The output file (written only when the status is `ok`).
    pub output: String,
    /// The input language.
    pub language: &'static str,
    pub status: Status,
    /// Wall-clock time of the game, worker start-up included.
    pub seconds: f64,
    /// Statistics after translation, before optimisation.
    pub stats_before: Option<Stats>,
    /// Statistics after optimisation (those of the output).
    pub stats_after: Option<Stats>,
    /// Peak resident memory of the worker (Linux).
    pub peak_rss_bytes: Option<u64>,
    /// Errors and warnings.
    pub diagnostics: Vec<DiagRecord>,
}

impl GameRecord {
    /// A record for `job`, not yet run.
    pub fn new(job: &Job) -> Self {
        GameRecord {
            path: job.input.display().to_string(),
            output: job.output.display().to_string(),
            language: job.lang.name(),
            status: Status::InternalError,
            seconds: 0.0,
            stats_before: None,
            stats_after: None,
            peak_rss_bytes: None,
            diagnostics: Vec::new(),
        }
    }

    /// Marks the record as an internal error.
    pub fn internal(mut self, start: Instant, message: String) -> Self {
        self.status = Status::InternalError;
        self.seconds = start.elapsed().as_secs_f64();
        self.diagnostics
            .push(worker::plain_record("rgt::internal", &message));
        self
    }
}

/// Runs library conversion.
pub fn run(
    inputs: &[String],
    game: &crate::pipeline::GameArgs,
    emit: Output,
    out_dir: &Path,
    args: &BatchArgs,
) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let from = game.from;
    game.options()?; // an unknown --allow code is refused before any game is started
    let globs = args
        .glob
        .iter()
        .map(|g| glob::Glob::new(g).map_err(|e| Failure::Usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    if !(args.timeout >= 0.0 && args.timeout.is_finite()) {
        return Err(Failure::Usage(format!(
            "--timeout {} is not a number of seconds",
            args.timeout
        )));
    }
    if args.max_memory.is_some() && !Path::new("/proc/self/status").exists() {
        return Err(Failure::Usage(
            "--max-memory needs /proc (Linux); it is not supported on this system".to_owned(),
        ));
    }
    let extension = emit.extension();
    let jobs = discover::discover(
        inputs,
        &globs,
        from,
        out_dir,
        extension,
        args.preserve_paths,
    )?;
    if emit == Output::Hrg {
        let other: Vec<&Job> = jobs.iter().filter(|j| j.lang != Lang::Lg).collect();
        if let Some(first) = other.first() {
            return Err(Failure::Usage(format!(
                "--emit hrg prints the HRG generated from LineGames (.lg) files, but {} of the \
                 {} games {} not LineGames (e.g. `{}`, {}); narrow the inputs, e.g. with \
                 --glob '*.lg'",
                other.len(),
                jobs.len(),
                if other.len() == 1 { "is" } else { "are" },
                first.input.display(),
                first.lang.name()
            )));
        }
    }
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Failure::Io(format!("cannot create `{}`: {e}", out_dir.display())))?;

    let supervisor = Supervisor {
        exe: std::env::current_exe()
            .map_err(|e| Failure::Io(format!("cannot find the rgt executable: {e}")))?,
        args: worker::options(game, emit),
        timeout: (args.timeout > 0.0).then(|| Duration::from_secs_f64(args.timeout)),
        max_memory: args.max_memory,
    };
    let threads = args
        .jobs
        .map(NonZeroUsize::get)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get));
    let mode = if args.quiet {
        Mode::Quiet
    } else if args.verbose || !std::io::stderr().is_terminal() {
        Mode::Lines {
            verbose: args.verbose,
        }
    } else {
        Mode::Bar
    };
    let records = run_all(&jobs, &supervisor, threads, args.skip_existing, mode)?;
    let wall = started.elapsed();

    let summary = Summary::of(&records);
    let text = summary.render(&records, wall, threads);
    crate::io::write_output(None, text.as_bytes(), None)?;
    if let Some(path) = &args.report {
        let report = serde_json::json!({
            "rgt_version": env!("CARGO_PKG_VERSION"),
            "summary": summary.json(wall, threads),
            "games": records,
        });
        let mut json = serde_json::to_string_pretty(&report).expect("report serialises");
        json.push('\n');
        write_atomically(path, json.as_bytes())?;
    }
    let failed = summary.failures();
    Ok(if failed > 0 && !args.allow_failures {
        ExitCode::from(crate::report::EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs every job on a rayon pool of `threads` threads; returns the records in `jobs` order
/// (sorted by path), whatever order they finished in.
fn run_all(
    jobs: &[Job],
    supervisor: &Supervisor,
    threads: usize,
    skip_existing: bool,
    mode: Mode,
) -> Result<Vec<GameRecord>, Failure> {
    // Largest inputs first, so a big game does not start last and stretch the batch.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[b].size.cmp(&jobs[a].size).then(a.cmp(&b)));
    let slots: Vec<Mutex<Option<GameRecord>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let progress = std::sync::Arc::new(Progress::new(mode, jobs.len()));
    let on_interrupt = std::sync::Arc::clone(&progress);
    crate::io::on_interrupt(Some(Box::new(move || on_interrupt.interrupted())));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("rgt-batch-{i}"))
        .build()
        .map_err(|e| Failure::Io(format!("cannot start {threads} threads: {e}")))?;
    pool.scope(|s| {
        for _ in 0..threads.min(jobs.len()) {
            s.spawn(|_| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&i) = order.get(k) else { break };
                    let job = &jobs[i];
                    let record = if skip_existing && up_to_date(job) {
                        let mut r = GameRecord::new(job);
                        r.status = Status::Skipped;
                        r
                    } else {
                        progress.start(&job.input.display().to_string());
                        supervisor.run(job)
                    };
                    progress.finish(&record);
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(record);
                }
            });
        }
    });
    crate::io::on_interrupt(None);
    progress.done();
    Ok(slots
        .into_iter()
        .zip(jobs)
        .map(|(slot, job)| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| GameRecord::new(job))
        })
        .collect())
}

/// Whether the output of `job` exists and is not older than its input.
fn up_to_date(job: &Job) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&job.input), modified(&job.output)) {
        (Some(i), Some(o)) => o >= i,
        _ => false,
    }
}

/// Totals over the records.
#[derive(Debug, Default)]
struct Summary {
    counts: [usize; Status::ALL.len()],
    /// Counts per language present, in `Lang::ALL` order.
    by_lang: Vec<(&'static str, [usize; Status::ALL.len()])>,
    before: (u64, u64),
    after: (u64, u64),
    with_stats: usize,
    game_seconds: f64,
}

impl Summary {
    fn of(records: &[GameRecord]) -> Self {
        let mut s = Summary::default();
        for r in records {
            let k = Status::ALL
                .iter()
                .position(|&x| x == r.status)
                .expect("every status is listed");
            s.counts[k] += 1;
            match s.by_lang.iter_mut().find(|(l, _)| *l == r.language) {
                Some((_, counts)) => counts[k] += 1,
                None => {
                    let mut counts = [0; Status::ALL.len()];
                    counts[k] = 1;
                    s.by_lang.push((r.language, counts));
                }
            }
            s.game_seconds += r.seconds;
            if r.status == Status::Ok
                && let (Some(b), Some(a)) = (r.stats_before, r.stats_after)
            {
                s.with_stats += 1;
                s.before.0 += b.nodes as u64;
                s.before.1 += b.edges as u64;
                s.after.0 += a.nodes as u64;
                s.after.1 += a.edges as u64;
            }
        }
        let rank = |l: &str| Lang::ALL.iter().position(|x| x.name() == l);
        s.by_lang.sort_by_key(|(l, _)| rank(l));
        s
    }

    fn count(&self, status: Status) -> usize {
        self.counts[Status::ALL
            .iter()
            .position(|&x| x == status)
            .expect("listed")]
    }

    fn failures(&self) -> usize {
        Status::ALL
            .iter()
            .filter(|s| s.is_failure())
            .map(|&s| self.count(s))
            .sum()
    }

    fn json(&self, wall: Duration, threads: usize) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("games".into(), self.counts.iter().sum::<usize>().into());
        let statuses: serde_json::Map<String, serde_json::Value> = Status::ALL
            .iter()
            .map(|&s| (s.as_str().to_owned(), self.count(s).into()))
            .collect();
        m.insert("statuses".into(), statuses.into());
        let languages: serde_json::Map<String, serde_json::Value> = self
            .by_lang
            .iter()
            .map(|(lang, counts)| {
                let statuses: serde_json::Map<String, serde_json::Value> = Status::ALL
                    .iter()
                    .zip(counts)
                    .map(|(s, &n)| (s.as_str().to_owned(), n.into()))
                    .collect();
                ((*lang).to_owned(), statuses.into())
            })
            .collect();
        m.insert("languages".into(), languages.into());
        m.insert("failures".into(), self.failures().into());
        m.insert("nodes_before".into(), self.before.0.into());
        m.insert("edges_before".into(), self.before.1.into());
        m.insert("nodes_after".into(), self.after.0.into());
        m.insert("edges_after".into(), self.after.1.into());
        m.insert("jobs".into(), threads.into());
        m.insert("seconds".into(), wall.as_secs_f64().into());
        serde_json::Value::Object(m)
    }

    /// The summary table. Every line that depends on timing starts with `time:` or `slowest:`
    /// and comes last.
    fn render(&self, records: &[GameRecord], wall: Duration, threads: usize) -> String {
        let total: usize = self.counts.iter().sum();
        let mut out = String::new();
        // Games per status (rows) and language (columns).
        let _ = write!(out, "{:<15}", "games");
        for (lang, _) in &self.by_lang {
            let _ = write!(out, " {lang:>7}");
        }
        let _ = writeln!(out, " {:>7}", "total");
        for (k, s) in Status::ALL.iter().enumerate() {
            let _ = write!(out, "{:<15}", s.as_str());
            for (_, counts) in &self.by_lang {
                let _ = write!(out, " {:>7}", counts[k]);
            }
            let _ = writeln!(out, " {:>7}", self.counts[k]);
        }
        let _ = write!(out, "{:<15}", "total");
        for (_, counts) in &self.by_lang {
            let _ = write!(out, " {:>7}", counts.iter().sum::<usize>());
        }
        let _ = writeln!(out, " {total:>7}");
        if self.with_stats > 0 {
            let _ = writeln!(
                out,
                "\nsize of the {} translated game{}   before opt    after opt",
                self.with_stats,
                if self.with_stats == 1 { "" } else { "s" }
            );
            let _ = writeln!(
                out,
                "{:<30} {:>12} {:>12}",
                "nodes", self.before.0, self.after.0
            );
            let _ = writeln!(
                out,
                "{:<30} {:>12} {:>12}",
                "edges", self.before.1, self.after.1
            );
        }
        let failed: Vec<&GameRecord> = records.iter().filter(|r| r.status.is_failure()).collect();
        if !failed.is_empty() {
            let _ = writeln!(out, "\nfailures:");
            for r in failed {
                let why = r
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == "error")
                    .map(progress::one_line)
                    .unwrap_or_default();
                let _ = writeln!(out, "  {:<14} {}  {}", r.status.as_str(), r.path, why);
            }
        }
        let _ = writeln!(
            out,
            "\ntime: {:.2}s wall with {} job{}, {:.2}s summed over games",
            wall.as_secs_f64(),
            threads,
            if threads == 1 { "" } else { "s" },
            self.game_seconds
        );
        let mut by_time: Vec<&GameRecord> = records
            .iter()
            .filter(|r| r.status != Status::Skipped)
            .collect();
        by_time.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        if !by_time.is_empty() {
            let slow: Vec<String> = by_time
                .iter()
                .take(3)
                .map(|r| format!("{:.3}s {}", r.seconds, r.path))
                .collect();
            let _ = writeln!(out, "slowest: {}", slow.join(", "));
        }
        out
    }
}
