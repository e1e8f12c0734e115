//! LineGames suites (issue: LineGames front-end), all numbers from the published data of the
//! LineGames reference: every one of the 31 library games in `.lg` translates with its published
//! perft counts at -O0 and -O2, its board facts (points, links, directions, men) and its first
//! moves, and is at most 40 lines; the rule-variant vectors (each rule combination with its ending
//! vector) and the worked example (two lines of five points crossing at `mid`) have their perft
//! and terminal counts (valid fixtures, counts in the header);
//! the generated HRG is canonical, equal to the spec's text for the worked example, and
//! snapshotted for three examples; invalid fixtures give located diagnostics with their codes;
//! truncated examples never panic.

use front_linegames::direction::Dir;
use front_linegames::setup::Man;
use rg_interp::{CheckOptions, CompileOptions, Machine, Program, State};
use rg_pipeline::Lang;
use rgt_tests::{fixture_files, fixtures, load, name, perft, root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/lg");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn example(file: &str) -> PathBuf {
    root().join("examples/linegames").join(file)
}

fn optimised(mut g: rg_core::Game) -> rg_core::Game {
    let p = rg_pipeline::OptLevel::O2.pipeline();
    rg_passes::run(&mut g, &p, &rg_passes::Options::default(), &mut |_, _| {
        Ok(())
    })
    .expect("optimises");
    g
}

fn checked(path: &Path) -> front_linegames::LineGame {
    front_linegames::load(rg_core::FileId(0), &read(path))
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
        .0
}

/// The reference's published perft 1..3 and board facts (points, links, directions, white men,
/// black men) of the 31 library games.
const EXAMPLES: [(&str, [u64; 3], [usize; 5]); 31] = [
    ("ahtarahGuti_lud.lg", [4, 8, 33], [37, 76, 8, 18, 18]),
    ("aiyawatstani_lud.lg", [13, 233, 3884], [41, 104, 8, 11, 11]),
    ("alquerque.lg", [4, 5, 6], [25, 56, 8, 12, 12]),
    ("alquerque_lud.lg", [4, 8, 33], [25, 56, 8, 12, 12]),
    ("baraGuti_lud.lg", [4, 8, 33], [25, 56, 8, 12, 12]),
    ("baraGutiBihar_lud.lg", [4, 8, 32], [25, 48, 10, 12, 12]),
    ("bisGutiya_lud.lg", [4, 10, 45], [41, 104, 8, 20, 20]),
    (
        "chalisGutiaTitagarh_lud.lg",
        [18, 324, 7596],
        [81, 208, 8, 24, 24],
    ),
    ("damHariman_lud.lg", [9, 69, 783], [37, 76, 8, 16, 16]),
    ("damSingapore_lud.lg", [9, 69, 783], [37, 76, 8, 16, 16]),
    ("dashGuti.lg", [4, 4, 6], [21, 32, 8, 10, 10]),
    ("dashGuti_lud.lg", [4, 5, 17], [21, 36, 8, 10, 10]),
    ("golEkuish_lud.lg", [3, 7, 25], [43, 84, 8, 21, 21]),
    ("golSkuish.lg", [3, 5, 7], [43, 84, 8, 21, 21]),
    ("hewakamKeliya_lud.lg", [9, 69, 783], [37, 76, 8, 16, 16]),
    ("kauaDorki_lud.lg", [4, 4, 16], [17, 24, 8, 8, 8]),
    ("kotuEllima_lud.lg", [4, 8, 33], [49, 96, 8, 24, 24]),
    ("lamPusri_lud.lg", [4, 8, 33], [37, 76, 8, 18, 18]),
    ("lauKataKati.lg", [3, 3, 3], [19, 30, 8, 9, 9]),
    ("lauKataKati_lud.lg", [3, 3, 9], [19, 30, 8, 9, 9]),
    (
        "meurimuengRimuengPeuetPloh_lud.lg",
        [4, 9, 42],
        [81, 208, 8, 40, 40],
    ),
    ("mogulPutthan_lud.lg", [9, 69, 783], [37, 76, 8, 16, 16]),
    ("peralikatuma_lud.lg", [6, 33, 310], [49, 96, 8, 23, 23]),
    ("pretwa.lg", [3, 5, 7], [19, 36, 8, 9, 9]),
    ("pretwa_lud.lg", [3, 7, 25], [19, 36, 8, 9, 9]),
    ("rattiChittiBakri_lud.lg", [4, 9, 42], [81, 208, 8, 40, 40]),
    ("satoel_lud.lg", [7, 42, 406], [93, 228, 8, 40, 40]),
    (
        "smasandyutakankarikrida_lud.lg",
        [3, 9, 69],
        [49, 96, 8, 6, 6],
    ),
    ("tavelspel_lud.lg", [13, 169, 3159], [169, 312, 4, 26, 26]),
    ("terhuchuSmall_lud.lg", [9, 69, 783], [25, 56, 8, 10, 10]),
    ("tuknanavuhpi_lud.lg", [4, 10, 45], [41, 104, 8, 20, 20]),
];

#[test]
fn the_examples_are_exactly_the_games_of_the_spec() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("examples/linegames"))
        .expect("examples/linegames")
        .map(|e| name(&e.expect("entry").path()))
        .collect();
    files.sort();
    let mut want: Vec<String> = EXAMPLES.iter().map(|(f, _, _)| (*f).to_owned()).collect();
    want.sort();
    assert_eq!(files, want);
}

#[test]
fn every_example_is_at_most_40_lines() {
    for (file, _, _) in EXAMPLES {
        let lines = read(&example(file)).lines().count();
        assert!(lines <= 40, "{file} has {lines} lines");
    }
}

#[test]
fn examples_have_the_perft_counts_of_the_spec_at_o0_and_o2() {
    for (file, counts, _) in EXAMPLES {
        let want = vec![1, counts[0], counts[1], counts[2]];
        let game = load(Lang::Lg, file, &read(&example(file))).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(perft(&game, 3), want, "{file} at -O0");
        assert_eq!(perft(&optimised(game), 3), want, "{file} at -O2");
    }
}

/// The deeper published counts (perft 4, 5, 6) of the examples whose trees are small enough for
/// the fast test tier.
const DEEPER: [(&str, [u64; 3]); 10] = [
    ("alquerque.lg", [12, 29, 109]),
    ("dashGuti.lg", [13, 43, 100]),
    ("dashGuti_lud.lg", [70, 302, 1534]),
    ("golEkuish_lud.lg", [129, 677, 4243]),
    ("golSkuish.lg", [18, 56, 146]),
    ("kauaDorki_lud.lg", [62, 264, 1210]),
    ("lauKataKati.lg", [7, 27, 47]),
    ("lauKataKati_lud.lg", [39, 167, 750]),
    ("pretwa.lg", [18, 56, 146]),
    ("pretwa_lud.lg", [137, 717, 4550]),
];

#[test]
fn small_examples_have_the_deeper_perft_counts_of_the_spec() {
    for (file, deeper) in DEEPER {
        let (_, counts, _) = EXAMPLES
            .iter()
            .find(|(f, _, _)| *f == file)
            .expect("an example");
        let mut want = vec![1];
        want.extend(counts);
        want.extend(deeper);
        let game = load(Lang::Lg, file, &read(&example(file))).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(perft(&game, 6), want, "{file} at -O0");
        assert_eq!(perft(&optimised(game), 6), want, "{file} at -O2");
    }
}

#[test]
fn examples_have_the_board_facts_of_the_spec() {
    for (file, _, facts) in EXAMPLES {
        let g = checked(&example(file));
        let got = [
            g.board.len(),
            g.board.link_count(),
            g.board.directions().len(),
            g.men(Man::White),
            g.men(Man::Black),
        ];
        assert_eq!(
            got, facts,
            "{file}: points, links, directions, white, black"
        );
    }
}

fn neighbours(g: &front_linegames::LineGame, point: &str) -> Vec<(Dir, String)> {
    let p = g.board.point(point).expect("a point");
    Dir::ALL
        .into_iter()
        .filter_map(|d| Some((d, g.board.name(g.board.neighbour(p, d)?).to_owned())))
        .collect()
}

#[test]
fn neighbour_lists_and_direction_tables() {
    use Dir::*;
    // On `alquerque 5 by 5`, cy2x2 has eight neighbours and cy2x1 only the orthogonal
    // ones; a north triangle of two rows hangs from cy0x2.
    let g = checked(&example("ahtarahGuti_lud.lg"));
    assert_eq!(neighbours(&g, "cy2x2").len(), 8);
    let dirs: Vec<Dir> = neighbours(&g, "cy2x1")
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    assert_eq!(dirs, [North, East, South, West]);
    let top = neighbours(&g, "cy0x2");
    for (d, p) in [
        (Northeast, "tnorthvy1x0"),
        (North, "tnorthvy1x1"),
        (Northwest, "tnorthvy1x2"),
    ] {
        assert!(top.contains(&(d, p.to_owned())), "{top:?}");
    }
    // A circle's table is its spokes in spoke order, then the ring directions; a board
    // without a base shape uses the directions of its links in canonical order.
    let pretwa = checked(&example("pretwa.lg"));
    let want = [
        North,
        Northeast,
        East,
        South,
        Southwest,
        West,
        Clockwise,
        Anticlockwise,
    ];
    assert_eq!(pretwa.board.directions(), want);
    assert_eq!(
        neighbours(&pretwa, "cy1x0"),
        [
            (North, "cy2x0".to_owned()),
            (South, "cy0x0".to_owned()),
            (Clockwise, "cy1x1".to_owned()),
            (Anticlockwise, "cy1x5".to_owned())
        ]
    );
    let plus = checked(&fixtures("lg/valid/worked_example.lg"));
    assert_eq!(plus.board.directions(), [North, East, South, West]);
    let tavelspel = checked(&example("tavelspel_lud.lg"));
    assert_eq!(tavelspel.board.directions(), [North, East, South, West]);
}

/// The moves of the state after `path`, as tag texts, sorted.
fn moves_after(game: &rg_core::Game, path: &str) -> Vec<String> {
    let p = Program::new(game, CompileOptions::default()).expect("compiles");
    let mut m = Machine::new(&p);
    let s = m.follow(path).expect("a legal path");
    let moves = m.moves(&s).expect("moves");
    let mut out: Vec<String> = (0..moves.len())
        .map(|i| m.tag_text(moves.tags(i)))
        .collect();
    out.sort();
    out
}

#[test]
fn first_moves_and_labels() {
    // The first moves of the reference's examples and of the worked example; `//` is the
    // keeper's opening move.
    let game = |path: &Path| load(Lang::Lg, &name(path), &read(path)).expect("valid");
    let alquerque = game(&example("alquerque.lg"));
    assert_eq!(
        moves_after(&alquerque, "//"),
        [
            "cy2x3 NORMAL S__3",
            "cy3x1 NORMAL S__4",
            "cy3x2 NORMAL S__0",
            "cy3x3 NORMAL S__5"
        ]
    );
    let pretwa = game(&example("pretwa_lud.lg"));
    assert_eq!(
        moves_after(&pretwa, "//"),
        [
            "cy1x0 NORMAL S__3",
            "cy1x1 NORMAL S__4",
            "cy1x2 NORMAL S__5"
        ]
    );
    let plus = game(&fixtures("lg/valid/worked_example.lg"));
    assert_eq!(
        moves_after(&plus, "//"),
        [
            "e2 NORMAL S__3",
            "s2 CAPTURE S__0",
            "s2 CAPTURE S__0 CONTINUE",
            "w2 CAPTURE S__1",
            "w2 CAPTURE S__1 CONTINUE"
        ]
    );
    // The lifted man, now at `mid`, must jump `n1` next; no keeper move in between.
    assert_eq!(moves_after(&plus, "//s2 CAPTURE S__0 CONTINUE/"), ["S__0"]);
}

/// `# key: …` in a fixture's header.
fn header<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let prefix = format!("# {key}:");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map(str::trim)
}

type Terminals = BTreeMap<usize, BTreeMap<char, u64>>;

/// `5: 59 W, 328 B, 290 D; 6: 28 W` as ply → result → count.
fn parse_terminals(text: &str) -> Terminals {
    let mut out = Terminals::new();
    for group in text.split(';') {
        let (ply, results) = group.split_once(':').expect("`ply: counts`");
        let entry = out.entry(ply.trim().parse().expect("a ply")).or_default();
        for r in results.split(',') {
            let (n, kind) = r.trim().split_once(' ').expect("`count W|B|D`");
            let kind = kind.chars().next().expect("W, B or D");
            *entry.entry(kind).or_default() += n.parse::<u64>().expect("a count");
        }
    }
    out
}

/// The terminal states within `plies` moves, counted per move sequence (as the reference counts
/// its ending vectors:
/// keeper moves are free; a state at `end` is counted with its ply and result).
fn terminals(game: &rg_core::Game, plies: usize) -> Terminals {
    fn walk(m: &mut Machine<'_>, s: &State, ply: usize, plies: usize, out: &mut Terminals) {
        if m.is_final(s) {
            let goals = m.program().goal_entries(&s.data);
            let score = |side: &str| {
                goals
                    .iter()
                    .find(|(k, _)| k == side)
                    .map(|(_, v)| v.as_str())
            };
            let result = match (score("white"), score("black")) {
                (Some("100"), Some("0")) => 'W',
                (Some("0"), Some("100")) => 'B',
                (Some("50"), Some("50")) => 'D',
                other => panic!("unexpected final goals {other:?}"),
            };
            *out.entry(ply).or_default().entry(result).or_default() += 1;
            return;
        }
        let keeper = m.is_keeper(&s.data);
        if !keeper && ply == plies {
            return;
        }
        let moves = m.moves(s).expect("moves");
        let next = if keeper { ply } else { ply + 1 };
        for i in 0..moves.len() {
            walk(m, &moves.state(i), next, plies, out);
        }
    }
    let p = Program::new(game, CompileOptions::default()).expect("compiles");
    let mut m = Machine::new(&p);
    let mut out = Terminals::new();
    let s = m.initial();
    walk(&mut m, &s, 0, plies, &mut out);
    out
}

#[test]
fn valid_fixtures_have_the_perft_and_terminal_counts_of_the_spec() {
    let files = fixture_files("lg/valid", "lg");
    assert!(files.len() >= 14);
    for path in files {
        let text = read(&path);
        let want: Vec<u64> = header(&text, "perft")
            .expect("a `# perft:` header")
            .split_whitespace()
            .map(|n| n.parse().expect("a count"))
            .collect();
        let depth = want.len() - 1;
        let game = load(Lang::Lg, &name(&path), &text).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(perft(&game, depth), want, "{} at -O0", path.display());
        let want_terminals = parse_terminals(header(&text, "terminals").expect("terminals"));
        assert_eq!(
            terminals(&game, depth),
            want_terminals,
            "{}: terminal states",
            path.display()
        );
        let opt = optimised(game);
        assert_eq!(perft(&opt, depth), want, "{} at -O2", path.display());
        assert_eq!(
            terminals(&opt, depth),
            want_terminals,
            "{} at -O2",
            path.display()
        );
    }
}

#[test]
fn lowered_games_are_proper() {
    // Bounded proper-game checks, move unambiguity (moves with the same tags lead to the same
    // state) included: that is what `CONTINUE` is for in split captures, where ending the turn
    // and going on with a further jump would otherwise carry the same tags.
    let mut files: Vec<PathBuf> = fixture_files("lg/valid", "lg");
    files.extend(
        [
            "alquerque.lg",
            "pretwa_lud.lg",
            "lauKataKati_lud.lg",
            "dashGuti_lud.lg",
        ]
        .map(example),
    );
    for path in files {
        let game = load(Lang::Lg, &name(&path), &read(&path)).expect("valid");
        let p = Program::new(&game, CompileOptions::default()).expect("compiles");
        let mut m = Machine::new(&p);
        let s = m.initial();
        let found = m
            .check(
                &s,
                &CheckOptions {
                    depth: 8,
                    plays: 10,
                    ..CheckOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(found.is_empty(), "{}: {found:?}", path.display());
    }
}

#[test]
fn the_worked_example_lowers_to_the_hrg_of_the_spec() {
    // tests/fixtures/lg/worked_example.hrg is the reference's worked example lowered by hand; the emitted HRG is its
    // canonical layout (the layout `rgt fmt` gives it), byte for byte.
    let spec = read(&fixtures("lg/worked_example.hrg"));
    let canonical = front_hrg::format(rg_core::FileId(0), &spec).expect("formats");
    let ours = front_linegames::hrg_text(&checked(&fixtures("lg/valid/worked_example.lg")));
    assert_eq!(ours, canonical);
}

#[test]
fn generated_hrg_is_canonical_deterministic_and_lowers_like_the_text() {
    for (file, _, _) in EXAMPLES {
        let text = read(&example(file));
        let hrg = front_linegames::hrg_text(&checked(&example(file)));
        let again = front_linegames::hrg_text(&checked(&example(file)));
        assert_eq!(hrg, again, "{file}: not deterministic");
        let formatted = front_hrg::format(rg_core::FileId(0), &hrg).expect("valid HRG");
        assert_eq!(formatted, hrg, "{file}: not in canonical layout");
        // Lowering the printed text gives the same RG as lowering the tree directly.
        let from_text = load(Lang::Hrg, "generated.hrg", &hrg).expect("the HRG lowers");
        let direct = load(Lang::Lg, file, &text).expect("valid");
        assert_eq!(
            rg_core::print(&from_text),
            rg_core::print(&direct),
            "{file}"
        );
    }
}

#[test]
fn generated_hrg_snapshots() {
    settings().bind(|| {
        for file in ["alquerque.lg", "pretwa_lud.lg", "kauaDorki_lud.lg"] {
            let hrg = front_linegames::hrg_text(&checked(&example(file)));
            insta::assert_snapshot!(format!("hrg@{file}"), hrg);
        }
    });
}

#[test]
fn invalid_fixtures_are_reported_with_spans_and_codes() {
    let mut report = String::new();
    let files = fixture_files("lg/invalid", "lg");
    assert!(files.len() >= 20);
    for path in files {
        let text = read(&path);
        let diags = match load(Lang::Lg, &name(&path), &text) {
            Ok(_) => panic!("{} should be rejected", path.display()),
            Err(d) => d,
        };
        assert!(diags.contains(&format!("[{}:", name(&path))), "{diags}");
        for code in header(&text, "expect")
            .expect("an `# expect:` header")
            .split_whitespace()
        {
            assert!(
                diags.contains(&format!("lg::{code}")),
                "{}: no lg::{code} in\n{diags}",
                path.display()
            );
        }
        report.push_str(&format!("== {}\n{diags}", name(&path)));
    }
    settings().bind(|| insta::assert_snapshot!("invalid_diagnostics", report));
}

#[test]
fn warnings_for_a_side_without_men_and_a_split_board() {
    let text = "game \"Warnings\"\npoints a b c d\nline east a b\nline east c d\nwhite a\n\
                capture optional single\nlimit turns 10\n";
    let (_, warnings) = front_linegames::load(rg_core::FileId(0), text).expect("valid");
    let codes: Vec<String> = warnings
        .iter()
        .map(|w| miette::Diagnostic::code(w).expect("a code").to_string())
        .collect();
    assert_eq!(
        codes,
        ["lg::warning::disconnected", "lg::warning::no_men"],
        "{warnings:?}"
    );
    let text = "game \"Isolated\"\nboard point\npoints a b c\nline east a cy0x0 b\nwhite a\n\
                black b\ncapture optional single\nlimit turns 10\n";
    let (_, warnings) = front_linegames::load(rg_core::FileId(0), text).expect("valid");
    assert!(
        matches!(&warnings[..], [front_linegames::LgWarning::IsolatedPoint { name, .. }] if name == "c"),
        "{warnings:?}"
    );
}

#[test]
fn formatting_changes_only_whitespace_and_is_a_fixed_point() {
    let mut files: Vec<PathBuf> = EXAMPLES.iter().map(|(f, _, _)| example(f)).collect();
    files.extend(fixture_files("lg/valid", "lg"));
    files.extend(fixture_files("lg/invalid", "lg"));
    let mut formatted = 0;
    for path in files {
        let text = read(&path);
        let Ok(once) = front_linegames::format(rg_core::FileId(0), &text) else {
            continue;
        };
        formatted += 1;
        let squeeze = |t: &str| t.split_whitespace().collect::<String>();
        assert_eq!(squeeze(&once), squeeze(&text), "{}", path.display());
        let twice = front_linegames::format(rg_core::FileId(0), &once).expect("formats again");
        assert_eq!(twice, once, "{} is not a fixed point", path.display());
    }
    assert!(formatted >= 60, "only {formatted} files formatted");
}

#[test]
fn truncated_examples_never_panic() {
    for file in ["dashGuti_lud.lg", "pretwa.lg", "aiyawatstani_lud.lg"] {
        let text = read(&example(file));
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let _ = load(Lang::Lg, "cut.lg", &text[..cut]);
            let _ = front_linegames::format(rg_core::FileId(0), &text[..cut]);
        }
    }
}
