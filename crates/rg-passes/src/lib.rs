//! RG optimisation passes and the pass manager.
//!
//! Every pass implements [`Pass`]; [`registry`] lists them in the canonical order (the reference's
//! order of rewrites, with ours where they act); [`Pipeline`] selects a set; [`manager::run`] runs
//! the loop passes to a fixed point, then the final passes once, validating the game after every
//! changing pass when asked, and records a [`manager::TraceRecord`] per pass invocation.
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

use rg_core::{EntityId, Game};

pub use manager::{
    Options, PassReport, PipelineError, Rejection, Schedule, TraceRecord, run, run_observed, setup,
};
pub use passes::PassId;

/// What a pass may change: nothing observable, only move labels (bijectively), or the game.
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
    /// The largest node name that is a number, over the nodes of a numbering (see
    /// [`PassContext::fresh_nodes`]): `(layout, nodes looked at, largest)`.
    numeric_names: Option<(u64, usize, u64)>,
    /// The last list each [`NameOrder`] slot sorted by name, with its node numbering.
    name_sorted: [Option<(u64, Vec<rg_core::NodeId>)>; NameOrder::COUNT],
    /// What the last run of `reorder_conditions` / `reorder_comparisons` found quiet, by pass
    /// name (see [`passes::reorder_conditions`]).
    pub(crate) reorder_memos: Vec<(&'static str, passes::reorder_conditions::QuietMemo)>,
    /// What the last complete run of `join_fork_prefixes` saw (see
    /// [`passes::join_fork_prefixes`]).
    pub(crate) prefix_memo: Option<passes::join_fork_prefixes::PrefixMemo>,
}

/// The callers of [`PassContext::sort_by_name`], each with a sorted list of its own kept.
#[derive(Clone, Copy, Debug)]
pub(crate) enum NameOrder {
    /// `reorder_conditions` and `reorder_comparisons`: the nodes they step.
    Reorder,
    /// `compact_skip_edges`: the targets of contractible skips.
    SkipTargets,
    /// `compact_skip_edges`: the sources of contractible skips.
    SkipSources,
}

impl NameOrder {
    const COUNT: usize = 3;
}

/// Analyses of one version of a game. They stay valid while the game's generation without its
/// pragmas ([`Game::generation_without_pragmas`]: none of them reads a pragma) is the same and
/// no type, value or expression was interned since (the analyses index the arenas, and
/// interning is not a change of the game).
#[derive(Debug, Default)]
struct Analyses {
    key: Option<AnalysisKey>,
    values: Option<std::sync::Arc<analysis::values::Values>>,
    /// Nodes reachable from `begin` over edges, without and with the sub-automata of checks.
    reachable: [Option<std::sync::Arc<util::NodeMap<bool>>>; 2],
    /// Nodes that start or end a reachability check.
    check_nodes: Option<std::sync::Arc<util::NodeMap<bool>>>,
    /// The constant analysis's knowledge at every node; `Some(None)` when it did not settle.
    constant_facts: Option<Option<std::sync::Arc<ConstantFacts>>>,
}

/// The knowledge of the constant analysis at every node (`None`: not reached).
pub(crate) type ConstantFacts = util::NodeMap<Option<analysis::constants::Facts>>;

/// What an analysis depends on: the game's generation without its pragmas and the sizes of
/// its arenas.
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
            generation: g.generation_without_pragmas(),
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

    /// Fresh node names for `g` ([`util::FreshNodes`]). Finding the largest numeric node name
    /// reads every node's name; node names never change while the numbering stays the same
    /// ([`Game::node_layout`]), so only the nodes added since the last call are read again.
    pub(crate) fn fresh_nodes(&mut self, g: &Game) -> util::FreshNodes {
        let (from, mut last) = match self.numeric_names {
            Some((layout, seen, last))
                if layout == g.node_layout() && seen <= g.node_capacity() =>
            {
                (seen, last)
            }
            _ => (0, 0),
        };
        for n in g.nodes().ids().skip(from) {
            if let Ok(v) = g.node_name(n).parse::<u64>() {
                last = last.max(v);
            }
        }
        self.numeric_names = Some((g.node_layout(), g.node_capacity(), last));
        util::FreshNodes::above(last)
    }

    /// `nodes` (distinct) sorted by name, bytewise. Passes sort nodes by name every run, and
    /// the sets change little from run to run: the nodes of the last list of the same `slot`
    /// keep their order (names never change while the numbering stays the same,
    /// [`Game::node_layout`]), and only the others are sorted and put in their places by
    /// binary search. The result is the sorted list either way (names are unique).
    pub(crate) fn sort_by_name(
        &mut self,
        g: &Game,
        slot: NameOrder,
        mut nodes: Vec<rg_core::NodeId>,
    ) -> Vec<rg_core::NodeId> {
        let name = |n: rg_core::NodeId| g.node_name(n).as_bytes();
        let cached = self.name_sorted[slot as usize].take();
        let sorted = match cached {
            Some((layout, old)) if layout == g.node_layout() => {
                // 1: wanted and not yet placed, 2: placed.
                let mut mark = vec![0u8; g.node_capacity()];
                for &n in &nodes {
                    mark[n.index()] = 1;
                }
                let mut kept: Vec<rg_core::NodeId> = Vec::with_capacity(nodes.len());
                for n in old {
                    if mark.get(n.index()) == Some(&1) {
                        mark[n.index()] = 2;
                        kept.push(n);
                    }
                }
                nodes.retain(|n| mark[n.index()] == 1);
                util::sort_by_name(g, &mut nodes);
                // Merge: each new node goes after the kept nodes with smaller names.
                let mut out = Vec::with_capacity(kept.len() + nodes.len());
                let mut rest = &kept[..];
                for n in nodes {
                    let at = rest.partition_point(|&k| name(k) < name(n));
                    out.extend_from_slice(&rest[..at]);
                    out.push(n);
                    rest = &rest[at..];
                }
                out.extend_from_slice(rest);
                out
            }
            _ => {
                util::sort_by_name(g, &mut nodes);
                nodes
            }
        };
        self.name_sorted[slot as usize] = Some((g.node_layout(), sorted.clone()));
        sorted
    }

    /// What the constants and variables of `g` hold ([`analysis::values::Values`]).
    pub(crate) fn values(&mut self, g: &Game) -> std::sync::Arc<analysis::values::Values> {
        self.analyses(g)
            .values
            .get_or_insert_with(|| std::sync::Arc::new(analysis::values::Values::new(g)))
            .clone()
    }

    /// The constant analysis's knowledge of this game version, solved by `solve` the first time
    /// (three passes in a row ask for it, and most runs change nothing).
    pub(crate) fn constant_facts(
        &mut self,
        g: &Game,
        solve: impl FnOnce() -> Option<ConstantFacts>,
    ) -> Option<std::sync::Arc<ConstantFacts>> {
        self.analyses(g)
            .constant_facts
            .get_or_insert_with(|| solve().map(std::sync::Arc::new))
            .clone()
    }

    /// The nodes that start or end a reachability check ([`util::check_nodes`]).
    pub(crate) fn check_nodes(&mut self, g: &Game) -> std::sync::Arc<util::NodeMap<bool>> {
        self.analyses(g)
            .check_nodes
            .get_or_insert_with(|| std::sync::Arc::new(util::check_nodes(g)))
            .clone()
    }

    /// The nodes reachable from `begin` ([`util::reachable_nodes`]), indexed by node.
    pub(crate) fn reachable_nodes(
        &mut self,
        g: &Game,
        checks: bool,
    ) -> std::sync::Arc<util::NodeMap<bool>> {
        self.analyses(g).reachable[usize::from(checks)]
            .get_or_insert_with(|| std::sync::Arc::new(util::reachable_nodes(g, checks)))
            .clone()
    }
}

/// One transformation of a game, with the metadata the pass manager and `rgt passes` use.
pub trait Pass: Sync {
    /// snake_case name, the reference's where it has the pass (the CLI uses the kebab-case form).
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
    name.parse::<PassId>().ok().map(PassId::pass)
}

impl PassId {
    /// The pass.
    pub fn pass(self) -> &'static dyn Pass {
        passes::ALL[self as usize]
    }

    /// The snake_case name of the pass.
    pub fn name(self) -> &'static str {
        self.pass().name()
    }

    /// The id of a pass of the registry.
    pub fn of(pass: &dyn Pass) -> Option<PassId> {
        pass.name().parse().ok()
    }
}

/// A name that is not a pass's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pass `{0}`")]
pub struct UnknownPass(pub String);

impl std::str::FromStr for PassId {
    type Err = UnknownPass;
    /// Parses a snake_case or kebab-case pass name.
    fn from_str(name: &str) -> Result<PassId, UnknownPass> {
        let snake = name.replace('-', "_");
        PassId::ALL
            .iter()
            .copied()
            .find(|p| p.name() == snake)
            .ok_or_else(|| UnknownPass(name.to_owned()))
    }
}

impl std::fmt::Display for PassId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What names a pass for [`Pipeline`]'s methods: a [`PassId`], or a name parsed into one.
pub trait PassRef {
    /// The pass, if the name is one.
    fn pass_id(&self) -> Option<PassId>;
}

impl PassRef for PassId {
    fn pass_id(&self) -> Option<PassId> {
        Some(*self)
    }
}

impl PassRef for &str {
    fn pass_id(&self) -> Option<PassId> {
        self.parse().ok()
    }
}

/// Which of the reference's option sets switches a pass on (its command-line switches group
/// the passes this way).
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

/// A set of enabled passes (a set of [`PassId`]s); they always run in the canonical order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pipeline {
    /// Bit `i` is `PassId::ALL[i]`.
    enabled: u64,
}

const _: () = assert!(
    PassId::ALL.len() <= 64,
    "Pipeline's bit set holds 64 passes"
);

impl Pipeline {
    /// The names of the named pipelines (see [`Pipeline::named`]).
    pub const NAMES: [&'static str; 5] = ["none", "safe", "reference", "pragmas", "compiler"];

    fn bit(id: PassId) -> u64 {
        1 << id as u32
    }

    fn pick(f: &dyn Fn(&dyn Pass) -> bool) -> Pipeline {
        let mut p = Pipeline::default();
        for &id in PassId::ALL {
            let pass = id.pass();
            if pass.phase() == PassPhase::Setup || f(pass) {
                p.enabled |= Pipeline::bit(id);
            }
        }
        p
    }

    /// A named pipeline; every one includes the setup pass `add_builtins`: `none` (nothing
    /// else); `safe` (the reference's optimizations that keep the game tree, labels may change:
    /// `-O2` with `pragmas`); `reference` (all of the reference's optimizations, unsafe ones
    /// included); `pragmas` (the pragma calculations); `compiler` (`reference` + `pragmas` +
    /// `normalize_types` + `normalize_constants`, the reference's benchmark preset).
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
                    || matches!(
                        PassId::of(p),
                        Some(PassId::NormalizeTypes | PassId::NormalizeConstants)
                    )
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
        self.enabled |= other.enabled;
        self
    }

    /// Enables a pass. A name is parsed into a [`PassId`]; an unknown name is a bug of the
    /// caller (the CLI checks names with [`find`] first) and panics.
    pub fn add(&mut self, pass: impl PassRef) {
        let id = pass
            .pass_id()
            .expect("Pipeline::add: not the name of a pass");
        self.enabled |= Pipeline::bit(id);
    }

    /// Disables a pass (an unknown name disables nothing).
    pub fn remove(&mut self, pass: impl PassRef) {
        if let Some(id) = pass.pass_id() {
            self.enabled &= !Pipeline::bit(id);
        }
    }

    /// Whether a pass is enabled.
    pub fn contains(&self, pass: impl PassRef) -> bool {
        pass.pass_id()
            .is_some_and(|id| self.enabled & Pipeline::bit(id) != 0)
    }

    /// The enabled passes, in canonical order.
    pub fn ids(&self) -> impl Iterator<Item = PassId> + '_ {
        PassId::ALL
            .iter()
            .copied()
            .filter(|&id| self.enabled & Pipeline::bit(id) != 0)
    }

    /// The enabled passes, in canonical order.
    pub fn passes(&self) -> Vec<&'static dyn Pass> {
        self.ids().map(PassId::pass).collect()
    }

    /// Whether nothing is enabled.
    pub fn is_empty(&self) -> bool {
        self.enabled == 0
    }

    /// Whether only setup passes are enabled (nothing to do for a game that is set up).
    pub fn is_setup_only(&self) -> bool {
        self.passes().iter().all(|p| p.phase() == PassPhase::Setup)
    }
}

#[cfg(test)]
mod pipeline_tests {
    use super::*;

    #[test]
    fn pass_ids_follow_the_registry_and_parse_both_spellings() {
        assert_eq!(PassId::ALL.len(), registry().len());
        for (&id, p) in PassId::ALL.iter().zip(registry()) {
            assert_eq!(id.name(), p.name());
            assert_eq!(PassId::of(*p), Some(id));
        }
        assert_eq!("merge-accesses".parse(), Ok(PassId::MergeAccesses));
        assert_eq!("merge_accesses".parse(), Ok(PassId::MergeAccesses));
        assert!("merge".parse::<PassId>().is_err());
    }

    #[test]
    fn pipelines_are_sets_of_pass_ids() {
        let mut p = Pipeline::named("none").expect("none");
        assert_eq!(p.ids().collect::<Vec<_>>(), [PassId::AddBuiltins]);
        p.add(PassId::MergeAccesses);
        p.add("prune-self-loops");
        assert!(p.contains(PassId::PruneSelfLoops) && p.contains("prune_self_loops"));
        p.remove("merge_accesses");
        assert!(!p.contains(PassId::MergeAccesses));
        assert!(!p.contains("no_such_pass"));
    }
}
