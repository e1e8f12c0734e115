//! What each player sees of a move, for games that hide some of it.
//!
//! A player `p` learns of every move the tags that were traversed while `visible[p]` was `1`.
//! Which tags those were depends on the walk (an assignment to `visible` may come between two
//! tags of one move), so it cannot be read from the move's tags or from the state it leads to.
//! The game is therefore played through a copy in which every tag edge `a, b: $ t` is followed
//! by one test per player: `visible[p] == 1` leads through an extra marker tag for `p`, and
//! `visible[p] != 1` does not. A move of the copy carries the game's tags with, after each, the
//! markers of the players who saw it; splitting them gives the move (its real tags) and each
//! player's view of it. Markers are named so that they cannot clash with an RG identifier.
//!
//! Walks of the copy are walks of the game with the same effects (exactly one of the two tests
//! holds), so the copy has the same moves and states. Pragmas of the game name its nodes and
//! tag positions, which the copy changes: it is compiled with them ignored.

use rg_core::{Game, Label, Symbol};

/// The prefix of the marker tag names (`#` cannot occur in an RG identifier).
pub const MARKER_PREFIX: &str = "rgt#sees#";

/// Whether every player sees every tag: nothing assigns `visible` and it starts as all `1`.
pub fn perfect_information(game: &Game) -> bool {
    let wk = *game.well_known();
    let assigns_visible = game.edges().any(|(_, e)| match e.label {
        Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } => {
            game.expr_root(lhs) == wk.visible
        }
        _ => false,
    });
    if assigns_visible {
        return false;
    }
    let Some(v) = game.variable(wk.visible) else {
        return true;
    };
    all_one(game, v.init, wk.one)
}

/// Whether a value is `1` everywhere.
fn all_one(game: &Game, value: rg_core::ValueId, one: Symbol) -> bool {
    match game.value(value) {
        rg_core::ValueData::Element(s) => *s == one,
        rg_core::ValueData::Map(entries) => entries
            .iter()
            .all(|e| matches!(game.value(e.value), rg_core::ValueData::Element(s) if *s == one)),
    }
}

/// The copy of `game` with a marker tag after each tag edge for every player of `players` that
/// sees it (see the module documentation).
pub fn with_markers(game: &Game, players: &[Symbol]) -> Game {
    let mut g = game.clone();
    if players.is_empty() {
        return g;
    }
    let wk = *g.well_known();
    let markers: Vec<Symbol> = (0..players.len())
        .map(|i| g.sym(&format!("{MARKER_PREFIX}{i}")))
        .collect();
    let visible = g.expr_ref(wk.visible);
    let one = g.expr_ref(wk.one);
    let tests: Vec<rg_core::ExprId> = players
        .iter()
        .map(|&p| {
            let key = g.expr_ref(p);
            g.expr_access(visible, key)
        })
        .collect();
    let tag_edges: Vec<rg_core::EdgeId> = g
        .edges()
        .filter(|(_, e)| e.label.is_tag())
        .map(|(id, _)| id)
        .collect();
    for (k, e) in tag_edges.into_iter().enumerate() {
        let to = g.edge(e).to;
        let mut at = g.node_named(&format!("rgt#seen#{k}#0"));
        g.set_target(e, at);
        for (i, &test) in tests.iter().enumerate() {
            let next = if i + 1 == tests.len() {
                to
            } else {
                g.node_named(&format!("rgt#seen#{k}#{}", i + 1))
            };
            let sees = g.node_named(&format!("rgt#sees#{k}#{i}"));
            g.add_edge(
                at,
                sees,
                Label::Compare {
                    lhs: test,
                    rhs: one,
                    negated: false,
                },
            );
            g.add_edge(sees, next, Label::Tag(markers[i]));
            g.add_edge(
                at,
                next,
                Label::Compare {
                    lhs: test,
                    rhs: one,
                    negated: true,
                },
            );
            at = next;
        }
    }
    g
}
