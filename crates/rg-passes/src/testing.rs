//! Helpers for the unit tests of passes: parse a game, run one pass, look at the edges, and ask
//! the interpreter's oracle whether the game tree was kept.

use crate::{Pass, PassContext, Safety};
use rg_core::{FileId, Game};
use rg_interp::equiv::{EquivOptions, check_equivalent, check_relabelled};

/// The game of `text` (the `Player`/`Score` prelude is added) with the built-ins.
pub(crate) fn game(text: &str) -> Game {
    let text = format!("type Player = {{ x }};\ntype Score = {{ 0, 1 }};\n{text}");
    let mut g = rg_core::parse(FileId(0), &text).expect("test game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    g
}

/// A parsed game with the built-ins added (`type Player = {x}; type Score = {0};` are prepended
/// unless the text declares them), for unit tests.
pub(crate) fn test_game(text: &str) -> Game {
    let mut src = String::new();
    if !text.contains("type Player") {
        src.push_str("type Player = {x};\n");
    }
    if !text.contains("type Score") {
        src.push_str("type Score = {0};\n");
    }
    src.push_str(text);
    let mut g = rg_core::parse(FileId(0), &src).expect("test game parses");
    rg_core::builtins::add_builtins(&mut g).expect("test game has valid built-ins");
    g
}

/// The live edges as printed (`a, b: label;`), in edge-list order.
pub(crate) fn edges(g: &Game) -> Vec<String> {
    g.edges()
        .map(|(_, d)| {
            format!(
                "{}, {}: {};",
                g.node_name(d.from),
                g.node_name(d.to),
                rg_core::print::print_label(g, &d.label)
            )
        })
        .collect()
}

/// Runs `pass` once on the game of `text`; returns the game before, after, whether it changed and
/// the warnings. The oracle must find the same game tree (up to relabelling for tag passes).
pub(crate) fn run(pass: &dyn Pass, text: &str) -> (Game, Game, bool, Vec<String>) {
    let before = game(text);
    let mut after = before.clone();
    let mut cx = PassContext::default();
    let version = after.generation();
    let changed = pass.run(&mut after, &mut cx).expect("pass runs");
    // The pass manager trusts the generation; the flag a pass returns must agree with it.
    assert_eq!(
        changed,
        after.generation() != version,
        "{} returned a flag that disagrees with the game's generation",
        pass.name()
    );
    // The reference validators live in rg-validate, which this crate must not depend on (not
    // even for tests); the type checker is rg-core's, and the oracle below checks the rest.
    // tests/harness/passes.rs runs every pass under the reference validators.
    let errors: Vec<_> = rg_core::typeck::check(&after)
        .into_iter()
        .filter(|v| v.severity == rg_core::Severity::Error)
        .map(|v| v.message)
        .collect();
    assert!(
        errors.is_empty(),
        "invalid after {}: {errors:?}",
        pass.name()
    );
    let opts = EquivOptions {
        depth: 4,
        plays: 20,
        seed: 1,
    };
    let check = match pass.safety() {
        Safety::Relabels => check_relabelled,
        _ => check_equivalent,
    };
    if let Err(d) = check(&before, &after, &opts) {
        panic!(
            "{} changed the game: {d}\n{}",
            pass.name(),
            rg_core::print(&after)
        );
    }
    (before, after, changed, cx.warnings)
}
