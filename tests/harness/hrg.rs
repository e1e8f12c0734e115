//! HRG suites (issue: HRG front-end): every valid fixture is lowered (RG snapshot) and has the
//! hand-counted perft of its header at -O0 and -O2; invalid fixtures give located diagnostics;
//! corpus HRG games match the reference perft; truncated corpus files never panic.

use rg_pipeline::Lang;
use rgt_tests::{
    check_corpus_counts, corpus_files, fixture_files, load, name, perft, skip_without_corpus,
};
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/hrg");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn optimised(mut g: rg_core::Game) -> rg_core::Game {
    let p = rg_pipeline::OptLevel::O2.pipeline();
    rg_passes::run(&mut g, &p, &rg_passes::Options::default(), &mut |_, _| {
        Ok(())
    })
    .expect("optimises");
    g
}

#[test]
fn valid_fixtures_lower_and_have_their_hand_counted_perft() {
    let files = fixture_files("hrg/valid", "hrg");
    assert!(files.len() >= 12);
    settings().bind(|| {
        for path in &files {
            let text = read(path);
            let want: Vec<u64> = text
                .lines()
                .find_map(|l| l.strip_prefix("// perft: "))
                .expect("a `// perft:` header")
                .split_whitespace()
                .map(|n| n.parse().expect("count"))
                .collect();
            let game = load(Lang::Hrg, &name(path), &text)
                .unwrap_or_else(|d| panic!("{}:\n{d}", path.display()));
            assert_eq!(
                perft(&game, want.len() - 1),
                want,
                "{} at -O0",
                path.display()
            );
            let opt = optimised(game.clone());
            assert_eq!(
                perft(&opt, want.len() - 1),
                want,
                "{} at -O2",
                path.display()
            );
            insta::assert_snapshot!(name(path), rg_core::print(&game));
        }
    });
}

#[test]
fn invalid_fixtures_are_reported_with_spans() {
    let mut report = String::new();
    for path in fixture_files("hrg/invalid", "hrg") {
        let text = read(&path);
        let diags = match load(Lang::Hrg, &name(&path), &text) {
            Ok(_) => panic!("{} should be rejected", path.display()),
            Err(d) => d,
        };
        assert!(diags.contains(&format!("[{}:", name(&path))), "{diags}");
        report.push_str(&format!("== {}\n{diags}", name(&path)));
    }
    settings().bind(|| insta::assert_snapshot!("invalid_diagnostics", report));
}

/// Every HRG game of the corpus's expected.csv whose deepest count is small enough for a test.
#[test]
fn corpus_hrg_perft_counts() {
    let Some(checked) = check_corpus_counts(Lang::Hrg, "hrg/", 200_000, |_, text| Some(text))
    else {
        skip_without_corpus("corpus_hrg_perft_counts");
        return;
    };
    assert!(checked >= 10, "only {checked} HRG games checked");
}

#[test]
fn truncated_corpus_files_never_panic() {
    let Some(files) = corpus_files("hrg", "hrg") else {
        skip_without_corpus("truncated_corpus_files_never_panic");
        return;
    };
    for f in files
        .iter()
        .filter(|f| matches!(name(f).as_str(), "ticTacToe.hrg" | "twentyOne.hrg"))
    {
        let text = read(f);
        let mut cut = 0;
        while cut <= text.len() {
            if text.is_char_boundary(cut) {
                let _ = load(Lang::Hrg, "cut.hrg", &text[..cut]);
            }
            cut += 1;
        }
    }
}

/// `rgt fmt` on HRG: a fixed point that lowers to the same RG and keeps every comment line.
#[test]
fn formatting_is_a_fixed_point_that_keeps_the_game_and_the_comments() {
    let mut files = fixture_files("hrg/valid", "hrg");
    if let Some(c) = corpus_files("hrg", "hrg") {
        files.extend(c);
    }
    for path in files {
        let text = read(&path);
        let once = front_hrg::format(rg_core::FileId(0), &text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let twice = front_hrg::format(rg_core::FileId(0), &once).expect("formats again");
        assert_eq!(once, twice, "{} is not a fixed point", path.display());
        let a = load(Lang::Hrg, "a.hrg", &text).expect("valid");
        let b = load(Lang::Hrg, "b.hrg", &once).expect("formatted text is valid");
        assert_eq!(rg_core::print(&a), rg_core::print(&b), "{}", path.display());
        let comments = |t: &str| -> Vec<String> {
            t.lines()
                .filter_map(|l| l.find("//").map(|i| l[i..].trim_end().to_string()))
                .collect()
        };
        assert_eq!(
            comments(&text),
            comments(&once),
            "{}: comments",
            path.display()
        );
    }
}

#[test]
fn a_comment_inside_a_one_line_construct_is_reported_not_dropped() {
    let text =
        "domain Player = p\ndomain Score = 0\nx : Player = // here\n  p\ngraph rules() { end() }\n";
    let e = front_hrg::format(rg_core::FileId(0), text).expect_err("cannot be placed");
    assert!(e.errors[0].message.contains("comment"), "{e}");
}

/// Issue 22: translating rgt's `-O0` output of chess again gave lint warnings (unreachable
/// joins, checks that never hold, "`end` is entered by ``").
#[test]
fn output_at_o0_is_lint_clean() {
    // initial_player.hrg starts with a player other than the keeper on purpose (a lint about
    // the source game, not about the translation).
    let mut files: Vec<_> = fixture_files("hrg/valid", "hrg")
        .into_iter()
        .filter(|p| !p.ends_with("initial_player.hrg"))
        .collect();
    match rgt_tests::corpus() {
        Some(dir) => files.push(dir.join("hrg/chess.hrg")),
        None => skip_without_corpus("output_at_o0_is_lint_clean (corpus chess)"),
    }
    for path in &files {
        let lints = rgt_tests::lints_at_o0(Lang::Hrg, &name(path), &read(path));
        assert!(
            lints.is_empty(),
            "{}:\n{}",
            path.display(),
            lints.join("\n")
        );
    }
}
