//! Interpreter suites (issue: RG interpreter): perft of hand-counted fixtures, the moves order,
//! paths, playouts, the proper-game checks on games that violate each condition, run-time
//! errors with their paths, the equivalence oracle, and the RG corpus perft counts.

use rg_interp::equiv::{EquivOptions, check_equivalent, check_relabelled};
use rg_interp::{CheckOptions, CompileOptions, Machine, PathError, Program};
use rg_pipeline::Lang;
use rgt_tests::{corpus, fixture_files, load, name, render, skip_without_corpus};
use std::path::Path;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/interp");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn game_of(path: &Path) -> rg_core::Game {
    load(Lang::Rg, &name(path), &read(path))
        .unwrap_or_else(|d| panic!("{} should load:\n{d}", path.display()))
}

fn program(path: &Path, ignore_pragmas: bool) -> Program {
    Program::new(
        &game_of(path),
        CompileOptions {
            ignore_pragmas,
            ..CompileOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn perft_counts(p: &Program, depth: usize) -> Vec<u64> {
    let mut m = Machine::new(p);
    let s = m.initial();
    (0..=depth)
        .map(|d| m.perft(&s, d).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The counts written in a fixture's `// <key>: 1 2 3` header line.
fn header_counts(text: &str, key: &str) -> Option<Vec<u64>> {
    let prefix = format!("// {key}:");
    let line = text.lines().find(|l| l.starts_with(&prefix))?;
    Some(
        line[prefix.len()..]
            .split_whitespace()
            .map(|n| n.parse().expect("a count"))
            .collect(),
    )
}

#[test]
fn perft_of_hand_counted_fixtures() {
    let files = fixture_files("interp/perft", "rg");
    assert!(files.len() >= 5);
    for path in files {
        let text = read(&path);
        let want = header_counts(&text, "perft").expect("a `// perft:` line");
        let got = perft_counts(&program(&path, false), want.len() - 1);
        assert_eq!(got, want, "{}", path.display());
        if let Some(want) = header_counts(&text, "perft-ignoring-pragmas") {
            let got = perft_counts(&program(&path, true), want.len() - 1);
            assert_eq!(got, want, "{} without pragmas", path.display());
        }
    }
}

#[test]
fn perft_of_the_rg_fixtures_counted_by_hand() {
    // tictactoe: 9 cells, then 8, 7, 6 (no line can be complete before the fifth mark).
    // nim_counter: pile 5, take 1 or 2: piles {4,3}; {3,2,2,1}; 7 leaves; then 5 (see the test
    // of the fixture's own comment). coin_random: two coin tosses (2, 4 distinct outcomes), then
    // three guesses (12), then only keeper moves to `end` (0).
    for (file, want) in [
        ("tictactoe.rg", vec![1, 9, 72, 504, 3024]),
        ("nim_counter.rg", vec![1, 2, 4, 7, 5]),
        ("coin_random.rg", vec![1, 2, 4, 12, 0]),
    ] {
        let path = rgt_tests::fixtures("rg/valid").join(file);
        assert_eq!(
            perft_counts(&program(&path, false), want.len() - 1),
            want,
            "{file}"
        );
    }
}

#[test]
fn moves_are_listed_in_the_reference_order() {
    let path = rgt_tests::fixtures("rg/valid/tictactoe.rg");
    let p = program(&path, false);
    let mut m = Machine::new(&p);
    let mut out = String::new();
    for after in ["/", "//", "//p1 p1/"] {
        let s = m.follow(after).expect("a legal path");
        let moves = m.moves(&s).expect("moves");
        out.push_str(&format!("after {after}: {} moves\n", moves.len()));
        for i in 0..moves.len() {
            out.push_str(&format!("  [{}]\n", m.tag_text(moves.tags(i))));
        }
    }
    settings().bind(|| insta::assert_snapshot!("tictactoe_moves", out));
}

#[test]
fn paths_report_bad_format_unknown_tags_and_illegal_moves() {
    let path = rgt_tests::fixtures("rg/valid/tictactoe.rg");
    let p = program(&path, false);
    let mut m = Machine::new(&p);
    assert!(matches!(m.follow("p1 p1"), Err(PathError::Format(_))));
    assert!(matches!(m.follow("//p9 p1/"), Err(PathError::UnknownTag(t)) if t == "p9"));
    assert!(matches!(
        m.follow("/p1 p1/"),
        Err(PathError::Illegal { .. })
    ));
    let a = m.follow("//p1 p1/").expect("legal");
    let b = m.follow("//p1 p1/").expect("legal");
    assert_eq!(a, b);
    assert_ne!(a, m.initial());
}

#[test]
fn playouts_are_reproducible_and_count_every_play() {
    let path = rgt_tests::fixtures("rg/valid/tictactoe.rg");
    let p = program(&path, false);
    let mut m = Machine::new(&p);
    let s = m.initial();
    let a = m.playouts(&s, 300, 42).expect("proper game");
    let b = m.playouts(&s, 300, 42).expect("proper game");
    assert_eq!(a.plays, 300);
    assert_eq!(a.goals, b.goals);
    assert_eq!(a.turns, b.turns);
    assert_eq!(a.goals.values().sum::<u64>(), 300);
    // Tic-tac-toe lasts 5 to 9 turns with 1 to 9 moves to choose from.
    assert!(a.turns.min >= 5.0 && a.turns.max <= 9.0, "{:?}", a.turns);
    assert!(
        a.branching.min >= 1.0 && a.branching.max == 9.0,
        "{:?}",
        a.branching
    );
    assert!(a.goals.len() >= 2, "{:?}", a.goals);
}

#[test]
fn check_finds_the_violation_of_each_improper_fixture() {
    let mut report = String::new();
    for path in fixture_files("interp/improper", "rg") {
        let text = read(&path);
        let want = text
            .lines()
            .find_map(|l| l.strip_prefix("// violates: "))
            .expect("a `// violates:` line")
            .trim()
            .to_string();
        // As `rgt check` does: every variable compared when walks merge.
        let opts = CompileOptions {
            compare_every_variable: true,
            ..CompileOptions::default()
        };
        let p = Program::new(&game_of(&path), opts).expect("compiles");
        let mut m = Machine::new(&p);
        let s = m.initial();
        let found = m
            .check(
                &s,
                &CheckOptions {
                    depth: 4,
                    plays: 20,
                    ..CheckOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            found.iter().any(|v| v.condition.name() == want),
            "{}: expected a `{want}` violation, found {found:?}",
            path.display()
        );
        report.push_str(&format!("== {}\n", name(&path)));
        for v in &found {
            report.push_str(&render(v, &name(&path), &text));
        }
    }
    settings().bind(|| insta::assert_snapshot!("improper_checks", report));
}

#[test]
fn check_finds_nothing_in_proper_games() {
    // (random_merge and walk_merging are ambiguous on purpose, wrong_disjoint has a wrong
    // pragma: they exercise perft rules, not proper games.)
    let files = [
        rgt_tests::fixtures("interp/perft/map_identity.rg"),
        rgt_tests::fixtures("interp/perft/reachability.rg"),
        rgt_tests::fixtures("rg/valid/tictactoe.rg"),
        rgt_tests::fixtures("rg/valid/nim_counter.rg"),
        rgt_tests::fixtures("rg/valid/coin_random.rg"),
    ];
    for path in files {
        let p = program(&path, false);
        let mut m = Machine::new(&p);
        let s = m.initial();
        let found = m
            .check(&s, &CheckOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(found.is_empty(), "{}: {found:?}", path.display());
    }
}

#[test]
fn runtime_errors_carry_the_edge_and_the_path() {
    let path = rgt_tests::fixtures("interp/improper/key_outside_domain.rg");
    let text = read(&path);
    let p = program(&path, false);
    let mut m = Machine::new(&p);
    let s = m.initial();
    let e = m
        .perft(&s, 2)
        .expect_err("the store at `far` cannot be evaluated");
    assert_eq!(e.path_text(), "//");
    assert!(e.edge_text.contains("board[pos] = 1"), "{}", e.edge_text);
    assert!(matches!(
        e.fault,
        rg_interp::Fault::KeyOutsideDomain { ref key, write: true } if key == "far"
    ));
    settings().bind(|| insta::assert_snapshot!("runtime_error", render(&*e, &name(&path), &text)));
}

#[test]
fn the_oracle_accepts_equal_games_and_finds_differences() {
    let ttt = game_of(&rgt_tests::fixtures("rg/valid/tictactoe.rg"));
    let opts = EquivOptions {
        depth: 3,
        plays: 10,
        seed: 1,
    };
    assert_eq!(check_equivalent(&ttt, &ttt.clone(), &opts), Ok(()));

    // A wrong @disjoint pragma hides a move: found at depth 1 against the pragma-free game.
    let wrong_text = read(&rgt_tests::fixtures("interp/perft/wrong_disjoint.rg"));
    let wrong = load(Lang::Rg, "wrong.rg", &wrong_text).expect("valid");
    let fixed_text = wrong_text.replace("@disjoint s : px py;", "");
    let fixed = load(Lang::Rg, "fixed.rg", &fixed_text).expect("valid");
    let d = check_equivalent(&wrong, &fixed, &opts).expect_err("different games");
    assert!(d.what.contains("perft(1) is 1 and 2"), "{d}");

    // Same perft counts but different tags: found along the playouts.
    let plain = game_of(&rgt_tests::fixtures("interp/perft/walk_merging.rg"));
    let renamed_text =
        read(&rgt_tests::fixtures("interp/perft/walk_merging.rg")).replace("$ go", "$ went");
    let renamed = load(Lang::Rg, "renamed.rg", &renamed_text).expect("valid");
    let d = check_equivalent(&plain, &renamed, &opts).expect_err("different tags");
    assert!(d.what.contains("go") && d.what.contains("went"), "{d}");
}

#[test]
fn the_relabelling_oracle_accepts_one_to_one_relabellings_only() {
    let opts = EquivOptions {
        depth: 3,
        plays: 10,
        seed: 1,
    };
    let text = "type Player = { x };\ntype Score = { 0 };\ntype T = { p, q };\nvar v: T = p;\n\
                begin, s: player = x;\ns, a: v = T(*);\na, b: $$ v;\nb, c: $ go;\n\
                c, end: player = keeper;\n";
    let plain = load(Lang::Rg, "plain.rg", text).expect("valid");
    // Renamed and removed tags: the same tree with a one-to-one relabelling.
    let renamed = load(Lang::Rg, "renamed.rg", &text.replace("$ go", "$ went")).expect("valid");
    assert_eq!(check_relabelled(&plain, &renamed, &opts), Ok(()));
    let shorter = load(Lang::Rg, "shorter.rg", &text.replace("$ go", "")).expect("valid");
    assert_eq!(check_relabelled(&plain, &shorter, &opts), Ok(()));
    // The moves `p go` and `q go` merged into one labelling: the same perft, not a bijection.
    let merged = load(
        Lang::Rg,
        "merged.rg",
        &text.replace("a, b: $$ v;", "a, b: ;"),
    )
    .expect("valid");
    let d = check_relabelled(&plain, &merged, &opts).expect_err("moves merged");
    assert!(d.what.contains("do not pair up"), "{d}");
    // A different tree is found by perft.
    let fewer = load(
        Lang::Rg,
        "fewer.rg",
        &text.replace("s, a: v = T(*);", "s, a: v = q;"),
    )
    .expect("valid");
    let d = check_relabelled(&plain, &fewer, &opts).expect_err("different games");
    assert!(d.what.contains("perft(1) is 2 and 1"), "{d}");
}

/// Every `rg/` entry of the corpus's expected.csv, at -O0 (the optimiser has its own suite).
#[test]
fn corpus_rg_perft_counts() {
    let Some(dir) = corpus() else {
        skip_without_corpus("corpus_rg_perft_counts");
        return;
    };
    let csv = read(&dir.join("expected.csv"));
    let mut checked = 0;
    for line in csv.lines().skip(1) {
        let mut cols = line.splitn(3, ',');
        let (file, depth, counts) = (
            cols.next().expect("file"),
            cols.next().expect("depth"),
            cols.next().expect("counts"),
        );
        if !file.starts_with("rg/") {
            continue;
        }
        let depth: usize = depth.parse().expect("depth");
        let want: Vec<u64> = counts
            .split_whitespace()
            .map(|n| n.parse().expect("count"))
            .collect();
        let got = perft_counts(&program(&dir.join(file), false), depth);
        assert_eq!(got, want, "{file}");
        checked += 1;
    }
    assert!(checked >= 17, "only {checked} rg/ games in expected.csv");
}

#[test]
fn a_keeper_cycle_is_a_run_time_error_in_perft_and_playouts() {
    // Keeper moves are free in perft and a playout ends only at `end`: a keeper that moves in a
    // cycle made perft overflow the stack and playouts run forever.
    for (file, perft1, cycle) in [
        ("keeper_cycle_through_end.rg", 1, 1),
        ("keeper_counts_forever.rg", 2, 3),
    ] {
        let path = rgt_tests::fixtures("interp/improper").join(file);
        let p = program(&path, false);
        let mut m = Machine::new(&p);
        let s = m.initial();
        assert_eq!(m.perft(&s, 1).expect("depth 1 has no keeper cycle"), perft1);
        for depth in [2, 3] {
            let e = m
                .perft(&s, depth)
                .expect_err("the keeper cycles after `go`");
            assert!(
                matches!(e.fault, rg_interp::Fault::KeeperCycle { moves, .. } if moves == cycle),
                "{file}: {:?}",
                e.fault
            );
            assert!(e.path_text().starts_with("//go//"), "{}", e.path_text());
            assert!(e.to_string().contains("the keeper moves in a cycle"), "{e}");
        }
        // 20 plays: at least one picks `go` (the other move ends the game).
        match m.playouts(&s, 20, 3) {
            Err(rg_interp::PlayError::Runtime(e)) => assert!(
                matches!(e.fault, rg_interp::Fault::KeeperCycle { moves, .. } if moves == cycle),
                "{file}: {:?}",
                e.fault
            ),
            other => panic!("{file}: expected a keeper cycle, got {other:?}"),
        }
    }
}

#[test]
fn strict_mode_reports_the_first_key_evaluated_outside_its_domain() {
    // In `m[a[x]][b[y]]` the key `b[y]` is evaluated before the map `m[a[x]]` (the
    // interpreter evaluates an access's key before its map): the flat expression code must
    // keep that order.
    let path = rgt_tests::fixtures("interp/improper/nested_keys.rg");
    let p = program(&path, false);
    let mut m = Machine::new(&p);
    let s = m.follow("//").expect("the keeper's first move");
    assert_eq!(m.moves(&s).expect("not strict: defaults are read").len(), 1);
    m.set_strict(true);
    let e = m.moves(&s).expect_err("strict: `fary` is not a key of `b`");
    assert!(
        matches!(e.fault, rg_interp::Fault::KeyOutsideDomain { ref key, write: false } if key == "fary"),
        "{:?}",
        e.fault
    );
}
