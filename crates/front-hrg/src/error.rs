//! The HRG front-end's errors: each one has a stable [`Code`], a message, the span in the `.hrg`
//! source and a help line; [`HrgErrors`] is every error of one program.
//!
//! The scheme of the codes is described in the crate documentation.

use miette::{Diagnostic, SourceSpan};
use rg_core::Span;
use std::fmt;

rg_core::error_codes! {
    "HRG";
    /// A character that starts no token.
    UnexpectedCharacter => "hrg::lex::unexpected-character",
    /// `const`, `type` or `var` used as a name.
    ReservedWord => "hrg::lex::reserved-word",
    /// A token the grammar does not allow here.
    UnexpectedToken => "hrg::parse::unexpected-token",
    /// A number that is not a valid integer or count.
    BadInteger => "hrg::parse::bad-integer",
    /// Brackets, blocks or operators nested too deep.
    TooDeep => "hrg::parse::too-deep",
    /// A variable (assignment target or `$$ x`) that is not declared.
    UnknownVariable => "hrg::name::unknown-variable",
    /// A name in a run-time expression that is no variable, constant, parameter or symbol.
    UnknownName => "hrg::name::unknown-name",
    /// A type that is not a declared domain.
    UnknownType => "hrg::name::unknown-type",
    /// A compile-time function that is not declared.
    UnknownFunction => "hrg::name::unknown-function",
    /// A graph that is not declared.
    UnknownGraph => "hrg::name::unknown-graph",
    /// An upper-case pattern or loop variable without a value.
    UnboundVariable => "hrg::name::unbound-variable",
    /// An assignment to something that is not a variable (a constant, a symbol).
    NotAVariable => "hrg::name::not-a-variable",
    /// A domain or graph declared twice.
    Duplicate => "hrg::name::duplicate",
    /// A call or a function case with the wrong number of arguments.
    Arity => "hrg::type::arity",
    /// A type that cannot be used here (a map type enumerated, a set type without value).
    BadType => "hrg::type::bad-type",
    /// A domain with no element where one is needed.
    EmptyDomain => "hrg::type::empty-domain",
    /// A map where a symbol is needed, or a map without a default.
    BadMap => "hrg::type::bad-map",
    /// Two values that cannot be compared.
    NotComparable => "hrg::type::not-comparable",
    /// A domain that contains itself.
    RecursiveDomain => "hrg::eval::recursive-domain",
    /// A generator parameter without `where X in …`.
    MissingBinding => "hrg::eval::missing-binding",
    /// A variable bound twice in one `where`.
    BoundTwice => "hrg::eval::bound-twice",
    /// The same key twice in a map literal.
    DuplicateKey => "hrg::eval::duplicate-key",
    /// Arithmetic on a value that is not an integer, or a remainder by zero.
    Arithmetic => "hrg::eval::arithmetic",
    /// No function case matches the arguments.
    NoCase => "hrg::eval::no-case",
    /// An expression or condition that cannot be evaluated at compile time.
    NotConstant => "hrg::eval::not-constant",
    /// Compile-time evaluation nested too deep (a recursive function).
    EvalTooDeep => "hrg::eval::too-deep",
    /// No graph `rules`, or `rules` with parameters.
    NoRules => "hrg::graph::no-rules",
    /// A graph that calls itself without being `reusable`.
    Recursion => "hrg::graph::recursion",
    /// `end()`, `return()`, `break()` or `continue()` misplaced.
    ControlFlow => "hrg::graph::control-flow",
    /// A loop variable used where it cannot be substituted.
    BadSubstitution => "hrg::graph::bad-substitution",
    /// An assignment to a graph parameter.
    AssignedParameter => "hrg::graph::assigned-parameter",
    /// A condition a game cannot test, or a malformed `reachable`.
    BadCondition => "hrg::graph::bad-condition",
    /// An expression a game cannot compute at run time.
    NotRuntime => "hrg::graph::not-runtime",
    /// More values, copies, nodes or edges than the size limit.
    TooLarge => "hrg::limit::too-large",
    /// More errors than are reported (the rest are not shown).
    TooManyErrors => "hrg::limit::too-many-errors",
    /// A comment `rgt fmt` cannot place.
    MisplacedComment => "hrg::format::misplaced-comment",
}

/// The code of [`HrgErrors`], the group of every error of a program.
pub const GROUP_CODE: &str = "hrg::invalid";

/// How many errors are reported at most; past it, one [`Code::TooManyErrors`] note ends the list.
pub use rg_core::errors::MAX_ERRORS;

/// An error in an HRG program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HrgError {
    pub code: Code,
    pub message: String,
    pub label: Option<SourceSpan>,
    pub span: Option<Span>,
    pub help: Option<String>,
}

impl Diagnostic for HrgError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.as_str()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.label.map(|l| {
            Box::new(std::iter::once(miette::LabeledSpan::new_with_span(
                Some("here".into()),
                l,
            ))) as Box<dyn Iterator<Item = _>>
        })
    }
}

impl HrgError {
    pub(crate) fn new(code: Code, message: impl Into<String>, span: Span) -> Self {
        HrgError {
            code,
            message: message.into(),
            label: Some(span.into()),
            span: Some(span),
            help: None,
        }
    }

    pub(crate) fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }
}

/// Every error of one HRG source (at least one), in source order, each shown as its own
/// diagnostic (miette's related diagnostics).
pub type HrgErrors = rg_core::ErrorList<HrgError>;

impl rg_core::ListedError for HrgError {
    const LANGUAGE: &'static str = "HRG";
    const GROUP_CODE: &'static str = GROUP_CODE;

    fn span(&self) -> Option<Span> {
        self.span
    }

    fn too_many(at: Option<Span>) -> Self {
        HrgError {
            code: Code::TooManyErrors,
            message: format!("more than {MAX_ERRORS} errors; the rest are not shown"),
            label: at.map(Into::into),
            span: at,
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
    /// macro); this checks the scheme: unique, `hrg::phase::kebab-case`.
    #[test]
    fn codes_are_unique_and_follow_the_scheme() {
        rg_core::errors::check_code_scheme(CODES, "hrg").unwrap();
    }

    /// Every `Code::X` written in the crate's sources is a variant (so its text is in
    /// [`CODES`]): the compiler checks that; this checks that no code is written as a string
    /// outside this file.
    #[test]
    fn no_code_is_spelt_as_a_string_elsewhere() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        rg_core::errors::check_codes_not_spelt(&dir, "hrg").unwrap();
    }
}
