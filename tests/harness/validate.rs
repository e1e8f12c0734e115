//! Validator suites (issue: validators): every invalid fixture is rejected with the codes its
//! header names (errors for `// expect:`, warnings for `// expect-warning:`), diagnostics are
//! snapshotted with their spans, and every valid fixture and corpus RG game has no error.

use rg_core::{FileId, Severity, Violation};
use rg_validate::{Selection, validate};
use rgt_tests::{corpus_files, fixture_files, name, render, skip_without_corpus};
use std::path::Path;

fn violations(path: &Path) -> (String, Vec<Violation>) {
    let text = std::fs::read_to_string(path).expect("readable fixture");
    let mut game = rg_core::parse(FileId(0), &text)
        .unwrap_or_else(|e| panic!("{} should parse: {e:?}", path.display()));
    rg_core::builtins::add_builtins(&mut game)
        .unwrap_or_else(|e| panic!("{}: builtins: {e}", path.display()));
    let v = validate(&game, Selection::All);
    (text, v)
}

fn header_codes<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(key))
        .flat_map(str::split_whitespace)
        .collect()
}

#[test]
fn every_validator_rejects_its_fixtures() {
    let files = fixture_files("validate", "rg");
    let mut report = String::new();
    for path in &files {
        let (text, found) = violations(path);
        let errors = header_codes(&text, "// expect: ");
        let warnings = header_codes(&text, "// expect-warning: ");
        assert!(
            !errors.is_empty() || !warnings.is_empty(),
            "{}: no expectation header",
            path.display()
        );
        for (codes, severity) in [(errors, Severity::Error), (warnings, Severity::Warning)] {
            for code in codes {
                assert!(
                    found
                        .iter()
                        .any(|v| v.code.starts_with(code) && v.severity == severity),
                    "{}: expected {severity:?} {code}, found {:?}",
                    path.display(),
                    found.iter().map(|v| v.code).collect::<Vec<_>>()
                );
            }
        }
        report.push_str(&format!("== {}\n", name(path)));
        for v in &found {
            report.push_str(&render(v, &name(path), &text));
        }
    }
    // Each of the seven reference validators has at least two fixtures of its own.
    for prefix in [
        "assignments",
        "names",
        "maps",
        "end",
        "tag_loop",
        "tag_variable",
        "types",
    ] {
        let n = files.iter().filter(|f| name(f).starts_with(prefix)).count();
        assert!(n >= 2, "only {n} fixtures for {prefix}");
    }
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/validate");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s.bind(|| insta::assert_snapshot!("diagnostics", report));
}

fn assert_no_errors(path: &Path) {
    let (_, found) = violations(path);
    let errors: Vec<_> = found
        .iter()
        .filter(|v| v.severity == Severity::Error)
        .map(|v| format!("{}: {}", v.code, v.message))
        .collect();
    assert!(errors.is_empty(), "{}: {errors:?}", path.display());
}

#[test]
fn valid_fixtures_have_no_errors() {
    for dir in ["rg/valid", "interp/perft", "interp/improper"] {
        for path in fixture_files(dir, "rg") {
            assert_no_errors(&path);
        }
    }
}

#[test]
fn corpus_rg_games_have_no_errors() {
    let Some(files) = corpus_files("rg", "rg") else {
        skip_without_corpus("corpus_rg_games_have_no_errors");
        return;
    };
    assert!(files.len() >= 17);
    for path in files {
        assert_no_errors(&path);
    }
}

#[test]
fn the_reference_selection_reports_only_errors_of_the_seven() {
    let path = rgt_tests::fixtures("validate/lint_players.rg");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut game = rg_core::parse(FileId(0), &text).expect("parses");
    rg_core::builtins::add_builtins(&mut game).expect("builtins");
    assert!(validate(&game, Selection::Reference).is_empty());
    assert!(!validate(&game, Selection::All).is_empty());
}
