//! Why a pipeline step failed.

use crate::diag::Diagnostic;

/// Why a step of the pipeline failed. Rendered once, by the caller (the `rgt` command line
/// renders it with [`crate::render`] and maps it to an exit status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The input has errors: every diagnostic found (errors, and the warnings met on the way),
    /// in source order.
    Input(Vec<Diagnostic>),
    /// A file could not be read or written.
    Io(String),
    /// The request cannot be carried out as asked (an unknown code, a wrong language, …).
    Usage(String),
}

impl Error {
    /// An input error made of a `miette` diagnostic whose spans point into `file` (a group is
    /// flattened into its members).
    pub fn input(d: &dyn miette::Diagnostic, file: Option<rg_core::FileId>) -> Error {
        Error::Input(Diagnostic::from_miette(d, file))
    }

    /// An input error made of one diagnostic.
    pub fn diagnostic(d: Diagnostic) -> Error {
        Error::Input(vec![d])
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(diags) => {
                let counts = crate::diag::Counts::of(diags);
                match diags.iter().find(|d| d.is_error()) {
                    Some(first) => write!(f, "{}", first.message.lines().next().unwrap_or(""))?,
                    None => f.write_str("the input has errors")?,
                }
                write!(f, " ({counts})")
            }
            Error::Io(m) | Error::Usage(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}
