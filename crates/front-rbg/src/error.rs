//! The RBG front-end's error: a message, the span in the .rbg source and a help line.

use miette::{LabeledSpan, SourceSpan};
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
    /// More places, each with its own text: the macro use in the section when the offending
    /// tokens come from a macro, the first declaration of a duplicate. (One vector rather than
    /// an optional span each keeps the error small: it is returned on every parser path.)
    #[label(collection)]
    pub related: Vec<LabeledSpan>,
    #[help]
    pub help: Option<String>,
}

impl RbgError {
    pub(crate) fn new(message: impl Into<String>, span: Span) -> Self {
        RbgError {
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
