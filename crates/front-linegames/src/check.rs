//! Static checks over the whole file, collecting every error: statement order and counts
//! (LG002–LG004, LG014, LG016), then the board and, when the board is sound, the initial
//! position. The result is the checked game the lowering works from.

use crate::ast::{
    Continuation, File, LimitKind, Obligation, Selector, Shape, Side, Spanned, Stmt, StmtKind,
};
use crate::board::{Board, Part, too_large};
use crate::error::{LgError, LgErrors, LgWarning};
use crate::setup::{Man, place};
use rg_core::Span;

/// The cap on limits (LG016 beyond).
pub const MAX_LIMIT: u64 = 100_000;

/// A checked LineGames game: everything the lowering needs.
#[derive(Clone, Debug)]
pub struct LineGame {
    pub title: String,
    pub board: Board,
    /// The man on each point at the start (indexed like the board's points).
    pub cells: Vec<Option<Man>>,
    pub obligation: Obligation,
    pub continuation: Continuation,
    /// `limit turns T`.
    pub turns: Option<u32>,
    /// `limit quiet Q`.
    pub quiet: Option<u32>,
    /// Where the parts of the game were written, for the spans of the generated HRG.
    pub(crate) origins: Origins,
}

/// Source spans of the statements each part of the generated HRG comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origins {
    pub game: Span,
    pub board: Span,
    pub setup: Span,
    pub capture: Span,
    pub turns: Option<Span>,
    pub quiet: Option<Span>,
}

impl LineGame {
    /// The number of men of a side at the start.
    pub fn men(&self, man: Man) -> usize {
        self.cells.iter().filter(|c| **c == Some(man)).count()
    }
}

/// Checks a parsed file; on success returns the game and its warnings.
pub fn check(file: &File, whole: Span) -> Result<(LineGame, Vec<LgWarning>), LgErrors> {
    let mut errors = Vec::new();
    let stmts = &file.stmts;
    let Statements {
        game,
        board,
        capture,
        limits,
        parts,
        placements,
    } = statements(stmts, &mut errors);
    let first_span = stmts.first().map_or(whole, |s| s.span);
    if game.is_none() {
        errors.push(LgError::MissingGame {
            span: Span::new(
                whole.file,
                first_span.start as usize,
                first_span.start as usize,
            )
            .into(),
        });
    }
    let head = game.as_ref().map_or(first_span, |(_, s)| *s);
    if capture.is_none() {
        errors.push(LgError::MissingCapture { span: head.into() });
    }
    if limits.iter().all(Option::is_none) {
        errors.push(LgError::MissingLimit { span: head.into() });
    }

    let before = errors.len();
    let built = Board::build(board, &parts, head, &mut errors);
    let board_errors = errors.len() > before;
    let cells = if board_errors {
        Vec::new()
    } else {
        place(
            &built,
            placements.iter().map(|(side, sels, _)| (*side, *sels)),
            &mut errors,
        )
    };
    let (Some((title, game_span)), Some(((obligation, continuation), capture_span)), true) =
        (game, capture, errors.is_empty())
    else {
        return Err(LgErrors::new(errors));
    };
    let board_span = board.map_or_else(
        || {
            parts
                .iter()
                .find_map(|p| match p {
                    Part::Points(n) => n.first().map(|n| n.span),
                    Part::Line { span, .. } | Part::Triangle { span, .. } => Some(*span),
                })
                .unwrap_or(game_span)
        },
        |(_, s)| s,
    );
    let setup = placements
        .iter()
        .map(|(_, _, s)| *s)
        .reduce(Span::to)
        .unwrap_or(game_span);
    let mut warnings = built.warnings(board_span);
    let lg = LineGame {
        title,
        board: built,
        cells,
        obligation,
        continuation,
        turns: limits[0].map(|(v, _)| v),
        quiet: limits[1].map(|(v, _)| v),
        origins: Origins {
            game: game_span,
            board: board_span,
            setup,
            capture: capture_span,
            turns: limits[0].map(|(_, s)| s),
            quiet: limits[1].map(|(_, s)| s),
        },
    };
    for (man, side) in [(Man::White, "white"), (Man::Black, "black")] {
        if lg.men(man) == 0 {
            warnings.push(LgWarning::NoMen {
                side,
                span: game_span.into(),
            });
        }
    }
    Ok((lg, warnings))
}

/// The statements of a file by kind: the first `game`, `board` and `capture` statement and the
/// first limit of each kind (with where each was written), and every board part and placement
/// in source order.
struct Statements<'f> {
    game: Option<(String, Span)>,
    board: Option<(&'f Shape, Span)>,
    capture: Option<((Obligation, Continuation), Span)>,
    /// `limit turns`, then `limit quiet`.
    limits: [Option<(u32, Span)>; 2],
    parts: Vec<Part<'f>>,
    placements: Vec<(&'f Spanned<Side>, &'f [Selector], Span)>,
}

/// Sorts the statements by kind, reporting a `game` statement that is not the first
/// statement, a second `game`, `board`, `capture` or limit of one kind (as a repetition or a
/// contradiction of the first), and a limit that is zero or over [`MAX_LIMIT`] (which is then
/// used in its place).
fn statements<'f>(stmts: &'f [Stmt], errors: &mut Vec<LgError>) -> Statements<'f> {
    let mut game = None;
    let mut board = None;
    let mut capture = None;
    let mut limits: [Option<(u32, Span)>; 2] = [None, None];
    let mut parts = Vec::new();
    let mut placements = Vec::new();
    for (i, s) in stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Game(title) => match game {
                None => {
                    game = Some((title.value.clone(), s.span));
                    if i > 0 {
                        errors.push(LgError::GameNotFirst {
                            span: stmts[0].span.into(),
                            game: Some(s.span.into()),
                        });
                    }
                }
                Some((_, first)) => errors.push(LgError::SecondGame {
                    span: s.span.into(),
                    first: first.into(),
                }),
            },
            StmtKind::Board(shape) => match board {
                None => board = Some((shape, s.span)),
                Some((first_shape, first)) => errors.push(repeated(
                    "board",
                    s.span,
                    first,
                    first_shape == shape,
                    "a game has one base shape; extend it with `triangle`, `points` and `line`",
                )),
            },
            StmtKind::Triangle { dir, rows } => parts.push(Part::Triangle {
                dir,
                rows,
                span: s.span,
            }),
            StmtKind::Points(names) => parts.push(Part::Points(names)),
            StmtKind::Line { dir, names } => parts.push(Part::Line {
                dir: dir.value,
                names,
                span: s.span,
            }),
            StmtKind::Place { side, selectors } => {
                placements.push((side, selectors.as_slice(), s.span));
            }
            StmtKind::Capture {
                obligation,
                continuation,
            } => {
                let rule = (obligation.value, continuation.value);
                match capture {
                    None => capture = Some((rule, s.span)),
                    Some((first_rule, first)) => errors.push(repeated(
                        "capture",
                        s.span,
                        first,
                        first_rule == rule,
                        "a game has exactly one capture rule; keep one `capture` statement",
                    )),
                }
            }
            StmtKind::Limit { kind, value } => {
                let (slot, what, name) = match kind.value {
                    LimitKind::Turns => (0, "for a turn limit", "limit turns"),
                    LimitKind::Quiet => (1, "for a quiet limit", "limit quiet"),
                };
                if value.value == 0 {
                    errors.push(LgError::ZeroLimit {
                        span: value.span.into(),
                    });
                } else if value.value > MAX_LIMIT {
                    errors.push(too_large(value, what, MAX_LIMIT));
                }
                match limits[slot] {
                    None => limits[slot] = Some((value.value.min(MAX_LIMIT) as u32, s.span)),
                    Some((first_value, first)) => errors.push(repeated(
                        name,
                        s.span,
                        first,
                        u64::from(first_value) == value.value,
                        "each limit is given at most once",
                    )),
                }
            }
        }
    }
    Statements {
        game,
        board,
        capture,
        limits,
        parts,
        placements,
    }
}

fn repeated(what: &str, span: Span, first: Span, same: bool, help: &str) -> LgError {
    LgError::Repeated {
        what: what.to_owned(),
        relation: if same { "repeats" } else { "contradicts" },
        span: span.into(),
        first: first.into(),
        help: help.to_owned(),
    }
}
