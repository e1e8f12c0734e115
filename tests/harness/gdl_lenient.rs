//! `--lenient` (issue 24, item 5): the team's KIF games in `tests/fixtures/kif/lenient` with
//! the shapes of GGP-Base's test cases 3b (unsafe `distinct` in a helper relation), 3e (head
//! variables only the query binds) and 3f (an unsafe negation), a helper combining 3b and 3f,
//! and the order-dependence of GGP-Base's left-to-right reading. Each is rejected by default
//! (E-VAL-040); with `--lenient` each unsafe rule is a warning (W-VAL-041) and both the
//! reasoner and the RG translation give the answers of GGP-Base's prover, worked out by hand in
//! each file's header.

use gdl_reasoner::{Evaluated, GroundTerm, Reasoner, ReasonerError};
use rgt_tests::{fixtures, name};
use std::collections::{BTreeSet, HashSet, VecDeque};

/// A lenient game and GGP-Base's answers.
struct Case {
    file: &'static str,
    /// Perft by plies until it is 0.
    perft: &'static [u64],
    /// The goal vectors of the reachable terminal states.
    goals: &'static [&'static [&'static str]],
    /// W-VAL-041 warnings (one per unsafe variable).
    warnings: usize,
}

const CASES: &[Case] = &[
    Case {
        file: "distinct_helper.kif",
        perft: &[1, 3, 12, 0],
        goals: &[&["0"], &["100"]],
        warnings: 10,
    },
    Case {
        file: "head_role.kif",
        perft: &[1, 1, 1, 1, 1, 0],
        goals: &[&["100", "0"]],
        warnings: 3,
    },
    Case {
        file: "helper_negation.kif",
        perft: &[1, 2, 2, 0],
        goals: &[&["100"]],
        warnings: 1,
    },
    Case {
        file: "negation_exists.kif",
        perft: &[1, 2, 2, 0],
        goals: &[&["0"], &["100"]],
        warnings: 1,
    },
    Case {
        file: "negation_order.kif",
        perft: &[1, 1, 4, 0],
        goals: &[&["0"], &["100"]],
        warnings: 2,
    },
];

fn text(file: &str) -> String {
    let path = fixtures("kif/lenient").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lenient() -> front_gdl::ParseOptions {
    let mut o = front_gdl::ParseOptions::default();
    o.lenient = true;
    o
}

fn reasoner(file: &str) -> Reasoner {
    let text = text(file);
    let loaded = front_gdl::load(rg_core::FileId(0), &text, &lenient())
        .unwrap_or_else(|e| panic!("{}", rgt_tests::render(&e, file, &text)));
    Reasoner::with_options(&loaded.program, gdl_reasoner::DEFAULT_LIMIT, true)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The goal vectors of every reachable terminal state.
fn terminal_goals(r: &mut Reasoner, file: &str) -> BTreeSet<Vec<String>> {
    let show = |r: &Reasoner, ev: &Evaluated| -> Vec<String> {
        r.goals(ev)
            .iter()
            .map(|g| {
                let mut v: Vec<String> = g.iter().map(|&t| r.show(t)).collect();
                v.sort();
                v.join("|")
            })
            .collect()
    };
    let start = r.initial().clone();
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut goals = BTreeSet::new();
    while let Some(s) = queue.pop_front() {
        let mut ev = r.evaluate(&s).unwrap_or_else(|e| panic!("{file}: {e}"));
        if ev.is_terminal() {
            goals.insert(show(r, &ev));
            continue;
        }
        let legal: Vec<Vec<GroundTerm>> = ev.legal().to_vec();
        let mut joint = vec![Vec::new()];
        for moves in &legal {
            joint = joint
                .iter()
                .flat_map(|j: &Vec<GroundTerm>| {
                    moves.iter().map(move |&m| {
                        let mut j = j.clone();
                        j.push(m);
                        j
                    })
                })
                .collect();
        }
        for j in joint {
            let t = r
                .next(&mut ev, &j)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            if seen.insert(t.state.clone()) {
                assert!(seen.len() < 1000, "{file}: too many states");
                queue.push_back(t.state);
            }
        }
    }
    goals
}

fn load_rg(file: &str, opt: rg_pipeline::OptLevel, lenient: bool) -> Result<rg_core::Game, String> {
    let mut p = rg_pipeline::Pipeline::new(rg_pipeline::Options {
        opt,
        lenient,
        ..Default::default()
    });
    p.load_text(rg_pipeline::Lang::Kif, file, text(file))
        .map(|l| l.game)
        .map_err(|e| p.render_error(&e))
}

#[test]
fn every_lenient_fixture_has_its_answers() {
    let files: BTreeSet<String> = rgt_tests::fixture_files("kif/lenient", "kif")
        .iter()
        .map(|p| name(p))
        .collect();
    let cases: BTreeSet<String> = CASES.iter().map(|c| c.file.to_owned()).collect();
    assert_eq!(files, cases);
}

/// Strict stays the default: the translation and validation reject every lenient game with
/// E-VAL-040, and the reasoner refuses its unsafe rules.
#[test]
fn unsafe_rules_are_errors_without_lenient() {
    for c in CASES {
        let rendered = match load_rg(c.file, rg_pipeline::OptLevel::O0, false) {
            Ok(_) => panic!("{} must be rejected without --lenient", c.file),
            Err(d) => d,
        };
        assert!(
            rendered.contains("gdl::E-VAL-040"),
            "{}:\n{rendered}",
            c.file
        );
        assert!(!rendered.contains("W-VAL-041"), "{}:\n{rendered}", c.file);
        let text = text(c.file);
        let parsed = front_gdl::parse(rg_core::FileId(0), &text, &Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(
                Reasoner::new(&parsed.program),
                Err(ReasonerError::Unsafe { .. })
            ),
            "{}",
            c.file
        );
    }
}

/// With `--lenient` each unsafe variable is a warning with its span, and nothing is an error.
#[test]
fn lenient_reports_unsafe_rules_as_warnings() {
    for c in CASES {
        let text = text(c.file);
        let loaded = front_gdl::load(rg_core::FileId(0), &text, &lenient())
            .unwrap_or_else(|e| panic!("{}", rgt_tests::render(&e, c.file, &text)));
        let unsafe_warnings: Vec<_> = loaded
            .warnings
            .iter()
            .filter(|w| w.code == front_gdl::Code::UnsafeRuleLenient)
            .collect();
        assert_eq!(unsafe_warnings.len(), c.warnings, "{}", c.file);
        for w in unsafe_warnings {
            let span = w.span.expect("the warning has a span");
            assert!(
                text[span.start as usize..span.end as usize].starts_with('?'),
                "{}: the warning points at the variable",
                c.file
            );
        }
    }
}

/// The reasoner with `--lenient` gives GGP-Base's perft and goals.
#[test]
fn the_reasoner_reads_unsafe_rules_as_ggp_base() {
    for c in CASES {
        let mut r = reasoner(c.file);
        let perft: Vec<u64> = (0..c.perft.len())
            .map(|d| r.perft(d).unwrap_or_else(|e| panic!("{}: {e}", c.file)))
            .collect();
        assert_eq!(perft, c.perft, "{}: reasoner perft", c.file);
        let want: BTreeSet<Vec<String>> = c
            .goals
            .iter()
            .map(|g| g.iter().map(|s| (*s).to_owned()).collect())
            .collect();
        assert_eq!(terminal_goals(&mut r, c.file), want, "{}: goals", c.file);
    }
}

/// The RG translation with `--lenient` has GGP-Base's perft at -O0 and -O2 (its goals are
/// compared with the reasoner's by `rgt verify --lenient`, see the CLI tests).
#[test]
fn lenient_translations_have_ggp_base_perft() {
    for c in CASES {
        for opt in [rg_pipeline::OptLevel::O0, rg_pipeline::OptLevel::O2] {
            let game = load_rg(c.file, opt, true).unwrap_or_else(|d| panic!("{}:\n{d}", c.file));
            let perft = rgt_tests::perft(&game, c.perft.len() - 1);
            assert_eq!(perft, c.perft, "{} at {opt:?}", c.file);
        }
    }
}

/// What `--lenient` cannot give GGP-Base's meaning stays an error: a head variable no query
/// binds (GGP-Base would answer with a variable), and a helper whose unsafe reading depends on
/// whether its caller bound the argument.
#[test]
fn lenient_still_rejects_rules_without_a_ggp_base_meaning() {
    let base = "(role p) (init s) (<= (legal p go) (true s)) (<= terminal (true t)) \
                (<= (goal p 100) (true t)) (index 1) (index 2) ";
    for rules in [
        // `(next ?x)` is asked with ?x open.
        "(<= (next (cell ?x)) (true s))",
        // `legal` is asked with its role unbound by a body, so `(legal ?r ?r)` would answer
        // with a variable there.
        "(<= (legal ?r ?r) (true s)) (<= (next t) (legal ?q ?m))",
        // `free` is asked with ?x bound (by `index`) and unbound (`(free ?y)` first).
        "(<= (free ?x) (not (taken ?x ?z)) (index ?x)) (<= (taken 1 a) (true s)) \
         (<= (next t) (index ?y) (free ?y)) (<= (next t) (free ?y) (index ?y))",
    ] {
        let text = format!("{base}{rules}");
        match front_gdl::load(rg_core::FileId(0), &text, &lenient()) {
            Ok(_) => panic!("accepted: {rules}"),
            Err(e) => assert!(
                e.errors().any(|d| d.code == front_gdl::Code::UnsafeRule),
                "{rules}: {:?}",
                e.diagnostics
            ),
        }
    }
}

/// GGP-Base's `distinct` with unbound variables compares terms syntactically: `(f ?x ?z)` and
/// `(f ?y ?z)` are identical only once ?x and ?y are bound to equal values, so before the
/// literals binding them the `distinct` holds, after them it excludes ?x = ?y.
#[test]
fn distinct_with_unbound_variables_depends_on_its_place() {
    let text = "(role p) (index 1) (index 2) (init s)
        (<= (legal p (early ?x ?y)) (distinct (f ?x ?z) (f ?y ?z)) (index ?x) (index ?y))
        (<= (legal p (late ?x ?y)) (index ?x) (index ?y) (distinct (f ?x ?z) (f ?y ?z)))
        (<= (next t) (true s)) (<= terminal (true t)) (<= (goal p 100) (true t))";
    let loaded = front_gdl::load(rg_core::FileId(0), text, &lenient())
        .unwrap_or_else(|e| panic!("{}", rgt_tests::render(&e, "inline", text)));
    let mut r = Reasoner::with_options(&loaded.program, gdl_reasoner::DEFAULT_LIMIT, true)
        .unwrap_or_else(|e| panic!("{e}"));
    let ev = r.evaluate(&r.initial().clone()).expect("evaluates");
    let mut legal: Vec<String> = ev.legal()[0].iter().map(|&m| r.show(m)).collect();
    legal.sort();
    assert_eq!(
        legal,
        [
            "(early 1 1)",
            "(early 1 2)",
            "(early 2 1)",
            "(early 2 2)",
            "(late 1 2)",
            "(late 2 1)"
        ]
    );
    let mut p = rg_pipeline::Pipeline::new(rg_pipeline::Options {
        opt: rg_pipeline::OptLevel::O0,
        lenient: true,
        ..Default::default()
    });
    let game = p
        .load_text(rg_pipeline::Lang::Kif, "inline.kif", text)
        .map(|l| l.game)
        .map_err(|e| p.render_error(&e))
        .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(rgt_tests::perft(&game, 2), [1, 6, 0]);
}
