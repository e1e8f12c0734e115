//! The transformations, one file each, named as in passes.md §3.

mod calculate_disjoints;
mod compact_comparisons;
mod compact_reachability;
mod compact_skip_edges;
mod inline_assignment;
mod join_fork_prefixes;
mod join_fork_suffixes;
mod merge_accesses;
mod propagate_constants;
mod prune_self_loops;
mod prune_unreachable_nodes;
mod prune_unused_constants;
mod prune_unused_variables;
mod reorder_conditions;
mod skip_redundant_comparisons;
mod skip_self_assignments;
mod skip_self_comparisons;
mod skip_unused_tags;

use crate::Pass;

/// Every pass in the canonical order (passes.md §5.1).
pub(crate) static ALL: &[&dyn Pass] = &[
    &compact_skip_edges::CompactSkipEdges,
    &inline_assignment::InlineAssignment,
    &compact_reachability::CompactReachability,
    &propagate_constants::PropagateConstants,
    &merge_accesses::MergeAccesses,
    &reorder_conditions::ReorderConditions,
    &compact_comparisons::CompactComparisons,
    &skip_redundant_comparisons::SkipRedundantComparisons,
    &join_fork_prefixes::JoinForkPrefixes,
    &join_fork_suffixes::JoinForkSuffixes,
    &skip_self_assignments::SkipSelfAssignments,
    &skip_self_comparisons::SkipSelfComparisons,
    &skip_unused_tags::SkipUnusedTags,
    &prune_self_loops::PruneSelfLoops,
    &prune_unreachable_nodes::PruneUnreachableNodes,
    &prune_unused_constants::PruneUnusedConstants,
    &prune_unused_variables::PruneUnusedVariables,
    &calculate_disjoints::CalculateDisjoints,
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
