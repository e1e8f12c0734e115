//! `--glob` patterns: a small shell-style matcher over `/`-separated relative paths.
//!
//! Syntax: `*` any run of characters except `/`; `**` any run including `/` (`**/` also matches
//! no directory at all); `?` one character except `/`; `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one
//! character of a class; `{kif,rbg}` alternatives; `\x` a literal `x`. Matching is
//! O(pattern × path) (dynamic programming), never exponential.

use std::fmt;

/// A parsed pattern (with its `{…}` alternatives expanded).
#[derive(Clone, Debug)]
pub struct Glob {
    source: String,
    alternatives: Vec<Vec<Tok>>,
    /// Whether the pattern names directories (contains `/`): then it is matched against the
    /// relative path, otherwise against the file name.
    has_slash: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Char(char),
    Any,
    Star,
    /// `**`: any run of characters, `/` included.
    DoubleStar,
    /// `**/`: zero or more whole directories.
    DoubleStarSlash,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
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
        let err = |m: &str| GlobError(format!("invalid --glob pattern `{pattern}`: {m}"));
        let expanded = expand_braces(pattern).map_err(&err)?;
        let alternatives = expanded
            .iter()
            .map(|p| tokenize(p).map_err(&err))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Glob {
            source: pattern.to_owned(),
            alternatives,
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
        let chars: Vec<char> = subject.chars().collect();
        self.alternatives.iter().any(|toks| matches(toks, &chars))
    }
}

/// Expands `{a,b}` alternatives (nested braces allowed).
fn expand_braces(p: &str) -> Result<Vec<String>, &'static str> {
    let chars: Vec<char> = p.chars().collect();
    // Find the first top-level `{` not escaped.
    let mut i = 0;
    let mut open = None;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '{' => {
                open = Some(i);
                break;
            }
            '}' => return Err("`}` without `{`"),
            _ => {}
        }
        i += 1;
    }
    let Some(open) = open else {
        return Ok(vec![p.to_owned()]);
    };
    let mut depth = 0;
    let mut parts = Vec::new();
    let mut start = open + 1;
    let mut close = None;
    let mut j = open + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 1,
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            '}' => {
                parts.push(chars[start..j].iter().collect::<String>());
                close = Some(j);
                break;
            }
            ',' if depth == 0 => {
                parts.push(chars[start..j].iter().collect::<String>());
                start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    let close = close.ok_or("`{` without `}`")?;
    let prefix: String = chars[..open].iter().collect();
    let suffix: String = chars[close + 1..].iter().collect();
    let mut out = Vec::new();
    for part in parts {
        out.extend(expand_braces(&format!("{prefix}{part}{suffix}"))?);
    }
    Ok(out)
}

fn tokenize(p: &str) -> Result<Vec<Tok>, &'static str> {
    let chars: Vec<char> = p.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let c = *chars.get(i + 1).ok_or("trailing `\\`")?;
                toks.push(Tok::Char(c));
                i += 2;
            }
            '?' => {
                toks.push(Tok::Any);
                i += 1;
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                if chars.get(i) == Some(&'/') {
                    toks.push(Tok::DoubleStarSlash);
                    i += 1;
                } else {
                    toks.push(Tok::DoubleStar);
                }
            }
            '*' => {
                toks.push(Tok::Star);
                i += 1;
            }
            '[' => {
                let mut j = i + 1;
                let negated = matches!(chars.get(j), Some('!' | '^'));
                if negated {
                    j += 1;
                }
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let c = *chars.get(j).ok_or("`[` without `]`")?;
                    if c == ']' && !first {
                        break;
                    }
                    first = false;
                    if chars.get(j + 1) == Some(&'-') && chars.get(j + 2).is_some_and(|&e| e != ']')
                    {
                        ranges.push((c, chars[j + 2]));
                        j += 3;
                    } else {
                        ranges.push((c, c));
                        j += 1;
                    }
                }
                toks.push(Tok::Class { negated, ranges });
                i = j + 1;
            }
            c => {
                toks.push(Tok::Char(c));
                i += 1;
            }
        }
    }
    Ok(toks)
}

/// Dynamic programming over (token, character): `reach[j]` = the first `i` tokens can match the
/// first `j` characters.
fn matches(toks: &[Tok], s: &[char]) -> bool {
    let n = s.len();
    let mut reach = vec![false; n + 1];
    reach[0] = true;
    for tok in toks {
        let mut next = vec![false; n + 1];
        match tok {
            Tok::Star | Tok::DoubleStar => {
                let crosses = matches!(tok, Tok::DoubleStar);
                let mut on = false;
                for j in 0..=n {
                    if reach[j] {
                        on = true;
                    }
                    next[j] = on;
                    // A run of `*` cannot cross `/`: stop it at every separator.
                    if !crosses && j < n && s[j] == '/' {
                        on = false;
                    }
                }
            }
            Tok::DoubleStarSlash => {
                let mut seen = false;
                for j in 0..=n {
                    next[j] = reach[j] || (seen && s[j - 1] == '/');
                    seen |= reach[j];
                }
            }
            single => {
                for j in 0..n {
                    if reach[j] && single_matches(single, s[j]) {
                        next[j + 1] = true;
                    }
                }
            }
        }
        reach = next;
    }
    reach[n]
}

fn single_matches(tok: &Tok, c: char) -> bool {
    match tok {
        Tok::Char(x) => *x == c,
        Tok::Any => c != '/',
        Tok::Class { negated, ranges } => {
            c != '/' && (ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated)
        }
        Tok::Star | Tok::DoubleStar | Tok::DoubleStarSlash => false,
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
