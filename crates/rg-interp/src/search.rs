//! The successor search of rg.md §12.5–§12.8 on the flat runtime form, and perft (§12.11).
//!
//! Every search owns a [`Frame`]: a pending stack stored back to back in flat arrays (entries are
//! pushed and popped LIFO, so no per-state allocation), the state being expanded, and the
//! visited-state set. Each distinct state of a search is stored once, in an interner, and pending
//! entries and visited keys refer to it by index: most edges (skips, tags, comparisons, checks)
//! keep the state, so a visit neither copies nor hashes it, which matters on translations with
//! thousands of variables. Frames are pooled by nesting depth (a reachability check runs a nested
//! search), so a long perft allocates only while its buffers grow.

use crate::error::{Fault, RuntimeError};
use crate::program::{Action, Expr, LPath, NONE, Place, Program};
use crate::seen::{SeenSet, hash_slot, hash_sum, hash_sum_from};

/// Walks with more tags than this are treated as a cycle through tag edges (never a real move).
const TAG_LIMIT: usize = 1 << 16;

/// A game state between moves: a node and the values of all variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub node: u32,
    pub data: Vec<u32>,
}

/// The legal moves of a state, in the interpreter's output order (duplicates kept): for each,
/// its tags and the state it leads to (tags cleared).
#[derive(Clone, Debug, Default)]
pub struct Moves {
    stride: usize,
    nodes: Vec<u32>,
    data: Vec<u32>,
    tag_ranges: Vec<(u32, u32)>,
    tags: Vec<u32>,
}

impl Moves {
    /// An empty list for states of `stride` slots.
    pub fn new(stride: usize) -> Self {
        Moves {
            stride,
            ..Moves::default()
        }
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there is no move.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Removes every move.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.data.clear();
        self.tag_ranges.clear();
        self.tags.clear();
    }

    /// The tags (symbols) of move `i`.
    pub fn tags(&self, i: usize) -> &[u32] {
        let (s, e) = self.tag_ranges[i];
        &self.tags[s as usize..e as usize]
    }

    /// The node move `i` leads to.
    pub fn node(&self, i: usize) -> u32 {
        self.nodes[i]
    }

    /// The variable values after move `i`.
    pub fn data(&self, i: usize) -> &[u32] {
        &self.data[i * self.stride..(i + 1) * self.stride]
    }

    /// The state after move `i`.
    pub fn state(&self, i: usize) -> State {
        State {
            node: self.nodes[i],
            data: self.data(i).to_vec(),
        }
    }

    fn push(&mut self, node: u32, data: &[u32], tags: &[u32]) -> usize {
        let start = self.tags.len() as u32;
        self.tags.extend_from_slice(tags);
        self.tag_ranges.push((start, self.tags.len() as u32));
        self.data.extend_from_slice(data);
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn data_mut(&mut self, i: usize) -> &mut [u32] {
        &mut self.data[i * self.stride..(i + 1) * self.stride]
    }

    /// Reverses the order of the moves from `start` on (results of one expansion are output
    /// last-in first-out).
    fn reverse_from(&mut self, start: usize) {
        let n = self.nodes.len();
        if n - start < 2 {
            return;
        }
        self.nodes[start..].reverse();
        self.tag_ranges[start..].reverse();
        let (mut i, mut j) = (start, n - 1);
        while i < j {
            let (a, b) = self.data.split_at_mut(j * self.stride);
            a[i * self.stride..(i + 1) * self.stride].swap_with_slice(&mut b[..self.stride]);
            i += 1;
            j -= 1;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Moves,
    Reach(u32),
}

#[derive(Clone, Debug, Default)]
struct Pending {
    node: Vec<u32>,
    /// The interned state (an index into [`Frame::states`]).
    state: Vec<u32>,
    tag_start: Vec<u32>,
    tags: Vec<u32>,
}

impl Pending {
    #[inline]
    fn push(&mut self, node: u32, state: u32, tags: &[u32], extra: Option<u32>) {
        self.node.push(node);
        self.state.push(state);
        self.tag_start.push(self.tags.len() as u32);
        self.tags.extend_from_slice(tags);
        if let Some(t) = extra {
            self.tags.push(t);
        }
    }

    fn clear(&mut self) {
        self.node.clear();
        self.state.clear();
        self.tag_start.clear();
        self.tags.clear();
    }
}

#[derive(Clone, Debug, Default)]
struct Frame {
    pend: Pending,
    /// The distinct states of this search, and per state the [`hash_sum`] of the whole state and
    /// of its ordinary part (updated slot by slot when an assignment makes a successor).
    states: SeenSet,
    hashes: Vec<(u64, u64)>,
    /// The index of the ordinary part of each state in `ordinaries` (`NONE` until needed).
    ordinary_of: Vec<u32>,
    ordinaries: SeenSet,
    /// The state being expanded: `cur` holds the values of state `cur_state`.
    cur: Vec<u32>,
    cur_state: u32,
    cur_tags: Vec<u32>,
    /// A successor being built.
    next: Vec<u32>,
    key: Vec<u32>,
    seen: SeenSet,
    reach_cache: Vec<(u32, u32, bool)>,
    levels: Vec<(u32, u32, u32)>,
}

impl Frame {
    /// Forgets the previous search.
    fn clear(&mut self) {
        self.pend.clear();
        self.states.clear();
        self.hashes.clear();
        self.ordinary_of.clear();
        self.ordinaries.clear();
        self.cur_state = NONE;
        self.seen.clear();
    }

    /// The index of the ordinary part (the first `ordinary` slots) of the current state.
    fn cur_ordinary(&mut self, ordinary: usize) -> u32 {
        let s = self.cur_state as usize;
        if ordinary == self.cur.len() {
            return self.cur_state; // the whole state is ordinary
        }
        if self.ordinary_of.len() <= s {
            self.ordinary_of.resize(s + 1, NONE);
        }
        if self.ordinary_of[s] == NONE {
            let h = self.hashes[s].1;
            self.ordinary_of[s] = self.ordinaries.intern_hashed(&self.cur[..ordinary], h).0;
        }
        self.ordinary_of[s]
    }
}

/// Runs searches on one [`Program`]. Cheap to create; reuses its buffers across calls.
#[derive(Debug)]
pub struct Machine<'p> {
    p: &'p Program,
    strict: bool,
    frames: Vec<Frame>,
    depth: usize,
    reach_stack: Vec<u32>,
    perft_moves: Vec<Moves>,
    dedup: SeenSet,
}

impl<'p> Machine<'p> {
    /// A machine for `program`.
    pub fn new(program: &'p Program) -> Self {
        Machine {
            p: program,
            strict: false,
            frames: Vec::new(),
            depth: 0,
            reach_stack: Vec::new(),
            perft_moves: Vec::new(),
            dedup: SeenSet::default(),
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.p
    }

    /// In strict mode, reading a map at a key outside its domain and storing a symbol outside a
    /// location's set type are errors (rg.md §11 condition 1) instead of the reference's
    /// behaviour (the default value; storing anyway).
    pub fn set_strict(&mut self, strict: bool) {
        self.strict = strict;
    }

    /// Whether strict mode is on.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// The initial state (rg.md §12.2).
    pub fn initial(&self) -> State {
        State {
            node: self.p.begin,
            data: self.p.init.clone(),
        }
    }

    /// Whether the state is final (at `end`).
    pub fn is_final(&self, s: &State) -> bool {
        s.node == self.p.end
    }

    /// The value of `player` in a state.
    pub fn player(&self, data: &[u32]) -> u32 {
        data[self.p.player as usize]
    }

    /// Whether `player` is `keeper`.
    pub fn is_keeper(&self, data: &[u32]) -> bool {
        self.player(data) == self.p.keeper
    }

    /// Whether `player` is `random`.
    pub fn is_random(&self, data: &[u32]) -> bool {
        self.player(data) == self.p.random
    }

    /// Appends the legal moves of `(node, data)` to `out` (rg.md §12.9).
    pub fn moves_into(
        &mut self,
        node: u32,
        data: &[u32],
        out: &mut Moves,
    ) -> Result<(), Box<RuntimeError>> {
        self.search(node, data, None, &[], Mode::Moves, Some(out))
            .map(|_| ())
    }

    /// The legal moves of a state.
    pub fn moves(&mut self, s: &State) -> Result<Moves, Box<RuntimeError>> {
        let mut out = Moves::new(self.p.state_size());
        self.moves_into(s.node, &s.data, &mut out)?;
        Ok(out)
    }

    /// `perft(S, depth)` of rg.md §12.11. On error the path leading to it is filled in.
    pub fn perft(&mut self, s: &State, depth: usize) -> Result<u64, Box<RuntimeError>> {
        self.perft_at(s.node, &s.data, depth, 0).map_err(|mut e| {
            e.finish_help();
            e
        })
    }

    fn perft_at(
        &mut self,
        node: u32,
        data: &[u32],
        depth: usize,
        level: usize,
    ) -> Result<u64, Box<RuntimeError>> {
        if depth == 0 {
            return Ok(1);
        }
        if self.perft_moves.len() <= level {
            self.perft_moves
                .resize_with(level + 1, || Moves::new(self.p.state_size()));
        }
        let mut moves = std::mem::take(&mut self.perft_moves[level]);
        moves.clear();
        let result = self.perft_moves_of(node, data, depth, level, &mut moves);
        self.perft_moves[level] = moves;
        result
    }

    fn perft_moves_of(
        &mut self,
        node: u32,
        data: &[u32],
        depth: usize,
        level: usize,
        moves: &mut Moves,
    ) -> Result<u64, Box<RuntimeError>> {
        self.moves_into(node, data, moves)?;
        let player = self.player(data);
        let mut total = 0u64;
        if player == self.p.random {
            // Merge outcomes that lead to equal states (tags ignored).
            let mut keep = Vec::with_capacity(moves.len());
            self.dedup.clear();
            let mut key = Vec::with_capacity(self.p.state_size() + 1);
            for i in 0..moves.len() {
                key.clear();
                key.push(moves.node(i));
                key.extend_from_slice(moves.data(i));
                if self.dedup.insert(&key) {
                    keep.push(i);
                }
            }
            if depth == 1 {
                return Ok(keep.len() as u64);
            }
            for i in keep {
                total += self
                    .perft_at(moves.node(i), moves.data(i), depth - 1, level + 1)
                    .map_err(|e| self.prepend(e, moves.tags(i)))?;
            }
        } else if player == self.p.keeper {
            for i in 0..moves.len() {
                total += self
                    .perft_at(moves.node(i), moves.data(i), depth, level + 1)
                    .map_err(|e| self.prepend(e, moves.tags(i)))?;
            }
        } else {
            if depth == 1 {
                return Ok(moves.len() as u64);
            }
            for i in 0..moves.len() {
                total += self
                    .perft_at(moves.node(i), moves.data(i), depth - 1, level + 1)
                    .map_err(|e| self.prepend(e, moves.tags(i)))?;
            }
        }
        Ok(total)
    }

    /// Adds the move `tags` in front of an error's path.
    pub(crate) fn prepend(&self, mut e: Box<RuntimeError>, tags: &[u32]) -> Box<RuntimeError> {
        e.path.insert(
            0,
            tags.iter().map(|&t| self.p.name(t).to_string()).collect(),
        );
        e
    }

    fn error(&self, fault: Fault, edge: u32) -> Box<RuntimeError> {
        let id = self.p.edges[edge as usize].id;
        let (text, span) = self.p.edge_text(id);
        Box::new(RuntimeError {
            fault,
            edge: id,
            edge_text: text,
            label: span.map(Into::into),
            span,
            path: Vec::new(),
            help: None,
        })
    }

    /// Whether `? a -> b` holds from a state (rg.md §12.8), checked from edge `edge`.
    fn reach(
        &mut self,
        edge: u32,
        data: &[u32],
        hashes: (u64, u64),
        tags: &[u32],
        a: u32,
        b: u32,
    ) -> Result<bool, Box<RuntimeError>> {
        if a == b {
            return Ok(true);
        }
        if self.reach_stack.contains(&edge) {
            return Err(self.error(Fault::RecursiveReachability, edge));
        }
        self.reach_stack.push(edge);
        let r = self.search(a, data, Some(hashes), tags, Mode::Reach(b), None);
        self.reach_stack.pop();
        r
    }

    /// A search from `node` in state `data`, whose hashes (of [`Frame::hashes`]) are given when
    /// the caller knows them.
    fn search(
        &mut self,
        node: u32,
        data: &[u32],
        hashes: Option<(u64, u64)>,
        tags: &[u32],
        mode: Mode,
        out: Option<&mut Moves>,
    ) -> Result<bool, Box<RuntimeError>> {
        if self.frames.len() <= self.depth {
            self.frames.push(Frame::default());
        }
        let mut f = std::mem::take(&mut self.frames[self.depth]);
        self.depth += 1;
        f.clear();
        let h = hashes.unwrap_or_else(|| {
            // The ordinary slots once, then the rest on top of them.
            let o = self.p.ordinary as usize;
            let ord = hash_sum(&data[..o]);
            (hash_sum_from(ord, o, &data[o..]), ord)
        });
        let start = f.states.intern_hashed(data, h.0).0;
        f.hashes.push(h);
        f.pend.push(node, start, tags, None);
        let r = self.run(&mut f, mode, out);
        self.depth -= 1;
        self.frames[self.depth] = f;
        r
    }

    fn run(
        &mut self,
        f: &mut Frame,
        mode: Mode,
        mut out: Option<&mut Moves>,
    ) -> Result<bool, Box<RuntimeError>> {
        let p = self.p;
        let strict = self.strict;
        let ordinary = p.ordinary as usize;
        let moves_mode = mode == Mode::Moves;
        while let Some(node) = f.pend.node.pop() {
            let state = f.pend.state.pop().expect("parallel stacks");
            if state != f.cur_state {
                f.cur.clear();
                f.cur.extend_from_slice(f.states.get(state));
                f.cur_state = state;
            }
            let tstart = f.pend.tag_start.pop().expect("parallel stacks") as usize;
            f.cur_tags.clear();
            f.cur_tags.extend_from_slice(&f.pend.tags[tstart..]);
            f.pend.tags.truncate(tstart);

            let nd = &p.nodes[node as usize];
            if !nd.unique {
                f.key.clear();
                f.key.push(node);
                f.key.push(f.cur_tags.len() as u32);
                f.key.extend_from_slice(&f.cur_tags);
                match nd.repeat {
                    Some(r) => {
                        for &(off, len) in &p.repeats[r as usize] {
                            f.key
                                .extend_from_slice(&f.cur[off as usize..(off + len) as usize]);
                        }
                    }
                    None => {
                        let o = f.cur_ordinary(ordinary);
                        f.key.push(o);
                    }
                }
                if !f.seen.insert(&f.key) {
                    continue;
                }
            }
            if mode == Mode::Reach(node) {
                return Ok(true);
            }
            f.reach_cache.clear();
            let results_start = out.as_ref().map_or(0, |o| o.len());
            for ei in nd.first_edge..nd.end_edge {
                let e = &p.edges[ei as usize];
                let ok = match &e.action {
                    Action::Skip => {
                        f.pend.push(e.target, f.cur_state, &f.cur_tags, None);
                        true
                    }
                    Action::Tag(t) => {
                        if f.cur_tags.len() >= TAG_LIMIT {
                            return Err(self.error(Fault::TooManyTags { limit: TAG_LIMIT }, ei));
                        }
                        f.pend.push(e.target, f.cur_state, &f.cur_tags, Some(*t));
                        true
                    }
                    Action::TagVar(off) => {
                        if f.cur_tags.len() >= TAG_LIMIT {
                            return Err(self.error(Fault::TooManyTags { limit: TAG_LIMIT }, ei));
                        }
                        let t = f.cur[*off as usize];
                        f.pend.push(e.target, f.cur_state, &f.cur_tags, Some(t));
                        true
                    }
                    Action::Assign { lhs, rhs, player } => {
                        let value = place(p, strict, rhs, &f.cur).map_err(|x| self.error(x, ei))?;
                        let to_out = *player && moves_mode;
                        successor(
                            p,
                            strict,
                            f,
                            out.as_deref_mut(),
                            to_out,
                            e.target,
                            lhs,
                            value,
                        )
                        .map_err(|x| self.error(x, ei))?;
                        true
                    }
                    Action::AssignAny {
                        lhs,
                        members,
                        player,
                    } => {
                        let to_out = *player && moves_mode;
                        for &m in members {
                            successor(
                                p,
                                strict,
                                f,
                                out.as_deref_mut(),
                                to_out,
                                e.target,
                                lhs,
                                Place::Sym(m),
                            )
                            .map_err(|x| self.error(x, ei))?;
                        }
                        true
                    }
                    Action::Compare {
                        lhs,
                        rhs,
                        size,
                        negated,
                    } => {
                        let eq = compare(p, strict, lhs, rhs, *size, &f.cur)
                            .map_err(|x| self.error(x, ei))?;
                        if eq != *negated {
                            f.pend.push(e.target, f.cur_state, &f.cur_tags, None);
                            true
                        } else {
                            false
                        }
                    }
                    Action::Reach { from, to, negated } => {
                        let cached = f
                            .reach_cache
                            .iter()
                            .find(|c| c.0 == *from && c.1 == *to)
                            .map(|c| c.2);
                        let r = match cached {
                            Some(r) => r,
                            None => {
                                let h = f.hashes[f.cur_state as usize];
                                let r = self.reach(ei, &f.cur, h, &f.cur_tags, *from, *to)?;
                                f.reach_cache.push((*from, *to, r));
                                r
                            }
                        };
                        if r != *negated {
                            f.pend.push(e.target, f.cur_state, &f.cur_tags, None);
                            true
                        } else {
                            false
                        }
                    }
                };
                if ok && nd.disjoint {
                    break;
                }
            }
            if let Some(o) = out.as_deref_mut() {
                o.reverse_from(results_start);
            }
        }
        Ok(false)
    }
}

/// Pushes the successor of `f.cur` through an assignment: a finished move when `to_out`, else a
/// pending state.
#[allow(clippy::too_many_arguments)]
#[inline]
fn successor(
    p: &Program,
    strict: bool,
    f: &mut Frame,
    out: Option<&mut Moves>,
    to_out: bool,
    target: u32,
    lhs: &LPath,
    value: Place,
) -> Result<(), Fault> {
    match out {
        Some(o) if to_out => {
            let i = o.push(target, &f.cur, &f.cur_tags);
            store(p, strict, lhs, value, &f.cur, o.data_mut(i), &mut f.levels).map(|_| ())
        }
        _ => {
            f.next.clear();
            f.next.extend_from_slice(&f.cur);
            let written = store(p, strict, lhs, value, &f.cur, &mut f.next, &mut f.levels)?;
            // The successor's hashes: the current state's, with the written slots replaced.
            let (mut full, mut ord) = f.hashes[f.cur_state as usize];
            let ordinary = p.ordinary as usize;
            let present = f.levels.iter().map(|l| l.2 as usize);
            for i in written.chain(present) {
                let (old, new) = (f.cur[i], f.next[i]);
                if old != new {
                    let d = hash_slot(i, new).wrapping_sub(hash_slot(i, old));
                    full = full.wrapping_add(d);
                    if i < ordinary {
                        ord = ord.wrapping_add(d);
                    }
                }
            }
            let (state, new) = f.states.intern_hashed(&f.next, full);
            if new {
                f.hashes.push((full, ord));
            }
            f.pend.push(target, state, &f.cur_tags, None);
            Ok(())
        }
    }
}

#[inline]
fn read(p: &Program, pl: Place, cur: &[u32]) -> u32 {
    match pl {
        Place::State(o) => cur[o as usize],
        Place::Const(o) => p.consts[o as usize],
        Place::Sym(s) => s,
    }
}

#[inline]
fn slice<'a>(p: &'a Program, pl: Place, cur: &'a [u32], n: u32, one: &'a [u32; 1]) -> &'a [u32] {
    match pl {
        Place::State(o) => &cur[o as usize..(o + n) as usize],
        Place::Const(o) => &p.consts[o as usize..(o + n) as usize],
        Place::Sym(_) => one,
    }
}

/// Where the value of `e` lives in state `cur` (rg.md §12.3).
fn place(p: &Program, strict: bool, e: &Expr, cur: &[u32]) -> Result<Place, Fault> {
    Ok(match e {
        Expr::Var(o) => Place::State(*o),
        Expr::Const(o) => Place::Const(*o),
        Expr::Sym(s) => Place::Sym(*s),
        Expr::Access {
            map,
            key,
            dom,
            vsize,
        } => {
            let k = read(p, place(p, strict, key, cur)?, cur);
            let m = place(p, strict, map, cur)?;
            let i = p.domains[*dom as usize].position(k);
            let shift = if i == NONE {
                if strict {
                    return Err(Fault::KeyOutsideDomain {
                        key: p.name(k).to_string(),
                        write: false,
                    });
                }
                0
            } else {
                vsize + i * (vsize + 1) + 1
            };
            match m {
                Place::State(o) => Place::State(o + shift),
                Place::Const(o) => Place::Const(o + shift),
                Place::Sym(_) => m,
            }
        }
    })
}

fn compare(
    p: &Program,
    strict: bool,
    lhs: &Expr,
    rhs: &Expr,
    size: Option<u32>,
    cur: &[u32],
) -> Result<bool, Fault> {
    let l = place(p, strict, lhs, cur)?;
    let r = place(p, strict, rhs, cur)?;
    Ok(match size {
        None => false,
        Some(1) => read(p, l, cur) == read(p, r, cur),
        Some(n) => {
            let (a, b) = ([read(p, l, cur)], [read(p, r, cur)]);
            slice(p, l, cur, n, &a) == slice(p, r, cur, n, &b)
        }
    })
}

/// Stores `value` (evaluated in `cur`) into the location `lhs` of `dst`, a copy of `cur`, and
/// renormalises the maps on the way (rg.md §12.4). Returns the slots of the stored value; the
/// other slots written are the presence flags `levels[_].2`.
fn store(
    p: &Program,
    strict: bool,
    lhs: &LPath,
    value: Place,
    cur: &[u32],
    dst: &mut [u32],
    levels: &mut Vec<(u32, u32, u32)>,
) -> Result<std::ops::Range<usize>, Fault> {
    let mut base = lhs.root;
    levels.clear();
    for (key, dom, vsize) in &lhs.steps {
        let k = read(p, place(p, strict, key, cur)?, cur);
        let i = p.domains[*dom as usize].position(k);
        if i == NONE {
            return Err(Fault::KeyOutsideDomain {
                key: p.name(k).to_string(),
                write: true,
            });
        }
        let present = base + vsize + i * (vsize + 1);
        levels.push((base, *vsize, present));
        base = present + 1;
    }
    let n = lhs.size as usize;
    let b = base as usize;
    match value {
        Place::Sym(s) => dst[b] = s,
        Place::State(o) => dst[b..b + n].copy_from_slice(&cur[o as usize..o as usize + n]),
        Place::Const(o) => dst[b..b + n].copy_from_slice(&p.consts[o as usize..o as usize + n]),
    }
    if strict && let Some(set) = lhs.check {
        let (dom, ty) = &p.sets[set as usize];
        if dom.position(dst[b]) == NONE {
            return Err(Fault::ValueOutsideType {
                value: p.name(dst[b]).to_string(),
                ty: ty.clone(),
            });
        }
    }
    for &(mbase, vsize, present) in levels.iter().rev() {
        let (m, v, e) = (mbase as usize, vsize as usize, present as usize + 1);
        dst[present as usize] = u32::from(dst[e..e + v] != dst[m..m + v]);
    }
    Ok(b..b + n)
}
