//! The transformations, one file each, named like the reference's passes where it has them.

pub(crate) mod add_builtins;
mod add_explicit_casts;
mod calculate_disjoints;
mod calculate_iterators;
mod calculate_repeats_and_uniques;
mod calculate_simple_apply;
mod calculate_tag_indexes;
mod compact_comparisons;
mod compact_reachability;
mod compact_skip_edges;
mod compact_variable_regions;
mod expand_assignment_any;
mod expand_tag_variable;
mod inline_assignment;
mod inline_reachability;
mod join_assignments;
mod join_conditional_assignments;
mod join_exclusive_edges;
pub(crate) mod join_fork_prefixes;
mod join_fork_suffixes;
mod mangle_symbols;
mod merge_accesses;
mod normalize_constants;
mod normalize_types;
mod propagate_constants;
mod prune_self_loops;
mod prune_singleton_types;
mod prune_unreachable_nodes;
mod prune_unused_constants;
mod prune_unused_variables;
mod reorder_comparisons;
pub(crate) mod reorder_conditions;
mod share_reachability_copies;
mod skip_artificial_tags;
mod skip_redundant_comparisons;
mod skip_redundant_tags;
mod skip_self_assignments;
mod skip_self_comparisons;
mod skip_unused_tags;

use crate::Pass;

/// Declares [`PassId`](crate::PassId), one variant per pass named like the pass's type, and
/// [`ALL`], the passes in the same order.
macro_rules! passes {
    ($($(#[$doc:meta])* $id:ident => $module:ident::$ty:ident,)*) => {
        /// A pass, by type: the typed name pipelines are made of (the string names of the CLI
        /// parse into it, see [`std::str::FromStr`]). Variants are in the canonical order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum PassId {
            $(
                #[doc = concat!("`", stringify!($module), "`.")]
                $(#[$doc])*
                $id,
            )*
        }

        impl PassId {
            /// Every pass, in the canonical order.
            pub const ALL: &'static [PassId] = &[$(PassId::$id,)*];
        }

        /// Every pass in the canonical order (the reference's order, then ours where they act).
        pub(crate) static ALL: &[&dyn Pass] = &[$(&$module::$ty,)*];
    };
}

passes! {
    AddBuiltins => add_builtins::AddBuiltins,
    CompactSkipEdges => compact_skip_edges::CompactSkipEdges,
    InlineAssignment => inline_assignment::InlineAssignment,
    CompactReachability => compact_reachability::CompactReachability,
    InlineReachability => inline_reachability::InlineReachability,
    PropagateConstants => propagate_constants::PropagateConstants,
    /// Not in the reference: two assignments to one variable in a row become one.
    JoinAssignments => join_assignments::JoinAssignments,
    /// Not in the reference: "if f is s1 then n = s1" becomes a copy when n holds the other value.
    JoinConditionalAssignments => join_conditional_assignments::JoinConditionalAssignments,
    MergeAccesses => merge_accesses::MergeAccesses,
    ReorderConditions => reorder_conditions::ReorderConditions,
    /// Not in the reference: the safe part of reorder_conditions (comparisons only).
    ReorderComparisons => reorder_comparisons::ReorderComparisons,
    CompactComparisons => compact_comparisons::CompactComparisons,
    /// Not in the reference: inequalities whose failing walks die anyway.
    SkipRedundantComparisons => skip_redundant_comparisons::SkipRedundantComparisons,
    /// Not in the reference: one-variable regions (shift stars) become one any-assignment.
    CompactVariableRegions => compact_variable_regions::CompactVariableRegions,
    JoinExclusiveEdges => join_exclusive_edges::JoinExclusiveEdges,
    JoinForkPrefixes => join_fork_prefixes::JoinForkPrefixes,
    JoinForkSuffixes => join_fork_suffixes::JoinForkSuffixes,
    SkipSelfAssignments => skip_self_assignments::SkipSelfAssignments,
    SkipSelfComparisons => skip_self_comparisons::SkipSelfComparisons,
    SkipUnusedTags => skip_unused_tags::SkipUnusedTags,
    SkipRedundantTags => skip_redundant_tags::SkipRedundantTags,
    PruneSelfLoops => prune_self_loops::PruneSelfLoops,
    PruneSingletonTypes => prune_singleton_types::PruneSingletonTypes,
    /// Not in the reference: a check whose sub-automaton copies another part of the game uses it.
    ShareReachabilityCopies => share_reachability_copies::ShareReachabilityCopies,
    PruneUnreachableNodes => prune_unreachable_nodes::PruneUnreachableNodes,
    PruneUnusedConstants => prune_unused_constants::PruneUnusedConstants,
    PruneUnusedVariables => prune_unused_variables::PruneUnusedVariables,
    NormalizeTypes => normalize_types::NormalizeTypes,
    NormalizeConstants => normalize_constants::NormalizeConstants,
    AddExplicitCasts => add_explicit_casts::AddExplicitCasts,
    ExpandAssignmentAny => expand_assignment_any::ExpandAssignmentAny,
    ExpandTagVariable => expand_tag_variable::ExpandTagVariable,
    /// Last of the loop passes: the other passes first simplify what the artificial tags guard.
    SkipArtificialTags => skip_artificial_tags::SkipArtificialTags,
    CalculateDisjoints => calculate_disjoints::CalculateDisjoints,
    CalculateIterators => calculate_iterators::CalculateIterators,
    CalculateRepeatsAndUniques => calculate_repeats_and_uniques::CalculateRepeatsAndUniques,
    CalculateSimpleApply => calculate_simple_apply::CalculateSimpleApply,
    CalculateTagIndexes => calculate_tag_indexes::CalculateTagIndexes,
    MangleSymbols => mangle_symbols::MangleSymbols,
}

/// Implements the metadata methods of [`Pass`].
macro_rules! meta {
    ($name:literal, $desc:literal, $safety:ident, $phase:ident, $cat:ident) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn description(&self) -> &'static str {
            $desc
        }
        fn safety(&self) -> crate::Safety {
            crate::Safety::$safety
        }
        fn phase(&self) -> crate::PassPhase {
            crate::PassPhase::$phase
        }
        fn category(&self) -> crate::Category {
            crate::Category::$cat
        }
    };
}
pub(crate) use meta;
