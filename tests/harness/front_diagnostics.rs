//! Diagnostics of the HRG and RBG front-ends as the CLI prints them (issue 19): every
//! independent error is reported, each with its specific code, on the source token, with a
//! "did you mean" when a declared name is close; and the crates' `CODES` lists cover the codes.

use rg_pipeline::Lang;
use rgt_tests::load;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots/front_diagnostics");
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// The diagnostics of an invalid game, as the CLI renders them.
fn rejected(lang: Lang, name: &str, text: &str) -> String {
    match load(lang, name, text) {
        Ok(_) => panic!("{name} should be rejected"),
        Err(d) => d,
    }
}

/// The codes printed in a rendering (the lines that are only a code).
fn codes(rendered: &str) -> Vec<&str> {
    rendered
        .lines()
        .filter(|l| l.starts_with("hrg::") || l.starts_with("rbg::"))
        .collect()
}

const TIC_TAC_TOE: &str = "\
domain Piece = empty | x | o
domain Player = x | o
domain Position = P(I, J) where I in 0..2, J in 0..2
domain Score = 50 | 0 | 100

board : Position -> Piece = { P(I, J) = empty where I in 0..2, J in 0..2 }

next_h : Position -> Position
next_h(P(I, J)) = P(I, (J + 1) % 3)

position : Position

reusable graph line() {
  check(board[position] == board[next_h(position)])
  check(board[position] == board[next_h(next_h(position))])
}

graph turn(me: Player) {
  player = me
  position = Position(*)
  check(board[position] == empty)
  board[position] = me
  $$ position
  player = keeper
  if reachable(line()) {
    goals[me] = 100
    end()
  }
}

graph rules() {
  loop {
    turn(x)
    turn(o)
  }
}
";

/// README's example: a misspelt variable is one error on its token, in HRG terms, with the
/// declared name it most likely means (it used to be four RG errors about generated names).
#[test]
fn hrg_misspelt_variable_is_one_error_with_a_suggestion() {
    let text = TIC_TAC_TOE.replace("  board[position] = me", "  bord[position] = me");
    let d = rejected(Lang::Hrg, "bord.hrg", &text);
    assert_eq!(codes(&d), ["hrg::name::unknown-variable"], "{d}");
    assert!(d.contains("did you mean `board`?"), "{d}");
    assert!(!d.contains("turn_arg0_me"), "{d}");
    settings().bind(|| insta::assert_snapshot!("hrg_bord_typo", d));
}

/// Two independent typos (a graph and a function), both reported with codes and suggestions.
#[test]
fn hrg_two_independent_typos_are_both_reported() {
    let text = TIC_TAC_TOE.replace("    turn(o)", "    tun(o)").replace(
        "board[next_h(next_h(position))]",
        "board[next_hh(next_h(position))]",
    );
    let d = rejected(Lang::Hrg, "two_typos.hrg", &text);
    assert_eq!(
        codes(&d),
        ["hrg::name::unknown-name", "hrg::name::unknown-graph"],
        "{d}"
    );
    assert!(d.contains("did you mean `next_h`?"), "{d}");
    assert!(d.contains("did you mean `turn`?"), "{d}");
    settings().bind(|| insta::assert_snapshot!("hrg_two_typos", d));
}

/// Syntax errors in two declarations: the parser resumes at the next statement or declaration.
#[test]
fn hrg_parser_recovers_after_a_syntax_error() {
    let text = TIC_TAC_TOE
        .replace("  player = me\n", "  player = = me\n")
        .replace("next_h : Position -> Position", "next_h : Position ->");
    let d = rejected(Lang::Hrg, "syntax.hrg", &text);
    assert_eq!(
        codes(&d),
        [
            "hrg::parse::unexpected-token",
            "hrg::parse::unexpected-token"
        ],
        "{d}"
    );
    settings().bind(|| insta::assert_snapshot!("hrg_two_syntax_errors", d));
}

const CONNECT4: &str = "\
#players = red(100), yellow(100)
#pieces = e, r, y
#variables =
#board = rectangle(up,down,left,right,
         [e,e,e,e]
         [e,e,e,e]
         [e,e,e,e])

#turn(me; opp; piece) = (
    ->me (down* up^2 (left* + right*)) {e} ->> down* {e} {! down {e}}
    [piece]
  )

#rules = [$ red=50] [$ yellow=50] (
    turn(red; yellow; r)
    turn(yellow; red; y)
  )*
";

/// Two independent errors in the rules: a misspelt player and a misspelt macro.
#[test]
fn rbg_two_independent_errors_are_both_reported() {
    let text = CONNECT4
        .replace("[$ yellow=50]", "[$ yelow=50]")
        .replace("    turn(yellow; red; y)", "    tern(yellow; red; y)");
    let d = rejected(Lang::Rbg, "two_errors.rbg", &text);
    assert_eq!(
        codes(&d),
        ["rbg::name::unknown", "rbg::macro::unknown"],
        "{d}"
    );
    assert!(d.contains("did you mean `yellow`?"), "{d}");
    assert!(d.contains("did you mean `turn`?"), "{d}");
    settings().bind(|| insta::assert_snapshot!("rbg_two_errors", d));
}

/// Errors in two sections: a duplicate vertex on the board and an unknown piece in the rules.
#[test]
fn rbg_errors_in_two_sections_are_both_reported() {
    let text = "\
#players = a(1)
#pieces = e, x
#variables =
#board = v1[e]{n:v2} v2[e]{n:v1} v1[x]{}
#rules = ->a {e} [xx]
";
    let d = rejected(Lang::Rbg, "sections.rbg", text);
    assert_eq!(codes(&d), ["rbg::board::duplicate-vertex"], "{d}");
    let text = text.replace(" v1[x]{}", "").replace("#variables =\n", "");
    let d = rejected(Lang::Rbg, "sections.rbg", &text);
    assert_eq!(
        codes(&d),
        ["rbg::section::missing", "rbg::name::unknown"],
        "{d}"
    );
}

/// Every code a rendering shows is in its crate's `CODES` (so `--allow` can check codes).
#[test]
fn printed_codes_are_listed() {
    for c in front_hrg::CODES.iter().chain(front_rbg::CODES) {
        assert!(c.starts_with("hrg::") || c.starts_with("rbg::"), "{c}");
    }
    let d = rejected(
        Lang::Hrg,
        "x.hrg",
        &TIC_TAC_TOE.replace("  board[position] = me", "  bord[position] = me"),
    );
    for c in codes(&d) {
        assert!(front_hrg::CODES.contains(&c), "{c}");
    }
}
