//! `rgt stats`: size statistics of a game.

use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use rg_core::GameStats;
use std::process::ExitCode;

/// Print size statistics of a game.
///
/// Counts are taken after translation, built-in definitions and optimisation (-O). `nodes` counts
/// distinct nodes that are an endpoint of some edge; `state_bits` is the number of bits needed to
/// store one game semistate (for each variable: product of its key-domain sizes times
/// ceil(log2(value-domain size))).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `rgt stats`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let s = GameStats::of(&game);
    let text = if args.json {
        let v = rg_pipeline::stats_json(&game);
        format!("{}\n", serde_json::to_string(&v).expect("JSON of numbers"))
    } else {
        format!(
            "nodes: {}\nedges: {}\nvariables: {}\nconstants: {}\ntypes: {}\nreachability_checks: {}\ntags: {}\npragmas: {}\nstate_bits: {}\n",
            s.nodes,
            s.edges,
            s.variables,
            s.constants,
            s.types,
            s.reachability_checks,
            s.tags,
            s.pragmas,
            s.state_bits
        )
    };
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
