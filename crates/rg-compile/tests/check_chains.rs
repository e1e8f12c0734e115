//! A reachability check whose search is a long chain of tests (as GDL translations make them:
//! `x != 0`, `x != 1`, … one node each) is one generated function, not one per node: a large
//! GDL game has hundreds of thousands of such nodes, and a function each made its C++ take
//! many minutes to build.

use rg_compile::{Options, compile};

const CHAIN: usize = 300;

fn reach_fns(text: &str) -> Vec<String> {
    let mut g = rg_core::parse(rg_core::FileId(0), text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    let src = compile(&g, &Options::default()).expect("compiles");
    std::iter::once(src.game_cpp.as_str())
        .chain(src.parts.iter().map(String::as_str))
        .flat_map(str::lines)
        .filter(|l| {
            (l.starts_with("bool R") || l.starts_with("static bool R")) && l.contains(") {")
        })
        .map(str::to_string)
        .collect()
}

/// `begin` moves once if `x` is none of `0 .. CHAIN-1` (it is `CHAIN`), tested by a check
/// from `a0` whose chain ends in `branch`, entered twice when `twice` holds.
fn game(twice: bool) -> String {
    let mut text = format!(
        "type Player = {{ p }};\ntype Score = {{ 0, 100 }};\ntype X = {{ {} }};\n\
         var x: X = {CHAIN};\nbegin, s: player = p;\ns, t: ? a0 -> b;\nt, named: $ go;\n\
         named, won: goals[p] = 100;\nwon, end: player = keeper;\n",
        (0..=CHAIN)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for i in 0..CHAIN {
        text.push_str(&format!("a{i}, a{}: x != {i};\n", i + 1));
    }
    text.push_str(&format!("a{CHAIN}, b: x == {CHAIN};\n"));
    if twice {
        // A second way into the middle of the chain: that node keeps its own function.
        text.push_str(&format!("a0, a{}: x == 0;\n", CHAIN / 2));
    }
    text
}

#[test]
fn a_chain_of_tests_is_one_function() {
    let fns = reach_fns(&game(false));
    // The chain from `a0` (the target has no function: it holds where it is reached).
    assert_eq!(fns.len(), 1, "{fns:#?}");
}

#[test]
fn a_node_entered_twice_keeps_its_function() {
    let fns = reach_fns(&game(true));
    // `a0` (two edges, the first one's chain of tests up to the node entered twice in one
    // condition) and the chain from that node.
    assert_eq!(fns.len(), 2, "{fns:#?}");
}
