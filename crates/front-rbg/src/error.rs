//! The RBG front-end's errors: each one has a stable [`Code`], a message, the span in the `.rbg`
//! source, more labelled places and a help line; [`RbgErrors`] is every error of one description.
//!
//! The scheme of the codes is described in the crate documentation.

use miette::{Diagnostic, LabeledSpan, SourceSpan};
use rg_core::Span;
use std::fmt;

rg_core::error_codes! {
    "RBG";
    /// A character that starts no token, or a comment or string not closed.
    UnexpectedCharacter => "rbg::lex::unexpected-character",
    /// A number above 2^32 - 1.
    NumberTooLarge => "rbg::lex::number-too-large",
    /// A malformed `#name = …` directive (section or macro header).
    BadDirective => "rbg::section::bad-directive",
    /// A section that appears twice.
    DuplicateSection => "rbg::section::duplicate",
    /// One of the five sections is missing.
    MissingSection => "rbg::section::missing",
    /// Tokens left after a section's content.
    TrailingTokens => "rbg::section::trailing-tokens",
    /// A macro defined twice, or with and without parameters.
    DuplicateMacro => "rbg::macro::duplicate",
    /// A name used like a macro (followed by `(`) that is neither a macro nor declared.
    UnknownMacro => "rbg::macro::unknown",
    /// A macro used with the wrong arguments.
    MacroArity => "rbg::macro::arity",
    /// `~` pasting that does not give a token, or used outside a macro.
    BadPaste => "rbg::macro::bad-paste",
    /// Macros expanding each other too deep.
    MacroTooDeep => "rbg::macro::too-deep",
    /// A token the grammar does not allow here.
    UnexpectedToken => "rbg::parse::unexpected-token",
    /// Parentheses or patterns nested too deep.
    TooDeep => "rbg::parse::too-deep",
    /// A name that is not declared.
    Unknown => "rbg::name::unknown",
    /// A declared name used as another kind (a piece where a direction is expected).
    WrongKind => "rbg::name::wrong-kind",
    /// A name declared twice.
    Duplicate => "rbg::name::duplicate",
    /// A name declared as two kinds (a piece and a player, a label and a variable).
    Clash => "rbg::name::clash",
    /// A vertex declared twice.
    DuplicateVertex => "rbg::board::duplicate-vertex",
    /// An edge to a vertex that is not on the board.
    UnknownVertex => "rbg::board::unknown-vertex",
    /// A board generator whose rows or layers do not have its shape, or an empty board.
    BadShape => "rbg::board::bad-shape",
    /// A switch inside a pattern.
    SwitchInPattern => "rbg::rules::switch-in-pattern",
    /// A constant assigned above the bound of its variable.
    AboveBound => "rbg::rules::above-bound",
    /// Arithmetic beyond 64-bit integers.
    Overflow => "rbg::rules::overflow",
    /// More tokens, actions, values or table cells than the size limit.
    TooLarge => "rbg::limit::too-large",
    /// More errors than are reported (the rest are not shown).
    TooManyErrors => "rbg::limit::too-many-errors",
}

/// The code of [`RbgErrors`], the group of every error of a program.
pub const GROUP_CODE: &str = "rbg::invalid";

/// How many errors are reported at most; past it, one [`Code::TooManyErrors`] note ends the list.
pub use rg_core::errors::MAX_ERRORS;

/// An error in an RBG description.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RbgError {
    pub code: Code,
    pub message: String,
    pub label: Option<SourceSpan>,
    pub span: Option<Span>,
    /// More places, each with its own text: the macro use in the section when the offending
    /// tokens come from a macro, the first declaration of a duplicate.
    pub related: Vec<LabeledSpan>,
    pub help: Option<String>,
}

impl Diagnostic for RbgError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.as_str()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let here = self
            .label
            .map(|l| LabeledSpan::new_with_span(Some("here".into()), l));
        let all: Vec<LabeledSpan> = here
            .into_iter()
            .chain(self.related.iter().cloned())
            .collect();
        if all.is_empty() {
            None
        } else {
            Some(Box::new(all.into_iter()))
        }
    }
}

impl RbgError {
    pub(crate) fn new(code: Code, message: impl Into<String>, span: Span) -> Self {
        RbgError {
            code,
            message: message.into(),
            label: Some(span.into()),
            span: Some(span),
            related: Vec::new(),
            help: None,
        }
    }

    pub(crate) fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }
}

/// Every error of one RBG source (at least one), in source order, each shown as its own
/// diagnostic (miette's related diagnostics).
pub type RbgErrors = rg_core::ErrorList<RbgError>;

impl rg_core::ListedError for RbgError {
    const LANGUAGE: &'static str = "RBG";
    const GROUP_CODE: &'static str = GROUP_CODE;

    fn span(&self) -> Option<Span> {
        self.span
    }

    fn too_many(at: Option<Span>) -> Self {
        RbgError {
            code: Code::TooManyErrors,
            message: format!("more than {MAX_ERRORS} errors; the rest are not shown"),
            label: at.map(Into::into),
            span: at,
            related: Vec::new(),
            help: Some("fix these and run again".into()),
        }
    }

    fn is_too_many(&self) -> bool {
        self.code == Code::TooManyErrors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code is in [`CODES`] by construction (the enum and the list come from one
    /// macro); this checks the scheme: unique, `rbg::phase::kebab-case`.
    #[test]
    fn codes_are_unique_and_follow_the_scheme() {
        rg_core::errors::check_code_scheme(CODES, "rbg").unwrap();
    }

    /// Every `Code::X` written in the crate's sources is a variant (so its text is in
    /// [`CODES`]): the compiler checks that; this checks that no code is written as a string
    /// outside this file.
    #[test]
    fn no_code_is_spelt_as_a_string_elsewhere() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        rg_core::errors::check_codes_not_spelt(&dir, "rbg").unwrap();
    }
}
