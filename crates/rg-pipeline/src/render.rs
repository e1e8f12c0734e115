//! Diagnostics as text, the way `rgt` shows them: `miette`'s graphical report of each
//! [`Diagnostic`] with its source attached, in source order, repeated ones aggregated, and a
//! count at the end. This module only builds strings; the caller decides where they go.

use crate::diag::{self, Counts, Diagnostic};
use crate::error::Error;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use rg_core::SourceMap;
use std::collections::HashMap;
use std::fmt;

/// The most diagnostics of one group (same severity, code and message pattern, see
/// [`diag::group_key`]) that are rendered; the others are counted in one line after the last
/// one shown: `… and 5233 more like this (gdl::W-VAL-014)`.
pub const MAX_PER_GROUP: usize = 5;

/// How diagnostics are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renderer {
    /// ANSI colours.
    pub color: bool,
    /// Line width.
    pub width: usize,
}

impl Renderer {
    /// No colour, 100 columns: what `rgt` prints when standard error is not a terminal.
    pub fn plain() -> Self {
        Renderer {
            color: false,
            width: 100,
        }
    }

    /// Renders diagnostics: sorted into source order, at most [`MAX_PER_GROUP`] of each group
    /// followed by a count of the rest, then a summary line (`3 errors, 2 warnings in g.kif`).
    /// Nothing for no diagnostics.
    pub fn render(&self, sources: &SourceMap, diags: &[Diagnostic]) -> String {
        if diags.is_empty() {
            return String::new();
        }
        let mut sorted = diags.to_vec();
        diag::sort(&mut sorted);
        let mut totals: HashMap<_, usize> = HashMap::new();
        for d in &sorted {
            *totals.entry(diag::group_key(d)).or_default() += 1;
        }
        let mut shown: HashMap<_, usize> = HashMap::new();
        let mut out = String::new();
        for d in &sorted {
            let key = diag::group_key(d);
            let n = shown.entry(key.clone()).or_default();
            *n += 1;
            if *n > MAX_PER_GROUP {
                continue;
            }
            out.push_str(&self.render_one(sources, d));
            let total = totals[&key];
            if *n == MAX_PER_GROUP && total > MAX_PER_GROUP {
                let code = d
                    .code
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "  … and {} more like this{code}\n\n",
                    total - MAX_PER_GROUP
                ));
            }
        }
        out.push_str(&summary(sources, &sorted));
        out
    }

    /// Renders an error: its diagnostics (see [`Renderer::render`]), or `error: MESSAGE`.
    pub fn render_error(&self, sources: &SourceMap, error: &Error) -> String {
        match error {
            Error::Input(diags) => self.render(sources, diags),
            Error::Io(msg) | Error::Usage(msg) => format!("error: {msg}\n"),
        }
    }

    /// Renders one diagnostic with its source.
    pub fn render_one(&self, sources: &SourceMap, d: &Diagnostic) -> String {
        let src = d.file.and_then(|f| sources.named_source(f));
        render_with(d, src.as_ref(), self.color, self.width)
    }
}

/// `3 errors, 2 warnings in game.kif` (the file named when every diagnostic is about one).
fn summary(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    let counts = Counts::of(diags);
    let file = diags[0].file;
    let name = file
        .filter(|_| diags.iter().all(|d| d.file == file))
        .and_then(|f| sources.get(f))
        .map(|s| format!(" in {}", s.name))
        .unwrap_or_default();
    format!("{counts}{name}\n")
}

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

/// Renders any `miette` diagnostic with `src` attached (no aggregation, no summary).
pub fn render_with(
    diag: &dyn miette::Diagnostic,
    src: Option<&NamedSource<String>>,
    color: bool,
    width: usize,
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
    let _ = handler.render_report(&mut out, &WithSource::new(diag, src));
    out
}

/// A diagnostic with a source attached, delegating everything else.
struct WithSource<'a> {
    inner: &'a dyn miette::Diagnostic,
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
    fn new(inner: &'a dyn miette::Diagnostic, src: Option<&'a NamedSource<String>>) -> Self {
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

impl miette::Diagnostic for WithSource<'_> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Label, Severity};

    #[test]
    fn repeated_diagnostics_are_aggregated_and_counted() {
        let mut sources = SourceMap::new();
        let text = "a\n".repeat(10);
        let file = sources.add("g.kif", text);
        let diags: Vec<Diagnostic> = (0..10)
            .rev()
            .map(|i| Diagnostic {
                file: Some(file),
                primary: Some(Label {
                    offset: 2 * i,
                    len: 1,
                    text: None,
                }),
                ..Diagnostic::new(
                    Severity::Warning,
                    Some("gdl::W-VAL-014"),
                    format!("`a{i}` unused"),
                )
            })
            .collect();
        let out = Renderer::plain().render(&sources, &diags);
        assert_eq!(out.matches("unused").count(), MAX_PER_GROUP, "{out}");
        assert!(
            out.contains("… and 5 more like this (gdl::W-VAL-014)"),
            "{out}"
        );
        assert!(out.ends_with("10 warnings in g.kif\n"), "{out}");
        // Source order: `a0` comes first although it was found last.
        assert!(out.find("`a0`") < out.find("`a1`"));
    }
}
