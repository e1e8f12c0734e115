//! `rgt check`: look for violations of the proper-game conditions by playing (every action can be
//! evaluated, moves with the same tags lead to the same state, a state not at `end` has a move,
//! the keeper has exactly one move, every play ends).

use crate::cmd::perft::{InterpArgs, compile, compile_with, runtime_failure, start_state};
use crate::pipeline::{GameArgs, load};
use crate::report::{Diagnostic, Failure, Session};
use rg_interp::{CheckOptions, CompileOptions, Machine};
use std::process::ExitCode;

/// Check that a game is proper, on a bounded part of its tree.
///
/// Explores every state within `--depth` moves (keeper moves included) and plays `--plays`
/// random games to their end, evaluating every action strictly. Reports each violation met: an
/// action that cannot be evaluated (e.g. a map key outside the map's domain, a stored symbol
/// outside the location's type, recursive reachability), two moves with the same tags leading to
/// different states, a state that is not final without moves, a keeper with several moves, a
/// play that repeats a state — each with the moves that lead there — and pragmas that change the
/// game tree (perft to min(D, 3) with and without them) or any search (every search from the
/// states within min(D, 3) moves of the initial state, explored without the pragmas: a
/// `@unique` node reached twice with one state, a `@repeat` that would merge different
/// states, a `@disjoint` node with two edges that hold). Exit status 1 if any.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Depth of the full exploration.
    #[arg(long, short = 'd', value_name = "D", default_value_t = 4)]
    pub depth: usize,

    /// Number of random plays.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub plays: u64,

    /// Seed of the random plays.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Start after these moves, e.g. `//2 2/`.
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub after: String,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// Runs `rgt check`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let program = compile(&game, &args.interp)?;
    // Walks that differ only in `goals` or `visible` are merged by the interpreter (the first
    // one wins), which would hide two moves with the same tags leading to different states: the
    // check compares every variable instead.
    let every = compile_with(
        &game,
        CompileOptions {
            compare_every_variable: true,
            search_limit: args.interp.search_limit,
            ..CompileOptions::default()
        },
    )?;
    let mut m = Machine::new(&every);
    let start = start_state(&mut m, &args.after)?;
    let opts = CheckOptions {
        depth: args.depth,
        plays: args.plays,
        seed: args.seed,
        ..CheckOptions::default()
    };
    let mut found = m.check(&start, &opts).map_err(|e| runtime_failure(*e))?;
    if !args.interp.ignore_pragmas && !game.pragmas.is_empty() {
        let plain = compile(
            &game,
            &InterpArgs {
                ignore_pragmas: true,
                ..args.interp.clone()
            },
        )?;
        found.extend(rg_interp::check_pragmas(
            &program,
            &plain,
            &start,
            args.depth.min(3),
        ));
        // Perft only sees a wrong pragma that changes a count; this sees every search that a
        // pragma would change (from the initial state).
        let opts = rg_interp::VerifyOptions {
            depth: args.depth.min(3),
            ..rg_interp::VerifyOptions::default()
        };
        match rg_interp::verify_pragmas(&game, &opts) {
            rg_interp::Verified::Violated(v) => found.extend(v),
            rg_interp::Verified::Holds { .. } | rg_interp::Verified::Inconclusive(_) => {}
        }
    }
    let summary = format!(
        "checked to depth {} and {} random plays (seed {}): {} violation{}\n",
        args.depth,
        args.plays,
        args.seed,
        found.len(),
        if found.len() == 1 { "" } else { "s" }
    );
    if found.is_empty() {
        crate::io::write_output(None, summary.as_bytes(), None)?;
        return Ok(ExitCode::SUCCESS);
    }
    let diags: Vec<Diagnostic> = found
        .iter()
        .flat_map(|v| Diagnostic::from_miette(v, v.span.map(|s| s.file)))
        .collect();
    session.emit(&diags);
    crate::io::write_output(None, summary.as_bytes(), None)?;
    Ok(ExitCode::from(crate::report::EXIT_INPUT))
}
