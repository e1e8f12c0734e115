//! `rgt passes`: list every optimisation pass.

use crate::pipeline::OptLevel;
use crate::report::Failure;
use rg_passes::{PassPhase, Pipeline};
use std::process::ExitCode;

/// List the optimisation passes in the order they run, with their phase, category, safety,
/// the -O levels and named pipelines that enable them, and a description.
///
/// Order: the setup pass, then the loop passes (run again and again, in this order, until none
/// changes the game), then the final passes (once each, in this order). Phases: setup, loop,
/// final. Safety: safe (same game tree and moves), relabels (same game tree, move labels renamed
/// or dropped bijectively), unsafe (may change the game; needs --allow-unsafe). Names are those
/// `rgt opt --pass`, `--no-pass` and the trace use (kebab-case is accepted too). A pass in no
/// -O level or pipeline shows `-` there and runs only with `rgt opt --pass NAME`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON array, one object per pass, in the same order.
    #[arg(long)]
    pub json: bool,
}

/// Runs `rgt passes`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let levels = [
        ("0", OptLevel::O0.pipeline()),
        ("1", OptLevel::O1.pipeline()),
        ("2", OptLevel::O2.pipeline()),
    ];
    let named: Vec<(&str, Pipeline)> = Pipeline::NAMES
        .iter()
        .map(|&n| (n, Pipeline::named(n).expect("a named pipeline")))
        .collect();
    // The order the pass manager runs them in: by phase, in registry order within a phase.
    let phase_rank = |p: PassPhase| match p {
        PassPhase::Setup => 0,
        PassPhase::Loop => 1,
        PassPhase::Final => 2,
    };
    let mut passes: Vec<&'static dyn rg_passes::Pass> = rg_passes::registry().to_vec();
    passes.sort_by_key(|p| phase_rank(p.phase()));
    let lower = |d: &dyn std::fmt::Debug| format!("{d:?}").to_lowercase();
    let of = |p: &dyn rg_passes::Pass, list: &[(&str, Pipeline)]| -> Vec<String> {
        list.iter()
            .filter(|(_, pl)| pl.contains(p.name()))
            .map(|(n, _)| (*n).to_owned())
            .collect()
    };
    let text = if args.json {
        let rows: Vec<serde_json::Value> = passes
            .iter()
            .map(|&p| {
                serde_json::json!({
                    "name": p.name(),
                    "phase": lower(&p.phase()),
                    "category": lower(&p.category()),
                    "safety": lower(&p.safety()),
                    "levels": of(p, &levels),
                    "pipelines": of(p, &named),
                    "description": p.description(),
                })
            })
            .collect();
        let mut t = serde_json::to_string_pretty(&rows).expect("JSON of strings");
        t.push('\n');
        t
    } else {
        let dash = |v: Vec<String>| {
            if v.is_empty() {
                "-".to_owned()
            } else {
                v.join(",")
            }
        };
        let mut t = format!(
            "{:<30} {:<6} {:<13} {:<9} {:<6} {:<35} description\n",
            "pass", "phase", "category", "safety", "-O", "pipelines"
        );
        for &p in &passes {
            t.push_str(&format!(
                "{:<30} {:<6} {:<13} {:<9} {:<6} {:<35} {}\n",
                p.name(),
                lower(&p.phase()),
                lower(&p.category()),
                lower(&p.safety()),
                dash(of(p, &levels)),
                dash(of(p, &named)),
                p.description()
            ));
        }
        t
    };
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
