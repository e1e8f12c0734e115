//! The transformations, one file each, named as in passes.md §3.

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
mod join_fork_prefixes;
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
mod reorder_conditions;
mod share_reachability_copies;
mod skip_artificial_tags;
mod skip_redundant_comparisons;
mod skip_redundant_tags;
mod skip_self_assignments;
mod skip_self_comparisons;
mod skip_unused_tags;

use crate::Pass;

/// Every pass in the canonical order (passes.md §5.1).
pub(crate) static ALL: &[&dyn Pass] = &[
    &add_builtins::AddBuiltins,
    &compact_skip_edges::CompactSkipEdges,
    &inline_assignment::InlineAssignment,
    &compact_reachability::CompactReachability,
    &inline_reachability::InlineReachability,
    &propagate_constants::PropagateConstants,
    // Not in the reference: two assignments to one variable in a row become one.
    &join_assignments::JoinAssignments,
    // Not in the reference: "if f is s1 then n = s1" becomes a copy when n holds the other value.
    &join_conditional_assignments::JoinConditionalAssignments,
    &merge_accesses::MergeAccesses,
    &reorder_conditions::ReorderConditions,
    // Not in the reference: the safe part of reorder_conditions (comparisons only).
    &reorder_comparisons::ReorderComparisons,
    &compact_comparisons::CompactComparisons,
    // Not in the reference: inequalities whose failing walks die anyway.
    &skip_redundant_comparisons::SkipRedundantComparisons,
    // Not in the reference: one-variable regions (shift stars) become one any-assignment.
    &compact_variable_regions::CompactVariableRegions,
    &join_exclusive_edges::JoinExclusiveEdges,
    &join_fork_prefixes::JoinForkPrefixes,
    &join_fork_suffixes::JoinForkSuffixes,
    &skip_self_assignments::SkipSelfAssignments,
    &skip_self_comparisons::SkipSelfComparisons,
    &skip_unused_tags::SkipUnusedTags,
    &skip_redundant_tags::SkipRedundantTags,
    &prune_self_loops::PruneSelfLoops,
    &prune_singleton_types::PruneSingletonTypes,
    // Not in the reference: a check whose sub-automaton copies another part of the game uses it.
    &share_reachability_copies::ShareReachabilityCopies,
    &prune_unreachable_nodes::PruneUnreachableNodes,
    &prune_unused_constants::PruneUnusedConstants,
    &prune_unused_variables::PruneUnusedVariables,
    &normalize_types::NormalizeTypes,
    &normalize_constants::NormalizeConstants,
    &add_explicit_casts::AddExplicitCasts,
    &expand_assignment_any::ExpandAssignmentAny,
    &expand_tag_variable::ExpandTagVariable,
    // Last of the loop passes: the other passes first simplify what the artificial tags guard.
    &skip_artificial_tags::SkipArtificialTags,
    &calculate_disjoints::CalculateDisjoints,
    &calculate_iterators::CalculateIterators,
    &calculate_repeats_and_uniques::CalculateRepeatsAndUniques,
    &calculate_simple_apply::CalculateSimpleApply,
    &calculate_tag_indexes::CalculateTagIndexes,
    &mangle_symbols::MangleSymbols,
];

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
