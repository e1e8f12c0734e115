//! `rgt verify`: prove one game's translation on a bounded part of its tree.

use crate::cmd::equiv::{describe, divergence};
use crate::cmd::perft::{InterpArgs, compile};
use crate::lang::Lang;
use crate::pipeline::{OptLevel, optimise, translate_text};
use crate::report::{Failure, Session};
use gdl_reasoner::{Evaluated, GroundTerm, Reasoner, State as GdlState};
use rg_interp::equiv::{Compared, Divergence, EquivOptions, compare_relabelled, diverge, fails};
use rg_interp::{Machine, Moves, Program, Rng, State};
use std::io::Write;
use std::process::ExitCode;

/// Prove a game's translation: -O0 against -O2, and for GDL the description itself.
///
/// The game is translated once and optimised at -O2. For every language the translation at -O0
/// and at -O2 are compared as by `rgt equiv --relabel` (-O2 may drop or rename move tags): perft
/// counts at every depth up to the horizon, then --plays seeded random playouts to the end of
/// the game in lockstep, comparing at every step the player to move, the moves (paired one to
/// one), whether the state is final, and at the end the goals of every player. For GDL (.kif,
/// .gdl) the independent GDL reasoner on the description is compared first with the
/// interpreter on the translation at -O0: perft to the horizon (joint moves sequentialised in
/// role-fact order), then playouts in lockstep comparing each role's legal actions with the
/// interpreter's moves by the names the translation gives them (games whose action names
/// collide, warning W-LOW-060, cannot be paired), the role to move, terminal states and the
/// goal of every role; then with the translation at -O2 by perft. Prints one line per
/// comparison with the perft counts; the first divergence is an error (exit status 1) showing
/// the moves that lead to it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game file (`-` reads standard input, as RG unless --from says otherwise).
    #[arg(value_name = "GAME")]
    pub input: String,

    /// The input language; by default chosen by the file extension.
    #[arg(long, value_enum, value_name = "LANG")]
    pub from: Option<Lang>,

    /// The perft horizon: full steps (one move of every role) for GDL, moves (plies) for the
    /// other languages [default: 2 for GDL, 3 otherwise].
    #[arg(long, short = 'd', value_name = "D")]
    pub depth: Option<usize>,

    /// Number of random playouts per comparison.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub plays: usize,

    /// Seed of the playouts.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// See `rgt translate --size-limit`.
    #[arg(long, value_name = "N")]
    pub size_limit: Option<u64>,

    /// See `rgt translate --lenient` (the reasoner reads the rules the same way).
    #[arg(long)]
    pub lenient: bool,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// Steps of a GDL playout compared at most: a game that has not ended after this many joint
/// moves (e.g. one that can cycle forever) is compared that far.
const MAX_STEPS: usize = 10_000;

/// Runs `rgt verify`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let lang = Lang::detect(&args.input, args.from)?;
    session.options.size_limit = args.size_limit;
    session.options.lenient = args.lenient;
    let (name, text) = rg_pipeline::read_source(&args.input)?;
    let gdl_source = (lang == Lang::Kif).then(|| (name.clone(), text.clone()));
    let g0 = translate_text(session, lang, name, text)?;
    let mut g2 = g0.clone();
    optimise(&mut g2, OptLevel::O2)?;
    let (p0, p2) = (compile(&g0, &args.interp)?, compile(&g2, &args.interp)?);
    let plies = match gdl_source {
        Some((name, text)) => {
            // The translation has reported the description's warnings already.
            let file = session.sources.add(name, text);
            let text = &session.sources.get(file).expect("just added").text;
            let mut parse = front_gdl::ParseOptions::default();
            parse.lenient = args.lenient;
            let loaded =
                front_gdl::load(file, text, &parse).map_err(|e| Failure::input(&e, Some(file)))?;
            let reasoner =
                Reasoner::with_options(&loaded.program, gdl_reasoner::DEFAULT_LIMIT, args.lenient)
                    .map_err(|e| Failure::input(&e, Some(file)))?;
            let steps = args.depth.unwrap_or(2);
            let plies = steps.saturating_mul(reasoner.roles().len());
            let opts = EquivOptions {
                depth: plies,
                plays: args.plays,
                seed: args.seed,
            };
            // The reasoner's counts, once for both levels.
            let mut counter = reasoner.clone();
            let counts = (0..=plies)
                .map(|d| counter.perft(d))
                .collect::<Result<Vec<u64>, _>>()
                .map_err(|e| Failure::input(&e, Some(file)))?;
            let done = Lockstep::new(reasoner, &p0)
                .compare(&counts, &opts)
                .map_err(|d| divergence("the GDL reasoner and the interpreter at -O0", d))?;
            say(&format!(
                "GDL reasoner = interpreter at -O0: {}",
                describe(&done, "steps", MAX_STEPS)
            ))?;
            // -O2 may drop or rename move tags, so its moves cannot be paired with actions by
            // name: its counts are compared here, its moves with -O0's below.
            let only_counts = EquivOptions { plays: 0, ..opts };
            let done = Lockstep::new(counter, &p2)
                .compare(&counts, &only_counts)
                .map_err(|d| divergence("the GDL reasoner and the interpreter at -O2", d))?;
            say(&format!(
                "GDL reasoner = interpreter at -O2: {}",
                describe(&done, "steps", MAX_STEPS)
            ))?;
            plies
        }
        None => args.depth.unwrap_or(3),
    };
    let opts = EquivOptions {
        depth: plies,
        plays: args.plays,
        seed: args.seed,
    };
    let done = compare_relabelled(&p0, &p2, &opts).map_err(|d| divergence("-O0 and -O2", d))?;
    say(&format!(
        "-O0 = -O2 (moves paired up to the tags -O2 drops or renames): {}",
        describe(&done, "moves", rg_interp::equiv::MAX_PLAY)
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints one line of the report at once, so that the comparisons done are shown when a later
/// one diverges or runs long.
fn say(line: &str) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::Io(format!("cannot write to standard output: {e}")))
}

/// The GDL reasoner on a description and the interpreter on its translation, side by side.
struct Lockstep<'p> {
    r: Reasoner,
    m: Machine<'p>,
    /// The RG name of every role: the value of `player` when it is to move, its key in `goals`.
    roles: Vec<String>,
}

impl<'p> Lockstep<'p> {
    fn new(r: Reasoner, p: &'p Program) -> Self {
        let roles = (0..r.roles().len())
            .map(|i| {
                if Some(i) == r.random_role() {
                    "random".to_owned()
                } else {
                    r.rg_name(r.roles()[i])
                }
            })
            .collect();
        Lockstep {
            r,
            m: Machine::new(p),
            roles,
        }
    }

    /// A reasoner failure during a playout (e.g. its fact limit) as a divergence.
    fn reasoner_failed(e: gdl_reasoner::ReasonerError, path: &[Vec<String>]) -> Divergence {
        diverge(format!("the GDL reasoner fails: {e}"), path)
    }

    /// The reasoner's perft `counts` against the interpreter's, then `opts.plays` playouts.
    fn compare(mut self, counts: &[u64], opts: &EquivOptions) -> Result<Compared, Divergence> {
        let init = self.m.initial();
        let mut done = Compared {
            plays: opts.plays,
            ..Compared::default()
        };
        for (d, &a) in counts.iter().enumerate() {
            let b = self.m.perft(&init, d).map_err(|e| {
                fails(
                    format!("the interpreter fails at depth {d}: {e}"),
                    &e,
                    &e.path,
                )
            })?;
            if a != b {
                return Err(diverge(
                    format!("perft({d}) is {a} (reasoner) and {b} (interpreter)"),
                    &[],
                ));
            }
            done.counts.push(a);
        }
        let mut rng = Rng::new(opts.seed);
        for _ in 0..opts.plays {
            match self.play(&mut rng)? {
                Some(steps) => done.moves += steps as u64,
                None => {
                    done.moves += MAX_STEPS as u64;
                    done.cut += 1;
                }
            }
        }
        Ok(done)
    }

    /// Plays the keeper's moves (one at a time: the keeper of a translation never chooses)
    /// until a role is to move or the game is over; returns that state and its moves.
    fn settle(&mut self, mut s: State, path: &[Vec<String>]) -> Result<(State, Moves), Divergence> {
        for _ in 0..rg_interp::equiv::MAX_PLAY {
            let moves = self
                .m
                .moves(&s)
                .map_err(|e| fails(format!("the interpreter fails: {e}"), &e, path))?;
            if !self.m.is_keeper(&s.data) || moves.is_empty() {
                return Ok((s, moves));
            }
            if moves.len() > 1 {
                return Err(diverge(
                    format!("the keeper has {} moves in the translation", moves.len()),
                    path,
                ));
            }
            s = moves.state(0);
        }
        Err(diverge("the keeper of the translation never stops", path))
    }

    /// One playout to the end: the number of joint moves, or `None` when stopped after
    /// [`MAX_STEPS`].
    fn play(&mut self, rng: &mut Rng) -> Result<Option<usize>, Divergence> {
        let mut gs: GdlState = self.r.initial().clone();
        let mut s = self.m.initial();
        let mut path: Vec<Vec<String>> = Vec::new();
        for step in 0..MAX_STEPS {
            let mut ev = self
                .r
                .evaluate(&gs)
                .map_err(|e| Self::reasoner_failed(e, &path))?;
            let (settled, moves) = self.settle(s, &path)?;
            s = settled;
            if ev.is_terminal() {
                if !moves.is_empty() {
                    return Err(diverge(
                        format!(
                            "the state is terminal for the reasoner; the interpreter has {} moves",
                            moves.len()
                        ),
                        &path,
                    ));
                }
                self.same_goals(&ev, &s, &path)?;
                return Ok(Some(step));
            }
            let mut joint = Vec::with_capacity(ev.legal().len());
            let mut moves = Some(moves);
            for i in 0..ev.legal().len() {
                let moves = match moves.take() {
                    Some(moves) => moves,
                    None => {
                        let (settled, moves) = self.settle(s, &path)?;
                        s = settled;
                        moves
                    }
                };
                let actions = &ev.legal()[i];
                if actions.is_empty() {
                    // A role without a legal action blocks the play (a GDL step needs an action of
                    // every role): so must the translation.
                    if moves.is_empty() {
                        return Ok(Some(step));
                    }
                    return Err(diverge(
                        format!(
                            "role {} has no legal action for the reasoner; the interpreter has {} moves",
                            self.roles[i],
                            moves.len()
                        ),
                        &path,
                    ));
                }
                let k = rng.below(actions.len());
                let (name, next) = self.pair(i, actions, k, &s, &moves, &path)?;
                s = next;
                joint.push(actions[k]);
                path.push(vec![name]);
            }
            gs = self
                .r
                .next(&mut ev, &joint)
                .map_err(|e| Self::reasoner_failed(e, &path))?
                .state;
        }
        Ok(None)
    }

    /// Checks that role `i` is to move in `s` with moves named as its legal `actions`; returns
    /// the name of action `k` and the state after its move.
    fn pair(
        &self,
        i: usize,
        actions: &[GroundTerm],
        k: usize,
        s: &State,
        moves: &Moves,
        path: &[Vec<String>],
    ) -> Result<(String, State), Divergence> {
        let p = self.m.program();
        if moves.is_empty() {
            return Err(diverge(
                format!(
                    "the state is not terminal for the reasoner and role {} has {} actions; the interpreter has no move",
                    self.roles[i],
                    actions.len()
                ),
                path,
            ));
        }
        let player = p.name(self.m.player(&s.data));
        if player != self.roles[i] {
            return Err(diverge(
                format!(
                    "role {} is to move for the reasoner, {player} in the translation",
                    self.roles[i]
                ),
                path,
            ));
        }
        let mut want: Vec<String> = actions.iter().map(|&a| self.r.rg_name(a)).collect();
        let mut have: Vec<String> = (0..moves.len())
            .map(|j| {
                let tags: Vec<&str> = moves.tags(j).iter().map(|&t| p.name(t)).collect();
                tags.join(" ")
            })
            .collect();
        let name = want[k].clone();
        want.sort();
        have.sort();
        if want != have {
            let show = |v: &[String]| v.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
            return Err(diverge(
                format!(
                    "role {}: the reasoner has {} actions [{}], the interpreter {} moves [{}]",
                    self.roles[i],
                    want.len(),
                    show(&want),
                    have.len(),
                    show(&have)
                ),
                path,
            ));
        }
        if want.windows(2).any(|w| w[0] == w[1]) {
            return Err(diverge(
                format!(
                    "role {}: two legal actions have the same RG name (W-LOW-060), so they cannot be paired",
                    self.roles[i]
                ),
                path,
            ));
        }
        let j = (0..moves.len())
            .find(|&j| matches!(moves.tags(j), [t] if p.name(*t) == name))
            .expect("the names are equal as sets");
        Ok((name, moves.state(j)))
    }

    /// The goal of every role (but `random`) in a terminal state.
    fn same_goals(
        &self,
        ev: &Evaluated,
        s: &State,
        path: &[Vec<String>],
    ) -> Result<(), Divergence> {
        let rg = self.m.program().goal_entries(&s.data);
        for (i, values) in self.r.goals(ev).iter().enumerate() {
            if Some(i) == self.r.random_role() {
                continue;
            }
            // A role with no goal value or several is not a well-formed GDL game (a terminal
            // state gives each role exactly one goal): its goal in the translation is not
            // defined by the description.
            let [v] = values.as_slice() else { continue };
            let want = self.r.rg_name(*v);
            let have = rg
                .iter()
                .find(|(k, _)| *k == self.roles[i])
                .map(|(_, v)| v.as_str());
            if have != Some(want.as_str()) {
                return Err(diverge(
                    format!(
                        "goal of {}: {want} (reasoner), {} (interpreter)",
                        self.roles[i],
                        have.unwrap_or("none")
                    ),
                    path,
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One role picks `a` or `b` twice; it scores 100 when its second pick is `WIN`. `EXTRA` is
    /// spliced in as more rules.
    const GAME: &str = "(role p) (init (step 0)) (succ 0 1) (succ 1 2) \
        (<= (legal p a) (not terminal)) (<= (legal p b) (not terminal)) \
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y)) \
        (<= (next (last ?m)) (does p ?m)) \
        (<= terminal (true (step 2))) \
        (<= (goal p 100) (true (last WIN))) (<= (goal p 0) (not (true (last WIN)))) EXTRA";

    fn kif(win: &str, extra: &str) -> String {
        GAME.replace("WIN", win).replace("EXTRA", extra)
    }

    /// The reasoner on `description` against the interpreter on the translation of
    /// `translated`, perft to `depth` plies.
    fn lockstep(description: &str, translated: &str, depth: usize) -> Result<Compared, Divergence> {
        let mut session = Session::plain();
        let game = translate_text(&mut session, Lang::Kif, "t.kif".into(), translated.into())
            .expect("translates");
        let program = compile(
            &game,
            &InterpArgs {
                ignore_pragmas: false,
                search_limit: None,
            },
        )
        .expect("compiles");
        let loaded = front_gdl::load(
            rg_core::FileId(0),
            description,
            &front_gdl::ParseOptions::default(),
        )
        .expect("loads");
        let mut r = Reasoner::new(&loaded.program).expect("reasoner");
        let opts = EquivOptions {
            depth,
            plays: 10,
            seed: 1,
        };
        let counts = (0..=opts.depth)
            .map(|d| r.perft(d).expect("perft"))
            .collect::<Vec<_>>();
        Lockstep::new(r, &program).compare(&counts, &opts)
    }

    #[test]
    fn a_faithful_translation_passes() {
        let g = kif("a", "");
        let done = lockstep(&g, &g, 2).expect("equal");
        assert_eq!(done.counts, [1, 2, 4]);
        assert_eq!((done.plays, done.moves, done.cut), (10, 20, 0));
    }

    #[test]
    fn a_wrong_goal_is_found_by_the_playouts() {
        // Perft cannot see goals: only the playouts can tell these apart.
        let d = lockstep(&kif("a", ""), &kif("b", ""), 2).expect_err("the goals differ");
        assert!(d.what.starts_with("goal of p: "), "{}", d.what);
        assert_eq!(d.path.len(), 2);
    }

    #[test]
    fn a_wrong_move_beyond_the_perft_horizon_is_found_by_the_playouts() {
        // A third action in the second step only: perft to depth 1 agrees.
        let extra = "(<= (legal p c) (true (step 1)))";
        let description = kif("a", "");
        let translated = kif("a", extra);
        let d = lockstep(&description, &translated, 1).expect_err("the moves differ");
        assert!(
            d.what
                .contains("the reasoner has 2 actions [a, b], the interpreter 3 moves [a, b, c]"),
            "{}",
            d.what
        );
        assert_eq!(d.path.len(), 1);
    }
}
