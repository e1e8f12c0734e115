//! End-to-end tests of the `rgt` binary: exit codes, standard input/output, output files,
//! formatting and statistics. Snapshots live in tests/snapshots/cli at the workspace root.

mod common;
use common::{rgt, settings, stderr, stdout};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/rg")
        .join(name)
}

fn run(cmd: &mut Command, stdin: Option<&str>) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rgt starts");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("rgt finishes")
}

#[test]
fn translate_writes_canonical_rg_to_stdout_and_reads_stdin() {
    let path = fixture("valid/nim_counter.rg");
    let out = run(rgt().args(["translate"]).arg(&path).arg("-O0"), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = stdout(&out);
    assert!(first.contains("var player: PlayerOrSystem = keeper;"));
    // Translating the output again from standard input is a fixed point.
    let again = run(rgt().args(["translate", "-", "-O0"]), Some(&first));
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stdout(&again), first);
}

#[test]
fn translate_writes_output_files_atomically_and_never_the_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("game.rg");
    std::fs::copy(fixture("valid/minimal_solo.rg"), &input).expect("copy");
    let out_path = dir.path().join("out.rg");
    let out = run(
        rgt().arg("translate").arg(&input).arg("-o").arg(&out_path),
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::read_to_string(&out_path)
            .unwrap()
            .contains("begin, end: player = keeper;")
    );
    assert!(stdout(&out).is_empty());

    // Refuses to overwrite the input, even spelled differently; the input is untouched.
    let before = std::fs::read_to_string(&input).unwrap();
    let sneaky = dir.path().join(".").join("game.rg");
    let out = run(
        rgt().arg("translate").arg(&input).arg("-o").arg(&sneaky),
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("refusing to overwrite the input file"));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), before);

    // A failing run leaves no output file and no temporary file behind.
    let bad = dir.path().join("bad.rg");
    std::fs::write(&bad, "type Player = { p };\nbegin, end: ;\n").unwrap();
    let failed_out = dir.path().join("failed.rg");
    let out = run(
        rgt().arg("translate").arg(&bad).arg("-o").arg(&failed_out),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!failed_out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".rgt-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `-o /dev/null` (or a FIFO) must write into the special file, never rename a plain file over
/// it: run as root, that replaced the machine's /dev/null with a regular file.
#[cfg(unix)]
#[test]
fn output_to_a_special_file_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) failed");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo))
    };
    let out = run(
        rgt()
            .arg("translate")
            .arg(fixture("valid/minimal_solo.rg"))
            .arg("-o")
            .arg(&fifo),
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by {kind:?}");
    let got = reader.join().unwrap().unwrap();
    assert!(got.contains("begin, end: player = keeper;"), "{got}");
}

#[test]
fn exit_codes_distinguish_input_errors_from_usage_errors() {
    settings("cli").bind(|| {
        // Run from the workspace root with a relative path, as a user would: the rendered
        // diagnostics name the file as given, so the snapshot does not depend on the checkout.
        let out = run(
            rgt()
                .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
                .args(["translate", "tests/fixtures/rg/invalid/type_mismatches.rg"]),
            None,
        );
        assert_eq!(out.status.code(), Some(1));
        assert!(stdout(&out).is_empty());
        insta::assert_snapshot!("type_errors_stderr", stderr(&out));

        let out = run(rgt().args(["translate", "game.unknown"]), None);
        assert_eq!(out.status.code(), Some(2));
        insta::assert_snapshot!("unknown_extension_stderr", stderr(&out));

        let out = run(rgt().args(["translate", "/nonexistent/game.rg"]), None);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).starts_with("error: cannot read `/nonexistent/game.rg`"));

        let out = run(rgt().args(["translate", "--emit", "svg", "x.rg"]), None);
        assert_eq!(out.status.code(), Some(2));

        let out = run(rgt().args(["translate", "x.rg", "-O7"]), None);
        assert_eq!(out.status.code(), Some(2));
    });
}

#[test]
fn emit_dot_and_json() {
    let path = fixture("valid/minimal_solo.rg");
    let dot = run(
        rgt().arg("translate").arg(&path).args(["--emit", "dot"]),
        None,
    );
    assert_eq!(dot.status.code(), Some(0));
    assert!(stdout(&dot).starts_with("digraph game {"));
    let json = run(
        rgt().arg("translate").arg(&path).args(["--emit", "json"]),
        None,
    );
    assert_eq!(json.status.code(), Some(0));
    assert!(
        stdout(&json).starts_with("{\"constants\":[],\"edges\":[{\"kind\":\"EdgeDeclaration\"")
    );
}

#[test]
fn stats_text_and_json() {
    settings("cli").bind(|| {
        let path = fixture("valid/tictactoe.rg");
        let out = run(rgt().arg("stats").arg(&path).arg("-O0"), None);
        assert_eq!(out.status.code(), Some(0));
        insta::assert_snapshot!("stats_tictactoe", stdout(&out));
        let out = run(rgt().arg("stats").arg(&path).args(["--json", "-O0"]), None);
        assert_eq!(out.status.code(), Some(0));
        insta::assert_snapshot!("stats_tictactoe_json", stdout(&out));
    });
}

/// Issue 22: `stats --json` lacked the `pragmas` key of the batch report's statistics; both
/// now have the same keys.
#[test]
fn stats_json_has_the_keys_of_the_report() {
    let out = run(
        rgt()
            .arg("stats")
            .arg(fixture("valid/tictactoe.rg"))
            .arg("--json"),
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "constants",
            "edges",
            "nodes",
            "pragmas",
            "reachability_checks",
            "state_bits",
            "tags",
            "types",
            "variables"
        ]
    );
    assert!(v["pragmas"].as_u64().unwrap() > 0, "-O2 infers pragmas");
}

/// Issue 22, smaller items: `--from gdl` is KIF; a mistyped extension gets a suggestion; `-d` is
/// the depth wherever there is a depth; `--color` is not listed among a command's own options.
#[test]
fn small_usability_items() {
    let dir = tempfile::tempdir().expect("temp dir");
    let kif = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kif/games");
    let game = std::fs::read_dir(&kif)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .min()
        .expect("a KIF fixture");
    let text = std::fs::read_to_string(&game).unwrap();
    let out = run(rgt().args(["translate", "-", "--from", "gdl"]), Some(&text));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = run(
        rgt()
            .current_dir(dir.path())
            .args(["translate", "nosuch.hgr"]),
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `.hrg`?"),
        "{}",
        stderr(&out)
    );
    let out = run(
        rgt()
            .current_dir(dir.path())
            .args(["perft", "game.rgb", "-d", "1"]),
        None,
    );
    assert!(
        stderr(&out).contains("did you mean `.rbg`?"),
        "{}",
        stderr(&out)
    );
    let out = run(rgt().args(["translate", "notes.txt"]), None);
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));

    let path = fixture("valid/nim_counter.rg");
    for args in [
        &["check", "-d", "2", "--plays", "2"][..],
        &["perft", "-d", "2"],
        &["equiv", "-d", "2"],
    ] {
        let mut c = rgt();
        c.arg(args[0]).arg(&path);
        if args[0] == "equiv" {
            c.arg(&path);
        }
        let out = run(c.args(&args[1..]), None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }

    for cmd in ["opt", "translate", "perft"] {
        let out = run(rgt().args([cmd, "-h"]), None);
        let help = stdout(&out);
        let own = &help[help.find("Options:").unwrap()..];
        let own = &own[..own.find("\n\n").unwrap_or(own.len())];
        let global = help
            .find("Global options:")
            .expect("a Global options heading");
        assert!(!own.contains("--color"), "{cmd}: {own}");
        assert!(help[global..].contains("--color"), "{cmd}");
    }
}

/// Runs `rgt ARGS` under `umask MASK` (through the shell: the test may not change its own).
#[cfg(unix)]
fn rgt_with_umask(mask: &str, args: &[&std::ffi::OsStr]) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("umask {mask}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_rgt"))
        .args(args);
    run(&mut c, None)
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o7777
}

/// Issue 22: files written by rgt get the umask's mode when new, keep the mode of the file they
/// replace, and a symbolic link is written through (the link stays, its target changes).
#[cfg(unix)]
#[test]
fn written_files_keep_their_mode_and_links() {
    use std::ffi::OsStr;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let game = fixture("valid/minimal_solo.rg");
    let translate = |mask: &str, out: &Path| {
        let o = rgt_with_umask(
            mask,
            &[
                OsStr::new("translate"),
                game.as_os_str(),
                OsStr::new("-o"),
                out.as_os_str(),
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    // New files: 0666 less the umask.
    let new = dir.path().join("new.rg");
    translate("022", &new);
    assert_eq!(mode(&new), 0o644);
    let private = dir.path().join("private.rg");
    translate("077", &private);
    assert_eq!(mode(&private), 0o600);
    // An existing file keeps its mode.
    let existing = dir.path().join("existing.rg");
    std::fs::write(&existing, "old").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o640)).unwrap();
    translate("077", &existing);
    assert_eq!(mode(&existing), 0o640);
    assert!(
        std::fs::read_to_string(&existing)
            .unwrap()
            .contains("begin")
    );
    // A symbolic link is written through, also a relative one and a chain of them.
    let real = dir.path().join("real.rg");
    std::fs::write(&real, "type T={a};\nbegin,end:;\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o664)).unwrap();
    std::os::unix::fs::symlink("real.rg", dir.path().join("link1.rg")).unwrap();
    let link = dir.path().join("link2.rg");
    std::os::unix::fs::symlink(dir.path().join("link1.rg"), &link).unwrap();
    let o = rgt_with_umask(
        "022",
        &[OsStr::new("fmt"), OsStr::new("--write"), link.as_os_str()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for l in ["link1.rg", "link2.rg"] {
        let meta = std::fs::symlink_metadata(dir.path().join(l)).unwrap();
        assert!(meta.file_type().is_symlink(), "{l} is still a link");
    }
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "type T = { a };\nbegin, end: ;\n"
    );
    assert_eq!(mode(&real), 0o664);
    // A link to a file that does not exist yet creates that file.
    let dangling = dir.path().join("dangling.rg");
    std::os::unix::fs::symlink("created.rg", &dangling).unwrap();
    translate("022", &dangling);
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(dir.path().join("created.rg"))
            .unwrap()
            .contains("begin")
    );
    // The report of a library conversion too.
    let report = dir.path().join("report.json");
    let o = rgt_with_umask(
        "022",
        &[
            OsStr::new("translate"),
            game.as_os_str(),
            OsStr::new("--out-dir"),
            dir.path().join("out").as_os_str(),
            OsStr::new("--report"),
            report.as_os_str(),
            OsStr::new("-q"),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(mode(&report), 0o644);
    assert_eq!(mode(&dir.path().join("out/minimal_solo.rg")), 0o644);
    // No temporary file is left anywhere.
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".rgt-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 22: an output in a missing directory names that directory, not a temporary file.
#[test]
fn output_into_a_missing_directory_names_the_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run(
        rgt()
            .current_dir(dir.path())
            .arg("translate")
            .arg(fixture("valid/minimal_solo.rg"))
            .args(["-o", "nonexist/x.rg"]),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("the directory `nonexist` does not exist"),
        "{err}"
    );
    assert!(!err.contains(".rgt-"), "{err}");
}

#[test]
fn fmt_prints_checks_and_rewrites() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("messy.rg");
    std::fs::write(&file, "type T={a};   // comment\nbegin,end:;\n").unwrap();

    // Comments are kept (issue 22: they were dropped without a word).
    let out = run(rgt().arg("fmt").arg(&file), None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "type T = { a }; // comment\nbegin, end: ;\n");

    let out = run(rgt().arg("fmt").arg("--check").arg(&file), None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not in canonical form"));

    let out = run(rgt().arg("fmt").arg("--write").arg(&file), None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "type T = { a }; // comment\nbegin, end: ;\n"
    );

    let out = run(rgt().arg("fmt").arg("--check").arg(&file), None);
    assert_eq!(out.status.code(), Some(0));

    // fmt does not add builtins or type check: only syntax errors fail it.
    let out = run(rgt().args(["fmt", "-"]), Some("begin, end: x = y;"));
    assert_eq!(out.status.code(), Some(0));
    let out = run(rgt().args(["fmt", "-"]), Some("begin, end: x"));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn fmt_prints_normalised_kif_with_its_warnings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("game.kif");
    let text =
        "; comment\n(ROLE robot) (init s0)\n(<= (legal robot go) (or (true s0) (true (s1))))\n";
    std::fs::write(&file, text).unwrap();
    let normalised = "(role robot)\n(init s0)\n\n(<= (legal robot go)\n    (true s0))\n\n(<= (legal robot go)\n    (true s1))\n";

    let out = run(rgt().arg("fmt").arg(&file), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), normalised);
    assert!(
        stderr(&out).contains("gdl::W-PARSE-007"),
        "{}",
        stderr(&out)
    );

    let out = run(rgt().arg("fmt").arg("--check").arg(&file), None);
    assert_eq!(out.status.code(), Some(1));
    let out = run(
        rgt().args(["fmt", "--check", "--from", "kif", "-"]),
        Some(normalised),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Rewriting in place would drop the comments: refused.
    let out = run(rgt().arg("fmt").arg("--write").arg(&file), None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    let out = run(
        rgt().args(["fmt", "--from", "kif", "-"]),
        Some("(role robot"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("gdl::E-PARSE-002"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_mentions_the_optimisation_levels_honestly() {
    let out = run(rgt().args(["translate", "--help"]), None);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    assert!(help.contains("-O, --opt-level <LEVEL>"), "{help}");
    assert!(
        help.contains("local expression, skip and prune passes"),
        "{help}"
    );
}

fn lg_example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/linegames")
        .join(name)
}

#[test]
fn emit_hrg_prints_the_hrg_of_a_linegames_file_and_refuses_other_inputs() {
    let path = lg_example("pretwa.lg");
    let out = run(
        rgt().arg("translate").arg(&path).args(["--emit", "hrg"]),
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).expect("example");
    let (game, _) = front_linegames::load(rg_core::FileId(0), &text).expect("valid");
    assert_eq!(stdout(&out), front_linegames::hrg_text(&game));
    assert!(stdout(&out).starts_with("// Pretwa (rbg) (lowered from LineGames)\ndomain Player"));
    // The printed HRG is a game of its own, with the same perft.
    let dir = tempfile::tempdir().expect("temp dir");
    let hrg = dir.path().join("pretwa.hrg");
    let written = run(
        rgt()
            .arg("translate")
            .arg(&path)
            .args(["--emit", "hrg", "-o"])
            .arg(&hrg),
        None,
    );
    assert_eq!(written.status.code(), Some(0));
    for game in [&path, &hrg] {
        let perft = run(rgt().arg("perft").arg(game).args(["--depth", "3"]), None);
        assert_eq!(perft.status.code(), Some(0), "{}", stderr(&perft));
        assert!(stdout(&perft).contains("depth 3: 7 "), "{}", stdout(&perft));
    }

    let other = run(
        rgt()
            .arg("translate")
            .arg(fixture("valid/nim_counter.rg"))
            .args(["--emit", "hrg"]),
        None,
    );
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("LineGames (.lg)"),
        "{}",
        stderr(&other)
    );
}

#[test]
fn every_game_command_accepts_linegames() {
    let path = lg_example("lauKataKati_lud.lg");
    for args in [
        &["translate", "-O0"][..],
        &["translate", "--emit", "json"],
        &["opt", "--trace=summary"],
        &["perft", "--depth", "2"],
        &["moves", "--after", "//"],
        &["run", "--plays", "3"],
        &["check", "--depth", "4", "--plays", "3"],
        &["stats", "--json"],
        &["fmt", "--check"],
    ] {
        let out = run(rgt().arg(args[0]).arg(&path).args(&args[1..]), None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    }
    let moves = run(rgt().arg("moves").arg(&path).args(["--after", "//"]), None);
    assert_eq!(
        stdout(&moves).lines().count(),
        3,
        "three first moves (the published perft 1 of the LineGames reference)"
    );
}

#[test]
fn linegames_errors_point_into_the_lg_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.lg");
    std::fs::write(
        &path,
        "game \"Bad\"\nboard alquerque 5 by 5\nblack rows 0..1\nwhite row 9\n\
         capture optional single\n",
    )
    .expect("write");
    for emit in ["rg", "hrg"] {
        let out = run(
            rgt()
                .current_dir(dir.path())
                .args(["translate", "bad.lg", "--emit", emit]),
            None,
        );
        assert_eq!(out.status.code(), Some(1));
        settings("cli").bind(|| insta::assert_snapshot!("lg_errors_stderr", stderr(&out)));
    }
}

/// SIGINT at moments spread over a `translate -o OUT` run (weighted towards its end, where the
/// output is written) never leaves a temporary file, and `OUT` is either absent or complete
/// (issue 23: 3–4 % of randomly timed interrupts left a `.rgt-*.tmp` file).
#[cfg(unix)]
#[test]
fn an_interrupted_translate_leaves_no_temporary_file() {
    use std::time::Instant;
    let dir = std::env::temp_dir().join(format!("rgt-cli-sigint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A game with a large output: a chain of 100 000 assignments, at -O0.
    let mut text = String::from(
        "type Player = { a };\ntype Score = { 0, 100 };\nvar x: Bool = 0;\n\
         begin, c0: player = a;\nc0, n0: $ go;\nn0, m0: player = keeper;\n",
    );
    for i in 0..100_000 {
        text.push_str(&format!("m{i}, m{}: x = {};\n", i + 1, i % 2));
    }
    text.push_str("m100000, w: goals[a] = 100;\nw, end: player = keeper;\n");
    let game = dir.join("chain.rg");
    std::fs::write(&game, text).expect("write the game");
    let out = dir.join("out.rg");
    let translate = || {
        let mut c = rgt();
        c.arg("translate")
            .arg(&game)
            .arg("-O0")
            .arg("-o")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let start = Instant::now();
    assert!(translate().status().expect("runs").success());
    let took = start.elapsed();
    let whole = std::fs::read(&out).expect("the output");
    let temporaries = || -> Vec<String> {
        std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".rgt-"))
            .collect()
    };
    const TRIALS: u32 = 12;
    for trial in 0..TRIALS {
        std::fs::remove_file(&out).ok();
        let mut child = translate().spawn().expect("starts");
        std::thread::sleep(took.mul_f64(0.3 + 0.8 * f64::from(trial) / f64::from(TRIALS)));
        let killed = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        let status = child.wait().expect("finishes");
        assert!(
            killed.success() || status.success(),
            "trial {trial}: not interrupted and not finished: {status:?}"
        );
        assert_eq!(
            temporaries(),
            Vec::<String>::new(),
            "trial {trial}: {status:?}"
        );
        if let Ok(bytes) = std::fs::read(&out) {
            assert!(
                bytes == whole,
                "trial {trial}: a partial output ({status:?})"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 24 item 5: `--lenient` on `verify` and `perft --engine gdl`. The lenient games are
/// rejected by default (exit 1, E-VAL-040); with `--lenient` the reasoner and the translation
/// agree on perft and on the goals of lockstep playouts, with W-VAL-041 warnings.
#[test]
fn lenient_games_verify_only_with_lenient() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/kif/lenient");
    for (game, counts) in [
        ("distinct_helper.kif", "[1,3,12,0]"),
        ("head_role.kif", "[1,1,1,1,1,0]"),
        ("helper_negation.kif", "[1,2,2,0]"),
        ("negation_exists.kif", "[1,2,2,0]"),
        ("negation_order.kif", "[1,1,4,0]"),
    ] {
        let path = dir.join(game);
        let strict = run(rgt().arg("verify").arg(&path), None);
        assert_eq!(strict.status.code(), Some(1), "{game}: {}", stderr(&strict));
        assert!(stderr(&strict).contains("gdl::E-VAL-040"), "{game}");
        let out = run(
            rgt()
                .arg("verify")
                .arg(&path)
                .args(["--lenient", "-d", "3"]),
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{game}: {}", stderr(&out));
        assert!(stderr(&out).contains("gdl::W-VAL-041"), "{game}");
        let depth = (counts.matches(',').count()).to_string();
        for engine in ["gdl", "rg"] {
            let out = run(
                rgt().arg("perft").arg(&path).args([
                    "--lenient",
                    "--json",
                    "--engine",
                    engine,
                    "--depth",
                    &depth,
                ]),
                None,
            );
            assert_eq!(out.status.code(), Some(0), "{game}: {}", stderr(&out));
            let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
            assert_eq!(
                json["counts"].to_string(),
                counts,
                "{game} --engine {engine}"
            );
        }
    }
}
