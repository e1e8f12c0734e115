//! GDL (KIF, GDL-II) syntax: what both the translation (`front-gdl`) and the independent
//! reasoner (`gdl-reasoner`) read a description with. Neither of them may share more than this:
//! the reasoner checks the translation, so the grounding and lowering live in `front-gdl` alone.
//!
//! Stages, each in its own module:
//!
//! 1. [`lexer`] (prefix KIF) or [`infix`] (the `h :- b & ~c` syntax), chosen by the first
//!    significant character unless [`ParseOptions::syntax`] says otherwise;
//! 2. [`reader`]: S-expressions with a span on every node (both syntaxes end here);
//! 3. normalisation into the index-based [`Program`] of [`ast`] (keywords case-folded, `or`
//!    expanded into one rule per disjunct, `(not (distinct s t))` solved by unification,
//!    duplicate rules dropped) — [`parse`];
//! 4. [`validate`]: every validity check of GDL (arities, keyword use, safety, stratified
//!    negation, the recursion restriction, what may depend on `true` and `does`) plus the
//!    analysis later stages need (relation dependency graph, strata, static / state / move
//!    classification, roles) — [`check`];
//! 5. [`print`](mod@print): normalised KIF (`rgt fmt x.kif`) — [`format()`].
//!
//! [`names`] holds the RG spelling of ground GDL terms: the one convention the translation and
//! the reasoner must agree on, so that their moves can be compared by name.
//!
//! Findings are [`GdlDiagnostic`]s with stable codes (`gdl::E-VAL-040`, see [`error`]); a stage
//! that finds an error returns all its findings (errors and warnings) at once in [`GdlErrors`].
//!
//! ```
//! use front_gdl_syntax::{load, ParseOptions, RelId};
//! let text = "(role p) (init s) (<= (legal p go) (true s)) (<= (next t) (does p go))
//!             (<= terminal (true t)) (<= (goal p 100) (true t))";
//! let loaded = load(rg_core::FileId(0), text, &ParseOptions::default()).expect("valid");
//! assert_eq!(loaded.analysis.roles.len(), 1);
//! assert!(loaded.analysis.is_static(RelId::ROLE));
//! ```

pub mod ast;
pub mod error;
pub mod graph;
pub mod infix;
pub mod lexer;
pub mod names;
mod normalize;
pub mod print;
pub mod reader;
pub mod validate;

pub use ast::{Args, Atom, Literal, Program, RelId, Rule, Sym, Symbols, Term, TermId, VarId};
pub use error::{Code, GdlDiagnostic, GdlErrors, Level};
pub use print::print;
pub use validate::{Analysis, DepEdge, Dependency, Role};

use error::Sink;
use rg_core::FileId;

/// Which concrete syntax a text is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// Decide from the first significant character: `(` is prefix, anything else infix.
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
    /// always case-insensitive).
    pub case_sensitive: bool,
    /// `--lenient`: an unsafe rule (E-VAL-040) is a warning (W-VAL-041) and means what
    /// GGP-Base's prover makes of it, evaluating the body left to right (see
    /// [`validate`]'s module documentation), when that meaning does not depend on how the rule's
    /// relation is called; otherwise it stays an error.
    pub lenient: bool,
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

/// Reads a GDL description (either syntax) and normalises it (see [`ast`]). Fails with every
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

/// Validates a parsed program (see [`validate`]) and computes its [`Analysis`]. Fails with every
/// error found (and the warnings).
pub fn check(program: &Program) -> Result<Checked, GdlErrors> {
    check_with(program, false)
}

/// [`check`], with unsafe rules reported as warnings where `lenient` can give them GGP-Base's
/// meaning (see [`ParseOptions::lenient`]).
pub fn check_with(program: &Program, lenient: bool) -> Result<Checked, GdlErrors> {
    let mut sink = Sink::default();
    let analysis = validate::validate(program, lenient, &mut sink);
    finish(sink.diags, |warnings| Checked { analysis, warnings })
}

/// [`parse`] then [`check`]: the description ready for grounding. Validation runs only when
/// the text parsed without errors (a broken form would make it report missing rules).
pub fn load(file: FileId, text: &str, opts: &ParseOptions) -> Result<Loaded, GdlErrors> {
    let parsed = parse(file, text, opts)?;
    match check_with(&parsed.program, opts.lenient) {
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

/// The normalised KIF text of a description (`rgt fmt`): [`parse`] then [`print()`].
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
