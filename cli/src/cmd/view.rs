//! `rgt view`: the automaton (or every step of its optimisation) as one self-contained HTML page.

use crate::io::{output_target, write_output};
use crate::lang::Lang;
use crate::pipeline::{GameArgs, load, load_unoptimised, pass_failure};
use crate::report::{Failure, Session};
use rg_fmt::view::{ViewBuilder, ViewOptions};
use std::path::Path;
use std::process::ExitCode;

/// Write an HTML page that draws the game's automaton, to explore in a browser.
///
/// The page is one self-contained file (no network needed): the layout is computed by rgt and the
/// page draws it with pan and zoom (drag, mouse wheel), search by node name, edge labels on
/// hover and when zoomed in, and collapsible clusters for the sub-automaton of each reachability
/// check and, for HRG and LineGames input, for the nodes of each graph or function instance.
/// With --trace, every pass of the -O level's pipeline that changes the game is a step (the
/// first step is the game as translated): select a step to see the edges it added (green) and
/// removed (red, dashed).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Write the page here (`-` = standard output; default: the input's name with `.html`, in
    /// the current directory).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<String>,

    /// Show every changing pass of the optimisation as a step with its difference.
    #[arg(long)]
    pub trace: bool,
}

/// Runs `rgt view`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let lang = Lang::detect(&args.game.input, args.game.from)?;
    let name = if args.game.input == "-" {
        "<stdin>".to_owned()
    } else {
        Path::new(&args.game.input).file_name().map_or_else(
            || args.game.input.clone(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let opts = ViewOptions {
        title: format!(
            "{name} -O{}",
            match args.game.opt {
                crate::pipeline::OptLevel::O0 => 0,
                crate::pipeline::OptLevel::O1 => 1,
                crate::pipeline::OptLevel::O2 => 2,
            }
        ),
        graph_clusters: matches!(lang, Lang::Hrg | Lang::Lg),
    };
    let mut view = ViewBuilder::new(opts);
    if args.trace {
        let (mut game, _) = load_unoptimised(session, &args.game)?;
        view.add_step("translated", &game);
        let pipeline = args.game.opt.pipeline();
        if !pipeline.is_setup_only() {
            let opts = rg_passes::Options {
                // Only a pass that changed the game (its generation) is a step.
                validate_each: true,
                validators: rg_validate::REFERENCE_VALIDATORS,
                ..rg_passes::Options::default()
            };
            let mut hook = |g: &rg_core::Game, pass: &'static str| -> Result<(), String> {
                view.add_step(pass, g);
                Ok(())
            };
            rg_passes::run(&mut game, &pipeline, &opts, &mut hook).map_err(pass_failure)?;
        }
    } else {
        let game = load(session, &args.game)?;
        view.add_step("game", &game);
    }
    let html = view.finish();
    let output = match args.output {
        Some(o) => o,
        None if args.game.input == "-" => "-".to_owned(),
        None => {
            let stem = Path::new(&name)
                .file_stem()
                .map_or_else(|| "game".into(), |s| s.to_string_lossy().into_owned());
            format!("{stem}.html")
        }
    };
    let target = output_target(Some(&output));
    write_output(target.as_deref(), html.as_bytes(), Some(&args.game.input))?;
    if let Some(t) = target {
        eprintln!("rgt view: wrote {}", t.display());
    }
    Ok(ExitCode::SUCCESS)
}
