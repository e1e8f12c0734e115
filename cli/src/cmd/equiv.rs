//! `rgt equiv`: the game-tree oracle for two games in any languages.

use crate::cmd::perft::{InterpArgs, compile};
use crate::lang::Lang;
use crate::pipeline::{GameArgs, OptLevel, load};
use crate::report::{Failure, Session};
use rg_interp::equiv::{
    Compared, Divergence, EquivOptions, MAX_PLAY, compare_programs, compare_relabelled,
};
use std::process::ExitCode;

/// Check that two games have the same game tree.
///
/// Each game is read in its own language (by its extension, or --from) and translated at the
/// -O level. Compares the perft counts at every depth up to --depth, then plays --plays seeded
/// random games to their end in both at once, comparing at every step the legal moves (as tag
/// lists, so moves must have the same names in both games; see --relabel), whether the state is
/// final, and at the end the goals of every player. Prints what was compared and the perft
/// counts; the first divergence is an error (exit status 1) showing the moves that lead to it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first game (`-` reads standard input).
    #[arg(value_name = "A")]
    pub a: String,

    /// The second game.
    #[arg(value_name = "B")]
    pub b: String,

    /// The language of both games; by default each is chosen by its extension.
    #[arg(long, value_enum, value_name = "LANG")]
    pub from: Option<Lang>,

    /// Optimisation level of both translations (0, 1 or 2).
    #[arg(
        short = 'O',
        value_enum,
        value_name = "LEVEL",
        default_value = "2",
        hide_default_value = true
    )]
    pub opt: OptLevel,

    /// Perft counts are compared at every depth up to this one (moves of players and of
    /// `random`).
    #[arg(long, short = 'd', value_name = "D", default_value_t = 3)]
    pub depth: usize,

    /// Number of random playouts compared.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub plays: usize,

    /// Seed of the playouts.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Do not compare move names: at every state the moves of A must pair up one to one with
    /// those of B (same player to move, same final states and goals, and paired moves leading to
    /// states with the same tree of unlabelled moves two deep). For games whose moves are named
    /// differently, e.g. one game in two languages, or a translation at -O0 and at -O2, which
    /// may drop or rename tags.
    #[arg(long)]
    pub relabel: bool,

    /// See `rgt translate --size-limit`.
    #[arg(long, value_name = "N")]
    pub size_limit: Option<u64>,

    /// See `rgt translate --lenient`.
    #[arg(long)]
    pub lenient: bool,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// The game arguments of one input.
fn game_args(input: &str, args: &Args) -> GameArgs {
    GameArgs {
        input: input.to_owned(),
        from: args.from,
        opt: args.opt,
        deny: None,
        allow: Vec::new(),
        size_limit: args.size_limit,
        lenient: args.lenient,
    }
}

/// A divergence found between `who` as an error.
pub(crate) fn divergence(who: &str, d: Divergence) -> Failure {
    if let Some(e) = d.limit {
        // Not a difference: the interpreter stopped at its search limit.
        return Failure::input(&*e, None);
    }
    Failure::input(
        &Divergence {
            what: format!("{who}: {}", d.what),
            path: d.path,
            limit: None,
        },
        None,
    )
}

/// What an oracle run compared, in words: `unit` names a playout's steps, `max` the steps after
/// which a playout is stopped.
pub(crate) fn describe(done: &Compared, unit: &str, max: usize) -> String {
    let counts: Vec<String> = done.counts.iter().map(u64::to_string).collect();
    let mut text = format!(
        "perft equal to depth {} ({})",
        done.counts.len().saturating_sub(1),
        counts.join(" ")
    );
    if done.plays > 0 {
        text.push_str(&format!(
            "; {} playouts equal (legal moves, final states, goals; {} {unit} in all)",
            done.plays, done.moves
        ));
    }
    if done.cut > 0 {
        text.push_str(&format!(
            "; {} of them stopped after {max} {unit} before the end of the game",
            done.cut
        ));
    }
    text
}

/// Runs `rgt equiv`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    if args.a == "-" && args.b == "-" {
        return Err(Failure::Usage(
            "only one of the games can be read from standard input".to_owned(),
        ));
    }
    let ga = load(session, &game_args(&args.a, &args))?;
    let gb = load(session, &game_args(&args.b, &args))?;
    let (pa, pb) = (compile(&ga, &args.interp)?, compile(&gb, &args.interp)?);
    let opts = EquivOptions {
        depth: args.depth,
        plays: args.plays,
        seed: args.seed,
    };
    let done = if args.relabel {
        compare_relabelled(&pa, &pb, &opts)
    } else {
        compare_programs(&pa, &pb, &opts)
    }
    .map_err(|d| divergence("A and B", d))?;
    println!("equivalent: {}", describe(&done, "moves", MAX_PLAY));
    Ok(ExitCode::SUCCESS)
}
