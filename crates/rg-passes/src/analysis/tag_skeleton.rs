//! The tag skeleton of the main automaton, determinized per move (`skip_redundant_tags`, the `rgt`
//! requirement).
//!
//! Every edge of the main automaton is an *event* (a tag or a variable tag: the label is the
//! event), an *end of move* (an assignment to `player`), or *silent* (everything else; conditions
//! are ignored, which over-approximates the walks). A *position set* is the set of nodes a walk
//! can be at after a given sequence of events since the move began: the initial sets are the
//! silent closures of `begin` and of the target of every end-of-move edge, and from a set `Q` the
//! event class `c` leads to the silent closure of the targets of the edges leaving `Q` whose event
//! is in `c`. Every walk from a state whose move so far carries the tags `w` is at a node of the
//! set reached by the classes of `w`.
//!
//! Events are grouped into classes because a move records tag *values*, not the edges that made
//! them: `$$ a` and `$$ b` over one type, or `$$ a` and `$ v1` with `v1` a value of `a`, can show
//! the same tag. Two events are in one class when their value sets meet (transitively), so every
//! tag value belongs to at most one class and the class sequence of a move is determined by it.
//!
//! The sets are explored breadth-first under two caps (number of sets, total work counted in
//! node visits and edge scans); the exploration is abandoned when one is exceeded.
//!
//! Complexity: O(work cap) time, O(sum of set sizes) memory.

use crate::util::set_members;
use rg_core::{EdgeData, EdgeId, Game, Label, NodeId, Symbol};
use std::collections::HashMap;

/// What an edge contributes to the labelling of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Not visible in the move.
    Silent,
    /// Appends this (tag or variable-tag) label to the move.
    Event(Label),
    /// Ends the move.
    End,
}

/// Limits of one exploration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub sets: usize,
    pub work: usize,
}

/// Which cap stopped the exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    Sets(usize),
    Work(usize),
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exceeded::Sets(n) => write!(f, "more than {n} position sets"),
            Exceeded::Work(n) => write!(f, "more than {n} steps"),
        }
    }
}

/// The event classes of a game: tag labels whose value sets meet share a class.
#[derive(Debug, Default)]
pub(crate) struct EventClasses {
    of: HashMap<Label, usize>,
}

impl EventClasses {
    /// The classes of the tag labels of `g`'s edges. A variable tag whose type does not resolve
    /// to a set of values is put in one class with every other tag.
    pub(crate) fn new(g: &Game) -> Self {
        let mut labels: Vec<Label> = Vec::new();
        let mut index: HashMap<Label, usize> = HashMap::new();
        for (_, d) in g.edges() {
            if d.label.is_tag() && !index.contains_key(&d.label) {
                index.insert(d.label, labels.len());
                labels.push(d.label);
            }
        }
        let mut parent: Vec<usize> = (0..labels.len()).collect();
        fn find(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut owner: HashMap<Symbol, usize> = HashMap::new();
        let mut unknown: Option<usize> = None;
        for (i, &l) in labels.iter().enumerate() {
            let values = match l {
                Label::Tag(s) => Some(vec![s]),
                Label::TagVar(v) => g.variable(v).and_then(|var| set_members(g, var.ty)),
                _ => None,
            };
            let Some(values) = values else {
                unknown = Some(i);
                continue;
            };
            for x in values {
                let j = *owner.entry(x).or_insert(i);
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
        if unknown.is_some() {
            parent.iter_mut().for_each(|p| *p = 0);
        }
        let of = labels
            .iter()
            .enumerate()
            .map(|(i, &l)| (l, find(&mut parent, i)))
            .collect();
        EventClasses { of }
    }

    /// The class of the event `l` (a tag label of the game).
    pub(crate) fn class(&self, l: Label) -> usize {
        self.of.get(&l).copied().unwrap_or(usize::MAX)
    }
}

/// The position sets of the main automaton (each sorted by node id, no duplicates).
#[derive(Debug, Default)]
pub(crate) struct PositionSets {
    pub sets: Vec<Vec<NodeId>>,
}

struct Explorer<'g, F> {
    g: &'g Game,
    step: F,
    caps: Caps,
    work: usize,
    stamp: Vec<u32>,
    round: u32,
    index: HashMap<Vec<NodeId>, usize>,
    sets: Vec<Vec<NodeId>>,
}

impl<F: Fn(&EdgeData) -> Step> Explorer<'_, F> {
    fn spend(&mut self, n: usize) -> Result<(), Exceeded> {
        self.work += n;
        if self.work > self.caps.work {
            Err(Exceeded::Work(self.caps.work))
        } else {
            Ok(())
        }
    }

    /// The silent closure of `seeds`, sorted.
    fn closure(&mut self, seeds: &[NodeId]) -> Result<Vec<NodeId>, Exceeded> {
        self.round += 1;
        let mut out: Vec<NodeId> = Vec::new();
        let mut stack: Vec<NodeId> = Vec::new();
        for &s in seeds {
            if self.stamp[s.0 as usize] != self.round {
                self.stamp[s.0 as usize] = self.round;
                stack.push(s);
            }
        }
        while let Some(n) = stack.pop() {
            out.push(n);
            let out_edges = self.g.outgoing(n);
            self.spend(1 + out_edges.len())?;
            for &e in out_edges {
                let d = self.g.edge(e);
                if (self.step)(d) == Step::Silent && self.stamp[d.to.0 as usize] != self.round {
                    self.stamp[d.to.0 as usize] = self.round;
                    stack.push(d.to);
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    fn intern(&mut self, set: Vec<NodeId>, queue: &mut Vec<usize>) -> Result<(), Exceeded> {
        if set.is_empty() || self.index.contains_key(&set) {
            return Ok(());
        }
        if self.sets.len() >= self.caps.sets {
            return Err(Exceeded::Sets(self.caps.sets));
        }
        self.index.insert(set.clone(), self.sets.len());
        queue.push(self.sets.len());
        self.sets.push(set);
        Ok(())
    }
}

/// Explores the position sets, edges classified by `step` and events grouped by `classes`. `main`
/// marks the nodes of the main automaton: only their end-of-move edges start moves (walks inside
/// checks are not moves).
pub(crate) fn position_sets(
    g: &Game,
    main: &crate::util::NodeMap<bool>,
    step: impl Fn(&EdgeData) -> Step,
    classes: &EventClasses,
    caps: Caps,
) -> Result<PositionSets, Exceeded> {
    let mut x = Explorer {
        g,
        step,
        caps,
        work: 0,
        stamp: vec![0; g.node_capacity()],
        round: 0,
        index: HashMap::new(),
        sets: Vec::new(),
    };
    let mut starts: Vec<NodeId> = g.begin().into_iter().collect();
    for (_, d) in g.edges() {
        if main[d.from] && (x.step)(d) == Step::End {
            starts.push(d.to);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let mut queue = Vec::new();
    for s in starts {
        let set = x.closure(&[s])?;
        x.intern(set, &mut queue)?;
    }
    let mut head = 0;
    while head < queue.len() {
        let q = queue[head];
        head += 1;
        // Targets per event class, classes in first-seen order (deterministic).
        let mut targets: Vec<(usize, Vec<NodeId>)> = Vec::new();
        for i in 0..x.sets[q].len() {
            let n = x.sets[q][i];
            for &e in g.outgoing(n) {
                let d = g.edge(e);
                if let Step::Event(l) = (x.step)(d) {
                    let l = classes.class(l);
                    match targets.iter_mut().find(|(t, _)| *t == l) {
                        Some((_, v)) => v.push(d.to),
                        None => targets.push((l, vec![d.to])),
                    }
                }
            }
        }
        x.spend(targets.len())?;
        for (_, seeds) in targets {
            let set = x.closure(&seeds)?;
            x.intern(set, &mut queue)?;
        }
    }
    Ok(PositionSets { sets: x.sets })
}

/// The edges leaving `n` whose step is an event.
pub(crate) fn events_of<'a>(
    g: &'a Game,
    n: NodeId,
    step: &'a impl Fn(&EdgeData) -> Step,
) -> impl Iterator<Item = (EdgeId, Label)> + 'a {
    g.outgoing(n)
        .iter()
        .filter_map(move |&e| match step(g.edge(e)) {
            Step::Event(l) => Some((e, l)),
            _ => None,
        })
}
