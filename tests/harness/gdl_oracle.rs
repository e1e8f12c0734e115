//! GDL oracle suites (issue: GDL front-end): the team's own KIF games re-creating every behaviour
//! of the GGP-Base test cases (its `games/test/` games, facts checked with GGP-Base's prover) and
//! of small games that isolate defects of the reference GDL translation, plus GDL-II games, with
//! their facts — roles, initial state, legal moves, terminal states, goals, percepts,
//! reachable-state counts and perft — checked with the independent reasoner; the invalid games are
//! rejected with snapshotted diagnostics.

use gdl_reasoner::{Evaluated, GroundTerm, Reasoner, ReasonerError};
use rgt_tests::{fixtures, name};
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The diagnostic codes of a description's findings and the reasoner, or the rendered errors.
fn reasoner_of(file: &str) -> (Reasoner, Vec<String>) {
    let path = fixtures("kif/games").join(file);
    let text = read(&path);
    let loaded = front_gdl::load(
        rg_core::FileId(0),
        &text,
        &front_gdl::ParseOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{file} should be valid:\n{}", render(&e, file, &text)));
    let codes = loaded
        .warnings
        .iter()
        .map(|w| w.code.as_str().to_owned())
        .collect();
    let r = Reasoner::new(&loaded.program)
        .unwrap_or_else(|e| panic!("{file}: the reasoner rejects it: {e}"));
    (r, codes)
}

fn render(d: &dyn miette::Diagnostic, file: &str, text: &str) -> String {
    rgt_tests::render(d, file, text)
}

/// Sorted display strings.
fn shown(r: &Reasoner, terms: &[GroundTerm]) -> Vec<String> {
    let mut v: Vec<String> = terms.iter().map(|&t| r.show(t)).collect();
    v.sort();
    v
}

fn sorted(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

/// The goal value of each role except `random` (the one value, or all of them joined by `|`
/// when a role has none or several).
fn goal_vector(r: &Reasoner, ev: &Evaluated) -> Vec<String> {
    r.goals(ev)
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != r.random_role())
        .map(|(_, g)| shown(r, g).join("|"))
        .collect()
}

/// Plays joint moves given as display strings (one per role), checking each is legal; returns
/// the evaluated state reached and the percepts of the last transition.
fn play(r: &mut Reasoner, file: &str, moves: &[&[&str]]) -> (Evaluated, Vec<Vec<String>>) {
    let mut ev = r
        .evaluate(&r.initial().clone())
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut percepts = vec![Vec::new(); r.roles().len()];
    for (step, joint) in moves.iter().enumerate() {
        assert!(!ev.is_terminal(), "{file}: terminal before step {step}");
        let actions: Vec<GroundTerm> = joint
            .iter()
            .zip(ev.legal())
            .map(|(want, legal)| {
                *legal
                    .iter()
                    .find(|&&a| r.show(a) == *want)
                    .unwrap_or_else(|| panic!("{file}: `{want}` is not legal at step {step}"))
            })
            .collect();
        assert_eq!(
            actions.len(),
            r.roles().len(),
            "{file}: one action per role"
        );
        let t = r
            .next(&mut ev, &actions)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        percepts = t.percepts.iter().map(|p| shown(r, p)).collect();
        ev = r
            .evaluate(&t.state)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    (ev, percepts)
}

/// Every reachable state: (number of states, number of terminal states, goal vectors of the
/// terminal states).
fn explore(r: &mut Reasoner, file: &str, limit: usize) -> (usize, usize, BTreeSet<Vec<String>>) {
    let start = r.initial().clone();
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let (mut terminal, mut goals) = (0, BTreeSet::new());
    while let Some(s) = queue.pop_front() {
        let mut ev = r.evaluate(&s).unwrap_or_else(|e| panic!("{file}: {e}"));
        if ev.is_terminal() {
            terminal += 1;
            goals.insert(goal_vector(r, &ev));
            continue;
        }
        let legal = ev.legal().to_vec();
        for joint in joint_moves(&legal) {
            let t = r
                .next(&mut ev, &joint)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            if seen.insert(t.state.clone()) {
                assert!(seen.len() <= limit, "{file}: more than {limit} states");
                queue.push_back(t.state);
            }
        }
    }
    (seen.len(), terminal, goals)
}

fn joint_moves(legal: &[Vec<GroundTerm>]) -> Vec<Vec<GroundTerm>> {
    legal.iter().fold(vec![Vec::new()], |acc, actions| {
        acc.iter()
            .flat_map(|prefix| {
                actions.iter().map(move |&a| {
                    let mut j = prefix.clone();
                    j.push(a);
                    j
                })
            })
            .collect()
    })
}

/// A play and what holds after it.
struct Line {
    moves: &'static [&'static [&'static str]],
    /// The fluents of the state reached, if checked.
    fluents: Option<&'static [&'static str]>,
    terminal: bool,
    /// Goal values of the roles except `random` (checked when not empty).
    goals: &'static [&'static str],
    /// Percepts of each role after the last move (checked when given).
    percepts: Option<&'static [&'static [&'static str]]>,
}

const LINE: Line = Line {
    moves: &[],
    fluents: None,
    terminal: true,
    goals: &[],
    percepts: None,
};

/// The facts of one game.
struct Facts {
    file: &'static str,
    roles: &'static [&'static str],
    /// The index of `random` among the roles.
    random: Option<usize>,
    init: &'static [&'static str],
    /// Legal moves of each role in the initial state.
    legal: &'static [&'static [&'static str]],
    initially_terminal: bool,
    /// Goal values in the initial state (checked when not empty).
    initial_goals: &'static [&'static str],
    perft: &'static [u64],
    /// (reachable states, terminal ones).
    reachable: Option<(usize, usize)>,
    /// Goal vectors over the reachable terminal states.
    goal_vectors: &'static [&'static [&'static str]],
    lines: &'static [Line],
    /// Codes that must be among the front-end's warnings.
    warnings: &'static [&'static str],
}

const BASE: Facts = Facts {
    file: "",
    roles: &[],
    random: None,
    init: &[],
    legal: &[],
    initially_terminal: false,
    initial_goals: &[],
    perft: &[],
    reachable: None,
    goal_vectors: &[],
    lines: &[],
    warnings: &[],
};

/// One role `a`, one move `go` from `s0` to `s1`, 100 at the end (the frame of the small games
/// that isolate defects of the reference translation).
const GO: Facts = Facts {
    roles: &["a"],
    init: &["s0"],
    legal: &[&["go"]],
    perft: &[1, 1, 0],
    reachable: Some((2, 1)),
    goal_vectors: &[&["100"]],
    lines: &[Line {
        moves: &[&["go"]],
        fluents: Some(&["s1"]),
        goals: &["100"],
        ..LINE
    }],
    ..BASE
};

const GAMES: &[Facts] = &[
    Facts {
        file: "tictactoe.kif",
        roles: &["xplayer", "oplayer"],
        init: &[
            "(cell 1 1 b)",
            "(cell 1 2 b)",
            "(cell 1 3 b)",
            "(cell 2 1 b)",
            "(cell 2 2 b)",
            "(cell 2 3 b)",
            "(cell 3 1 b)",
            "(cell 3 2 b)",
            "(cell 3 3 b)",
            "(control xplayer)",
        ],
        legal: &[
            &[
                "(mark 1 1)",
                "(mark 1 2)",
                "(mark 1 3)",
                "(mark 2 1)",
                "(mark 2 2)",
                "(mark 2 3)",
                "(mark 3 1)",
                "(mark 3 2)",
                "(mark 3 3)",
            ],
            &["noop"],
        ],
        perft: &[1, 9, 9, 9, 72, 504, 504],
        reachable: Some((5478, 958)),
        goal_vectors: &[&["0", "100"], &["100", "0"], &["50", "50"]],
        lines: &[
            Line {
                moves: &[
                    &["(mark 1 1)", "noop"],
                    &["noop", "(mark 1 3)"],
                    &["(mark 3 1)", "noop"],
                    &["noop", "(mark 2 2)"],
                ],
                terminal: false,
                ..LINE
            },
            Line {
                moves: &[
                    &["(mark 1 1)", "noop"],
                    &["noop", "(mark 1 3)"],
                    &["(mark 3 1)", "noop"],
                    &["noop", "(mark 2 2)"],
                    &["(mark 2 1)", "noop"],
                ],
                goals: &["100", "0"],
                ..LINE
            },
        ],
        ..BASE
    },
    Facts {
        file: "connectfour.kif",
        roles: &["red", "black"],
        init: &["(control red)"],
        legal: &[
            &[
                "(drop 1)", "(drop 2)", "(drop 3)", "(drop 4)", "(drop 5)", "(drop 6)", "(drop 7)",
                "(drop 8)",
            ],
            &["noop"],
        ],
        perft: &[1, 8, 8, 8, 64, 512, 512],
        ..BASE
    },
    Facts {
        file: "mutex.kif",
        roles: &["robot"],
        init: &["(at hall)"],
        legal: &[&["a", "b", "c"]],
        perft: &[1, 3, 2, 4, 4, 0],
        reachable: Some((9, 2)),
        goal_vectors: &[&["0"], &["100"]],
        ..BASE
    },
    Facts {
        file: "always_goal.kif",
        roles: &["you"],
        init: &["waiting"],
        legal: &[&["proceed"]],
        initial_goals: &["100"],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["proceed"]],
            goals: &["100"],
            ..LINE
        }],
        warnings: &["W-PARSE-008"],
        ..BASE
    },
    Facts {
        file: "legal_in_body.kif",
        roles: &["player"],
        init: &["(state 0)"],
        legal: &[&["lose", "win"]],
        perft: &[1, 2, 0],
        reachable: Some((3, 2)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[
            Line {
                moves: &[&["win"]],
                goals: &["100"],
                ..LINE
            },
            Line {
                moves: &[&["lose"]],
                fluents: Some(&["(state 2)"]),
                goals: &["0"],
                ..LINE
            },
        ],
        ..BASE
    },
    Facts {
        file: "derived_move.kif",
        roles: &["mover"],
        init: &["(state 0)"],
        legal: &[&["(move move_next 0 1)"]],
        perft: &[1, 1, 1, 1, 1, 0],
        reachable: Some((5, 1)),
        goal_vectors: &[&["100"]],
        lines: &[Line {
            moves: &[
                &["(move move_next 0 1)"],
                &["(move move_next 1 2)"],
                &["(move move_next 2 3)"],
                &["(move move_next 3 4)"],
            ],
            fluents: Some(&["(state 4)"]),
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "snake_ring.kif",
        roles: &["snake"],
        init: &["(head 0)", "(step 0)", "(trail 0)"],
        legal: &[&["mov_left", "mov_right"]],
        perft: &[1, 2, 1, 1, 1, 1, 1, 0],
        reachable: Some((8, 2)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[
            Line {
                moves: &[&["mov_left"]],
                goals: &["0"],
                ..LINE
            },
            Line {
                moves: &[
                    &["mov_right"],
                    &["mov_right"],
                    &["mov_right"],
                    &["mov_right"],
                    &["mov_right"],
                    &["mov_right"],
                ],
                goals: &["100"],
                ..LINE
            },
        ],
        ..BASE
    },
    Facts {
        file: "snake_grid.kif",
        roles: &["snake"],
        init: &["(pos 6 1)", "(step 0)", "(visited 6 1)"],
        legal: &[&["mov_left", "mov_right"]],
        perft: &[1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0],
        reachable: Some((21, 2)),
        goal_vectors: &[&["100"]],
        ..BASE
    },
    Facts {
        file: "nullary_parens.kif",
        roles: &["robot"],
        init: &["start"],
        legal: &[&["(move correct_correct)"]],
        perft: &[1, 1, 0],
        goal_vectors: &[&["100"]],
        reachable: Some((2, 1)),
        warnings: &["W-PARSE-007"],
        ..BASE
    },
    Facts {
        file: "undefined_sentence.kif",
        roles: &["player"],
        init: &["playing"],
        legal: &[&["win"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["win"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "init_rule.kif",
        roles: &["player"],
        init: &["(cell alpha)"],
        legal: &[&["win"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["win"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "base_input.kif",
        roles: &["robot"],
        init: &["p"],
        legal: &[&["a"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["a"]],
            fluents: Some(&["q"]),
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "recursion_terms.kif",
        roles: &["robot"],
        init: &["idle"],
        legal: &[&["proceed"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["proceed"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "doubled_variables.kif",
        roles: &["robot"],
        init: &["start"],
        legal: &[&["(draw 1 1 1 2)"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["(draw 1 1 1 2)"]],
            fluents: Some(&["done"]),
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "useless_recursion.kif",
        roles: &["robot"],
        init: &["started"],
        legal: &[&["proceed"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["proceed"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        // Linear recursions with accumulators (lifted, they are loops): `skip` needs two
        // counters that start apart to end equal, so it is never legal; `finish` only one step
        // before the end.
        file: "walk_loop.kif",
        roles: &["walker"],
        init: &["(at 0)"],
        legal: &[&["(go 1)", "(jump 2)", "stay"]],
        perft: &[1, 3, 8, 19, 35, 49, 50, 36, 18, 6, 1, 0],
        ..BASE
    },
    Facts {
        file: "tally_row.kif",
        roles: &["white", "black"],
        init: &[
            "(cell 1 b)",
            "(cell 2 b)",
            "(cell 3 b)",
            "(cell 4 b)",
            "(cell 5 b)",
            "(cell 6 b)",
            "(control white)",
        ],
        legal: &[
            &[
                "(put 1)", "(put 2)", "(put 3)", "(put 4)", "(put 5)", "(put 6)", "pass",
            ],
            &["noop"],
        ],
        perft: &[1, 7, 7, 7, 37, 187, 187, 187, 697, 2287, 2287, 2287, 5677],
        lines: &[Line {
            moves: &[
                &["pass", "noop"],
                &["noop", "(put 1)"],
                &["(put 2)", "noop"],
                &["noop", "(put 3)"],
                &["(put 4)", "noop"],
                &["noop", "(put 5)"],
            ],
            goals: &["0", "100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "mutual_recursion.kif",
        roles: &["robot"],
        init: &["(rTrue 1 2)", "(rTrue 2 1)", "(sTrue 1 2)", "(sTrue 2 1)"],
        legal: &[&["proceed"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["proceed"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "recursive_order.kif",
        roles: &["player"],
        init: &["(heap a 2)", "(heap b 0)", "(heap c 5)"],
        legal: &[&[
            "(reduce a 0)",
            "(reduce a 1)",
            "(reduce c 0)",
            "(reduce c 1)",
            "(reduce c 2)",
            "(reduce c 3)",
            "(reduce c 4)",
        ]],
        perft: &[1, 7, 0],
        reachable: Some((2, 1)),
        goal_vectors: &[&["100"]],
        ..BASE
    },
    Facts {
        file: "not_distinct.kif",
        roles: &["robot"],
        init: &["begin"],
        legal: &[&["proceed"]],
        perft: &[1, 1, 0],
        lines: &[Line {
            moves: &[&["proceed"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "distinct_first.kif",
        roles: &["robot"],
        init: &["begin"],
        legal: &[&["(do a b)", "(do b a)"]],
        perft: &[1, 2, 0],
        lines: &[Line {
            moves: &[&["(do a b)"]],
            goals: &["100"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "function_arities.kif",
        roles: &["robot"],
        init: &["begin"],
        legal: &[&["(a 1)", "(a 2 3)"]],
        perft: &[1, 2, 0],
        goal_vectors: &[&["100"]],
        reachable: Some((2, 1)),
        ..BASE
    },
    Facts {
        file: "sentence_arities.kif",
        roles: &["robot"],
        init: &["begin"],
        legal: &[&["a"]],
        perft: &[1, 1, 0],
        goal_vectors: &[&["100"]],
        reachable: Some((2, 1)),
        ..BASE
    },
    Facts {
        file: "negconst.kif",
        ..GO
    },
    Facts {
        file: "negimpossible.kif",
        ..GO
    },
    Facts {
        file: "ornot.kif",
        ..GO
    },
    Facts {
        file: "goalvar.kif",
        goal_vectors: &[&["70"]],
        lines: &[Line {
            moves: &[&["go"]],
            goals: &["70"],
            ..LINE
        }],
        ..GO
    },
    Facts {
        file: "compoundvar.kif",
        legal: &[&["(go 1)", "(go 2)"]],
        perft: &[1, 2, 0],
        reachable: Some((3, 2)),
        lines: &[
            Line {
                moves: &[&["(go 1)"]],
                fluents: Some(&["(did (go 1))"]),
                goals: &["100"],
                ..LINE
            },
            Line {
                moves: &[&["(go 2)"]],
                fluents: Some(&["(did (go 2))"]),
                goals: &["100"],
                ..LINE
            },
        ],
        ..GO
    },
    Facts {
        file: "upper.kif",
        ..GO
    },
    Facts {
        file: "underscore.kif",
        init: &["(s 0)"],
        lines: &[Line {
            moves: &[&["go"]],
            fluents: Some(&["(s 1)"]),
            goals: &["100"],
            ..LINE
        }],
        ..GO
    },
    Facts {
        file: "cyclic.kif",
        init: &["(open 1)", "(open 2)", "(open 3)"],
        legal: &[&["(close 1)", "(close 2)", "(close 3)"]],
        perft: &[1, 3, 0],
        reachable: Some((4, 3)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[
            Line {
                moves: &[&["(close 1)"]],
                goals: &["100"],
                ..LINE
            },
            Line {
                moves: &[&["(close 2)"]],
                goals: &["100"],
                ..LINE
            },
            Line {
                moves: &[&["(close 3)"]],
                goals: &["0"],
                ..LINE
            },
        ],
        ..GO
    },
    Facts {
        file: "goal_negation.kif",
        roles: &["counter"],
        init: &["(count 0)"],
        legal: &[&["step"]],
        initial_goals: &["100"],
        perft: &[1, 1, 1, 2, 0],
        reachable: Some((5, 2)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[Line {
            moves: &[&["step"], &["step"], &["stop"]],
            fluents: Some(&["(count 2)", "stopped"]),
            goals: &["0"],
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "stuck.kif",
        roles: &["first", "second"],
        init: &["fresh"],
        legal: &[&["(pick 1)", "(pick 2)", "(pick 3)"], &["wait"]],
        perft: &[1, 3, 3, 6, 0],
        reachable: Some((4, 1)),
        goal_vectors: &[&["100", "0"]],
        lines: &[Line {
            moves: &[&["(pick 2)", "wait"]],
            fluents: Some(&["(picked 2)"]),
            terminal: false,
            ..LINE
        }],
        ..BASE
    },
    Facts {
        file: "born_terminal.kif",
        roles: &["solo"],
        init: &["over"],
        legal: &[&["go"]],
        initially_terminal: true,
        initial_goals: &["100"],
        perft: &[1, 0, 0],
        reachable: Some((1, 1)),
        goal_vectors: &[&["100"]],
        ..BASE
    },
    Facts {
        file: "coin_guess.kif",
        roles: &["random", "guesser"],
        random: Some(0),
        init: &["(phase toss)"],
        legal: &[&["(toss heads)", "(toss tails)"], &["wait"]],
        initial_goals: &["0"],
        perft: &[1, 2, 2, 2, 4, 0],
        reachable: Some((7, 4)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[
            Line {
                moves: &[&["(toss heads)", "wait"]],
                fluents: Some(&["(coin heads)", "(phase call)"]),
                terminal: false,
                percepts: Some(&[&[], &["tossed"]]),
                ..LINE
            },
            Line {
                moves: &[&["(toss heads)", "wait"], &["wait", "(call tails)"]],
                fluents: Some(&["(called tails)", "(coin heads)", "(phase over)"]),
                goals: &["0"],
                percepts: Some(&[&["(heard tails)"], &["(outcome lost)"]]),
                ..LINE
            },
            Line {
                moves: &[&["(toss tails)", "wait"], &["wait", "(call tails)"]],
                goals: &["100"],
                percepts: Some(&[&["(heard tails)"], &["(outcome won)"]]),
                ..LINE
            },
        ],
        ..BASE
    },
    Facts {
        file: "dice_bet.kif",
        roles: &["bettor", "random"],
        random: Some(1),
        init: &["ready"],
        legal: &[
            &["(bet 1)", "(bet 2)", "(bet 3)"],
            &["(roll 1)", "(roll 2)", "(roll 3)", "(roll 4)"],
        ],
        perft: &[1, 3, 12, 0],
        reachable: Some((10, 9)),
        goal_vectors: &[&["0"], &["100"]],
        lines: &[
            Line {
                moves: &[&["(bet 1)", "(roll 4)"]],
                fluents: Some(&["(named 1)", "(shows 1)"]),
                goals: &["100"],
                percepts: Some(&[&["(die 1)"], &[]]),
                ..LINE
            },
            Line {
                moves: &[&["(bet 3)", "(roll 2)"]],
                goals: &["0"],
                percepts: Some(&[&["(die 2)"], &[]]),
                ..LINE
            },
        ],
        ..BASE
    },
];

fn check_game(f: &Facts) {
    let file = f.file;
    let (mut r, warnings) = reasoner_of(file);
    for code in f.warnings {
        assert!(
            warnings.iter().any(|w| w == code),
            "{file}: expected warning {code}, got {warnings:?}"
        );
    }
    let roles: Vec<String> = r.roles().iter().map(|&t| r.show(t)).collect();
    assert_eq!(roles, f.roles, "{file}: roles in role-fact order");
    assert_eq!(r.random_role(), f.random, "{file}: the random role");
    let init = r.initial().clone();
    assert_eq!(
        shown(&r, init.fluents()),
        sorted(f.init),
        "{file}: initial state"
    );
    let ev = r.evaluate(&init).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(
        ev.is_terminal(),
        f.initially_terminal,
        "{file}: initially terminal"
    );
    let legal: Vec<Vec<String>> = ev.legal().iter().map(|l| shown(&r, l)).collect();
    let want: Vec<Vec<String>> = f.legal.iter().map(|l| sorted(l)).collect();
    assert_eq!(legal, want, "{file}: legal moves in the initial state");
    if !f.initial_goals.is_empty() {
        assert_eq!(
            goal_vector(&r, &ev),
            f.initial_goals,
            "{file}: initial goals"
        );
    }
    let perft: Vec<u64> = (0..f.perft.len())
        .map(|d| {
            r.perft(d)
                .unwrap_or_else(|e| panic!("{file}: perft {d}: {e}"))
        })
        .collect();
    assert_eq!(perft, f.perft, "{file}: perft");
    if let Some((states, terminal)) = f.reachable {
        let (n, t, goals) = explore(&mut r, file, 100_000);
        assert_eq!(
            (n, t),
            (states, terminal),
            "{file}: reachable and terminal states"
        );
        let want: BTreeSet<Vec<String>> = f
            .goal_vectors
            .iter()
            .map(|g| g.iter().map(|s| (*s).to_owned()).collect())
            .collect();
        if !f.goal_vectors.is_empty() {
            assert_eq!(goals, want, "{file}: goal vectors of the terminal states");
        }
    }
    for line in f.lines {
        let (ev, percepts) = play(&mut r, file, line.moves);
        let at = format!("{file} after {:?}", line.moves);
        if let Some(fluents) = line.fluents {
            assert_eq!(
                shown(&r, ev.state().fluents()),
                sorted(fluents),
                "{at}: state"
            );
        }
        assert_eq!(ev.is_terminal(), line.terminal, "{at}: terminal");
        if !line.goals.is_empty() {
            assert_eq!(goal_vector(&r, &ev), line.goals, "{at}: goals");
        }
        if let Some(want) = line.percepts {
            let want: Vec<Vec<String>> = want.iter().map(|p| sorted(p)).collect();
            assert_eq!(percepts, want, "{at}: percepts");
        }
    }
}

#[test]
fn every_game_fixture_has_facts() {
    let files: BTreeSet<String> = rgt_tests::fixture_files("kif/games", "kif")
        .iter()
        .map(|p| name(p))
        .collect();
    let facts: BTreeSet<String> = GAMES.iter().map(|f| f.file.to_owned()).collect();
    assert_eq!(
        files, facts,
        "every game in tests/fixtures/kif/games has its facts here"
    );
}

#[test]
fn games_have_their_facts() {
    for f in GAMES {
        check_game(f);
    }
}

/// A ground negation cycle is reported by the reasoner, naming an atom of the cycle.
#[test]
fn the_reasoner_reports_a_ground_negation_cycle() {
    let path = fixtures("kif/games-invalid").join("negation_cycle.kif");
    let text = read(&path);
    // Valid at the relation level (warning W-VAL-030); the cycle shows once ground.
    let loaded = front_gdl::load(
        rg_core::FileId(0),
        &text,
        &front_gdl::ParseOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}", render(&e, "negation_cycle.kif", &text)));
    let mut r = Reasoner::new(&loaded.program).expect("compiles");
    let init = r.initial().clone();
    match r.evaluate(&init) {
        Err(ReasonerError::NegationCycle { atom, .. }) => {
            assert!(atom == "left" || atom == "right", "{atom}");
        }
        other => panic!("expected a negation cycle, got {other:?}"),
    }
}

/// Every KIF file under `tests/fixtures/kif` except the error fixtures (`errors/`,
/// `games-invalid/`) and the games only `--lenient` accepts (`lenient/`, see `gdl_lenient`, and
/// the W-VAL-041 syntax fixture), sorted.
fn own_games() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                if !matches!(name(&p).as_str(), "errors" | "games-invalid" | "lenient") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "kif")
                && !name(&p).starts_with("W-VAL-041")
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&fixtures("kif"), &mut files);
    files.sort();
    files
}

/// The reasoner's perft of a description to two full steps (2 × the number of roles).
fn reasoner_perft(path: &Path, text: &str) -> Vec<u64> {
    let loaded = front_gdl::load(
        rg_core::FileId(0),
        text,
        &front_gdl::ParseOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}", render(&e, &name(path), text)));
    let mut r = Reasoner::new(&loaded.program)
        .unwrap_or_else(|e| panic!("{}: the reasoner rejects it: {e}", path.display()));
    (0..=2 * r.roles().len())
        .map(|d| {
            r.perft(d)
                .unwrap_or_else(|e| panic!("{}: perft {d}: {e}", path.display()))
        })
        .collect()
}

/// The equivalence proof of the translation: for every own KIF game, RG perft of the
/// translation at -O0 and at -O2 equals the reasoner's at every depth up to two full steps.
#[test]
fn translations_have_the_reasoners_perft() {
    let files = own_games();
    assert!(files.len() >= 40, "only {} KIF games found", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let text = read(path);
        let want = reasoner_perft(path, &text);
        let game = match rgt_tests::load(rg_pipeline::Lang::Kif, &name(path), &text) {
            Ok(g) => g,
            Err(d) => {
                failures.push(format!("{}: not translated:\n{d}", path.display()));
                continue;
            }
        };
        let depth = want.len() - 1;
        let o0 = rgt_tests::perft(&game, depth);
        if o0 != want {
            failures.push(format!(
                "{}: -O0 perft {o0:?}, reasoner {want:?}",
                path.display()
            ));
        }
        let mut opt = game.clone();
        let pipeline = rg_pipeline::OptLevel::O2.pipeline();
        if let Err(e) = rg_passes::run(
            &mut opt,
            &pipeline,
            &rg_passes::Options::default(),
            &mut |_, _| Ok(()),
        ) {
            failures.push(format!("{}: -O2 fails: {e}", path.display()));
            continue;
        }
        let o2 = rgt_tests::perft(&opt, depth);
        if o2 != want {
            failures.push(format!(
                "{}: -O2 perft {o2:?}, reasoner {want:?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Invalid games are rejected by the translation, each with its code; the diagnostics are
/// snapshotted as `rgt translate` prints them.
#[test]
fn invalid_games_are_rejected() {
    let expected = [
        // Issue 24: the guard trips while the relation grows, before memory runs out.
        ("grounding_explodes.kif", "E-GND-050"),
        ("negation_cycle.kif", "E-VAL-031"),
        ("unsafe_distinct.kif", "E-VAL-040"),
        ("unsafe_head.kif", "E-VAL-040"),
        ("unsafe_negation.kif", "E-VAL-040"),
    ];
    let files: Vec<String> = rgt_tests::fixture_files("kif/games-invalid", "kif")
        .iter()
        .map(|p| name(p))
        .collect();
    assert_eq!(
        files,
        expected
            .iter()
            .map(|(f, _)| (*f).to_owned())
            .collect::<Vec<_>>(),
        "every invalid game has its expected code here"
    );
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/gdl_oracle");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s.bind(|| {
        for (file, code) in expected {
            let text = read(&fixtures("kif/games-invalid").join(file));
            let rendered = match rgt_tests::load(rg_pipeline::Lang::Kif, file, &text) {
                Ok(_) => panic!("{file} must be rejected"),
                Err(d) => d,
            };
            assert!(
                rendered.contains(&format!("gdl::{code}")),
                "{file}: expected {code}:\n{rendered}"
            );
            insta::assert_snapshot!(format!("invalid@{file}"), rendered);
        }
    });
}

/// The reasoner refuses unsafe rules by itself, without relying on validation.
#[test]
fn the_reasoner_refuses_unsafe_rules() {
    for file in [
        "unsafe_distinct.kif",
        "unsafe_head.kif",
        "unsafe_negation.kif",
    ] {
        let text = read(&fixtures("kif/games-invalid").join(file));
        let parsed = front_gdl::parse(
            rg_core::FileId(0),
            &text,
            &front_gdl::ParseOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}", render(&e, file, &text)));
        match Reasoner::new(&parsed.program) {
            Err(ReasonerError::Unsafe { .. }) => {}
            other => panic!(
                "{file}: expected an unsafe rule, got {:?}",
                other.map(|_| ())
            ),
        }
    }
}

/// The lifted lowering (issue 24) against the reasoner: every own KIF game translated with
/// everything liftable lifted (`Lifting::All`: the liftable relations and the existential part
/// of every rule evaluated at run time by sub-automata instead of ground instances) has the
/// reasoner's perft at -O0 to two full steps, and the same counts as the full grounding.
#[test]
fn lifted_translations_have_the_reasoners_perft() {
    let files = own_games();
    let mut failures = Vec::new();
    let mut lifted = 0;
    for path in &files {
        let text = read(path);
        let want = reasoner_perft(path, &text);
        let mut pipeline = rg_pipeline::Pipeline::default();
        let file = pipeline.sources.add(name(path), text.clone());
        let mut opts = front_gdl::TranslateOptions::default();
        opts.limits.lifting = front_gdl::Lifting::All;
        let mut game = match front_gdl::translate(file, &text, &opts, &mut |_| {}) {
            Ok(t) => t.game,
            Err(e) => {
                failures.push(format!("{}: not translated: {e:?}", path.display()));
                continue;
            }
        };
        if rg_core::print(&game).contains("lf_") {
            lifted += 1;
        }
        if let Err(f) = rg_pipeline::check(
            &mut game,
            file,
            false,
            &rg_pipeline::LintConfig::default(),
            Vec::new(),
        ) {
            failures.push(format!(
                "{}: the lifted translation does not check:\n{}",
                path.display(),
                pipeline.render_error(&f)
            ));
            continue;
        }
        let got = rgt_tests::perft(&game, want.len() - 1);
        if got != want {
            failures.push(format!(
                "{}: lifted -O0 perft {got:?}, reasoner {want:?}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Many games have a rule with a variable outside its head that lifting keeps: their
    // translations use lifted relations (`lf_` names; 28 of the 60 games when written), so the
    // test exercises the lifted lowering.
    assert!(
        lifted >= 25,
        "only {lifted} of {} games use lifted relations",
        files.len()
    );
}

/// Determinism of the lifted lowering: every own KIF game translated twice with everything
/// liftable lifted prints byte-identical RG (each translation has its own hash maps, seeded
/// differently, so an output order taken from hash iteration would show).
#[test]
fn lifted_translations_are_deterministic() {
    let mut differ = Vec::new();
    let mut lifted = 0;
    for path in &own_games() {
        let text = read(path);
        let print = || {
            let mut opts = front_gdl::TranslateOptions::default();
            opts.limits.lifting = front_gdl::Lifting::All;
            front_gdl::translate(rg_core::FileId(0), &text, &opts, &mut |_| {})
                .map(|t| rg_core::print(&t.game))
                .map_err(|e| format!("{:?}", e.diagnostics))
        };
        let (a, b) = (print(), print());
        if a.as_ref().is_ok_and(|a| a.contains("lf_")) {
            lifted += 1;
        }
        if a != b {
            differ.push(path.display().to_string());
        }
    }
    assert!(differ.is_empty(), "two translations differ: {differ:?}");
    assert!(lifted >= 25, "only {lifted} games use lifted relations");
}
