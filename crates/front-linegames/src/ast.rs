//! The LineGames syntax tree: one statement per line, every part spanned.

use crate::direction::Dir;
use rg_core::Span;

/// A value with the span of the source text it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// A number as written; `value` saturates at `u64::MAX` (the checker reports numbers beyond
/// its caps, LG016).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Num {
    pub value: u64,
    pub span: Span,
}

/// A point name as written.
pub type Ident = Spanned<String>;

/// A parsed `.lg` file: its statements in source order (blank lines and comments dropped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub stmts: Vec<Stmt>,
}

/// One statement (one line, or several for a placement continued after commas).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// The statements: the title, the board (base shape, triangles, extra points, lines), the
/// initial position (`white`, `black`, `empty` placements), the capture rule and the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `game "Title"`.
    Game(Spanned<String>),
    /// `board SHAPE`.
    Board(Shape),
    /// `triangle D rows N`.
    Triangle { dir: Spanned<Dir>, rows: Num },
    /// `points A B …`.
    Points(Vec<Ident>),
    /// `line D A B …` (fewer than two names is reported by the checker, LG008).
    Line {
        dir: Spanned<Dir>,
        names: Vec<Ident>,
    },
    /// `white|black|empty SEL, …`; a placement by any other word is parsed so that it can be
    /// reported as a piece of an undeclared side.
    Place {
        side: Spanned<Side>,
        selectors: Vec<Selector>,
    },
    /// `capture O C`.
    Capture {
        obligation: Spanned<Obligation>,
        continuation: Spanned<Continuation>,
    },
    /// `limit turns T` / `limit quiet Q`.
    Limit {
        kind: Spanned<LimitKind>,
        value: Num,
    },
}

/// A generated base shape (`point`, `alquerque`, `grid`, `crossed` or `circle`), whose points
/// are named `cy<row>x<column>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `point`.
    Point,
    /// `grid|alquerque|crossed W by H`.
    Rect {
        kind: RectKind,
        width: Num,
        height: Num,
    },
    /// `circle S spokes R rings`.
    Circle { spokes: Num, rings: Num },
}

/// The rectangular base shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RectKind {
    Grid,
    Alquerque,
    Crossed,
}

impl RectKind {
    /// The keyword.
    pub fn name(self) -> &'static str {
        match self {
            RectKind::Grid => "grid",
            RectKind::Alquerque => "alquerque",
            RectKind::Crossed => "crossed",
        }
    }
}

/// What a placement puts on its points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
    Empty,
    /// Any other word: an error (only `white` and `black` have men).
    Unknown(String),
}

/// An inclusive span `A..B` (`A` alone means `A..A`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub from: Num,
    pub to: Num,
    pub span: Span,
}

/// A selector of the initial position: named points, rows, columns, spokes, rings or a
/// triangle's rows, alone or as ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// A point by name.
    Name(Ident),
    /// `rows A..B [cols C..D]` or `cols C..D`.
    Grid {
        rows: Option<Range>,
        cols: Option<Range>,
        span: Span,
    },
    /// `spokes A..B [rings C..D]`.
    Circle {
        spokes: Range,
        rings: Option<Range>,
        span: Span,
    },
    /// `triangle D [rows A..B]`.
    Triangle {
        dir: Spanned<Dir>,
        rows: Option<Range>,
        span: Span,
    },
}

impl Selector {
    /// The span of the whole selector.
    pub fn span(&self) -> Span {
        match self {
            Selector::Name(n) => n.span,
            Selector::Grid { span, .. }
            | Selector::Circle { span, .. }
            | Selector::Triangle { span, .. } => *span,
        }
    }
}

/// `mandatory` or `optional`: whether a side that can capture must capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obligation {
    Mandatory,
    Optional,
}

/// `single`, `chain` or `split`: after a jump the capture ends, goes on with further jumps of the
/// same man in one move, or goes on in further moves of the same side (each tagged `CONTINUE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuation {
    Single,
    Chain,
    Split,
}

/// `turns` or `quiet`: the game ends (scored by material) after that many turns, or after that
/// many turns in a row without a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitKind {
    Turns,
    Quiet,
}
