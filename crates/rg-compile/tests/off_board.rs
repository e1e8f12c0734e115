//! A board's off-board key (`null`, where every direction of the edge squares leads) keeps its
//! element's initial value when every store into the board is proven to be at another key
//! (after `coord = Cell(*)`, or behind a comparison of the element with a symbol other than
//! the off-board one); two directions that both leave the board then meet only where the
//! next comparison fails, so their join needs no visited-state check. Tags inside a check
//! that has no visited-state checks are left out, and a move search's tag edge whose scope no
//! check tells apart keeps its parent's epoch.

use rg_compile::{Options, compile};

/// The generated functions of `text` whose header starts with one of `prefixes`, as text.
fn functions(text: &str, prefixes: &[&str]) -> String {
    let mut g = rg_core::parse(rg_core::FileId(0), text).expect("the game parses");
    rg_core::builtins::add_builtins(&mut g).expect("built-ins");
    let src = compile(&g, &Options::default()).expect("compiles");
    let mut inside = false;
    let mut out = String::new();
    for l in std::iter::once(src.game_cpp.as_str())
        .chain(src.parts.iter().map(String::as_str))
        .flat_map(str::lines)
    {
        if l.contains(") {") && !l.starts_with(' ') {
            let head = l.trim_start_matches("[[gnu::noinline]] ");
            inside = prefixes.iter().any(|p| head.starts_with(p));
        }
        if inside {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// The move functions of `text` (move listing and apply walks).
fn move_functions(text: &str) -> String {
    functions(text, &["static void M", "static bool A"])
}

/// One player lifts a man (`w`) from any cell and puts it on the empty cell to its left or
/// right; cell `c` has neither, so both directions lead to `null` (whose element is `k`).
/// The move ends with a check that a man stands where it went (the check emits a tag). The
/// lifting store empties `board[key]`: with `coord`, a cell just compared with `w`; with
/// `spare`, a variable that stays `null`, so that store empties the off-board element.
fn game(key: &str) -> String {
    format!(
        "type Player = {{ p }};\ntype Score = {{ 0, 100 }};\ntype Cell = {{ a, b, c }};\n\
         type CellOrNull = {{ null, a, b, c }};\ntype Piece = {{ e, w, k }};\n\
         const left: CellOrNull -> CellOrNull = {{ b: a, :null }};\n\
         const right: CellOrNull -> CellOrNull = {{ a: b, :null }};\n\
         var board: CellOrNull -> Piece = {{ a: w, b: e, c: w, :k }};\n\
         var coord: CellOrNull = a;\nvar spare: CellOrNull = null;\n\
         begin, s: player = p;\ns, f: coord = Cell(*);\nf, g: board[coord] == w;\n\
         g, h: $$ coord;\nh, i: board[{key}] = e;\ni, j: coord = left[coord];\n\
         i, j: coord = right[coord];\nj, l: board[coord] == e;\nl, m: $$ coord;\n\
         m, n: board[coord] = w;\nn, o: ? q -> r;\no, won: goals[p] = 100;\n\
         won, end: player = keeper;\nq, q2: $ probe;\nq2, r: board[coord] == w;\n"
    )
}

/// The move functions of node `j` (where the two directions meet).
fn join_functions(text: &str) -> String {
    functions(text, &["static void M", "static bool A"])
        .split("\n\n")
        .filter(|f| f.lines().next().is_some_and(|l| l.ends_with("// j")))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[test]
fn directions_off_the_board_meet_unchecked() {
    let join = join_functions(&game("coord"));
    assert!(join.contains("// j"), "no function of the join");
    assert!(!join.contains("c.stamps.data()"), "{join}");
}

#[test]
fn an_unproven_store_keeps_the_join_checked() {
    // `board[null]` may be emptied: the two directions meeting at `null` may both go on.
    let join = join_functions(&game("spare"));
    assert!(join.contains("c.stamps.data()"), "{join}");
}

#[test]
fn a_check_without_visited_state_checks_leaves_its_tags_out() {
    let text = game("coord");
    let reach = functions(&text, &["static bool R"]);
    assert!(
        reach.contains("static bool R"),
        "no check function:\n{reach}"
    );
    assert!(!reach.contains("push_tag"), "{reach}");
}

#[test]
fn scopes_nothing_tells_apart_keep_their_epoch() {
    let moves = move_functions(&game("coord"));
    assert!(moves.contains("push_tag<false>(c, tv_"), "{moves}");
    assert!(!moves.contains("push_tag(c, tv_"), "{moves}");
    // With the join checked by a stamp (keyed by the scope's epoch), the tag edge before it
    // begins a scope of its own.
    let checked = move_functions(&game("spare"));
    assert!(checked.contains("push_tag(c, tv_"), "{checked}");
}
