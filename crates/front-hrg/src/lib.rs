//! High-level Regular Games (HRG) front-end: parser, static semantics, lowering to RG.
//! Domains, functions and initial values are evaluated at compile time; graph bodies are
//! lowered by structural recursion into RG edges, with the reference's variables, tags, player
//! assignments and joins so that perft counts match.
//!
//! # Errors
//!
//! [`HrgErrors`] lists every independent error of a program (at most 100, then a note), each
//! an [`HrgError`] with a stable [`Code`]. Syntax errors are recovered from at the next
//! statement or declaration line; declarations, names and graph bodies are checked in full;
//! unknown names are reported on their token with the closest declared name.
//!
//! Codes are `hrg::<phase>::<what>`, in kebab-case, grouped by the phase that finds them:
//!
//! - `lex`: characters and reserved words;
//! - `parse`: the grammar (the parser resynchronises at the next declaration or statement, so
//!   independent syntax errors are all reported);
//! - `name`: names that are not declared (with the closest declared name as a suggestion) or
//!   declared twice;
//! - `type`: domains, types, arities and the shapes of values;
//! - `eval`: compile-time evaluation of domains, functions and initial values;
//! - `graph`: the rules of graph bodies (control statements, conditions, run-time expressions);
//! - `limit`: what a program may make at translation time (`--size-limit`);
//! - `format`: `rgt fmt` only.
//!
//! [`CODES`] lists every code; a code never changes meaning once published.

mod error;
mod eval;
mod format;
mod lower;
mod resolve;
mod syntax;

pub use error::{CODES, Code, GROUP_CODE, HrgError, HrgErrors};
use rg_core::{FileId, FrontEnd, Game, LowerOptions, Lowered, Span};

/// The HRG syntax tree, for front-ends that generate HRG (LineGames) instead of parsing text:
/// build a `Vec<Decl>` with spans into their own source, then [`lower_ast`] it or [`print()`] it.
pub mod ast {
    pub use crate::syntax::{
        BinOp, Binding, Decl, Element, Expr, ExprKind, Function, Graph, MapPart, Pattern, Stmt,
        StmtKind, Type, Values,
    };
}

/// The canonical layout of an HRG program (comments kept on their own lines).
pub fn format(file: FileId, text: &str) -> Result<String, HrgErrors> {
    let decls = syntax::parse(file, text)?;
    Ok(format::Formatter::new(text).program(&decls)?)
}

/// Lowers an HRG program given as a syntax tree (spans in errors and in the game are those of
/// the tree; `file` is the file they refer to).
pub fn lower_ast(decls: &[ast::Decl], file: FileId) -> Result<Game, HrgErrors> {
    lower_ast_with(decls, file, &LowerOptions::default())
}

/// [`lower_ast`] with options (the size limit).
pub fn lower_ast_with(
    decls: &[ast::Decl],
    file: FileId,
    opts: &LowerOptions,
) -> Result<Game, HrgErrors> {
    lower_source(decls, None, file, opts)
}

/// Lowers a program; `text`, when there is one, locates names that the syntax tree does not
/// give a span of their own (the types of a declaration).
fn lower_source(
    decls: &[ast::Decl],
    text: Option<&str>,
    file: FileId,
    opts: &LowerOptions,
) -> Result<Game, HrgErrors> {
    let mut game = lower::Lowerer::new(decls, opts.size_limit())
        .lower(decls, text, Span::new(file, 0, 0))
        .map_err(HrgErrors::new)?;
    // The joins after a `loop` or after branches that all end the game, and checks that cannot
    // hold, are generated but never walked: dropped, so the translation is lint-clean.
    rg_core::tidy::remove_dead_code(&mut game);
    Ok(game)
}

/// The canonical text of an HRG syntax tree (the layout of [`format()`], without comments).
pub fn print(decls: &[ast::Decl]) -> String {
    format::Formatter::new("")
        .program(decls)
        .expect("only comments can fail to be placed, and there are none")
}

/// The HRG front-end.
#[derive(Clone, Copy, Debug, Default)]
pub struct HrgFrontEnd;

impl FrontEnd for HrgFrontEnd {
    type Error = HrgErrors;

    fn name(&self) -> &'static str {
        "hrg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["hrg"]
    }

    fn lower(&self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, HrgErrors> {
        let decls = syntax::parse(file, text)?;
        Ok(Lowered::new(lower_source(&decls, Some(text), file, opts)?))
    }
}
