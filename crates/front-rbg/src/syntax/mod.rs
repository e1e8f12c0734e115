//! RBG syntax: the lexer, the syntax tree and the LL parser of the sections.

mod ast;
mod lexer;
mod parser;

pub(crate) use ast::{Arith, Game, NameKind, Rule};
pub(crate) use lexer::{Tok, lex};
pub(crate) use parser::Parser;
