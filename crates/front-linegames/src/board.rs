//! Boards: the base-shape generators, triangles, extra points and lines, the
//! links they create (both halves, conflicts reported, LG007), and the direction table.

use crate::ast::{Ident, Num, RectKind, Shape, Spanned};
use crate::direction::Dir;
use crate::error::{LgError, LgWarning};
use rg_core::Span;
use rg_core::suggest::closest;
use std::collections::HashMap;

/// Caps on board numbers (LG016 beyond).
pub const MAX_DIMENSION: u64 = 255;

/// Names a declared point may not take besides the keywords: names of the generated HRG
/// and built-in names of HRG and RG (a point so named would be read as them).
pub const RESERVED: &[&str] = &[
    "null",
    "border",
    "whiteMan",
    "blackMan",
    "step",
    "other",
    "manOf",
    "gain",
    "whiteScore",
    "blackScore",
    "nextTurn",
    "nextQuiet",
    "me",
    "at",
    "board",
    "margin",
    "jumpFrom",
    "anyJump",
    "anyStep",
    "anyMove",
    "pickMan",
    "stepOn",
    "jumpOnce",
    "captureOn",
    "limits",
    "stuck",
    "rules",
    "keeper",
    "random",
    "player",
    "goals",
    "visible",
    "begin",
    "end",
    "const",
    "type",
    "var",
    "domain",
    "where",
    "in",
    "reusable",
    "graph",
    "branch",
    "or",
    "loop",
    "while",
    "repeat",
    "if",
    "then",
    "else",
    "check",
    "return",
    "break",
    "continue",
    "not",
    "reachable",
    "true",
    "false",
];

/// The generated base shape, with its checked dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// `board point`: the single point `cy0x0` (extent 1 × 1 for selectors).
    Point,
    /// `grid|alquerque|crossed W by H`.
    Rect {
        kind: RectKind,
        width: u32,
        height: u32,
    },
    /// `circle S spokes R rings`.
    Circle { spokes: u32, rings: u32 },
}

impl Base {
    /// The width and height used by selectors and triangle attachment (`None` for circles).
    pub fn extent(self) -> Option<(u32, u32)> {
        match self {
            Base::Point => Some((1, 1)),
            Base::Rect { width, height, .. } => Some((width, height)),
            Base::Circle { .. } => None,
        }
    }

    /// The base direction list, which starts the direction table whatever the links: the four
    /// orthogonal directions for `grid`, the eight compass directions for the other
    /// rectangular shapes and `point`, a circle's spokes then `clockwise anticlockwise`.
    fn directions(self) -> Vec<Dir> {
        match self {
            Base::Rect {
                kind: RectKind::Grid,
                ..
            } => vec![Dir::North, Dir::East, Dir::South, Dir::West],
            Base::Point | Base::Rect { .. } => Dir::COMPASS.to_vec(),
            Base::Circle { spokes, .. } => {
                let mut v = spoke_directions(spokes).to_vec();
                v.extend([Dir::Clockwise, Dir::Anticlockwise]);
                v
            }
        }
    }
}

/// The directions of the spokes of a circle of `spokes` spokes (2, 4, 6 or 8, clockwise from
/// north); empty for an unsupported count.
fn spoke_directions(spokes: u32) -> &'static [Dir] {
    use Dir::*;
    match spokes {
        2 => &[North, South],
        4 => &[North, East, South, West],
        6 => &[North, Northeast, East, South, Southwest, West],
        8 => &[
            North, Northeast, East, Southeast, South, Southwest, West, Northwest,
        ],
        _ => &[],
    }
}

/// Where a point comes from; selectors choose points by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointKind {
    /// A point of a `point`, `grid`, `alquerque` or `crossed` base at column `x`, row `y`.
    Cell { x: u32, y: u32 },
    /// The centre of a circle.
    Centre,
    /// A circle point on spoke `spoke`, ring `ring` (≥ 1).
    Ring { spoke: u32, ring: u32 },
    /// Row `row` (≥ 1), position `pos` (0..2) of the triangle attached in direction `dir`.
    Triangle { dir: Dir, row: u32, pos: u32 },
    /// A point declared by `points`.
    Extra,
}

/// A built board: points, links and the direction table.
#[derive(Clone, Debug)]
pub struct Board {
    names: Vec<String>,
    kinds: Vec<PointKind>,
    /// The statement (or name) that created each point.
    origins: Vec<Span>,
    index: HashMap<String, usize>,
    /// `links[p][d]`: the `d`-neighbour of `p` and the span of what created the link.
    links: Vec<[Option<(usize, Span)>; 10]>,
    base: Option<Base>,
    triangles: Vec<(Dir, u32)>,
    directions: Vec<Dir>,
    /// Name prefixes of the points a rejected base shape or triangle would have generated: an
    /// unknown name with such a prefix follows from an error already reported.
    failed: Vec<String>,
}

/// A board statement, as the checker hands it over.
#[derive(Debug)]
pub(crate) enum Part<'a> {
    Triangle {
        dir: &'a Spanned<Dir>,
        rows: &'a Num,
        span: Span,
    },
    Points(&'a [Ident]),
    Line {
        dir: Dir,
        names: &'a [Ident],
        span: Span,
    },
}

impl Board {
    /// Builds the board from its statements; every problem is pushed to `errors` and building
    /// goes on with what is valid, so independent errors are all reported.
    pub(crate) fn build(
        base: Option<(&Shape, Span)>,
        parts: &[Part<'_>],
        whole: Span,
        errors: &mut Vec<LgError>,
    ) -> Board {
        let mut b = Board {
            names: Vec::new(),
            kinds: Vec::new(),
            origins: Vec::new(),
            index: HashMap::new(),
            links: Vec::new(),
            base: None,
            triangles: Vec::new(),
            directions: Vec::new(),
            failed: Vec::new(),
        };
        let mut base_failed = false;
        if let Some((shape, span)) = base {
            match check_shape(shape, errors) {
                Some(base) => b.generate(base, span),
                None => {
                    base_failed = true;
                    b.failed.push("cy".into());
                }
            }
        }
        let mut seen: Vec<(Dir, Span)> = Vec::new();
        for part in parts {
            if let Part::Triangle { dir, rows, span } = part {
                if let Some(&(_, first)) = seen.iter().find(|(d, _)| *d == dir.value) {
                    errors.push(triangle_error(
                        format!("a second triangle in direction {}", dir.value),
                        *span,
                        "second",
                        Some(first),
                        Some("each direction has at most one triangle".into()),
                    ));
                    continue;
                }
                seen.push((dir.value, *span));
                let before = errors.len();
                if let Some(n) = triangle_rows(rows, errors)
                    && !base_failed
                {
                    b.attach_triangle(dir, n, *span, errors);
                }
                if base_failed || errors.len() > before {
                    b.failed.push(format!("t{}vy", dir.value));
                }
            }
        }
        for part in parts {
            if let Part::Points(names) = part {
                for n in *names {
                    b.declare(n, errors);
                }
            }
        }
        for part in parts {
            if let Part::Line { dir, names, span } = part {
                b.line(*dir, names, *span, errors);
            }
        }
        if !base_failed && !b.links.iter().flatten().any(Option::is_some) {
            errors.push(LgError::NoLinks {
                span: base.map_or(whole, |(_, s)| s).into(),
                label: if base.is_some() {
                    "this board"
                } else {
                    "no `board`, `triangle` or `line` statement links any points"
                },
            });
        }
        let mut dirs = b.base.map(Base::directions).unwrap_or_default();
        for d in Dir::ALL {
            if !dirs.contains(&d) && b.links.iter().any(|l| l[d.index()].is_some()) {
                dirs.push(d);
            }
        }
        b.directions = dirs;
        b
    }

    fn add(&mut self, name: String, kind: PointKind, origin: Span) -> usize {
        let id = self.names.len();
        self.index.insert(name.clone(), id);
        self.names.push(name);
        self.kinds.push(kind);
        self.origins.push(origin);
        self.links.push([None; 10]);
        id
    }

    /// Creates the link `a —d→ b` (and `b —opposite(d)→ a`), or reports a conflict (LG007).
    fn link(&mut self, a: usize, d: Dir, b: usize, span: Span, errors: &mut Vec<LgError>) {
        let o = d.opposite();
        let conflict = match (self.links[a][d.index()], self.links[b][o.index()]) {
            (Some((c, first)), _) if c != b => Some((a, d, c, b, first)),
            (_, Some((c, first))) if c != a => Some((b, o, c, a, first)),
            _ => None,
        };
        if let Some((p, dir, existing, new, first)) = conflict {
            errors.push(LgError::LinkConflict {
                point: self.names[p].clone(),
                dir: dir.name().to_owned(),
                existing: self.names[existing].clone(),
                new: self.names[new].clone(),
                span: span.into(),
                first: (first != span).then(|| first.into()),
            });
            return;
        }
        self.links[a][d.index()].get_or_insert((b, span));
        self.links[b][o.index()].get_or_insert((a, span));
    }

    fn generate(&mut self, base: Base, span: Span) {
        self.base = Some(base);
        let cell = |x: u32, y: u32| format!("cy{y}x{x}");
        match base {
            Base::Point => {
                self.add(cell(0, 0), PointKind::Cell { x: 0, y: 0 }, span);
            }
            Base::Rect {
                kind,
                width,
                height,
            } => {
                let crossed = kind == RectKind::Crossed;
                let mut at = HashMap::new();
                for y in 0..height {
                    for x in 0..width {
                        if !crossed || (x + y) % 2 == 0 {
                            let id = self.add(cell(x, y), PointKind::Cell { x, y }, span);
                            at.insert((x as i64, y as i64), id);
                        }
                    }
                }
                let mut links = Vec::new();
                for y in 0..height as i64 {
                    for x in 0..width as i64 {
                        let (ortho, diagonal) = match kind {
                            RectKind::Grid => (1, false),
                            RectKind::Alquerque => (1, (x + y) % 2 == 0),
                            RectKind::Crossed => ((x % 2 == 0 && y % 2 == 0) as i64 * 2, true),
                        };
                        if ortho > 0 {
                            links.push(((x, y), Dir::East, (x + ortho, y)));
                            links.push(((x, y), Dir::South, (x, y + ortho)));
                        }
                        if diagonal {
                            links.push(((x, y), Dir::Southeast, (x + 1, y + 1)));
                            links.push(((x, y), Dir::Southwest, (x - 1, y + 1)));
                        }
                    }
                }
                for (a, d, b) in links {
                    if let (Some(&a), Some(&b)) = (at.get(&a), at.get(&b)) {
                        self.link(a, d, b, span, &mut Vec::new());
                    }
                }
            }
            Base::Circle { spokes, rings } => {
                let centre = self.add(cell(0, 0), PointKind::Centre, span);
                let mut ids = vec![vec![centre; spokes as usize]];
                for ring in 1..=rings {
                    ids.push(
                        (0..spokes)
                            .map(|spoke| {
                                self.add(cell(spoke, ring), PointKind::Ring { spoke, ring }, span)
                            })
                            .collect(),
                    );
                }
                let dirs = spoke_directions(spokes);
                let mut none = Vec::new();
                for r in 0..rings as usize {
                    for (k, &d) in dirs.iter().enumerate() {
                        self.link(ids[r][k], d, ids[r + 1][k], span, &mut none);
                    }
                }
                for ring in &ids[1..] {
                    for k in 0..ring.len() {
                        let next = ring[(k + 1) % ring.len()];
                        self.link(ring[k], Dir::Clockwise, next, span, &mut none);
                    }
                }
            }
        }
    }

    fn attach_triangle(
        &mut self,
        dir: &Spanned<Dir>,
        n: u32,
        span: Span,
        errors: &mut Vec<LgError>,
    ) {
        let d = dir.value;
        let Some(base) = self.base else {
            errors.push(triangle_error(
                "a triangle needs a base shape to attach to".into(),
                span,
                "no `board` statement",
                None,
                Some("add `board point` (or another shape) for the triangle to attach to".into()),
            ));
            return;
        };
        let Some((w, h)) = base.extent() else {
            errors.push(triangle_error(
                "triangles cannot be attached to a circle board".into(),
                span,
                "the board is a circle",
                None,
                Some("use `points` and `line` statements to extend a circle board".into()),
            ));
            return;
        };
        let (x, y) = match d {
            Dir::North => (w / 2, 0),
            Dir::South => (w / 2, h - 1),
            Dir::East => (w - 1, h / 2),
            Dir::West => (0, h / 2),
            Dir::Northeast => (w - 1, 0),
            Dir::Northwest => (0, 0),
            Dir::Southeast => (w - 1, h - 1),
            Dir::Southwest | Dir::Clockwise | Dir::Anticlockwise => (0, h - 1),
        };
        let Some(&anchor) = self.index.get(&format!("cy{y}x{x}")) else {
            errors.push(triangle_error(
                format!(
                    "the {d} triangle would attach at column {x}, row {y}, which is not a point"
                ),
                dir.span,
                "no point to attach to",
                None,
                Some("on a `crossed` board only points with an even column + row exist".into()),
            ));
            return;
        };
        self.triangles.push((d, n));
        let rays = [d.rotated(1), d, d.rotated(-1)];
        let across = d.rotated(-2);
        let mut ids = Vec::new();
        for row in 1..=n {
            let r: Vec<usize> = (0..3)
                .map(|pos| {
                    let name = format!("t{}vy{row}x{pos}", d.name());
                    self.add(name, PointKind::Triangle { dir: d, row, pos }, span)
                })
                .collect();
            ids.push(r);
        }
        for (i, &ray) in rays.iter().enumerate() {
            self.link(anchor, ray, ids[0][i], span, errors);
            for row in 1..ids.len() {
                self.link(ids[row - 1][i], ray, ids[row][i], span, errors);
            }
        }
        for row in &ids {
            self.link(row[0], across, row[1], span, errors);
            self.link(row[1], across, row[2], span, errors);
        }
    }

    fn declare(&mut self, n: &Ident, errors: &mut Vec<LgError>) {
        if RESERVED.contains(&n.value.as_str()) {
            errors.push(LgError::ReservedName {
                name: n.value.clone(),
                span: n.span.into(),
                help: "this name is used by the generated HRG or by RG; choose another".into(),
            });
            return;
        }
        if let Some(&id) = self.index.get(&n.value) {
            let (first, help) = match self.kinds[id] {
                PointKind::Extra => (Some(self.origins[id].into()), None),
                _ => (
                    None,
                    Some("this name is generated by the board; a generated point needs no declaration".into()),
                ),
            };
            errors.push(LgError::DuplicatePoint {
                name: n.value.clone(),
                span: n.span.into(),
                first,
                help,
            });
            return;
        }
        self.add(n.value.clone(), PointKind::Extra, n.span);
    }

    fn line(&mut self, d: Dir, names: &[Ident], span: Span, errors: &mut Vec<LgError>) {
        if names.len() < 2 {
            errors.push(LgError::ShortLine {
                span: span.into(),
                count: names.len(),
                plural: if names.len() == 1 { "" } else { "s" },
            });
        }
        let ids: Vec<Option<usize>> = names
            .iter()
            .map(|n| {
                let id = self.point(&n.value);
                if id.is_none() && !self.failed.iter().any(|f| n.value.starts_with(f.as_str())) {
                    errors.push(self.unknown_point(n));
                }
                id
            })
            .collect();
        for (i, pair) in ids.windows(2).enumerate() {
            let (Some(a), Some(b)) = (pair[0], pair[1]) else {
                continue;
            };
            let at = names[i].span.to(names[i + 1].span);
            if a == b {
                errors.push(LgError::SelfLink {
                    name: names[i].value.clone(),
                    span: at.into(),
                });
            } else {
                self.link(a, d, b, at, errors);
            }
        }
    }

    /// The error for a name that is not a point, with the closest point name as a suggestion.
    pub(crate) fn unknown_point(&self, n: &Ident) -> LgError {
        let help = match closest(&n.value, self.names.iter().map(String::as_str)) {
            Some(c) => format!("did you mean `{c}`?"),
            None => "points are named `cy<row>x<column>` on generated boards, \
                     `t<direction>vy<row>x<position>` in triangles, or as declared by `points`"
                .to_owned(),
        };
        LgError::UnknownPoint {
            name: n.value.clone(),
            span: n.span.into(),
            help,
        }
    }

    /// Warnings about a board that is valid but probably not what was meant: a point without
    /// links, a board that is not connected.
    pub(crate) fn warnings(&self, whole: Span) -> Vec<LgWarning> {
        let mut out = Vec::new();
        for (p, l) in self.links.iter().enumerate() {
            if l.iter().all(Option::is_none) {
                out.push(LgWarning::IsolatedPoint {
                    name: self.names[p].clone(),
                    span: self.origins[p].into(),
                });
            }
        }
        if out.is_empty() && !self.names.is_empty() {
            let mut seen = vec![false; self.names.len()];
            let mut stack = vec![0];
            seen[0] = true;
            while let Some(p) = stack.pop() {
                for &(q, _) in self.links[p].iter().flatten() {
                    if !seen[q] {
                        seen[q] = true;
                        stack.push(q);
                    }
                }
            }
            if let Some(q) = seen.iter().position(|s| !s) {
                out.push(LgWarning::Disconnected {
                    a: self.names[0].clone(),
                    b: self.names[q].clone(),
                    span: whole.into(),
                });
            }
        }
        out
    }

    /// The id of the point called `name`.
    pub fn point(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the board has no point.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of point `p`.
    pub fn name(&self, p: usize) -> &str {
        &self.names[p]
    }

    /// Where point `p` comes from.
    pub fn kind(&self, p: usize) -> PointKind {
        self.kinds[p]
    }

    /// The `d`-neighbour of point `p`.
    pub fn neighbour(&self, p: usize, d: Dir) -> Option<usize> {
        self.links[p][d.index()].map(|(q, _)| q)
    }

    /// The number of links (each joins two points in two opposite directions).
    pub fn link_count(&self) -> usize {
        self.links.iter().flatten().flatten().count() / 2
    }

    /// The base shape, if there is one.
    pub fn base(&self) -> Option<Base> {
        self.base
    }

    /// The triangles: direction and number of rows, in source order.
    pub fn triangles(&self) -> &[(Dir, u32)] {
        &self.triangles
    }

    /// The direction table: the base shape's direction list, then every other direction some
    /// link uses, in canonical order. `S__k` is the move along `directions()[k]`.
    pub fn directions(&self) -> &[Dir] {
        &self.directions
    }
}

/// The number of rows of a triangle, if it is allowed (LG006, LG016).
fn triangle_rows(rows: &Num, errors: &mut Vec<LgError>) -> Option<u32> {
    if rows.value == 0 {
        errors.push(triangle_error(
            "a triangle has at least one row".into(),
            rows.span,
            "0 rows",
            None,
            None,
        ));
        return None;
    }
    if rows.value > MAX_DIMENSION {
        errors.push(too_large(rows, "for the rows of a triangle", MAX_DIMENSION));
        return None;
    }
    Some(rows.value as u32)
}

fn triangle_error(
    message: String,
    span: Span,
    label: &str,
    first: Option<Span>,
    help: Option<String>,
) -> LgError {
    LgError::BadTriangle {
        message,
        span: span.into(),
        label: label.to_owned(),
        first: first.map(Into::into),
        help,
    }
}

pub(crate) fn too_large(n: &Num, what: &'static str, cap: u64) -> LgError {
    LgError::TooLarge {
        value: if n.value == u64::MAX {
            "this number".into()
        } else {
            n.value.to_string()
        },
        what,
        cap,
        span: n.span.into(),
    }
}

/// Checks a shape's numbers (LG005, LG016); `None` when they are unusable.
fn check_shape(shape: &Shape, errors: &mut Vec<LgError>) -> Option<Base> {
    let before = errors.len();
    let dim = |n: &Num, what: &'static str, errors: &mut Vec<LgError>| {
        if n.value > MAX_DIMENSION {
            errors.push(too_large(n, what, MAX_DIMENSION));
        }
        n.value as u32
    };
    let base = match shape {
        Shape::Point => Base::Point,
        Shape::Rect {
            kind,
            width,
            height,
        } => {
            let w = dim(width, "for a board width", errors);
            let h = dim(height, "for a board height", errors);
            for (n, v, which) in [(width, w, "width"), (height, h, "height")] {
                if n.value > MAX_DIMENSION {
                    continue;
                }
                let odd = *kind != RectKind::Grid;
                if v == 0 || (odd && v % 2 == 0) {
                    errors.push(LgError::BadDimensions {
                        message: format!(
                            "the {which} of {} board must be {}",
                            match kind {
                                RectKind::Grid => "a `grid`",
                                RectKind::Alquerque => "an `alquerque`",
                                RectKind::Crossed => "a `crossed`",
                            },
                            if odd { "odd" } else { "at least 1" }
                        ),
                        span: n.span.into(),
                        label: format!("{which} {v}"),
                        help: odd.then(|| {
                            "its diagonals run through the points with an even column + row, \
                             so both sides have an odd number of points (e.g. `5 by 5`)"
                                .into()
                        }),
                    });
                }
            }
            Base::Rect {
                kind: *kind,
                width: w,
                height: h,
            }
        }
        Shape::Circle { spokes, rings } => {
            let r = dim(rings, "for the rings of a circle", errors);
            if !matches!(spokes.value, 2 | 4 | 6 | 8) {
                errors.push(LgError::BadDimensions {
                    message: "a circle has 2, 4, 6 or 8 spokes".into(),
                    span: spokes.span.into(),
                    label: "unsupported number of spokes".into(),
                    help: Some("spokes come in opposite pairs along the compass directions".into()),
                });
            }
            if rings.value == 0 {
                errors.push(LgError::BadDimensions {
                    message: "a circle has at least one ring".into(),
                    span: rings.span.into(),
                    label: "0 rings".into(),
                    help: None,
                });
            }
            Base::Circle {
                spokes: spokes.value.min(8) as u32,
                rings: r,
            }
        }
    };
    (errors.len() == before).then_some(base)
}
