//! Validators of RG games: the seven checks of the reference, in its order
//! (assignments, duplicated names, maps, reachability of `end`, tag loops, tag variables,
//! types), each reporting *every* violation with a span, a stable code and a help line; plus
//! lints for conditions of proper games the reference does not check, as warnings.
//!
//! Entry points: [`validate`] runs a [`Selection`] and returns the violations (errors first in
//! validator order, then warnings); [`all`] lists every validator so callers (the pass manager)
//! can pick the cheap ones ([`rg_core::Cost::Linear`]) to run after each pass.

mod lints;
mod reference;

use rg_core::{Cost, Game, Severity, Validator, Violation};

pub use lints::{EndProtocol, PlayerSets, PragmaTargets, ReachabilityLint, UnreachableNodes};
pub use reference::{
    Assignments, DuplicatedNames, EndReachable, Maps, TagLoops, TagVariables, Types,
};

/// Every validator: the reference's seven in its order, then the lints.
pub fn all() -> Vec<Box<dyn Validator>> {
    vec![
        Box::new(Assignments),
        Box::new(DuplicatedNames),
        Box::new(Maps),
        Box::new(EndReachable),
        Box::new(TagLoops),
        Box::new(TagVariables),
        Box::new(Types),
        Box::new(EndProtocol),
        Box::new(PlayerSets),
        Box::new(PragmaTargets),
        Box::new(UnreachableNodes),
        Box::new(ReachabilityLint),
    ]
}

/// The reference's seven validators, in its order: what the pass manager runs after every
/// changing pass (`rg_passes::Options::validators`), so exactly the games the reference accepts
/// pass.
pub static REFERENCE_VALIDATORS: &[&dyn Validator] = &[
    &Assignments,
    &DuplicatedNames,
    &Maps,
    &EndReachable,
    &TagLoops,
    &TagVariables,
    &Types,
];

/// Which validators to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Everything.
    All,
    /// Only the validators that are linear in the size of the game (after each pass).
    Cheap,
    /// Only the reference's seven (exactly the games the reference accepts pass).
    Reference,
}

/// Names of the reference's seven validators.
pub const REFERENCE: [&str; 7] = [
    "assignments",
    "duplicated-names",
    "maps",
    "reachabilities",
    "tag-loops",
    "tag-variables",
    "types",
];

/// Runs the selected validators and returns every violation: errors in validator order, then
/// warnings in validator order.
pub fn validate(game: &Game, selection: Selection) -> Vec<Violation> {
    let mut out = Vec::new();
    for v in all() {
        let run = match selection {
            Selection::All => true,
            Selection::Cheap => v.cost() == Cost::Linear,
            Selection::Reference => REFERENCE.contains(&v.name()),
        };
        if run {
            v.validate(game, &mut out);
        }
    }
    // Stable: errors keep validator order, warnings follow.
    out.sort_by_key(|v| v.severity == Severity::Warning);
    out
}

/// Whether any violation is an error.
pub fn has_errors(violations: &[Violation]) -> bool {
    violations.iter().any(|v| v.severity == Severity::Error)
}
