//! Compiled forward models against the interpreter, built with the machine's C++ compiler.
//!
//! For each game of our own (examples and fixtures in every input language, chosen to cover
//! random moves, reachability checks, merged walks, keeper chains, disjoint nodes and nested
//! maps) the generated C++ is built and its driver must count the interpreter's perft and, for
//! the same seed, play exactly the interpreter's random games (same branching, turns, lengths
//! and goals). Skipped, with a message, when no C++ compiler runs on the machine.

use rg_interp::{CompileOptions, Machine, Program, Summary};
use rg_pipeline::native::{Toolchain, build};
use rg_pipeline::{Lang, OptLevel};
use rgt_tests::root;
use std::path::Path;
use std::process::Command;

const PLAYS: u64 = 40;
const SEED: u64 = 5;

/// (file under the workspace root, perft depth, levels).
const GAMES: &[(&str, usize, &[OptLevel])] = &[
    ("examples/nim.rg", 6, &[OptLevel::O0, OptLevel::O2]),
    (
        "tests/fixtures/rg/valid/tictactoe.rg",
        4,
        &[OptLevel::O0, OptLevel::O2],
    ),
    (
        "tests/fixtures/interp/perft/dice_race.rg",
        5,
        &[OptLevel::O2],
    ),
    (
        "tests/fixtures/interp/perft/reachability.rg",
        4,
        &[OptLevel::O2],
    ),
    (
        "tests/fixtures/interp/perft/walk_merging.rg",
        4,
        &[OptLevel::O0],
    ),
    (
        "tests/fixtures/interp/perft/random_merge.rg",
        4,
        &[OptLevel::O2],
    ),
    (
        "tests/fixtures/rg/valid/keeper_chain.rg",
        3,
        &[OptLevel::O2],
    ),
    (
        "tests/fixtures/rg/valid/map_defaults.rg",
        3,
        &[OptLevel::O2],
    ),
    (
        "tests/fixtures/compile/scopes_and_cycles.rg",
        4,
        &[OptLevel::O0, OptLevel::O2],
    ),
    (
        "tests/fixtures/compile/check_chains.rg",
        4,
        &[OptLevel::O0, OptLevel::O2],
    ),
    // Maps listing entries equal to their defaults and whole-map stores that change a
    // map's default (explicit maps in the layout); the optimiser drops `m[k] = m[k]`, so
    // explicit_maps.rg merges walks at -O0 only.
    (
        "tests/fixtures/compile/explicit_maps.rg",
        3,
        &[OptLevel::O0, OptLevel::O2],
    ),
    (
        "tests/fixtures/interp/perft/map_identity.rg",
        3,
        &[OptLevel::O0, OptLevel::O2],
    ),
    (
        "tests/fixtures/rg/valid/hidden_moves.rg",
        3,
        &[OptLevel::O0, OptLevel::O2],
    ),
    (
        "tests/fixtures/passes/inline_assignment.rg",
        3,
        &[OptLevel::O0, OptLevel::O2],
    ),
    ("tests/fixtures/hrg/valid/dice.hrg", 4, &[OptLevel::O2]),
    ("tests/fixtures/hrg/valid/loops.hrg", 3, &[OptLevel::O2]),
    (
        "tests/fixtures/rbg/valid/strip_duel.rbg",
        3,
        &[OptLevel::O2],
    ),
    ("tests/fixtures/rbg/valid/counter.rbg", 3, &[OptLevel::O0]),
    ("tests/fixtures/kif/games/tictactoe.kif", 4, &[OptLevel::O2]),
    ("examples/linegames/alquerque.lg", 3, &[OptLevel::O2]),
];

fn toolchain() -> Option<Toolchain> {
    match Toolchain::find(None, Some("-O1")) {
        Ok(tc) => Some(tc),
        Err(e) => {
            println!("compile: skipped, no C++ compiler runs on this machine ({e:?})");
            None
        }
    }
}

/// Runs the driver; its JSON output, or its error message.
/// The compiled model's perft counts for every depth up to `depth`.
/// The interpreter's perft counts of the initial state at depths 0..=`depth`.
fn interpreter_perft(m: &mut Machine<'_>, depth: usize) -> Vec<u64> {
    let start = m.initial();
    (0..=depth)
        .map(|d| m.perft(&start, d).expect("perft"))
        .collect()
}

fn driver_perft(path: &Path, depth: usize) -> Vec<u64> {
    let got = driver(path, &["perft", &depth.to_string(), "--json"]);
    got["counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|x| x.as_u64().expect("count"))
        .collect()
}

fn try_driver(path: &Path, args: &[&str]) -> Result<serde_json::Value, String> {
    let out = Command::new(path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).expect("the driver prints JSON"))
}

fn driver(path: &Path, args: &[&str]) -> serde_json::Value {
    try_driver(path, args).unwrap_or_else(|e| panic!("driver {args:?} failed: {e}"))
}

fn summary(v: &serde_json::Value) -> Summary {
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    Summary {
        min: f("min"),
        mean: f("mean"),
        std_dev: f("std_dev"),
        max: f("max"),
    }
}

#[test]
fn compiled_models_count_and_play_as_the_interpreter() {
    let Some(tc) = toolchain() else { return };
    let cache = std::env::temp_dir().join(format!("rgt-compile-test-{}", std::process::id()));
    let mut checked = 0;
    for &(file, depth, levels) in GAMES {
        for &level in levels {
            check_game(&tc, &cache, file, depth, level, rg_compile::Model::Auto);
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    assert_eq!(checked, GAMES.iter().map(|g| g.2.len()).sum::<usize>());
}

/// Games of our own the table model is forced on: every game of [`GAMES`] at its first
/// level, and games that use what the others do not (`@repeat`, whole-map stores and
/// comparisons, dynamic visibility).
const TABLE_GAMES: &[(&str, usize)] = &[("tests/fixtures/compile/table_engine.rg", 4)];

#[test]
fn table_models_count_and_play_as_the_interpreter() {
    let Some(tc) = toolchain() else { return };
    let cache = std::env::temp_dir().join(format!("rgt-tables-test-{}", std::process::id()));
    let games = GAMES
        .iter()
        .map(|&(file, depth, levels)| (file, depth, levels[0]))
        .chain(TABLE_GAMES.iter().map(|&(f, d)| (f, d, OptLevel::O0)));
    for (file, depth, level) in games {
        check_game(&tc, &cache, file, depth, level, rg_compile::Model::Tables);
    }
    let _ = std::fs::remove_dir_all(&cache);
}

/// Builds the `model` forward model of `file` at `level` and checks it against the
/// interpreter: perft to `depth`, the statistics of seeded playouts (every way the driver
/// finds moves), and the driver's self-test.
fn check_game(
    tc: &Toolchain,
    cache: &Path,
    file: &str,
    depth: usize,
    level: OptLevel,
    model: rg_compile::Model,
) {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let lang = Lang::detect(file, None).expect("known extension");
    let game =
        rgt_tests::load_at(lang, file, &text, level).unwrap_or_else(|f| panic!("{file}: {f}"));
    let sources = rg_compile::compile(
        &game,
        &rg_compile::Options {
            name: file.to_owned(),
            ignore_pragmas: false,
            unit_bytes: None,
            model,
        },
    )
    .unwrap_or_else(|e| panic!("{file} {level:?}: {e}"));
    let tables = sources.game_cpp.contains("The table model");
    assert_eq!(
        tables,
        model == rg_compile::Model::Tables,
        "{file} {level:?}: the model written"
    );
    let built = build(&sources, tc, cache)
        .unwrap_or_else(|f| panic!("{file} {level:?} {model:?}: build failed: {f:?}"));
    let level = (level, model);

    let program = Program::new(&game, CompileOptions::default()).expect("interpretable");
    let mut m = Machine::new(&program);
    let start = m.initial();
    let want = interpreter_perft(&mut m, depth);
    assert_eq!(
        driver_perft(&built.driver, depth),
        want,
        "{file} {level:?}: perft"
    );

    let plays = PLAYS.to_string();
    let seed = SEED.to_string();
    let got = try_driver(
        &built.driver,
        &[
            "play", "--plays", &plays, "--seed", &seed, "--check", "--json",
        ],
    );
    let stats = match m.playouts(&start, PLAYS, SEED) {
        Ok(stats) => stats,
        Err(e) => {
            // An improper game: the compiled model must stop too, for the same reason.
            let why = got.expect_err("the interpreter stopped, the compiled model did not");
            let same = match e {
                rg_interp::PlayError::Ambiguous { .. } => why.contains("different states"),
                rg_interp::PlayError::DeadEnd { .. } => why.contains("unexpectedly ended"),
                rg_interp::PlayError::KeeperMoves { .. } => why.contains("keeper had"),
                rg_interp::PlayError::Runtime(_) => true,
                rg_interp::PlayError::TooLong { .. } => why.contains("longer than"),
            };
            assert!(same, "{file} {level:?}: interpreter: {e}; compiled: {why}");
            return;
        }
    };
    let got = got.unwrap_or_else(|e| panic!("{file} {level:?}: driver play failed: {e}"));
    assert_eq!(got["plays"].as_u64(), Some(PLAYS), "{file}");
    assert_eq!(
        summary(&got["branching"]),
        stats.branching,
        "{file} {level:?}: branching"
    );
    assert_eq!(
        summary(&got["turns"]),
        stats.turns,
        "{file} {level:?}: turns"
    );
    assert_eq!(
        summary(&got["length"]),
        stats.length,
        "{file} {level:?}: length"
    );
    let goals: Vec<(String, u64)> = got["goals"]
        .as_array()
        .expect("goals")
        .iter()
        .map(|g| {
            let text = g["goals"].as_str().expect("text").to_owned();
            (text, g["plays"].as_u64().expect("n"))
        })
        .collect();
    let want: Vec<(String, u64)> = stats.goals.iter().map(|(k, v)| (k.clone(), *v)).collect();
    assert_eq!(goals, want, "{file} {level:?}: goals");
    // The fast paths play the same games: moves listed as cheaply as possible (some
    // left pending), only their tags listed or only their number counted and the
    // chosen one searched again, and the default that measures them; and every move
    // found any other way gives the state recorded for it (selftest).
    for way in [
        None,
        Some("--by-list"),
        Some("--by-tags"),
        Some("--by-count"),
    ] {
        let mut args = vec!["play", "--plays", &plays, "--seed", &seed, "--json"];
        args.extend(way);
        let fast = driver(&built.driver, &args);
        for key in ["branching", "turns", "length", "goals"] {
            assert_eq!(fast[key], got[key], "{file} {level:?}: {way:?}, {key}");
        }
    }
    let out = Command::new(&built.driver)
        .args(["selftest", "--plays", "5", "--seed", &seed])
        .output()
        .expect("driver runs");
    assert!(
        out.status.success(),
        "{file} {level:?}: selftest: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_second_build_comes_from_the_cache() {
    let Some(tc) = toolchain() else { return };
    let cache = std::env::temp_dir().join(format!("rgt-cache-test-{}", std::process::id()));
    let text = std::fs::read_to_string(root().join("examples/nim.rg")).expect("example");
    let game = rgt_tests::load_at(Lang::Rg, "nim.rg", &text, OptLevel::O2).expect("nim loads");
    let sources = rg_compile::compile(&game, &rg_compile::Options::default()).expect("compiles");
    let first = build(&sources, &tc, &cache).expect("first build");
    let second = build(&sources, &tc, &cache).expect("second build");
    assert!(!first.cached && second.cached);
    assert_eq!(first.driver, second.driver);
    // Other flags are another build.
    let mut tc2 = tc.clone();
    tc2.flags.push("-DRGT_TEST_VARIANT".into());
    let third = build(&sources, &tc2, &cache).expect("third build");
    assert!(!third.cached);
    assert_ne!(third.driver, first.driver);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn generated_sources_are_deterministic() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/rg/valid/tictactoe.rg"))
        .expect("fixture");
    let generate = || {
        let game = rgt_tests::load_at(Lang::Rg, "t.rg", &text, OptLevel::O2).expect("loads");
        rg_compile::compile(&game, &rg_compile::Options::default()).expect("compiles")
    };
    assert_eq!(generate(), generate());
}

#[test]
fn sources_in_several_units_count_as_the_interpreter() {
    // Large games are spread over several translation units; a tiny unit size makes a small
    // game take that path.
    let Some(tc) = toolchain() else { return };
    let cache = std::env::temp_dir().join(format!("rgt-units-test-{}", std::process::id()));
    for (file, depth) in [
        ("tests/fixtures/rg/valid/tictactoe.rg", 4usize),
        ("tests/fixtures/interp/perft/reachability.rg", 4),
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("fixture");
        let game = rgt_tests::load_at(Lang::Rg, file, &text, OptLevel::O2).expect("loads");
        let opts = rg_compile::Options {
            unit_bytes: Some(2048),
            model: rg_compile::Model::Functions,
            ..Default::default()
        };
        let sources = rg_compile::compile(&game, &opts).expect("compiles");
        assert!(
            sources.parts.len() >= 2,
            "{file}: {} parts",
            sources.parts.len()
        );
        assert_eq!(
            sources,
            rg_compile::compile(&game, &opts).expect("compiles")
        );
        let built =
            build(&sources, &tc, &cache).unwrap_or_else(|f| panic!("{file}: build failed: {f:?}"));
        let program = Program::new(&game, CompileOptions::default()).expect("interpretable");
        let want = interpreter_perft(&mut Machine::new(&program), depth);
        assert_eq!(driver_perft(&built.driver, depth), want, "{file}: perft");
    }
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn both_models_describe_states_alike() {
    // The table model formats variables with functions shared by all variables of a shape and
    // describes the state by a loop over tables; the function model has a function per
    // variable. One seeded random play must print the same states, tags and goals.
    let Some(tc) = toolchain() else { return };
    let cache = std::env::temp_dir().join(format!("rgt-describe-test-{}", std::process::id()));
    for file in [
        "tests/fixtures/rg/valid/map_defaults.rg",
        "tests/fixtures/compile/table_engine.rg",
        "tests/fixtures/compile/explicit_maps.rg",
        "tests/fixtures/hrg/valid/dice.hrg",
        "tests/fixtures/kif/games/tictactoe.kif",
        "examples/linegames/alquerque.lg",
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("fixture");
        let lang = Lang::detect(file, None).expect("known extension");
        let game = rgt_tests::load_at(lang, file, &text, OptLevel::O2)
            .unwrap_or_else(|f| panic!("{file}: {f}"));
        let shown: Vec<String> = [rg_compile::Model::Functions, rg_compile::Model::Tables]
            .into_iter()
            .map(|model| {
                let opts = rg_compile::Options {
                    model,
                    ..Default::default()
                };
                let sources = rg_compile::compile(&game, &opts).expect("compiles");
                let built = build(&sources, &tc, &cache)
                    .unwrap_or_else(|f| panic!("{file} {model:?}: build failed: {f:?}"));
                let out = Command::new(&built.driver)
                    .args(["show", "--plays", "30", "--seed", "3"])
                    .output()
                    .expect("driver runs");
                assert!(out.status.success(), "{file} {model:?}: show failed");
                String::from_utf8(out.stdout).expect("text")
            })
            .collect();
        assert!(shown[0].starts_with("node: "), "{file}: {}", shown[0]);
        assert!(shown[0].contains("\nmove 1: "), "{file}: no move shown");
        assert_eq!(
            shown[0], shown[1],
            "{file}: the models describe differently"
        );
    }
    let _ = std::fs::remove_dir_all(&cache);
}
