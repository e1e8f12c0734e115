//! A layered (Sugiyama-style) layout of a directed graph of boxes, iterative throughout and
//! linear or `n log n` in the size of the graph per step, so it stays fast at a million edges:
//!
//! 1. cycles are broken by an iterative depth-first search from the roots (edges into a node
//!    still on the stack are back edges and do not constrain the layering);
//! 2. layers by longest path over the remaining acyclic graph (sources that are not roots are
//!    pulled down next to their first successor);
//! 3. the order within each layer starts from the depth-first discovery order and is improved by
//!    barycentre sweeps (down over predecessors, up over successors; edges spanning several
//!    layers count as if the layers between were not there, so no dummy nodes are needed);
//! 4. x coordinates: each box is pulled towards the mean of its neighbours while keeping the
//!    order and the minimum gap (the mean of a left-to-right and a right-to-left packing keeps
//!    both constraints), in three sweeps; a layer far wider than the drawing is tall is wrapped
//!    into several rows.
//!
//! Every step is a pure function of the input order, so the layout is deterministic.

/// Box sizes and gaps are in pixels of the drawing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gaps {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// The result: the centre of every box and the size of the whole drawing (its top-left corner
/// is at 0, 0).
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    pub(crate) centers: Vec<(f64, f64)>,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// Compressed adjacency lists.
struct Csr {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Csr {
    fn new(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n + 1];
        for (a, _) in pairs.clone() {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n] as usize];
        for (a, b) in pairs {
            let slot = &mut fill[a as usize];
            list[*slot as usize] = b;
            *slot += 1;
        }
        Csr { start, list }
    }

    fn of(&self, v: u32) -> &[u32] {
        &self.list[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Lays out `sizes.len()` boxes (width, height) joined by `edges` (from, to), starting from
/// `roots` (the depth-first search starts there, then at every box not reached yet).
pub(crate) fn layered(
    sizes: &[(f64, f64)],
    edges: &[(u32, u32)],
    roots: &[u32],
    gaps: Gaps,
) -> Layout {
    let n = sizes.len();
    if n == 0 {
        return Layout::default();
    }
    let edges: Vec<(u32, u32)> = edges
        .iter()
        .copied()
        .filter(|&(a, b)| a != b && (a as usize) < n && (b as usize) < n)
        .collect();
    let out = Csr::new(n, edges.iter().copied());
    let (pre, dag) = depth_first(&out, roots, n, edges.len());
    let succs = Csr::new(n, dag.iter().copied());
    let preds = Csr::new(n, dag.iter().map(|&(a, b)| (b, a)));
    let dag = Dag { succs, preds };
    let layer = layers_by_longest_path(&dag, roots, n);
    let layers = order_layers(&dag, &layer, &pre);
    let (x, rows_of) = x_coordinates(&dag, &layers, sizes, gaps);
    place_rows(&rows_of, &x, sizes, gaps)
}

/// The acyclic part of the graph as adjacency lists both ways.
struct Dag {
    succs: Csr,
    preds: Csr,
}

/// Step 1: Depth-first search from `roots`, then from every node not reached: the preorder
/// numbers and the edges that are not back edges (sorted, without duplicates).
fn depth_first(out: &Csr, roots: &[u32], n: usize, edges: usize) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    let mut pre = vec![u32::MAX; n];
    let mut next_pre = 0u32;
    let mut dag: Vec<(u32, u32)> = Vec::with_capacity(edges);
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let starts = roots
        .iter()
        .copied()
        .filter(|&r| (r as usize) < n)
        .chain(0..n as u32);
    for s in starts {
        if state[s as usize] != 0 {
            continue;
        }
        state[s as usize] = 1;
        pre[s as usize] = next_pre;
        next_pre += 1;
        stack.push((s, 0));
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let succ = out.of(v);
            if let Some(&w) = succ.get(i as usize) {
                top.1 += 1;
                match state[w as usize] {
                    0 => {
                        dag.push((v, w));
                        state[w as usize] = 1;
                        pre[w as usize] = next_pre;
                        next_pre += 1;
                        stack.push((w, 0));
                    }
                    1 => {} // a back edge
                    _ => dag.push((v, w)),
                }
            } else {
                state[v as usize] = 2;
                stack.pop();
            }
        }
    }
    dag.sort_unstable();
    dag.dedup();
    (pre, dag)
}

/// Step 2: The layer of every node: the longest path to it (Kahn's order), with sources that are
/// not roots pulled down next to their nearest successor.
fn layers_by_longest_path(dag: &Dag, roots: &[u32], n: usize) -> Vec<u32> {
    let Dag { succs, preds } = dag;
    let mut indeg: Vec<u32> = (0..n as u32).map(|v| preds.of(v).len() as u32).collect();
    let mut order: Vec<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
    let mut layer = vec![0u32; n];
    let mut head = 0;
    while let Some(&v) = order.get(head) {
        head += 1;
        for &w in succs.of(v) {
            layer[w as usize] = layer[w as usize].max(layer[v as usize] + 1);
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                order.push(w);
            }
        }
    }
    let is_root = {
        let mut r = vec![false; n];
        for &x in roots {
            if let Some(f) = r.get_mut(x as usize) {
                *f = true;
            }
        }
        r
    };
    // Sources that are not roots sit just above their nearest successor (reverse topological
    // order, so a chain of such sources moves together).
    for &v in order.iter().rev() {
        if preds.of(v).is_empty() && !is_root[v as usize] {
            if let Some(m) = succs.of(v).iter().map(|&w| layer[w as usize]).min() {
                layer[v as usize] = m.saturating_sub(1);
            }
        }
    }
    layer
}

/// Step 3: The nodes of each layer in order: depth-first discovery order, improved by four
/// barycentre sweeps (down over predecessors, up over successors).
fn order_layers(dag: &Dag, layer: &[u32], pre: &[u32]) -> Vec<Vec<u32>> {
    let n = layer.len();
    let Dag { succs, preds } = dag;
    let depth = layer.iter().copied().max().unwrap_or(0) as usize + 1;
    let mut layers: Vec<Vec<u32>> = vec![Vec::new(); depth];
    let mut by_pre: Vec<u32> = (0..n as u32).collect();
    by_pre.sort_unstable_by_key(|&v| pre[v as usize]);
    for v in by_pre {
        layers[layer[v as usize] as usize].push(v);
    }
    let mut frac = vec![0f64; n];
    let set_frac = |frac: &mut Vec<f64>, l: &[u32]| {
        let len = l.len() as f64;
        for (i, &v) in l.iter().enumerate() {
            frac[v as usize] = (i as f64 + 0.5) / len;
        }
    };
    for l in &layers {
        set_frac(&mut frac, l);
    }
    let mut keyed: Vec<(f64, u32, u32)> = Vec::new();
    for round in 0..4 {
        let down = round % 2 == 0;
        let range: Vec<usize> = if down {
            (1..depth).collect()
        } else {
            (0..depth.saturating_sub(1)).rev().collect()
        };
        for li in range {
            keyed.clear();
            for (i, &v) in layers[li].iter().enumerate() {
                let nb = if down { preds.of(v) } else { succs.of(v) };
                let bary = if nb.is_empty() {
                    frac[v as usize]
                } else {
                    nb.iter().map(|&u| frac[u as usize]).sum::<f64>() / nb.len() as f64
                };
                keyed.push((bary, i as u32, v));
            }
            keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let l = &mut layers[li];
            for (slot, k) in l.iter_mut().zip(&keyed) {
                *slot = k.2;
            }
            set_frac(&mut frac, l);
        }
    }
    layers
}

/// Step 4: The x coordinate of every box: packed and centred per layer, three pulling sweeps, and
/// a last one in which a very wide layer (a game choosing among thousands of moves) is
/// wrapped into rows and every other layer is placed under its predecessors. Returns the x
/// coordinates and the rows of every layer.
fn x_coordinates(
    dag: &Dag,
    layers: &[Vec<u32>],
    sizes: &[(f64, f64)],
    gaps: Gaps,
) -> (Vec<f64>, Vec<Vec<Vec<u32>>>) {
    let Dag { succs, preds } = dag;
    let depth = layers.len();
    let mut x = vec![0f64; sizes.len()];
    for l in layers {
        let total: f64 = l.iter().map(|&v| sizes[v as usize].0).sum::<f64>()
            + gaps.x * l.len().saturating_sub(1) as f64;
        let mut left = -total / 2.0;
        for &v in l {
            let w = sizes[v as usize].0;
            x[v as usize] = left + w / 2.0;
            left += w + gaps.x;
        }
    }
    let mut scratch = (Vec::new(), Vec::new());
    for round in 0..3 {
        let down = round != 1;
        for k in 0..depth {
            let li = if down { k } else { depth - 1 - k };
            let nb = |v: u32| if down { preds.of(v) } else { succs.of(v) };
            pull(&layers[li], &mut x, sizes, gaps, nb, &mut scratch);
        }
    }
    // Wrapping into rows of `max_row` pixels keeps the drawing about as wide as its widest
    // (wrapped) layer.
    let area: f64 = sizes.iter().map(|s| (s.0 + gaps.x) * (s.1 + gaps.y)).sum();
    let max_row = (1.5 * area.sqrt()).max(4000.0);
    let mut rows_of: Vec<Vec<Vec<u32>>> = Vec::with_capacity(depth);
    for l in layers {
        let width: f64 = l.iter().map(|&v| sizes[v as usize].0 + gaps.x).sum();
        if width <= max_row {
            pull(l, &mut x, sizes, gaps, |v| preds.of(v), &mut scratch);
            rows_of.push(vec![l.clone()]);
            continue;
        }
        rows_of.push(wrap_layer(l, &mut x, preds, sizes, gaps, max_row));
    }
    (x, rows_of)
}

/// Wraps layer `l` into rows of at most `max_row` pixels, centred under the layer's
/// predecessors, setting the x coordinates of its boxes.
fn wrap_layer(
    l: &[u32],
    x: &mut [f64],
    preds: &Csr,
    sizes: &[(f64, f64)],
    gaps: Gaps,
    max_row: f64,
) -> Vec<Vec<u32>> {
    let mut rows: Vec<Vec<u32>> = vec![Vec::new()];
    let mut used = 0.0;
    for &v in l {
        let w = sizes[v as usize].0 + gaps.x;
        if used + w > max_row && used > 0.0 {
            rows.push(Vec::new());
            used = 0.0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(v);
        }
        used += w;
    }
    // The rows are centred under the layer's predecessors.
    let (mut sum, mut count) = (0f64, 0usize);
    for &v in l {
        for &u in preds.of(v) {
            sum += x[u as usize];
            count += 1;
        }
    }
    let centre = if count > 0 { sum / count as f64 } else { 0.0 };
    for row in &rows {
        let total: f64 = row.iter().map(|&v| sizes[v as usize].0 + gaps.x).sum();
        let mut left = centre - total / 2.0;
        for &v in row {
            let w = sizes[v as usize].0;
            x[v as usize] = left + w / 2.0;
            left += w + gaps.x;
        }
    }
    rows
}

/// The height of the columns of layers whose drawing is closest to 16:10, tried for 1 to 256
/// columns, each column as wide as its widest layer (infinite: one column). `extents` are the
/// left, right and height of each layer.
fn column_height(extents: &[(f64, f64, f64)], gaps: Gaps) -> f64 {
    let total_h: f64 = extents.iter().map(|e| e.2 + gaps.y).sum::<f64>() - gaps.y;
    let aspect = |column_h: f64| {
        let (mut width, mut height, mut top) = (0f64, 0f64, 0f64);
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for e in extents {
            if top > 0.0 && top + e.2 > column_h {
                width += max - min + 6.0 * gaps.x;
                (min, max, top) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
            }
            min = min.min(e.0);
            max = max.max(e.1);
            top += e.2 + gaps.y;
            height = height.max(top - gaps.y);
        }
        width += max - min;
        ((width / height.max(1.0)).ln() - 1.6f64.ln()).abs()
    };
    let mut column_h = f64::INFINITY;
    if total_h > 3000.0 {
        let mut best = aspect(f64::INFINITY);
        for k in 2..=256u32 {
            let h = total_h / f64::from(k);
            if h < 1500.0 {
                break;
            }
            let score = aspect(h);
            if score < best {
                best = score;
                column_h = h;
            }
        }
    }
    column_h
}

/// Step 5: Vertical positions, row by row; a drawing much taller than wide (a long chain of layers)
/// is cut into columns of consecutive layers placed side by side.
fn place_rows(rows_of: &[Vec<Vec<u32>>], x: &[f64], sizes: &[(f64, f64)], gaps: Gaps) -> Layout {
    let extent = |rows: &Vec<Vec<u32>>| {
        let mut e = (f64::INFINITY, f64::NEG_INFINITY, 0f64);
        for row in rows {
            for &v in row {
                e.0 = e.0.min(x[v as usize] - sizes[v as usize].0 / 2.0);
                e.1 = e.1.max(x[v as usize] + sizes[v as usize].0 / 2.0);
            }
            e.2 += row
                .iter()
                .map(|&v| sizes[v as usize].1)
                .fold(0f64, f64::max);
        }
        e.2 += gaps.y / 3.0 * rows.len().saturating_sub(1) as f64;
        e
    };
    let extents: Vec<(f64, f64, f64)> = rows_of.iter().map(extent).collect();
    let column_h = column_height(&extents, gaps);
    let mut centers = vec![(0f64, 0f64); sizes.len()];
    let (mut top, mut height) = (0f64, 0f64);
    let mut column: Vec<usize> = Vec::new();
    let mut column_left = 0f64;
    let mut place_column = |column: &mut Vec<usize>, centers: &mut Vec<(f64, f64)>| {
        let min = column
            .iter()
            .map(|&li| extents[li].0)
            .fold(f64::INFINITY, f64::min);
        let max = column
            .iter()
            .map(|&li| extents[li].1)
            .fold(f64::NEG_INFINITY, f64::max);
        for &li in column.iter() {
            for row in &rows_of[li] {
                for &v in row {
                    centers[v as usize].0 = x[v as usize] - min + column_left;
                }
            }
        }
        if !column.is_empty() {
            column_left += max - min + 6.0 * gaps.x;
        }
        column.clear();
    };
    for (li, rows) in rows_of.iter().enumerate() {
        if !column.is_empty() && top + extents[li].2 > column_h {
            place_column(&mut column, &mut centers);
            top = 0.0;
        }
        for row in rows {
            let h = row
                .iter()
                .map(|&v| sizes[v as usize].1)
                .fold(0f64, f64::max);
            for &v in row {
                centers[v as usize].1 = top + h / 2.0;
            }
            top += h + gaps.y / 3.0;
        }
        top += gaps.y - gaps.y / 3.0;
        height = height.max(top - gaps.y);
        column.push(li);
    }
    place_column(&mut column, &mut centers);
    Layout {
        centers,
        width: (column_left - 6.0 * gaps.x).max(0.0),
        height: height.max(0.0),
    }
}

/// Moves the boxes of one layer towards the mean x of their neighbours (`nb`), keeping their
/// order and gaps: the mean of a left-to-right packing (each box at its wish or pushed right)
/// and a right-to-left one (pushed left) meets both spacing constraints.
fn pull<'a>(
    l: &[u32],
    x: &mut [f64],
    sizes: &[(f64, f64)],
    gaps: Gaps,
    nb: impl Fn(u32) -> &'a [u32],
    (desired, lr): &mut (Vec<f64>, Vec<f64>),
) {
    desired.clear();
    for &v in l {
        let ns = nb(v);
        desired.push(if ns.is_empty() {
            x[v as usize]
        } else {
            ns.iter().map(|&u| x[u as usize]).sum::<f64>() / ns.len() as f64
        });
    }
    let half = |v: u32| sizes[v as usize].0 / 2.0;
    lr.clear();
    for (i, &v) in l.iter().enumerate() {
        let mut p = desired[i];
        if i > 0 {
            p = p.max(lr[i - 1] + half(l[i - 1]) + gaps.x + half(v));
        }
        lr.push(p);
    }
    let mut right = f64::INFINITY;
    for i in (0..l.len()).rev() {
        let v = l[i];
        let mut p = desired[i];
        if i + 1 < l.len() {
            p = p.min(right - half(l[i + 1]) - gaps.x - half(v));
        }
        right = p;
        x[v as usize] = (lr[i] + p) / 2.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Gaps = Gaps { x: 10.0, y: 20.0 };

    #[test]
    fn a_chain_is_vertical_and_a_cycle_does_not_loop() {
        let sizes = vec![(40.0, 20.0); 4];
        let l = layered(&sizes, &[(0, 1), (1, 2), (2, 3), (3, 0)], &[0], G);
        let ys: Vec<f64> = l.centers.iter().map(|c| c.1).collect();
        assert_eq!(ys, vec![10.0, 50.0, 90.0, 130.0]);
        assert!(l.centers.iter().all(|c| c.0 == 20.0));
        assert_eq!((l.width, l.height), (40.0, 140.0));
    }

    #[test]
    fn boxes_of_a_layer_do_not_overlap_and_merges_sit_below() {
        // 0 -> {1, 2, 3} -> 4, and a long edge 0 -> 4.
        let sizes = vec![(30.0, 20.0); 5];
        let edges = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4), (0, 4)];
        let l = layered(&sizes, &edges, &[0], G);
        let mut xs: Vec<f64> = (1..4).map(|v| l.centers[v].0).collect();
        xs.sort_by(f64::total_cmp);
        assert!(xs.windows(2).all(|w| w[1] - w[0] >= 40.0));
        assert_eq!(l.centers[4].1, 90.0);
        assert!((l.centers[4].0 - l.centers[0].0).abs() < 1e-9);
    }

    #[test]
    fn a_huge_fan_out_is_wrapped_into_rows() {
        let n = 5001u32;
        let sizes = vec![(100.0, 20.0); n as usize];
        let edges: Vec<(u32, u32)> = (1..n).map(|i| (0, i)).collect();
        let l = layered(&sizes, &edges, &[0], G);
        assert!(l.width <= 4.0 * l.height, "{} x {}", l.width, l.height);
        let mut boxes: Vec<(f64, f64)> = l.centers.clone();
        boxes.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
        for w in boxes.windows(2) {
            assert!(w[0].1 != w[1].1 || w[1].0 - w[0].0 >= 110.0);
        }
    }

    #[test]
    fn a_long_chain_is_laid_out_without_recursion_in_columns() {
        let n = 200_000u32;
        let sizes = vec![(10.0, 10.0); n as usize];
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let l = layered(&sizes, &edges, &[0], G);
        assert_eq!(l.centers.len(), n as usize);
        assert!(l.height < 2.0 * l.width, "{} x {}", l.width, l.height);
        // Down the first column, then on at the top of the next.
        assert!(l.centers[1].1 > l.centers[0].1);
        let last = l.centers[n as usize - 1];
        assert!(last.0 > l.centers[0].0);
    }
}
