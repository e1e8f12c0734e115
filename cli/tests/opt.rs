//! End-to-end tests of `rgt opt` and `rgt passes`: pipelines and pass selection, the trace
//! formats, the trace directory, and the errors of the command line. Snapshots live in
//! tests/snapshots/cli at the workspace root.
#![allow(clippy::print_stdout)] // a test says when it skips a part

mod common;
use common::{rgt, settings, stderr, stdout};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("rgt runs")
}

/// The game of the trace snapshot: small, and most passes of `-O2` have something to do.
fn small_game() -> PathBuf {
    fixture("passes/compact_skip_edges.rg")
}

/// A trace line with its time replaced by `T` (times differ between runs).
fn without_time(line: &str) -> String {
    line.split(' ')
        .map(
            |w| match w.strip_suffix("ms").filter(|n| n.parse::<f64>().is_ok()) {
                Some(_) => "T",
                None => w,
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

/// (pass, runs, changed), sorted by pass.
type Counts = Vec<(String, usize, usize)>;

/// The runs and changes per pass, as counted from the trace lines and as given by the summary.
fn counts(trace: &str) -> (Counts, Counts) {
    let mut lines: Counts = Vec::new();
    let mut summary: Counts = Vec::new();
    for l in trace.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.first() == Some(&"trace") && w.get(1).is_some_and(|s| s.parse::<usize>().is_ok()) {
            let changed = usize::from(w[4] == "yes");
            match lines.iter_mut().find(|x| x.0 == w[3]) {
                Some(x) => {
                    x.1 += 1;
                    x.2 += changed;
                }
                None => lines.push((w[3].to_string(), 1, changed)),
            }
        }
        if w.first() == Some(&"summary")
            && w.len() == 6
            && let (Ok(runs), Ok(changed)) = (w[2].parse(), w[3].parse())
        {
            summary.push((w[1].to_string(), runs, changed));
        }
    }
    lines.sort();
    summary.sort();
    (lines, summary)
}

#[test]
fn trace_lines_of_a_small_game() {
    let out = run(rgt().arg("opt").arg(small_game()).arg("--trace=lines"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("trace"))
        .map(without_time)
        .collect();
    settings("cli").bind(|| insta::assert_snapshot!("opt_trace_lines", lines.join("\n")));
    // The summary has one row per pass that ran, with the runs and changes of the lines.
    let (from_lines, from_summary) = counts(&err);
    assert!(!from_lines.is_empty());
    assert_eq!(from_lines, from_summary);
    let last = err.lines().last().expect("a summary line");
    assert!(
        last.starts_with("summary  iterations ") && last.contains("nodes "),
        "{last}"
    );
    // The optimised game is the one `-O2` gives.
    let o2 = run(rgt().arg("translate").arg(small_game()).arg("-O2"));
    assert_eq!(stdout(&out), stdout(&o2));
}

#[test]
fn full_trace_shows_the_game_after_every_changing_pass() {
    let out = run(rgt().arg("opt").arg(small_game()).arg("--trace"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let changing: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("trace") && l.split_whitespace().nth(4) == Some("yes"))
        .collect();
    let blocks: Vec<&str> = err.split("--- rg after #").skip(1).collect();
    assert_eq!(blocks.len(), changing.len());
    for block in blocks {
        let text = block
            .split_once("---\n")
            .expect("a header")
            .1
            .split("--- end ---")
            .next()
            .expect("an end");
        rg_core::parse(rg_core::FileId(0), text).expect("the RG after a pass parses");
    }
}

#[test]
fn json_trace_has_one_object_per_run() {
    let out = run(rgt().arg("opt").arg(small_game()).arg("--trace=json"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let records: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(records[0]["pass"], "add_builtins");
    assert_eq!(records[0]["phase"], "setup");
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["seq"], i + 1);
        // Every changing pass is followed by a validation (--trace validates; the loader
        // validates the game after the setup pass).
        if r["changed"] == true && r["phase"] != "setup" {
            assert_eq!(records[i + 1]["pass"], "validate", "after {r}");
            assert_eq!(records[i + 1]["validation"], "ok");
            assert!(r["game_after"].is_string());
        }
    }
}

#[test]
fn summary_trace_is_only_the_summary() {
    let out = run(rgt().arg("opt").arg(small_game()).arg("--trace=summary"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.lines().all(|l| l.starts_with("summary")), "{err}");
}

#[test]
fn trace_dir_has_the_game_after_every_changing_pass_and_renders() {
    let dir = std::env::temp_dir().join(format!("rgt-trace-dir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = run(rgt()
        .arg("opt")
        .arg(small_game())
        .arg("--trace-dir")
        .arg(&dir));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let jsonl = std::fs::read_to_string(dir.join("trace.jsonl")).expect("trace.jsonl");
    let mut expected: Vec<String> = Vec::new();
    for l in jsonl.lines() {
        let r: serde_json::Value = serde_json::from_str(l).expect("JSON");
        if r["changed"] == true {
            let seq = r["seq"].as_u64().expect("seq");
            let stem = format!("{seq:03}-{}", r["pass"].as_str().expect("name"));
            expected.push(format!("{stem}.dot"));
            expected.push(format!("{stem}.rg"));
        }
    }
    expected.push("trace.jsonl".into());
    expected.sort();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, expected);
    let has_dot = Command::new("dot").arg("-V").output().is_ok();
    for f in files.iter().filter(|f| f.ends_with(".dot")) {
        if !has_dot {
            println!("graphviz `dot` is not installed: {f} not rendered");
            continue;
        }
        let o = run(Command::new("dot").arg("-Tsvg").arg(dir.join(f)));
        assert!(
            o.status.success() && o.stdout.starts_with(b"<?xml"),
            "{f}: {}",
            stderr(&o)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pipelines_and_passes_are_chosen_by_name() {
    let game = small_game();
    // `none` only sets the game up: the same as -O0.
    let none = run(rgt().arg("opt").arg(&game).args(["--pipeline", "none"]));
    let o0 = run(rgt().arg("translate").arg(&game).arg("-O0"));
    assert_eq!(none.status.code(), Some(0), "{}", stderr(&none));
    assert_eq!(stdout(&none), stdout(&o0));
    // --pass adds one pass to a pipeline, --no-pass takes one away.
    let one = run(rgt().arg("opt").arg(&game).args([
        "--pipeline",
        "none",
        "--pass",
        "compact-skip-edges",
        "--trace=lines",
    ]));
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    let ran: Vec<String> = stderr(&one)
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .nth(1)
                .is_some_and(|s| s.parse::<usize>().is_ok())
        })
        .map(|l| l.split_whitespace().nth(3).expect("pass").to_string())
        .collect();
    assert!(
        ran.iter()
            .all(|p| ["add_builtins", "compact_skip_edges", "validate"].contains(&p.as_str()))
    );
    assert!(ran.contains(&"compact_skip_edges".to_string()));
    let without =
        run(rgt()
            .arg("opt")
            .arg(&game)
            .args(["--no-pass", "compact_skip_edges", "--trace=lines"]));
    assert_eq!(without.status.code(), Some(0), "{}", stderr(&without));
    assert!(!stderr(&without).contains("compact_skip_edges"));
    // A union of pipelines, restart scheduling (not the default): the same perft as -O0.
    let compiler = run(rgt().arg("opt").arg(&game).args([
        "--pipeline",
        "safe,pragmas",
        "--pass",
        "normalize-types",
        "--schedule",
        "restart",
        "--check-perft",
        "3",
    ]));
    assert_eq!(compiler.status.code(), Some(0), "{}", stderr(&compiler));
}

#[test]
fn limits_keep_a_valid_game_and_warn() {
    let out =
        run(rgt()
            .arg("opt")
            .arg(small_game())
            .args(["--max-iterations", "1", "--trace=summary"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning  no fixed point after 1 iterations"),
        "{}",
        stderr(&out)
    );
    // What is printed is a valid game.
    let p = std::env::temp_dir().join(format!("rgt-limits-{}.rg", std::process::id()));
    std::fs::write(&p, &out.stdout).expect("write");
    let again = run(rgt().arg("translate").arg(&p).arg("-O0"));
    let _ = std::fs::remove_file(&p);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let out =
        run(rgt()
            .arg("opt")
            .arg(small_game())
            .args(["--time-limit", "0", "--trace=summary"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning  time limit of 0.000 s reached"));
}

#[test]
fn command_line_errors_name_what_is_known() {
    let game = small_game();
    let out = run(rgt().arg("opt").arg(&game).args(["--pipeline", "fast"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[possible values: none, safe, reference, pragmas, compiler]"),
        "{}",
        stderr(&out)
    );
    let out = run(rgt()
        .arg("opt")
        .arg(&game)
        .args(["--pass", "inline-everything"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'inline-everything' for '--pass <PASS>'"),
        "{}",
        stderr(&out)
    );
    // Issue 22: a misspelt pass got the list of all 39 names and no suggestion.
    let out = run(rgt()
        .arg("opt")
        .arg(&game)
        .args(["--pass", "inline-asignment"]));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("a pass with a similar name exists: 'inline_assignment'"),
        "{err}"
    );
    assert!(!err.contains("add_builtins"), "{err}");
    let out = run(rgt()
        .arg("opt")
        .arg(&game)
        .args(["--no-pass", "add-builtins"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot be disabled"));
    // Unsafe passes need --allow-unsafe, alone or in a pipeline.
    let listing = stdout(&run(rgt().arg("passes")));
    // Columns by the header's offsets: the `-O` column of a pass outside every level is blank.
    let column = listing.find("pipelines").expect("a pipelines column");
    let unsafe_passes: Vec<(&str, &str)> = listing
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let pipelines = l.get(column..)?.split_whitespace().next()?;
            (w.get(3) == Some(&"unsafe")).then_some((w[0], pipelines))
        })
        .collect();
    assert!(!unsafe_passes.is_empty(), "reorder_conditions is unsafe");
    for (pass, pipelines) in &unsafe_passes {
        let out = run(rgt().arg("opt").arg(&game).args(["--pass", pass]));
        assert_eq!(out.status.code(), Some(2), "{pass}");
        assert!(stderr(&out).contains("--allow-unsafe"));
        let out = run(rgt()
            .arg("opt")
            .arg(&game)
            .args(["--pass", pass, "--allow-unsafe"]));
        assert_eq!(out.status.code(), Some(0), "{pass}: {}", stderr(&out));
        assert!(pipelines.contains("reference") && !pipelines.contains("safe,"));
    }
    let reference = run(rgt()
        .arg("opt")
        .arg(&game)
        .args(["--pipeline", "reference"]));
    assert_eq!(reference.status.code(), Some(2), "{}", stderr(&reference));
    let reference =
        run(rgt()
            .arg("opt")
            .arg(&game)
            .args(["--pipeline", "compiler", "--allow-unsafe"]));
    assert_eq!(reference.status.code(), Some(0), "{}", stderr(&reference));
}

/// Issue 22: `rgt passes` said "in the order they run" but listed a final pass among the loop
/// passes, printed kebab-case names where everything else says snake_case, and had no --json.
#[test]
fn passes_are_listed_in_run_order_by_their_names_also_as_json() {
    let out = run(rgt().args(["passes", "--json"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let passes = v.as_array().expect("an array");
    assert!(passes.len() >= 39);
    let rank = |p: &serde_json::Value| match p["phase"].as_str().unwrap() {
        "setup" => 0,
        "loop" => 1,
        "final" => 2,
        other => panic!("phase {other}"),
    };
    let ranks: Vec<i32> = passes.iter().map(rank).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    for p in passes {
        let name = p["name"].as_str().unwrap();
        assert!(!name.contains('-'), "{name}");
        for key in ["category", "safety", "description", "levels", "pipelines"] {
            assert!(!p[key].is_null(), "{name} lacks {key}");
        }
    }
    let text = stdout(&run(rgt().arg("passes")));
    let names: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let json_names: Vec<&str> = passes.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, json_names);
    // Every name runs with --pass as listed.
    assert!(text.contains("\nadd_explicit_casts "));
}

#[test]
fn passes_lists_every_pass_with_its_metadata() {
    let out = run(rgt().arg("passes"));
    assert_eq!(out.status.code(), Some(0));
    settings("cli").bind(|| insta::assert_snapshot!("passes_listing", stdout(&out)));
}

#[test]
fn trace_of_the_corpus_tic_tac_toe() {
    let path = root().join("../shared/corpus/hrg/ticTacToe.hrg");
    if !path.exists() {
        println!("skipped: ../shared/corpus is not present on this machine");
        return;
    }
    let out = run(rgt().arg("opt").arg(&path).arg("--trace=lines"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let (from_lines, from_summary) = counts(&err);
    assert_eq!(from_lines, from_summary);
    assert!(
        from_lines
            .iter()
            .any(|(p, _, c)| p == "calculate_repeats_and_uniques" && *c == 1)
    );
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.starts_with("summary  iterations "))
    );
}
