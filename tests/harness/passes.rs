//! Optimisation suites (issue: passes): every pass on a fixture of its own, snapshotted as a
//! before→after diff and proven by the interpreter's oracle; `-O1` and `-O2` keep the game tree
//! of every RG fixture.

use rg_interp::equiv::{EquivOptions, check_equivalent, check_relabelled};
use rg_passes::{Options, Pipeline, Safety};
use rgt::lang::Lang;
use rgt_tests::{fixture_files, load, name};
use std::path::Path;

fn game(path: &Path) -> rg_core::Game {
    let text = std::fs::read_to_string(path).expect("fixture");
    load(Lang::Rg, &name(path), &text).unwrap_or_else(|d| panic!("{}:\n{d}", path.display()))
}

fn opts() -> Options {
    Options {
        validate_each: true,
        ..Options::default()
    }
}

const ORACLE: EquivOptions = EquivOptions {
    depth: 4,
    plays: 30,
    seed: 7,
};

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
        let mut after = before.clone();
        let mut pipeline = Pipeline::default();
        pipeline.add(pass.name());
        let r = rg_passes::run(&mut after, &pipeline, &opts(), &mut |_, _| Ok(()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            r.records.iter().any(|x| x.changed),
            "{}: {pass_name} changed nothing",
            path.display()
        );
        // A pass that relabels moves is checked for the same tree up to a one-to-one relabelling.
        let check = match pass.safety() {
            Safety::Relabels => check_relabelled,
            _ => check_equivalent,
        };
        check(&before, &after, &ORACLE)
            .unwrap_or_else(|d| panic!("{}: {pass_name} changed the game: {d}", path.display()));
        let (a, b) = (rg_core::print(&before), rg_core::print(&after));
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
        // `safe` may relabel moves; without its relabelling passes the labels must stay.
        let mut labels_kept = Pipeline::named("safe").expect("pipeline");
        for p in rg_passes::registry() {
            if p.safety() == Safety::Relabels {
                labels_kept.remove(p.name());
            }
        }
        let levels = [
            ("local", Pipeline::named("local").expect("pipeline")),
            ("safe without relabelling", labels_kept),
            ("safe", Pipeline::named("safe").expect("pipeline")),
        ];
        for (level, p) in levels {
            let mut after = before.clone();
            rg_passes::run(&mut after, &p, &opts(), &mut |_, _| Ok(()))
                .unwrap_or_else(|e| panic!("{} at {level}: {e}", path.display()));
            let relabels = p.passes().iter().any(|p| p.safety() == Safety::Relabels);
            let check = if relabels {
                check_relabelled
            } else {
                check_equivalent
            };
            check(&before, &after, &ORACLE).unwrap_or_else(|d| {
                panic!(
                    "{} at {level}: {d}\n{}",
                    path.display(),
                    rg_core::print(&after)
                )
            });
        }
    }
    assert!(checked >= 20, "only {checked} proper fixtures");
}

fn is_proper(g: &rg_core::Game) -> bool {
    let Ok(p) = rg_interp::Program::new(g, rg_interp::CompileOptions::default()) else {
        return false;
    };
    let mut m = rg_interp::Machine::new(&p);
    let s = m.initial();
    m.check(&s, &rg_interp::CheckOptions::default()).is_empty()
}

#[test]
fn pipelines_are_deterministic_and_idempotent() {
    let path = rgt_tests::fixtures("passes/compact_skip_edges.rg");
    let p = Pipeline::named("safe").expect("pipeline");
    let mut a = game(&path);
    let mut b = game(&path);
    rg_passes::run(&mut a, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
    rg_passes::run(&mut b, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
    assert_eq!(rg_core::print(&a), rg_core::print(&b));
    let again = rg_passes::run(&mut b, &p, &opts(), &mut |_, _| Ok(())).expect("runs");
    assert!(again.records.iter().all(|r| !r.changed));
}
