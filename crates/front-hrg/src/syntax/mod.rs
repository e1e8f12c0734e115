//! HRG syntax: the lexer, the syntax tree and the recursive-descent parser.

mod ast;
mod lexer;
mod parser;

pub use ast::*;
pub(crate) use lexer::{is_upper, lex};
pub(crate) use parser::Parser;
