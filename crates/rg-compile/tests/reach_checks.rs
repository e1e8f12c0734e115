//! Visited-state checks in reachability searches only bound their work (whether the target is
//! reached does not depend on them): a node on no cycle, entered by a few injective routes,
//! goes unchecked; a node on a cycle, or entered by more routes than the bound allows, keeps
//! its check.

use rg_compile::{Options, compile};

/// The number of visited-state stamps the reachability functions of `text` read.
fn reach_stamps(text: &str) -> usize {
    let mut g = rg_core::parse(rg_core::FileId(0), text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    let src = compile(&g, &Options::default()).expect("compiles");
    let mut in_reach = false;
    let mut n = 0;
    for l in std::iter::once(src.game_cpp.as_str())
        .chain(src.parts.iter().map(String::as_str))
        .flat_map(str::lines)
    {
        if l.contains(") {") && !l.starts_with(' ') {
            in_reach = l.starts_with("static bool R") || l.starts_with("bool R");
        }
        if in_reach && l.contains("c.stamps.data()") {
            n += 1;
        }
    }
    n
}

/// `begin` moves once if a check from `a` reaches `b`: `a` forks to `routes` nodes that all
/// lead to the join `j` (and, when `cycle`, `j` leads back to `a`), which reaches `b` only when
/// `x` is 3 (it is 0: the whole search runs).
fn game(routes: usize, cycle: bool) -> String {
    let mut text = String::from(
        "type Player = { p };\ntype Score = { 0, 100 };\ntype X = { 0, 1, 2, 3 };\n\
         var x: X = 0;\nbegin, s: player = p;\ns, t: ! a -> b;\nt, named: $ go;\n\
         named, won: goals[p] = 100;\nwon, end: player = keeper;\nj, b: x == 3;\n",
    );
    for i in 0..routes {
        text.push_str(&format!("a, m{i}: x != {};\nm{i}, j: ;\n", 1 + i % 3));
    }
    if cycle {
        text.push_str("j, a: x == 0;\n");
    }
    text
}

#[test]
fn a_join_of_few_routes_is_unchecked() {
    assert_eq!(reach_stamps(&game(2, false)), 0);
    assert_eq!(reach_stamps(&game(16, false)), 0);
}

#[test]
fn a_join_of_many_routes_keeps_its_check() {
    assert_eq!(reach_stamps(&game(17, false)), 1);
}

#[test]
fn a_join_on_a_cycle_keeps_its_check() {
    assert!(reach_stamps(&game(2, true)) >= 1);
}
