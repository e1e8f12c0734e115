//! The pipeline: read → front-end → built-ins → validate → optimise → emit.
//!
//! Every step is a function of plain values: the source texts live in a
//! [`rg_core::SourceMap`] owned by the caller (diagnostics refer to them by [`FileId`]), the
//! options are an [`Options`] value, and each step returns its result with the diagnostics it
//! produced — nothing is printed. [`Pipeline`] bundles a source map and options for callers that
//! load one game after another.

use crate::diag::{self, Diagnostic, LintConfig};
use crate::error::Error;
use crate::lang::Lang;
use rg_core::{FileId, Game, LowerOptions, SourceMap};

/// Optimisation levels (`-O`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum OptLevel {
    /// No optimisation.
    #[cfg_attr(feature = "clap", value(name = "0"))]
    O0,
    /// Local expression, skip and prune passes.
    #[cfg_attr(feature = "clap", value(name = "1"))]
    O1,
    /// All safe passes and pragmas (default).
    #[default]
    #[cfg_attr(feature = "clap", value(name = "2"))]
    O2,
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

/// Output formats of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Emit {
    /// Canonical RG text.
    Rg,
    /// Graphviz DOT of the automaton.
    Dot,
    /// JSON encoding of the game (the reference's AST encoding).
    Json,
}

impl Emit {
    /// The emitter for this format.
    pub fn emitter(self) -> &'static dyn rg_fmt::Emitter {
        match self {
            Emit::Rg => &rg_fmt::rg::RgEmitter,
            Emit::Dot => &rg_fmt::dot::DotEmitter,
            Emit::Json => &rg_fmt::json::JsonEmitter,
        }
    }
}

/// Writes a game in a format.
pub fn emit(game: &Game, format: Emit) -> String {
    rg_fmt::emit_to_string(format.emitter(), game)
}

/// The statistics of a game as `rgt stats --json` prints them (the language server's
/// `rgt/gameInfo` returns the same object).
pub fn stats_json(game: &Game) -> serde_json::Value {
    let s = rg_core::GameStats::of(game);
    serde_json::json!({
        "nodes": s.nodes,
        "edges": s.edges,
        "variables": s.variables,
        "constants": s.constants,
        "types": s.types,
        "reachability_checks": s.reachability_checks,
        "tags": s.tags,
        "pragmas": s.pragmas,
        "state_bits": s.state_bits,
    })
}

/// What a load does besides translating.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The input language; `None` chooses it by the file extension.
    pub lang: Option<Lang>,
    /// The optimisation level.
    pub opt: OptLevel,
    /// The most a game may make at translation time (`None`: the front-ends' default).
    pub size_limit: Option<u64>,
    /// `--lenient`: the front-ends accept what they would reject but a reference implementation
    /// plays (GDL: unsafe rules, read as GGP-Base does).
    pub lenient: bool,
    /// `--allow` and `--deny warnings`.
    pub lints: LintConfig,
}

/// A translated and checked game.
#[derive(Debug)]
pub struct Loaded {
    /// The game (optimised when it comes from [`load_text`] or [`Pipeline::load_path`]).
    pub game: Game,
    /// The file its source was registered as.
    pub file: FileId,
    /// The warnings of the front-end and the validators, after `--allow`/`--deny`, in source
    /// order.
    pub diagnostics: Vec<Diagnostic>,
    /// What the setup step (adding the built-ins) did.
    pub setup: rg_passes::TraceRecord,
    /// What the optimiser did (empty before optimisation and at `-O0`).
    pub trace: Vec<rg_passes::TraceRecord>,
}

/// Reads a game file (`-` = standard input). Returns the display name and the text.
pub fn read_source(path: &str) -> Result<(String, String), Error> {
    use std::io::Read;
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::Io(format!("cannot read standard input: {e}")))?;
        return Ok(("<stdin>".to_owned(), text));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::Io(format!("cannot read `{path}`: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::Io(format!(
            "`{path}` is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((path.to_owned(), text))
}

/// Translates, completes, checks and optimises (at `opts.opt`) a source text named `name`.
pub fn load_text(
    sources: &mut SourceMap,
    lang: Lang,
    name: String,
    text: String,
    opts: &Options,
) -> Result<Loaded, Error> {
    let mut loaded = translate_text(sources, lang, name, text, opts)?;
    loaded.trace = optimise(&mut loaded.game, opts.opt)?;
    Ok(loaded)
}

/// Translates, completes and checks a source text named `name` (`opts.opt` is not applied).
///
/// Lints about a translated game point at generated RG the user did not write: only RG input
/// shows them (errors are always reported, and `--deny warnings` still applies to them).
pub fn translate_text(
    sources: &mut SourceMap,
    lang: Lang,
    name: String,
    text: String,
    opts: &Options,
) -> Result<Loaded, Error> {
    let file = sources.add(name, text);
    let text = &sources.get(file).expect("just added").text;
    let mut lower = LowerOptions::default();
    lower.size_limit = opts.size_limit;
    lower.work_limit = opts.size_limit;
    lower.lenient = opts.lenient;
    let lowered = match lang.lower(file, text, &lower) {
        Ok(l) => l,
        // The front-end stopped: its errors stand whatever `--allow` says.
        Err(Error::Input(diags)) => return Err(Error::Input(front_end_failure(diags, opts))),
        Err(e) => return Err(e),
    };
    let warnings: Vec<Diagnostic> = lowered
        .warnings
        .iter()
        .flat_map(|w| Diagnostic::from_miette(w.as_ref(), Some(file)))
        .collect();
    let mut game = lowered.game;
    let (setup, mut diagnostics) = check(&mut game, file, lang == Lang::Rg, &opts.lints, warnings)?;
    diag::sort(&mut diagnostics);
    Ok(Loaded {
        game,
        file,
        diagnostics,
        setup,
        trace: Vec::new(),
    })
}

/// The diagnostics of a front-end that stopped: `--allow` and `--deny` apply to its warnings.
fn front_end_failure(diags: Vec<Diagnostic>, opts: &Options) -> Vec<Diagnostic> {
    let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.is_error());
    let mut all = errors;
    all.extend(opts.lints.apply(warnings));
    diag::sort(&mut all);
    all
}

/// The setup step (adding the built-in definitions of RG) and the validators, with the warnings
/// `earlier` found before (a front-end's): `--allow` and `--deny warnings` apply to all of them
/// here, once. Errors stop the pipeline (the error carries every diagnostic, in source order);
/// otherwise returns the trace record of the setup step and the warnings. `show_lints` says
/// whether the lint warnings are reported (they are always checked under `--deny warnings`).
/// The game is then marked set up, so the pass manager does not add the built-ins again.
pub fn check(
    game: &mut Game,
    file: FileId,
    show_lints: bool,
    lints: &LintConfig,
    earlier: Vec<Diagnostic>,
) -> Result<(rg_passes::TraceRecord, Vec<Diagnostic>), Error> {
    let setup = match rg_passes::setup(game) {
        Ok(record) => record,
        Err(v) => {
            let mut all = lints.apply(earlier);
            all.push(Diagnostic::from_violation(&v, game, Some(file)));
            diag::sort(&mut all);
            return Err(Error::Input(all));
        }
    };
    // Lint warnings of a translated game are not shown (and the lints include an expensive
    // one), so only the reference validators run unless warnings are shown or denied.
    let selection = if show_lints || lints.deny_warnings {
        rg_validate::Selection::All
    } else {
        rg_validate::Selection::Reference
    };
    let violations: Vec<Diagnostic> = rg_validate::validate(game, selection)
        .iter()
        .filter(|v| show_lints || lints.deny_warnings || v.severity == rg_core::Severity::Error)
        .map(|v| Diagnostic::from_violation(v, game, Some(file)))
        .collect();
    let mut all = earlier;
    all.extend(violations);
    let mut all = lints.apply(all);
    diag::sort(&mut all);
    if all.iter().any(Diagnostic::is_error) {
        return Err(Error::Input(all));
    }
    game.phase = rg_core::Phase::Ground;
    Ok((setup, all))
}

/// Optimises a checked game at level `opt`; returns what every pass did.
pub fn optimise(game: &mut Game, opt: OptLevel) -> Result<Vec<rg_passes::TraceRecord>, Error> {
    let pipeline = opt.pipeline();
    if pipeline.is_setup_only() {
        return Ok(Vec::new()); // the loader has set the game up
    }
    let opts = rg_passes::Options {
        validators: rg_validate::REFERENCE_VALIDATORS,
        ..rg_passes::Options::default()
    };
    rg_passes::run(game, &pipeline, &opts, &mut |_, _| Ok(()))
        .map(|report| report.records)
        .map_err(pass_failure)
}

/// A failed pass pipeline as a diagnostic.
pub fn pass_failure(e: rg_passes::PipelineError) -> Error {
    let mut d = Diagnostic::new(
        diag::Severity::Error,
        Some("rg::passes::failed"),
        e.to_string(),
    );
    if let rg_passes::PipelineError::Invalid { rejection, .. } = &e {
        // The game after the pass with each violation under its line, as a compiler
        // verifier shows a broken function.
        d = d.with_help(format!(
            "this is a bug in rgt's optimiser; `-O0` avoids it, and `rgt opt` shows the game \
             before and after the pass. The game after the pass, each violation under its \
             line:\n{}",
            rejection.annotated
        ));
    }
    Error::diagnostic(d)
}

/// `--emit hrg`: the HRG program generated from a source text named `name` (LineGames only),
/// with the front-end's warnings (after `--allow`/`--deny`; a denied warning fails).
pub fn generated_hrg(
    sources: &mut SourceMap,
    lang: Lang,
    name: String,
    text: String,
    lints: &LintConfig,
) -> Result<(String, Vec<Diagnostic>), Error> {
    let file = sources.add(name, text);
    let text = &sources.get(file).expect("just added").text;
    let (hrg, warnings) = match lang.generated_hrg(file, text) {
        Ok(r) => r,
        Err(Error::Input(diags)) => {
            let opts = Options {
                lints: lints.clone(),
                ..Options::default()
            };
            return Err(Error::Input(front_end_failure(diags, &opts)));
        }
        Err(e) => return Err(e),
    };
    let mut warnings = lints.apply(warnings);
    diag::sort(&mut warnings);
    if warnings.iter().any(Diagnostic::is_error) {
        return Err(Error::Input(warnings));
    }
    Ok((hrg, warnings))
}

/// A source map and options: loads games one after another, keeping their sources so their
/// diagnostics can be rendered (see [`crate::render`]).
#[derive(Debug, Default)]
pub struct Pipeline {
    /// The sources of every game loaded so far.
    pub sources: SourceMap,
    /// How games are loaded.
    pub options: Options,
}

impl Pipeline {
    /// A pipeline with these options.
    pub fn new(options: Options) -> Self {
        Pipeline {
            sources: SourceMap::new(),
            options,
        }
    }

    /// Reads, translates, checks and optimises the game in the file `path` (`-`: standard
    /// input), in the language of `options.lang` or of its extension.
    pub fn load_path(&mut self, path: &str) -> Result<Loaded, Error> {
        let lang = Lang::detect(path, self.options.lang)?;
        let (name, text) = read_source(path)?;
        self.load_text(lang, name, text)
    }

    /// Translates, checks and optimises a source text named `name` in `lang`.
    pub fn load_text(
        &mut self,
        lang: Lang,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> Result<Loaded, Error> {
        load_text(
            &mut self.sources,
            lang,
            name.into(),
            text.into(),
            &self.options,
        )
    }

    /// Translates and checks a source text without optimising it.
    pub fn translate_text(
        &mut self,
        lang: Lang,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> Result<Loaded, Error> {
        translate_text(
            &mut self.sources,
            lang,
            name.into(),
            text.into(),
            &self.options,
        )
    }

    /// Renders diagnostics about the sources of this pipeline as `rgt` prints them without a
    /// terminal (no colour, 100 columns).
    pub fn render(&self, diags: &[Diagnostic]) -> String {
        crate::render::Renderer::plain().render(&self.sources, diags)
    }

    /// Renders an error as `rgt` prints it without a terminal.
    pub fn render_error(&self, error: &Error) -> String {
        crate::render::Renderer::plain().render_error(&self.sources, error)
    }
}
