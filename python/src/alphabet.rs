//! The move alphabet of a game: every tag sequence a move of a real player or of `random` may
//! have, numbered once for the whole game so that an action id means the same move in every
//! state (OpenSpiel's contract for `legal_actions`).
//!
//! A move is the sequence of tags along a walk that ends with an assignment to `player`. The
//! analysis reads the automaton without its conditions: from every node where a move of a real
//! player or of `random` can start (the target of an assignment to `player` of anything but
//! `keeper`, and `begin` when `player` does not start as `keeper`), tag edges (`$ s`, and `$$ v`
//! for every member of `v`'s type) are letters, assignments to `player` accept, and every other
//! edge (assignments, comparisons, reachability checks, skips) is free. Ignoring the conditions
//! over-approximates: every move the game can make is in the language, and some sequences may
//! never be played. The language is made deterministic by the subset construction, each state's
//! letters sorted by name. When it is finite and holds at most `limit` sequences, a sequence's
//! action id is its rank in the language's order (a sequence before its extensions, then by
//! tag names): the number of words per state gives the rank of a word, and the word of a rank,
//! in time proportional to its length, without listing the language (a game whose moves are
//! three squares of a 10×10 board has a million of them). A loop that can repeat tags within
//! one move (a capture chain of any length) makes the language infinite: then there is no
//! alphabet, and ids are handed out in the order the moves are first met (see
//! `crate::engine`).
//!
//! Keeper moves are not in the alphabet: they are applied automatically and never offered.

use rg_core::typeck::TypeEnv;
use rg_core::{ExprData, Game, Label, NodeId, Symbol, ValueData};
use std::collections::{BTreeSet, HashMap};

/// The most sets of nodes the subset construction may build before giving up.
const MAX_DFA_STATES: usize = 200_000;

/// What an edge does in the move language.
enum Step {
    /// No letter.
    Free,
    /// One letter out of these.
    Letters(Vec<Symbol>),
    /// An assignment to `player`: the move ends here.
    End,
}

/// The most node-set entries the subset construction may build before giving up.
const MAX_DFA_WORK: usize = 20_000_000;

/// The deterministic automaton: per state, its transitions by letter and whether it accepts.
struct Dfa {
    next: Vec<Vec<(Symbol, usize)>>,
    accepting: Vec<bool>,
}

/// The numbered move language of a game.
#[derive(Debug)]
pub struct Alphabet {
    /// Per state, its transitions sorted by letter name.
    next: Vec<Vec<(String, usize)>>,
    accepting: Vec<bool>,
    /// The number of words from each state (0 for a state that leads to no accepting one).
    count: Vec<u64>,
}

impl Alphabet {
    /// The number of sequences (action ids `0..size`).
    pub fn size(&self) -> u64 {
        self.count.first().copied().unwrap_or(0)
    }

    /// The id of a sequence of tag names, if it is in the language.
    pub fn rank(&self, word: &[String]) -> Option<u64> {
        let mut state = 0;
        let mut rank = 0u64;
        for letter in word {
            if self.accepting[state] {
                rank += 1;
            }
            let mut found = None;
            for (name, j) in &self.next[state] {
                match name.as_str().cmp(letter.as_str()) {
                    std::cmp::Ordering::Less => rank += self.count[*j],
                    std::cmp::Ordering::Equal => {
                        found = Some(*j);
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            state = found?;
        }
        self.accepting[state].then_some(rank)
    }

    /// The sequence of an id below [`Alphabet::size`].
    pub fn unrank(&self, mut id: u64) -> Option<Vec<String>> {
        let mut state = 0;
        let mut word = Vec::new();
        loop {
            if self.accepting[state] {
                if id == 0 {
                    return Some(word);
                }
                id -= 1;
            }
            let (name, j) = self.next[state].iter().find(|(_, j)| {
                if id < self.count[*j] {
                    true
                } else {
                    id -= self.count[*j];
                    false
                }
            })?;
            word.push(name.clone());
            state = *j;
        }
    }
}

/// The move alphabet of `game`, or `None` when it is infinite, holds more than `limit`
/// sequences, is too large to determinise, or is not computable (a `$$` of a variable whose
/// type is not a set).
pub fn move_alphabet(game: &Game, limit: u64) -> Option<Alphabet> {
    let steps = classify(game)?;
    let starts = start_nodes(game);
    let dfa = determinise(game, &steps, starts)?;
    let count = counts(&dfa, limit)?;
    let next = dfa
        .next
        .into_iter()
        .map(|out| {
            let mut named: Vec<(String, usize)> = out
                .into_iter()
                .map(|(l, j)| (game.name(l).to_owned(), j))
                .collect();
            named.sort();
            named
        })
        .collect();
    Some(Alphabet {
        next,
        accepting: dfa.accepting,
        count,
    })
}

/// The step of every edge (indexed like the game's edge list).
fn classify(game: &Game) -> Option<HashMap<rg_core::EdgeId, Step>> {
    let wk = *game.well_known();
    let env = TypeEnv::new(game);
    let is_player =
        |e| matches!(game.expr(game.strip_casts(e)), ExprData::Ref(s) if s == wk.player);
    let mut steps = HashMap::new();
    for (id, edge) in game.edges() {
        if !edge.alive {
            continue;
        }
        let step = match edge.label {
            Label::Tag(s) => Step::Letters(vec![s]),
            Label::TagVar(v) => {
                let var = game.variable(v)?;
                let members = env.values(var.ty).ok()??;
                Step::Letters(members.as_slice().to_vec())
            }
            Label::Assign { lhs, .. } | Label::AssignAny { lhs, .. } if is_player(lhs) => Step::End,
            _ => Step::Free,
        };
        steps.insert(id, step);
    }
    Some(steps)
}

/// The nodes where a move of a real player or of `random` may start.
fn start_nodes(game: &Game) -> Vec<NodeId> {
    let wk = *game.well_known();
    let is_player =
        |e| matches!(game.expr(game.strip_casts(e)), ExprData::Ref(s) if s == wk.player);
    let mut starts = BTreeSet::new();
    for (_, edge) in game.edges().filter(|(_, e)| e.alive) {
        match edge.label {
            Label::Assign { lhs, rhs } if is_player(lhs) => {
                let keeper =
                    matches!(game.expr(game.strip_casts(rhs)), ExprData::Ref(s) if s == wk.keeper);
                if !keeper {
                    starts.insert(edge.to);
                }
            }
            Label::AssignAny { lhs, .. } if is_player(lhs) => {
                starts.insert(edge.to);
            }
            _ => {}
        }
    }
    let keeper_first = game
        .variable(wk.player)
        .is_none_or(|v| matches!(game.value(v.init), ValueData::Element(s) if *s == wk.keeper));
    if !keeper_first && let Some(b) = game.begin() {
        starts.insert(b);
    }
    starts.into_iter().collect()
}

/// The nodes reachable from `set` by free edges, sorted.
fn closure(game: &Game, steps: &HashMap<rg_core::EdgeId, Step>, set: Vec<NodeId>) -> Vec<NodeId> {
    let mut seen: BTreeSet<NodeId> = set.iter().copied().collect();
    let mut work = set;
    while let Some(n) = work.pop() {
        for &e in game.outgoing(n) {
            if let Some(Step::Free) = steps.get(&e) {
                let to = game.edge(e).to;
                if seen.insert(to) {
                    work.push(to);
                }
            }
        }
    }
    seen.into_iter().collect()
}

/// The subset construction from the start nodes (one initial set holding them all).
fn determinise(
    game: &Game,
    steps: &HashMap<rg_core::EdgeId, Step>,
    starts: Vec<NodeId>,
) -> Option<Dfa> {
    let mut index: HashMap<Vec<NodeId>, usize> = HashMap::new();
    let mut sets: Vec<Vec<NodeId>> = Vec::new();
    let first = closure(game, steps, starts);
    index.insert(first.clone(), 0);
    sets.push(first);
    let mut dfa = Dfa {
        next: Vec::new(),
        accepting: Vec::new(),
    };
    let mut work = 0usize;
    let mut i = 0;
    while i < sets.len() {
        let mut by_letter: HashMap<Symbol, BTreeSet<NodeId>> = HashMap::new();
        let mut accepting = false;
        for &n in &sets[i] {
            for &e in game.outgoing(n) {
                match steps.get(&e) {
                    Some(Step::End) => accepting = true,
                    Some(Step::Letters(ls)) => {
                        for &l in ls {
                            by_letter.entry(l).or_default().insert(game.edge(e).to);
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut out = Vec::with_capacity(by_letter.len());
        for (l, targets) in by_letter {
            let set = closure(game, steps, targets.into_iter().collect());
            work += set.len();
            if work > MAX_DFA_WORK {
                return None;
            }
            let j = match index.get(&set) {
                Some(&j) => j,
                None => {
                    if sets.len() >= MAX_DFA_STATES {
                        return None;
                    }
                    index.insert(set.clone(), sets.len());
                    sets.push(set);
                    sets.len() - 1
                }
            };
            out.push((l, j));
        }
        dfa.next.push(out);
        dfa.accepting.push(accepting);
        i += 1;
    }
    Some(dfa)
}

/// The number of words from each state, or `None` when a state that leads to an accepting one
/// lies on a cycle (infinitely many words) or the language has more than `limit` words.
fn counts(dfa: &Dfa, limit: u64) -> Option<Vec<u64>> {
    let n = dfa.accepting.len();
    // Useful states: those from which an accepting state is reachable.
    let mut rev: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, out) in dfa.next.iter().enumerate() {
        for &(_, j) in out {
            rev[j].push(i);
        }
    }
    let mut useful = dfa.accepting.clone();
    let mut work: Vec<usize> = (0..n).filter(|&i| useful[i]).collect();
    while let Some(j) = work.pop() {
        for &i in &rev[j] {
            if !useful[i] {
                useful[i] = true;
                work.push(i);
            }
        }
    }
    let mut count = vec![0u64; n];
    if n == 0 || !useful[0] {
        return Some(count);
    }
    // Counts in reverse topological order of the useful states; a cycle means infinitely many.
    let order = topological(dfa, &useful)?;
    for &i in order.iter().rev() {
        let mut c = u64::from(dfa.accepting[i]);
        for &(_, j) in &dfa.next[i] {
            c = c.saturating_add(count[j]);
        }
        if c > limit {
            return None;
        }
        count[i] = c;
    }
    Some(count)
}

/// The useful states reachable from state 0, in topological order, or `None` on a cycle.
fn topological(dfa: &Dfa, useful: &[bool]) -> Option<Vec<usize>> {
    let n = useful.len();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut mark = vec![0u8; n];
    let mut post = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    mark[0] = 1;
    while let Some((i, k)) = stack.pop() {
        match dfa.next[i].get(k) {
            Some(&(_, j)) => {
                stack.push((i, k + 1));
                if !useful[j] {
                    continue;
                }
                match mark[j] {
                    0 => {
                        mark[j] = 1;
                        stack.push((j, 0));
                    }
                    1 => return None,
                    _ => {}
                }
            }
            None => {
                mark[i] = 2;
                post.push(i);
            }
        }
    }
    post.reverse();
    Some(post)
}
