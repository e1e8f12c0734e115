//! RG optimisation passes and the pass manager (passes.md §3, §5.3).
//!
//! Every pass implements [`Pass`]; [`registry`] lists them in the canonical order (the reference's
//! order of passes.md §5.1); [`Pipeline`] selects a set; [`manager::run`] runs the loop passes to
//! a fixed point, then the final passes once, validating the game after every changing pass when
//! asked, and records a [`manager::TraceRecord`] per pass invocation.
//!
//! Every pass is proven by the interpreter's oracle (`rg_interp::equiv`) in the test suite: same
//! perft counts and the same move lists along seeded playouts before and after.

mod analysis;
mod dataflow;
pub mod manager;
mod passes;
#[doc(hidden)]
pub mod reference;
#[cfg(test)]
mod testing;
mod util;

use rg_core::Game;

pub use manager::{
    Options, PassReport, PipelineError, Rejection, Schedule, TraceRecord, run, setup,
};

/// What a pass may change (passes.md §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Safety {
    /// Same game tree and same move labels.
    Safe,
    /// Same game tree; move labels change bijectively.
    Relabels,
    /// May change the game.
    Unsafe,
}

/// When a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PassPhase {
    /// Once, before the loop.
    Setup,
    /// Inside the fixed-point loop.
    Loop,
    /// Once, after the loop.
    Final,
}

/// What kind of rewrite a pass makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    Setup,
    Expression,
    Join,
    Prune,
    Reachability,
    Tags,
    Normalize,
    Expand,
    Pragma,
}

/// Why a pass could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pass {pass} failed: {message}")]
pub struct PassError {
    pub pass: &'static str,
    pub message: String,
}

/// Services for passes: warnings for the trace, and a cache of the analyses several passes
/// need. The pass manager keeps one context for a whole pipeline run, so a pass that changes
/// nothing leaves its analyses to the next pass.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Warnings for the trace (the manager moves them into the trace record after each pass).
    pub warnings: Vec<String>,
    analyses: Analyses,
}

/// Analyses of one version of a game. They stay valid while the game's generation is the same
/// and no type, value or expression was interned since (the analyses index the arenas, and
/// interning is not a change of the game).
#[derive(Debug, Default)]
struct Analyses {
    key: Option<AnalysisKey>,
    values: Option<std::sync::Arc<analysis::values::Values>>,
    /// Nodes reachable from `begin` over edges, without and with the sub-automata of checks.
    reachable: [Option<std::sync::Arc<Vec<bool>>>; 2],
}

/// What an analysis depends on: the game's generation and the sizes of its arenas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AnalysisKey {
    generation: u64,
    types: usize,
    values: usize,
    exprs: usize,
}

impl AnalysisKey {
    fn of(g: &Game) -> Self {
        AnalysisKey {
            generation: g.generation(),
            types: g.types().len(),
            values: g.values().len(),
            exprs: g.exprs().len(),
        }
    }
}

impl PassContext {
    /// The cached analyses, emptied first if the game changed since they were computed.
    fn analyses(&mut self, g: &Game) -> &mut Analyses {
        let key = AnalysisKey::of(g);
        if self.analyses.key != Some(key) {
            self.analyses = Analyses {
                key: Some(key),
                ..Analyses::default()
            };
        }
        &mut self.analyses
    }

    /// What the constants and variables of `g` hold ([`analysis::values::Values`]).
    pub(crate) fn values(&mut self, g: &Game) -> std::sync::Arc<analysis::values::Values> {
        self.analyses(g)
            .values
            .get_or_insert_with(|| std::sync::Arc::new(analysis::values::Values::new(g)))
            .clone()
    }

    /// The nodes reachable from `begin` ([`util::reachable_nodes`]), indexed by node.
    pub(crate) fn reachable_nodes(&mut self, g: &Game, checks: bool) -> std::sync::Arc<Vec<bool>> {
        self.analyses(g).reachable[usize::from(checks)]
            .get_or_insert_with(|| std::sync::Arc::new(util::reachable_nodes(g, checks)))
            .clone()
    }
}

/// One transformation of passes.md §3.
pub trait Pass: Sync {
    /// snake_case name, as in passes.md (the CLI uses the kebab-case form).
    fn name(&self) -> &'static str;
    /// One line for `rgt passes`.
    fn description(&self) -> &'static str;
    fn safety(&self) -> Safety;
    fn phase(&self) -> PassPhase;
    fn category(&self) -> Category;
    /// Applies the pass once; returns whether the game changed (a rewrite of something into
    /// itself is not a change).
    fn run(&self, game: &mut Game, cx: &mut PassContext) -> Result<bool, PassError>;
}

/// Every pass, in the canonical order.
pub fn registry() -> &'static [&'static dyn Pass] {
    passes::ALL
}

/// A pass by snake_case or kebab-case name.
pub fn find(name: &str) -> Option<&'static dyn Pass> {
    let snake = name.replace('-', "_");
    registry().iter().copied().find(|p| p.name() == snake)
}

/// Which of the reference's option sets switches a pass on (passes.md §3.0, column "Set").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptionSet {
    /// Runs before everything (add_builtins).
    Always,
    /// `--enable-all-optimizations`.
    Optimization,
    /// `--enable-all-pragmas`.
    Pragma,
    /// An individual option only (normalizations, expansions, mangling).
    Individual,
}

/// The option set of a pass, from its category.
pub fn option_set(p: &dyn Pass) -> OptionSet {
    match p.category() {
        Category::Setup => OptionSet::Always,
        Category::Pragma => OptionSet::Pragma,
        Category::Normalize | Category::Expand => OptionSet::Individual,
        Category::Expression
        | Category::Join
        | Category::Prune
        | Category::Reachability
        | Category::Tags => OptionSet::Optimization,
    }
}

/// A set of enabled passes; they always run in the canonical order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    enabled: Vec<&'static str>,
}

impl Pipeline {
    /// The names of the named pipelines (passes.md §5.3).
    pub const NAMES: [&'static str; 5] = ["none", "safe", "reference", "pragmas", "compiler"];

    fn pick(f: &dyn Fn(&dyn Pass) -> bool) -> Pipeline {
        Pipeline {
            enabled: registry()
                .iter()
                .filter(|p| p.phase() == PassPhase::Setup || f(**p))
                .map(|p| p.name())
                .collect(),
        }
    }

    /// A named pipeline (passes.md §5.3); every one includes the setup pass `add_builtins`:
    /// `none` (nothing else); `safe` (the reference's optimizations that keep the game tree,
    /// labels may change: `-O2` with `pragmas`); `reference` (all of the reference's
    /// optimizations, unsafe ones included); `pragmas` (the pragma calculations); `compiler`
    /// (`reference` + `pragmas` + `normalize_types` + `normalize_constants`, the reference's
    /// benchmark preset).
    pub fn named(name: &str) -> Option<Pipeline> {
        let opt = |p: &dyn Pass| option_set(p) == OptionSet::Optimization;
        Some(match name {
            "none" => Pipeline::pick(&|_| false),
            "safe" => Pipeline::pick(&|p| opt(p) && p.safety() != Safety::Unsafe),
            "reference" => Pipeline::pick(&opt),
            "pragmas" => Pipeline::pick(&|p| option_set(p) == OptionSet::Pragma),
            "compiler" => Pipeline::pick(&|p| {
                opt(p)
                    || option_set(p) == OptionSet::Pragma
                    || matches!(p.name(), "normalize_types" | "normalize_constants")
            }),
            _ => return None,
        })
    }

    /// The passes of `-O1`: the local expression, skip and prune passes (safe loop passes of
    /// the expression and prune categories).
    pub fn local() -> Pipeline {
        Pipeline::pick(&|p| {
            p.safety() == Safety::Safe
                && p.phase() == PassPhase::Loop
                && matches!(p.category(), Category::Expression | Category::Prune)
        })
    }

    /// The enabled passes that may change the game.
    pub fn unsafe_passes(&self) -> Vec<&'static dyn Pass> {
        self.passes()
            .into_iter()
            .filter(|p| p.safety() == Safety::Unsafe)
            .collect()
    }

    /// Adds the passes of another pipeline.
    pub fn union(mut self, other: &Pipeline) -> Pipeline {
        for &p in &other.enabled {
            self.add(p);
        }
        self
    }

    /// Enables a pass (by its snake_case name).
    pub fn add(&mut self, name: &'static str) {
        if !self.enabled.contains(&name) {
            self.enabled.push(name);
        }
    }

    /// Disables a pass.
    pub fn remove(&mut self, name: &str) {
        self.enabled.retain(|p| *p != name);
    }

    /// Whether a pass is enabled.
    pub fn contains(&self, name: &str) -> bool {
        self.enabled.contains(&name)
    }

    /// The enabled passes, in canonical order.
    pub fn passes(&self) -> Vec<&'static dyn Pass> {
        registry()
            .iter()
            .copied()
            .filter(|p| self.contains(p.name()))
            .collect()
    }

    /// Whether nothing is enabled.
    pub fn is_empty(&self) -> bool {
        self.enabled.is_empty()
    }

    /// Whether only setup passes are enabled (nothing to do for a game that is set up).
    pub fn is_setup_only(&self) -> bool {
        self.passes().iter().all(|p| p.phase() == PassPhase::Setup)
    }
}
