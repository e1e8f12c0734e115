//! End-to-end tests of the commands that play a game: `perft`, `moves`, `run`, `check`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rgt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rgt"))
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

fn out(cmd: &mut Command) -> (Option<i32>, String, String) {
    let o: Output = cmd.output().expect("rgt runs");
    (
        o.status.code(),
        String::from_utf8(o.stdout).expect("UTF-8"),
        String::from_utf8(o.stderr).expect("UTF-8"),
    )
}

#[test]
fn perft_prints_one_line_per_depth_and_json_counts() {
    let ttt = fixture("rg/valid/tictactoe.rg");
    let (code, text, err) = out(rgt().arg("perft").arg(&ttt).args(["--depth", "3"]));
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    for (d, (line, n)) in lines.iter().zip([1, 9, 72, 504]).enumerate() {
        assert!(
            line.starts_with(&format!("depth {d}: {n} (")) && line.ends_with(" nodes/s)"),
            "{line}"
        );
    }
    let (code, json, _) = out(rgt()
        .arg("perft")
        .arg(&ttt)
        .args(["--depth", "2", "--json", "--after", "//"]));
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["counts"], serde_json::json!([1, 9, 72]));
    assert_eq!(v["seconds"].as_array().map(Vec::len), Some(3));
    assert!(v["nodes_per_second"].is_number());
}

#[test]
fn moves_lists_tags_and_reports_bad_paths() {
    let ttt = fixture("rg/valid/tictactoe.rg");
    let (code, text, _) = out(rgt().arg("moves").arg(&ttt).args(["--after", "//"]));
    assert_eq!(code, Some(0));
    assert_eq!(text.lines().next(), Some("p2 p2"));
    assert_eq!(text.lines().count(), 9);
    let (code, json, _) = out(rgt().arg("moves").arg(&ttt).args(["--json"]));
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["player"], "keeper");
    assert_eq!(v["moves"], serde_json::json!([[]]));
    let (code, _, err) = out(rgt()
        .arg("moves")
        .arg(&ttt)
        .args(["--after", "//p1 p1/p1 p1/"]));
    assert_eq!(code, Some(1));
    assert!(err.contains("failed at `p1 p1`"), "{err}");
    let (code, _, err) = out(rgt().arg("moves").arg(&ttt).args(["--after", "nope"]));
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn moves_prints_a_move_without_tags_readably() {
    // Issue 22: the keeper's move was printed as an empty line.
    let ttt = fixture("rg/valid/tictactoe.rg");
    let (code, text, err) = out(rgt().arg("moves").arg(&ttt));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(text, "(keeper)\n");
}

#[test]
fn an_illegal_empty_move_is_named() {
    // Issue 22: `--after ///` said "failed at ``".
    let ttt = fixture("rg/valid/tictactoe.rg");
    let (code, _, err) = out(rgt().arg("moves").arg(&ttt).args(["--after", "///"]));
    assert_eq!(code, Some(1));
    assert!(!err.contains("``"), "{err}");
    assert!(err.contains("failed at the empty move (move 2)"), "{err}");
    let (_, _, err) = out(rgt()
        .arg("moves")
        .arg(&ttt)
        .args(["--after", "//p1 p1/p1 p1/"]));
    assert!(err.contains("failed at `p1 p1` (move 3)"), "{err}");
}

#[test]
fn perft_warns_when_the_game_dead_ends() {
    // Issue 22: a game that dead-ends printed zeros, exit 0, without a word.
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("stuck.rg");
    std::fs::write(
        &game,
        "type Player = { solo };\ntype Score = { 0, 1 };\nbegin, a: player = solo;\na, b: $ go;\nb, c: player = keeper;\nc, d: goals[solo] == 1;\nd, end: player = keeper;\n",
    )
    .unwrap();
    let (code, text, err) = out(rgt().arg("perft").arg(&game).args(["-O0", "--depth", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("depth 2: 0 ("), "{text}");
    assert!(err.contains("rgt::perft::dead_end"), "{err}");
    assert!(err.contains("after `//go/` it is at node `c`"), "{err}");
    // A game that simply ends gets no warning.
    let (_, _, err) = out(rgt()
        .arg("perft")
        .arg(fixture("rg/valid/tictactoe.rg"))
        .args(["--depth", "1"]));
    assert!(!err.contains("dead"), "{err}");
}

#[test]
fn run_is_reproducible_with_a_seed() {
    let dice = fixture("interp/perft/dice_race.rg");
    let args = ["--plays", "200", "--seed", "9", "--json"];
    let (code, a, err) = out(rgt().arg("run").arg(&dice).args(args));
    assert_eq!(code, Some(0), "{err}");
    let (_, b, _) = out(rgt().arg("run").arg(&dice).args(args));
    let (va, vb): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&a).unwrap(),
        serde_json::from_str(&b).unwrap(),
    );
    assert_eq!(va["plays"], 200);
    assert_eq!(va["goals"], vb["goals"]);
    assert_eq!(va["turns"], vb["turns"]);
    let plays: u64 = va["goals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["plays"].as_u64().unwrap())
        .sum();
    assert_eq!(plays, 200);
}

#[test]
fn run_fails_on_an_improper_game() {
    let (code, _, err) = out(rgt()
        .arg("run")
        .arg(fixture("interp/improper/keeper_two_moves.rg"))
        .args(["--plays", "5"]));
    assert_eq!(code, Some(1));
    assert!(err.contains("keeper had 2 moves in `k`"), "{err}");
}

#[test]
fn check_exits_1_on_violations_and_0_on_proper_games() {
    let (code, text, err) = out(rgt()
        .arg("check")
        .arg(fixture("interp/improper/dead_end.rg")));
    assert_eq!(code, Some(1));
    assert!(err.contains("continuability violated"), "{err}");
    assert!(text.contains("1 violation"), "{text}");
    let (code, text, err) = out(rgt()
        .arg("check")
        .arg(fixture("rg/valid/tictactoe.rg"))
        .args(["--depth", "3", "--plays", "20"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("0 violations"), "{text}");
}

#[test]
fn check_reports_two_walks_of_a_move_that_differ_only_in_goals() {
    let (code, text, err) = out(rgt()
        .arg("check")
        .arg(fixture("interp/improper/merged_goals.rg"))
        .args(["-O0", "--depth", "2", "--plays", "5"]));
    assert_eq!(code, Some(1), "{text}");
    assert!(
        err.contains("move unambiguity violated: two moves `t` from `y`"),
        "{err}"
    );
}

#[test]
fn check_reports_a_pragma_that_changes_the_game() {
    let (code, _, err) = out(rgt()
        .arg("check")
        .arg(fixture("interp/perft/wrong_disjoint.rg"))
        .args(["-O0", "--depth", "2", "--plays", "5"]));
    assert_eq!(code, Some(1));
    assert!(
        err.contains("pragma truth violated: perft(1) is 1 with the pragmas and 2 without"),
        "{err}"
    );
}

/// Runs `cmd`, killing it after `secs` seconds (a hang is a failure, not a stuck test).
fn out_within(cmd: &mut Command, secs: u64) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("rgt runs");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).map(|_| s)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            panic!("{cmd:?} did not end within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let err = reader.join().expect("reader").expect("UTF-8");
    (status.code(), err)
}

#[test]
fn a_keeper_cycle_is_reported_by_perft_run_and_check_without_crash_or_hang() {
    let game = fixture("interp/improper/keeper_cycle_through_end.rg");
    let (code, err) = out_within(rgt().arg("perft").arg(&game).args(["--depth", "3"]), 60);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the keeper moves in a cycle"), "{err}");
    let (code, err) = out_within(rgt().arg("run").arg(&game).args(["--plays", "1"]), 60);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the keeper moves in a cycle"), "{err}");
    let (code, err) = out_within(rgt().arg("check").arg(&game), 60);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("finiteness violated"), "{err}");
}

#[test]
fn a_search_over_the_limit_is_an_error_of_every_command_that_plays() {
    // 3^30 moves from the state after the keeper's first move: before the limit, listing them
    // ran out of memory. A small --search-limit keeps the test quick.
    let game = fixture("interp/limits/colour_chain.rg");
    let limit = ["--search-limit", "1000000"];
    for args in [
        &["perft", "--depth", "1"][..],
        &["moves", "--after", "//"],
        &["run", "--plays", "1"],
        &["check"],
    ] {
        let (code, err) = out_within(
            rgt().arg(args[0]).arg(&game).args(&args[1..]).args(limit),
            60,
        );
        assert_eq!(code, Some(1), "{args:?}: {err}");
        // The words of the report, without the frame and the line breaks.
        let words = err
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            words.contains("rg::interp::search_limit"),
            "{args:?}: {err}"
        );
        assert!(
            words.contains("held more than 1000000 bytes of moves and search states"),
            "{args:?}: {err}"
        );
        assert!(
            words.contains("raise the limit with `--search-limit N`"),
            "{args:?}: {err}"
        );
    }
    let mut equiv = rgt();
    equiv.arg("equiv").arg(&game).arg(&game).args(limit);
    let mut verify = rgt();
    verify.arg("verify").arg(&game).args(limit);
    for mut cmd in [equiv, verify] {
        let (code, err) = out_within(&mut cmd, 60);
        assert_eq!(code, Some(1), "{err}");
        // A limit is not a difference between the games.
        assert!(err.contains("rg::interp::search_limit"), "{err}");
        assert!(!err.contains("the games differ"), "{err}");
        assert!(err.contains("--search-limit"), "{err}");
    }
    // Within the limit, the same search succeeds.
    let ttt = fixture("rg/valid/tictactoe.rg");
    let (code, err) = out_within(
        rgt().arg("perft").arg(&ttt).args(["-d", "2"]).args(limit),
        60,
    );
    assert_eq!(code, Some(0), "{err}");
}

/// Writes `text` to a file named `name` in a fresh temporary directory, removed when the returned
/// guard is dropped (at the end of the test, passed or failed).
fn temp_file(test: &str, name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("rgt-play-{test}-"))
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    (dir, path)
}

#[test]
fn equiv_accepts_one_game_in_two_languages() {
    // A LineGames game and the HRG program it is lowered through are the same game.
    let lg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/linegames/alquerque.lg");
    let (code, hrg, err) = out(rgt().arg("translate").arg(&lg).args(["--emit", "hrg"]));
    assert_eq!(code, Some(0), "{err}");
    let (_dir, hrg) = temp_file("equiv-lang", "alquerque.hrg", &hrg);
    let (code, text, err) = out(rgt()
        .arg("equiv")
        .arg(&lg)
        .arg(&hrg)
        .args(["--depth", "2", "--plays", "3"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.starts_with("equivalent: perft equal to depth 2 (1 ")
            && text.contains("; 3 playouts equal (legal moves, final states, goals; "),
        "{text}"
    );
}

#[test]
fn equiv_shows_the_first_divergence_with_its_path() {
    let nim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/nim.rg");
    let text = std::fs::read_to_string(&nim).expect("nim");
    // The winner scores 0: a difference at the end of every play, beyond any perft horizon.
    let wrong = text.replace("goals[mover] = 100", "goals[mover] = 0");
    assert_ne!(wrong, text);
    let (_dir, wrong) = temp_file("equiv-diff", "nim.rg", &wrong);
    let (code, _, err) = out(rgt()
        .arg("equiv")
        .arg(&nim)
        .arg(&wrong)
        .args(["--depth", "1", "--plays", "1"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("rg::interp::not_equivalent"), "{err}");
    assert!(
        err.contains("the games differ: A and B: goals {alice: 100, bob: 0} vs {alice: 0, bob: 0}")
            && err.contains("moves //one//three//one//one//one//)"),
        "{err}"
    );
    // Both games from standard input is a usage error.
    let (code, _, err) = out(rgt().args(["equiv", "-", "-"]));
    assert_eq!(
        (code, err.contains("standard input")),
        (Some(2), true),
        "{err}"
    );
}

#[test]
fn verify_compares_the_gdl_reasoner_and_both_levels() {
    let kif = fixture("kif/games/tictactoe.kif");
    let (code, text, err) = out(rgt().arg("verify").arg(&kif).args(["--plays", "4"]));
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("GDL reasoner = interpreter at -O0: perft equal to depth 4 (1 9 9 9 72); 4 playouts equal"),
        "{text}"
    );
    assert!(
        lines[1]
            .starts_with("GDL reasoner = interpreter at -O2: perft equal to depth 4 (1 9 9 9 72)"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("(1 9 9 9 72)"),
        "-O2 is compared by perft only: {text}"
    );
    assert!(
        lines[2].starts_with("-O0 = -O2 (moves paired up to the tags -O2 drops or renames): perft equal to depth 4 (1 9 9 9 72); 4 playouts"),
        "{text}"
    );
    // Other languages: -O0 against -O2 only, perft in moves.
    let rg = fixture("rg/valid/tictactoe.rg");
    let (code, text, err) = out(rgt().arg("verify").arg(&rg).args(["--depth", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.starts_with("-O0 = -O2 (moves paired up to the tags -O2 drops or renames): perft equal to depth 2 (1 9 72); 20 playouts"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn verify_and_equiv_report_bad_inputs_as_errors() {
    let (_dir, bad) = temp_file("verify-bad", "bad.kif", "(role p) (<= (legal p a) (true");
    let (code, _, err) = out(rgt().arg("verify").arg(&bad));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("gdl::E-PARSE"), "{err}");
    let (code, _, err) = out(rgt().args(["verify", "missing.rg"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot read `missing.rg`"), "{err}");
    let (code, _, err) = out(rgt().args(["equiv", "a.txt", "b.rg"]));
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn equiv_relabel_pairs_moves_whose_tags_differ() {
    // -O2 drops the tags of this RBG game's moves that other tags already tell apart.
    let rbg = fixture("rbg/valid/counter.rbg");
    let (code, o2, err) = out(rgt().arg("translate").arg(&rbg).arg("-O2"));
    assert_eq!(code, Some(0), "{err}");
    let (_dir, o2) = temp_file("equiv-relabel", "counter.rg", &o2);
    let args = ["-O0", "--depth", "2", "--plays", "5"];
    let (code, _, err) = out(rgt().arg("equiv").arg(&rbg).arg(&o2).args(args));
    assert_eq!(code, Some(1), "the names differ: {err}");
    assert!(err.contains("the games differ: A and B: "), "{err}");
    let (code, text, err) = out(rgt()
        .arg("equiv")
        .arg(&rbg)
        .arg(&o2)
        .args(args)
        .arg("--relabel"));
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("; 5 playouts equal"), "{text}");
    // A different game is still told apart.
    let other = fixture("rbg/valid/arithmetic.rbg");
    let (code, _, err) = out(rgt()
        .arg("equiv")
        .arg(&rbg)
        .arg(&other)
        .args(args)
        .arg("--relabel"));
    assert_eq!(code, Some(1), "{err}");
}
