//! GDL (KIF, GDL-II) front-end: reader, validation, grounding, lowering to RG (gdl.md).
//!
//! Stages, each in its own module:
//!
//! 1. [`lexer`] (prefix KIF) or [`infix`] (the `h :- b & ~c` syntax), chosen by the first
//!    significant character unless [`ParseOptions::syntax`] says otherwise;
//! 2. [`reader`]: S-expressions with a span on every node (both syntaxes end here);
//! 3. normalisation (gdl.md §2.5) into the index-based [`Program`] of [`ast`] — [`parse`];
//! 4. [`validate`]: every check of gdl.md §4 plus the analysis later stages need (relation
//!    dependency graph, strata, static / state / move classification, roles) — [`check`];
//! 5. [`ground`]: grounding (gdl.md §7.3) — relevance, exact static evaluation, relaxed
//!    reachability, instantiation with planned joins, guards;
//! 6. `propnet`: the ground program simplified to a fixpoint, ground SCCs (§7.3 steps 5–7);
//! 7. `lower`: the RG game (§8.4) — [`translate`], and [`GdlFrontEnd`];
//! 8. [`print`]: normalised KIF (`rgt fmt x.kif`) — [`format`].
//!
//! Findings are [`GdlDiagnostic`]s with stable codes (`gdl::E-VAL-040`, see [`error`]); a stage
//! that finds an error returns all its findings (errors and warnings) at once in [`GdlErrors`].
//!
//! ```
//! use front_gdl::{load, ParseOptions, RelId};
//! let text = "(role p) (init s) (<= (legal p go) (true s)) (<= (next t) (does p go))
//!             (<= terminal (true t)) (<= (goal p 100) (true t))";
//! let loaded = load(rg_core::FileId(0), text, &ParseOptions::default()).expect("valid");
//! assert_eq!(loaded.analysis.roles.len(), 1);
//! assert!(loaded.analysis.is_static(RelId::ROLE));
//! ```

pub mod ast;
pub mod error;
pub mod graph;
pub mod ground;
pub mod infix;
pub mod lexer;
mod lower;
mod names;
mod normalize;
pub mod print;
mod propnet;
pub mod reader;
pub mod reasoner;
mod translate;
pub mod validate;

pub use ast::{Args, Atom, Literal, Program, RelId, Rule, Sym, Symbols, Term, TermId, VarId};
pub use error::{Code, GdlDiagnostic, GdlErrors, Level};
pub use ground::{GroundLimits, Lifting, Progress};
pub use print::print;
pub use translate::{TranslateOptions, TranslateStats, Translation, translate};
pub use validate::{Analysis, DepEdge, Dependency, Role};

use error::Sink;
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered};

/// Which concrete syntax a text is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// Decide from the first significant character: `(` is prefix, anything else infix
    /// (gdl.md §2.7).
    #[default]
    Auto,
    /// Prefix KIF.
    Prefix,
    /// Infix GDL.
    Infix,
}

/// How to read a description.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ParseOptions {
    /// The concrete syntax.
    pub syntax: Syntax,
    /// Compare constants and variables exactly instead of case-insensitively (keywords are
    /// always case-insensitive; gdl.md §2.6).
    pub case_sensitive: bool,
}

/// A parsed and normalised description with the warnings found on the way.
#[derive(Debug)]
pub struct Parsed {
    /// The normalised rules.
    pub program: Program,
    /// Warnings of the lexer, reader and normalisation (source order).
    pub warnings: Vec<GdlDiagnostic>,
}

/// A validated description.
#[derive(Debug)]
pub struct Checked {
    /// What later stages need to know about the rules.
    pub analysis: Analysis,
    /// Warnings of the validation (source order).
    pub warnings: Vec<GdlDiagnostic>,
}

/// A parsed, normalised and validated description.
#[derive(Debug)]
pub struct Loaded {
    /// The normalised rules.
    pub program: Program,
    /// Their analysis.
    pub analysis: Analysis,
    /// Every warning of parsing and validation (source order).
    pub warnings: Vec<GdlDiagnostic>,
}

/// Reads a GDL description (either syntax) and normalises it (gdl.md §2). Fails with every
/// syntax error found (and the warnings so far); spans refer to `file`.
pub fn parse(file: FileId, text: &str, opts: &ParseOptions) -> Result<Parsed, GdlErrors> {
    let mut sink = Sink::default();
    let infix = match opts.syntax {
        Syntax::Auto => infix::looks_infix(text),
        Syntax::Prefix => false,
        Syntax::Infix => true,
    };
    let forms = if infix {
        infix::read(file, text, &mut sink)
    } else {
        reader::read(file, text, &mut sink)
    };
    // After a parenthesis or lexical error the forms are not what the author meant (an
    // unclosed list swallows the forms after it): report the reader's errors alone.
    let reader_failed = !sink.diags.is_empty();
    let mut builder = normalize::Builder::new(Program::new(file, opts.case_sensitive), &mut sink);
    if !reader_failed {
        for form in &forms {
            builder.form(form);
        }
    }
    let program = builder.finish();
    finish(sink.diags, |warnings| Parsed { program, warnings })
}

/// Validates a parsed program (gdl.md §4) and computes its [`Analysis`]. Fails with every
/// error found (and the warnings).
pub fn check(program: &Program) -> Result<Checked, GdlErrors> {
    let mut sink = Sink::default();
    let analysis = validate::validate(program, &mut sink);
    finish(sink.diags, |warnings| Checked { analysis, warnings })
}

/// [`parse`] then [`check`]: the description ready for grounding. Validation runs only when
/// the text parsed without errors (a broken form would make it report missing rules).
pub fn load(file: FileId, text: &str, opts: &ParseOptions) -> Result<Loaded, GdlErrors> {
    let parsed = parse(file, text, opts)?;
    match check(&parsed.program) {
        Ok(checked) => {
            let mut warnings = parsed.warnings;
            warnings.extend(checked.warnings);
            error::sort_diagnostics(&mut warnings);
            Ok(Loaded {
                program: parsed.program,
                analysis: checked.analysis,
                warnings,
            })
        }
        Err(mut e) => {
            e.diagnostics.extend(parsed.warnings);
            Err(GdlErrors::new(e.diagnostics))
        }
    }
}

/// The normalised KIF text of a description (`rgt fmt`): [`parse`] then [`print`].
pub fn format(file: FileId, text: &str, opts: &ParseOptions) -> Result<String, GdlErrors> {
    parse(file, text, opts).map(|p| print(&p.program))
}

/// Sorted warnings to `ok`, or every finding as the error when there is an error.
fn finish<T>(
    mut diags: Vec<GdlDiagnostic>,
    ok: impl FnOnce(Vec<GdlDiagnostic>) -> T,
) -> Result<T, GdlErrors> {
    error::sort_diagnostics(&mut diags);
    if diags.iter().any(GdlDiagnostic::is_error) {
        Err(GdlErrors::new(diags))
    } else {
        Ok(ok(diags))
    }
}

/// The GDL front-end: [`translate`] with default limits, except that
/// [`LowerOptions::work_limit`] bounds both the ground atoms and the rule instances.
#[derive(Clone, Debug, Default)]
pub struct GdlFrontEnd {
    /// How to read descriptions.
    pub options: ParseOptions,
}

impl FrontEnd for GdlFrontEnd {
    type Error = GdlErrors;

    fn name(&self) -> &'static str {
        "gdl"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["kif", "gdl"]
    }

    fn lower(&self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, GdlErrors> {
        let mut t = TranslateOptions {
            parse: self.options.clone(),
            ..TranslateOptions::default()
        };
        if let Some(w) = opts.work_limit {
            t.limits.max_atoms = w;
            t.limits.max_instances = w;
        }
        let tr = translate(file, text, &t, &mut |_| {})?;
        Ok(Lowered {
            game: tr.game,
            warnings: tr.warnings.into_iter().map(miette::Report::new).collect(),
        })
    }
}
