//! `rgt passes`: list every optimisation pass.

use crate::report::Failure;
use std::process::ExitCode;

/// List the optimisation passes in the order they run, with their phase, category, safety and
/// description, and the named pipelines that enable them.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `rgt passes`.
pub fn run(_args: Args) -> Result<ExitCode, Failure> {
    let mut text = format!(
        "{:<26} {:<6} {:<13} {:<9} {:<28} description\n",
        "pass", "phase", "category", "safety", "pipelines"
    );
    for p in rg_passes::registry() {
        let pipelines: Vec<&str> = rg_passes::Pipeline::NAMES
            .iter()
            .copied()
            .filter(|n| rg_passes::Pipeline::named(n).is_some_and(|pl| pl.contains(p.name())))
            .collect();
        text.push_str(&format!(
            "{:<26} {:<6} {:<13} {:<9} {:<28} {}\n",
            p.name().replace('_', "-"),
            format!("{:?}", p.phase()).to_lowercase(),
            format!("{:?}", p.category()).to_lowercase(),
            format!("{:?}", p.safety()).to_lowercase(),
            pipelines.join(","),
            p.description()
        ));
    }
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
