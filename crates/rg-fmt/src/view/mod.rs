//! `rgt view`: one self-contained HTML page showing a game's automaton, or every changing step
//! of an optimisation trace.
//!
//! The layout is computed here (see [`layout`]); the page only draws it on a canvas, so it
//! needs no network and opens quickly even at a million edges. Nodes are grouped into clusters
//! the page can collapse: the sub-automaton of each reachability check (the nodes reached from
//! the check's start node and not from `begin`), the nodes reached from neither, and, for HRG and
//! LineGames input ([`ViewOptions::graph_clusters`]), the nodes generated from one graph or
//! function instance (they share a name prefix such as `kingMove_1_…`). Each cluster is laid out
//! on its own and then placed as one box in the layout of the main automaton.
//!
//! For a trace, the steps are drawn on one layout of the union of all their nodes and edges
//! (nodes are identified by name, edges by endpoints and printed label), so a step's
//! difference to the previous one is shown in place: its added and removed edges.
//!
//! The output is a pure function of the steps: byte-identical across runs.

mod layout;

use indexmap::{IndexMap, IndexSet};
use layout::{Gaps, layered};
use rg_core::{Game, Label, NodeId};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::fmt::Write as _;

/// How the page is titled and clustered.
#[derive(Clone, Debug, Default)]
pub struct ViewOptions {
    /// The page title (e.g. the input file name).
    pub title: String,
    /// Group nodes by the HRG graph or function instance their name comes from.
    pub graph_clusters: bool,
}

/// Collects the steps of a view, then renders the page ([`ViewBuilder::finish`]).
#[derive(Debug)]
pub struct ViewBuilder {
    opts: ViewOptions,
    // Fx hashing: the sets keep insertion order, so the hasher does not reach the page, and
    // hashing a million names with SipHash was a fifth of building the view.
    nodes: IndexSet<Box<str>, FxBuildHasher>,
    labels: IndexSet<Box<str>, FxBuildHasher>,
    edges: IndexSet<(u32, u32, u32), FxBuildHasher>,
    /// Per edge: 0 plain, 1 tag, 2 reachability check.
    kind: Vec<u8>,
    /// Per edge: the start node of its reachability check (`u32::MAX` for other edges).
    check: Vec<u32>,
    /// The edges of the last step.
    present: Vec<bool>,
    steps: Vec<Step>,
}

#[derive(Debug)]
struct Step {
    title: String,
    add: Vec<u32>,
    del: Vec<u32>,
    nodes: usize,
    edges: usize,
}

const NODE_H: f64 = 22.0;
const CHAR_W: f64 = 6.5;
const PAD_W: f64 = 12.0;
const MAX_NODE_W: f64 = 320.0;
const PAD: f64 = 12.0;
const HEADER: f64 = 24.0;
const GAPS: Gaps = Gaps { x: 14.0, y: 34.0 };
const CLUSTER_GAPS: Gaps = Gaps { x: 30.0, y: 44.0 };

/// The width of a node's box.
fn node_width(name: &str) -> f64 {
    (PAD_W + CHAR_W * name.chars().count() as f64).min(MAX_NODE_W)
}

/// The graph or function instance a generated HRG node belongs to: its name without a last
/// `_N`, `_begin` or `_end` part (`kingMove_1_4` → `kingMove_1`).
fn graph_prefix(name: &str) -> Option<&str> {
    let (prefix, last) = name.rsplit_once('_')?;
    let numbered = !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit());
    (!prefix.is_empty() && (numbered || last == "begin" || last == "end")).then_some(prefix)
}

impl ViewBuilder {
    /// An empty view.
    pub fn new(opts: ViewOptions) -> Self {
        ViewBuilder {
            opts,
            nodes: IndexSet::default(),
            labels: IndexSet::default(),
            edges: IndexSet::default(),
            kind: Vec::new(),
            check: Vec::new(),
            present: Vec::new(),
            steps: Vec::new(),
        }
    }

    fn node_id(&mut self, game: &Game, cache: &mut [u32], n: NodeId) -> u32 {
        let slot = cache.get(n.0 as usize).copied().unwrap_or(u32::MAX);
        if slot != u32::MAX {
            return slot;
        }
        let name = game
            .nodes()
            .get(n)
            .map_or_else(|| format!("<dead {n}>"), |d| game.name(d.name).to_owned());
        let id = self.nodes.insert_full(name.into_boxed_str()).0 as u32;
        if let Some(c) = cache.get_mut(n.0 as usize) {
            *c = id;
        }
        id
    }

    /// Adds a step: the game as it is after the step named `title`. The first step is shown
    /// whole, every later one as its difference to the one before.
    pub fn add_step(&mut self, title: &str, game: &Game) {
        let mut cache = vec![u32::MAX; game.nodes().len()];
        let mut label_ids: FxHashMap<Label, u32> = FxHashMap::default();
        let mut now: Vec<u32> = Vec::with_capacity(game.edge_count());
        for n in [game.begin(), game.end()].into_iter().flatten() {
            self.node_id(game, &mut cache, n);
        }
        for (_, e) in game.edges() {
            let from = self.node_id(game, &mut cache, e.from);
            let to = self.node_id(game, &mut cache, e.to);
            let label = match label_ids.get(&e.label) {
                Some(&l) => l,
                None => {
                    let text = rg_core::print::print_label(game, &e.label);
                    let l = self.labels.insert_full(text.into_boxed_str()).0 as u32;
                    label_ids.insert(e.label, l);
                    l
                }
            };
            let (id, fresh) = self.edges.insert_full((from, to, label));
            if fresh {
                let (kind, check) = match e.label {
                    Label::Reach { from: a, to: b, .. } => {
                        let start = self.node_id(game, &mut cache, a);
                        self.node_id(game, &mut cache, b);
                        (2, start)
                    }
                    Label::Tag(_) | Label::TagVar(_) => (1, u32::MAX),
                    _ => (0, u32::MAX),
                };
                self.kind.push(kind);
                self.check.push(check);
            }
            now.push(id as u32);
        }
        let mut mark = vec![false; self.edges.len()];
        for &e in &now {
            mark[e as usize] = true;
        }
        self.present.resize(self.edges.len(), false);
        let add: Vec<u32> = (0..self.edges.len() as u32)
            .filter(|&e| mark[e as usize] && !self.present[e as usize])
            .collect();
        let del: Vec<u32> = (0..self.edges.len() as u32)
            .filter(|&e| !mark[e as usize] && self.present[e as usize])
            .collect();
        self.present = mark;
        self.steps.push(Step {
            title: title.to_owned(),
            add,
            del,
            nodes: game.node_count(),
            edges: game.edge_count(),
        });
    }

    /// The page.
    pub fn finish(self) -> String {
        let placed = self.place();
        let mut o = String::with_capacity(self.edges.len() * 24 + self.nodes.len() * 40 + 65536);
        o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        o.push_str("<meta name=\"generator\" content=\"rgt view\">\n<title>");
        html_escape(&mut o, &self.opts.title);
        o.push_str(" — rgt view</title>\n<style>\n");
        o.push_str(include_str!("view.css"));
        o.push_str("</style>\n</head>\n<body>\n");
        o.push_str(include_str!("body.html"));
        o.push_str("<script type=\"application/json\" id=\"rgt-data\">");
        self.write_data(&mut o, &placed);
        o.push_str("</script>\n<script>\n");
        o.push_str(include_str!("view.js"));
        o.push_str("</script>\n</body>\n</html>\n");
        o
    }

    /// Clusters and coordinates of the union graph.
    fn place(&self) -> Placed {
        let n = self.nodes.len();
        let ends: Vec<(u32, u32)> = self.edges.iter().map(|&(a, b, _)| (a, b)).collect();
        let begin = self.nodes.get_index_of("begin").map(|b| b as u32);
        let end = self.nodes.get_index_of("end").map(|e| e as u32);
        let (region, mut clusters) = self.regions(&ends, begin, end);
        let inner = self.layout_clusters(&mut clusters, &region, &ends);
        let mut pos = vec![(0f64, 0f64); n];
        let main = self.layout_main(&mut clusters, &region, &ends, begin, &mut pos);
        place_side_clusters(&mut clusters, &main);
        for (c, l) in clusters.iter().zip(&inner) {
            for (&v, &(lx, ly)) in c.members.iter().zip(&l.centers) {
                pos[v as usize] = (c.x + PAD + lx, c.y + HEADER + ly);
            }
        }
        let region = region
            .into_iter()
            .map(|r| if r == MAIN { -1 } else { i64::from(r) })
            .collect();
        Placed {
            pos,
            region,
            clusters,
            begin,
            end,
        }
    }

    /// The region of every node ([`MAIN`] or a cluster number) and the clusters: what `begin`
    /// reaches is the main automaton, what each check's start reaches besides is a check
    /// cluster, the rest one cluster of unreached nodes; with `graph_clusters`, main nodes
    /// sharing a graph prefix become a graph cluster.
    fn regions(
        &self,
        ends: &[(u32, u32)],
        begin: Option<u32>,
        end: Option<u32>,
    ) -> (Vec<u32>, Vec<Cluster>) {
        let n = self.nodes.len();
        let m = self.edges.len();
        let mut start = vec![0u32; n + 1];
        for &(a, _) in ends {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut succ = vec![0u32; m];
        for &(a, b) in ends {
            succ[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        let out = |v: u32| &succ[start[v as usize] as usize..start[v as usize + 1] as usize];

        let mut region = vec![NO_REGION; n];
        let mut clusters: Vec<Cluster> = Vec::new();
        let mut queue: Vec<u32> = Vec::new();
        let mut flood = |region: &mut Vec<u32>, from: u32, mark: u32| {
            queue.clear();
            region[from as usize] = mark;
            queue.push(from);
            let mut head = 0;
            while let Some(&v) = queue.get(head) {
                head += 1;
                for &w in out(v) {
                    if region[w as usize] == NO_REGION {
                        region[w as usize] = mark;
                        queue.push(w);
                    }
                }
            }
        };
        if let Some(b) = begin {
            flood(&mut region, b, MAIN);
        }
        for e in 0..m {
            let s = self.check[e];
            if s != u32::MAX && region[s as usize] == NO_REGION {
                let id = clusters.len() as u32;
                clusters.push(Cluster::new(
                    format!("check from {}", self.nodes[s as usize]),
                    ClusterKind::Check,
                ));
                clusters[id as usize].roots.push(s);
                flood(&mut region, s, id);
            }
        }
        if region.contains(&NO_REGION) {
            let id = clusters.len() as u32;
            clusters.push(Cluster::new(
                "not reached from begin".into(),
                ClusterKind::Unreached,
            ));
            for r in region.iter_mut().filter(|r| **r == NO_REGION) {
                *r = id;
            }
        }
        if self.opts.graph_clusters {
            let mut groups: IndexMap<&str, Vec<u32>> = IndexMap::new();
            for v in 0..n as u32 {
                if region[v as usize] == MAIN && Some(v) != begin && Some(v) != end {
                    if let Some(p) = graph_prefix(&self.nodes[v as usize]) {
                        groups.entry(p).or_default().push(v);
                    }
                }
            }
            for (prefix, members) in groups {
                if members.len() < 2 {
                    continue;
                }
                let id = clusters.len() as u32;
                clusters.push(Cluster::new(prefix.to_owned(), ClusterKind::Graph));
                for v in members {
                    region[v as usize] = id;
                }
            }
        }
        for v in 0..n as u32 {
            let r = region[v as usize];
            if r != MAIN {
                clusters[r as usize].members.push(v);
            }
        }
        (region, clusters)
    }

    /// Lays out the inside of each cluster, from its roots and the nodes entered from outside;
    /// sets each cluster's size.
    fn layout_clusters(
        &self,
        clusters: &mut [Cluster],
        region: &[u32],
        ends: &[(u32, u32)],
    ) -> Vec<layout::Layout> {
        let n = self.nodes.len();
        let mut local = vec![0u32; n];
        for c in clusters.iter() {
            for (i, &v) in c.members.iter().enumerate() {
                local[v as usize] = i as u32;
            }
        }
        let mut inner_edges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); clusters.len()];
        let mut entered = vec![false; n];
        for &(a, b) in ends {
            let (ra, rb) = (region[a as usize], region[b as usize]);
            if ra == rb && ra != MAIN {
                inner_edges[ra as usize].push((local[a as usize], local[b as usize]));
            } else if rb != MAIN {
                entered[b as usize] = true;
            }
        }
        let mut inner: Vec<layout::Layout> = Vec::with_capacity(clusters.len());
        for (c, edges) in clusters.iter_mut().zip(&inner_edges) {
            let sizes: Vec<(f64, f64)> = c
                .members
                .iter()
                .map(|&v| (node_width(&self.nodes[v as usize]), NODE_H))
                .collect();
            let mut roots: Vec<u32> = c.roots.iter().map(|&v| local[v as usize]).collect();
            roots.extend(
                c.members
                    .iter()
                    .filter(|&&v| entered[v as usize])
                    .map(|&v| local[v as usize]),
            );
            let l = layered(&sizes, edges, &roots, GAPS);
            c.w = l.width + 2.0 * PAD;
            c.h = l.height + HEADER + PAD;
            inner.push(l);
        }
        inner
    }

    /// Lays out the main automaton, its graph clusters drawn as boxes: sets the positions of
    /// its nodes and the corners of the graph clusters.
    fn layout_main(
        &self,
        clusters: &mut [Cluster],
        region: &[u32],
        ends: &[(u32, u32)],
        begin: Option<u32>,
        pos: &mut [(f64, f64)],
    ) -> layout::Layout {
        let n = self.nodes.len();
        let mut sup = vec![u32::MAX; n];
        let mut sizes: Vec<(f64, f64)> = Vec::new();
        let mut sup_of_cluster = vec![u32::MAX; clusters.len()];
        for v in 0..n {
            let r = region[v];
            if r == MAIN {
                sup[v] = sizes.len() as u32;
                sizes.push((node_width(&self.nodes[v]), NODE_H));
            } else if clusters[r as usize].kind == ClusterKind::Graph {
                if sup_of_cluster[r as usize] == u32::MAX {
                    sup_of_cluster[r as usize] = sizes.len() as u32;
                    let c = &clusters[r as usize];
                    sizes.push((c.w, c.h));
                }
                sup[v] = sup_of_cluster[r as usize];
            }
        }
        let mut main_edges: Vec<(u32, u32)> = ends
            .iter()
            .map(|&(a, b)| (sup[a as usize], sup[b as usize]))
            .filter(|&(a, b)| a != u32::MAX && b != u32::MAX && a != b)
            .collect();
        main_edges.sort_unstable();
        main_edges.dedup();
        let roots: Vec<u32> = begin.map(|b| sup[b as usize]).into_iter().collect();
        let main = layered(&sizes, &main_edges, &roots, CLUSTER_GAPS);
        for v in 0..n {
            if region[v] == MAIN {
                pos[v] = main.centers[sup[v] as usize];
            }
        }
        for (ci, c) in clusters.iter_mut().enumerate() {
            if c.kind == ClusterKind::Graph {
                let (cx, cy) = main.centers[sup_of_cluster[ci] as usize];
                c.x = cx - c.w / 2.0;
                c.y = cy - c.h / 2.0;
            }
        }
        main
    }

    /// The data of the page, as compact as JSON allows (the page of a game with a million
    /// edges is mostly this): edges as differences to the edge before, steps as ranges of edge
    /// ids, node widths left to the page (they depend only on the name).
    fn write_data(&self, o: &mut String, p: &Placed) {
        o.push_str("{\"title\":");
        json_str(o, &self.opts.title);
        o.push_str(",\n\"nodes\":[");
        join(o, self.nodes.iter(), |o, s| json_str(o, s));
        o.push_str("],\n\"x\":[");
        join(o, p.pos.iter(), |o, c| num(o, c.0));
        o.push_str("],\n\"y\":[");
        join(o, p.pos.iter(), |o, c| num(o, c.1));
        o.push_str("],\n\"nc\":[");
        join(o, p.region.iter(), |o, r| {
            let _ = write!(o, "{r}");
        });
        o.push_str("],\n\"clusters\":[");
        join(o, p.clusters.iter(), |o, c| {
            let kind = match c.kind {
                ClusterKind::Check => "check",
                ClusterKind::Unreached => "unreached",
                ClusterKind::Graph => "graph",
            };
            let _ = write!(o, "[\"{kind}\",{}", c.members.len());
            for v in [c.x, c.y, c.w, c.h] {
                o.push(',');
                num(o, v);
            }
            // A check's title is made by the page from its start node.
            match (c.kind, c.roots.first()) {
                (ClusterKind::Check, Some(r)) => {
                    let _ = write!(o, ",{r}]");
                }
                _ => {
                    o.push(',');
                    json_str(o, &c.title);
                    o.push(']');
                }
            }
        });
        o.push_str("],\n\"labels\":[");
        join(o, self.labels.iter(), |o, s| json_str(o, s));
        // Kinds and check starts belong to labels; edges of one label agree on them.
        let mut lkind = vec![b'0'; self.labels.len()];
        let mut lcheck = vec![u32::MAX; self.labels.len()];
        for (e, &(_, _, l)) in self.edges.iter().enumerate() {
            lkind[l as usize] = b'0' + self.kind[e];
            lcheck[l as usize] = self.check[e];
        }
        o.push_str("],\n\"lkind\":\"");
        o.push_str(std::str::from_utf8(&lkind).unwrap_or_default());
        o.push_str("\",\n\"lcheck\":[");
        join(
            o,
            lcheck.iter().enumerate().filter(|(_, s)| **s != u32::MAX),
            |o, (l, s)| {
                let _ = write!(o, "{l},{s}");
            },
        );
        o.push_str("],\n\"edges\":[");
        let mut last_from = 0i64;
        join(o, self.edges.iter(), |o, &(a, b, l)| {
            let (a, b) = (i64::from(a), i64::from(b));
            let _ = write!(o, "{},{},{l}", a - last_from, b - a);
            last_from = a;
        });
        let opt = |v: Option<u32>| v.map_or(-1, i64::from);
        let _ = write!(
            o,
            "],\n\"begin\":{},\"end\":{},\"nodeH\":{NODE_H},\"charW\":{CHAR_W},\"padW\":{PAD_W},\"maxW\":{MAX_NODE_W},\n\"steps\":[",
            opt(p.begin),
            opt(p.end)
        );
        join(o, self.steps.iter(), |o, s| {
            o.push_str("{\"title\":");
            json_str(o, &s.title);
            let _ = write!(o, ",\"nodes\":{},\"edges\":{},\"add\":[", s.nodes, s.edges);
            ranges(o, &s.add);
            o.push_str("],\"del\":[");
            ranges(o, &s.del);
            o.push_str("]}");
        });
        o.push_str("]}");
    }
}

/// Region of the nodes of the main automaton.
const MAIN: u32 = u32::MAX;
/// Region of a node not assigned yet.
const NO_REGION: u32 = u32::MAX - 1;

/// Places the clusters other than graph clusters in columns to the right of the main
/// automaton `main`, the column height chosen (among a geometric series) for a drawing
/// closest to 16:10.
fn place_side_clusters(clusters: &mut [Cluster], main: &layout::Layout) {
    let boxes: Vec<(f64, f64)> = clusters
        .iter()
        .filter(|c| c.kind != ClusterKind::Graph)
        .map(|c| (c.w, c.h))
        .collect();
    let pack = |column_height: f64, mut place: Option<&mut dyn FnMut(usize, f64, f64)>| {
        let (mut x, mut y, mut column_w) = (main.width + 120.0, 0.0f64, 0.0f64);
        let mut bottom = main.height;
        for (i, &(w, h)) in boxes.iter().enumerate() {
            if y > 0.0 && y + h > column_height {
                x += column_w + 80.0;
                y = 0.0;
                column_w = 0.0;
            }
            if let Some(p) = place.as_mut() {
                p(i, x, y);
            }
            y += h + 60.0;
            bottom = bottom.max(y - 60.0);
            column_w = column_w.max(w);
        }
        (x + column_w, bottom)
    };
    let tallest = boxes
        .iter()
        .map(|b| b.1)
        .fold(main.height.max(2000.0), f64::max);
    let all: f64 = boxes.iter().map(|b| b.1 + 60.0).sum();
    let mut column_height = tallest;
    let mut best = f64::INFINITY;
    let mut h = tallest;
    while !boxes.is_empty() {
        let (w, hh) = pack(h, None);
        let score = ((w / hh.max(1.0)).ln() - 1.6f64.ln()).abs();
        if score < best {
            best = score;
            column_height = h;
        }
        if h >= all {
            break;
        }
        h *= 1.2;
    }
    let mut origin = vec![(0.0, 0.0); boxes.len()];
    pack(
        column_height,
        Some(&mut |i, x, y| {
            origin[i] = (x, y);
        }),
    );
    for (c, &(x, y)) in clusters
        .iter_mut()
        .filter(|c| c.kind != ClusterKind::Graph)
        .zip(&origin)
    {
        c.x = x;
        c.y = y;
    }
}

/// Sorted ids as `start,end` pairs of half-open ranges.
fn ranges(o: &mut String, ids: &[u32]) {
    let mut i = 0;
    let mut first = true;
    while let Some(&start) = ids.get(i) {
        let mut end = start + 1;
        i += 1;
        while ids.get(i) == Some(&end) {
            end += 1;
            i += 1;
        }
        if !first {
            o.push(',');
        }
        first = false;
        let _ = write!(o, "{start},{end}");
    }
}

/// Clusters and coordinates.
struct Placed {
    pos: Vec<(f64, f64)>,
    /// Per node: its cluster, or -1.
    region: Vec<i64>,
    clusters: Vec<Cluster>,
    begin: Option<u32>,
    end: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClusterKind {
    /// The sub-automaton of a reachability check.
    Check,
    /// Nodes reached neither from `begin` nor from a check's start.
    Unreached,
    /// The nodes of one HRG graph or function instance.
    Graph,
}

struct Cluster {
    title: String,
    kind: ClusterKind,
    members: Vec<u32>,
    roots: Vec<u32>,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Cluster {
    fn new(title: String, kind: ClusterKind) -> Self {
        Cluster {
            title,
            kind,
            members: Vec::new(),
            roots: Vec::new(),
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0,
        }
    }
}

fn join<T>(o: &mut String, items: impl Iterator<Item = T>, mut f: impl FnMut(&mut String, T)) {
    for (i, x) in items.enumerate() {
        if i > 0 {
            o.push(',');
        }
        f(o, x);
    }
}

/// A coordinate rounded to a whole pixel (integers print the same everywhere).
fn num(o: &mut String, v: f64) {
    let r = if v.is_finite() { v.round() as i64 } else { 0 };
    let _ = write!(o, "{r}");
}

/// A JSON string that is safe inside a `<script>` element (`<`, `>` and `&` escaped).
fn json_str(o: &mut String, s: &str) {
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '<' => o.push_str("\\u003c"),
            '>' => o.push_str("\\u003e"),
            '&' => o.push_str("\\u0026"),
            '\u{2028}' => o.push_str("\\u2028"),
            '\u{2029}' => o.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
}

fn html_escape(o: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
}

/// The page of one game.
pub fn to_html(game: &Game, opts: ViewOptions) -> String {
    let mut b = ViewBuilder::new(opts);
    b.add_step("game", game);
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(text: &str) -> Game {
        rg_core::parse(rg_core::FileId(0), text).unwrap()
    }

    #[test]
    fn prefixes_of_generated_names() {
        assert_eq!(graph_prefix("kingMove_1_4"), Some("kingMove_1"));
        assert_eq!(graph_prefix("move_1_begin"), Some("move_1"));
        assert_eq!(graph_prefix("rules_1"), Some("rules"));
        assert_eq!(graph_prefix("n12"), None);
        assert_eq!(graph_prefix("_1"), None);
        assert_eq!(graph_prefix("a_b"), None);
    }

    #[test]
    fn checks_are_clusters_and_the_page_is_deterministic() {
        let g = game("begin, a: ; a, end: ! c -> d; c, x: $ t; x, d: ; z, z2: ;");
        let opts = ViewOptions {
            title: "t<1>".into(),
            graph_clusters: false,
        };
        let html = to_html(&g, opts.clone());
        assert_eq!(html, to_html(&g, opts));
        assert!(html.contains("<title>t&lt;1&gt; — rgt view</title>"));
        assert!(html.contains("\"clusters\":[[\"check\",3,"));
        assert!(html.contains(",\"not reached from begin\"]"));
        assert!(html.contains("\"lkind\":\"021\""));
        assert!(html.contains(r#""labels":["","! c -\u003e d","$ t"]"#));
        assert!(!html.contains("</script><"));
    }

    #[test]
    fn steps_record_added_and_removed_edges() {
        let mut b = ViewBuilder::new(ViewOptions::default());
        b.add_step("a", &game("begin, a: ; a, end: ; begin, end: $ x;"));
        b.add_step("b", &game("begin, end: $ x; begin, b: ; b, end: ;"));
        let html = b.finish();
        assert!(
            html.contains("{\"title\":\"a\",\"nodes\":3,\"edges\":3,\"add\":[0,3],\"del\":[]}")
        );
        assert!(
            html.contains("{\"title\":\"b\",\"nodes\":3,\"edges\":3,\"add\":[3,5],\"del\":[0,2]}")
        );
    }

    #[test]
    fn hrg_names_make_graph_clusters() {
        let g =
            game("begin, f_1_begin: ; f_1_begin, f_1_2: $ a; f_1_2, f_1_end: ; f_1_end, end: ;");
        let html = to_html(
            &g,
            ViewOptions {
                title: String::new(),
                graph_clusters: true,
            },
        );
        assert!(html.contains("\"clusters\":[[\"graph\",3,"));
        assert!(html.contains(",\"f_1\"]]"));
    }
}
