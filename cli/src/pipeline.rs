//! Loading a game for a command: the command-line options of every command that takes a game,
//! and glue over `rg_pipeline` that prints the warnings of a successful load.

use crate::report::{Failure, Session};
use rg_core::Game;
use rg_pipeline::{Lang, LintConfig, Options};

pub use rg_pipeline::{OptLevel, pass_failure};

/// The arguments of every command that takes a game.
#[derive(Clone, Debug, clap::Args)]
pub struct GameArgs {
    /// The game file (`-` reads standard input, as RG unless --from says otherwise).
    #[arg(value_name = "INPUT")]
    pub input: String,

    /// The input language; by default chosen by the file extension (.rg .hrg .rbg .kif .lg).
    #[arg(long, value_enum, value_name = "LANG")]
    pub from: Option<Lang>,

    /// Optimisation level: 0 (none), 1 (local expression, skip and prune passes) or 2 (every
    /// pass that keeps the game tree, and the pragma calculations; the default).
    #[arg(
        short = 'O',
        long = "opt-level",
        value_enum,
        value_name = "LEVEL",
        default_value = "2",
        hide_default_value = true
    )]
    pub opt: OptLevel,

    /// Treat warnings as errors (`--deny warnings`), those of the front-ends included.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub deny: Option<Deny>,

    /// Do not report diagnostics with this code (repeatable), e.g.
    /// `--allow rg::lint::unreachable-node` or `--allow gdl::W-VAL-014`; an unknown code is an
    /// error.
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,

    /// The most a game may make at translation time: values of a domain, range or variable,
    /// copies made by powers, macros and unrolled loops, nodes and edges of the translation,
    /// GDL grounding work (default: 2000000).
    #[arg(long, value_name = "N")]
    pub size_limit: Option<u64>,

    /// GDL: accept unsafe rules (a variable of the head, of a negation or of a `distinct` in no
    /// positive literal) with a warning, and give them GGP-Base's meaning (the body read left
    /// to right) instead of rejecting them.
    #[arg(long)]
    pub lenient: bool,
}

/// What `--deny` turns into errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
    /// Every warning (of the front-ends and the validators).
    Warnings,
}

impl GameArgs {
    /// The loading options these arguments ask for; an unknown `--allow` code is a usage error
    /// (suggesting the closest known one).
    pub fn options(&self) -> Result<Options, Failure> {
        Ok(Options {
            lang: self.from,
            opt: self.opt,
            size_limit: self.size_limit,
            lenient: self.lenient,
            lints: LintConfig::new(self.deny == Some(Deny::Warnings), self.allow.clone())?,
        })
    }
}

/// Reads, translates, completes, checks and optimises (at `args.opt`) the game named by `args`;
/// prints its warnings.
pub fn load(session: &mut Session, args: &GameArgs) -> Result<Game, Failure> {
    let (mut game, _) = load_unoptimised(session, args)?;
    optimise(&mut game, args.opt)?;
    Ok(game)
}

/// Reads, translates, completes and checks the game named by `args` (`args.opt` is not
/// applied); prints its warnings and also returns the trace record of the setup pass
/// (`add_builtins`).
pub fn load_unoptimised(
    session: &mut Session,
    args: &GameArgs,
) -> Result<(Game, rg_passes::TraceRecord), Failure> {
    session.options = args.options()?;
    let lang = Lang::detect(&args.input, args.from)?;
    let (name, text) = rg_pipeline::read_source(&args.input)?;
    let loaded =
        rg_pipeline::translate_text(&mut session.sources, lang, name, text, &session.options)?;
    session.emit(&loaded.diagnostics);
    Ok((loaded.game, loaded.setup))
}

/// Optimises a checked game at level `opt`.
pub fn optimise(game: &mut Game, opt: OptLevel) -> Result<(), Failure> {
    rg_pipeline::optimise(game, opt).map(|_| ())
}

/// Translates, completes and checks a source text named `name` with the session's options:
/// the game before optimisation; prints its warnings.
pub fn translate_text(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
) -> Result<Game, Failure> {
    let loaded =
        rg_pipeline::translate_text(&mut session.sources, lang, name, text, &session.options)?;
    session.emit(&loaded.diagnostics);
    Ok(loaded.game)
}

/// Prints warnings found outside [`rg_pipeline`]'s loaders (e.g. by the GDL reasoner's reader),
/// after `--allow` and `--deny warnings`; a denied warning fails.
pub fn emit_warnings(
    session: &mut Session,
    args: &GameArgs,
    warnings: Vec<rg_pipeline::Diagnostic>,
) -> Result<(), Failure> {
    let warnings = args.options()?.lints.apply(warnings);
    if warnings.iter().any(rg_pipeline::Diagnostic::is_error) {
        return Err(Failure::Input(warnings));
    }
    session.emit(&warnings);
    Ok(())
}

/// `--emit hrg`: the HRG program generated from a source text named `name` (LineGames only);
/// prints the front-end's warnings.
pub fn hrg_text(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
) -> Result<String, Failure> {
    let (hrg, warnings) = rg_pipeline::generated_hrg(
        &mut session.sources,
        lang,
        name,
        text,
        &session.options.lints,
    )?;
    session.emit(&warnings);
    Ok(hrg)
}
