//! Loading a game: read → front-end → builtins → checks → optimisation. Every command that takes
//! a game goes through [`load`], so all of them accept every language and every `-O` level.

use crate::io::read_input;
use crate::lang::Lang;
use crate::report::{Diag, Failure, Session};
use rg_core::{FileId, Game, LowerOptions};

/// `-O` levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum OptLevel {
    /// No optimisation.
    #[value(name = "0")]
    O0,
    /// Local expression, skip and prune passes.
    #[value(name = "1")]
    O1,
    /// All safe passes and pragmas (default).
    #[default]
    #[value(name = "2")]
    O2,
}

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

    /// Treat validator warnings as errors (`--deny warnings`).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub deny: Option<Deny>,

    /// Do not report the validator diagnostic with this code (repeatable), e.g.
    /// `--allow rg::lint::unreachable-node`.
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,

    /// The most a game may make at translation time: values of a domain, range or variable,
    /// copies made by powers, macros and unrolled loops, nodes and edges of the translation,
    /// GDL grounding work (default: 2000000).
    #[arg(long, value_name = "N")]
    pub size_limit: Option<u64>,
}

/// What `--deny` turns into errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
    /// Every warning of the validators.
    Warnings,
}

/// Reads, translates, completes, checks and optimises (at `args.opt`) the game named by `args`.
pub fn load(session: &mut Session, args: &GameArgs) -> Result<Game, Failure> {
    let (mut game, _) = load_unoptimised(session, args)?;
    optimise(session, &mut game, args.opt)?;
    Ok(game)
}

/// Reads, translates, completes and checks the game named by `args` (`args.opt` is not
/// applied); also returns the trace record of the setup pass (`add_builtins`).
pub fn load_unoptimised(
    session: &mut Session,
    args: &GameArgs,
) -> Result<(Game, rg_passes::TraceRecord), Failure> {
    let lang = Lang::detect(&args.input, args.from)?;
    session.size_limit = args.size_limit;
    session.lints = crate::report::LintConfig {
        deny_warnings: args.deny == Some(Deny::Warnings),
        allow: args.allow.clone(),
    };
    let (name, text) = read_input(&args.input)?;
    translate_text_traced(session, lang, name, text)
}

/// Translates, completes, checks and optimises a source text named `name`.
pub fn load_text(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
    opt: OptLevel,
) -> Result<Game, Failure> {
    let mut game = translate_text(session, lang, name, text)?;
    optimise(session, &mut game, opt)?;
    Ok(game)
}

/// Optimises a checked game at level `opt`. Split from [`load_text`] so that library conversion
/// can report statistics before and after optimisation.
pub fn optimise(session: &mut Session, game: &mut Game, opt: OptLevel) -> Result<(), Failure> {
    let _ = session;
    let pipeline = opt.pipeline();
    if pipeline.is_setup_only() {
        return Ok(()); // the loader has set the game up
    }
    rg_passes::run(
        game,
        &pipeline,
        &rg_passes::Options {
            validators: rg_validate::REFERENCE_VALIDATORS,
            ..rg_passes::Options::default()
        },
        &mut |_, _| Ok(()),
    )
    .map(|_| ())
    .map_err(pass_failure)
}

impl OptLevel {
    /// The passes of this level: `-O0` the pipeline `none`, `-O1` the local expression, skip
    /// and prune passes, `-O2` the pipelines `safe` and `pragmas`.
    pub fn pipeline(self) -> rg_passes::Pipeline {
        let named = |n: &str| rg_passes::Pipeline::named(n).expect("a known pipeline");
        match self {
            OptLevel::O0 => named("none"),
            OptLevel::O1 => rg_passes::Pipeline::local(),
            OptLevel::O2 => named("safe").union(&named("pragmas")),
        }
    }
}

/// A failed pipeline as a diagnostic.
pub fn pass_failure(e: rg_passes::PipelineError) -> Failure {
    let help = match &e {
        rg_passes::PipelineError::Invalid { .. } => Some(
            "this is a bug in rgt's optimiser; `-O0` avoids it, and `rgt opt` shows the game before and after the pass"
                .to_string(),
        ),
        _ => None,
    };
    Failure::Input(vec![Diag::new(
        PassDiag {
            message: e.to_string(),
            help,
        },
        None,
    )])
}

/// A pass or pipeline failure.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
#[diagnostic(code(rg::passes::failed))]
struct PassDiag {
    message: String,
    #[help]
    help: Option<String>,
}

/// Translates, completes and checks a source text named `name`: the game before optimisation.
pub fn translate_text(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
) -> Result<Game, Failure> {
    translate_text_traced(session, lang, name, text).map(|(game, _)| game)
}

/// [`translate_text`], also returning the trace record of the setup pass.
pub fn translate_text_traced(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
) -> Result<(Game, rg_passes::TraceRecord), Failure> {
    let file = session.sources.add(name, text);
    let text = &session.sources.get(file).expect("just added").text;
    let mut opts = LowerOptions::default();
    opts.size_limit = session.size_limit;
    opts.work_limit = session.size_limit;
    let lowered = lang.lower(file, text, &opts)?;
    emit_front_end_warnings(session, lowered.warnings, file);
    let mut game = lowered.game;
    // Lints about a translated game point at generated RG the user did not write: only RG
    // input shows them (errors are always reported, and `--deny warnings` still applies).
    let setup = check(session, &mut game, file, lang == Lang::Rg)?;
    Ok((game, setup))
}

/// `--emit hrg`: the HRG program generated from a source text named `name` (LineGames only);
/// the front-end's warnings are printed.
pub fn hrg_text(
    session: &mut Session,
    lang: Lang,
    name: String,
    text: String,
) -> Result<String, Failure> {
    let file = session.sources.add(name, text);
    let text = &session.sources.get(file).expect("just added").text;
    let (hrg, warnings) = lang.generated_hrg(file, text)?;
    emit_front_end_warnings(session, warnings, file);
    Ok(hrg)
}

fn emit_front_end_warnings(session: &Session, warnings: Vec<miette::Report>, file: FileId) {
    if !warnings.is_empty() {
        let warnings: Vec<Diag> = warnings
            .into_iter()
            .map(|w| Diag::new(ReportDiag(w), Some(file)))
            .collect();
        session.emit(&warnings);
    }
}

/// The setup pass `add_builtins` (rg.md §6, passes.md §3.1) and the validators (validators.md
/// §4 and the lints): errors stop the pipeline, warnings are printed (or are errors with
/// `--deny warnings`). Returns the trace record of the setup pass; the game is then marked set
/// up, so the pass manager does not add the built-ins again.
pub fn check(
    session: &Session,
    game: &mut Game,
    file: FileId,
    show_warnings: bool,
) -> Result<rg_passes::TraceRecord, Failure> {
    let setup = match rg_passes::setup(game) {
        Ok(record) => record,
        Err(v) => return Err(Failure::Input(vec![Diag::violation(*v, game, Some(file))])),
    };
    let lints = &session.lints;
    // Lint warnings of a translated game are not shown (and the lints include an expensive
    // one), so only the reference validators run unless warnings are shown or denied.
    let selection = if show_warnings || lints.deny_warnings {
        rg_validate::Selection::All
    } else {
        rg_validate::Selection::Reference
    };
    let mut violations = rg_validate::validate(game, selection);
    violations.retain(|v| !lints.allow.iter().any(|c| c == v.code));
    if lints.deny_warnings {
        for v in &mut violations {
            v.severity = rg_core::Severity::Error;
        }
    }
    let (errors, warnings): (Vec<_>, Vec<_>) = violations
        .into_iter()
        .partition(|v| v.severity == rg_core::Severity::Error);
    if !errors.is_empty() {
        return Err(Failure::Input(
            errors
                .into_iter()
                .chain(warnings)
                .map(|v| Diag::violation(v, game, Some(file)))
                .collect(),
        ));
    }
    if show_warnings && !warnings.is_empty() {
        let diags: Vec<Diag> = warnings
            .into_iter()
            .map(|v| Diag::violation(v, game, Some(file)))
            .collect();
        session.emit(&diags);
    }
    game.phase = rg_core::Phase::Ground;
    Ok(setup)
}

/// A `miette::Report` as a diagnostic we can box with a file.
#[derive(Debug)]
struct ReportDiag(miette::Report);

impl std::fmt::Display for ReportDiag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for ReportDiag {}

impl miette::Diagnostic for ReportDiag {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.0.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.0.labels()
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        self.0.related()
    }
}
