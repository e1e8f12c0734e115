//! GDL (KIF) reader and validation suites (issue 7): every invalid fixture gives the located
//! diagnostics of its code (snapshotted as rendered), every syntax fixture reads, validates and
//! prints as normalised KIF (snapshotted with its warnings), every code of the reader and the
//! validator has a fixture, printing round-trips, truncated files never panic, infix and prefix
//! read alike, and every corpus KIF file reads and validates without errors.

use front_gdl::{Code, GdlDiagnostic, Level, ParseOptions, Program};
use rg_core::FileId;
use rgt_tests::{corpus_files, fixture_files, name, render, skip_without_corpus};
use std::collections::BTreeMap;
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/gdl");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn opts() -> ParseOptions {
    ParseOptions::default()
}

/// The code a fixture is named after (`E-VAL-040_unsafe.kif` → `E-VAL-040`), if any.
fn named_code(path: &Path) -> Option<Code> {
    let n = name(path);
    let prefix = n.split('_').next()?;
    Code::ALL.iter().copied().find(|c| c.as_str() == prefix)
}

fn render_all(diags: &[GdlDiagnostic], name: &str, text: &str) -> String {
    let mut sources = rg_core::SourceMap::new();
    let file = sources.add(name, text);
    let diags: Vec<rg_pipeline::Diagnostic> = diags
        .iter()
        .flat_map(|d| rg_pipeline::Diagnostic::from_miette(d, Some(file)))
        .collect();
    rg_pipeline::render::Renderer::plain().render(&sources, &diags)
}

/// The codes of the reader and validator: those a fixture must exist for (the others belong to
/// grounding, lowering and `rgt check`, or to the ground stratification check).
fn front_codes() -> Vec<Code> {
    Code::ALL
        .iter()
        .copied()
        .filter(|c| {
            let s = c.as_str();
            (s.contains("-LEX-") || s.contains("-PARSE-") || s.contains("-VAL-"))
                && *c != Code::GroundNegationCycle
        })
        .collect()
}

#[test]
fn fixture_directories_are_big_enough() {
    assert!(fixture_files("kif/errors", "kif").len() >= 20);
    assert!(fixture_files("kif/syntax", "kif").len() >= 25);
}

#[test]
fn every_reader_and_validator_code_has_a_fixture_named_after_it() {
    let mut named: Vec<Code> = fixture_files("kif/errors", "kif")
        .iter()
        .chain(&fixture_files("kif/syntax", "kif"))
        .filter_map(|p| named_code(p))
        .collect();
    named.sort();
    let missing: Vec<&str> = front_codes()
        .into_iter()
        .filter(|c| named.binary_search(c).is_err())
        .map(Code::as_str)
        .collect();
    assert!(missing.is_empty(), "no fixture for {missing:?}");
}

/// Every invalid fixture is rejected with the code it is named after, located.
#[test]
fn diagnostics() {
    settings().bind(|| {
        insta::glob!("../fixtures", "kif/errors/*.kif", |path| {
            let text = read(path);
            let code = named_code(path).expect("errors fixtures are named after their code");
            assert_eq!(code.level(), Level::Error, "{}", path.display());
            let errors = front_gdl::load(FileId(0), &text, &opts())
                .expect_err("an invalid fixture must be rejected");
            assert!(errors.has(code), "{}: no {code}", path.display());
            for d in errors.errors() {
                assert!(
                    d.span.is_some() || d.code == Code::MissingKeyword,
                    "{}: {code} without a location",
                    path.display()
                );
            }
            insta::assert_snapshot!(render(&errors, &name(path), &text));
        });
    });
}

/// Every syntax fixture reads and validates (with the warning it is named after, or none) and
/// prints as normalised KIF.
#[test]
fn normalised() {
    settings().bind(|| {
        insta::glob!("../fixtures", "kif/syntax/*.kif", |path| {
            let text = read(path);
            // The W-VAL-041 fixture is read with `--lenient`, which makes its rules warnings.
            let mut o = opts();
            o.lenient = named_code(path) == Some(Code::UnsafeRuleLenient);
            let loaded = front_gdl::load(FileId(0), &text, &o).unwrap_or_else(|e| {
                panic!("{}:\n{}", path.display(), render(&e, &name(path), &text))
            });
            match named_code(path) {
                Some(code) => {
                    assert_eq!(code.level(), Level::Warning);
                    assert!(
                        loaded.warnings.iter().any(|w| w.code == code),
                        "{}: no {code}",
                        path.display()
                    );
                }
                None => assert!(
                    loaded.warnings.is_empty(),
                    "{}: unexpected warnings\n{}",
                    path.display(),
                    render_all(&loaded.warnings, &name(path), &text)
                ),
            }
            let printed = front_gdl::print(&loaded.program);
            let warnings = render_all(&loaded.warnings, &name(path), &text);
            insta::assert_snapshot!(format!("{printed}\n-- warnings\n{warnings}"));
        });
    });
}

/// `print` is a fixed point and reading the printed text gives the same program.
fn assert_round_trip(label: &str, program: &Program) {
    let printed = front_gdl::print(program);
    let again = front_gdl::parse(FileId(0), &printed, &opts())
        .unwrap_or_else(|e| panic!("{label}: printed text does not read: {e}\n{printed}"));
    // Unusual characters stay in the names; every other warning is normalised away.
    assert!(
        again
            .warnings
            .iter()
            .all(|w| w.code == Code::UnusualCharacters),
        "{label}: printed text has warnings: {:?}",
        again.warnings
    );
    assert!(
        again.program.structurally_eq(program),
        "{label}: printed text reads differently\n{printed}"
    );
    assert_eq!(front_gdl::print(&again.program), printed, "{label}");
}

#[test]
fn every_fixture_that_parses_round_trips() {
    let mut checked = 0;
    for path in fixture_files("kif/syntax", "kif")
        .into_iter()
        .chain(fixture_files("kif/errors", "kif"))
    {
        if let Ok(parsed) = front_gdl::parse(FileId(0), &read(&path), &opts()) {
            assert_round_trip(&path.display().to_string(), &parsed.program);
            checked += 1;
        }
    }
    assert!(checked >= 35, "only {checked} fixtures parsed");
}

#[test]
fn infix_and_prefix_descriptions_of_one_game_read_alike() {
    let infix = front_gdl::load(
        FileId(0),
        &read(&rgt_tests::fixtures("kif/syntax/infix_doors.kif")),
        &opts(),
    )
    .expect("infix reads");
    let prefix = front_gdl::load(
        FileId(0),
        &read(&rgt_tests::fixtures("kif/syntax/prefix_doors.kif")),
        &opts(),
    )
    .expect("prefix reads");
    assert!(infix.program.structurally_eq(&prefix.program));
    assert_eq!(
        front_gdl::print(&infix.program),
        front_gdl::print(&prefix.program)
    );
    // Forcing the syntax: the infix text read as prefix is a single nullary fact per name.
    let mut o = ParseOptions::default();
    o.syntax = front_gdl::Syntax::Prefix;
    let forced = front_gdl::parse(FileId(0), "role(a)\nterminal", &o).expect("reads");
    assert_eq!(front_gdl::print(&forced.program), "role\na\nterminal\n");
}

#[test]
fn case_sensitive_reading_keeps_spellings_apart() {
    let text = "(ROLE xPlayer) (role xplayer)";
    let folded = front_gdl::parse(FileId(0), text, &opts()).expect("reads");
    assert_eq!(front_gdl::print(&folded.program), "(role xPlayer)\n");
    assert_eq!(folded.warnings.len(), 1, "{:?}", folded.warnings);
    let mut o = ParseOptions::default();
    o.case_sensitive = true;
    let exact = front_gdl::parse(FileId(0), text, &o).expect("reads");
    assert_eq!(
        front_gdl::print(&exact.program),
        "(role xPlayer)\n(role xplayer)\n"
    );
    assert!(exact.warnings.is_empty());
}

/// Cutting a description at every byte offset never makes reading or validating panic, and the
/// diagnostics of every cut render.
#[test]
fn truncated_descriptions_never_panic() {
    let mut texts: Vec<(String, String)> = [
        "or_expansion.kif",
        "infix_doors.kif",
        "crlf_tabs_comments.kif",
    ]
    .iter()
    .map(|f| {
        (
            f.to_string(),
            read(&rgt_tests::fixtures("kif/syntax").join(f)),
        )
    })
    .collect();
    if let Some(files) = corpus_files("kif/rg-suite", "kif") {
        for f in files.iter().filter(|f| name(f) == "ticTacToe.kif") {
            texts.push((name(f), read(f)));
        }
    }
    for (label, text) in texts {
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let part = &text[..cut];
            if let Err(e) = front_gdl::load(FileId(0), part, &opts()) {
                assert!(e.errors().count() > 0, "{label} cut at {cut}");
                if cut % 97 == 0 {
                    let _ = render(&e, &label, part);
                }
            }
        }
    }
}

/// The warning codes of a load, counted.
fn count_codes(warnings: &[GdlDiagnostic]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for w in warnings {
        *m.entry(w.code.as_str()).or_insert(0) += 1;
    }
    m
}

/// Every corpus KIF file (library and rg-suite, the infix montyHall.kif included) reads and
/// validates without errors and round-trips; the warnings per file are snapshotted and the
/// ones known for these files (below) are asserted.
/// The corpus KIF files whose warnings the snapshot `corpus_warnings` records.
const SNAPSHOT_FILES: &[&str] = &[
    "library/2pffa.kif",
    "library/3pffa.kif",
    "library/4pttc.kif",
    "library/alexChess.kif",
    "library/amazonsTorus_10x10.kif",
    "library/asteroidsSerial.kif",
    "library/beatMania.kif",
    "library/blockerParallel.kif",
    "library/blocksWorldParallel.kif",
    "library/brawl.kif",
    "library/breakthroughSuicide.kif",
    "library/cephalopodMicro.kif",
    "library/checkers-mustjump.kif",
    "library/checkers.kif",
    "library/checkersTiny.kif",
    "library/chess_200.kif",
    "library/chineseCheckers2.kif",
    "library/chineseCheckers6.kif",
    "library/circlesolitaire.kif",
    "library/colonelBlottoVariant2.kif",
    "library/connectFour.kif",
    "library/connectFour_9x6.kif",
    "library/cubicup.kif",
    "library/doubletictactoe.kif",
    "library/duplicateStateSmall.kif",
    "library/escortLatch.kif",
    "library/firefighter.kif",
    "library/god.kif",
    "library/gomoku_swap2_15x15.kif",
    "library/gt_prisoner.kif",
    "library/gt_ultimatum.kif",
    "library/hanoi_6_disks.kif",
    "library/hitori.kif",
    "library/kitten_escapes_from_fire.kif",
    "library/knightsTourLarge.kif",
    "library/lightsOnSimultaneous.kif",
    "library/maze.kif",
    "library/mummymaze1p.kif",
    "library/nineBoardTicTacToe.kif",
    "library/onestep.kif",
    "library/pancakes.kif",
    "library/pearls.kif",
    "library/pentagoSuicide.kif",
    "library/quad_7x7.kif",
    "library/queens08ug.kif",
    "library/racer.kif",
    "library/reversiSuicide.kif",
    "library/sheepAndWolf.kif",
    "library/skirmishFinal2.kif",
    "library/slidingpieces.kif",
    "library/snake_2008.kif",
    "library/speedChess.kif",
    "library/sudokuGrade1.kif",
    "library/sudokuGrade6H.kif",
    "library/ticTacToe.kif",
    "library/ticTicToe.kif",
    "library/tictactoe_3d_6player.kif",
    "library/toetictac.kif",
    "library/ttcc4_2player.kif",
    "library/urmAdd.kif",
    "library/wargame03.kif",
    "rg-suite/breakthrough.kif",
    "rg-suite/connect4.kif",
    "rg-suite/dotsAndBoxes.kif",
    "rg-suite/gomoku_15x15.kif",
    "rg-suite/knightthrough.kif",
    "rg-suite/montyHall.kif",
    "rg-suite/reversi.kif",
    "rg-suite/ticTacToe.kif",
    "rg-suite/tron_10x10.kif",
];

#[test]
fn corpus_kif_files_read_and_validate_without_errors() {
    let (Some(library), Some(suite)) = (
        corpus_files("kif/library", "kif"),
        corpus_files("kif/rg-suite", "kif"),
    ) else {
        skip_without_corpus("corpus_kif_files_read_and_validate_without_errors");
        return;
    };
    let mut report = String::new();
    let mut by_file: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for (dir, files) in [("library", &library), ("rg-suite", &suite)] {
        for path in files.iter() {
            let label = format!("{dir}/{}", name(path));
            let text = read(path);
            let loaded = front_gdl::load(FileId(0), &text, &opts())
                .unwrap_or_else(|e| panic!("{label}:\n{}", render(&e, &label, &text)));
            assert!(!loaded.analysis.roles.is_empty(), "{label}");
            assert_round_trip(&label, &loaded.program);
            let codes = count_codes(&loaded.warnings);
            let shown: Vec<String> = codes.iter().map(|(c, n)| format!("{c}×{n}")).collect();
            report.push_str(&format!("{label}: {}\n", shown.join(" ")));
            by_file.insert(label, codes);
        }
    }
    // Every file must read and validate; the snapshot pins the warnings of the files the
    // corpus had when it was written (files added to the corpus since are checked above).
    for label in SNAPSHOT_FILES {
        assert!(
            by_file.contains_key(*label),
            "{label} is missing from the corpus"
        );
    }
    let report: String = report
        .lines()
        .filter(|l| {
            SNAPSHOT_FILES
                .iter()
                .any(|f| l.starts_with(&format!("{f}:")))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let has = |file: &str, code: &str| by_file.get(file).is_some_and(|c| c.contains_key(code));
    // `queens*` have a relation-level negative cycle through `goal` (`(<= (goal robot 100)
    // (not (goal robot 0)))`), stratified only once ground.
    assert!(has("library/queens08ug.kif", "W-VAL-030"));
    // wargame03 spells `VerticalTerrorist` two ways.
    assert!(has("library/wargame03.kif", "W-LEX-011"));
    // `+` `<` `>` in names.
    assert!(has("library/asteroidsSerial.kif", "W-LEX-010"));
    // montyHall (infix) gives `random` a goal.
    assert!(has("rg-suite/montyHall.kif", "W-VAL-023"));
    settings().bind(|| insta::assert_snapshot!("corpus_warnings", report));
}
