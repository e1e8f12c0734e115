//! `rgt translate`: any supported language → RG (or DOT, JSON; the generated HRG of LineGames).

use crate::io::{output_target, write_game, write_output};
use crate::lang::Lang;
use crate::pipeline::{GameArgs, hrg_text, load};
use crate::report::{Failure, Session};
use std::process::ExitCode;

pub use rg_pipeline::Emit;

/// What `rgt translate` writes: the game in one of the [`Emit`] formats, or the HRG a
/// LineGames file is lowered through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// Canonical RG text.
    Rg,
    /// Graphviz DOT of the automaton.
    Dot,
    /// JSON encoding of the game (the reference's AST encoding).
    Json,
    /// The HRG program generated from a LineGames (.lg) file (other inputs are refused).
    Hrg,
}

impl Output {
    /// The game format, `None` for the generated HRG.
    pub fn game_format(self) -> Option<Emit> {
        match self {
            Output::Rg => Some(Emit::Rg),
            Output::Dot => Some(Emit::Dot),
            Output::Json => Some(Emit::Json),
            Output::Hrg => None,
        }
    }

    /// The extension of output files.
    pub fn extension(self) -> &'static str {
        match self {
            Output::Rg => "rg",
            Output::Dot => "dot",
            Output::Json => "json",
            Output::Hrg => "hrg",
        }
    }
}

/// Translate a game into checked RG, or a whole library of games with --out-dir.
///
/// Reads INPUT (its language chosen by extension or --from), adds the built-in definitions,
/// checks the game and writes it to OUT (standard output by default). Output files are written
/// atomically: a failed run never leaves a partial file, and the input is never overwritten.
/// With --emit hrg, a LineGames (.lg) file is checked and the HRG program it is lowered through
/// is written instead (-O does not apply).
///
/// With --out-dir DIR, each INPUT may be a file or a directory (searched recursively) and every
/// game found is translated into DIR, in parallel, each in its own process under a time (and
/// optionally memory) limit. A summary table is printed at the end; --report writes one JSON
/// record per game. Exit status: 0 when every game succeeded (or was skipped), 1 when any failed,
/// timed out, hit the memory limit or crashed (0 with --allow-failures), 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// More inputs (files or directories); several inputs need --out-dir.
    #[arg(value_name = "INPUT")]
    pub more_inputs: Vec<String>,

    /// Write the result here (`-` = standard output, the default).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,

    /// Output format (`hrg`: the HRG a LineGames file is lowered through).
    #[arg(long, value_enum, default_value_t = Output::Rg)]
    pub emit: Output,

    #[command(flatten)]
    pub batch: crate::cmd::batch::BatchArgs,
}

/// Runs `rgt translate`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    if let Some(out_dir) = &args.batch.out_dir {
        let mut inputs = vec![args.game.input.clone()];
        inputs.extend(args.more_inputs.iter().cloned());
        return crate::cmd::batch::run(&inputs, &args.game, args.emit, out_dir, &args.batch);
    }
    if !args.more_inputs.is_empty() {
        return Err(Failure::Usage(
            "several inputs are translated into a directory: add --out-dir DIR".to_owned(),
        ));
    }
    if std::path::Path::new(&args.game.input).is_dir() {
        return Err(Failure::Usage(format!(
            "`{}` is a directory: translate a library with --out-dir DIR",
            args.game.input
        )));
    }
    let target = output_target(args.output.as_deref());
    let input = Some(args.game.input.as_str());
    match args.emit.game_format() {
        // Streamed: the text of a large game is never held in memory beside the game.
        Some(format) => {
            let game = load(session, &args.game)?;
            write_game(target.as_deref(), input, format.emitter(), &game)?;
            // The process ends after this command: freeing the adjacency lists of a game of
            // millions of nodes one by one took about a second (chess.kif), for nothing.
            std::mem::forget(game);
        }
        None => {
            let lang = Lang::detect(&args.game.input, args.game.from)?;
            let (name, text) = rg_pipeline::read_source(&args.game.input)?;
            let text = hrg_text(session, lang, name, text)?;
            write_output(target.as_deref(), text.as_bytes(), input)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
