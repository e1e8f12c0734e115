//! A front-end's list of errors: every independent error of one source file, in source order,
//! without repeats and bounded, shown through miette as one group whose related diagnostics are
//! the errors themselves (so each keeps its own code, span and help).
//!
//! A front-end defines its error type, implements [`ListedError`] for it, and names the list
//! `ErrorList<ItsError>`.

use crate::span::Span;
use miette::Diagnostic;
use std::fmt;

/// How many errors a list keeps; past it, one note (see [`ListedError::too_many`]) ends it.
pub const MAX_ERRORS: usize = 100;

/// An error that can stand in an [`ErrorList`].
pub trait ListedError: Diagnostic + Clone + PartialEq + Send + Sync + 'static {
    /// The language in the list's message, e.g. `HRG` ("2 HRG errors").
    const LANGUAGE: &'static str;
    /// The code of the list as a whole, e.g. `hrg::invalid`.
    const GROUP_CODE: &'static str;
    /// Where the error is, for the source order.
    fn span(&self) -> Option<Span>;
    /// The note that ends a list cut at [`MAX_ERRORS`], placed at the first error left out.
    fn too_many(at: Option<Span>) -> Self;
    /// Whether this is that note.
    fn is_too_many(&self) -> bool;
}

/// Every error of one source file (at least one), in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorList<E> {
    pub errors: Vec<E>,
}

impl<E: ListedError> ErrorList<E> {
    /// Sorts by position, drops repeats (code expanded twice reports its error once) and
    /// bounds the list at [`MAX_ERRORS`] with a note.
    pub fn new(mut errors: Vec<E>) -> Self {
        errors.sort_by_key(|e| e.span().map(|s| (s.start, s.end)));
        errors.dedup();
        if errors.len() > MAX_ERRORS {
            let at = errors[MAX_ERRORS].span();
            errors.truncate(MAX_ERRORS);
            errors.push(E::too_many(at));
        }
        ErrorList { errors }
    }
}

impl<E> From<E> for ErrorList<E> {
    fn from(e: E) -> Self {
        ErrorList { errors: vec![e] }
    }
}

impl<E: ListedError> fmt::Display for ErrorList<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let language = E::LANGUAGE;
        if self.errors.last().is_some_and(E::is_too_many) {
            return write!(f, "more than {MAX_ERRORS} {language} errors");
        }
        let n = self.errors.len();
        write!(f, "{n} {language} error{}", if n == 1 { "" } else { "s" })
    }
}

impl<E: ListedError> std::error::Error for ErrorList<E> {}

impl<E: ListedError> Diagnostic for ErrorList<E> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(E::GROUP_CODE))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.errors.iter().map(|e| e as &dyn Diagnostic)))
    }
}

/// Checks a front-end's code list: every code unique and of the form `prefix::phase::what` (or
/// `prefix::what`) in kebab-case. For the front-ends' tests.
pub fn check_code_scheme(codes: &[&str], prefix: &str) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for c in codes {
        if !seen.insert(c) {
            return Err(format!("{c} twice"));
        }
        let parts: Vec<&str> = c.split("::").collect();
        if parts[0] != prefix || !(parts.len() == 2 || parts.len() == 3) {
            return Err(format!("{c} is not `{prefix}::phase::what`"));
        }
        if let Some(p) = parts[1..]
            .iter()
            .find(|p| !p.chars().all(|ch| ch.is_ascii_lowercase() || ch == '-'))
        {
            return Err(format!("{c}: `{p}` is not kebab-case"));
        }
    }
    Ok(())
}

/// Checks that no Rust source under `dir` but `error.rs` spells a code of `prefix` as a string
/// (`"hrg::…"`): codes are written as the front-end's `Code` variants, whose texts are all in its
/// list. For the front-ends' tests.
pub fn check_codes_not_spelt(dir: &std::path::Path, prefix: &str) -> Result<(), String> {
    let needle = format!("\"{prefix}::");
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries {
            let p = e.map_err(|e| e.to_string())?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "error.rs") {
                let text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
                if text.contains(&needle) {
                    return Err(format!("{} spells a code", p.display()));
                }
            }
        }
    }
    Ok(())
}

/// Declares a front-end's error codes: `pub enum Code` with one variant per code, `Code::as_str`
/// giving the printed code, and `pub const CODES` listing every code followed by the caller's
/// `GROUP_CODE` (which must be in scope), so the list cannot miss a code. Usage:
/// `rg_core::error_codes! { "HRG"; /// doc\n Variant => CODE_TEXT, … }`, each code text a string literal.
#[macro_export]
macro_rules! error_codes {
    ($lang:literal; $($(#[$doc:meta])* $variant:ident => $code:literal,)*) => {
        /// What went wrong, as a stable code (see the module documentation for the scheme).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// The code as printed.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }
        }

        #[doc = concat!(
            "Every code the ", $lang, " front-end can emit (for `--allow`/`--deny` to reject \
             unknown ones): the code of each [`Code`], then [`GROUP_CODE`]."
        )]
        pub const CODES: &[&str] = &[$($code,)* GROUP_CODE];
    };
}
