//! `rgt run`: seeded random playouts: each play picks uniformly among the legal moves (a move
//! listed twice is twice as likely) and fails when the game is not proper (a dead end before
//! `end`, a keeper without exactly one move, two moves with the same tags to different states).

use crate::cmd::perft::{InterpArgs, compile, runtime_failure, start_state};
use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use rg_interp::{Machine, PlayError, Summary};
use std::process::ExitCode;

/// Play random games and report statistics.
///
/// Every move is chosen uniformly among the legal moves (a duplicate counts twice). A play
/// fails, as in the reference, when a state that is not final has no move, when the keeper has
/// not exactly one move, or when two moves with the same tags lead to different states.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Number of plays.
    #[arg(long, value_name = "N")]
    pub plays: u64,

    /// Seed of the random generator: the same seed gives the same plays on every machine.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Start after these moves, e.g. `//2 2/`.
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub after: String,

    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// Runs `rgt run`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let program = compile(&game, &args.interp)?;
    let mut m = Machine::new(&program);
    let start = start_state(&mut m, &args.after)?;
    let stats = m
        .playouts(&start, args.plays, args.seed)
        .map_err(|e| match e {
            PlayError::Runtime(r) => runtime_failure(*r),
            other => Failure::input(&other, None),
        })?;
    let per_second = if stats.seconds > 0.0 {
        stats.plays as f64 / stats.seconds
    } else {
        0.0
    };
    let total: u64 = stats.goals.values().sum();
    let pct = |n: u64| {
        if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        }
    };
    let text = if args.json {
        let summary = |s: &Summary| serde_json::json!({"min": s.min, "mean": s.mean, "std_dev": s.std_dev, "max": s.max});
        let goals: Vec<serde_json::Value> = stats
            .goals
            .iter()
            .map(|(g, &n)| serde_json::json!({"goals": g, "plays": n, "percent": pct(n)}))
            .collect();
        let v = serde_json::json!({
            "plays": stats.plays,
            "seed": args.seed,
            "seconds": stats.seconds,
            "plays_per_second": per_second,
            "branching": summary(&stats.branching),
            "turns": summary(&stats.turns),
            "length": summary(&stats.length),
            "goals": goals,
        });
        format!("{v}\n")
    } else {
        let row = |name: &str, s: &Summary| {
            format!(
                "  {name:<9}  {:>9.3}  {:>9.3}  {:>9.3}  {:>9.3}\n",
                s.min, s.mean, s.std_dev, s.max
            )
        };
        let mut t = format!(
            "{} plays in {:.3} s ({:.0} plays/s), seed {}\n             {:>9}  {:>9}  {:>9}  {:>9}\n",
            stats.plays, stats.seconds, per_second, args.seed, "min", "avg", "std.dev", "max"
        );
        t.push_str(&row("branching", &stats.branching));
        t.push_str(&row("turns", &stats.turns));
        t.push_str(&row("length", &stats.length));
        t.push_str("  goals\n");
        for (g, &n) in &stats.goals {
            t.push_str(&format!("    {:6.2}% of {g}\n", pct(n)));
        }
        t
    };
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
