//! LineGames (`.lg`) front-end: a line-oriented format for Alquerque-like games (two sides,
//! men that step along the lines of a board and capture by jumping).
//!
//! Stages, each usable alone: [`parse`] (logos lexer + LALRPOP grammar, every syntax error of
//! the file reported) → [`check`] (the static checks, the board generators and the initial
//! position, all errors at once) → [`to_hrg`] (an HRG syntax tree built directly, spans
//! pointing into the `.lg` file) → `front_hrg::lower_ast` (RG). [`hrg_text`] prints
//! the generated HRG (`rgt translate x.lg --emit hrg`).

pub mod ast;
pub mod board;
mod check;
pub mod direction;
mod error;
mod format;
mod lexer;
mod lower;
mod parser;
pub mod setup;

pub use check::{LineGame, MAX_LIMIT, check};
pub use error::{LgError, LgErrors, LgWarning};
pub use format::format;
pub use lower::to_hrg;
pub use parser::parse;

use rg_core::{FileId, FrontEnd, LowerOptions, Lowered, Span};

/// Parses and checks a `.lg` text: the game and its warnings.
pub fn load(file: FileId, text: &str) -> Result<(LineGame, Vec<LgWarning>), LgErrors> {
    let ast = parse(file, text)?;
    check(&ast, Span::new(file, 0, text.len()))
}

/// The generated HRG program as text: a title comment `// «title» (lowered from LineGames)`,
/// then the canonical layout of
/// `rgt fmt` (so formatting the output changes nothing).
pub fn hrg_text(game: &LineGame) -> String {
    format!(
        "// {} (lowered from LineGames)\n{}",
        game.title,
        front_hrg::print(&to_hrg(game))
    )
}

/// Lowers a checked game to RG through HRG. An HRG error here is a bug of this front-end.
pub fn lower_game(game: &LineGame, file: FileId) -> Result<rg_core::Game, LgErrors> {
    front_hrg::lower_ast(&to_hrg(game), file).map_err(|e| {
        let first = e.errors.into_iter().next();
        LgError::Internal {
            message: first
                .as_ref()
                .map_or_else(String::new, |e| e.message.clone()),
            span: first.and_then(|e| e.label),
        }
        .into()
    })
}

/// The LineGames front-end.
#[derive(Clone, Copy, Debug, Default)]
pub struct LgFrontEnd;

impl FrontEnd for LgFrontEnd {
    type Error = LgErrors;

    fn name(&self) -> &'static str {
        "lg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["lg"]
    }

    fn lower(&self, file: FileId, text: &str, _opts: &LowerOptions) -> Result<Lowered, LgErrors> {
        let (game, warnings) = load(file, text)?;
        let mut lowered = Lowered::new(lower_game(&game, file)?);
        lowered.warnings = warnings.into_iter().map(miette::Report::new).collect();
        Ok(lowered)
    }
}
