//! The validator interface and the violation data type (ARCHITECTURE.md §4). Implementations
//! live in `rg-validate` (and an interpreter-backed perft oracle in `rg-interp`); the pass
//! manager receives them as `&dyn Validator`.

use crate::game::{EdgeId, Game, NodeId};
use crate::span::Span;

/// How expensive a validator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cost {
    /// Linear (or near-linear) in the size of the game: run after every pass.
    Linear,
    /// Explores the game tree or similar: run at the end or on request.
    Expensive,
}

/// How serious a violation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Stops the pipeline.
    Error,
    /// Reported; does not stop the pipeline (unless warnings are denied).
    Warning,
}

/// What a violation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Location {
    /// The game as a whole.
    Game,
    /// A node.
    Node(NodeId),
    /// An edge.
    Edge(EdgeId),
    /// A typedef, by index in [`Game::typedefs`].
    Typedef(usize),
    /// A constant, by index in [`Game::constants`].
    Constant(usize),
    /// A variable, by index in [`Game::variables`].
    Variable(usize),
    /// A pragma, by index in [`Game::pragmas`].
    Pragma(usize),
}

/// One problem found by a validator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Name of the validator that found it.
    pub validator: &'static str,
    /// Stable code, e.g. `rg::maps::duplicate-key`.
    pub code: &'static str,
    pub severity: Severity,
    pub at: Location,
    /// The message (for the seven reference validators: the reference's text, validators.md §8).
    pub message: String,
    /// A hint on how to fix it.
    pub help: Option<String>,
    /// The primary span, if the game carries source locations.
    pub span: Option<Span>,
    /// Secondary labelled spans.
    pub labels: Vec<(Span, String)>,
}

/// A check over a whole game that reports every violation it finds.
pub trait Validator: Send + Sync {
    /// Kebab-case name, equal to the module name.
    fn name(&self) -> &'static str;
    /// Whether it is cheap enough to run after every pass.
    fn cost(&self) -> Cost;
    /// Appends every violation found to `out`.
    fn validate(&self, game: &Game, out: &mut Vec<Violation>);
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Violation {}

impl miette::Diagnostic for Violation {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display + 'a>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = self
            .span
            .map(|s| miette::LabeledSpan::new_primary_with_span(None, s));
        let secondary = self
            .labels
            .iter()
            .map(|(s, text)| miette::LabeledSpan::new_with_span(Some(text.clone()), *s));
        let all: Vec<_> = primary.into_iter().chain(secondary).collect();
        if all.is_empty() {
            None
        } else {
            Some(Box::new(all.into_iter()))
        }
    }
}
