//! RG to native forward models: C++17 source of a game's move generator, with a driver.
//!
//! [`compile`] turns a checked (and usually optimised) game into four files: `game.hpp` and
//! `game.cpp`, a self-contained forward model (state, legal moves in the interpreter's order,
//! apply, goals, visibility, a readable description; only the C++ standard library), `driver.cpp`,
//! which computes perft and random playouts exactly as `rgt perft` and `rgt run` do, and a
//! `Makefile`. The model follows the interpreter's semantics (rg.md §12) to the move order, so
//! the same seed plays the same games; the pragmas the interpreter trusts (`@unique`,
//! `@repeat`, `@disjoint`, `@disjointExhaustive`) are trusted the same way.
//!
//! Code generation is designed for speed rather than a transliteration of the interpreter:
//! symbols are class-local small integers ([`layout`]), the state is packed into bytes (fields
//! narrower than a byte share bytes), maps are flat arrays, every node gets one function per
//! search kind ([`search`]) that mutates one working state in place and undoes its assignments,
//! and visited-state checks exist only where the pragmas do not rule them out.

mod codegen;
mod error;
mod expr;
mod layout;
mod search;
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
}

/// The generated files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    pub game_hpp: String,
    pub game_cpp: String,
    pub driver_cpp: String,
    pub makefile: String,
}

impl Sources {
    /// `(file name, contents)` of every file, in a fixed order.
    pub fn files(&self) -> [(&'static str, &str); 4] {
        [
            ("game.hpp", &self.game_hpp),
            ("game.cpp", &self.game_cpp),
            ("driver.cpp", &self.driver_cpp),
            ("Makefile", &self.makefile),
        ]
    }
}

/// The compiler flags the Makefile uses by default (before `-ffp-contract=off`, which it always
/// adds so that playout statistics are bit-identical to the interpreter's).
pub const DEFAULT_CXXFLAGS: &str = "-std=c++17 -O3 -march=native -DNDEBUG";

/// Flags every build needs besides the optimisation flags.
pub const REQUIRED_CXXFLAGS: &[&str] = &["-std=c++17", "-ffp-contract=off", "-pthread"];

/// Generates the forward model of `game`.
pub fn compile(game: &Game, opts: &Options) -> Result<Sources, CompileError> {
    let layout = layout::Layout::new(game)?;
    let plan = search::SearchPlan::new(game, opts.ignore_pragmas);
    let visits = visits::analyse(game, &layout, &plan, opts.ignore_pragmas);
    let (game_hpp, game_cpp) =
        codegen::Gen::new(game, &layout, &plan, &visits).generate(&opts.name)?;
    Ok(Sources {
        game_hpp,
        game_cpp,
        driver_cpp: include_str!("cpp/driver.cpp").to_string(),
        makefile: include_str!("cpp/Makefile").to_string(),
    })
}
