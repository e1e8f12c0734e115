//! Source positions: file ids, byte spans and the source map the CLI renders diagnostics from.

use std::fmt;

/// Identifies one source text registered in a [`SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span in `file` covering `start..end` (byte offsets).
    pub fn new(file: FileId, start: usize, end: usize) -> Self {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (they must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Number of bytes covered.
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span covers no byte.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        miette::SourceSpan::new((span.start as usize).into(), span.len())
    }
}

/// An optional source location that never takes part in equality, ordering or hashing, so that
/// syntax trees compare structurally (spans never take part in equality).
#[derive(Clone, Copy, Default)]
pub struct Loc(pub Option<Span>);

impl Loc {
    /// No location (generated code).
    pub const NONE: Loc = Loc(None);

    /// The span, if any.
    pub fn span(self) -> Option<Span> {
        self.0
    }
}

impl From<Span> for Loc {
    fn from(span: Span) -> Self {
        Loc(Some(span))
    }
}

impl From<Option<Span>> for Loc {
    fn from(span: Option<Span>) -> Self {
        Loc(span)
    }
}

impl fmt::Debug for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => write!(f, "@{}..{}", s.start, s.end),
            None => f.write_str("@?"),
        }
    }
}

impl PartialEq for Loc {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Loc {}
impl PartialOrd for Loc {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Loc {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}
impl std::hash::Hash for Loc {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One registered source text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// All source texts of one run, by [`FileId`]. Owned by the CLI (or a test), which attaches the
/// right named source to each diagnostic when rendering.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            name: name.into(),
            text: text.into(),
        });
        id
    }

    /// The file with this id, if registered.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// A miette source for the file (name + text), for attaching to a diagnostic.
    pub fn named_source(&self, id: FileId) -> Option<miette::NamedSource<String>> {
        self.get(id)
            .map(|f| miette::NamedSource::new(f.name.clone(), f.text.clone()))
    }

    /// 1-based `(line, column)` of a byte offset; the column counts bytes (a multi-byte
    /// character advances it by its length in UTF-8).
    pub fn line_col(&self, id: FileId, offset: u32) -> Option<(usize, usize)> {
        let text = &self.get(id)?.text;
        Some(line_col(text, offset as usize))
    }
}

/// 1-based `(line, column)` of byte `offset` in `text` (column in bytes).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, offset - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_bytes_from_one() {
        let text = "ab\ncd\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 1), (1, 2));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 5), (2, 3));
        assert_eq!(line_col(text, 100), (3, 1));
    }

    #[test]
    fn loc_is_ignored_by_equality() {
        let a = Loc::from(Span::new(FileId(0), 1, 2));
        assert_eq!(a, Loc::NONE);
    }
}
