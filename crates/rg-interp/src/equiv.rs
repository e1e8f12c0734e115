//! The game-tree oracle: do two games (e.g. before and after a pass, or a translation and a
//! reference RG) have the same game tree? Compares perft counts to a depth and the move lists
//! along seeded random playouts, and reports the first difference with its path.

use crate::error::format_path;
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
}

fn diverge(what: impl Into<String>, path: &[Vec<String>]) -> Divergence {
    Divergence {
        what: what.into(),
        path: path.to_vec(),
    }
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
    let (pa, pb) = compile_both(a, b)?;
    check_programs(&pa, &pb, opts)
}

fn compile_both(a: &Game, b: &Game) -> Result<(Program, Program), Divergence> {
    let pa = Program::new(a, CompileOptions::default())
        .map_err(|e| diverge(format!("the first game cannot be interpreted: {e}"), &[]))?;
    let pb = Program::new(b, CompileOptions::default())
        .map_err(|e| diverge(format!("the second game cannot be interpreted: {e}"), &[]))?;
    Ok((pa, pb))
}

/// [`check_equivalent`] on compiled games.
pub fn check_programs(pa: &Program, pb: &Program, opts: &EquivOptions) -> Result<(), Divergence> {
    check_programs_relabelled(pa, pb, opts, &|tags| tags.to_vec())
}

/// Like [`check_equivalent`], for games whose move labels differ by a relabelling (a pass that
/// renames or drops tags, passes.md §1.3): every move of `a` is mapped by `relabel` (tag names
/// of `a` to tag names of `b`) before it is compared with the moves of `b`. At every state
/// visited, distinct moves of `a` must map to distinct moves (the relabelling is a bijection
/// between the two move lists), and the mapped lists must equal `b`'s.
pub fn check_equivalent_relabelled(
    a: &Game,
    b: &Game,
    opts: &EquivOptions,
    relabel: &dyn Fn(&[String]) -> Vec<String>,
) -> Result<(), Divergence> {
    let (pa, pb) = compile_both(a, b)?;
    check_programs_relabelled(&pa, &pb, opts, relabel)
}

/// [`check_equivalent_relabelled`] on compiled games.
pub fn check_programs_relabelled(
    pa: &Program,
    pb: &Program,
    opts: &EquivOptions,
    relabel: &dyn Fn(&[String]) -> Vec<String>,
) -> Result<(), Divergence> {
    let mut ma = Machine::new(pa);
    let mut mb = Machine::new(pb);
    let (sa, sb) = (ma.initial(), mb.initial());
    for d in 0..=opts.depth {
        let ca = ma
            .perft(&sa, d)
            .map_err(|e| diverge(format!("the first game fails at depth {d}: {e}"), &e.path))?;
        let cb = mb
            .perft(&sb, d)
            .map_err(|e| diverge(format!("the second game fails at depth {d}: {e}"), &e.path))?;
        if ca != cb {
            return Err(diverge(format!("perft({d}) is {ca} and {cb}"), &[]));
        }
    }
    let mut rng = Rng::new(opts.seed);
    for _ in 0..opts.plays {
        play_both(&mut ma, &mut mb, sa.clone(), sb.clone(), &mut rng, relabel)?;
    }
    Ok(())
}

const MAX_PLAY: usize = 100_000;

fn play_both(
    ma: &mut Machine<'_>,
    mb: &mut Machine<'_>,
    mut sa: State,
    mut sb: State,
    rng: &mut Rng,
    relabel: &dyn Fn(&[String]) -> Vec<String>,
) -> Result<(), Divergence> {
    let mut path: Vec<Vec<String>> = Vec::new();
    for _ in 0..MAX_PLAY {
        let la = ma
            .moves(&sa)
            .map_err(|e| diverge(format!("the first game fails: {e}"), &path))?;
        let lb = mb
            .moves(&sb)
            .map_err(|e| diverge(format!("the second game fails: {e}"), &path))?;
        let va = sorted_moves(ma, &la);
        let distinct = |v: &[(Vec<String>, usize)]| {
            let mut d: Vec<&Vec<String>> = v.iter().map(|(t, _)| t).collect();
            d.dedup();
            d.len()
        };
        let before = distinct(&va);
        let mut va: Vec<(Vec<String>, usize)> =
            va.into_iter().map(|(t, i)| (relabel(&t), i)).collect();
        va.sort();
        if distinct(&va) != before {
            return Err(diverge(
                "the relabelling maps two different moves of the first game to one",
                &path,
            ));
        }
        let vb = sorted_moves(mb, &lb);
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
            let (ga, gb) = (
                ma.program().goal_entries(&sa.data),
                mb.program().goal_entries(&sb.data),
            );
            if ga != gb {
                return Err(diverge(format!("goals {ga:?} vs {gb:?}"), &path));
            }
            return Ok(());
        }
        let k = rng.below(va.len());
        // The first move in output order with these tags is the one applied (rg.md §12.9).
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
    Ok(())
}
