//! Shell completions and man pages, both generated from the clap definition of the CLI.
//!
//! The man pages live in docs/man. Regenerate them after changing the command line with
//! `RGT_UPDATE_DOCS=1 cargo test -p rgt --test docs`.
#![allow(clippy::print_stdout)] // a test says when it skips

use clap::CommandFactory;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn rgt() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rgt"));
    c.stdin(Stdio::null());
    c
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = rgt().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for word in [
            "translate",
            "completions",
            "out-dir",
            "skip-existing",
            "emit",
        ] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
        // Hidden worker plumbing is not offered.
        assert!(!script.contains("RGT_BATCH_WORKER"), "{shell}");
        // Issue 22: pass and pipeline names are offered.
        for name in ["inline_assignment", "calculate_disjoints", "reference"] {
            assert!(script.contains(name), "{shell} completion lacks {name}");
        }
    }
    // Issue 22: zsh completed files for --out-dir; it completes directories.
    let zsh = rgt().args(["completions", "zsh"]).output().unwrap();
    let zsh = String::from_utf8(zsh.stdout).unwrap();
    let out_dir = zsh
        .lines()
        .find(|l| l.contains("--out-dir=[Translate every game"))
        .expect("--out-dir in the zsh script");
    assert!(out_dir.contains(":_files -/'"), "{out_dir}");
    let out = rgt().args(["completions", "tcsh-9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn bash_completion_script_loads() {
    // The script must at least be valid bash (skipped where bash is missing).
    if Command::new("bash").arg("--version").output().is_err() {
        return;
    }
    let out = rgt().args(["completions", "bash"]).output().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rgt.bash");
    std::fs::write(&path, &out.stdout).unwrap();
    let st = Command::new("bash")
        .arg("-c")
        .arg(format!("source '{}' && complete -p rgt", path.display()))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// Writes the man pages of `cmd` and its subcommands into `dir` (`rgt.1`, `rgt-translate.1`, …)
/// as `clap_mangen::generate_to` does, except that the text after the options
/// (`after_long_help`, the examples) is a section EXAMPLES kept line by line (clap_mangen calls it
/// EXTRA and fills its lines into one paragraph).
fn generate_man_pages(cmd: clap::Command, dir: &Path) {
    fn page(cmd: clap::Command, dir: &Path) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            page(sub, dir);
        }
        let examples = cmd.get_after_long_help().map(|h| h.to_string());
        let man = clap_mangen::Man::new(cmd.clone().after_long_help(None::<&str>));
        let mut out = Vec::new();
        man.render(&mut out).unwrap();
        let mut text = String::from_utf8(out).unwrap();
        if let Some(examples) = examples {
            let mut section = String::from(".SH EXAMPLES\n.nf\n");
            for line in examples.lines().skip_while(|l| l.ends_with(':')) {
                // roff: `-` is a hyphen unless escaped, a leading `.` or `'` a request.
                let line = line.replace('\\', "\\e").replace('-', "\\-");
                if line.starts_with('.') || line.starts_with('\'') {
                    section.push_str("\\&");
                }
                section.push_str(&line);
                section.push('\n');
            }
            section.push_str(".fi\n");
            let at = text.find(".SH VERSION").unwrap_or(text.len());
            text.insert_str(at, &section);
        }
        std::fs::write(dir.join(man.get_filename()), text).unwrap();
    }
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    page(cmd, dir);
}

/// Issue 22: `scripts/gdl-coverage --help` cut its description off mid-sentence.
#[test]
fn gdl_coverage_help_is_whole() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gdl-coverage");
    let Ok(out) = Command::new("python3").arg(&script).arg("--help").output() else {
        println!("skipped: python3 is not installed");
        return;
    };
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for part in [
        "then prove each translation against the independent GDL reasoner.",
        "verified ",
        "failed(CODE)",
        "--perft-timeout",
        "lockstep playouts",
    ] {
        assert!(help.contains(part), "{part} missing from:\n{help}");
    }
}

fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/man")
}

#[test]
fn man_pages_are_generated_from_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    generate_man_pages(rgt::Cli::command(), tmp.path());
    let mut generated: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    generated.sort();
    for page in ["rgt.1", "rgt-translate.1", "rgt-completions.1"] {
        assert!(
            generated.iter().any(|g| g == page),
            "{page} in {generated:?}"
        );
    }
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let translate = read(&tmp.path().join("rgt-translate.1"));
    for word in [
        "out\\-dir",
        "skip\\-existing",
        "max\\-memory",
        "allow\\-failures",
    ] {
        assert!(translate.contains(word), "{word}");
    }
    // Issue 22: the NAME line said "rgt - rgt — …", a short-only option showed as `[-O  ]`, and
    // there were no examples.
    let main = read(&tmp.path().join("rgt.1"));
    assert!(
        main.contains(".SH NAME\nrgt \\- The assembler for General Game Playing"),
        "{main}"
    );
    assert!(!translate.contains("\\-O \\fR]"), "{translate}");
    assert!(translate.contains("[\\fB\\-O\\fR|\\fB\\-\\-opt\\-level\\fR]"));
    let examples = &main[main
        .find(".SH EXAMPLES\n.nf\n")
        .expect("an EXAMPLES section")..];
    assert!(
        examples.contains("rgt translate examples/nim.rg "),
        "{examples}"
    );

    if std::env::var_os("RGT_UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(man_dir()).unwrap();
        for page in &generated {
            std::fs::copy(tmp.path().join(page), man_dir().join(page)).unwrap();
        }
    }
    // The committed pages exist. Their freshness is not asserted: the shared options (-O, --from)
    // are edited by other commands' work, and a stale page must not fail every branch; regenerate
    // them with the command above when the command line changes.
    for page in ["rgt.1", "rgt-translate.1", "rgt-completions.1"] {
        let committed = read(&man_dir().join(page));
        assert!(committed.contains(".SH NAME"), "{page} is not a man page");
    }
}
