//! `rgt moves`: the legal moves of a state, each as its tags, in the interpreter's order (the
//! order in which `--after` paths pick the first move with given tags).

use crate::cmd::perft::{InterpArgs, compile, runtime_failure, start_state};
use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use rg_interp::Machine;
use std::process::ExitCode;

/// List the legal moves of the initial state, or of the state after `--after PATH`.
///
/// One move per line, as its tags separated by single spaces, in the interpreter's order with
/// duplicates; a move without tags is printed as `(keeper)` (or `(no tags)` when another player
/// moves) and written as an empty move in --after (`//`). A final state has no moves.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Replay these moves first, e.g. `//2 2/` (tags separated by single spaces, every move
    /// between slashes, keeper moves included).
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub after: String,

    /// Print one JSON object: the node, the player to move, whether the state is final, and
    /// the moves as lists of tags.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// Runs `rgt moves`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let program = compile(&game, &args.interp)?;
    let mut m = Machine::new(&program);
    let state = start_state(&mut m, &args.after)?;
    let moves = m.moves(&state).map_err(|e| runtime_failure(*e))?;
    let text = if args.json {
        let list: Vec<Vec<&str>> = (0..moves.len())
            .map(|i| moves.tags(i).iter().map(|&t| program.name(t)).collect())
            .collect();
        let v = serde_json::json!({
            "node": program.node_name(state.node),
            "player": program.name(m.player(&state.data)),
            "final": m.is_final(&state),
            "moves": list,
        });
        format!("{v}\n")
    } else {
        // A move without tags (always the keeper's, usually) would be an empty line.
        let empty = if m.is_keeper(&state.data) {
            "(keeper)"
        } else {
            "(no tags)"
        };
        let mut s = String::new();
        for i in 0..moves.len() {
            let tags = moves.tags(i);
            s.push_str(&if tags.is_empty() {
                empty.to_owned()
            } else {
                m.tag_text(tags)
            });
            s.push('\n');
        }
        s
    };
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
