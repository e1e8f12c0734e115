//! The game-tree oracle: do two games (e.g. before and after a pass, or a translation and a
//! reference RG) have the same game tree? Compares perft counts to a depth and the move lists
//! along seeded random playouts, and reports the first difference with its path.

use crate::error::{RuntimeError, format_path};
use crate::play::Rng;
use crate::program::{CompileOptions, Program};
use crate::search::{Machine, Moves, State};
use rg_core::Game;

/// How hard to compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EquivOptions {
    /// Perft counts are compared for every depth `0..=depth`.
    pub depth: usize,
    /// Number of random playouts along which the move lists are compared.
    pub plays: usize,
    pub seed: u64,
}

impl Default for EquivOptions {
    fn default() -> Self {
        EquivOptions {
            depth: 3,
            plays: 20,
            seed: 0,
        }
    }
}

/// The first difference found between two games.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("the games differ: {what} (after the moves {})", format_path(path))]
#[diagnostic(code(rg::interp::not_equivalent))]
pub struct Divergence {
    pub what: String,
    /// The moves (tag names) played from the initial state before the difference.
    pub path: Vec<Vec<String>>,
    /// Set when the comparison did not find a difference but stopped at a resource limit of
    /// the interpreter (`--search-limit`): the games are neither proved equal nor different,
    /// and callers report this error instead of a divergence.
    pub limit: Option<Box<RuntimeError>>,
}

/// A difference `what` found after the moves `path`.
pub fn diverge(what: impl Into<String>, path: &[Vec<String>]) -> Divergence {
    Divergence {
        what: what.into(),
        path: path.to_vec(),
        limit: None,
    }
}

/// A game failing at run time: a difference (the other game did not fail there), unless it
/// is the interpreter's search limit.
pub fn fails(what: String, e: &RuntimeError, path: &[Vec<String>]) -> Divergence {
    let mut d = diverge(what, path);
    if matches!(e.fault, crate::error::Fault::SearchLimit { .. }) {
        d.limit = Some(Box::new(e.clone()));
    }
    d
}

/// Sorted tag lists of a move list (tags by name, so games with different symbol tables compare).
fn sorted_moves(m: &Machine<'_>, moves: &Moves) -> Vec<(Vec<String>, usize)> {
    let p = m.program();
    let mut v: Vec<(Vec<String>, usize)> = (0..moves.len())
        .map(|i| {
            (
                moves
                    .tags(i)
                    .iter()
                    .map(|&t| p.name(t).to_string())
                    .collect(),
                i,
            )
        })
        .collect();
    v.sort();
    v
}

/// Checks that `a` and `b` have the same perft counts to `opts.depth` and the same (sorted)
/// move lists along `opts.plays` seeded random playouts.
pub fn check_equivalent(a: &Game, b: &Game, opts: &EquivOptions) -> Result<(), Divergence> {
    let (pa, pb) = compile(a, b)?;
    check_programs(&pa, &pb, opts)
}

fn compile(a: &Game, b: &Game) -> Result<(Program, Program), Divergence> {
    let pa = Program::new(a, CompileOptions::default())
        .map_err(|e| diverge(format!("the first game cannot be interpreted: {e}"), &[]))?;
    let pb = Program::new(b, CompileOptions::default())
        .map_err(|e| diverge(format!("the second game cannot be interpreted: {e}"), &[]))?;
    Ok((pa, pb))
}

/// What an oracle run compared (when it found no difference).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compared {
    /// The perft counts, equal in both games, of depths `0..=depth`.
    pub counts: Vec<u64>,
    /// Playouts compared.
    pub plays: usize,
    /// Moves played in all playouts together (keeper moves included).
    pub moves: u64,
    /// Playouts stopped after [`MAX_PLAY`] moves without reaching the end of the game.
    pub cut: usize,
}

/// Compares the perft counts of two states for every depth `0..=depth`; returns them.
fn compare_perft(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    sa: &State,
    sb: &State,
    depth: usize,
) -> Result<Vec<u64>, Divergence> {
    let mut counts = Vec::with_capacity(depth + 1);
    for d in 0..=depth {
        let ca = ma.perft(sa, d).map_err(|e| {
            fails(
                format!("the first game fails at depth {d}: {e}"),
                &e,
                &e.path,
            )
        })?;
        let cb = mb.perft(sb, d).map_err(|e| {
            fails(
                format!("the second game fails at depth {d}: {e}"),
                &e,
                &e.path,
            )
        })?;
        if ca != cb {
            return Err(diverge(format!("perft({d}) is {ca} and {cb}"), &[]));
        }
        counts.push(ca);
    }
    Ok(counts)
}

/// [`check_equivalent`] on compiled games.
pub fn check_programs(pa: &Program, pb: &Program, opts: &EquivOptions) -> Result<(), Divergence> {
    compare_programs(pa, pb, opts).map(|_| ())
}

/// [`check_programs`], saying what was compared.
pub fn compare_programs(
    pa: &Program,
    pb: &Program,
    opts: &EquivOptions,
) -> Result<Compared, Divergence> {
    run_oracle(pa, pb, opts, &play_both)
}

/// How a playout ended: at the end of the game after this many moves, or (`None`) stopped
/// after [`MAX_PLAY`] moves.
type PlayEnd = Option<usize>;

/// One playout of both games from their initial states.
type Playout<'f> = &'f dyn Fn(
    &mut Machine<'_>,
    &mut Machine<'_>,
    State,
    State,
    &mut Rng,
) -> Result<PlayEnd, Divergence>;

/// Perft counts to `opts.depth`, then `opts.plays` playouts.
fn run_oracle(
    pa: &Program,
    pb: &Program,
    opts: &EquivOptions,
    play: Playout<'_>,
) -> Result<Compared, Divergence> {
    let mut ma = Machine::new(pa);
    let mut mb = Machine::new(pb);
    let (sa, sb) = (ma.initial(), mb.initial());
    let mut out = Compared {
        counts: compare_perft(&mut ma, &mut mb, &sa, &sb, opts.depth)?,
        plays: opts.plays,
        ..Compared::default()
    };
    let mut rng = Rng::new(opts.seed);
    for _ in 0..opts.plays {
        match play(&mut ma, &mut mb, sa.clone(), sb.clone(), &mut rng)? {
            Some(moves) => out.moves += moves as u64,
            None => {
                out.moves += MAX_PLAY as u64;
                out.cut += 1;
            }
        }
    }
    Ok(out)
}

/// The moves of both states.
fn both_moves(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    sa: &State,
    sb: &State,
    path: &[Vec<String>],
) -> Result<(Moves, Moves), Divergence> {
    let la = ma
        .moves(sa)
        .map_err(|e| fails(format!("the first game fails: {e}"), &e, path))?;
    let lb = mb
        .moves(sb)
        .map_err(|e| fails(format!("the second game fails: {e}"), &e, path))?;
    Ok((la, lb))
}

/// Compares the goals of two states without moves.
fn same_goals(
    pa: &Program,
    pb: &Program,
    sa: &State,
    sb: &State,
    path: &[Vec<String>],
) -> Result<(), Divergence> {
    let (ga, gb) = (pa.goal_entries(&sa.data), pb.goal_entries(&sb.data));
    if ga != gb {
        let show = |g: &[(String, String)]| {
            g.iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(diverge(
            format!("goals {{{}}} vs {{{}}}", show(&ga), show(&gb)),
            path,
        ));
    }
    Ok(())
}

/// The longest playout compared: a game that has not ended after this many moves (e.g. one
/// that can cycle forever) is compared that far.
pub const MAX_PLAY: usize = 100_000;

fn play_both(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    mut sa: State,
    mut sb: State,
    rng: &mut Rng,
) -> Result<PlayEnd, Divergence> {
    let mut path: Vec<Vec<String>> = Vec::new();
    for _ in 0..MAX_PLAY {
        let (la, lb) = both_moves(ma, mb, &sa, &sb, &path)?;
        let (va, vb) = (sorted_moves(ma, &la), sorted_moves(mb, &lb));
        if va.len() != vb.len() || va.iter().zip(&vb).any(|(x, y)| x.0 != y.0) {
            let show = |v: &[(Vec<String>, usize)]| {
                v.iter()
                    .take(8)
                    .map(|(t, _)| format!("[{}]", t.join(" ")))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            return Err(diverge(
                format!(
                    "{} moves {} vs {} moves {}",
                    va.len(),
                    show(&va),
                    vb.len(),
                    show(&vb)
                ),
                &path,
            ));
        }
        if ma.is_final(&sa) != mb.is_final(&sb) {
            return Err(diverge("only one of the games is at `end`", &path));
        }
        if va.is_empty() {
            same_goals(ma.program(), mb.program(), &sa, &sb, &path)?;
            return Ok(Some(path.len()));
        }
        let k = rng.below(va.len());
        // Applying a move by its tags applies the first legal move in output order with them.
        let first = |v: &[(Vec<String>, usize)], tags: &[String]| {
            v.iter()
                .filter(|(t, _)| t.as_slice() == tags)
                .map(|&(_, i)| i)
                .min()
                .expect("the tags come from this list")
        };
        let tags = va[k].0.clone();
        sa = la.state(first(&va, &tags));
        sb = lb.state(first(&vb, &tags));
        path.push(tags);
    }
    Ok(None)
}

/// Depth of the unlabelled subtree compared below every move in [`check_relabelled`].
const SIG_DEPTH: usize = 2;

/// A hash of the game tree below `s` to `depth` plies with move labels ignored: the player to
/// move, whether the state is final, the goals where no move is left, and the multiset of the
/// children's signatures.
fn signature(m: &mut Machine<'_>, s: &State, depth: usize) -> Result<u64, Box<RuntimeError>> {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    let p = m.program();
    p.name(m.player(&s.data)).hash(&mut h);
    m.is_final(s).hash(&mut h);
    if depth > 0 {
        let moves = m.moves(s)?;
        if moves.is_empty() {
            p.goal_entries(&s.data).hash(&mut h);
        }
        let mut children = (0..moves.len())
            .map(|i| signature(m, &moves.state(i), depth - 1))
            .collect::<Result<Vec<u64>, _>>()?;
        children.sort_unstable();
        children.hash(&mut h);
    }
    Ok(h.finish())
}

/// The moves of one state grouped by labelling: per group (in output order of its first move)
/// the indexes of its moves and the sorted signatures of the states they lead to.
struct Groups {
    groups: Vec<(Vec<usize>, Vec<u64>)>,
    /// Signature of the state each move leads to.
    sigs: Vec<u64>,
}

impl Groups {
    /// The sorted signature lists of the groups, sorted.
    fn keys(&self) -> Vec<&[u64]> {
        let mut k: Vec<&[u64]> = self.groups.iter().map(|(_, s)| s.as_slice()).collect();
        k.sort_unstable();
        k
    }
}

fn groups(m: &mut Machine<'_>, moves: &Moves, path: &[Vec<String>]) -> Result<Groups, Divergence> {
    let mut by_tags: Vec<(Vec<u32>, Vec<usize>)> = Vec::new();
    let mut sigs = Vec::with_capacity(moves.len());
    for i in 0..moves.len() {
        let sig = signature(m, &moves.state(i), SIG_DEPTH)
            .map_err(|e| fails(format!("a game fails below a move: {e}"), &e, path))?;
        sigs.push(sig);
        match by_tags
            .iter_mut()
            .find(|(t, _)| t.as_slice() == moves.tags(i))
        {
            Some((_, v)) => v.push(i),
            None => by_tags.push((moves.tags(i).to_vec(), vec![i])),
        }
    }
    let groups = by_tags
        .into_iter()
        .map(|(_, idx)| {
            let mut s: Vec<u64> = idx.iter().map(|&i| sigs[i]).collect();
            s.sort_unstable();
            (idx, s)
        })
        .collect();
    Ok(Groups { groups, sigs })
}

/// Checks that `b` has the game tree of `a` up to a relabelling of the moves that is one-to-one
/// at every state (what tag-removing and renaming passes promise): the same perft counts to
/// `opts.depth`, and along `opts.plays` seeded random playouts, at every state, the same player
/// to move, the same goals at the end, and moves that pair up label group by label group so that
/// paired moves lead to states with the same unlabelled subtree (to a small depth). Playouts
/// follow a random move of `a` and its partner in `b`. Move names are never compared.
pub fn check_relabelled(a: &Game, b: &Game, opts: &EquivOptions) -> Result<(), Divergence> {
    check_relabelled_hinted(a, b, opts, &|tags| tags.to_vec())
}

/// [`check_relabelled`] on compiled games, saying what was compared (`moves` counts the moves
/// of the first game). Faster and a little weaker: where the moves' labels pair up one to one,
/// only the followed pair's subtrees are compared (as [`check_programs`] compares no subtree),
/// not every move's.
pub fn compare_relabelled(
    pa: &Program,
    pb: &Program,
    opts: &EquivOptions,
) -> Result<Compared, Divergence> {
    let same = |tags: &[String]| tags.to_vec();
    let play = |ma: &mut Machine<'_>, mb: &mut Machine<'_>, sa, sb, rng: &mut Rng| {
        play_relabelled(ma, mb, sa, sb, rng, &same, true)
    };
    run_oracle(pa, pb, opts, &play)
}

/// A guess of the label in the second game of a move of the first game (tag names to tag names).
pub type Relabel<'f> = &'f dyn Fn(&[String]) -> Vec<String>;

/// [`check_relabelled`] with a guess of the relabelling (e.g. read off the edges a renaming
/// pass rewrote): among partners that look alike, the one whose label is the guessed image is
/// followed. The guess only steers the playouts; the checks are those of [`check_relabelled`],
/// so a wrong guess cannot make different games pass.
pub fn check_relabelled_hinted(
    a: &Game,
    b: &Game,
    opts: &EquivOptions,
    hint: Relabel<'_>,
) -> Result<(), Divergence> {
    let (pa, pb) = compile(a, b)?;
    let play = |ma: &mut Machine<'_>, mb: &mut Machine<'_>, sa, sb, rng: &mut Rng| {
        play_relabelled(ma, mb, sa, sb, rng, hint, false)
    };
    run_oracle(&pa, &pb, opts, &play).map(|_| ())
}

/// One playout of [`check_relabelled`]; with `fast`, states whose labels pair up take the
/// shortcut of [`labels_pair_up`].
fn play_relabelled(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    mut sa: State,
    mut sb: State,
    rng: &mut Rng,
    hint: Relabel<'_>,
    fast: bool,
) -> Result<PlayEnd, Divergence> {
    let mut path: Vec<Vec<String>> = Vec::new();
    for _ in 0..MAX_PLAY {
        let (pa, pb) = (ma.program(), mb.program());
        if pa.name(ma.player(&sa.data)) != pb.name(mb.player(&sb.data)) {
            return Err(diverge("different players to move", &path));
        }
        if ma.is_final(&sa) != mb.is_final(&sb) {
            return Err(diverge("only one of the games is at `end`", &path));
        }
        let (la, lb) = both_moves(ma, mb, &sa, &sb, &path)?;
        if la.len() != lb.len() {
            return Err(diverge(
                format!("{} moves vs {} moves", la.len(), lb.len()),
                &path,
            ));
        }
        if la.is_empty() {
            same_goals(pa, pb, &sa, &sb, &path)?;
            return Ok(Some(path.len()));
        }
        if fast && let Some((ia, jb, label)) = labels_pair_up(ma, mb, &la, &lb, rng, hint, &path)? {
            path.push(label);
            sa = la.state(ia);
            sb = lb.state(jb);
            continue;
        }
        let (ga, gb) = (groups(ma, &la, &path)?, groups(mb, &lb, &path)?);
        if ga.keys() != gb.keys() {
            return Err(diverge(
                format!(
                    "the moves do not pair up: {} labellings vs {}, or their subtrees differ",
                    ga.groups.len(),
                    gb.groups.len()
                ),
                &path,
            ));
        }
        // A random move of `a`; the one applied is the first in output order with its tags.
        let k = rng.below(la.len());
        let (idx, key) = ga
            .groups
            .iter()
            .find(|(idx, _)| idx.contains(&k))
            .expect("every move is in a group");
        let (ia, sig) = (idx[0], ga.sigs[idx[0]]);
        let names = |p: &Program, moves: &Moves, i: usize| -> Vec<String> {
            moves
                .tags(i)
                .iter()
                .map(|&t| p.name(t).to_string())
                .collect()
        };
        let label_a = names(pa, &la, ia);
        let candidates: Vec<usize> = gb
            .groups
            .iter()
            .filter(|(j, s)| s == key && gb.sigs[j[0]] == sig)
            .map(|(j, _)| j[0])
            .collect();
        // Partners that look alike to the signature's depth are told apart by a deeper
        // signature, then by their labels (the guessed image, or the label with tags removed).
        // The labels alone could mislead: a renaming may give a move the name of another one.
        let candidates: Vec<usize> = if candidates.len() < 2 {
            candidates
        } else {
            let want = signature(ma, &la.state(ia), SIG_DEPTH + 2).ok();
            candidates
                .into_iter()
                .filter(|&j| signature(mb, &lb.state(j), SIG_DEPTH + 2).ok() == want)
                .collect()
        };
        let image = hint(&label_a);
        let jb = candidates
            .iter()
            .copied()
            .find(|&j| names(pb, &lb, j) == image)
            .or_else(|| {
                candidates
                    .iter()
                    .copied()
                    .find(|&j| is_subsequence(&names(pb, &lb, j), &label_a))
            })
            .or_else(|| candidates.first().copied());
        let Some(jb) = jb else {
            return Err(diverge("no partner for a move of the first game", &path));
        };
        path.push(label_a);
        sa = la.state(ia);
        sb = lb.state(jb);
    }
    Ok(None)
}

/// The fast path of [`play_relabelled`] when the labels already say how the moves pair up: every
/// move of `la` has a label of its own, and so does every move of `lb`; each label of `la` has
/// as partner its guessed image, or else the one label of `lb` that is it with tags removed (as
/// tag-removing passes make), one to one. Then a random move of `la` and its image are followed, provided they lead
/// to states that look alike ([`SIG_DEPTH`]); the full pairing by signatures of every move
/// (which costs a subtree per move) is left for the states where this does not hold. `None`
/// when it does not apply.
fn labels_pair_up(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    la: &Moves,
    lb: &Moves,
    rng: &mut Rng,
    hint: Relabel<'_>,
    path: &[Vec<String>],
) -> Result<Option<(usize, usize, Vec<String>)>, Divergence> {
    let labels = |m: &Machine<'_>, moves: &Moves| -> Vec<Vec<String>> {
        (0..moves.len())
            .map(|i| {
                moves
                    .tags(i)
                    .iter()
                    .map(|&t| m.program().name(t).to_string())
                    .collect()
            })
            .collect()
    };
    let (a, b) = (labels(ma, la), labels(mb, lb));
    let unique = |v: &[Vec<String>]| {
        let mut v = v.to_vec();
        v.sort();
        v.windows(2).all(|w| w[0] != w[1])
    };
    if !unique(&a) || !unique(&b) {
        return Ok(None);
    }
    let mut partner = Vec::with_capacity(a.len());
    let mut taken = vec![false; b.len()];
    for label in &a {
        let image = hint(label);
        let j = match b.iter().position(|l| *l == image) {
            Some(j) => j,
            None => {
                let mut shorter = (0..b.len()).filter(|&j| is_subsequence(&b[j], label));
                match (shorter.next(), shorter.next()) {
                    (Some(j), None) => j,
                    _ => return Ok(None),
                }
            }
        };
        if std::mem::replace(&mut taken[j], true) {
            return Ok(None);
        }
        partner.push(j);
    }
    let k = rng.below(la.len());
    let j = partner[k];
    let look = |m: &mut Machine<'_>, s: &State| {
        signature(m, s, SIG_DEPTH)
            .map_err(|e| fails(format!("a game fails below a move: {e}"), &e, path))
    };
    if look(ma, &la.state(k))? != look(mb, &lb.state(j))? {
        // Perhaps labels that do not correspond: the full pairing decides. It draws its own
        // random move, as if this path had not been tried.
        return Ok(None);
    }
    Ok(Some((k, j, a[k].clone())))
}

/// Whether `short` is `long` with some elements removed.
fn is_subsequence(short: &[String], long: &[String]) -> bool {
    let mut it = long.iter();
    short.iter().all(|s| it.any(|l| l == s))
}
