//! End-to-end tests of `rgt view`: the page is self-contained and deterministic, and it renders
//! in a real headless browser (Debian's `chromium`) where one is installed.
#![allow(clippy::print_stdout)] // a test says when it skips a part

mod common;

use common::{rgt, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

/// Runs `rgt view INPUT -o DIR/NAME ARGS…` and returns the page.
fn view(input: &Path, dir: &Path, name: &str, args: &[&str]) -> String {
    let out = dir.join(name);
    let o = rgt()
        .arg("view")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .expect("rgt runs");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&out).expect("the page is written")
}

/// The data block of a page.
fn data(html: &str) -> serde_json::Value {
    let start = html.find("id=\"rgt-data\">").expect("data block") + "id=\"rgt-data\">".len();
    let end = start
        + html[start..]
            .find("</script>")
            .expect("end of the data block");
    serde_json::from_str(&html[start..end]).expect("the data block is JSON")
}

#[test]
fn the_page_is_self_contained_and_byte_identical_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let game = fixture("rg/valid/tictactoe.rg");
    let a = view(&game, dir.path(), "a.html", &[]);
    let b = view(&game, dir.path(), "b.html", &[]);
    assert!(a == b, "two runs differ");
    assert!(a.starts_with("<!DOCTYPE html>"));
    for remote in ["http://", "https://", "<link", " src=", "import("] {
        assert!(!a.contains(remote), "the page loads something: `{remote}`");
    }
    let d = data(&a);
    assert_eq!(d["nodes"][d["begin"].as_u64().unwrap() as usize], "begin");
    assert_eq!(d["steps"].as_array().unwrap().len(), 1);
}

#[test]
fn the_default_output_is_named_after_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let game = fixture("rg/valid/tictactoe.rg");
    let o = rgt()
        .current_dir(dir.path())
        .arg("view")
        .arg(&game)
        .output()
        .expect("rgt runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("wrote tictactoe.html"),
        "{}",
        stderr(&o)
    );
    assert!(dir.path().join("tictactoe.html").is_file());
}

#[test]
fn hrg_graphs_and_reachability_checks_are_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let html = view(
        &fixture("hrg/valid/reachable.hrg"),
        dir.path(),
        "r.html",
        &["-O0"],
    );
    let d = data(&html);
    let kinds: Vec<&str> = d["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[0].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"check"), "{kinds:?}");
}

#[test]
fn trace_has_a_step_per_changing_pass_with_its_difference() {
    let dir = tempfile::tempdir().unwrap();
    let html = view(
        &fixture("rg/valid/tictactoe.rg"),
        dir.path(),
        "t.html",
        &["--trace"],
    );
    let d = data(&html);
    let steps = d["steps"].as_array().unwrap();
    assert!(steps.len() > 2, "{} steps", steps.len());
    assert_eq!(steps[0]["title"], "translated");
    assert!(steps[0]["del"].as_array().unwrap().is_empty());
    assert!(
        steps[1..]
            .iter()
            .any(|s| !s["add"].as_array().unwrap().is_empty()
                && !s["del"].as_array().unwrap().is_empty()),
        "no step changes edges"
    );
}

/// Debian's `chromium` (or another Chromium-based browser on the PATH).
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
    .find(|p| p.is_file())
}

/// Loads `page` in headless Chromium and returns the DOM after the page's script ran, or
/// `None` (printed) after a minute.
fn render(browser: &Path, page: &Path, profile: &Path) -> Option<String> {
    let out = profile.join("dom.html");
    let file = std::fs::File::create(&out).unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--window-size=1280,800",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .arg(page)
        .stdout(file)
        .stderr(Stdio::null())
        .spawn()
        .expect("the browser starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait for the browser").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            println!("{}: the browser did not finish in 60 s", page.display());
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(std::fs::read_to_string(out).unwrap())
}

/// The status element the page's script writes when it has drawn the automaton.
fn rendered(dom: &str) -> &str {
    let at = dom.find("id=\"rgt-status\"").expect("status element");
    let tail = &dom[at..];
    &tail[..tail.find("</span>").unwrap_or(tail.len())]
}

#[test]
fn pages_render_in_headless_chromium() {
    let Some(browser) = browser() else {
        println!("skipped: no chromium on the PATH (Debian: apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut pages = vec![
        ("ttt.html", fixture("rg/valid/tictactoe.rg"), vec![]),
        (
            "trace.html",
            fixture("rg/valid/tictactoe.rg"),
            vec!["--trace"],
        ),
        ("hrg.html", fixture("hrg/valid/reachable.hrg"), vec!["-O0"]),
        ("kif.html", fixture("kif/games/connectfour.kif"), vec![]),
    ];
    let chess = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/hrg/chess.hrg");
    if chess.is_file() {
        pages.push(("chess.html", chess, vec!["--trace"]));
    } else {
        println!("corpus chess skipped: ../shared/corpus is not present on this machine");
    }
    for (name, game, args) in pages {
        view(&game, dir.path(), name, &args);
        let Some(dom) = render(&browser, &dir.path().join(name), dir.path()) else {
            panic!("{name} did not render in time");
        };
        let status = rendered(&dom);
        assert!(
            status.contains("data-rendered=\"ok\""),
            "{name}: the page did not finish drawing: {status}"
        );
        assert!(status.contains(" edges"), "{name}: {status}");
    }
}
