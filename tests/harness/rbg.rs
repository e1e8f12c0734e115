//! RBG suites (issue: RBG front-end): HL and LL fixtures with hand-counted perft at -O0 and
//! -O2 and RG snapshots; invalid descriptions with located diagnostics; the corpus perft (HL and
//! LL, where counts are small enough for a test); HL and LL versions of each corpus game agree;
//! truncated corpus files never panic.

use rg_pipeline::Lang;
use rgt_tests::{
    check_corpus_counts, corpus, corpus_files, fixture_files, load, name, perft,
    skip_without_corpus,
};
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn valid_fixtures_lower_and_have_their_hand_counted_perft() {
    let files = fixture_files("rbg/valid", "rbg");
    assert!(files.len() >= 11);
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/rbg");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s.bind(|| {
        for path in &files {
            let text = read(path);
            let want: Vec<u64> = text
                .lines()
                .find_map(|l| l.strip_prefix("// perft: "))
                .expect("a `// perft:` header")
                .split_whitespace()
                .map(|n| n.parse().expect("count"))
                .collect();
            let game = load(Lang::Rbg, &name(path), &text)
                .unwrap_or_else(|d| panic!("{}:\n{d}", path.display()));
            assert_eq!(
                perft(&game, want.len() - 1),
                want,
                "{} at -O0",
                path.display()
            );
            let mut opt = game.clone();
            let p = rg_pipeline::OptLevel::O2.pipeline();
            rg_passes::run(&mut opt, &p, &rg_passes::Options::default(), &mut |_, _| {
                Ok(())
            })
            .expect("optimises");
            assert_eq!(
                perft(&opt, want.len() - 1),
                want,
                "{} at -O2",
                path.display()
            );
            insta::assert_snapshot!(name(path), rg_core::print(&game));
            // The LL expansion is a valid description of the same game.
            let ll = front_rbg::to_ll(rg_core::FileId(0), &text).expect("expands");
            let lowered = load(Lang::Rbg, "expanded.rbg", &ll)
                .unwrap_or_else(|d| panic!("{}: LL expansion:\n{d}\n{ll}", path.display()));
            assert_eq!(
                perft(&lowered, want.len() - 1),
                want,
                "{} as LL",
                path.display()
            );
            insta::assert_snapshot!(format!("{}.ll", name(path)), ll);
        }
    });
}

/// The LL expansion of every corpus HL game has the perft of the corpus LL file.
#[test]
fn corpus_hl_expansions_match_the_ll_files() {
    let Some(dir) = corpus() else {
        skip_without_corpus("corpus_hl_expansions_match_the_ll_files");
        return;
    };
    let expand = |file: &str, hl: String| {
        let ll_file = dir.join("rbg/ll").join(file.trim_start_matches("rbg/hl/"));
        ll_file
            .exists()
            .then(|| front_rbg::to_ll(rg_core::FileId(0), &hl).expect("expands"))
    };
    let checked = check_corpus_counts(Lang::Rbg, "rbg/hl/", 5_000, expand).expect("corpus");
    assert!(checked >= 8, "only {checked} HL games checked");
}

#[test]
fn invalid_fixtures_are_reported_with_spans() {
    let mut report = String::new();
    for path in fixture_files("rbg/invalid", "rbg") {
        let text = read(&path);
        let diags = match load(Lang::Rbg, &name(&path), &text) {
            Ok(_) => panic!("{} should be rejected", path.display()),
            Err(d) => d,
        };
        report.push_str(&format!("== {}\n{diags}", name(&path)));
    }
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/rbg");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s.bind(|| insta::assert_snapshot!("invalid_diagnostics", report));
}

#[test]
fn corpus_rbg_perft_counts_and_hl_ll_agreement() {
    let Some(checked) = check_corpus_counts(Lang::Rbg, "rbg/", 5_000, |_, text| Some(text)) else {
        skip_without_corpus("corpus_rbg_perft_counts_and_hl_ll_agreement");
        return;
    };
    assert!(checked >= 12, "only {checked} RBG games checked");
}

#[test]
fn truncated_corpus_files_never_panic() {
    let Some(files) = corpus_files("rbg/hl", "rbg") else {
        skip_without_corpus("truncated_corpus_files_never_panic");
        return;
    };
    for f in files
        .iter()
        .filter(|f| matches!(name(f).as_str(), "ticTacToe.rbg" | "connect4.rbg"))
    {
        let text = read(f);
        for cut in 0..=text.len() {
            if text.is_char_boundary(cut) {
                let _ = load(Lang::Rbg, "cut.rbg", &text[..cut]);
            }
        }
    }
}

/// Issue 22: translating rgt's `-O0` output of chess again gave lint warnings (unreachable
/// joins, checks that never hold, "`end` is entered by ``").
#[test]
fn output_at_o0_is_lint_clean() {
    let mut files = fixture_files("rbg/valid", "rbg");
    match corpus() {
        Some(dir) => files.push(dir.join("rbg/hl/chess.rbg")),
        None => skip_without_corpus("output_at_o0_is_lint_clean (corpus chess)"),
    }
    for path in &files {
        let lints = rgt_tests::lints_at_o0(Lang::Rbg, &name(path), &read(path));
        assert!(
            lints.is_empty(),
            "{}:\n{}",
            path.display(),
            lints.join("\n")
        );
    }
}
