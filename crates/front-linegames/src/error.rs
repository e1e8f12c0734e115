//! The LineGames front-end's diagnostics: one error enum whose codes carry a stable number and
//! a name (`lg::LG007::link_conflict`), the wrapper that reports several errors at once, and
//! the warnings (a game that is playable but probably not what was meant).

use miette::{Diagnostic, SourceSpan};
use std::fmt;
use thiserror::Error;

/// One error in a `.lg` file.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum LgError {
    /// LG001: a character that starts no token.
    #[error("unexpected character `{ch}`")]
    #[diagnostic(
        code(lg::LG001::unexpected_character),
        help("LineGames has names, numbers, `..`, `,`, one quoted title, and `#` comments")
    )]
    UnexpectedChar {
        ch: char,
        #[label("not part of any LineGames token")]
        span: SourceSpan,
    },

    /// LG001: a word starting with an upper-case letter or `_`.
    #[error("`{word}` is not a point name: point names start with a lower-case letter")]
    #[diagnostic(
        code(lg::LG001::capital_name),
        help("keywords and point names are written in lower case, e.g. `nodeL`")
    )]
    CapitalWord {
        word: String,
        #[label("starts with `{first}`")]
        span: SourceSpan,
        first: char,
    },

    /// LG001: a string without its closing quote.
    #[error("this string is not closed")]
    #[diagnostic(
        code(lg::LG001::unterminated_string),
        help("add a closing `\"` on the same line")
    )]
    UnterminatedString {
        #[label("this string runs to the end of the line")]
        span: SourceSpan,
    },

    /// LG001: a token the grammar does not allow here.
    #[error("unexpected {found}, expected {expected}")]
    #[diagnostic(code(lg::LG001::syntax))]
    Syntax {
        found: String,
        expected: String,
        #[label("unexpected {found}")]
        span: SourceSpan,
        #[help]
        help: Option<String>,
    },

    /// LG001: `board` followed by a word that is not a shape.
    #[error("unknown board shape `{name}`")]
    #[diagnostic(code(lg::LG001::unknown_board))]
    UnknownBoard {
        name: String,
        #[label("not a board shape")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG001: a word where a direction is expected.
    #[error("unknown direction `{name}`")]
    #[diagnostic(code(lg::LG001::unknown_direction))]
    UnknownDirection {
        name: String,
        #[label("not a direction")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG001: a line starting with a word that begins no statement.
    #[error("unknown statement `{name}`")]
    #[diagnostic(code(lg::LG001::unknown_statement))]
    UnknownStatement {
        name: String,
        #[label("no statement starts with this word")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG001: a placement of men of a side other than `white` and `black`.
    #[error("`{name}` is not a side: pieces belong to `white` or `black`")]
    #[diagnostic(code(lg::LG001::unknown_side))]
    UnknownSide {
        name: String,
        #[label("undeclared side")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG002: the first statement is not `game`.
    #[error("a LineGames file starts with its `game` statement")]
    #[diagnostic(
        code(lg::LG002::game_not_first),
        help("move `game \"Title\"` before every other statement")
    )]
    GameNotFirst {
        #[label("the first statement")]
        span: SourceSpan,
        #[label("the `game` statement")]
        game: Option<SourceSpan>,
    },

    /// LG002: no `game` statement at all.
    #[error("missing `game` statement")]
    #[diagnostic(
        code(lg::LG002::missing_game),
        help("start the file with `game \"Title\"`")
    )]
    MissingGame {
        #[label("expected `game \"Title\"` before this")]
        span: SourceSpan,
    },

    /// LG002: a second `game` statement.
    #[error("a second `game` statement")]
    #[diagnostic(
        code(lg::LG002::second_game),
        help("a file describes exactly one game")
    )]
    SecondGame {
        #[label("second")]
        span: SourceSpan,
        #[label("first")]
        first: SourceSpan,
    },

    /// LG003: a second `board`, `capture`, `limit turns` or `limit quiet` statement.
    #[error("a second `{what}` statement {relation} the first")]
    #[diagnostic(code(lg::LG003::repeated_statement))]
    Repeated {
        what: String,
        relation: &'static str,
        #[label("second")]
        span: SourceSpan,
        #[label("first")]
        first: SourceSpan,
        #[help]
        help: String,
    },

    /// LG004: no `capture` statement.
    #[error("missing `capture` statement")]
    #[diagnostic(
        code(lg::LG004::missing_capture),
        help(
            "say which capture rule applies, e.g. `capture optional single` or `capture mandatory chain`"
        )
    )]
    MissingCapture {
        #[label("this game has no capture rule")]
        span: SourceSpan,
    },

    /// LG004: no `limit` statement.
    #[error("missing `limit` statement")]
    #[diagnostic(
        code(lg::LG004::missing_limit),
        help(
            "every game needs a limit so that it ends, e.g. `limit turns 1250` or `limit quiet 100`"
        )
    )]
    MissingLimit {
        #[label("this game has no limit")]
        span: SourceSpan,
    },

    /// LG005: dimensions a shape does not allow.
    #[error("{message}")]
    #[diagnostic(code(lg::LG005::bad_dimensions))]
    BadDimensions {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[help]
        help: Option<String>,
    },

    /// LG006: a triangle that cannot be attached.
    #[error("{message}")]
    #[diagnostic(code(lg::LG006::bad_triangle))]
    BadTriangle {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[label("first")]
        first: Option<SourceSpan>,
        #[help]
        help: Option<String>,
    },

    /// LG007: a second, different neighbour in one direction.
    #[error("`{point}` would get two {dir} neighbours, `{existing}` and `{new}`")]
    #[diagnostic(
        code(lg::LG007::link_conflict),
        help(
            "a point has at most one neighbour per direction; remove or redirect one of the links"
        )
    )]
    LinkConflict {
        point: String,
        dir: String,
        existing: String,
        new: String,
        #[label("links `{point}` to `{new}`")]
        span: SourceSpan,
        #[label("links `{point}` to `{existing}`")]
        first: Option<SourceSpan>,
    },

    /// LG008: a `line` with fewer than two names.
    #[error("a line needs at least two points")]
    #[diagnostic(
        code(lg::LG008::short_line),
        help("write `line DIRECTION A B …`: it links A to B, B to the next point, and so on")
    )]
    ShortLine {
        #[label("{count} point{plural}")]
        span: SourceSpan,
        count: usize,
        plural: &'static str,
    },

    /// LG008: the same name twice in a row in a `line` (a point cannot neighbour itself).
    #[error("`{name}` cannot be linked to itself")]
    #[diagnostic(code(lg::LG008::self_link))]
    SelfLink {
        name: String,
        #[label("the same point twice in a row")]
        span: SourceSpan,
    },

    /// LG009: a declared point whose name is taken.
    #[error("point `{name}` already exists")]
    #[diagnostic(code(lg::LG009::duplicate_point))]
    DuplicatePoint {
        name: String,
        #[label("declared again here")]
        span: SourceSpan,
        #[label("first declared here")]
        first: Option<SourceSpan>,
        #[help]
        help: Option<String>,
    },

    /// LG009: a declared point with a reserved name.
    #[error("`{name}` is reserved and cannot name a point")]
    #[diagnostic(code(lg::LG009::reserved_name))]
    ReservedName {
        name: String,
        #[label("reserved")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG010: a name that is not a point of the board.
    #[error("`{name}` is not a point of the board")]
    #[diagnostic(code(lg::LG010::unknown_point))]
    UnknownPoint {
        name: String,
        #[label("no such point")]
        span: SourceSpan,
        #[help]
        help: String,
    },

    /// LG011: a selector that does not fit the board.
    #[error("{message}")]
    #[diagnostic(code(lg::LG011::selector_mismatch))]
    SelectorMismatch {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        #[help]
        help: Option<String>,
    },

    /// LG012: a span `A..B` with `A > B`, or outside the board.
    #[error("{message}")]
    #[diagnostic(code(lg::LG012::bad_span))]
    BadSpan {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
    },

    /// LG013: a selector that selects no point.
    #[error("this selector selects no point")]
    #[diagnostic(code(lg::LG013::empty_selector))]
    EmptySelector {
        #[label("no point here")]
        span: SourceSpan,
        #[help]
        help: Option<String>,
    },

    /// LG014: a limit of 0.
    #[error("a limit of 0 ends the game before it starts")]
    #[diagnostic(
        code(lg::LG014::zero_limit),
        help("limits count turns and are at least 1")
    )]
    ZeroLimit {
        #[label("0")]
        span: SourceSpan,
    },

    /// LG015: a board without any link.
    #[error("the board has no link, so no man could ever move")]
    #[diagnostic(
        code(lg::LG015::no_links),
        help("add a base shape (`board alquerque 5 by 5`), a triangle, or `line` statements")
    )]
    NoLinks {
        #[label("{label}")]
        span: SourceSpan,
        label: &'static str,
    },

    /// LG016: a number beyond the front-end's caps.
    #[error("{value} is too large {what} (at most {cap})")]
    #[diagnostic(code(lg::LG016::too_large))]
    TooLarge {
        value: String,
        what: &'static str,
        cap: u64,
        #[label("too large")]
        span: SourceSpan,
    },

    /// The generated HRG was rejected: a bug in this front-end.
    #[error("internal error: the HRG generated for this game was rejected: {message}")]
    #[diagnostic(
        code(lg::internal),
        help(
            "this is a bug in rgt's LineGames front-end; please report it with this file \
             (`rgt translate FILE --emit hrg` prints the generated HRG)"
        )
    )]
    Internal {
        message: String,
        #[label("generated from here")]
        span: Option<SourceSpan>,
    },
}

impl LgError {
    /// Where the error points, for sorting.
    fn offset(&self) -> usize {
        self.labels()
            .and_then(|mut l| l.next())
            .map_or(0, |l| l.offset())
    }
}

/// Every error of one `.lg` file (at least one), sorted by position. One error is reported as
/// itself; several are reported as one diagnostic with the others related.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LgErrors {
    pub errors: Vec<LgError>,
}

impl LgErrors {
    /// The errors, sorted by position (stable for errors at the same place).
    pub fn new(mut errors: Vec<LgError>) -> Self {
        errors.sort_by_key(LgError::offset);
        errors.dedup();
        LgErrors { errors }
    }

    fn single(&self) -> Option<&LgError> {
        match self.errors.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

impl From<LgError> for LgErrors {
    fn from(e: LgError) -> Self {
        LgErrors { errors: vec![e] }
    }
}

impl fmt::Display for LgErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.single() {
            Some(e) => fmt::Display::fmt(e, f),
            None => write!(f, "{} errors in the LineGames file", self.errors.len()),
        }
    }
}

impl std::error::Error for LgErrors {}

impl Diagnostic for LgErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self.single() {
            Some(e) => e.code(),
            None => Some(Box::new("lg::errors")),
        }
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.single().and_then(|e| e.help())
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.single().and_then(|e| e.labels())
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.single().is_some() {
            return None;
        }
        Some(Box::new(self.errors.iter().map(|e| e as &dyn Diagnostic)))
    }
}

/// A warning: the game is playable but probably not what was meant.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
#[diagnostic(severity(Warning))]
pub enum LgWarning {
    /// A side without men loses at its first turn.
    #[error("{side} has no men and loses at its first turn")]
    #[diagnostic(code(lg::warning::no_men))]
    NoMen {
        side: &'static str,
        #[label("the game")]
        span: SourceSpan,
    },

    /// A point without any link can never be reached or left.
    #[error("point `{name}` has no link")]
    #[diagnostic(
        code(lg::warning::isolated_point),
        help("a man on it can never move; link it with a `line` statement")
    )]
    IsolatedPoint {
        name: String,
        #[label("declared here")]
        span: SourceSpan,
    },

    /// The links split the board into separate parts.
    #[error("the board is not connected: `{a}` and `{b}` are not joined by any path")]
    #[diagnostic(code(lg::warning::disconnected))]
    Disconnected {
        a: String,
        b: String,
        #[label("board")]
        span: SourceSpan,
    },
}
