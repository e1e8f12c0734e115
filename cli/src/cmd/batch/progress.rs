//! Progress while a library converts: a progress bar on a terminal, one line per game otherwise.
//!
//! The bar shows games done of all, the failures so far, an estimate of the time left and the
//! games being translated (all of them with `-j N`); a failed game is named above the bar when it
//! fails. An interrupt (Ctrl-C) ends with a line saying how far the batch got.

use super::{GameRecord, Status};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A progress bar (standard error is a terminal, neither `--quiet` nor `-v`).
    Bar,
    /// One line per finished game on standard error; with `verbose`, failed games' diagnostics
    /// and every warning too.
    Lines { verbose: bool },
    /// Nothing until the summary (`--quiet`).
    Quiet,
}

/// Shared progress state (used from every job thread).
#[derive(Debug)]
pub struct Progress {
    mode: Mode,
    bar: Option<ProgressBar>,
    total: usize,
    done: AtomicUsize,
    failures: AtomicUsize,
    out: Mutex<()>,
    /// The games being translated, in the order they started.
    running: Mutex<Vec<String>>,
}

impl Progress {
    /// Progress over `total` games.
    pub fn new(mode: Mode, total: usize) -> Self {
        let bar = (mode == Mode::Bar).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:20}] {pos}/{len} games, {prefix}, ETA {eta} {wide_msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix("0 failed");
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            mode,
            bar,
            total,
            done: AtomicUsize::new(0),
            failures: AtomicUsize::new(0),
            out: Mutex::new(()),
            running: Mutex::new(Vec::new()),
        }
    }

    /// A game starts.
    pub fn start(&self, name: &str) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running.push(name.to_owned());
        if let Some(bar) = &self.bar {
            bar.set_message(running_message(&running));
        }
    }

    /// The line printed when the batch is interrupted.
    pub fn interrupted_line(&self) -> String {
        let done = self.done.load(Ordering::SeqCst);
        let failures = self.failures.load(Ordering::SeqCst);
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let mut line = format!(
            "interrupted: {done} of {} games done ({failures} failed)",
            self.total
        );
        if !running.is_empty() {
            line.push_str(&format!(
                ", stopped while translating {}",
                running.join(", ")
            ));
        }
        line.push_str("; the finished games' outputs are kept and nothing partial was written\n");
        line
    }

    /// Prints [`Self::interrupted_line`] (the bar, if any, is cleared first).
    pub fn interrupted(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let line = self.interrupted_line();
        let _guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    /// A game is finished.
    pub fn finish(&self, record: &GameRecord) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let failures = if record.status.is_failure() {
            self.failures.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            self.failures.load(Ordering::SeqCst)
        };
        let message = {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(k) = running.iter().position(|r| *r == record.path) {
                running.remove(k);
            }
            running_message(&running)
        };
        match self.mode {
            Mode::Bar => {
                if let Some(bar) = &self.bar {
                    if record.status.is_failure() {
                        // Above the bar, as it happens (the summary lists them all again).
                        let mut line = format!("{:<14} {}", record.status.as_str(), record.path);
                        if let Some(d) = record.diagnostics.iter().find(|d| d.severity == "error") {
                            line.push_str("  ");
                            line.push_str(&one_line(d));
                        }
                        bar.println(line);
                    }
                    bar.set_prefix(format!("{failures} failed"));
                    bar.set_message(message);
                    bar.inc(1);
                }
            }
            Mode::Lines { verbose } => {
                let width = self.total.to_string().len();
                let mut line = format!(
                    "[{done:>width$}/{}] {:<14} {:>7.3}s  {}",
                    self.total,
                    record.status.as_str(),
                    record.seconds,
                    record.path
                );
                if record.status.is_failure()
                    && let Some(d) = record.diagnostics.iter().find(|d| d.severity == "error")
                {
                    line.push_str("  ");
                    line.push_str(&one_line(d));
                }
                line.push('\n');
                if verbose {
                    for d in &record.diagnostics {
                        if record.status.is_failure() || d.severity != "error" {
                            line.push_str(&d.rendered);
                        }
                    }
                }
                let _guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
                let _ = std::io::stderr().lock().write_all(line.as_bytes());
            }
            Mode::Quiet => {}
        }
    }

    /// All games are finished: remove the bar.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The bar's message: the games being translated, by file name (the bar has one line).
fn running_message(running: &[String]) -> String {
    let name = |p: &String| {
        std::path::Path::new(p)
            .file_name()
            .map_or_else(|| p.clone(), |n| n.to_string_lossy().into_owned())
    };
    match running {
        [] => String::new(),
        [one] => name(one),
        many => format!(
            "{} running: {}",
            many.len(),
            many.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// `code: first line of the message (line N)`.
pub fn one_line(d: &crate::report::DiagRecord) -> String {
    let mut s = String::new();
    if let Some(code) = &d.code {
        s.push_str(code);
        s.push_str(": ");
    }
    s.push_str(d.message.lines().next().unwrap_or(""));
    if let Some(line) = d.line {
        s.push_str(&format!(" (line {line})"));
    }
    s
}

impl Status {
    /// Whether the game counts as failed for the exit status.
    pub fn is_failure(self) -> bool {
        !matches!(self, Status::Ok | Status::Skipped)
    }
}
