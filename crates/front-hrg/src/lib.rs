//! High-level Regular Games (HRG) front-end: parser, static semantics, lowering to RG
//! (hrg.md). Domains, functions and initial values are evaluated at compile time; graph bodies
//! are lowered by structural recursion into RG edges, with the reference's variables, tags,
//! player assignments and joins so that perft counts match.

mod error;
mod eval;
mod format;
mod lower;
mod syntax;

pub use error::HrgError;
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered, Span};

/// The canonical layout of an HRG program (comments kept on their own lines).
pub fn format(file: FileId, text: &str) -> Result<String, HrgError> {
    let toks = syntax::lex(file, text)?;
    let decls = syntax::Parser::new(toks).program()?;
    format::Formatter::new(text).program(&decls)
}

/// The HRG front-end.
#[derive(Clone, Copy, Debug, Default)]
pub struct HrgFrontEnd;

impl FrontEnd for HrgFrontEnd {
    type Error = HrgError;

    fn name(&self) -> &'static str {
        "hrg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["hrg"]
    }

    fn lower(&self, file: FileId, text: &str, _opts: &LowerOptions) -> Result<Lowered, HrgError> {
        let toks = syntax::lex(file, text)?;
        let decls = syntax::Parser::new(toks).program()?;
        let lowerer = lower::Lowerer::new(&decls)?;
        let game = lowerer.lower(&decls, Span::new(file, 0, 0))?;
        Ok(Lowered::new(game))
    }
}
