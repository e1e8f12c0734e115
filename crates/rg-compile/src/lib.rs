//! RG to native forward models: C++17 source of a game's move generator, with a driver.
//!
//! [`compile`] turns a checked (and usually optimised) game into four files: `game.hpp` and
//! `game.cpp`, a self-contained forward model (state, legal moves in the interpreter's order,
//! apply, goals, visibility, a readable description; only the C++ standard library), `driver.cpp`,
//! which computes perft and random playouts exactly as `rgt perft` and `rgt run` do, and a
//! `Makefile`. The model follows the interpreter's semantics to the move order, so
//! the same seed plays the same games; the pragmas the interpreter trusts (`@unique`,
//! `@repeat`, `@disjoint`, `@disjointExhaustive`) are trusted the same way.
//!
//! Code generation is designed for speed rather than a transliteration of the interpreter:
//! symbols are class-local small integers ([`layout`]), the state is packed into bytes (fields
//! narrower than a byte share bytes), maps are flat arrays, every node gets one function per
//! search kind ([`search`]) that mutates one working state in place and undoes its assignments,
//! and visited-state checks exist only where the pragmas do not rule them out.
//!
//! That *function model* builds slowly for huge automata (GDL translations with 10^5–10^6
//! nodes), so above [`MAX_FUNCTION_WORK`] [`Model::Auto`] writes the *table model* instead
//! (the `tables` module): the same state layout, interface and driver, with the automaton as constant
//! arrays walked by a fixed engine that runs the interpreter's search.

mod codegen;
mod defer;
mod error;
mod expr;
mod layout;
mod memo;
mod progress;
mod search;
mod tables;
mod visits;

pub use error::CompileError;
use rg_core::Game;

/// Options of [`compile`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The game's name, shown by the driver and recorded in the sources.
    pub name: String,
    /// Ignore `@unique`, `@repeat` and `@disjoint` (as `rgt perft --ignore-pragmas`).
    pub ignore_pragmas: bool,
    /// Bytes of node functions per translation unit when a game needs more than two (default
    /// 1.5 MB); tests set it low to exercise the sources in several units.
    pub unit_bytes: Option<usize>,
    /// Which forward model to generate (default: chosen by the game's size).
    pub model: Model,
}

/// The two forms of the generated forward model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Model {
    /// Functions for games whose node functions stay small enough to build quickly
    /// ([`MAX_FUNCTION_WORK`]), tables for larger ones.
    #[default]
    Auto,
    /// One C++ function per node and search kind: the fastest model, and the slowest to build.
    Functions,
    /// The automaton as constant arrays walked by a fixed engine: builds in seconds whatever
    /// the game's size.
    Tables,
}

impl Model {
    /// The model's name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Auto => "auto",
            Model::Functions => "functions",
            Model::Tables => "tables",
        }
    }
}

/// The generated files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    pub game_hpp: String,
    pub game_cpp: String,
    /// For large games: more translation units of node functions (`game_1.cpp`, …), so that
    /// they compile in parallel and in bounded memory.
    pub parts: Vec<String>,
    pub driver_cpp: String,
    pub makefile: String,
}

impl Sources {
    /// `(file name, contents)` of every file, in a fixed order.
    pub fn files(&self) -> Vec<(String, &str)> {
        let mut out = vec![
            ("game.hpp".to_string(), self.game_hpp.as_str()),
            ("game.cpp".to_string(), self.game_cpp.as_str()),
        ];
        for (i, p) in self.parts.iter().enumerate() {
            out.push((format!("game_{}.cpp", i + 1), p.as_str()));
        }
        out.push(("driver.cpp".to_string(), self.driver_cpp.as_str()));
        out.push(("Makefile".to_string(), self.makefile.as_str()));
        out
    }

    /// The translation units, in the order they are linked.
    pub fn units(&self) -> Vec<String> {
        let mut out = vec!["game.cpp".to_string()];
        out.extend((1..=self.parts.len()).map(|i| format!("game_{i}.cpp")));
        out.push("driver.cpp".to_string());
        out
    }
}

/// The compiler flags the Makefile uses by default (before `-ffp-contract=off`, which it always
/// adds so that playout statistics are bit-identical to the interpreter's).
pub const DEFAULT_CXXFLAGS: &str = "-std=c++17 -O3 -march=native -DNDEBUG";

/// Flags every build needs besides the optimisation flags.
pub const REQUIRED_CXXFLAGS: &[&str] = &["-std=c++17", "-ffp-contract=off", "-pthread"];

/// Node and edge visits the reachability searches of all check targets may take together
/// before [`compile`] refuses a game ([`CompileError::TooLarge`]). Each search is walked over
/// the nodes it reaches only, and each of them becomes a generated function: the limit is far
/// above what a C++ compiler can build in reasonable time (alexChess.kif's searches have
/// 973 178 nodes, racer4.kif's 181 746) and far below what the analysis can hold in a few GB.
pub const MAX_ANALYSIS_CELLS: u64 = 40_000_000;

/// The most work [`Model::Auto`] lets the function model's node functions be: their node and
/// edge visits (every move-search node and its edges twice, for its move and apply functions,
/// and the cells of the reachability searches, see [`MAX_ANALYSIS_CELLS`]). Games above it get
/// the table model. Measured 2026-11-28: every RBG, HRG and RG game of the corpus is below
/// (arimaa, the largest, 33 460, builds in 39 s), and the next larger corpus game, 4pttc.kif
/// (35 818, 4.1 MB of C++ in one unit), took 58 s of CPU at `-O3` as functions.
pub const MAX_FUNCTION_WORK: u64 = 35_000;

/// The size of the function model's node functions of a game, in the units of
/// [`MAX_FUNCTION_WORK`].
fn function_work(plan: &search::SearchPlan) -> u64 {
    let moves: u64 = (0..plan.moves.len())
        .filter(|&n| plan.moves[n])
        .map(|n| 1 + plan.out[n].len() as u64)
        .sum();
    2 * moves + plan.cells
}

/// Which model `compile` generates for `game` with these options, and the game's search plan
/// when the choice computed it (always for the function model; for the table model when the
/// plan was complete but too large for functions, so that it is not built again).
fn choose(
    game: &Game,
    opts: &Options,
) -> Result<(Model, Option<search::SearchPlan>), CompileError> {
    match opts.model {
        Model::Tables => Ok((Model::Tables, None)),
        Model::Functions => Ok((
            Model::Functions,
            Some(search::SearchPlan::new(game, opts.ignore_pragmas)?),
        )),
        Model::Auto => match search::SearchPlan::new(game, opts.ignore_pragmas) {
            Ok(plan) if function_work(&plan) <= MAX_FUNCTION_WORK => {
                Ok((Model::Functions, Some(plan)))
            }
            Ok(plan) => Ok((Model::Tables, Some(plan))),
            Err(CompileError::TooLarge { .. }) => Ok((Model::Tables, None)),
            Err(e) => Err(e),
        },
    }
}

/// The model [`compile`] generates for `game` with these options.
pub fn chosen_model(game: &Game, opts: &Options) -> Result<Model, CompileError> {
    Ok(choose(game, opts)?.0)
}

/// Generates the forward model of `game`.
pub fn compile(game: &Game, opts: &Options) -> Result<Sources, CompileError> {
    let layout = layout::Layout::new(game)?;
    let generated = match choose(game, opts)? {
        (Model::Functions, Some(plan)) => {
            let visits = visits::analyse(game, &layout, &plan, opts.ignore_pragmas);
            let deferred = defer::analyse(game, &plan, &visits);
            let memo = memo::analyse(game, &layout, &plan);
            codegen::Gen::new(game, &layout, &plan, &visits, deferred, memo)
                .generate(&opts.name, opts.unit_bytes.unwrap_or(codegen::UNIT_BYTES))?
        }
        (_, plan) => {
            // The table model reads only the plan's edges and pragmas.
            let plan = plan
                .unwrap_or_else(|| search::SearchPlan::without_reach(game, opts.ignore_pragmas));
            let visits = visits::Visits::none(game.node_capacity());
            codegen::Gen::new(
                game,
                &layout,
                &plan,
                &visits,
                Vec::new(),
                Default::default(),
            )
            .generate_tables(&opts.name)?
        }
    };
    let objects: Vec<String> = std::iter::once("game.o".to_string())
        .chain((1..=generated.parts.len()).map(|i| format!("game_{i}.o")))
        .chain(std::iter::once("driver.o".to_string()))
        .collect();
    let makefile = include_str!("cpp/Makefile").replace("@OBJECTS@", &objects.join(" "));
    Ok(Sources {
        game_hpp: generated.hpp,
        game_cpp: generated.cpp,
        parts: generated.parts,
        driver_cpp: include_str!("cpp/driver.cpp").to_string(),
        makefile,
    })
}
