//! `rgt compile`: write a game's native forward model (C++ sources, driver, Makefile).

use crate::io::write_output;
use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use rg_core::Game;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Generate a native forward model of a game: C++17 sources, a driver and a Makefile.
///
/// Writes `game.hpp` and `game.cpp` (the forward model: state, legal moves, apply, goals; only
/// the C++ standard library), `driver.cpp` (perft and random playouts, as `rgt perft` and
/// `rgt run` compute them) and a `Makefile` into DIR. Build with `make -C DIR` and run
/// `DIR/driver perft 3` or `DIR/driver play --plays 1000 --seed 1`. `rgt bench` does all of it.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// The directory to write the sources into (created if missing).
    #[arg(short = 'o', long = "out-dir", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: PathBuf,

    /// Ignore the @disjoint, @unique and @repeat pragmas, as `rgt perft --ignore-pragmas` does.
    #[arg(long)]
    pub ignore_pragmas: bool,

    #[command(flatten)]
    pub model: ModelArg,
}

/// The form of the generated forward model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModelKind {
    /// Functions for small and medium games, tables for games whose functions would take
    /// the C++ compiler too long.
    Auto,
    /// One C++ function per node and search kind (fastest to run, slowest to build).
    Functions,
    /// The automaton as constant arrays walked by a fixed engine (builds in seconds).
    Tables,
}

/// `--model`, shared by `rgt compile` and `rgt bench`.
#[derive(Debug, clap::Args)]
pub struct ModelArg {
    /// The form of the forward model: `auto` writes functions unless the game's automaton is
    /// so large that they would take the C++ compiler more than about a minute.
    #[arg(long, value_enum, default_value = "auto")]
    pub model: ModelKind,
}

impl ModelArg {
    /// The library's option.
    pub fn get(&self) -> rg_compile::Model {
        match self.model {
            ModelKind::Auto => rg_compile::Model::Auto,
            ModelKind::Functions => rg_compile::Model::Functions,
            ModelKind::Tables => rg_compile::Model::Tables,
        }
    }
}

/// The game's name for the generated sources: the input's file stem.
pub fn game_name(input: &str) -> String {
    Path::new(input)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty() && *s != "-")
        .unwrap_or("game")
        .to_string()
}

/// Generates the sources of a loaded game read from `input`.
pub fn generate(
    game: &Game,
    input: &str,
    ignore_pragmas: bool,
    model: rg_compile::Model,
) -> Result<rg_compile::Sources, Failure> {
    let opts = rg_compile::Options {
        name: game_name(input),
        ignore_pragmas,
        unit_bytes: None,
        model,
    };
    rg_compile::compile(game, &opts).map_err(|e| {
        let file = e.span().map(|s| s.file);
        Failure::input(&e, file)
    })
}

/// Writes `sources` into `dir`.
pub fn write_sources(
    dir: &Path,
    sources: &rg_compile::Sources,
    input: &str,
) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Io(format!("cannot create `{}`: {e}", dir.display())))?;
    for (name, text) in sources.files() {
        write_output(Some(&dir.join(name)), text.as_bytes(), Some(input))?;
    }
    Ok(())
}

/// Runs `rgt compile`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let game = load(session, &args.game)?;
    let sources = generate(
        &game,
        &args.game.input,
        args.ignore_pragmas,
        args.model.get(),
    )?;
    write_sources(&args.out, &sources, &args.game.input)?;
    Ok(ExitCode::SUCCESS)
}
