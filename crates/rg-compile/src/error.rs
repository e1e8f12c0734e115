//! Why a game cannot be turned into a native forward model.

use miette::SourceSpan;
use rg_core::Span;

/// A game the code generator cannot represent. The interpreter can still run every game that
/// loads; these are the few constructs whose compiled form would not be exact.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum CompileError {
    /// The game has no `begin` node.
    #[error("the game has no `begin` node")]
    #[diagnostic(
        code(rg::compile::no_begin),
        help("every game starts at the node named `begin`")
    )]
    NoBegin,
    /// The analysis would need more memory than the limit allows.
    #[error(
        "the game is too large to compile: the searches of {targets} reachability-check targets over {nodes} nodes take more than {limit} steps (stopped at {cells})"
    )]
    #[diagnostic(
        code(rg::compile::too_large),
        help(
            "every node a check's search can walk to becomes a generated function; the interpreter (`rgt run`, `rgt perft`) runs this game"
        )
    )]
    TooLarge {
        targets: usize,
        nodes: usize,
        cells: u64,
        limit: u64,
    },
    /// A type, value or action the compiled model cannot represent exactly.
    #[error("{message}")]
    #[diagnostic(code(rg::compile::unsupported))]
    Unsupported {
        message: String,
        #[label("here")]
        label: Option<SourceSpan>,
        span: Option<Span>,
        #[help]
        help: Option<String>,
    },
}

impl CompileError {
    pub(crate) fn at(message: impl Into<String>, span: Option<Span>) -> Self {
        CompileError::Unsupported {
            message: message.into(),
            label: span.map(Into::into),
            span,
            help: None,
        }
    }

    pub(crate) fn with_help(mut self, text: impl Into<String>) -> Self {
        if let CompileError::Unsupported { help, .. } = &mut self {
            *help = Some(text.into());
        }
        self
    }

    /// A store of a whole map into a map with another default value where the layout keeps
    /// the default fixed (a guard: the layout makes such map levels explicit).
    pub(crate) fn map_default(span: Option<Span>) -> Self {
        CompileError::at(
            "a whole map is stored where the maps have another default value",
            span,
        )
        .with_help(
            "the compiled model keeps every map's default fixed; the interpreter runs this game",
        )
    }

    /// The source span the error points at, if any.
    pub fn span(&self) -> Option<Span> {
        match self {
            CompileError::NoBegin | CompileError::TooLarge { .. } => None,
            CompileError::Unsupported { span, .. } => *span,
        }
    }
}
