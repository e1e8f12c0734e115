//! The one place where diagnostics are printed for humans (drawn by `rg_pipeline::render`), and
//! where failures become exit codes.

use rg_core::SourceMap;
use rg_pipeline::render::Renderer;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Mutex;

/// Exit status: the input has errors, or a file could not be read or written.
pub const EXIT_INPUT: u8 = 1;
/// Exit status: usage error (also clap's).
pub const EXIT_USAGE: u8 = 2;
/// Exit status: a bug in rgt.
pub const EXIT_INTERNAL: u8 = 3;

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when standard error is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

pub use rg_pipeline::Diagnostic;
/// Why a command failed: the pipeline's error type (input errors exit 1, unreadable or
/// unwritable files 1, usage errors 2).
pub use rg_pipeline::Error as Failure;
pub use rg_pipeline::LintConfig;
pub use rg_pipeline::render::line_column;

/// Per-run state: the sources for rendering, how diagnostics are drawn, the loading options.
#[derive(Debug)]
pub struct Session {
    pub sources: SourceMap,
    renderer: Renderer,
    /// When set, [`Session::emit`] records diagnostics here instead of printing them (a batch
    /// worker puts them in its per-game report).
    captured: Option<Mutex<Vec<DiagRecord>>>,
    /// How games are loaded: `--from`, `-O`, `--size-limit`, `--allow`, `--deny`.
    pub options: rg_pipeline::Options,
}

/// A diagnostic reduced to plain data, for machine-readable reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiagRecord {
    /// `error`, `warning` or `advice`.
    pub severity: String,
    /// The stable diagnostic code, e.g. `rg::types::not-assignable`.
    pub code: Option<String>,
    /// The one-line message.
    pub message: String,
    /// 1-based line of the primary label, when the diagnostic points into the source.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the primary label.
    pub column: Option<usize>,
    /// The diagnostic as `rgt` prints it (no colour).
    pub rendered: String,
}

impl Session {
    /// A session with the given colour choice.
    pub fn new(color: ColorChoice) -> Self {
        let tty = std::io::stderr().is_terminal();
        let color = match color {
            ColorChoice::Auto => tty && std::env::var_os("NO_COLOR").is_none(),
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        };
        let width = if tty {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(100)
        } else {
            100
        };
        Session {
            sources: SourceMap::new(),
            renderer: Renderer { color, width },
            captured: None,
            options: rg_pipeline::Options::default(),
        }
    }

    /// A session that renders as the CLI does when standard error is not a terminal (no colour,
    /// 100 columns), whatever the environment: for tests and reports.
    pub fn plain() -> Self {
        Session {
            sources: SourceMap::new(),
            renderer: Renderer::plain(),
            captured: None,
            options: rg_pipeline::Options::default(),
        }
    }

    /// From now on, [`Session::emit`] records diagnostics (see [`Session::take_captured`])
    /// instead of printing them.
    pub fn capture_diagnostics(&mut self) {
        self.captured = Some(Mutex::new(Vec::new()));
    }

    /// The diagnostics recorded since [`Session::capture_diagnostics`].
    pub fn take_captured(&mut self) -> Vec<DiagRecord> {
        self.captured
            .as_mut()
            .map(|c| std::mem::take(c.get_mut().unwrap_or_else(|e| e.into_inner())))
            .unwrap_or_default()
    }

    /// A diagnostic as plain data for a report.
    pub fn record(&self, d: &Diagnostic) -> DiagRecord {
        let text = d
            .file
            .and_then(|f| self.sources.get(f))
            .map(|s| s.text.as_str());
        let (line, column) = match (&d.primary, text) {
            (Some(l), Some(text)) => {
                let (line, column) = line_column(text, l.offset);
                (Some(line), Some(column))
            }
            _ => (None, None),
        };
        DiagRecord {
            severity: d.severity.as_str().to_owned(),
            code: d.code.clone(),
            message: d.message.clone(),
            line,
            column,
            rendered: Renderer::plain().render_one(&self.sources, d),
        }
    }

    /// The text [`Session::fail`] prints for a failure.
    pub fn render_failure(&self, failure: &Failure) -> String {
        self.renderer.render_error(&self.sources, failure)
    }

    /// Prints diagnostics (warnings, notes) to standard error: in source order, repeated ones
    /// aggregated, with a count at the end.
    pub fn emit(&self, diags: &[Diagnostic]) {
        if let Some(captured) = &self.captured {
            let records = diags.iter().map(|d| self.record(d));
            captured
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(records);
            return;
        }
        let _ = std::io::stderr()
            .lock()
            .write_all(self.renderer.render(&self.sources, diags).as_bytes());
    }

    /// Prints a failure and returns its exit code.
    pub fn fail(&self, failure: Failure) -> ExitCode {
        let _ = std::io::stderr()
            .lock()
            .write_all(self.render_failure(&failure).as_bytes());
        ExitCode::from(match failure {
            Failure::Input(_) | Failure::Io(_) => EXIT_INPUT,
            Failure::Usage(_) => EXIT_USAGE,
        })
    }
}

/// Makes a panic print an internal-error report (the process then exits with status 3).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let args: Vec<String> = std::env::args().collect();
        eprintln!(
            "internal error: rgt panicked{location}: {msg}\n\
             This is a bug in rgt, not in your game. Please report it with the input file and this \
             command line:\n  {}",
            args.join(" ")
        );
    }));
}
