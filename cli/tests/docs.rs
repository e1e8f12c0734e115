//! Shell completions and man pages, both generated from the clap definition of the CLI.
//!
//! The man pages live in docs/man. Regenerate them after changing the command line with
//! `RGT_UPDATE_DOCS=1 cargo test -p rgt --test docs`.

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
    }
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

fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/man")
}

#[test]
fn man_pages_are_generated_from_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    clap_mangen::generate_to(rgt::Cli::command(), tmp.path()).unwrap();
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
