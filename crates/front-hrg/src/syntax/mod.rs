//! HRG syntax: the lexer, the syntax tree and the recursive-descent parser.

mod ast;
mod lexer;
mod parser;

pub use ast::*;
pub(crate) use lexer::is_upper;
pub(crate) use parser::Parser;

use crate::error::{HrgError, HrgErrors};
use rg_core::FileId;

/// The declarations of an HRG program, or every lexical and syntax error in it. A syntax error
/// on the line of a lexical error is left out: it most likely comes from the skipped character.
pub(crate) fn parse(file: FileId, text: &str) -> Result<Vec<Decl>, HrgErrors> {
    let (toks, mut errors) = lexer::lex(file, text);
    let line = |e: &HrgError| {
        e.span.map(|s| {
            text.get(..s.start as usize)
                .unwrap_or("")
                .matches('\n')
                .count()
        })
    };
    let bad_lines: Vec<_> = errors.iter().map(line).collect();
    match Parser::new(toks, text).program() {
        Ok(decls) if errors.is_empty() => return Ok(decls),
        Ok(_) => {}
        Err(parse_errors) => errors.extend(
            parse_errors
                .into_iter()
                .filter(|e| !bad_lines.contains(&line(e))),
        ),
    }
    Err(HrgErrors::new(errors))
}
