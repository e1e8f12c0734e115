//! The initial position: selectors resolved against the board (LG010–LG013)
//! and placements applied in source order, later ones overriding earlier ones.

use crate::ast::{Range, Selector, Side, Spanned};
use crate::board::{Base, Board, PointKind};
use crate::error::LgError;
use rg_core::suggest::closest;

/// A man of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Man {
    White,
    Black,
}

/// The points a selector selects, or the errors that make it meaningless.
pub(crate) fn select(board: &Board, sel: &Selector, errors: &mut Vec<LgError>) -> Vec<usize> {
    let before = errors.len();
    let points: Vec<usize> = match sel {
        Selector::Name(n) => {
            return match board.point(&n.value) {
                Some(p) => vec![p],
                None => {
                    errors.push(board.unknown_point(n));
                    Vec::new()
                }
            };
        }
        Selector::Grid { rows, cols, span } => {
            let Some((w, h)) = board.base().and_then(Base::extent) else {
                errors.push(mismatch(
                    board,
                    format!(
                        "`{}` selects on a `point`, `grid`, `alquerque` or `crossed` board",
                        if rows.is_some() { "rows" } else { "cols" }
                    ),
                    *span,
                ));
                return Vec::new();
            };
            let rows = rows.map(|r| check_range(r, 0, h - 1, "rows", errors));
            let cols = cols.map(|c| check_range(c, 0, w - 1, "cols", errors));
            (0..board.len())
                .filter(|&p| match board.kind(p) {
                    PointKind::Cell { x, y } => {
                        rows.as_ref().is_none_or(|r| r.contains(&y))
                            && cols.as_ref().is_none_or(|c| c.contains(&x))
                    }
                    _ => false,
                })
                .collect()
        }
        Selector::Circle {
            spokes,
            rings,
            span,
        } => {
            let Some(Base::Circle {
                spokes: s,
                rings: r,
            }) = board.base()
            else {
                errors.push(mismatch(
                    board,
                    "`spokes` selects on a `circle` board".into(),
                    *span,
                ));
                return Vec::new();
            };
            let spokes = check_range(*spokes, 0, s - 1, "spokes", errors);
            let rings = rings.map(|c| check_range(c, 1, r, "rings", errors));
            (0..board.len())
                .filter(|&p| match board.kind(p) {
                    PointKind::Ring { spoke, ring } => {
                        spokes.contains(&spoke) && rings.as_ref().is_none_or(|r| r.contains(&ring))
                    }
                    _ => false,
                })
                .collect()
        }
        Selector::Triangle { dir, rows, span } => {
            let Some(&(_, n)) = board.triangles().iter().find(|(d, _)| *d == dir.value) else {
                let have: Vec<String> = board
                    .triangles()
                    .iter()
                    .map(|(d, _)| format!("`triangle {d}`"))
                    .collect();
                errors.push(LgError::SelectorMismatch {
                    message: format!("there is no {} triangle", dir.value),
                    span: (*span).into(),
                    label: "no such triangle".into(),
                    help: Some(if have.is_empty() {
                        "attach one with `triangle DIRECTION rows N`".into()
                    } else {
                        format!("the board has {}", have.join(", "))
                    }),
                });
                return Vec::new();
            };
            let rows = rows.map(|r| check_range(r, 1, n, "triangle rows", errors));
            (0..board.len())
                .filter(|&p| match board.kind(p) {
                    PointKind::Triangle { dir: d, row, .. } => {
                        d == dir.value && rows.as_ref().is_none_or(|r| r.contains(&row))
                    }
                    _ => false,
                })
                .collect()
        }
    };
    if points.is_empty() && errors.len() == before {
        errors.push(LgError::EmptySelector {
            span: sel.span().into(),
            help: matches!(
                board.base(),
                Some(Base::Rect {
                    kind: crate::ast::RectKind::Crossed,
                    ..
                })
            )
            .then(|| "a `crossed` board has points only where column + row is even".into()),
        });
    }
    points
}

/// The range as `u32`s, reporting a reversed range or one outside `min..=max` (LG012).
fn check_range(
    r: Range,
    min: u32,
    max: u32,
    what: &str,
    errors: &mut Vec<LgError>,
) -> std::ops::RangeInclusive<u32> {
    let (a, b) = (r.from.value, r.to.value);
    let shown = if a == b {
        a.to_string()
    } else {
        format!("{a}..{b}")
    };
    if a > b {
        errors.push(LgError::BadSpan {
            message: format!("the span {shown} is reversed"),
            span: r.span.into(),
            label: format!("write {b}..{a}"),
        });
    } else if a < u64::from(min) || b > u64::from(max) {
        let message = if a == b {
            format!("{} {shown} is not on the board", what.trim_end_matches('s'))
        } else {
            format!("{what} {shown} are not all on the board")
        };
        errors.push(LgError::BadSpan {
            message,
            span: r.span.into(),
            label: format!("the board has {what} {min}..{max}"),
        });
    }
    let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
    clamp(a)..=clamp(b)
}

fn mismatch(board: &Board, message: String, span: rg_core::Span) -> LgError {
    let (label, help) = match board.base() {
        Some(Base::Circle { .. }) => (
            "the board is a circle",
            "select circle points with `spokes A..B [rings C..D]`",
        ),
        Some(_) => (
            "the board has no spokes",
            "select points with `rows A..B [cols C..D]`",
        ),
        None => (
            "the board has no base shape",
            "select the points by name (or by `triangle D`)",
        ),
    };
    LgError::SelectorMismatch {
        message,
        span: span.into(),
        label: label.into(),
        help: Some(help.into()),
    }
}

/// The men after all placements, one entry per point.
pub(crate) fn place<'a>(
    board: &Board,
    placements: impl IntoIterator<Item = (&'a Spanned<Side>, &'a [Selector])>,
    errors: &mut Vec<LgError>,
) -> Vec<Option<Man>> {
    let mut cells = vec![None; board.len()];
    for (side, selectors) in placements {
        let man = match &side.value {
            Side::White => Some(Man::White),
            Side::Black => Some(Man::Black),
            Side::Empty => None,
            Side::Unknown(name) => {
                errors.push(LgError::UnknownSide {
                    name: name.clone(),
                    span: side.span.into(),
                    help: match closest(name, ["white", "black", "empty"]) {
                        Some(c) => format!("did you mean `{c}`?"),
                        None => {
                            "the two sides are `white` and `black`; `empty` clears points".into()
                        }
                    },
                });
                None
            }
        };
        for sel in selectors {
            for p in select(board, sel, errors) {
                cells[p] = man;
            }
        }
    }
    cells
}
