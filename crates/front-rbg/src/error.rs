//! The RBG front-end's error: a message, the span in the .rbg source and a help line.

use miette::SourceSpan;
use rg_core::Span;

/// An error in an RBG description.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(rbg::error))]
pub struct RbgError {
    pub message: String,
    #[label("here")]
    pub label: Option<SourceSpan>,
    pub span: Option<Span>,
    /// When the offending tokens come from a macro: the macro use in the section.
    #[label("in this macro use")]
    pub use_label: Option<SourceSpan>,
    /// For a duplicate: where the name was first declared.
    #[label("first declared here")]
    pub first: Option<SourceSpan>,
    #[help]
    pub help: Option<String>,
}

impl RbgError {
    pub(crate) fn new(message: impl Into<String>, span: Span) -> Self {
        RbgError {
            message: message.into(),
            first: None,
            label: Some(span.into()),
            span: Some(span),
            use_label: None,
            help: None,
        }
    }

    pub(crate) fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }
}
