//! A game with many reachability checks over many nodes: the search analysis must be sparse
//! (per check, only the nodes its search reaches). Before, it kept a table over all nodes per
//! check target and refused such games (`rg::compile::too_large`) at 400 million cells; this one
//! has 12 000 targets over 36 000 nodes (432 million).

use rg_compile::{CompileError, Model, Options, compile};

const CHECKS: usize = 12_000;

/// A move that passes `CHECKS` checks in a row, each `? a<i> -> b<i>` over its own comparison.
fn game() -> rg_core::Game {
    let mut text = String::from(
        "type Player = { p };\ntype Score = { 0, 100 };\ntype Bit = { 0, 1 };\n\
         var x: Bit = 0;\nbegin, n0: player = p;\n",
    );
    for i in 0..CHECKS {
        text.push_str(&format!("n{i}, n{}: ? a{i} -> b{i};\n", i + 1));
        text.push_str(&format!("a{i}, b{i}: x == 0;\n"));
    }
    text.push_str(&format!(
        "n{CHECKS}, named: $ go;\nnamed, won: goals[p] = 100;\nwon, end: player = keeper;\n"
    ));
    let mut g = rg_core::parse(rg_core::FileId(0), &text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    g
}

#[test]
fn many_checks_compile() {
    let g = game();
    let targets = CHECKS as u64;
    assert!(
        targets * g.node_capacity() as u64 > 400_000_000,
        "the old dense guard would refuse it"
    );
    let functions = Options {
        model: Model::Functions,
        ..Options::default()
    };
    let src = compile(&g, &functions).expect("compiles");
    let all: String = std::iter::once(src.game_cpp.as_str())
        .chain(src.parts.iter().map(String::as_str))
        .collect();
    // Each check's search has exactly its two nodes, and only the start has a function (the
    // target holds where it is reached).
    let reach_fns = all
        .lines()
        .filter(|l| l.starts_with("bool R") || l.starts_with("static bool R"))
        .filter(|l| l.ends_with('{') || l.contains(") {"))
        .count();
    assert_eq!(reach_fns, CHECKS);
}

#[test]
fn too_large_is_a_diagnostic() {
    // The guard still exists: a search walking far more than the limit is refused, not run
    // out of memory. 3000 checks, each with its own target at the end of one chain of 20 000
    // nodes: 60 million steps.
    let mut text = String::from(
        "type Player = { p };\ntype Score = { 0, 100 };\ntype Bit = { 0, 1 };\n\
         var x: Bit = 0;\nbegin, n0: player = p;\n",
    );
    const N: usize = 3_000;
    const CHAIN: usize = 20_000;
    for i in 0..N {
        text.push_str(&format!("n{i}, n{}: ? a{i} -> t{i};\n", i + 1));
        text.push_str(&format!("a{i}, c0: x == 0;\nc{CHAIN}, t{i}: x == 0;\n"));
    }
    for j in 0..CHAIN {
        text.push_str(&format!("c{j}, c{}: x == 0;\n", j + 1));
    }
    text.push_str(&format!(
        "n{N}, named: $ go;\nnamed, won: goals[p] = 100;\nwon, end: player = keeper;\n"
    ));
    let mut g = rg_core::parse(rg_core::FileId(0), &text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    let functions = Options {
        model: Model::Functions,
        ..Options::default()
    };
    match compile(&g, &functions) {
        Err(CompileError::TooLarge { .. }) => {}
        other => panic!("expected too_large, got {:?}", other.map(|_| ())),
    }
    // By default such a game gets the table model, whose size is the automaton's.
    let src = compile(&g, &Options::default()).expect("the table model");
    assert!(src.game_cpp.contains("The table model"));
    assert!(src.parts.is_empty());
    assert!(
        src.game_cpp.len() < 8_000_000,
        "{} bytes",
        src.game_cpp.len()
    );
}

#[test]
fn the_default_model_follows_the_size_of_the_node_functions() {
    // Below the limit the function model, above it the table model; either can be forced.
    let g = game();
    assert_eq!(
        rg_compile::chosen_model(&g, &Options::default()).expect("plan"),
        Model::Tables,
        "{CHECKS} checks are over rg_compile::MAX_FUNCTION_WORK"
    );
    let text = "type Player = { p };\ntype Score = { 0 };\nbegin, m: player = p;\nm, t: $ go;\nt, end: player = keeper;\n";
    let mut small = rg_core::parse(rg_core::FileId(0), text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut small).expect("built-ins");
    assert_eq!(
        rg_compile::chosen_model(&small, &Options::default()).expect("plan"),
        Model::Functions
    );
    let tables = Options {
        model: Model::Tables,
        ..Options::default()
    };
    assert_eq!(
        rg_compile::chosen_model(&small, &tables).expect("plan"),
        Model::Tables
    );
    let src = compile(&small, &tables).expect("compiles");
    assert!(src.game_cpp.contains("The table model"));
    assert_eq!(
        src,
        compile(&small, &tables).expect("compiles"),
        "deterministic"
    );
}
