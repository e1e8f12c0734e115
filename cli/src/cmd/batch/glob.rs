//! `--glob` patterns: shell-style patterns over `/`-separated relative paths, matched by the
//! `globset` crate.
//!
//! Syntax: `*` any run of characters except `/`; `**` any run including `/` as a whole path
//! component (`**/` also matches no directory at all); `?` one character except `/`; `[abc]`,
//! `[a-z]`, `[!a-z]` (or `[^a-z]`) one character of a class; `{kif,rbg}` alternatives (nested
//! allowed); `\x` a literal `x`. A pattern compiles to one automaton: `{…}` groups are not
//! expanded, so many of them cost linear, not exponential, time (issue 22).

use std::fmt;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Glob {
    source: String,
    matcher: globset::GlobMatcher,
    /// Whether the pattern names directories (contains `/`): then it is matched against the
    /// relative path, otherwise against the file name.
    has_slash: bool,
}

/// A malformed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobError(String);

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Glob {
    /// Parses a pattern.
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .map_err(|e| GlobError(format!("invalid --glob pattern `{pattern}`: {}", e.kind())))?;
        Ok(Glob {
            source: pattern.to_owned(),
            matcher: glob.compile_matcher(),
            has_slash: pattern.contains('/'),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the file at `relative` (a `/`-separated path relative to the searched directory)
    /// matches: a pattern with a `/` is matched against the whole relative path, one without
    /// against the file name only.
    pub fn matches_path(&self, relative: &str) -> bool {
        let subject = if self.has_slash {
            relative
        } else {
            relative.rsplit('/').next().unwrap_or(relative)
        };
        self.matcher.is_match(subject)
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(p: &str, path: &str) -> bool {
        Glob::new(p).unwrap().matches_path(path)
    }

    #[test]
    fn names_and_paths() {
        assert!(m("*.kif", "kif/tictactoe.kif"));
        assert!(!m("*.kif", "kif/tictactoe.rbg"));
        assert!(m("tic*", "a/b/tictactoe.kif"));
        assert!(!m("kif/*", "kif/sub/x.kif"));
        assert!(m("kif/*", "kif/x.kif"));
        assert!(m("kif/**", "kif/sub/x.kif"));
        assert!(m("**/x.kif", "x.kif"));
        assert!(m("**/x.kif", "a/b/x.kif"));
        assert!(!m("**/x.kif", "ax.kif"));
        assert!(m("**.kif", "a/b/x.kif"));
        assert!(m("a/**/x.kif", "a/x.kif"));
        assert!(m("a/**/x.kif", "a/b/c/x.kif"));
        assert!(!m("a/**/x.kif", "b/x.kif"));
        assert!(m("*.{kif,rbg}", "z.rbg"));
        assert!(!m("*.{kif,rbg}", "z.hrg"));
        assert!(m("{a,b{c,d}}.rg", "bd.rg"));
        assert!(m("[a-c]?.rg", "bx.rg"));
        assert!(!m("[!a-c]?.rg", "bx.rg"));
        assert!(m("[!a-c]?.rg", "dx.rg"));
        assert!(m("\\*.rg", "*.rg"));
        assert!(!m("\\*.rg", "x.rg"));
        assert!(!m("?", "/"));
        assert!(m("*a*a*a*a*a*b", &format!("{}b", "a".repeat(200))));
    }

    #[test]
    fn malformed_patterns_are_rejected() {
        for p in ["{a,b", "a}", "[ab", "x\\"] {
            assert!(Glob::new(p).is_err(), "{p}");
        }
    }
}
