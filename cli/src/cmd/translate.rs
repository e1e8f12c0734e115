//! `rgt translate`: any supported language → RG (or DOT, JSON).

use crate::io::{output_target, write_output};
use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use std::process::ExitCode;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// Canonical RG text.
    Rg,
    /// Graphviz DOT of the automaton.
    Dot,
    /// JSON encoding of the game (the reference's AST encoding).
    Json,
}

impl Emit {
    /// The emitter for this format.
    pub fn emitter(self) -> &'static dyn rg_fmt::Emitter {
        match self {
            Emit::Rg => &rg_fmt::rg::RgEmitter,
            Emit::Dot => &rg_fmt::dot::DotEmitter,
            Emit::Json => &rg_fmt::json::JsonEmitter,
        }
    }
}

/// Translate a game into checked RG.
///
/// Reads INPUT (its language chosen by extension or --from), adds the built-in definitions,
/// checks the game and writes it to OUT (standard output by default). Output files are written
/// atomically: a failed run never leaves a partial file, and the input is never overwritten.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Write the result here (`-` = standard output, the default).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Emit::Rg)]
    pub emit: Emit,
}

/// Runs `rgt translate`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let text = rg_fmt::emit_to_string(args.emit.emitter(), &game);
    let target = output_target(args.output.as_deref());
    write_output(target.as_deref(), text.as_bytes(), Some(&args.game.input))?;
    Ok(ExitCode::SUCCESS)
}
