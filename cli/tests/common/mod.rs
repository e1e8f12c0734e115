//! Helpers shared by the end-to-end test crates of `cli/tests` (each test file is a crate of its
//! own, so not every crate uses every helper).
#![allow(dead_code)]

use std::process::{Command, Output};

/// The `rgt` binary under test.
pub fn rgt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rgt"))
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

/// insta settings for snapshots under `tests/snapshots/<dir>` at the workspace root.
pub fn settings(dir: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(format!("../../tests/snapshots/{dir}"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}
