//! RG core suites (issue: foundation): canonical text, DOT and JSON of every valid fixture,
//! the round-trip laws, rendered diagnostics of every invalid fixture, the corpus round trip and
//! robustness against truncated input.

use rg_core::{FileId, parse, print};
use rg_pipeline::Lang;
use rgt_tests::{corpus_files, fixture_files, load, name, skip_without_corpus};

fn settings(suite: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(format!("../snapshots/{suite}"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load_valid(path: &std::path::Path) -> rg_core::Game {
    load(Lang::Rg, &name(path), &read(path))
        .unwrap_or_else(|diags| panic!("{} should be valid:\n{diags}", path.display()))
}

#[test]
fn fixture_directories_are_big_enough() {
    assert!(fixture_files("rg/valid", "rg").len() >= 20);
    assert!(fixture_files("rg/invalid", "rg").len() >= 12);
}

#[test]
fn canonical() {
    settings("rg").bind(|| {
        insta::glob!("../fixtures", "rg/valid/*.rg", |path| {
            insta::assert_snapshot!(print(&load_valid(path)));
        });
    });
}

#[test]
fn dot() {
    settings("rg").bind(|| {
        insta::glob!("../fixtures", "rg/valid/*.rg", |path| {
            insta::assert_snapshot!(rg_fmt::dot::to_dot(&load_valid(path)));
        });
    });
}

#[test]
fn json() {
    settings("rg").bind(|| {
        insta::glob!("../fixtures", "rg/valid/*.rg", |path| {
            let g = load_valid(path);
            insta::assert_snapshot!(rg_fmt::emit_to_string(&rg_fmt::json::JsonEmitter, &g));
        });
    });
}

#[test]
fn diagnostics() {
    settings("rg").bind(|| {
        insta::glob!("../fixtures", "rg/invalid/*.rg", |path| {
            let text = read(path);
            let diags = match load(Lang::Rg, &name(path), &text) {
                Ok(_) => panic!("{} should be rejected", path.display()),
                Err(d) => d,
            };
            assert!(!diags.trim().is_empty());
            insta::assert_snapshot!(diags);
        });
    });
}

/// `print(parse(text))` is a fixed point and `parse(print(g))` equals `g`, before and after
/// the builtins are added.
fn assert_round_trip(label: &str, text: &str) {
    let g = parse(FileId(0), text).unwrap_or_else(|e| panic!("{label}: {e:?}"));
    let printed = print(&g);
    let g2 = parse(FileId(0), &printed)
        .unwrap_or_else(|e| panic!("{label}: printed text does not parse: {e:?}"));
    assert_eq!(print(&g2), printed, "{label}: print is not a fixed point");
    assert!(
        g2.structurally_eq(&g),
        "{label}: parse(print(g)) differs from g"
    );
    let mut full = g2;
    if rg_core::builtins::add_builtins(&mut full).is_ok() {
        let printed = print(&full);
        let g3 = parse(FileId(0), &printed).expect("printed game parses");
        assert_eq!(print(&g3), printed, "{label}: fixed point with builtins");
        assert!(
            g3.structurally_eq(&full),
            "{label}: round trip with builtins"
        );
    }
}

#[test]
fn round_trip_of_every_fixture() {
    for path in fixture_files("rg/valid", "rg") {
        assert_round_trip(&name(&path), &read(&path));
    }
}

#[test]
fn round_trip_of_the_corpus() {
    let Some(files) = corpus_files("rg", "rg") else {
        return skip_without_corpus("round_trip_of_the_corpus");
    };
    assert!(!files.is_empty());
    for path in &files {
        let text = read(path);
        assert_round_trip(&name(path), &text);
        load(Lang::Rg, &name(path), &text).unwrap_or_else(|d| panic!("{}:\n{d}", path.display()));
    }
}

/// Every prefix of `text` (at char boundaries) goes through the whole pipeline without
/// panicking; a panic fails the test.
fn assert_truncations_do_not_panic(label: &str, text: &str) {
    let mut rejected = 0;
    for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        if load(Lang::Rg, label, &text[..cut]).is_err() {
            rejected += 1;
        }
    }
    // Most prefixes end inside a declaration and must be rejected.
    assert!(
        rejected > text.len() / 2,
        "{label}: only {rejected} prefixes rejected"
    );
}

#[test]
fn truncated_fixtures_never_panic() {
    for f in ["tictactoe.rg", "every_pragma.rg"] {
        let path = rgt_tests::fixtures("rg/valid").join(f);
        assert_truncations_do_not_panic(f, &read(&path));
    }
}

#[test]
fn truncated_corpus_files_never_panic() {
    let Some(files) = corpus_files("rg", "rg") else {
        return skip_without_corpus("truncated_corpus_files_never_panic");
    };
    for f in ["ticTacToe.rg", "breakthrough.rg"] {
        let path = files.iter().find(|p| name(p) == f).expect("corpus file");
        assert_truncations_do_not_panic(f, &read(path));
    }
}

/// The DOT output of every valid fixture (and corpus RG file) is accepted by Graphviz.
#[test]
fn dot_renders_with_graphviz() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if Command::new("dot")
        .arg("-V")
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        println!("dot_renders_with_graphviz: skipped, Graphviz `dot` is not installed");
        return;
    }
    let mut files = fixture_files("rg/valid", "rg");
    files.extend(corpus_files("rg", "rg").unwrap_or_default());
    for path in files {
        let dot = rg_fmt::dot::to_dot(&load_valid(&path));
        let mut child = Command::new("dot")
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run dot");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(dot.as_bytes())
            .expect("write dot");
        let out = child.wait_with_output().expect("dot finishes");
        assert!(
            out.status.success(),
            "{}: dot rejected the output:\n{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
