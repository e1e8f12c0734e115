//! Fuzz targets that build and run as ordinary tests on stable Rust: a mutation loop over seed
//! inputs of our own (the fixtures and examples of this repository) feeds every front-end and
//! the whole pipeline (front-end, checks, `-O2`, diagnostics rendering, the interpreter) and
//! requires that nothing panics. A stack overflow or an allocation failure aborts the test
//! process, so it fails the run as well.
//!
//! Each target runs a bounded number of executions (`EXECS`, or `RGT_FUZZ_EXECS`); with
//! `RGT_FUZZ_SECONDS` it runs for that long instead. `RGT_FUZZ_SEED` changes the mutation seed;
//! `RGT_FUZZ_CURRENT=FILE` writes each input to FILE before it runs (to find one that aborts).
//! `scripts/fuzz` runs them for as long as asked. Inputs that panic are written to
//! `target/fuzz-crashes/` and reported.

use rg_core::{FileId, LowerOptions};
use rg_interp::{CompileOptions, Machine, Program, Rng};
use rg_pipeline::Lang;
use rg_pipeline::OptLevel;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Executions per target in the default (CI) run.
const EXECS: u64 = 1500;

/// The size limit of the fuzzed translations: small, so that each execution is quick (the
/// limit itself is what is tested, not the size of games).
const SIZE_LIMIT: u64 = 20_000;

/// The search limit of the fuzzed games' interpreter (steps, and bytes held, per search):
/// small for the same reason; a search over it is a run-time error like any other.
const SEARCH_LIMIT: u64 = 10_000_000;

/// An execution slower than this has its input written to `target/fuzz-slow/TARGET.EXT` (the
/// slowest one of the run).
const SLOW: Duration = Duration::from_secs(1);

/// Every this many executions a target prints a progress line.
const PROGRESS: u64 = 10_000;

/// The longest input a mutation may make.
const MAX_LEN: usize = 64 * 1024;

/// Tokens of the languages, inserted by mutations.
const DICTIONARY: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    ":",
    "->",
    "->>",
    "==",
    "!=",
    "=",
    "<",
    ">",
    "<=",
    ">=",
    "$",
    "$$",
    "?",
    "!",
    "~",
    "*",
    "^",
    "+",
    "-",
    "%",
    "#",
    "@",
    ".",
    "..",
    " ",
    "\n",
    "0",
    "1",
    "65535",
    "4294967296",
    "99999999999999999999",
    "begin",
    "end",
    "player",
    "keeper",
    "random",
    "goals",
    "visible",
    "type",
    "const",
    "var",
    "repeat",
    "domain",
    "graph",
    "if",
    "then",
    "else",
    "while",
    "loop",
    "branch",
    "in",
    "where",
    "role",
    "init",
    "legal",
    "next",
    "terminal",
    "goal",
    "true",
    "does",
    "not",
    "or",
    "distinct",
    "<=",
    ":-",
    "&",
    "?x",
    "#rules",
    "#board",
    "#players",
    "#variables",
    "#pieces",
    "rectangle",
    "@disjoint",
    "@repeat",
    "@unique",
    "board",
    "capture",
    "limit",
    "game",
    "rows",
    "cols",
    "\"",
    "//",
    "/*",
    "*/",
    "\u{e9}",
    "\u{10348}",
];

/// The seed inputs of a language: its fixtures and examples (valid and invalid).
fn seeds(lang: Lang) -> Vec<String> {
    let root = rgt_tests::root();
    let dirs: &[&str] = match lang {
        Lang::Rg => &[
            "tests/fixtures/rg",
            "tests/fixtures/passes",
            "tests/fixtures/interp",
            "examples",
        ],
        Lang::Hrg => &["tests/fixtures/hrg"],
        Lang::Rbg => &["tests/fixtures/rbg"],
        Lang::Kif => &["tests/fixtures/kif"],
        Lang::Lg => &["tests/fixtures/lg", "examples/linegames"],
    };
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if Lang::from_path(&p) == Some(lang) {
                files.push(p);
            }
        }
    }
    files.sort();
    let out: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|t| t.len() <= 16 * 1024)
        .collect();
    assert!(!out.is_empty(), "no seed inputs for {lang:?}");
    out
}

/// One random change of `text` (bytes; made valid UTF-8 afterwards).
fn mutate(rng: &mut Rng, text: &mut Vec<u8>, seeds: &[String]) {
    let len = text.len();
    let at = |rng: &mut Rng| rng.below(len + 1);
    match rng.below(9) {
        0 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(16)).min(len);
            text.drain(a..b);
        }
        1 | 2 => {
            let t = DICTIONARY[rng.below(DICTIONARY.len())];
            let p = at(rng);
            text.splice(p..p, t.bytes());
        }
        3 if len > 0 => {
            // Duplicate a range.
            let a = rng.below(len);
            let b = (a + 1 + rng.below(64)).min(len);
            let chunk = text[a..b].to_vec();
            let p = at(rng);
            text.splice(p..p, chunk);
        }
        4 if len > 0 => {
            // Repeat a range many times (deep nesting, long lists, repeated declarations).
            let a = rng.below(len);
            let b = (a + 1 + rng.below(8)).min(len);
            let chunk = text[a..b].to_vec();
            let times = 1 + rng.below(2000);
            let mut rep = Vec::with_capacity(chunk.len() * times);
            for _ in 0..times {
                rep.extend_from_slice(&chunk);
            }
            text.splice(a..a, rep);
        }
        5 => {
            // A digit run becomes a large or odd number.
            if let Some(p) = (0..len)
                .map(|i| (i + rng.below(len.max(1))) % len.max(1))
                .find(|&i| text.get(i).is_some_and(u8::is_ascii_digit))
            {
                let n = [
                    "0",
                    "100000000",
                    "4294967295",
                    "18446744073709551616",
                    "65537",
                    "7",
                ][rng.below(6)];
                text.splice(p..p + 1, n.bytes());
            }
        }
        6 => {
            // Splice in a part of another seed.
            let other = seeds[rng.below(seeds.len())].as_bytes();
            if !other.is_empty() {
                let a = rng.below(other.len());
                let b = (a + 1 + rng.below(256)).min(other.len());
                let p = at(rng);
                text.splice(p..p, other[a..b].iter().copied());
            }
        }
        7 if len > 0 => {
            let p = rng.below(len);
            text[p] = b" \n(){}[];:,=-><$?!~*^+#@.0123456789aZ_\"/"[rng.below(40)];
        }
        _ if len > 1 => {
            let (a, b) = (rng.below(len), rng.below(len));
            text.swap(a, b);
        }
        _ => text.push(b'('),
    }
    text.truncate(MAX_LEN);
}

/// A front-end alone: parse and lower (no checks, no passes).
fn front_end(lang: Lang, text: &str) {
    let mut opts = LowerOptions::default();
    opts.size_limit = Some(SIZE_LIMIT);
    opts.work_limit = Some(SIZE_LIMIT);
    let _ = lang.lower(FileId(0), text, &opts);
}

/// Everything a user runs: translation, checks, `-O2`, rendering of the diagnostics, and the
/// interpreter's first ply.
fn pipeline(lang: Lang, text: &str) {
    let mut p = rg_pipeline::Pipeline::new(rg_pipeline::Options {
        opt: OptLevel::O2,
        size_limit: Some(SIZE_LIMIT),
        ..Default::default()
    });
    match p.load_text(lang, "fuzz", text) {
        Ok(loaded) => {
            let game = loaded.game;
            for e in rg_fmt::emitters() {
                let _ = rg_fmt::emit_to_string(e, &game);
            }
            let opts = CompileOptions {
                search_limit: Some(SEARCH_LIMIT),
                ..CompileOptions::default()
            };
            if let Ok(p) = Program::new(&game, opts) {
                let mut m = Machine::new(&p);
                let s = m.initial();
                let _ = m.perft(&s, 1);
            }
        }
        Err(failure) => {
            let _ = p.render_error(&failure);
        }
    }
}

/// How long a target runs: a number of executions or a time.
fn budget(default: u64) -> (u64, Option<Duration>) {
    let execs = std::env::var("RGT_FUZZ_EXECS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    let secs = std::env::var("RGT_FUZZ_SECONDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .map(Duration::from_secs_f64);
    match secs {
        Some(d) => (u64::MAX, Some(d)),
        None => (execs, None),
    }
}

/// Runs `target` on mutated seeds of `lang`; panics with the inputs that made it panic.
/// Runs a target on a thread with the stack `rgt` gives its commands (the test thread's is
/// smaller than what the deepest accepted input needs in a debug build).
fn fuzz(name: &str, langs: &[Lang], target: fn(Lang, &str), default: u64) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name(format!("fuzz-{name}"))
            .stack_size(rg_pipeline::STACK_SIZE)
            .spawn_scoped(s, || fuzz_here(name, langs, target, default))
            .expect("a fuzz thread starts")
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
    });
}

fn fuzz_here(name: &str, langs: &[Lang], target: fn(Lang, &str), default: u64) {
    let (execs, time) = budget(default);
    let seed = std::env::var("RGT_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut rng = Rng::new(
        seed ^ name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) ^ b as u64),
    );
    let seeds: Vec<(Lang, Vec<String>)> = langs.iter().map(|&l| (l, seeds(l))).collect();
    let start = Instant::now();
    let (mut done, mut crashes) = (0u64, Vec::new());
    let mut slowest = Duration::ZERO;
    let current = std::env::var_os("RGT_FUZZ_CURRENT").map(PathBuf::from);
    // Panics are expected to be rare; the default hook prints each one.
    while done < execs && time.is_none_or(|t| start.elapsed() < t) {
        let (lang, texts) = &seeds[rng.below(seeds.len())];
        let mut text = texts[rng.below(texts.len())].clone().into_bytes();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut text, texts);
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        // An input that aborts the process (out of memory, a signal) is caught by nothing
        // here: with RGT_FUZZ_CURRENT set, each input is written there before it runs.
        if let Some(current) = &current {
            let _ = std::fs::write(current, &text);
        }
        let t = Instant::now();
        let r = std::panic::catch_unwind(|| target(*lang, &text));
        let took = t.elapsed();
        if took > slowest {
            slowest = took;
            // Kept for a look when it is slow (the acceptance allows 10 s for any input).
            if took > SLOW {
                let dir = rgt_tests::root().join("target/fuzz-slow");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("{name}.{}", lang.extensions()[0]));
                let _ = std::fs::write(&path, &text);
            }
        }
        if r.is_err() {
            let dir = rgt_tests::root().join("target/fuzz-crashes");
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{name}-{done}.{}", lang.extensions()[0]));
            let _ = std::fs::write(&path, &text);
            crashes.push(path);
        }
        done += 1;
        if done % PROGRESS == 0 {
            // A run stopped early (or aborted) still tells how far it got.
            eprintln!(
                "fuzz {name}: progress {done} executions, {} crashes, {:.1} s",
                crashes.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "fuzz {name}: {done} executions, {} crashes, {:.1} s, slowest {:.3} s",
        crashes.len(),
        start.elapsed().as_secs_f64(),
        slowest.as_secs_f64()
    );
    if let Ok(report) = std::env::var("RGT_FUZZ_REPORT") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(report)
        {
            let _ = writeln!(
                f,
                "{name}\t{done}\t{}\t{:.1}\t{:.3}",
                crashes.len(),
                start.elapsed().as_secs_f64(),
                slowest.as_secs_f64()
            );
        }
    }
    assert!(
        crashes.is_empty(),
        "fuzz {name}: {} inputs panicked, written to {:?}",
        crashes.len(),
        crashes
    );
}

#[test]
fn fuzz_rg() {
    fuzz("rg", &[Lang::Rg], front_end, EXECS);
}

#[test]
fn fuzz_hrg() {
    fuzz("hrg", &[Lang::Hrg], front_end, EXECS);
}

#[test]
fn fuzz_rbg() {
    fuzz("rbg", &[Lang::Rbg], front_end, EXECS);
}

#[test]
fn fuzz_kif() {
    fuzz("kif", &[Lang::Kif], front_end, EXECS);
}

#[test]
fn fuzz_lg() {
    fuzz("lg", &[Lang::Lg], front_end, EXECS);
}

#[test]
fn fuzz_pipeline() {
    fuzz("pipeline", &Lang::ALL, pipeline, EXECS / 3);
}
