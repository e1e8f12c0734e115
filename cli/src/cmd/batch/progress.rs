//! Progress while a library converts: a progress bar on a terminal, one line per game otherwise.

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
}

impl Progress {
    /// Progress over `total` games.
    pub fn new(mode: Mode, total: usize) -> Self {
        let bar = (mode == Mode::Bar).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} games, {prefix} {wide_msg}",
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
        }
    }

    /// A game starts.
    pub fn start(&self, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(name.to_owned());
        }
    }

    /// A game is finished.
    pub fn finish(&self, record: &GameRecord) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let failures = if record.status.is_failure() {
            self.failures.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            self.failures.load(Ordering::SeqCst)
        };
        match self.mode {
            Mode::Bar => {
                if let Some(bar) = &self.bar {
                    bar.set_prefix(format!("{failures} failed"));
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
