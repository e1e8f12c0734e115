//! The transformations, one file each, named as in passes.md §3.

mod compact_skip_edges;
mod joins;
mod pragmas;
mod prune;
mod reach;
mod skip_self;
mod tags;

use crate::Pass;

/// Every pass in the canonical order (passes.md §5.1).
pub(crate) static ALL: &[&dyn Pass] = &[
    &compact_skip_edges::CompactSkipEdges,
    &reach::CompactReachability,
    &joins::JoinForkPrefixes,
    &joins::JoinForkSuffixes,
    &skip_self::SkipSelfAssignments,
    &skip_self::SkipSelfComparisons,
    &tags::SkipUnusedTags,
    &prune::PruneSelfLoops,
    &prune::PruneUnreachableNodes,
    &prune::PruneUnusedConstants,
    &prune::PruneUnusedVariables,
    &pragmas::CalculateDisjoints,
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
