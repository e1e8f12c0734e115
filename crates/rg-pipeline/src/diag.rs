//! One diagnostics model for every stage.
//!
//! Front-ends keep their own typed `miette` errors, the RG type checker and the validators
//! produce [`rg_core::Violation`]s; each of them is converted **once**, at the boundary of the
//! pipeline, into a [`Diagnostic`]: plain data with a code, a severity, a message, a primary
//! span, secondary labelled spans, a help text and the file the spans point into. A front-end
//! error that only groups others (e.g. "3 syntax errors", whose children are `#[related]`)
//! becomes one record per child.
//!
//! Everything after the boundary works on records only, in one place each:
//! - [`LintConfig::apply`]: `--allow CODE` drops a code, `--deny warnings` makes warnings errors,
//!   for front-end warnings and validator violations alike;
//! - [`sort`]: source order (file, then position; records without a position last);
//! - [`group_key`]: repeated diagnostics (same severity, code and message pattern) are grouped so
//!   a renderer can show the first few of a group and count the rest;
//! - [`Counts`]: the "3 errors, 2 warnings" summary.
//!
//! [`Diagnostic`] implements [`miette::Diagnostic`], so it renders like the original error (see
//! [`crate::render`]).

use crate::codes;
use crate::error::Error;
use rg_core::{FileId, Game, Location, Violation};
use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input cannot be used.
    Error,
    /// Probably a mistake; the input is still used (unless warnings are denied).
    Warning,
    /// A remark.
    Advice,
}

impl Severity {
    /// `error`, `warning` or `advice`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "advice",
        }
    }
}

/// A byte range of a source file, with an optional text shown under it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Byte offset of the start.
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
    /// The text shown under the range.
    pub text: Option<String>,
}

impl Label {
    fn from_miette(l: &miette::LabeledSpan) -> Self {
        Label {
            offset: l.offset(),
            len: l.len(),
            text: l.label().map(str::to_owned),
        }
    }
}

/// One diagnostic, reduced to plain data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The stable code, e.g. `gdl::W-VAL-014` or `rg::lint::unreachable-node`.
    pub code: Option<String>,
    /// How serious it is.
    pub severity: Severity,
    /// The one-line message (a violation without a span adds a second line naming the entity).
    pub message: String,
    /// The file the spans point into.
    pub file: Option<FileId>,
    /// Where it is.
    pub primary: Option<Label>,
    /// Further places, each with its text.
    pub secondary: Vec<Label>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with a message only.
    pub fn new(severity: Severity, code: Option<&str>, message: impl Into<String>) -> Self {
        Diagnostic {
            code: code.map(str::to_owned),
            severity,
            message: message.into(),
            file: None,
            primary: None,
            secondary: Vec::new(),
            help: None,
        }
    }

    /// Adds a help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Converts a `miette` diagnostic whose spans point into `file`. A diagnostic without labels
    /// that only groups `related` ones gives one record per member (recursively); one with
    /// labels and related ones gives itself followed by its members.
    pub fn from_miette(d: &dyn miette::Diagnostic, file: Option<FileId>) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        flatten(d, file, &mut out, 0);
        out
    }

    /// Converts a validator or type-checker violation; without a span it names the offending
    /// entity of `game` on a second line of the message.
    pub fn from_violation(v: &Violation, game: &Game, file: Option<FileId>) -> Diagnostic {
        let mut message = v.message.clone();
        if v.span.is_none()
            && let Some(entity) = locate(game, v.at)
        {
            message.push_str(&format!("\n  in {entity}"));
        }
        Diagnostic {
            code: Some(v.code.to_owned()),
            severity: match v.severity {
                rg_core::Severity::Error => Severity::Error,
                rg_core::Severity::Warning => Severity::Warning,
            },
            message,
            file,
            primary: v.span.map(|s| Label {
                offset: s.start as usize,
                len: s.len(),
                text: None,
            }),
            secondary: v
                .labels
                .iter()
                .map(|(s, t)| Label {
                    offset: s.start as usize,
                    len: s.len(),
                    text: Some(t.clone()),
                })
                .collect(),
            help: v.help.clone(),
        }
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// How deep groups of groups are flattened (deeper members are dropped).
const MAX_GROUP_DEPTH: usize = 16;

fn flatten(
    d: &dyn miette::Diagnostic,
    file: Option<FileId>,
    out: &mut Vec<Diagnostic>,
    depth: usize,
) {
    let labels: Option<Vec<miette::LabeledSpan>> = d.labels().map(Iterator::collect);
    let related: Vec<&dyn miette::Diagnostic> = match d.related() {
        Some(r) if depth < MAX_GROUP_DEPTH => r.collect(),
        _ => Vec::new(),
    };
    if labels.is_some() || related.is_empty() {
        let labels = labels.unwrap_or_default();
        let primary = labels.iter().position(|l| l.primary()).or(
            // Without a label marked primary, the first one is.
            (!labels.is_empty()).then_some(0),
        );
        out.push(Diagnostic {
            code: d.code().map(|c| c.to_string()),
            severity: match d.severity() {
                Some(miette::Severity::Warning) => Severity::Warning,
                Some(miette::Severity::Advice) => Severity::Advice,
                _ => Severity::Error,
            },
            message: d.to_string(),
            file,
            primary: primary.map(|i| Label::from_miette(&labels[i])),
            secondary: labels
                .iter()
                .enumerate()
                .filter(|&(i, _)| Some(i) != primary)
                .map(|(_, l)| Label::from_miette(l))
                .collect(),
            help: d.help().map(|h| h.to_string()),
        });
    }
    for r in related {
        flatten(r, file, out, depth + 1);
    }
}

/// The printed form of the entity a violation is about.
fn locate(game: &Game, at: Location) -> Option<String> {
    use rg_core::print::{print_edge, print_type, print_value};
    Some(match at {
        Location::Game => return None,
        Location::Node(n) => format!("node `{}`", game.nodes().get(n).map(|d| game.name(d.name))?),
        Location::Edge(e) => format!("edge `{}`", print_edge(game, game.edge_entries().get(e)?)),
        Location::Typedef(i) => {
            let t = game.typedefs.get(i)?;
            format!("`type {} = {};`", game.name(t.name), print_type(game, t.ty))
        }
        Location::Constant(i) => {
            let c = game.constants.get(i)?;
            format!(
                "`const {}: {} = {};`",
                game.name(c.name),
                print_type(game, c.ty),
                print_value(game, c.value)
            )
        }
        Location::Variable(i) => {
            let v = game.variables.get(i)?;
            format!(
                "`var {}: {} = {};`",
                game.name(v.name),
                print_type(game, v.ty),
                print_value(game, v.init)
            )
        }
        Location::Pragma(i) => format!("pragma #{}", i + 1),
    })
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Advice => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = self
            .primary
            .as_ref()
            .map(|l| miette::LabeledSpan::new_primary_with_span(l.text.clone(), (l.offset, l.len)));
        let labels: Vec<_> = primary
            .into_iter()
            .chain(
                self.secondary
                    .iter()
                    .map(|l| miette::LabeledSpan::new_with_span(l.text.clone(), (l.offset, l.len))),
            )
            .collect();
        (!labels.is_empty()).then(|| Box::new(labels.into_iter()) as Box<_>)
    }
}

/// Sorts diagnostics into source order: by file, then by the start of the primary span;
/// diagnostics without a file or a position come after those with one, in the order they
/// were found (the sort is stable).
pub fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| {
        (
            d.file.is_none(),
            d.file.map(|f| f.0),
            d.primary.is_none(),
            d.primary.as_ref().map(|l| l.offset),
        )
    });
}

/// What makes diagnostics "the same": severity, code and the message with its variable parts
/// (quoted names, numbers) blanked. Diagnostics with equal keys are aggregated when rendered.
pub fn group_key(d: &Diagnostic) -> (Severity, Option<&str>, String) {
    (d.severity, d.code.as_deref(), message_pattern(&d.message))
}

/// The message with the text between backticks or quotes replaced by `…` and runs of digits
/// by `N`: `relation `foo/2` is never used` → `relation `…` is never used`.
pub fn message_pattern(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let mut out = String::with_capacity(first.len());
    let mut quote: Option<char> = None;
    let mut digits = false;
    for c in first.chars() {
        match quote {
            Some(q) if c == q => {
                out.push(c);
                quote = None;
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                out.push(c);
                out.push('…');
                quote = Some(c);
            }
            None if c.is_ascii_digit() => {
                if !digits {
                    out.push('N');
                }
            }
            None => out.push(c),
        }
        digits = quote.is_none() && c.is_ascii_digit();
    }
    out
}

/// How many diagnostics of each severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub advice: usize,
}

impl Counts {
    /// Counts `diags`.
    pub fn of<'a>(diags: impl IntoIterator<Item = &'a Diagnostic>) -> Counts {
        let mut c = Counts::default();
        for d in diags {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Advice => c.advice += 1,
            }
        }
        c
    }
}

impl fmt::Display for Counts {
    /// `3 errors, 2 warnings` (kinds with none are left out; `no diagnostics` when empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = [
            (self.errors, "error", "errors"),
            (self.warnings, "warning", "warnings"),
            (self.advice, "note", "notes"),
        ]
        .into_iter()
        .filter(|&(n, _, _)| n > 0)
        .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
        if parts.is_empty() {
            f.write_str("no diagnostics")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// How warnings are treated: `--deny warnings` and `--allow CODE`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintConfig {
    /// Warnings are errors.
    pub deny_warnings: bool,
    /// Codes that are not reported at all.
    allow: Vec<String>,
}

impl LintConfig {
    /// A configuration; fails with a usage error (suggesting the closest known code) when a
    /// code to allow is not one rgt can report (see [`codes::known`]).
    pub fn new(deny_warnings: bool, allow: Vec<String>) -> Result<LintConfig, Error> {
        for code in &allow {
            if !codes::is_known(code) {
                let hint = match codes::closest(code) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => "no known code is close (codes look like `rg::lint::unreachable-node` \
                                 or `gdl::W-VAL-014`)"
                        .to_owned(),
                };
                return Err(Error::Usage(format!(
                    "--allow: unknown diagnostic code `{code}`: {hint}"
                )));
            }
        }
        Ok(LintConfig {
            deny_warnings,
            allow,
        })
    }

    /// The codes allowed.
    pub fn allowed(&self) -> &[String] {
        &self.allow
    }

    /// Whether diagnostics with this code are dropped.
    pub fn is_allowed(&self, code: Option<&str>) -> bool {
        code.is_some_and(|c| self.allow.iter().any(|a| a == c))
    }

    /// Drops the allowed diagnostics and, with `--deny warnings`, makes warnings errors.
    pub fn apply(&self, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diags
            .into_iter()
            .filter(|d| !self.is_allowed(d.code.as_deref()))
            .map(|mut d| {
                if self.deny_warnings && d.severity == Severity::Warning {
                    d.severity = Severity::Error;
                }
                d
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_blank_names_and_numbers() {
        assert_eq!(
            message_pattern("relation `foo/2` is never used at 12"),
            "relation `…` is never used at N"
        );
        assert_eq!(message_pattern("a \"b\" c"), "a \"…\" c");
    }

    #[test]
    fn counts_read_naturally() {
        let e = Diagnostic::new(Severity::Error, None, "e");
        let w = Diagnostic::new(Severity::Warning, None, "w");
        assert_eq!(
            Counts::of([&e, &e, &e, &w, &w]).to_string(),
            "3 errors, 2 warnings"
        );
        assert_eq!(Counts::of([&w]).to_string(), "1 warning");
    }

    #[test]
    fn allow_and_deny_apply_to_every_record() {
        let w = |code: &str| Diagnostic::new(Severity::Warning, Some(code), "w");
        let lints = LintConfig::new(true, vec!["gdl::W-VAL-014".into()]).unwrap();
        let out = lints.apply(vec![w("gdl::W-VAL-014"), w("rg::lint::unreachable-node")]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].severity, Severity::Error);
    }

    #[test]
    fn unknown_codes_are_refused_with_a_suggestion() {
        let Err(Error::Usage(msg)) = LintConfig::new(false, vec!["gdl::W-VAL-14".into()]) else {
            panic!("accepted an unknown code");
        };
        assert!(msg.contains("did you mean `gdl::W-VAL-014`?"), "{msg}");
    }
}
