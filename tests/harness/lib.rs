//! Shared helpers of the integration tests: fixture and corpus discovery, loading and rendering
#![allow(clippy::print_stdout, clippy::print_stderr)] // tests report what they skip
//! diagnostics exactly as the CLI does (fixed width, no colour), running the built binary.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// `tests/fixtures/<sub>`.
pub fn fixtures(sub: &str) -> PathBuf {
    root().join("tests/fixtures").join(sub)
}

/// The files of a fixture directory with the given extension, sorted by name. Panics when the
/// directory is missing or empty, so a misplaced fixture directory cannot silently test nothing.
pub fn fixture_files(sub: &str, ext: &str) -> Vec<PathBuf> {
    let dir = fixtures(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixture directory {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} fixtures in {}", dir.display());
    files
}

/// The shared third-party corpus (`../shared/corpus` next to the workspace), if present. Tests
/// that need it print a line and return when it is absent (CI machines may not have it).
pub fn corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/corpus");
    dir.is_dir().then(|| dir.canonicalize().unwrap_or(dir))
}

/// `corpus()/<sub>` files with extension `ext`, sorted; `None` when the corpus is absent.
pub fn corpus_files(sub: &str, ext: &str) -> Option<Vec<PathBuf>> {
    let dir = corpus()?.join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    Some(files)
}

/// Prints why a corpus test did nothing.
pub fn skip_without_corpus(test: &str) {
    println!("{test}: skipped, ../shared/corpus is not present on this machine");
}

/// The file name of a path, for snapshot names and messages.
pub fn name(path: &Path) -> String {
    path.file_name()
        .expect("file name")
        .to_string_lossy()
        .into_owned()
}

/// Renders a diagnostic about `text` (named `name`) as the CLI does without a terminal: a group
/// as its members, in source order, with the count at the end.
pub fn render(diag: &dyn miette::Diagnostic, name: &str, text: &str) -> String {
    let mut sources = rg_core::SourceMap::new();
    let file = sources.add(name, text);
    let diags = rg_pipeline::Diagnostic::from_miette(diag, Some(file));
    rg_pipeline::render::Renderer::plain().render(&sources, &diags)
}

/// Loads a game from text through the pipeline (front-end, builtins, checks) at `-O0`.
/// On failure returns the diagnostics rendered exactly as the CLI prints them.
pub fn load(lang: rg_pipeline::Lang, name: &str, text: &str) -> Result<rg_core::Game, String> {
    load_at(lang, name, text, rg_pipeline::OptLevel::O0)
}

/// Loads a game from text through the pipeline and optimises it at `opt`. On failure returns
/// the diagnostics rendered exactly as the CLI prints them.
pub fn load_at(
    lang: rg_pipeline::Lang,
    name: &str,
    text: &str,
    opt: rg_pipeline::OptLevel,
) -> Result<rg_core::Game, String> {
    let mut p = rg_pipeline::Pipeline::new(rg_pipeline::Options {
        opt,
        ..Default::default()
    });
    p.load_text(lang, name, text)
        .map(|loaded| loaded.game)
        .map_err(|e| p.render_error(&e))
}

/// The lint warnings the game at `-O0` gets when it is translated again as RG (issue 22: rgt's
/// own output must be lint-clean), rendered one per line.
pub fn lints_at_o0(lang: rg_pipeline::Lang, name: &str, text: &str) -> Vec<String> {
    let game = load(lang, name, text).unwrap_or_else(|d| panic!("{name}:\n{d}"));
    let again = rg_core::print(&game);
    let mut game = rg_core::parse(rg_core::FileId(0), &again)
        .unwrap_or_else(|e| panic!("{name}: the output does not parse: {e:?}"));
    rg_passes::setup(&mut game).unwrap_or_else(|v| panic!("{name}: {v:?}"));
    rg_validate::validate(&game, rg_validate::Selection::All)
        .into_iter()
        .map(|v| format!("{}: {}", v.code, v.message))
        .collect()
}

/// Perft counts of a checked game for every depth `0..=depth` (the interpreter's oracle).
pub fn perft(game: &rg_core::Game, depth: usize) -> Vec<u64> {
    let p = rg_interp::Program::new(game, rg_interp::CompileOptions::default())
        .unwrap_or_else(|e| panic!("the game cannot be interpreted: {e}"));
    let mut m = rg_interp::Machine::new(&p);
    let s = m.initial();
    (0..=depth)
        .map(|d| m.perft(&s, d).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The corpus's expected perft counts (`expected.csv`) of the files whose path starts with
/// `prefix`, as (path relative to the corpus, counts); `None` when the corpus is absent.
pub fn expected_counts(prefix: &str) -> Option<Vec<(String, Vec<u64>)>> {
    let dir = corpus()?;
    let csv = std::fs::read_to_string(dir.join("expected.csv")).ok()?;
    Some(
        csv.lines()
            .skip(1)
            .filter_map(|line| {
                let cols: Vec<&str> = line.splitn(3, ',').collect();
                let file = *cols.first()?;
                file.starts_with(prefix).then(|| {
                    let counts = cols
                        .get(2)
                        .map(|c| {
                            c.split_whitespace()
                                .map(|n| n.parse().expect("count"))
                                .collect()
                        })
                        .unwrap_or_default();
                    (file.to_string(), counts)
                })
            })
            .collect(),
    )
}

/// Checks the perft counts of the corpus games under `prefix` whose expected counts sum to at
/// most `max_total` (so the test stays fast): each game's text, turned into source by
/// `source(corpus path, text)`, is loaded as `lang` at `-O0` and must have the corpus's counts.
/// Returns how many games were checked; `None` when the corpus is absent.
pub fn check_corpus_counts(
    lang: rg_pipeline::Lang,
    prefix: &str,
    max_total: u64,
    source: impl Fn(&str, String) -> Option<String>,
) -> Option<usize> {
    let (dir, expected) = (corpus()?, expected_counts(prefix)?);
    let mut checked = 0;
    for (file, want) in expected {
        if want.iter().sum::<u64>() > max_total {
            continue;
        }
        let text =
            std::fs::read_to_string(dir.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Some(text) = source(&file, text) else {
            continue;
        };
        let game = load(lang, &file, &text).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(perft(&game, want.len() - 1), want, "{file}");
        checked += 1;
    }
    Some(checked)
}
