//! The worker side: one `rgt` child process translates one game. It is the hidden subcommand
//! `rgt batch-worker [GAME OPTIONS] --output OUT [--emit FORMAT] -- GAME`, started by the
//! supervisor (`supervise.rs`) with the options of the user's `rgt translate --out-dir`.
//!
//! Protocol (one JSON object per line on the worker's standard output, after the prefix
//! [`PREFIX`]; other lines are ignored, so a stray print cannot be taken for a result):
//! 1. the worker translates the game and prints a [`WorkerRecord`] (status, statistics,
//!    diagnostics); it writes nothing to disk yet;
//! 2. for a successful game it waits for the supervisor to send `commit` on its standard input,
//!    then writes the output atomically and prints a [`WriteOutcome`].
//!
//! If standard input ends (or says anything else) before `commit`, the supervisor has given up on
//! this game (timeout, memory limit) or has itself died (SIGINT): the worker exits at once without
//! writing. So a file is only ever written for a game the supervisor has accepted, and a worker
//! never outlives its supervisor by more than the write it was told to do.

use super::Stats;
use crate::cmd::translate::Output;
use crate::io::{emit_game, write_atomically, write_atomically_with};
use crate::lang::Lang;
use crate::pipeline::{GameArgs, optimise, translate_text};
use crate::report::{DiagRecord, Failure, Session};
use std::ffi::OsString;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The name of the hidden subcommand.
pub const SUBCOMMAND: &str = "batch-worker";

/// Translate one game of a library conversion (internal: started by `rgt translate --out-dir`,
/// which talks to it over standard input and output).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Where to write the result, once the supervisor says `commit`.
    #[arg(long, value_name = "OUT")]
    pub output: PathBuf,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Rg)]
    pub emit: Output,
}

/// The arguments that make a worker translate as `game` and `emit` ask (all but the game and
/// the output file, which the supervisor adds per game).
pub fn options(game: &GameArgs, emit: Output) -> Vec<OsString> {
    let name = |v: Option<clap::builder::PossibleValue>| {
        v.map(|v| v.get_name().to_owned()).unwrap_or_default()
    };
    let mut args: Vec<String> = vec![
        "--emit".into(),
        name(clap::ValueEnum::to_possible_value(&emit)),
        "--opt-level".into(),
        name(clap::ValueEnum::to_possible_value(&game.opt)),
    ];
    if let Some(lang) = game.from {
        args.extend(["--from".into(), lang.name().into()]);
    }
    if let Some(n) = game.size_limit {
        args.extend(["--size-limit".into(), n.to_string()]);
    }
    if game.lenient {
        args.push("--lenient".into());
    }
    if game.deny == Some(crate::pipeline::Deny::Warnings) {
        args.extend(["--deny".into(), "warnings".into()]);
    }
    for code in &game.allow {
        args.extend(["--allow".into(), code.clone()]);
    }
    args.into_iter().map(OsString::from).collect()
}

/// Runs `rgt batch-worker`.
pub fn main(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let input = PathBuf::from(&args.game.input);
    run(session, &args.game, args.emit, &input, &args.output)
}

/// The prefix of protocol lines.
pub const PREFIX: &str = "@rgt-worker ";
/// Exit status of a worker whose supervisor gave up on it.
const EXIT_ABANDONED: i32 = 4;

/// What a worker reports after translating.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct WorkerRecord {
    /// Whether the game translated and checked.
    pub ok: bool,
    /// Statistics before optimisation.
    pub stats_before: Option<Stats>,
    /// Statistics after optimisation.
    pub stats_after: Option<Stats>,
    /// Errors (for a failed game) and warnings.
    pub diagnostics: Vec<DiagRecord>,
    /// Peak resident memory of the worker, when the platform tells it.
    pub peak_rss_bytes: Option<u64>,
}

/// What a worker reports after `commit`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct WriteOutcome {
    /// The error message, if the output could not be written.
    pub error: Option<String>,
}

/// Runs as a worker: translates `input` with the user's options and, once told to, writes
/// `output`.
pub fn run(
    session: &mut Session,
    game: &GameArgs,
    emit: Output,
    input: &Path,
    output: &Path,
) -> Result<ExitCode, Failure> {
    session.capture_diagnostics();
    let (commit_tx, commit_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line);
        if read.is_ok_and(|n| n > 0) && line.trim_end() == "commit" {
            let _ = commit_tx.send(());
        } else {
            std::process::exit(EXIT_ABANDONED);
        }
    });

    let result = translate(session, game, emit, input);
    let mut diagnostics = session.take_captured();
    let (ok, text, stats_before, stats_after) = match result {
        Ok((text, before, after)) => (true, Some(text), Some(before), Some(after)),
        Err(failure) => {
            diagnostics.extend(failure_records(session, &failure));
            (false, None, None, None)
        }
    };
    let record = WorkerRecord {
        ok,
        stats_before,
        stats_after,
        diagnostics,
        peak_rss_bytes: peak_rss(),
    };
    send(&record)?;
    let Some(text) = text else {
        return Ok(ExitCode::SUCCESS);
    };
    if commit_rx.recv().is_err() {
        std::process::exit(EXIT_ABANDONED);
    }
    let error = write(output, &text).err();
    send(&WriteOutcome { error })?;
    Ok(ExitCode::SUCCESS)
}

/// What a worker writes once told to: a game, printed as it is written (a large game's text is
/// never held in memory beside it), or a text.
enum Translated {
    Game(Box<rg_core::Game>, &'static dyn rg_fmt::Emitter),
    Text(String),
}

fn translate(
    session: &mut Session,
    game: &GameArgs,
    emit: Output,
    input: &Path,
) -> Result<(Translated, Stats, Stats), Failure> {
    let path = input.to_string_lossy().into_owned();
    let lang = Lang::detect(&path, game.from)?;
    session.options = game.options()?;
    let (name, text) = rg_pipeline::read_source(&path)?;
    let mut g = translate_text(session, lang, name.clone(), text.clone())?;
    let before = Stats::of(&g);
    optimise(&mut g, game.opt)?;
    let after = Stats::of(&g);
    let output = match emit.game_format() {
        Some(format) => Translated::Game(Box::new(g), format.emitter()),
        // The translation above has reported the warnings already.
        None => {
            let file = session.sources.add(name, text);
            let text = &session.sources.get(file).expect("just added").text;
            Translated::Text(lang.generated_hrg(file, text)?.0)
        }
    };
    Ok((output, before, after))
}

fn write(output: &Path, what: &Translated) -> Result<(), String> {
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    }
    let written = match what {
        Translated::Game(game, emitter) => {
            write_atomically_with(output, |out| emit_game(*emitter, game, out))
        }
        Translated::Text(text) => write_atomically(output, text.as_bytes()),
    };
    written.map_err(|f| match f {
        Failure::Io(m) | Failure::Usage(m) => m,
        Failure::Input(_) => format!("cannot write `{}`", output.display()),
    })
}

/// A failure as report records (the same text `rgt translate` prints for it).
pub fn failure_records(session: &Session, failure: &Failure) -> Vec<DiagRecord> {
    match failure {
        Failure::Input(diags) => diags.iter().map(|d| session.record(d)).collect(),
        Failure::Io(m) => vec![plain_record("rgt::io", m)],
        Failure::Usage(m) => vec![plain_record("rgt::usage", m)],
    }
}

/// A record for a diagnostic that points at no source.
pub fn plain_record(code: &str, message: &str) -> DiagRecord {
    DiagRecord {
        severity: "error".to_owned(),
        code: Some(code.to_owned()),
        message: message.to_owned(),
        line: None,
        column: None,
        rendered: format!("error: {message}\n"),
    }
}

fn send<T: serde::Serialize>(msg: &T) -> Result<(), Failure> {
    let mut line = PREFIX.to_owned();
    line.push_str(&serde_json::to_string(msg).expect("records serialise"));
    line.push('\n');
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())
        .and_then(|()| out.flush())
        // The supervisor is gone: nothing more to do.
        .map_err(|_| std::process::exit(EXIT_ABANDONED))
}

/// Peak resident set size of this process (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    proc_status_kib(Path::new("/proc/self/status"), "VmHWM:").map(|k| k * 1024)
}

/// Reads one `kB` field of a `/proc/*/status` file.
pub fn proc_status_kib(path: &Path, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
