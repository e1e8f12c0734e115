//! `rgt perft`: count the leaves of the game tree at each depth, with the RG interpreter or, for
//! GDL, with the independent GDL reasoner (its joint moves taken one role at a time, in the order
//! of the role facts, as the translation takes them, so that the counts can be compared).

use crate::lang::Lang;
use crate::pipeline::{GameArgs, load};
use crate::report::{Diagnostic, Failure, Session};
use gdl_reasoner::Reasoner;
use rg_core::{FileId, Game};
use rg_interp::{CompileOptions, Machine, PathError, Program, RuntimeError, State};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// Count the leaves of the game tree to a depth (perft).
///
/// A ply is a move of a real player or of `random`; keeper moves are free, and random outcomes
/// that lead to equal states count once; a play that ends before the depth adds nothing. Each
/// depth from 0 to N is computed from scratch and printed as `depth D: COUNT (T s, R nodes/s)`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// The deepest depth to count.
    #[arg(long, short = 'd', value_name = "N")]
    pub depth: usize,

    /// Start after these moves, e.g. `//2 2/`: each move between slashes, its tags separated by
    /// single spaces (`//` is one move without tags, such as the keeper's).
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub after: String,

    /// Print one JSON object `{"counts": [...], "seconds": [...], "nodes_per_second": X}`.
    #[arg(long)]
    pub json: bool,

    /// What counts: the RG interpreter on the translated game, or (KIF only) the GDL reasoner on
    /// the description itself, joint moves sequentialised in role-fact order so that its counts
    /// equal RG perft of the translation (one RG move per role of a GDL step). -O has no effect on
    /// the reasoner.
    #[arg(long, value_enum, value_name = "ENGINE", default_value = "rg")]
    pub engine: Engine,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// The engines of `rgt perft`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// The RG interpreter, on the game as translated and optimised.
    #[default]
    Rg,
    /// The GDL reasoner, on the KIF description (no translation).
    Gdl,
}

/// Options shared by the commands that play a game.
#[derive(Clone, Debug, clap::Args)]
pub struct InterpArgs {
    /// Ignore the @disjoint, @unique and @repeat pragmas (the reference trusts them; comparing
    /// with and without reveals a wrong pragma).
    #[arg(long)]
    pub ignore_pragmas: bool,

    /// The most work one search of the interpreter (the legal moves of one state, with the
    /// reachability checks it runs) may do: N steps (edges evaluated) and N bytes of moves and
    /// search states held, the move lists perft and check keep along their path included
    /// (default: 1000000000). A search over it is a run-time error.
    #[arg(long, value_name = "N")]
    pub search_limit: Option<u64>,
}

impl InterpArgs {
    /// The interpreter's options these arguments ask for.
    pub(crate) fn options(&self) -> CompileOptions {
        CompileOptions {
            ignore_pragmas: self.ignore_pragmas,
            search_limit: self.search_limit,
            ..CompileOptions::default()
        }
    }
}

/// Compiles a loaded game into the interpreter's form.
pub(crate) fn compile(game: &Game, args: &InterpArgs) -> Result<Program, Failure> {
    compile_with(game, args.options())
}

/// Compiles a loaded game into the interpreter's form with the given options.
pub(crate) fn compile_with(game: &Game, opts: CompileOptions) -> Result<Program, Failure> {
    Program::new(game, opts).map_err(|e| {
        let file = e.span().map(|s| s.file);
        Failure::input(&e, file)
    })
}

/// A run-time error as a failure.
pub(crate) fn runtime_failure(e: RuntimeError) -> Failure {
    let file = e.span.map(|s| s.file);
    Failure::input(&e, file)
}

/// The state after `path`.
pub(crate) fn start_state(m: &mut Machine<'_>, path: &str) -> Result<State, Failure> {
    m.follow(path).map_err(|e| match e {
        PathError::Runtime(r) => runtime_failure(*r),
        PathError::Format(_) => Failure::Usage(e.to_string()),
        other => Failure::input(&other, None),
    })
}

/// Runs `rgt perft`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    match args.engine {
        Engine::Rg => {
            let game = load(session, &args.game)?;
            let program = compile(&game, &args.interp)?;
            let mut m = Machine::new(&program);
            let start = start_state(&mut m, &args.after)?;
            let counts = report(args.depth, args.json, |d| {
                m.perft(&start, d).map_err(|e| runtime_failure(*e))
            })?;
            // Zeros from some depth on are normal when every game has ended; a dead end (a
            // state off `end` without a legal move) deserves a word.
            if let Some(d) = counts.iter().position(|&n| n == 0)
                && let Ok(Some(dead)) = m.find_dead_end(&start, d, DEAD_END_SEARCH)
            {
                let moves: Vec<Vec<String>> = dead
                    .path
                    .iter()
                    .map(|tags| tags.iter().map(|&t| program.name(t).to_owned()).collect())
                    .collect();
                let path = rg_interp::format_path(&moves);
                let path = if args.after == "/" {
                    path
                } else {
                    format!("{}{}", args.after.trim_end_matches('/'), path)
                };
                session.emit(&Diagnostic::from_miette(
                    &DeadEndWarning {
                        path,
                        node: program.node_name(dead.state.node).to_owned(),
                        player: program.name(m.player(&dead.state.data)).to_owned(),
                        depth: d,
                    },
                    None,
                ));
            }
            Ok(ExitCode::SUCCESS)
        }
        Engine::Gdl => {
            let (mut reasoner, file) = gdl_reasoner(session, &args)?;
            report(args.depth, args.json, |d| {
                reasoner
                    .perft(d)
                    .map_err(|e| Failure::input(&e, Some(file)))
            })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Reads a KIF description and builds the GDL reasoner for it (warnings are printed).
fn gdl_reasoner(session: &mut Session, args: &Args) -> Result<(Reasoner, FileId), Failure> {
    if Lang::detect(&args.game.input, args.game.from)? != Lang::Kif {
        return Err(Failure::Usage(
            "--engine gdl counts GDL descriptions only (.kif, .gdl or --from kif)".to_owned(),
        ));
    }
    if args.after != "/" {
        return Err(Failure::Usage(
            "--after is not available with --engine gdl: the reasoner counts from the initial state"
                .to_owned(),
        ));
    }
    let (name, text) = rg_pipeline::read_source(&args.game.input)?;
    let file = session.sources.add(name, text);
    let text = &session.sources.get(file).expect("just added").text;
    let mut parse = front_gdl::ParseOptions::default();
    parse.lenient = args.game.lenient;
    let loaded = front_gdl::load(file, text, &parse).map_err(|e| Failure::input(&e, Some(file)))?;
    let warnings: Vec<Diagnostic> = loaded
        .warnings
        .iter()
        .flat_map(|w| Diagnostic::from_miette(w, Some(file)))
        .collect();
    crate::pipeline::emit_warnings(session, &args.game, warnings)?;
    Reasoner::with_options(
        &loaded.program,
        gdl_reasoner::DEFAULT_LIMIT,
        args.game.lenient,
    )
    .map(|r| (r, file))
    .map_err(|e| Failure::input(&e, Some(file)))
}

/// States searched for a dead end when perft counts 0 (about as many as a perft that takes a
/// second).
const DEAD_END_SEARCH: usize = 1_000_000;

/// Perft reached a state that is not final and has no legal move.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error(
    "the game dead-ends: after `{path}` it is at node `{node}` with `{player}` to move, not at `end`, and no move is legal"
)]
#[diagnostic(
    code(rgt::perft::dead_end),
    severity(Warning),
    help(
        "this is why perft counts 0 from depth {depth} on; a proper game reaches `end`. `rgt moves GAME --after '{path}'` starts there"
    )
)]
struct DeadEndWarning {
    path: String,
    node: String,
    player: String,
    depth: usize,
}

/// Counts every depth from 0 to `depth` from scratch and prints them (text or JSON); returns
/// the counts.
fn report(
    depth: usize,
    json: bool,
    mut perft: impl FnMut(usize) -> Result<u64, Failure>,
) -> Result<Vec<u64>, Failure> {
    let mut counts = Vec::with_capacity(depth + 1);
    let mut seconds = Vec::with_capacity(depth + 1);
    let mut stdout = std::io::stdout().lock();
    for d in 0..=depth {
        let t = Instant::now();
        let n = perft(d)?;
        let s = t.elapsed().as_secs_f64();
        counts.push(n);
        seconds.push(s);
        if !json {
            let line = format!("depth {d}: {n} ({s:.3} s, {:.0} nodes/s)\n", rate(n, s));
            stdout
                .write_all(line.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Failure::Io(format!("cannot write to standard output: {e}")))?;
        }
    }
    if json {
        let v = serde_json::json!({
            "counts": counts,
            "seconds": seconds,
            "nodes_per_second": rate(counts[depth], seconds[depth]),
        });
        let text = format!("{v}\n");
        stdout
            .write_all(text.as_bytes())
            .map_err(|e| Failure::Io(format!("cannot write to standard output: {e}")))?;
    }
    Ok(counts)
}

fn rate(n: u64, s: f64) -> f64 {
    if s > 0.0 { n as f64 / s } else { 0.0 }
}
