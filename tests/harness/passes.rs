//! Optimisation suites (issue: passes): every pass on a fixture of its own, snapshotted as a
//! before→after diff and proven by the interpreter's oracle (under the tag relabelling for the
//! passes that rename or drop tags); the pragmas a pass adds never change perft; `-O1`, `-O2`
//! and everything that keeps the game tree, together, keep the game tree of every RG fixture.

use rg_interp::equiv::{
    EquivOptions, check_equivalent, check_programs, check_relabelled, check_relabelled_hinted,
};
use rg_interp::{CompileOptions, Program, Verified, VerifyOptions, verify_pragmas};
use rg_passes::{Options, PassPhase, Pipeline, Safety};
use rg_pipeline::Lang;
use rgt_tests::{fixture_files, load, name};
use std::collections::HashMap;
use std::path::Path;

fn game(path: &Path) -> rg_core::Game {
    let text = std::fs::read_to_string(path).expect("fixture");
    load(Lang::Rg, &name(path), &text).unwrap_or_else(|d| panic!("{}:\n{d}", path.display()))
}

fn opts() -> Options {
    Options {
        validate_each: true,
        validators: rg_validate::REFERENCE_VALIDATORS,
        ..Options::default()
    }
}

const ORACLE: EquivOptions = EquivOptions {
    depth: 4,
    plays: 30,
    seed: 7,
};

/// The renaming of tags between two games whose edge lists correspond position by position
/// (what a relabelling pass produces): `$ a` → `$ b` maps `a` to `b`, `$ a` → skip drops `a`.
/// `None` when the lists do not correspond or a tag would map two ways.
fn tag_relabelling(
    before: &rg_core::Game,
    after: &rg_core::Game,
) -> Option<HashMap<String, Option<String>>> {
    if before.edge_count() != after.edge_count() {
        return None;
    }
    let mut map: HashMap<String, Option<String>> = HashMap::new();
    for ((_, x), (_, y)) in before.edges().zip(after.edges()) {
        let image = match (x.label, y.label) {
            (rg_core::Label::Tag(a), rg_core::Label::Tag(b)) => {
                Some((a, Some(after.name(b).to_owned())))
            }
            (rg_core::Label::Tag(a), rg_core::Label::Skip) => Some((a, None)),
            _ => None,
        };
        if let Some((a, b)) = image
            && map
                .insert(before.name(a).to_owned(), b.clone())
                .is_some_and(|old| old != b)
        {
            return None;
        }
    }
    Some(map)
}

/// The oracle for a pass of this safety: the same moves, or the same tree up to a one-to-one
/// relabelling of the moves at every state, its playouts steered by the renaming read off the
/// edges where the edge lists correspond.
fn prove(before: &rg_core::Game, after: &rg_core::Game, safety: Safety) -> Result<(), String> {
    if safety != Safety::Relabels {
        return check_equivalent(before, after, &ORACLE).map_err(|d| d.to_string());
    }
    let map = tag_relabelling(before, after).unwrap_or_default();
    let relabel = |tags: &[String]| -> Vec<String> {
        tags.iter()
            .filter_map(|t| match map.get(t) {
                Some(image) => image.clone(),
                None => Some(t.clone()), // values of `$$ v`, which relabelling passes keep
            })
            .collect()
    };
    check_relabelled_hinted(before, after, &ORACLE, &relabel).map_err(|d| d.to_string())
}

/// The pragmas the interpreter trusts (`@disjoint`, `@unique`, `@repeat`) are true: perft with
/// them equals perft without them, and no search from the states within 3 moves would change
/// under them (which also catches a wrong `@unique` whose duplicate walks die a step later).
fn pragmas_are_true(g: &rg_core::Game) -> Result<(), String> {
    let with = Program::new(g, CompileOptions::default()).map_err(|e| e.to_string())?;
    let without = Program::new(
        g,
        CompileOptions {
            ignore_pragmas: true,
            ..CompileOptions::default()
        },
    )
    .map_err(|e| e.to_string())?;
    check_programs(&with, &without, &ORACLE).map_err(|d| format!("a pragma is false: {d}"))?;
    let opts = VerifyOptions {
        depth: 3,
        max_states: 500,
    };
    match verify_pragmas(g, &opts) {
        Verified::Holds { .. } => Ok(()),
        Verified::Violated(v) => Err(format!(
            "a pragma is false: {}\n{}",
            v.iter()
                .map(|v| v.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            rg_core::print(g)
        )),
        Verified::Inconclusive(why) => Err(format!("the pragmas could not be checked: {why}")),
    }
}

#[test]
fn every_pass_has_a_fixture_that_it_changes_without_changing_the_game() {
    let files = fixture_files("passes", "rg");
    let mut covered = Vec::new();
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/passes");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    for path in &files {
        let stem = name(path).trim_end_matches(".rg").to_string();
        let pass_name = stem.split("__").next().expect("a pass name");
        let pass = rg_passes::find(pass_name)
            .unwrap_or_else(|| panic!("{}: no pass named {pass_name}", path.display()));
        let before = game(path);
        // A setup pass runs on the game as written; the oracle compares it with the game as
        // the CLI loads it.
        let input = if pass.phase() == PassPhase::Setup {
            let text = std::fs::read_to_string(path).expect("fixture");
            rg_core::parse(rg_core::FileId(0), &text).expect("the fixture parses")
        } else {
            before.clone()
        };
        let mut after = input.clone();
        let mut pipeline = Pipeline::default();
        pipeline.add(pass.name());
        let r = rg_passes::run(&mut after, &pipeline, &opts(), &mut |_, _| Ok(()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            r.records.iter().any(|x| x.changed),
            "{}: {pass_name} changed nothing",
            path.display()
        );
        prove(&before, &after, pass.safety())
            .unwrap_or_else(|d| panic!("{}: {pass_name} changed the game: {d}", path.display()));
        pragmas_are_true(&after).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        // A second run finds nothing left to do (loop passes are at their fixed point; final
        // passes do not add what is there).
        let again = rg_passes::run(&mut after.clone(), &pipeline, &opts(), &mut |_, _| Ok(()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            again.records.iter().all(|x| !x.changed) || pass.name() == "mangle_symbols",
            "{}: {pass_name} is not idempotent",
            path.display()
        );
        let (a, b) = (rg_core::print(&input), rg_core::print(&after));
        let diff = similar::TextDiff::from_lines(&a, &b)
            .unified_diff()
            .context_radius(2)
            .to_string();
        // One snapshot per fixture, so fixtures of different passes never share a file.
        s.bind(|| insta::assert_snapshot!(stem.as_str(), diff));
        covered.push(pass.name());
    }
    for p in rg_passes::registry() {
        assert!(covered.contains(&p.name()), "no fixture for {}", p.name());
    }
}

/// Every pass that keeps the game tree and its labels: the pipelines of `-O2` and `compiler`,
/// the normalizations and expansions, without unsafe or relabelling passes.
fn everything_safe() -> Pipeline {
    let mut p = Pipeline::default();
    for pass in rg_passes::registry() {
        if pass.safety() == Safety::Safe {
            p.add(pass.name());
        }
    }
    p
}

#[test]
fn optimisation_levels_keep_the_game_tree_of_every_rg_fixture() {
    let mut files = fixture_files("rg/valid", "rg");
    files.extend(fixture_files("interp/perft", "rg"));
    files.extend(fixture_files("passes", "rg"));
    let mut checked = 0;
    for path in files {
        let before = game(&path);
        // Passes promise the same tree for proper games only (an ambiguous move may count
        // several walks that a pass legitimately merges), and drop the node pragmas of a
        // changed automaton (a wrong pragma then stops hiding moves).
        if !is_proper(&before) || name(&path).starts_with("wrong_") {
            continue;
        }
        checked += 1;
        levels_keep_the_game_tree(&before, &path.display().to_string(), &ORACLE);
    }
    assert!(checked >= 20, "only {checked} proper fixtures");
}

/// `-O1`, `-O2` (with and without its relabelling passes) and every safe pass keep the game tree
/// of `before` (a proper game), their pragmas are true, and mangling keeps the tree too; panics
/// with the optimised game on the first difference.
pub(crate) fn levels_keep_the_game_tree(before: &rg_core::Game, what: &str, oracle: &EquivOptions) {
    // `-O2` may relabel moves; without its relabelling passes the labels must stay.
    let mut labels_kept = rg_pipeline::OptLevel::O2.pipeline();
    for p in rg_passes::registry() {
        if p.safety() == Safety::Relabels {
            labels_kept.remove(p.name());
        }
    }
    let levels = [
        ("-O1", Pipeline::local()),
        (
            "-O2",
            rg_pipeline::OptLevel::O2.pipeline(), // safe + pragmas
        ),
        ("-O2 without relabelling", labels_kept),
        ("every safe pass", everything_safe()),
    ];
    for (level, p) in &levels {
        let mut after = before.clone();
        rg_passes::run(&mut after, p, &opts(), &mut |_, _| Ok(()))
            .unwrap_or_else(|e| panic!("{what} at {level}: {e}"));
        let relabels = p.passes().iter().any(|p| p.safety() == Safety::Relabels);
        let check = if relabels {
            check_relabelled
        } else {
            check_equivalent
        };
        check(before, &after, oracle)
            .unwrap_or_else(|d| panic!("{what} at {level}: {d}\n{}", rg_core::print(&after)));
        pragmas_are_true(&after).unwrap_or_else(|d| panic!("{what} at {level}: {d}"));
        // Mangling the optimised game keeps its tree under the renaming of its tags.
        let mut mangled = after.clone();
        let mut m = Pipeline::default();
        m.add("mangle_symbols");
        rg_passes::run(&mut mangled, &m, &opts(), &mut |_, _| Ok(()))
            .unwrap_or_else(|e| panic!("{what} mangled: {e}"));
        prove(&after, &mangled, Safety::Relabels)
            .unwrap_or_else(|d| panic!("{what} at {level}, mangled: {d}"));
    }
}

/// Whether the bounded check of the proper-game conditions finds nothing. Every variable is
/// compared when walks merge, so that two walks of one move that differ only in `goals` (which
/// the interpreter would merge, keeping the first) count as the ambiguity they are.
pub(crate) fn is_proper(g: &rg_core::Game) -> bool {
    let opts = CompileOptions {
        compare_every_variable: true,
        ..CompileOptions::default()
    };
    let Ok(p) = Program::new(g, opts) else {
        return false;
    };
    let mut m = rg_interp::Machine::new(&p);
    let s = m.initial();
    m.check(&s, &rg_interp::CheckOptions::default())
        .is_ok_and(|found| found.is_empty())
}

#[test]
fn pipelines_are_deterministic_and_idempotent() {
    let path = rgt_tests::fixtures("passes/compact_skip_edges.rg");
    for p in [
        Pipeline::named("safe").expect("pipeline"),
        everything_safe(),
    ] {
        let mut a = game(&path);
        let mut b = game(&path);
        rg_passes::run(&mut a, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
        rg_passes::run(&mut b, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
        assert_eq!(rg_core::print(&a), rg_core::print(&b));
        let again = rg_passes::run(&mut b, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
        assert!(again.records.iter().all(|r| !r.changed));
    }
}

#[test]
fn named_pipelines_follow_passes_md() {
    let names = |p: &Pipeline| -> Vec<&str> { p.passes().iter().map(|x| x.name()).collect() };
    let none = Pipeline::named("none").expect("none");
    assert_eq!(names(&none), ["add_builtins"]);
    let safe = Pipeline::named("safe").expect("safe");
    let reference = Pipeline::named("reference").expect("reference");
    let pragmas = Pipeline::named("pragmas").expect("pragmas");
    let compiler = Pipeline::named("compiler").expect("compiler");
    for p in rg_passes::registry() {
        let n = p.name();
        let optimization = rg_passes::option_set(*p) == rg_passes::OptionSet::Optimization;
        assert_eq!(
            safe.contains(n),
            n == "add_builtins" || (optimization && p.safety() != Safety::Unsafe),
            "{n} in safe"
        );
        assert_eq!(
            reference.contains(n),
            n == "add_builtins" || optimization,
            "{n} in reference"
        );
        assert_eq!(
            pragmas.contains(n),
            n == "add_builtins" || n.starts_with("calculate_"),
            "{n} in pragmas"
        );
        assert_eq!(
            compiler.contains(n),
            reference.contains(n)
                || pragmas.contains(n)
                || n == "normalize_types"
                || n == "normalize_constants",
            "{n} in compiler"
        );
    }
    assert!(
        Pipeline::named("local").is_none(),
        "-O1 is not a named pipeline"
    );
    assert!(
        Pipeline::local()
            .passes()
            .iter()
            .all(|p| p.safety() == Safety::Safe)
    );
}

#[test]
fn invalid_input_and_hook_failures_are_reported() {
    let path = rgt_tests::fixtures("passes/expand_tag_variable.rg");
    let mut g = game(&path);
    // Remove the variable `$$` reads: expand_tag_variable then has nothing to expand but the
    // validators reject the input of the pipeline, which is reported as such.
    let v = g.find_sym("col").expect("the fixture has `col`");
    g.variables.retain(|x| x.name != v);
    g.phase = rg_core::Phase::Parsed;
    let mut p = Pipeline::named("none").expect("none");
    p.add("expand_tag_variable");
    let e = rg_passes::run(&mut g, &p, &opts(), &mut |_, _| Ok(())).expect_err("invalid input");
    assert!(
        matches!(e, rg_passes::PipelineError::InvalidInput { .. }),
        "{e}"
    );
    // A hook failure names the pass and carries the game before and after it.
    let mut g = game(&path);
    let mut p = Pipeline::default();
    p.add("expand_tag_variable");
    let e = rg_passes::run(&mut g, &p, &opts(), &mut |_, pass| {
        Err(format!("{pass} rejected"))
    })
    .expect_err("the hook rejects");
    let rg_passes::PipelineError::Hook {
        pass,
        before,
        after,
        ..
    } = e
    else {
        panic!("a hook error");
    };
    assert_eq!(pass, "expand_tag_variable");
    assert!(before.contains("$$ col") && !after.contains("$$ col"));
}

/// A valid game whose one move is a chain of 100 000 silent assignments (issue 23: petgraph's
/// recursive `tarjan_scc`, called from the walk-dependence analysis, overflowed the stack on it at
/// -O2). Loaded and optimised at -O2 on a thread with a 2 MiB stack, as test threads have, so
/// a recursion per node fails; the optimised game keeps the tree and is small.
#[test]
fn a_100_000_edge_chain_optimises_at_o2_without_overflow() {
    const N: usize = 100_000;
    let mut text = String::from(
        "type Player = { a };\ntype Score = { 0, 100 };\nvar x: Bool = 0;\n\
         begin, c0: player = a;\nc0, n0: $ go;\nn0, m0: player = keeper;\n",
    );
    for i in 0..N {
        text.push_str(&format!("m{i}, m{}: x = {};\n", i + 1, i % 2));
    }
    text.push_str(&format!(
        "m{N}, w: goals[a] = 100;\nw, end: player = keeper;\n"
    ));
    let run = move || {
        let before = load(Lang::Rg, "chain.rg", &text).unwrap_or_else(|d| panic!("{d}"));
        assert!(before.edge_count() > N);
        let mut after = before.clone();
        rg_pipeline::optimise(&mut after, rg_pipeline::OptLevel::O2)
            .unwrap_or_else(|f| panic!("{f:?}"));
        assert!(
            after.edge_count() < 100,
            "{} edges left",
            after.edge_count()
        );
        // -O2 drops the tag of the only move (a relabelling).
        check_relabelled(&before, &after, &ORACLE).unwrap_or_else(|d| panic!("{d}"));
    };
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(run)
        .expect("spawns")
        .join()
        .expect("no overflow, no panic");
}
