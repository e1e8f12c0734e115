//! Embedding `rgt`: load a game in any language, look at its moves, play it to the end and read
//! the goals.
//!
//! ```sh
//! cargo run -p rg-pipeline --example embed -- examples/nim.rg
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // an example program reports what it does

use rg_pipeline::{OptLevel, Options, Pipeline, Playable};
use std::fmt::Write;

/// Loads the game at `path`, plays the first legal move until the end and describes it all.
pub fn run(path: &str) -> Result<String, String> {
    let mut out = String::new();
    // Options: the language comes from the extension; -O2; the default size limit and lints.
    let mut pipeline = Pipeline::new(Options {
        opt: OptLevel::O2,
        ..Options::default()
    });
    // Errors are typed; `render_error` shows them as `rgt` does.
    let loaded = pipeline
        .load_path(path)
        .map_err(|e| pipeline.render_error(&e))?;
    out.push_str(&pipeline.render(&loaded.diagnostics)); // warnings, if any
    let stats = rg_core::GameStats::of(&loaded.game);
    let _ = writeln!(out, "{path}: {} nodes, {} edges", stats.nodes, stats.edges);

    let play = Playable::new(&loaded.game).map_err(|e| pipeline.render_error(&e))?;
    let mut pos = play.initial();
    let _ = writeln!(
        out,
        "perft(3) = {}",
        play.perft(&pos, 3).map_err(|e| e.to_string())?
    );
    let mut turns = 0;
    loop {
        let moves = play.moves(&pos).map_err(|e| e.to_string())?;
        let Some(first) = moves.first() else { break };
        if !first.tags.is_empty() {
            let _ = writeln!(
                out,
                "{} plays {} (of {} moves)",
                play.player(&pos),
                first.tags.join(" "),
                moves.len()
            );
            turns += 1;
        }
        pos = play.apply(first);
    }
    let _ = writeln!(out, "the game ended after {turns} moves");
    for g in play.goals(&pos) {
        let _ = writeln!(out, "goal of {}: {:?}", g.player, g.value);
    }
    Ok(out)
}

fn main() -> std::process::ExitCode {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/nim.rg".to_owned());
    match run(&path) {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            eprint!("{diagnostics}");
            std::process::ExitCode::FAILURE
        }
    }
}
