//! The RBG syntax tree: arithmetic, rules, the board and the parsed game.

use rg_core::Span;

/// Arithmetic over numbers, variables, players (their scores) and pieces (their counts):
/// n-ary nodes evaluated left to right.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arith {
    Num(i64),
    Name(String),
    Op(char, Vec<Arith>),
}

/// A rules expression: alternatives `+`, sequences, `*`, shifts, `{pieces}` tests, `[piece]`
/// puts, `[$ v = e]` assignments, `{$ a op b}` comparisons, patterns `{? }`/`{! }`, switches
/// `->p`/`->>` and `.`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Rule {
    Alt(Vec<Rule>),
    Seq(Vec<Rule>),
    Star(Box<Rule>),
    Shift(String),
    On(Vec<String>),
    Off(String),
    Assign(String, Arith),
    Cmp(Arith, &'static str, Arith),
    Pattern(bool, Box<Rule>),
    Switch(Option<String>),
    Noop,
}

#[derive(Clone, Debug)]
pub(crate) struct Vertex {
    pub name: String,
    pub piece: String,
    pub edges: Vec<(String, String)>,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Game {
    pub players: Vec<(String, u64)>,
    pub pieces: Vec<String>,
    pub variables: Vec<(String, u64)>,
    pub board: Vec<Vertex>,
    /// Direction labels declared by a board generator (they may have no edge).
    pub labels: Vec<String>,
    pub rules: Option<Rule>,
    pub rules_span: Option<Span>,
}

/// What a declared name is: each name is one kind only (a label cannot also be a piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameKind {
    Piece,
    Player,
    Variable,
    Label,
}
