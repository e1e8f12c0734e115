//! The one place where diagnostics are rendered for humans, and where failures become exit
//! codes (ARCHITECTURE.md §7).

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use rg_core::{FileId, Game, Location, SourceMap, Violation};
use std::fmt;
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

/// A diagnostic together with the file its spans refer to.
pub struct Diag {
    pub diag: Box<dyn Diagnostic + Send + Sync>,
    pub file: Option<FileId>,
}

impl fmt::Debug for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Diag({})", self.diag)
    }
}

impl Diag {
    /// A diagnostic whose spans refer to `file`.
    pub fn new(diag: impl Diagnostic + Send + Sync + 'static, file: Option<FileId>) -> Self {
        Diag {
            diag: Box::new(diag),
            file,
        }
    }

    /// A game violation; without a span it is located by printing the offending entity.
    pub fn violation(v: Violation, game: &Game, file: Option<FileId>) -> Self {
        let context = if v.span.is_none() {
            locate(game, v.at)
        } else {
            None
        };
        Diag::new(Located { v, context }, file)
    }
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The input has errors (exit 1).
    Input(Vec<Diag>),
    /// A file could not be read or written (exit 1).
    Io(String),
    /// The command line cannot be carried out (exit 2).
    Usage(String),
}

/// Per-run state: the sources for rendering, colour choice, diagnostics width.
#[derive(Debug)]
pub struct Session {
    pub sources: SourceMap,
    color: bool,
    width: usize,
    /// When set, [`Session::emit`] records diagnostics here instead of printing them (a batch
    /// worker puts them in its per-game report).
    captured: Option<Mutex<Vec<DiagRecord>>>,
    /// How validator warnings are treated.
    pub lints: LintConfig,
    /// `--size-limit`, for the front-ends.
    pub size_limit: Option<u64>,
}

/// How validator warnings are treated (`--deny warnings`, `--allow CODE`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintConfig {
    /// Warnings are errors.
    pub deny_warnings: bool,
    /// Codes (e.g. `rg::lint::unreachable-node`) that are not reported at all.
    pub allow: Vec<String>,
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
            color,
            width,
            captured: None,
            lints: LintConfig::default(),
            size_limit: None,
        }
    }

    /// A session that renders as the CLI does when standard error is not a terminal (no colour,
    /// 100 columns), whatever the environment: for tests and reports.
    pub fn plain() -> Self {
        Session {
            sources: SourceMap::new(),
            color: false,
            width: 100,
            captured: None,
            lints: LintConfig::default(),
            size_limit: None,
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

    /// A diagnostic as plain data; a diagnostic that only groups others gives one record each.
    pub fn records(&self, d: &Diag) -> Vec<DiagRecord> {
        let src = d.file.and_then(|f| self.sources.named_source(f));
        let text = d
            .file
            .and_then(|f| self.sources.get(f))
            .map(|s| s.text.as_str());
        let record = |diag: &dyn Diagnostic| {
            let offset = diag.labels().and_then(|labels| {
                let labels: Vec<LabeledSpan> = labels.collect();
                labels
                    .iter()
                    .find(|l| l.primary())
                    .or(labels.first())
                    .map(|l| l.offset())
            });
            let (line, column) = match (offset, text) {
                (Some(off), Some(text)) => {
                    let (line, column) = line_column(text, off);
                    (Some(line), Some(column))
                }
                _ => (None, None),
            };
            DiagRecord {
                severity: match diag.severity().unwrap_or(miette::Severity::Error) {
                    miette::Severity::Error => "error",
                    miette::Severity::Warning => "warning",
                    miette::Severity::Advice => "advice",
                }
                .to_owned(),
                code: diag.code().map(|c| c.to_string()),
                message: diag.to_string(),
                line,
                column,
                rendered: render_with(diag, src.as_ref(), false, self.width),
            }
        };
        let diag = d.diag.as_ref();
        match (diag.labels(), diag.related()) {
            (None, Some(related)) => {
                let group: Vec<DiagRecord> = related.map(record).collect();
                if group.is_empty() {
                    vec![record(diag)]
                } else {
                    group
                }
            }
            _ => vec![record(diag)],
        }
    }

    /// The text [`Session::fail`] prints for a failure.
    pub fn render_failure(&self, failure: &Failure) -> String {
        match failure {
            Failure::Input(diags) => self.render_capped(diags),
            Failure::Io(msg) | Failure::Usage(msg) => format!("error: {msg}\n"),
        }
    }

    /// Renders one diagnostic (and, for a diagnostic that only groups others, each of them).
    pub fn render(&self, d: &Diag) -> String {
        let src = d.file.and_then(|f| self.sources.named_source(f));
        render_with(d.diag.as_ref(), src.as_ref(), self.color, self.width)
    }

    /// Prints diagnostics (warnings, notes) to standard error.
    pub fn emit(&self, diags: &[Diag]) {
        if let Some(captured) = &self.captured {
            let records = diags.iter().flat_map(|d| self.records(d));
            captured
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(records);
            return;
        }
        let _ = std::io::stderr()
            .lock()
            .write_all(self.render_capped(diags).as_bytes());
    }

    /// Renders diagnostics, at most [`MAX_PER_CODE`] of each code (the members of a group
    /// counted one by one), followed by one line per code that had more: thousands of copies of
    /// one mistake would otherwise bury the first ones, and take long to render.
    pub fn render_capped(&self, diags: &[Diag]) -> String {
        let mut shown: std::collections::HashMap<String, usize> = Default::default();
        let mut hidden: indexmap::IndexMap<String, usize> = Default::default();
        let mut out = String::new();
        for d in diags {
            let src = d.file.and_then(|f| self.sources.named_source(f));
            let mut keep = |diag: &dyn Diagnostic| {
                let code = diag.code().map(|c| c.to_string()).unwrap_or_default();
                let n = shown.entry(code.clone()).or_default();
                *n += 1;
                if *n > MAX_PER_CODE {
                    *hidden.entry(code).or_default() += 1;
                    false
                } else {
                    true
                }
            };
            out.push_str(&render_filtered(
                d.diag.as_ref(),
                src.as_ref(),
                self.color,
                self.width,
                &mut keep,
            ));
        }
        for (code, n) in hidden {
            let code = if code.is_empty() {
                String::new()
            } else {
                format!(" `{code}`")
            };
            out.push_str(&format!(
                "note: and {n} more{code} diagnostic{} (only the first {MAX_PER_CODE} of each code are shown)\n",
                if n == 1 { "" } else { "s" }
            ));
        }
        out
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

/// The most diagnostics of one code that are rendered in one report.
pub const MAX_PER_CODE: usize = 20;

/// The 1-based line and column (in characters) of byte `offset` in `text` (clamped to the text).
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// Renders a diagnostic with `src` attached. A diagnostic without labels that only groups
/// related ones (e.g. "3 syntax errors") is rendered as each related diagnostic in turn followed
/// by the group's one-line summary.
pub fn render_with(
    diag: &dyn Diagnostic,
    src: Option<&NamedSource<String>>,
    color: bool,
    width: usize,
) -> String {
    render_filtered(diag, src, color, width, &mut |_| true)
}

/// [`render_with`], rendering only the diagnostics (or members of a group) that `keep` accepts.
fn render_filtered(
    diag: &dyn Diagnostic,
    src: Option<&NamedSource<String>>,
    color: bool,
    width: usize,
    keep: &mut dyn FnMut(&dyn Diagnostic) -> bool,
) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false);
    let mut out = String::new();
    let grouped: Vec<&dyn Diagnostic> = match (diag.labels(), diag.related()) {
        (None, Some(related)) => related.collect(),
        _ => Vec::new(),
    };
    if grouped.is_empty() {
        if keep(diag) {
            let _ = handler.render_report(&mut out, &WithSource::new(diag, src));
        }
    } else {
        for r in grouped {
            if keep(r) {
                let _ = handler.render_report(&mut out, &WithSource::new(r, src));
            }
        }
        let name = src.map(|s| s.name().to_owned());
        match name {
            Some(n) => out.push_str(&format!("error: {diag} in {n}\n")),
            None => out.push_str(&format!("error: {diag}\n")),
        }
    }
    out
}

/// A diagnostic with a source attached, delegating everything else.
struct WithSource<'a> {
    inner: &'a dyn Diagnostic,
    src: Option<&'a NamedSource<String>>,
    /// Where the primary label is, when the source is not shown because a label lies too far
    /// to the right to be drawn (miette cannot draw a label past column 65 535).
    far: Option<(usize, usize)>,
}

/// The rightmost column at which a label is drawn under its source line, and the longest line
/// shown (miette shows whole lines; a diagnostic quoting a 300 KB line is no help).
const MAX_LABEL_COLUMN: usize = 1_000;
const MAX_LINE: usize = 4_000;

impl<'a> WithSource<'a> {
    fn new(inner: &'a dyn Diagnostic, src: Option<&'a NamedSource<String>>) -> Self {
        let far = src.and_then(|s| {
            let text = s.inner();
            let labels: Vec<LabeledSpan> = inner.labels()?.collect();
            let far = labels.iter().any(|l| {
                let bytes = text.as_bytes();
                let off = l.offset().min(text.len());
                let start = bytes[..off]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
                let end = bytes[off..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |p| off + p);
                off - start > MAX_LABEL_COLUMN || end - start > MAX_LINE
            });
            let primary = labels.iter().find(|l| l.primary()).or(labels.first())?;
            far.then(|| line_column(text, primary.offset()))
        });
        WithSource { inner, src, far }
    }
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.inner, f)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.inner, f)?;
        if let (Some((line, column)), Some(src)) = (self.far, self.src) {
            write!(f, "\n  at {}:{line}:{column}", src.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for WithSource<'_> {}

impl Diagnostic for WithSource<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.inner.severity()
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.help()
    }
    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.url()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        // Only attach the source when there is something to point at.
        let _ = self.inner.labels()?;
        if self.far.is_some() {
            return None;
        }
        self.src.map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.far.is_some() {
            return None;
        }
        // Spans past the end of the source (a truncated file) are clamped so rendering works.
        let len = self.src.map(|s| s.inner().len());
        let labels: Vec<LabeledSpan> = self
            .inner
            .labels()?
            .map(|l| match len {
                Some(len) if l.offset() + l.len() > len => {
                    let off = l.offset().min(len);
                    LabeledSpan::new(l.label().map(str::to_owned), off, (len - off).min(l.len()))
                }
                _ => l,
            })
            .collect();
        Some(Box::new(labels.into_iter()))
    }
}

/// A violation located by its printed entity when the game carries no span for it.
#[derive(Debug)]
struct Located {
    v: Violation,
    context: Option<String>,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.v.message)?;
        if let Some(c) = &self.context {
            write!(f, "\n  in {c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Located {}

impl Diagnostic for Located {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.v.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.v.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.v.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.v.labels()
    }
}

/// The printed form of the entity a violation is about.
fn locate(game: &Game, at: Location) -> Option<String> {
    Some(match at {
        Location::Game => return None,
        Location::Node(n) => format!("node `{}`", game.nodes().get(n).map(|d| game.name(d.name))?),
        Location::Edge(e) => format!(
            "edge `{}`",
            rg_core::print::print_edge(game, game.edge_entries().get(e)?)
        ),
        Location::Typedef(i) => {
            let t = game.typedefs.get(i)?;
            format!(
                "`type {} = {};`",
                game.name(t.name),
                rg_core::print::print_type(game, t.ty)
            )
        }
        Location::Constant(i) => {
            let c = game.constants.get(i)?;
            format!(
                "`const {}: {} = {};`",
                game.name(c.name),
                rg_core::print::print_type(game, c.ty),
                rg_core::print::print_value(game, c.value)
            )
        }
        Location::Variable(i) => {
            let v = game.variables.get(i)?;
            format!(
                "`var {}: {} = {};`",
                game.name(v.name),
                rg_core::print::print_type(game, v.ty),
                rg_core::print::print_value(game, v.init)
            )
        }
        Location::Pragma(i) => format!("pragma #{}", i + 1),
    })
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
