//! Boards: the generators `rectangle`, `hexagon` and `cuboid`, and explicit graphs.

use super::{PResult, Parser};
use crate::error::{Code, RbgError};
use crate::syntax::ast::Vertex;
use crate::syntax::lexer::Tok;
use miette::LabeledSpan;
use rg_core::Span;

impl Parser<'_> {
    /// A generator's rows: `[cell, …]` juxtaposed, a cell being a piece or nothing.
    fn rows(&mut self) -> PResult<Vec<Vec<Option<String>>>> {
        let mut rows = Vec::new();
        while self.is("[") {
            self.pos += 1;
            let mut cells = Vec::new();
            if !self.is("]") {
                loop {
                    match self.peek().clone() {
                        Tok::Ident(p) => {
                            self.pos += 1;
                            cells.push(Some(p));
                        }
                        _ => cells.push(None),
                    }
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect("]")?;
            rows.push(cells);
        }
        Ok(rows)
    }

    fn labels(&mut self, n: usize) -> PResult<Vec<String>> {
        let mut v = Vec::new();
        for _ in 0..n {
            v.push(self.ident("a direction label")?);
            self.expect(",")?;
        }
        Ok(v)
    }

    /// A board: a generator call or an explicit graph. The generators `rectangle`, `hexagon`
    /// and `cuboid` take their direction labels, then rows of cells (a piece, or nothing for
    /// a hole); each cell with a piece is a vertex with an edge to each neighbour that exists.
    pub fn board(&mut self) -> PResult<(Vec<Vertex>, Vec<String>)> {
        let start = self.span();
        let generator = match self.peek() {
            Tok::Ident(g) if matches!(g.as_str(), "rectangle" | "hexagon" | "cuboid") => g.clone(),
            _ => return Ok((self.explicit_board()?, Vec::new())),
        };
        self.pos += 1;
        self.expect("(")?;
        let mut out = Vec::new();
        let labels = match generator.as_str() {
            "rectangle" => self.rectangle(start, &mut out)?,
            "hexagon" => self.hexagon(start, &mut out)?,
            _ => self.cuboid(start, &mut out)?,
        };
        self.expect(")")?;
        if out.is_empty() {
            return Err(RbgError::new(
                Code::BadShape,
                "the board has no vertex",
                start,
            ));
        }
        Ok((out, labels))
    }

    /// `rectangle(up, down, left, right, rows)`: vertex `rx<x>y<y>` for the cell in column x
    /// of row y. Returns the labels.
    fn rectangle(&mut self, start: Span, out: &mut Vec<Vertex>) -> PResult<Vec<String>> {
        let vertex = |name: String, piece: String, edges: Vec<(String, String)>| Vertex {
            name,
            piece,
            edges,
            span: start,
        };
        let l = self.labels(4)?;
        let rows = self.rows()?;
        if rows.is_empty() {
            return Err(RbgError::new(
                Code::BadShape,
                "a rectangle needs at least one row",
                start,
            ));
        }
        let w = rows[0].len();
        if rows.iter().any(|r| r.len() != w) {
            return Err(RbgError::new(
                Code::BadShape,
                "the rows of a rectangle differ in length",
                start,
            ));
        }
        let cell = |x: i64, y: i64| -> Option<String> {
            if x < 0 || y < 0 || y as usize >= rows.len() || x as usize >= w {
                return None;
            }
            rows[y as usize][x as usize]
                .as_ref()
                .map(|_| format!("rx{x}y{y}"))
        };
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.iter().enumerate() {
                let Some(p) = c else { continue };
                let (x, y) = (x as i64, y as i64);
                let mut edges = Vec::new();
                for (lab, (dx, dy)) in l.iter().zip([(0, -1), (0, 1), (-1, 0), (1, 0)]) {
                    if let Some(t) = cell(x + dx, y + dy) {
                        edges.push((lab.clone(), t));
                    }
                }
                out.push(vertex(format!("rx{x}y{y}"), p.clone(), edges));
            }
        }
        Ok(l)
    }

    /// `hexagon(six labels, rows)`: rows grow by one cell up to the widest, then shrink by
    /// one; vertex `hx<x>y<y>`. Returns the labels.
    fn hexagon(&mut self, start: Span, out: &mut Vec<Vertex>) -> PResult<Vec<String>> {
        let vertex = |name: String, piece: String, edges: Vec<(String, String)>| Vertex {
            name,
            piece,
            edges,
            span: start,
        };
        let l = self.labels(6)?;
        let rows = self.rows()?;
        if rows.is_empty() || rows.iter().any(Vec::is_empty) {
            return Err(RbgError::new(
                Code::BadShape,
                "a hexagon needs non-empty rows",
                start,
            ));
        }
        let lens: Vec<usize> = rows.iter().map(Vec::len).collect();
        let peak = (0..lens.len() - 1)
            .find(|&y| lens[y + 1] < lens[y])
            .unwrap_or(lens.len() - 1);
        let shaped = (0..lens.len() - 1).all(|y| {
            if y < peak {
                lens[y + 1] == lens[y] + 1
            } else {
                lens[y + 1] + 1 == lens[y]
            }
        });
        if !shaped {
            return Err(RbgError::new(
                Code::BadShape,
                "hexagon rows must grow by one cell up to the widest row, then shrink by one",
                start,
            ));
        }
        let cell = |x: i64, y: i64| -> Option<String> {
            if x < 0 || y < 0 || y as usize >= rows.len() || x as usize >= rows[y as usize].len() {
                return None;
            }
            rows[y as usize][x as usize]
                .as_ref()
                .map(|_| format!("hx{x}y{y}"))
        };
        let p = peak as i64;
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.iter().enumerate() {
                let Some(pc) = c else { continue };
                let (x, y) = (x as i64, y as i64);
                let (se, sw) = if y < p {
                    ((x + 1, y + 1), (x, y + 1))
                } else {
                    ((x, y + 1), (x - 1, y + 1))
                };
                let (ne, nw) = if y <= p {
                    ((x, y - 1), (x - 1, y - 1))
                } else {
                    ((x + 1, y - 1), (x, y - 1))
                };
                let targets = [nw, ne, (x + 1, y), se, sw, (x - 1, y)];
                let mut edges = Vec::new();
                for (lab, (tx, ty)) in l.iter().zip(targets) {
                    if let Some(t) = cell(tx, ty) {
                        edges.push((lab.clone(), t));
                    }
                }
                out.push(vertex(format!("hx{x}y{y}"), pc.clone(), edges));
            }
        }
        Ok(l)
    }

    /// `cuboid(six labels, [rows] layers)`: vertex `cx<x>y<y>z<z>`. Returns the labels.
    fn cuboid(&mut self, start: Span, out: &mut Vec<Vertex>) -> PResult<Vec<String>> {
        let vertex = |name: String, piece: String, edges: Vec<(String, String)>| Vertex {
            name,
            piece,
            edges,
            span: start,
        };
        let l = self.labels(6)?;
        let mut layers = Vec::new();
        while self.is("[") {
            self.pos += 1;
            layers.push(self.rows()?);
            self.expect("]")?;
        }
        if layers.is_empty() || layers[0].is_empty() {
            return Err(RbgError::new(
                Code::BadShape,
                "a cuboid needs at least one layer",
                start,
            ));
        }
        let (h, w) = (layers[0].len(), layers[0][0].len());
        if layers
            .iter()
            .any(|ly| ly.len() != h || ly.iter().any(|r| r.len() != w))
        {
            return Err(RbgError::new(
                Code::BadShape,
                "the layers of a cuboid differ in size",
                start,
            ));
        }
        let cell = |x: i64, y: i64, z: i64| -> Option<String> {
            if x < 0
                || y < 0
                || z < 0
                || z as usize >= layers.len()
                || y as usize >= h
                || x as usize >= w
            {
                return None;
            }
            layers[z as usize][y as usize][x as usize]
                .as_ref()
                .map(|_| format!("cx{x}y{y}z{z}"))
        };
        for (z, layer) in layers.iter().enumerate() {
            for (y, row) in layer.iter().enumerate() {
                for (x, c) in row.iter().enumerate() {
                    let Some(pc) = c else { continue };
                    let (x, y, z) = (x as i64, y as i64, z as i64);
                    let targets = [
                        (x, y - 1, z),
                        (x, y + 1, z),
                        (x - 1, y, z),
                        (x + 1, y, z),
                        (x, y, z + 1),
                        (x, y, z - 1),
                    ];
                    let mut edges = Vec::new();
                    for (lab, (tx, ty, tz)) in l.iter().zip(targets) {
                        if let Some(t) = cell(tx, ty, tz) {
                            edges.push((lab.clone(), t));
                        }
                    }
                    out.push(vertex(format!("cx{x}y{y}z{z}"), pc.clone(), edges));
                }
            }
        }
        Ok(l)
    }

    fn explicit_board(&mut self) -> PResult<Vec<Vertex>> {
        let mut out = Vec::new();
        let mut declared: std::collections::HashMap<String, Span> = Default::default();
        while !self.at_end() {
            let start = self.span();
            let at = self.pos;
            let name = self.ident("a vertex")?;
            if let Some(first) = declared.insert(name.clone(), start) {
                let mut e = self
                    .error_at(
                        Code::DuplicateVertex,
                        at,
                        format!("vertex `{name}` is declared twice"),
                    )
                    .help("every vertex of the board is declared once; remove or rename this one");
                e.related.push(LabeledSpan::new_with_span(
                    Some("first declared here".into()),
                    first,
                ));
                // Recorded: the rest of the board is still read.
                self.errors.push(e);
            }
            self.expect("[")?;
            let piece = self.ident("a piece")?;
            self.expect("]")?;
            self.expect("{")?;
            let mut edges = Vec::new();
            if !self.is("}") {
                loop {
                    let l = self.ident("an edge label")?;
                    self.expect(":")?;
                    let t = self.ident("a vertex")?;
                    edges.push((l, t));
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect("}")?;
            out.push(Vertex {
                name,
                piece,
                edges,
                span: start,
            });
        }
        Ok(out)
    }
}
