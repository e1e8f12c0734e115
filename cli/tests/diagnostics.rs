//! One diagnostics model, seen from the command line: `--allow`/`--deny` apply to the warnings
//! of every front-end and validator, unknown codes are refused, diagnostics come in source
//! order, repeated ones are aggregated, and a count ends the report. Snapshots live in
//! tests/snapshots/cli at the workspace root.

mod common;
use common::{rgt, settings, stderr, stdout};

use std::path::Path;
use std::process::Output;

/// Runs `rgt ARGS` from the workspace root, so rendered diagnostics name files as given.
fn run(args: &[&str]) -> Output {
    rgt()
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(args)
        .output()
        .expect("rgt runs")
}

const TWO_WARNINGS: &str = "tests/fixtures/cli/unused_and_undefined.kif";

#[test]
fn allow_silences_a_gdl_warning_and_deny_makes_the_others_errors() {
    // Without options: both warnings, and the game translates.
    let out = run(&["translate", TWO_WARNINGS]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("gdl::W-VAL-014"));
    assert!(stderr(&out).ends_with("2 warnings in tests/fixtures/cli/unused_and_undefined.kif\n"));

    // --allow alone: that warning is gone, the other stays a warning.
    let out = run(&["translate", TWO_WARNINGS, "--allow", "gdl::W-VAL-014"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("W-VAL-014"), "{}", stderr(&out));
    assert!(stderr(&out).contains("gdl::W-VAL-013"));

    // --allow and --deny warnings: the allowed one is silent, the other one fails the game.
    let out = run(&[
        "translate",
        TWO_WARNINGS,
        "--allow",
        "gdl::W-VAL-014",
        "--deny",
        "warnings",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    settings("cli").bind(|| insta::assert_snapshot!("allow_deny_kif_stderr", stderr(&out)));
}

#[test]
fn an_unknown_allow_code_is_a_usage_error_with_a_suggestion() {
    let out = run(&["translate", TWO_WARNINGS, "--allow", "gdl::W-VAL-14"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    settings("cli").bind(|| insta::assert_snapshot!("unknown_allow_code_stderr", stderr(&out)));

    // Nothing close: the message says what codes look like.
    let out = run(&["stats", TWO_WARNINGS, "--allow", "no-such-thing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown diagnostic code `no-such-thing`"));

    // A library conversion refuses it before translating anything.
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let out = run(&[
        "translate",
        TWO_WARNINGS,
        "--out-dir",
        out_dir.to_str().expect("UTF-8 path"),
        "--allow",
        "rg::lint::unreachable-nodes",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `rg::lint::unreachable-node`?"),
        "{}",
        stderr(&out)
    );
    assert!(!out_dir.exists());
}

#[test]
fn a_repeated_warning_is_shown_a_few_times_and_counted() {
    let out = run(&["translate", "tests/fixtures/cli/many_unused.kif"]);
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert_eq!(err.matches("is defined but never used").count(), 5, "{err}");
    settings("cli").bind(|| insta::assert_snapshot!("repeated_warning_stderr", err));
}

#[test]
fn rg_type_errors_come_in_source_order_with_a_count() {
    // The snapshot `type_errors_stderr` (cli.rs) shows them; here the order is checked.
    let out = run(&["translate", "tests/fixtures/rg/invalid/type_mismatches.rg"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let positions: Vec<(usize, usize)> = err
        .lines()
        .filter_map(|l| {
            let at = l.split("type_mismatches.rg:").nth(1)?.trim_end_matches(']');
            let (line, col) = at.split_once(':')?;
            Some((line.parse().ok()?, col.parse().ok()?))
        })
        .collect();
    assert!(positions.len() > 2, "{err}");
    assert!(positions.is_sorted(), "{positions:?}\n{err}");
    assert!(
        err.ends_with("6 errors in tests/fixtures/rg/invalid/type_mismatches.rg\n"),
        "{err}"
    );
}
