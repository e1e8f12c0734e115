//! Answers of reachability checks kept across searches.
//!
//! A check `? a -> b` is a nested search from `a` on a copy of the current state; its answer is
//! a function of the values of the variables that search can read or write, nothing else:
//!
//! * the edges it evaluates read only those variables (constants never change);
//! * its visited-state check compares states that differ from the check's start state only in
//!   slots written on the way there, so whether two of them are equal depends on the written
//!   variables' values (and the `@repeat` variables it compares, when never written, are the
//!   same on every path);
//! * the tags collected before the check do not change which tag sequences of the check are
//!   equal, and a check whose search can collect tags is never kept (the tag limit counts the
//!   earlier tags too);
//! * the checks it nests are functions of the same kind, of subsets of those variables.
//!
//! So the interpreter may answer a check from a table keyed by the check's pair `(a, b)` and
//! the values of its *footprint*: the variables read or written by the edges its search can
//! evaluate (from `a`, not past `b`, whose edges the search never evaluates) and by the checks
//! nested in them, transitively. Two run-time errors depend on the checks around the current
//! one rather than on the state: a check that nests itself, and nesting deeper than the
//! interpreter's limit. A pair is only kept when no chain of nested checks leads from it back
//! to itself, and a stored answer is only used where the deepest nesting below the pair cannot
//! reach the limit; an answer is stored only when its search ended without an error.
//!
//! Keeping pays where the same check is asked many times from states that agree on its
//! footprint: games translated from GDL, whose derived relations are checks that nest other
//! checks, ask the same ones over and over while the moves of one state are searched and
//! from one state to the next. It costs a copy and a hash of the footprint per question, so a
//! pair is kept only when its searches have been measured to cost more steps than that, and
//! given up again when its answers are seldom asked twice. Memory is bounded: the table is
//! emptied when full, and pairs analysed once the footprints list a set number of slots in all
//! (or once the analyses have visited a set number of edges) are not kept. Answers never change, only the work done (and so the steps the
//! search budget counts), and what is kept depends only on the questions asked, so runs stay
//! deterministic.

use crate::program::{Action, Expr, LPath, Op, Place, Program};
use crate::seen::{SeenSet, hash_words_wide};

/// What the search of a pair can evaluate itself: the slot ranges its edges read or write and
/// the pairs of the checks among them.
type Region = (Vec<(u32, u32)>, Vec<u32>);

/// Questions of a pair asked before its cost is judged.
const WARM_CALLS: u32 = 8;
/// A pair judged too cheap after this many questions is not measured during the next
/// [`CHEAP_PAUSE`] questions, then measured again (its searches may grow with the state).
const CHEAP_SAMPLE: u32 = 64;
const CHEAP_PAUSE: u32 = 4096;
/// The least mean steps of a pair's searches for keeping its answers: a fixed part plus a
/// share of the footprint, whose copy and hash each question costs.
const MIN_STEPS: u64 = 16;
const STEPS_PER_FOOTPRINT_SLOT: u64 = 2;
/// Edges the analysis of one pair (with the checks it nests) may visit.
const ANALYSIS_BUDGET: u64 = 1 << 22;
/// Questions of a kept pair after which its answers are given up if fewer than one in
/// [`MIN_HIT_SHARE`] was answered from the table.
const TRIAL_LOOKUPS: u32 = 1024;
const MIN_HIT_SHARE: u32 = 8;
/// Words of keys the table may hold before it is emptied (128 MiB).
const MAX_WORDS: usize = 1 << 25;
/// Slots the footprints of one machine may list in all (512 MiB); pairs analysed after that
/// are not kept.
const MAX_FOOTPRINT_WORDS: u64 = 1 << 27;
/// Edges all analyses of one machine may visit.
const TOTAL_ANALYSIS_BUDGET: u64 = 1 << 26;

/// Which reachability-check answers a [`crate::Machine`] keeps ([`crate::Machine::set_check_memo`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckMemoMode {
    /// Those of the checks measured to be worth it (the default).
    #[default]
    Measured,
    /// None: every check is a search.
    Off,
    /// Those of every check the table can use, from its first question: the same answers as
    /// the other modes (what differential tests compare), with the most use of the table.
    Eager,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Status {
    /// Measuring the cost of its searches.
    #[default]
    Counting,
    /// Answers are kept.
    Keep,
    /// Judged too cheap to keep: not measured until its pause is over.
    Cheap,
    /// Never kept: not a function of its footprint that the table can use (or its analysis
    /// ran out of budget), seldom asked twice, or the memo is off.
    Never,
}

#[derive(Clone, Debug, Default)]
struct PairStat {
    status: Status,
    /// Questions left in the pause of a [`Status::Cheap`] pair.
    pause: u32,
    calls: u32,
    steps: u64,
    lookups: u32,
    hits: u32,
}

/// What the analysis found for a pair.
#[derive(Clone, Debug)]
struct Footprint {
    /// The slots of the footprint, in increasing order (the order of the key's values).
    slots: Box<[u32]>,
    /// Checks nested at most this deep in a search of the pair, itself included.
    height: u32,
}

/// How a question of a check is to be answered ([`CheckMemo::ask`]).
pub(crate) enum Ask {
    /// From the table.
    Known(bool),
    /// By a search, whose answer is then given to [`CheckMemo::answer`] with this ticket.
    Search(Ticket),
}

/// A question to answer after the search: the pair, and the entry of the table waiting for
/// the answer (if the pair is kept).
pub(crate) struct Ticket {
    pair: u32,
    entry: Option<(u32, u32)>,
}

/// The table of kept answers and the measurements that decide which pairs are kept.
#[derive(Clone, Debug, Default)]
pub(crate) struct CheckMemo {
    mode: CheckMemoMode,
    stats: Vec<PairStat>,
    footprints: Vec<Option<Box<Footprint>>>,
    table: SeenSet,
    /// Per entry of `table`: 0 while the search runs (or if it failed), 1 false, 2 true.
    answers: Vec<u8>,
    /// Bumped whenever `table` is emptied, so that an answer is not written into an entry
    /// that no longer exists.
    epoch: u32,
    /// Edges the analyses have visited so far, and slots the footprints list.
    analysed: u64,
    footprint_words: u64,
    /// The key of the current question.
    key: Vec<u32>,
    /// Scratch of the analysis: a visit stamp per node, and the pairs being analysed.
    stamps: Vec<u32>,
    stamp: u32,
    open: Vec<bool>,
}

impl CheckMemo {
    /// A memo keeping what `mode` says (its tables are made at the first question, so that a
    /// machine that asks none costs nothing).
    pub(crate) fn new(mode: CheckMemoMode) -> Self {
        CheckMemo {
            mode,
            ..CheckMemo::default()
        }
    }

    /// Makes the per-pair tables for the checks of `p`.
    #[cold]
    fn start(&mut self, p: &Program) {
        let status = match self.mode {
            CheckMemoMode::Off => Status::Never,
            CheckMemoMode::Measured | CheckMemoMode::Eager => Status::Counting,
        };
        self.stats = vec![
            PairStat {
                status,
                ..PairStat::default()
            };
            p.pairs.len()
        ];
        self.footprints = vec![None; p.pairs.len()];
    }

    /// Whether a question of pair `pair` (of `p`'s checks) is to be answered by a search
    /// without asking the memo (nor telling it the answer): pairs never kept, and cheap ones
    /// during their pause.
    #[inline]
    pub(crate) fn skip(&mut self, p: &Program, pair: u32) -> bool {
        if self.stats.is_empty() {
            self.start(p);
        }
        let st = &mut self.stats[pair as usize];
        match st.status {
            Status::Never => true,
            Status::Cheap => {
                if st.pause > 0 {
                    st.pause -= 1;
                    true
                } else {
                    st.status = Status::Counting;
                    st.calls = 0;
                    st.steps = 0;
                    false
                }
            }
            Status::Counting | Status::Keep => false,
        }
    }

    /// How to answer `? a -> b` (pair `pair`) asked at nesting depth `depth` (the checks around
    /// it) from state `cur`, where checks may nest at most `limit` deep.
    #[inline(never)]
    pub(crate) fn ask(&mut self, pair: u32, cur: &[u32], depth: usize, limit: usize) -> Ask {
        let st = &self.stats[pair as usize];
        if st.status != Status::Keep {
            return Ask::Search(Ticket { pair, entry: None });
        }
        let fp = self.footprints[pair as usize]
            .as_deref()
            .expect("a kept pair has a footprint");
        if depth + fp.height as usize > limit {
            return Ask::Search(Ticket { pair, entry: None });
        }
        // The key, gathered slot by slot into one buffer: a footprint is mostly runs of one or
        // two slots, which cost more copied run by run.
        let key = &mut self.key;
        key.clear();
        key.push(pair);
        key.extend(fp.slots.iter().map(|&s| cur[s as usize]));
        let (entry, new) = self.table.intern_hashed(key, hash_words_wide(key));
        let st = &mut self.stats[pair as usize];
        st.lookups = st.lookups.saturating_add(1);
        if new {
            self.answers.push(0);
        } else {
            match self.answers[entry as usize] {
                1 => {
                    st.hits += 1;
                    return Ask::Known(false);
                }
                2 => {
                    st.hits += 1;
                    return Ask::Known(true);
                }
                _ => {}
            }
        }
        Ask::Search(Ticket {
            pair,
            entry: Some((self.epoch, entry)),
        })
    }

    /// Records the answer of a search asked for with `t` that took `steps` steps.
    #[inline(never)]
    pub(crate) fn answer(&mut self, p: &Program, t: Ticket, holds: bool, steps: u64) {
        if let Some((epoch, entry)) = t.entry {
            if epoch == self.epoch {
                self.answers[entry as usize] = 1 + u8::from(holds);
            }
            let st = &mut self.stats[t.pair as usize];
            if self.mode != CheckMemoMode::Eager
                && st.lookups >= TRIAL_LOOKUPS
                && st.hits.saturating_mul(MIN_HIT_SHARE) < st.lookups
            {
                st.status = Status::Never;
            }
            if self.table.words() > MAX_WORDS {
                self.table.clear();
                self.answers.clear();
                self.epoch = self.epoch.wrapping_add(1);
            }
            return;
        }
        let eager = self.mode == CheckMemoMode::Eager;
        let st = &mut self.stats[t.pair as usize];
        if st.status != Status::Counting {
            return;
        }
        st.calls = st.calls.saturating_add(1);
        st.steps = st.steps.saturating_add(steps);
        if !eager {
            if st.calls < WARM_CALLS {
                return;
            }
            if st.steps < MIN_STEPS * u64::from(st.calls) {
                if st.calls >= CHEAP_SAMPLE {
                    st.status = Status::Cheap;
                    st.pause = CHEAP_PAUSE;
                }
                return;
            }
        }
        let mean = st.steps / u64::from(st.calls);
        if self.footprints[t.pair as usize].is_none() && !self.analyse(p, t.pair) {
            return;
        }
        let fp = self.footprints[t.pair as usize]
            .as_deref()
            .expect("analysed");
        let st = &mut self.stats[t.pair as usize];
        if eager || mean >= MIN_STEPS + fp.slots.len() as u64 / STEPS_PER_FOOTPRINT_SLOT {
            st.status = Status::Keep;
        } else if st.calls >= CHEAP_SAMPLE {
            st.status = Status::Cheap;
            st.pause = CHEAP_PAUSE;
        }
    }

    /// Finds the footprint of `root` and of the pairs it nests (those not yet known); marks
    /// them [`Status::Never`] when a chain of nested checks leads back to one on the chain, when
    /// one can collect tags, or when the analysis runs out of budget. Returns whether `root`
    /// has a footprint.
    fn analyse(&mut self, p: &Program, root: u32) -> bool {
        struct Open {
            pair: u32,
            children: Vec<u32>,
            next: usize,
            /// The footprint so far, one bit per slot.
            bits: Vec<u64>,
            height: u32,
        }
        let words = (p.init.len()).div_ceil(64);
        let mut budget = ANALYSIS_BUDGET.min(TOTAL_ANALYSIS_BUDGET.saturating_sub(self.analysed));
        let start_budget = budget;
        let mut stack: Vec<Open> = Vec::new();
        let mut spare: Vec<Vec<u64>> = Vec::new();
        let mut open = std::mem::take(&mut self.open);
        open.resize(p.pairs.len(), false);
        let mut failed = false;
        let mut next = Some(root);
        loop {
            if let Some(c) = next.take() {
                match self.region(p, c, &mut budget) {
                    Some((ranges, children)) => {
                        open[c as usize] = true;
                        let mut bits = spare.pop().unwrap_or_default();
                        bits.clear();
                        bits.resize(words, 0);
                        for &(s, l) in &ranges {
                            set_bits(&mut bits, s, l);
                        }
                        stack.push(Open {
                            pair: c,
                            children,
                            next: 0,
                            bits,
                            height: 1,
                        });
                    }
                    None => {
                        self.stats[c as usize].status = Status::Never;
                        failed = true;
                        break;
                    }
                }
            }
            let Some(top) = stack.last_mut() else { break };
            if top.next < top.children.len() {
                let c = top.children[top.next];
                top.next += 1;
                if let Some(fp) = self.footprints[c as usize].as_deref() {
                    for &s in fp.slots.iter() {
                        top.bits[s as usize / 64] |= 1 << (s % 64);
                    }
                    top.height = top.height.max(fp.height + 1);
                    continue;
                }
                if open[c as usize] || self.stats[c as usize].status == Status::Never {
                    failed = true;
                    break;
                }
                next = Some(c);
                continue;
            }
            let done = stack.pop().expect("non-empty");
            open[done.pair as usize] = false;
            let slots = bit_slots(&done.bits);
            self.footprint_words += slots.len() as u64;
            if self.footprint_words > MAX_FOOTPRINT_WORDS {
                stack.push(done);
                failed = true;
                break;
            }
            if let Some(parent) = stack.last_mut() {
                for (w, d) in parent.bits.iter_mut().zip(&done.bits) {
                    *w |= d;
                }
                parent.height = parent.height.max(done.height + 1);
            }
            spare.push(done.bits);
            self.footprints[done.pair as usize] = Some(Box::new(Footprint {
                slots: slots.into_boxed_slice(),
                height: done.height,
            }));
        }
        self.analysed += start_budget - budget;
        let ok = !failed;
        for o in stack {
            open[o.pair as usize] = false;
            self.stats[o.pair as usize].status = Status::Never;
        }
        self.open = open;
        ok
    }

    /// The edges a search of pair `pair` can evaluate: the slots of the variables they read or
    /// write, and the pairs of the checks among them (without those whose ends are equal, which
    /// need no search). `None` when one of them collects a tag or the budget runs out.
    fn region(&mut self, p: &Program, pair: u32, budget: &mut u64) -> Option<Region> {
        let (a, b) = p.pairs[pair as usize];
        if self.stamps.len() < p.nodes.len() {
            self.stamps.resize(p.nodes.len(), 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut ranges = Vec::new();
        let mut children = Vec::new();
        let mut work = vec![a];
        self.stamps[a as usize] = stamp;
        while let Some(n) = work.pop() {
            if n == b {
                continue;
            }
            let nd = &p.nodes[n as usize];
            for e in &p.edges[nd.first_edge as usize..nd.end_edge as usize] {
                *budget = budget.checked_sub(1)?;
                match &e.action {
                    Action::Skip => {}
                    Action::Tag(_) | Action::TagVar(_) => return None,
                    Action::Assign { lhs, rhs, .. } => {
                        lpath_slots(p, lhs, &mut ranges);
                        expr_slots(p, rhs, &mut ranges);
                    }
                    Action::AssignAny { lhs, .. } => lpath_slots(p, lhs, &mut ranges),
                    Action::Compare { lhs, rhs, .. } => {
                        expr_slots(p, lhs, &mut ranges);
                        expr_slots(p, rhs, &mut ranges);
                    }
                    Action::Reach { from, to, pair, .. } => {
                        if from != to {
                            children.push(*pair);
                        }
                    }
                }
                let t = e.target;
                if self.stamps[t as usize] != stamp {
                    self.stamps[t as usize] = stamp;
                    work.push(t);
                }
            }
        }
        children.sort_unstable();
        children.dedup();
        Some((ranges, children))
    }
}

/// The slots of the variable holding slot `s`.
fn var_range(p: &Program, s: u32) -> (u32, u32) {
    let i = p.var_starts.partition_point(|&v| v <= s);
    let start = p.var_starts[i - 1];
    (start, p.var_starts[i] - start)
}

fn place_slots(p: &Program, pl: Place, out: &mut Vec<(u32, u32)>) {
    if let Place::State(s) = pl {
        out.push(var_range(p, s));
    }
}

fn expr_slots(p: &Program, e: &Expr, out: &mut Vec<(u32, u32)>) {
    match *e {
        Expr::Place(pl) => place_slots(p, pl, out),
        Expr::Index { map, key, .. } => {
            place_slots(p, map, out);
            place_slots(p, key, out);
        }
        Expr::Code { start, end } => {
            for op in &p.code[start as usize..end as usize] {
                match *op {
                    Op::Load(pl) => place_slots(p, pl, out),
                    Op::Index { key, .. } => place_slots(p, key, out),
                    Op::Lookup { map, .. } => place_slots(p, map, out),
                    Op::SaveKey | Op::IndexSaved { .. } => {}
                }
            }
        }
    }
}

fn lpath_slots(p: &Program, l: &LPath, out: &mut Vec<(u32, u32)>) {
    out.push(var_range(p, l.root));
    for (key, _, _) in l.steps.iter() {
        expr_slots(p, key, out);
    }
}

/// Sets the bits of slots `s .. s + l`.
fn set_bits(bits: &mut [u64], s: u32, l: u32) {
    for slot in s..s + l {
        bits[slot as usize / 64] |= 1 << (slot % 64);
    }
}

/// The positions of the set bits, in increasing order.
fn bit_slots(bits: &[u64]) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, &w) in bits.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            out.push(i as u32 * 64 + w.trailing_zeros());
            w &= w - 1;
        }
    }
    out
}
