//! The successor search of RG on the flat runtime form: from a state, follow edges (tags
//! collected, assignments applied, comparisons and reachability checks as conditions) until an
//! assignment to `player` finishes a move.
//!
//! The search is the reference's depth-first search with its explicit pending stack, but states are
//! not copied per successor: every search of a [`Machine`] works on one state buffer, changed in
//! place and restored from an undo trail. A pending entry holds its target node, the level of the
//! path it was made at (its parent) and the slots its action changes (a delta, most often none or
//! one or two slots); popping an entry undoes the trail back to its parent and applies its delta.
//! Because the pending stack is LIFO, a popped entry's parent is always on the current path, and
//! the deltas of the pending entries form a stack too. So the order of expansions, of visited
//! checks and of outputs is exactly the reference's, while a successor costs what its action
//! changes. A whole state is copied only into a finished move. The visited-state check (a
//! search expands a node once per tag sequence and ordinary-variable values, or per values of
//! the `@repeat` variables there; never at an `@unique` node)
//! numbers the distinct ordinary parts (and `@repeat` values) of a search, each stored as the
//! slots where it differs from the search's start state; a part's number is carried along the
//! path until an assignment changes an ordinary slot, and tag sequences are numbered too, so a
//! visited key is three numbers.
//!
//! Reachability checks (`? a -> b`: whether a search from `a` in the current state reaches `b`)
//! run a nested search on the same buffer, which leaves it as it found
//! it; frames are pooled by nesting depth, so a long perft or playout allocates only while its
//! buffers grow.

use crate::error::{Fault, RuntimeError, SearchBudget};
use crate::memo::{Ask, CheckMemo, CheckMemoMode};
use crate::program::{
    Action, Expr, LPath, NONE, Op, Place, Program, SearchLimit, Shifts, in_ranges,
};
use crate::seen::{KeyTable, SeenSet, hash_slot};

/// Walks with more tags than this are treated as a cycle through tag edges (never a real move).
const TAG_LIMIT: usize = 1 << 16;

/// Reachability checks nested deeper than this are an error rather than a stack overflow (each
/// level needs a distinct checking edge, so only a game built for it gets there).
const REACH_NESTING_LIMIT: usize = 1000;

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
    /// The edge (index into `Program::edges`) whose assignment to `player` ended each move.
    edges: Vec<u32>,
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
        self.edges.clear();
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

    /// The edge that ended move `i`.
    pub(crate) fn edge(&self, i: usize) -> u32 {
        self.edges[i]
    }

    /// The words a move of `ntags` tags takes in the list (its state, tags, node, edge and
    /// tag range), as [`Machine`]'s search budget counts them.
    fn words(&self, ntags: usize) -> u64 {
        (self.stride + ntags + 4) as u64
    }

    /// The words the list holds, as [`Machine`]'s search budget counts them.
    pub(crate) fn held_words(&self) -> u64 {
        (self.data.len() + self.tags.len() + 4 * self.nodes.len()) as u64
    }

    fn push(&mut self, node: u32, edge: u32, data: &[u32], tags: &[u32]) {
        let start = self.tags.len() as u32;
        self.tags.extend_from_slice(tags);
        self.tag_ranges.push((start, self.tags.len() as u32));
        self.data.extend_from_slice(data);
        self.nodes.push(node);
        self.edges.push(edge);
    }

    /// Reverses the order of the moves from `start` on (results of one expansion are output
    /// last-in first-out).
    fn reverse_from(&mut self, start: usize) {
        let n = self.nodes.len();
        if n - start < 2 {
            return;
        }
        self.nodes[start..].reverse();
        self.edges[start..].reverse();
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

/// A pending state: its node, the path level it was made at, where its delta starts in
/// [`Frame::deltas`] (it ends where the next entry's starts), and the tag it appends (or `NONE`).
#[derive(Clone, Copy, Debug)]
struct Pending {
    node: u32,
    parent: u32,
    delta: u32,
    tag: u32,
}

/// One state of the current search path.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// Trail length once this state is formed: undoing to it restores the state.
    mark: u32,
    /// Number of tags of this state (a prefix of [`Frame::tags`]), and the tag sequence's
    /// number in [`Frame::tag_ids`] (`NONE` for no tags).
    ntags: u32,
    tag_id: u32,
    /// Hash of the ordinary part: the sum of [`hash_slot`] over its slots, minus the start
    /// state's.
    hash: u64,
    /// The ordinary part's number in [`Frame::ords`], or `NONE` until needed.
    ord: u32,
}

#[derive(Clone, Debug, Default)]
struct Frame {
    pend: Vec<Pending>,
    /// The changes of the pending entries: `(slot, new value)`, a stack like `pend`.
    deltas: Vec<(u32, u32)>,
    /// The current path, from the start state.
    levels: Vec<Level>,
    /// Tags of the state being expanded.
    tags: Vec<u32>,
    /// The distinct ordinary parts met by this search, and the distinct values of `@repeat`
    /// variables.
    ords: SeenSet,
    repeats: SeenSet,
    key: Vec<u32>,
    /// Tag sequences by number: `(number of the sequence without its last tag, last tag)`.
    tag_ids: KeyTable<2>,
    /// The visited-state keys (a node is expanded once per key): node, number of the tags, number
    /// of the ordinary part or of the `@repeat` values.
    seen: KeyTable<3>,
    reach_cache: Vec<(u32, u32, bool)>,
}

impl Frame {
    /// The words this frame holds, as the search budget counts them: pending entries and their
    /// deltas, the path, and the visited-state sets (the numbered tag sequences and ordinary
    /// parts included) with their tables.
    fn words(&self) -> u64 {
        (self.pend.len() * 4
            + self.deltas.len() * 2
            + self.levels.len() * 6
            + self.tags.len()
            + self.key.len()
            + self.reach_cache.len() * 3
            + self.ords.words()
            + self.repeats.words()
            + self.tag_ids.words()
            + self.seen.words()) as u64
    }

    /// Starts a search whose start state is the machine's current state with `tags`.
    fn start(&mut self, node: u32, tags: &[u32], mark: usize, hash: u64) {
        self.pend.clear();
        self.deltas.clear();
        self.levels.clear();
        self.tags.clear();
        self.tags.extend_from_slice(tags);
        self.ords.clear();
        self.repeats.clear();
        self.tag_ids.clear();
        self.seen.clear();
        let mut tag_id = NONE;
        for &t in tags {
            tag_id = self.tag_ids.intern([tag_id, t]).0;
        }
        self.levels.push(Level {
            mark: mark as u32,
            ntags: tags.len() as u32,
            tag_id,
            hash,
            ord: NONE,
        });
        self.pend.push(Pending {
            node,
            parent: 0,
            delta: 0,
            tag: NONE,
        });
    }

    /// Pushes a pending entry of the current level whose delta is what was pushed on `deltas`
    /// since `delta`.
    #[inline]
    fn push(&mut self, node: u32, delta: usize, tag: u32) {
        self.pend.push(Pending {
            node,
            parent: self.levels.len() as u32 - 1,
            delta: delta as u32,
            tag,
        });
    }
}

/// Scratch buffers of expression evaluation and stores.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// The key stack of [`Op::SaveKey`].
    keys: Vec<u32>,
    /// The map levels of a store: base, value size, presence flag.
    levels: Vec<(u32, u32, u32)>,
    /// Old values of a store into a finished move (taken out while [`store`] runs).
    undo: Vec<(u32, u32)>,
    /// A value copied out of the state when it overlaps its destination.
    value: Vec<u32>,
}

/// Runs searches on one [`Program`]. Cheap to create; reuses its buffers across calls.
#[derive(Debug)]
pub struct Machine<'p> {
    p: &'p Program,
    strict: bool,
    /// The state every search works on.
    w: Work,
    frames: Vec<Frame>,
    depth: usize,
    reach_stack: Vec<u32>,
    scratch: Scratch,
    /// Buffers of perft and of the playouts (crate::perft, crate::play).
    pub(crate) bufs: crate::perft::Buffers,
    /// The budget of one top-level search and what it has used: steps taken, words of the
    /// moves found, and words held by the frames of the searches that enclose the current one.
    limit: SearchLimit,
    /// Words held across the search by its caller, which count against the search's budget:
    /// the move lists on the stack of perft or of the check's exploration.
    pub(crate) held: u64,
    steps: u64,
    out_words: u64,
    outer_words: u64,
    /// The step at which the budget is checked next, and the most words one step can add
    /// (see [`Machine::check_budget`]).
    next_check: u64,
    step_words: u64,
    /// Answers of reachability checks kept across searches.
    memo: CheckMemo,
}

impl<'p> Machine<'p> {
    /// A machine for `program`.
    pub fn new(program: &'p Program) -> Self {
        Machine {
            p: program,
            strict: false,
            w: Work::default(),
            frames: Vec::new(),
            depth: 0,
            reach_stack: Vec::new(),
            scratch: Scratch::default(),
            bufs: Default::default(),
            limit: program.search_limit,
            held: 0,
            steps: 0,
            out_words: 0,
            outer_words: 0,
            next_check: 0,
            step_words: step_words(program),
            memo: CheckMemo::new(CheckMemoMode::Measured),
        }
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.p
    }

    /// In strict mode, reading a map at a key outside its domain and storing a symbol outside a
    /// location's set type are errors (a proper game never does either) instead of the reference's
    /// behaviour (the default value; storing anyway).
    pub fn set_strict(&mut self, strict: bool) {
        self.strict = strict;
    }

    /// Whether strict mode is on.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Which answers of reachability checks the machine keeps from one question to the next
    /// (forgetting those kept so far). Every mode gives the same results; they differ in the
    /// work done, and so in the steps counted against the search limit.
    pub fn set_check_memo(&mut self, mode: CheckMemoMode) {
        self.memo = CheckMemo::new(mode);
    }

    /// The initial state: at `begin`, every variable at its declared initial value.
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

    /// Appends the legal moves of `(node, data)` to `out`, in the reference's output order.
    pub fn moves_into(
        &mut self,
        node: u32,
        data: &[u32],
        out: &mut Moves,
    ) -> Result<(), Box<RuntimeError>> {
        self.w.reset(data, self.p.ordinary as usize);
        self.steps = 0;
        self.out_words = 0;
        self.outer_words = self.held;
        self.next_check = 1;
        // Ordinary parts are only compared within this search and those it nests, so their
        // hashes are taken relative to the start state's: 0 for it, then updated per slot.
        self.search(node, &[], 0, Mode::Moves, Some(out))
            .map(|_| ())
    }

    /// The legal moves of a state.
    pub fn moves(&mut self, s: &State) -> Result<Moves, Box<RuntimeError>> {
        let mut out = Moves::new(self.p.state_size());
        self.moves_into(s.node, &s.data, &mut out)?;
        Ok(out)
    }

    /// The error of a search whose budget `what` ran out at edge `edge`.
    #[cold]
    #[inline(never)]
    fn limit_error(&self, what: SearchBudget, edge: u32) -> Box<RuntimeError> {
        let limit = self.limit.option;
        self.error(Fault::SearchLimit { what, limit }, edge)
    }

    /// Counts one step of the search (in frame `f`), at edge `edge`, checking the budget when
    /// it is due.
    #[inline(always)]
    fn step(&mut self, f: &Frame, edge: u32) -> Result<(), Box<RuntimeError>> {
        self.steps += 1;
        if self.steps >= self.next_check {
            self.check_budget(f, edge)?;
        }
        Ok(())
    }

    /// Checks the steps taken and the words held by the search (its frame `f`, those it is
    /// nested in, the trail of changes and the moves found) against the budget, and when the
    /// next check is due: one step, with the states it lets the search take from its pending
    /// stack, adds at most `step_words` words, so the budget cannot be exceeded before the
    /// step where what is left of it, divided by that, runs out. The checks cost nothing
    /// while a search is far from its limit.
    #[cold]
    #[inline(never)]
    fn check_budget(&mut self, f: &Frame, edge: u32) -> Result<(), Box<RuntimeError>> {
        if self.steps > self.limit.steps {
            return Err(self.limit_error(SearchBudget::Steps, edge));
        }
        let held = self.outer_words + self.out_words + f.words() + self.w.trail.len() as u64 * 2;
        if held > self.limit.words {
            return Err(self.limit_error(SearchBudget::Bytes, edge));
        }
        let room = (self.limit.words - held) / self.step_words;
        self.next_check = (self.steps + room.max(1)).min(self.limit.steps + 1);
        Ok(())
    }

    pub(crate) fn error(&self, fault: Fault, edge: u32) -> Box<RuntimeError> {
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

    /// Whether `? a -> b` holds from the current state of `f` (a search from `a`, tags kept,
    /// reaches `b`), checked from edge
    /// `edge`.
    fn reach(
        &mut self,
        edge: u32,
        f: &Frame,
        a: u32,
        b: u32,
        pair: u32,
    ) -> Result<bool, Box<RuntimeError>> {
        if a == b {
            return Ok(true);
        }
        if self.reach_stack.contains(&edge) {
            return Err(self.error(Fault::RecursiveReachability, edge));
        }
        if self.reach_stack.len() >= REACH_NESTING_LIMIT {
            return Err(self.error(
                Fault::ReachNesting {
                    limit: REACH_NESTING_LIMIT,
                },
                edge,
            ));
        }
        if self.memo.skip(self.p, pair) {
            return self.nested(edge, f, a, b);
        }
        let ticket = match self.memo.ask(
            pair,
            &self.w.cur,
            self.reach_stack.len(),
            REACH_NESTING_LIMIT,
        ) {
            Ask::Known(holds) => return Ok(holds),
            Ask::Search(t) => t,
        };
        let steps = self.steps;
        let holds = self.nested(edge, f, a, b)?;
        self.memo.answer(self.p, ticket, holds, self.steps - steps);
        Ok(holds)
    }

    /// The search of `? a -> b` checked from edge `edge` (see [`Machine::reach`]).
    fn nested(&mut self, edge: u32, f: &Frame, a: u32, b: u32) -> Result<bool, Box<RuntimeError>> {
        self.reach_stack.push(edge);
        let hash = f.levels.last().expect("a current state").hash;
        let outer = self.outer_words;
        self.outer_words += f.words();
        let r = self.search(a, &f.tags, hash, Mode::Reach(b), None);
        self.outer_words = outer;
        self.reach_stack.pop();
        r
    }

    /// A search from the current state moved to `node`, with `tags` collected and `hash` the
    /// hash of its ordinary part ([`Level::hash`]). Leaves the current state as it found it.
    fn search(
        &mut self,
        node: u32,
        tags: &[u32],
        hash: u64,
        mode: Mode,
        out: Option<&mut Moves>,
    ) -> Result<bool, Box<RuntimeError>> {
        if self.frames.len() <= self.depth {
            self.frames.push(Frame::default());
        }
        let mut f = std::mem::take(&mut self.frames[self.depth]);
        self.depth += 1;
        let mark = self.w.trail.len();
        f.start(node, tags, mark, hash);
        let r = self.run(&mut f, mode, out);
        self.w.undo(mark);
        self.depth -= 1;
        if self.depth > 0 && f.words() > self.limit.words / 8 {
            // A large nested search: its buffers are not kept for the next one, so that what
            // the enclosing search goes on to hold is not added to them.
            f = Frame::default();
        }
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
        let ordinary = p.ordinary;
        let moves_mode = mode == Mode::Moves;
        while let Some(e) = f.pend.pop() {
            // Back to the entry's parent, then its change.
            let parent = f.levels[e.parent as usize];
            self.w.undo(parent.mark as usize);
            f.levels.truncate(e.parent as usize + 1);
            f.tags.truncate(parent.ntags as usize);
            let mut tag_id = parent.tag_id;
            if e.tag != NONE {
                f.tags.push(e.tag);
                tag_id = f.tag_ids.intern([tag_id, e.tag]).0;
            }
            let (mut hash, mut ord) = (parent.hash, parent.ord);
            for &(slot, new) in &f.deltas[e.delta as usize..] {
                let old = self.w.set(slot as usize, new);
                if slot < ordinary {
                    hash = hash
                        .wrapping_add(hash_slot(slot as usize, new))
                        .wrapping_sub(hash_slot(slot as usize, old));
                    ord = NONE;
                }
            }
            f.deltas.truncate(e.delta as usize);
            f.levels.push(Level {
                mark: self.w.trail.len() as u32,
                ntags: f.tags.len() as u32,
                tag_id,
                hash,
                ord,
            });
            let node = e.node;
            let nd = &p.nodes[node as usize];
            if !nd.unique && !first_visit(p, &self.w, f, node, nd.repeat) {
                continue;
            }
            if mode == Mode::Reach(node) {
                return Ok(true);
            }
            f.reach_cache.clear();
            if let Some(sw) = nd.switch {
                // Only the comparisons that hold: the edges of the variable's value, in order.
                let sw = &p.switches[sw as usize];
                let v = self.w.cur[sw.slot as usize];
                let from = sw.cases.partition_point(|c| c.0 < v);
                for &(cv, ei) in &sw.cases[from..] {
                    if cv != v {
                        break;
                    }
                    self.step(f, ei)?;
                    f.push(p.edges[ei as usize].target, f.deltas.len(), NONE);
                    if nd.disjoint {
                        break;
                    }
                }
                continue;
            }
            let results_start = out.as_ref().map_or(0, |o| o.len());
            for ei in nd.first_edge..nd.end_edge {
                let e = &p.edges[ei as usize];
                self.step(f, ei)?;
                let ok = match &e.action {
                    Action::Skip => {
                        f.push(e.target, f.deltas.len(), NONE);
                        true
                    }
                    Action::Tag(t) => {
                        if f.tags.len() >= TAG_LIMIT {
                            return Err(self.error(Fault::TooManyTags { limit: TAG_LIMIT }, ei));
                        }
                        f.push(e.target, f.deltas.len(), *t);
                        true
                    }
                    Action::TagVar(off) => {
                        if f.tags.len() >= TAG_LIMIT {
                            return Err(self.error(Fault::TooManyTags { limit: TAG_LIMIT }, ei));
                        }
                        f.push(e.target, f.deltas.len(), self.w.cur[*off as usize]);
                        true
                    }
                    Action::Assign { lhs, rhs, player } => {
                        let value = place(p, strict, rhs, &self.w.cur, &mut self.scratch.keys)
                            .map_err(|x| self.error(*x, ei))?;
                        let to_out = if *player && moves_mode {
                            out.as_deref_mut()
                        } else {
                            None
                        };
                        self.successor(f, to_out, ei, lhs, value)
                            .map_err(|x| self.error(*x, ei))?;
                        true
                    }
                    Action::AssignAny {
                        lhs,
                        members,
                        player,
                    } => {
                        let to_out = *player && moves_mode;
                        for (i, &m) in members.iter().enumerate() {
                            if i > 0 {
                                self.step(f, ei)?;
                            }
                            let o = if to_out { out.as_deref_mut() } else { None };
                            self.successor(f, o, ei, lhs, Place::Sym(m))
                                .map_err(|x| self.error(*x, ei))?;
                        }
                        true
                    }
                    Action::Compare {
                        lhs,
                        rhs,
                        size,
                        negated,
                    } => {
                        let eq = compare(
                            p,
                            strict,
                            lhs,
                            rhs,
                            *size,
                            &self.w.cur,
                            &mut self.scratch.keys,
                        )
                        .map_err(|x| self.error(*x, ei))?;
                        if eq != *negated {
                            f.push(e.target, f.deltas.len(), NONE);
                            true
                        } else {
                            false
                        }
                    }
                    Action::Reach {
                        from,
                        to,
                        negated,
                        shared,
                        pair,
                    } => {
                        let holds = if *shared {
                            self.reach_cached(f, ei, *from, *to, *pair)?
                        } else {
                            self.reach(ei, f, *from, *to, *pair)?
                        };
                        if holds != *negated {
                            f.push(e.target, f.deltas.len(), NONE);
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

    /// Whether `? from -> to` holds from the current state, checked from edge `ei`; each pair
    /// is checked at most once per expansion (for the edges that share their pair with
    /// another edge of their node: the others need no cache).
    #[inline]
    fn reach_cached(
        &mut self,
        f: &mut Frame,
        ei: u32,
        from: u32,
        to: u32,
        pair: u32,
    ) -> Result<bool, Box<RuntimeError>> {
        let cached = f
            .reach_cache
            .iter()
            .find(|c| c.0 == from && c.1 == to)
            .map(|c| c.2);
        Ok(match cached {
            Some(r) => r,
            None => {
                let r = self.reach(ei, f, from, to, pair)?;
                f.reach_cache.push((from, to, r));
                r
            }
        })
    }

    /// The successor of the current state through the assignment of edge `edge` of `value` to
    /// `lhs`: a finished move appended to `out` when given, else a pending entry whose delta is
    /// the slots the store changes. The current state is left unchanged.
    #[inline]
    fn successor(
        &mut self,
        f: &mut Frame,
        out: Option<&mut Moves>,
        edge: u32,
        lhs: &LPath,
        value: Place,
    ) -> Eval<()> {
        let p = self.p;
        let target = p.edges[edge as usize].target;
        // The store logs old values: into a scratch log for a finished move, onto the deltas
        // for a pending entry.
        let mut log = match out {
            Some(_) => std::mem::take(&mut self.scratch.undo),
            None => std::mem::take(&mut f.deltas),
        };
        let start = if out.is_some() { 0 } else { log.len() };
        log.truncate(start);
        let r = store(
            p,
            self.strict,
            lhs,
            value,
            &mut self.w.cur,
            &mut self.scratch,
            &mut log,
        );
        match out {
            Some(o) => {
                if r.is_ok() {
                    self.out_words += o.words(f.tags.len());
                    o.push(target, edge, &self.w.cur, &f.tags);
                }
                for &(slot, old) in log.iter().rev() {
                    self.w.cur[slot as usize] = old;
                }
                self.scratch.undo = log;
                r
            }
            None => {
                // Turn the log of old values into the delta, restoring the state.
                for d in log[start..].iter_mut().rev() {
                    let new = std::mem::replace(&mut self.w.cur[d.0 as usize], d.1);
                    d.1 = new;
                }
                f.deltas = log;
                r?;
                f.push(target, start, NONE);
                Ok(())
            }
        }
    }
}

/// The most words one step of a search can add to what the search holds (an upper bound, for
/// [`Machine::check_budget`]): the step pushes one pending entry (4 words and a delta of at most
/// 2 per slot) or one move (its state, at most [`TAG_LIMIT`] tags, 4 words), or starts a
/// reachability check (a frame with a copy of the tags); the state it pushes, once taken from
/// the pending stack, adds a level of the path, its changes to the trail (2 words per slot), a
/// tag, and its visited key: a key table entry (10 words), a tag sequence (8) and an ordinary
/// part or `@repeat` values (8 words and 2 per slot).
fn step_words(p: &Program) -> u64 {
    let stride = p.state_size() as u64;
    6 * stride + 2 * TAG_LIMIT as u64 + 64
}

/// The state searches work on, changed in place: the undo trail of its changes, and the
/// ordinary slots where it differs from the state the top-level search started from (kept up
/// to date by [`Work::set`] and [`Work::undo`]; the stores of [`store`] that are undone at once
/// bypass it).
#[derive(Clone, Debug, Default)]
struct Work {
    cur: Vec<u32>,
    /// `(slot, old value)` per change.
    trail: Vec<(u32, u32)>,
    /// The ordinary part of the top-level search's start state.
    root: Vec<u32>,
    /// The ordinary slots where `cur` differs from `root`, in no particular order, and each
    /// ordinary slot's position in that list (`NONE` when it is not in it).
    diff: Vec<u32>,
    diff_at: Vec<u32>,
}

impl Work {
    /// Starts from `data`, whose first `ordinary` slots are the ordinary variables.
    fn reset(&mut self, data: &[u32], ordinary: usize) {
        self.cur.clear();
        self.cur.extend_from_slice(data);
        self.trail.clear();
        self.root.clear();
        self.root.extend_from_slice(&data[..ordinary]);
        for &slot in &self.diff {
            self.diff_at[slot as usize] = NONE;
        }
        self.diff.clear();
        self.diff_at.resize(ordinary, NONE);
    }

    /// Sets a slot, on the trail; returns its old value.
    #[inline]
    fn set(&mut self, slot: usize, v: u32) -> u32 {
        let old = std::mem::replace(&mut self.cur[slot], v);
        self.trail.push((slot as u32, old));
        self.note(slot, v);
        old
    }

    /// Restores the state to the trail length `mark`.
    #[inline]
    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let (slot, old) = self.trail.pop().expect("longer than mark");
            self.cur[slot as usize] = old;
            self.note(slot as usize, old);
        }
    }

    /// Records that `slot` now holds `v` in the difference list.
    #[inline]
    fn note(&mut self, slot: usize, v: u32) {
        let Some(&r) = self.root.get(slot) else {
            return; // not an ordinary slot
        };
        let at = self.diff_at[slot];
        if v != r {
            if at == NONE {
                self.diff_at[slot] = self.diff.len() as u32;
                self.diff.push(slot as u32);
            }
        } else if at != NONE {
            let last = self.diff.pop().expect("slot is listed");
            if last as usize != slot {
                self.diff[at as usize] = last;
                self.diff_at[last as usize] = at;
            }
            self.diff_at[slot] = NONE;
        }
    }
}

/// The result of evaluating an action: errors are rare, so they are boxed to keep results small.
type Eval<T> = Result<T, Box<Fault>>;

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

#[cold]
fn key_outside(p: &Program, k: u32, write: bool) -> Box<Fault> {
    Box::new(Fault::KeyOutsideDomain {
        key: p.name(k).to_string(),
        write,
    })
}

/// The entry of map `m` (laid out as `at` says) at key `k`: the default when `k` is outside the
/// domain, or an error in strict mode.
#[inline(always)]
fn index(p: &Program, strict: bool, m: Place, k: u32, at: Shifts) -> Eval<Place> {
    let s = if k < at.len {
        p.shifts[(at.tab + k) as usize]
    } else {
        NONE
    };
    let shift = if s == NONE {
        if strict {
            return Err(key_outside(p, k, false));
        }
        0
    } else {
        s
    };
    Ok(match m {
        Place::State(o) => Place::State(o + shift),
        Place::Const(o) => Place::Const(o + shift),
        Place::Sym(_) => m,
    })
}

/// The visited-state check of the current state, at `node` (whose `@repeat` is `repeat`):
/// records its key and says whether it is new. The key is the node, the tag sequence and
/// either the ordinary part or, under `@repeat`, the values of the pragma's variables.
#[inline(always)]
fn first_visit(p: &Program, w: &Work, f: &mut Frame, node: u32, repeat: Option<u32>) -> bool {
    let level = f.levels.last_mut().expect("just pushed");
    let values = match repeat {
        Some(r) => {
            // The `@repeat` values, as the ordinary parts below: the differences
            // from the start state within the pragma's variables.
            let ranges = &p.repeats[r as usize];
            f.key.clear();
            let mut h = 0u64;
            for &slot in &w.diff {
                if in_ranges(ranges, slot) {
                    let v = w.cur[slot as usize];
                    f.key.push(slot);
                    f.key.push(v);
                    h = h
                        .wrapping_add(hash_slot(slot as usize, v))
                        .wrapping_sub(hash_slot(slot as usize, w.root[slot as usize]));
                }
            }
            let key = &f.key;
            f.repeats
                .intern_by(
                    h,
                    |k| {
                        k.len() == key.len()
                            && k.chunks_exact(2).all(|d| w.cur[d[0] as usize] == d[1])
                    },
                    |keys| keys.extend_from_slice(key),
                )
                .0
        }
        None => {
            if level.ord == NONE {
                // The ordinary part is stored as the slots where it differs from
                // the start state's, with their values: two parts are equal iff
                // they differ in as many slots and one's differences hold in the
                // other.
                level.ord = f
                    .ords
                    .intern_by(
                        level.hash,
                        |k| {
                            k.len() == 2 * w.diff.len()
                                && k.chunks_exact(2).all(|d| w.cur[d[0] as usize] == d[1])
                        },
                        |keys| {
                            for &slot in &w.diff {
                                keys.push(slot);
                                keys.push(w.cur[slot as usize]);
                            }
                        },
                    )
                    .0;
            }
            level.ord
        }
    };
    f.seen.intern([node, level.tag_id, values]).1
}

/// Where the value of `e` lives in state `cur` (an access `m[k]` at a key outside `m`'s domain
/// reads the default).
#[inline(always)]
fn place(p: &Program, strict: bool, e: &Expr, cur: &[u32], keys: &mut Vec<u32>) -> Eval<Place> {
    match *e {
        Expr::Place(pl) => Ok(pl),
        Expr::Index { map, key, at } => index(p, strict, map, read(p, key, cur), at),
        Expr::Code { start, end } => {
            run_code(p, strict, &p.code[start as usize..end as usize], cur, keys)
        }
    }
}

/// [`place`] of flat code.
#[inline(never)]
fn run_code(
    p: &Program,
    strict: bool,
    code: &[Op],
    cur: &[u32],
    keys: &mut Vec<u32>,
) -> Eval<Place> {
    keys.clear();
    let mut acc = Place::Sym(NONE);
    for op in code {
        match *op {
            Op::Load(pl) => acc = pl,
            Op::Index { key, at } => {
                acc = index(p, strict, acc, read(p, key, cur), at)?;
            }
            Op::Lookup { map, at } => {
                acc = index(p, strict, map, read(p, acc, cur), at)?;
            }
            Op::SaveKey => keys.push(read(p, acc, cur)),
            Op::IndexSaved { at } => {
                let k = keys.pop().expect("a saved key");
                acc = index(p, strict, acc, k, at)?;
            }
        }
    }
    Ok(acc)
}

fn compare(
    p: &Program,
    strict: bool,
    lhs: &Expr,
    rhs: &Expr,
    size: Option<u32>,
    cur: &[u32],
    keys: &mut Vec<u32>,
) -> Eval<bool> {
    let l = place(p, strict, lhs, cur, keys)?;
    let r = place(p, strict, rhs, cur, keys)?;
    Ok(match size {
        None => false,
        Some(1) => read(p, l, cur) == read(p, r, cur),
        Some(n) => {
            let (a, b) = ([read(p, l, cur)], [read(p, r, cur)]);
            slice(p, l, cur, n, &a) == slice(p, r, cur, n, &b)
        }
    })
}

/// Sets `cur[i] = v`, logging the old value when it changes.
#[inline]
fn set(cur: &mut [u32], log: &mut Vec<(u32, u32)>, i: usize, v: u32) {
    let old = cur[i];
    if old != v {
        log.push((i as u32, old));
        cur[i] = v;
    }
}

/// Stores `value` (evaluated in `cur`) into the location `lhs` of `cur`, in place, and
/// renormalises the maps on the way (after a store, an entry is listed exactly when it differs
/// from its map's default): the index expressions are evaluated before anything is written,
/// and nothing is written when an error is returned. Every slot that changes is logged in
/// `log` with its old value, each slot once.
fn store(
    p: &Program,
    strict: bool,
    lhs: &LPath,
    value: Place,
    cur: &mut [u32],
    scratch: &mut Scratch,
    log: &mut Vec<(u32, u32)>,
) -> Eval<()> {
    let mut base = lhs.root;
    scratch.levels.clear();
    for (key, dom, vsize) in lhs.steps.iter() {
        let k = read(p, place(p, strict, key, cur, &mut scratch.keys)?, cur);
        let i = p.domains[*dom as usize].position(k);
        if i == NONE {
            return Err(key_outside(p, k, true));
        }
        let present = base + vsize + i * (vsize + 1);
        scratch.levels.push((base, *vsize, present));
        base = present + 1;
    }
    if strict && let Some(set) = lhs.check {
        // An element location: the stored value is one symbol.
        let v = read(p, value, cur);
        let (dom, ty) = &p.sets[set as usize];
        if dom.position(v) == NONE {
            return Err(Box::new(Fault::ValueOutsideType {
                value: p.name(v).to_string(),
                ty: ty.clone(),
            }));
        }
    }
    let n = lhs.size as usize;
    let b = base as usize;
    match value {
        Place::Sym(s) => set(cur, log, b, s),
        Place::Const(o) => {
            for j in 0..n {
                set(cur, log, b + j, p.consts[o as usize + j]);
            }
        }
        Place::State(o) => {
            let o = o as usize;
            if o + n <= b || b + n <= o {
                for j in 0..n {
                    set(cur, log, b + j, cur[o + j]);
                }
            } else if o != b {
                // Overlapping source and destination: copy the source first.
                scratch.value.clear();
                scratch.value.extend_from_slice(&cur[o..o + n]);
                for j in 0..n {
                    set(cur, log, b + j, scratch.value[j]);
                }
            }
        }
    }
    for &(mbase, vsize, present) in scratch.levels.iter().rev() {
        let (m, v, e) = (mbase as usize, vsize as usize, present as usize + 1);
        let flag = u32::from(cur[e..e + v] != cur[m..m + v]);
        set(cur, log, present as usize, flag);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SearchBudget;
    use crate::program::CompileOptions;
    use miette::Diagnostic;

    fn program(text: &str, search_limit: Option<u64>) -> Program {
        let text = format!("type Player = {{ p }};\ntype Score = {{ 0 }};\n{text}");
        let mut g = rg_core::parse(rg_core::FileId(0), &text).expect("test game parses");
        rg_core::builtins::add_builtins(&mut g).expect("built-ins");
        let opts = CompileOptions {
            search_limit,
            ..CompileOptions::default()
        };
        Program::new(&g, opts).expect("compiles")
    }

    /// A move of `n` choices of one of three colours, each a tag: 3^n moves.
    fn colour_chain(n: usize) -> String {
        let mut text = String::from(
            "type Colour = { red, green, blue };\nvar c: Colour = red;\nbegin, s0: player = p;\n",
        );
        for i in 0..n {
            text.push_str(&format!(
                "s{i}, t{i}: c = Colour(*);\nt{i}, s{}: $$ c;\n",
                i + 1
            ));
        }
        text.push_str(&format!("s{n}, end: player = keeper;\n"));
        text
    }

    /// The state after the first (keeper) move.
    fn after_first_move(m: &mut Machine<'_>) -> State {
        let s = m.initial();
        m.moves(&s).expect("one keeper move").state(0)
    }

    #[test]
    fn a_search_within_the_limit_finds_every_move() {
        let p = program(&colour_chain(5), None);
        let mut m = Machine::new(&p);
        let s = after_first_move(&mut m);
        assert_eq!(m.moves(&s).expect("243 moves").len(), 243);
    }

    #[test]
    fn a_search_holding_more_than_the_limit_is_an_error() {
        let p = program(&colour_chain(30), Some(100_000));
        let mut m = Machine::new(&p);
        let s = after_first_move(&mut m);
        let e = m.moves(&s).expect_err("3^30 moves are over the limit");
        assert_eq!(
            e.fault,
            Fault::SearchLimit {
                what: SearchBudget::Bytes,
                limit: 100_000
            }
        );
        assert_eq!(
            e.code().map(|c| c.to_string()).as_deref(),
            Some("rg::interp::search_limit")
        );
        assert!(e.to_string().contains("`--search-limit`"), "{e}");
        assert!(
            e.help()
                .is_some_and(|h| h.to_string().contains("--search-limit N")),
            "{e:?}"
        );
        // The machine is usable after the error.
        assert_eq!(m.moves(&m.initial()).expect("the keeper move").len(), 1);
    }

    #[test]
    fn a_search_taking_more_steps_than_the_limit_is_an_error() {
        // A wrong `@unique` lets the search go round the cycle a -> b -> a forever, holding
        // little (one level per turn) but trying the many edges that fail at `a` each time.
        let mut text = String::from(
            "type T = { x, y };\nvar v: T = x;\n@unique a b;\n\
             begin, a: player = p;\na, b: ;\nb, a: ;\n",
        );
        for i in 0..100 {
            text.push_str(&format!("a, d{i}: v == y;\nd{i}, end: player = keeper;\n"));
        }
        let p = program(&text, Some(1_000_000));
        let mut m = Machine::new(&p);
        let s = after_first_move(&mut m);
        let e = m.moves(&s).expect_err("the search never ends");
        assert_eq!(
            e.fault,
            Fault::SearchLimit {
                what: SearchBudget::Steps,
                limit: 1_000_000
            }
        );
        assert_eq!(
            e.code().map(|c| c.to_string()).as_deref(),
            Some("rg::interp::search_limit")
        );
    }

    #[test]
    fn reachability_checks_count_against_the_search_that_runs_them() {
        // The move's condition is a check whose search explodes: 3^30 walks from `s0`.
        let text = format!(
            "{}begin, m: ? s0 -> nowhere;\nm, end: player = keeper;\n",
            { colour_chain(30).replace("begin, s0: player = p;\n", "") }
        );
        let p = program(&text, Some(1_000_000));
        let mut m = Machine::new(&p);
        let e = m
            .moves(&m.initial())
            .expect_err("the check is over the limit");
        assert!(
            matches!(
                e.fault,
                Fault::SearchLimit {
                    limit: 1_000_000,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn other_run_time_errors_keep_their_code() {
        let e = RuntimeError {
            fault: Fault::RecursiveReachability,
            edge: rg_core::EdgeId(0),
            edge_text: String::new(),
            label: None,
            span: None,
            path: Vec::new(),
            help: None,
        };
        assert_eq!(
            e.code().map(|c| c.to_string()).as_deref(),
            Some("rg::interp::runtime")
        );
    }

    /// The moves of every state within `depth` moves of the first player state, as listed
    /// with the check-answer memo in `mode`: tags and successor states, or the error.
    fn listing(p: &Program, mode: CheckMemoMode, depth: usize) -> Vec<String> {
        let mut m = Machine::new(p);
        m.set_check_memo(mode);
        let mut out = Vec::new();
        let mut stack = vec![(after_first_move(&mut m), 0)];
        while let Some((s, d)) = stack.pop() {
            if m.is_final(&s) || d == depth {
                continue;
            }
            match m.moves(&s) {
                Ok(ms) => {
                    for i in 0..ms.len() {
                        out.push(format!(
                            "{d}: {} -> {:?}",
                            m.tag_text(ms.tags(i)),
                            ms.state(i)
                        ));
                        stack.push((ms.state(i), d + 1));
                    }
                }
                Err(e) => out.push(format!("{d}: {:?}", e.fault)),
            }
        }
        out
    }

    #[test]
    fn kept_answers_follow_the_variables_of_nested_checks() {
        // `? a_in -> a_out` has only a nested check in its search, which reads `x`: the
        // footprint of the outer pair must include `x`, which every move sets.
        let p = program(
            "type Colour = { red, green };\nvar x: Colour = red;\n\
             begin, s: player = p;\n\
             s, y: ? a_in -> a_out;\ns, n: ! a_in -> a_out;\n\
             y, m: $ yes;\nn, m: $ no;\nm, q: x = Colour(*);\nq, r: $$ x;\nr, s: player = p;\n\
             a_in, a_out: ? b_in -> b_out;\nb_in, b_out: x == red;\n",
            None,
        );
        let off = listing(&p, CheckMemoMode::Off, 4);
        assert!(off.iter().any(|l| l.contains("no ")), "{off:?}");
        assert!(off.iter().any(|l| l.contains("yes ")), "{off:?}");
        assert_eq!(listing(&p, CheckMemoMode::Eager, 4), off);
        assert_eq!(listing(&p, CheckMemoMode::Measured, 4), off);
    }

    #[test]
    fn kept_answers_follow_map_entries_read_at_computed_keys() {
        // The check reads `m[k]`: both `m` and `k` are in its footprint.
        let p = program(
            "type K = { k0, k1 };\ntype V = { v0, v1 };\n\
             var m: K -> V = { :v0 };\nvar k: K = k0;\n\
             begin, s: player = p;\n\
             s, y: ? a_in -> a_out;\ns, n: ! a_in -> a_out;\n\
             y, m1: $ yes;\nn, m1: $ no;\n\
             m1, m2: k = K(*);\nm2, m3: $$ k;\nm3, m4: m[k] = V(*);\nm4, m5: $$ k;\n\
             m5, m6: k = K(*);\nm6, m7: $$ k;\nm7, s: player = p;\n\
             a_in, a_out: m[k] == v1;\n",
            None,
        );
        let off = listing(&p, CheckMemoMode::Off, 3);
        assert!(off.iter().any(|l| l.contains("yes ")), "{off:?}");
        assert!(off.iter().any(|l| l.contains("no ")), "{off:?}");
        assert_eq!(listing(&p, CheckMemoMode::Eager, 3), off);
    }

    /// A game whose first move asks `? c0_in -> c0_out`, a chain of `n` checks each nesting the
    /// next, twice at nesting depth 0 (the second answer is kept) and then again from inside
    /// another check.
    fn nested_chain(n: usize) -> String {
        let mut text = String::from(
            "begin, s: player = p;\ns, s2: ? c0_in -> c0_out;\ns2, t: ? c0_in -> c0_out;\n\
             t, u: ? w_in -> w_out;\n\
             u, end: player = keeper;\nw_in, w_out: ? c0_in -> c0_out;\n",
        );
        for i in 0..n - 1 {
            text.push_str(&format!(
                "c{i}_in, c{i}_out: ? c{}_in -> c{}_out;\n",
                i + 1,
                i + 1
            ));
        }
        text.push_str(&format!("c{}_in, c{}_out: ;\n", n - 1, n - 1));
        text
    }

    #[test]
    fn a_kept_answer_is_not_used_where_its_checks_would_nest_too_deep() {
        // At depth 0 the chain of REACH_NESTING_LIMIT checks is within the limit; asked from
        // inside `? w_in -> w_out` it is one over, which is an error even when its answer is
        // kept.
        let p = program(&nested_chain(REACH_NESTING_LIMIT), None);
        for mode in [CheckMemoMode::Off, CheckMemoMode::Eager] {
            let out = listing(&p, mode, 1);
            assert_eq!(
                out,
                [format!(
                    "0: {:?}",
                    Fault::ReachNesting {
                        limit: REACH_NESTING_LIMIT
                    }
                )],
                "{mode:?}"
            );
        }
        let p = program(&nested_chain(REACH_NESTING_LIMIT - 1), None);
        for mode in [CheckMemoMode::Off, CheckMemoMode::Eager] {
            assert_eq!(listing(&p, mode, 1).len(), 1, "{mode:?}");
        }
    }

    #[test]
    fn a_check_nesting_itself_is_an_error_whether_answers_are_kept_or_not() {
        // The first question of `? a_in -> a_out` (x = red) does not reach its nested check;
        // the second (x = green) runs into itself.
        let p = program(
            "type Colour = { red, green };\nvar x: Colour = red;\n\
             begin, s: player = p;\ns, t: ? a_in -> a_out;\nt, u: x = green;\n\
             u, v: ? a_in -> a_out;\nv, end: player = keeper;\n\
             a_in, a_out: x == red;\na_in, b: x == green;\nb, a_out: ? a_in -> a_out;\n",
            None,
        );
        for mode in [CheckMemoMode::Off, CheckMemoMode::Eager] {
            assert_eq!(
                listing(&p, mode, 1),
                [format!("0: {:?}", Fault::RecursiveReachability)],
                "{mode:?}"
            );
        }
    }
}
