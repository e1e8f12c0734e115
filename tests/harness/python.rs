//! The Python package (`python/`): builds it into a virtual environment and runs its pytest
//! suite, so that `cargo test --workspace` covers it like every other part.
//!
//! The environment is `target/python-venv` (created with `python3 -m venv`, or the interpreter
//! named by `RGT_PYTHON`), with maturin, pytest and OpenSpiel installed from PyPI once: a file in
//! it records what was installed, and a later run installs again only when that list changes.
//! The extension is built by `maturin develop --release` into its own target directory,
//! `target/python-build`, so it never waits for the lock of the build that runs this test, and
//! a second run rebuilds nothing. The test fails when any step or any pytest test fails; it
//! skips, saying so, only when there is no Python 3 or it cannot make a virtual environment.

use rgt_tests::root;
use std::path::Path;
use std::process::{Command, Output};

/// What the environment needs, as pip arguments.
const REQUIREMENTS: &[&str] = &["maturin>=1.5,<2", "pytest>=7", "open_spiel>=1.5"];

fn run(what: &str, cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// The virtual environment's interpreter, or `None` (with the reason printed) when this
/// machine has no Python 3 with `venv`.
fn environment(venv: &Path) -> Option<std::path::PathBuf> {
    let python = venv.join("bin/python");
    if python.is_file() {
        return Some(python);
    }
    let base = std::env::var("RGT_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let made = Command::new(&base).arg("-m").arg("venv").arg(venv).output();
    match made {
        Ok(out) if out.status.success() && python.is_file() => Some(python),
        Ok(out) => {
            println!(
                "python package: SKIPPED, `{base} -m venv` failed (install python3-venv): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            None
        }
        Err(e) => {
            println!("python package: SKIPPED, no Python 3 on this machine (`{base}`: {e})");
            None
        }
    }
}

#[test]
fn python_package_passes_its_pytest_suite() {
    let root = root();
    let venv = root.join("target/python-venv");
    let Some(python) = environment(&venv) else {
        return;
    };
    let marker = venv.join("rgt-requirements.txt");
    let wanted = REQUIREMENTS.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        run(
            "pip install",
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(REQUIREMENTS),
        );
        std::fs::write(&marker, &wanted).expect("write the requirements marker");
    }
    run(
        "maturin develop",
        Command::new(venv.join("bin/maturin"))
            .args(["develop", "--release", "--locked", "--manifest-path"])
            .arg(root.join("python/Cargo.toml"))
            .env("VIRTUAL_ENV", &venv)
            .env("CARGO_TARGET_DIR", root.join("target/python-build"))
            .current_dir(&root),
    );
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root)
        .output()
        .expect("run pytest");
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}{}", String::from_utf8_lossy(&out.stderr));
    // pytest exits with 0 when every test passed (skips included) and 5 when it found none.
    assert!(
        out.status.success(),
        "pytest failed ({}):\n{report}",
        out.status
    );
}
