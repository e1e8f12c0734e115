//! `rgt passes`: list every optimisation pass.

use crate::pipeline::OptLevel;
use crate::report::Failure;
use rg_passes::Pipeline;
use std::process::ExitCode;

/// List the optimisation passes in the order they run, with their phase, category, safety,
/// the -O levels and named pipelines that enable them, and a description.
///
/// Phases: setup (once, first), loop (to a fixed point), final (once, last). Safety: safe (same
/// game tree and moves), relabels (same game tree, move labels renamed or dropped
/// bijectively), unsafe (may change the game; needs --allow-unsafe).
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `rgt passes`.
pub fn run(_args: Args) -> Result<ExitCode, Failure> {
    let levels = [
        ("0", OptLevel::O0.pipeline()),
        ("1", OptLevel::O1.pipeline()),
        ("2", OptLevel::O2.pipeline()),
    ];
    let named: Vec<(&str, Pipeline)> = Pipeline::NAMES
        .iter()
        .map(|&n| (n, Pipeline::named(n).expect("a named pipeline")))
        .collect();
    let mut text = format!(
        "{:<30} {:<6} {:<13} {:<9} {:<6} {:<35} description\n",
        "pass", "phase", "category", "safety", "-O", "pipelines"
    );
    for p in rg_passes::registry() {
        let of = |list: &[(&str, Pipeline)]| -> String {
            list.iter()
                .filter(|(_, pl)| pl.contains(p.name()))
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(",")
        };
        let lower = |d: &dyn std::fmt::Debug| format!("{d:?}").to_lowercase();
        text.push_str(&format!(
            "{:<30} {:<6} {:<13} {:<9} {:<6} {:<35} {}\n",
            p.name().replace('_', "-"),
            lower(&p.phase()),
            lower(&p.category()),
            lower(&p.safety()),
            of(&levels),
            of(&named),
            p.description()
        ));
    }
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
