//! GDL (KIF, GDL-II) front-end: reader, validation, grounding, lowering to RG (gdl.md).
//!
//! Stages, each in its own module:
//!
//! 1. [`lexer`] (prefix KIF) or [`infix`] (the `h :- b & ~c` syntax), chosen by the first
//!    significant character unless [`ParseOptions::syntax`] says otherwise;
//! 2. [`reader`]: S-expressions with a span on every node (both syntaxes end here);
//! 3. normalisation (gdl.md §2.5) into the index-based [`Program`] of [`ast`] — [`parse`];
//! 4. [`validate`]: every check of gdl.md §4 plus the analysis later stages need (relation
//!    dependency graph, strata, static / state / move classification, roles) — [`check`];
//! 5. [`print`]: normalised KIF (`rgt fmt x.kif`) — [`format`].
//!
//! Findings are [`GdlDiagnostic`]s with stable codes (`gdl::E-VAL-040`, see [`error`]); a stage
//! that finds an error returns all its findings (errors and warnings) at once in [`GdlErrors`].
//!

pub mod ast;
pub mod error;
pub mod infix;
pub mod lexer;
mod normalize;
pub mod print;
pub mod reader;

pub use ast::{Args, Atom, Literal, Program, RelId, Rule, Sym, Symbols, Term, TermId, VarId};
pub use error::{Code, GdlDiagnostic, GdlErrors, Level};
pub use print::print;

use error::Sink;
use rg_core::FileId;

/// Which concrete syntax a text is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// Decide from the first significant character: `(` is prefix, anything else infix
    /// (gdl.md §2.7).
    #[default]
    Auto,
    /// Prefix KIF.
    Prefix,
    /// Infix GDL.
    Infix,
}

/// How to read a description.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ParseOptions {
    /// The concrete syntax.
    pub syntax: Syntax,
    /// Compare constants and variables exactly instead of case-insensitively (keywords are
    /// always case-insensitive; gdl.md §2.6).
    pub case_sensitive: bool,
}

/// A parsed and normalised description with the warnings found on the way.
#[derive(Debug)]
pub struct Parsed {
    /// The normalised rules.
    pub program: Program,
    /// Warnings of the lexer, reader and normalisation (source order).
    pub warnings: Vec<GdlDiagnostic>,
}

/// Reads a GDL description (either syntax) and normalises it (gdl.md §2). Fails with every
/// syntax error found (and the warnings so far); spans refer to `file`.
pub fn parse(file: FileId, text: &str, opts: &ParseOptions) -> Result<Parsed, GdlErrors> {
    let mut sink = Sink::default();
    let infix = match opts.syntax {
        Syntax::Auto => infix::looks_infix(text),
        Syntax::Prefix => false,
        Syntax::Infix => true,
    };
    let forms = if infix {
        infix::read(file, text, &mut sink)
    } else {
        reader::read(file, text, &mut sink)
    };
    let mut builder = normalize::Builder::new(Program::new(file, opts.case_sensitive), &mut sink);
    if !forms.is_empty() {
        for form in &forms {
            builder.form(form);
        }
    }
    let program = builder.finish();
    finish(sink.diags, |warnings| Parsed { program, warnings })
}

/// The normalised KIF text of a description (`rgt fmt`): [`parse`] then [`print`].
pub fn format(file: FileId, text: &str, opts: &ParseOptions) -> Result<String, GdlErrors> {
    parse(file, text, opts).map(|p| print(&p.program))
}

/// Sorted warnings to `ok`, or every finding as the error when there is an error.
fn finish<T>(
    mut diags: Vec<GdlDiagnostic>,
    ok: impl FnOnce(Vec<GdlDiagnostic>) -> T,
) -> Result<T, GdlErrors> {
    error::sort_diagnostics(&mut diags);
    if diags.iter().any(GdlDiagnostic::is_error) {
        Err(GdlErrors::new(diags))
    } else {
        Ok(ok(diags))
    }
}
