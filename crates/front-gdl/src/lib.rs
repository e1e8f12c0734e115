//! GDL (KIF, GDL-II) front-end: grounding and lowering to RG, on top of the reader and the
//! validation of [`front_gdl_syntax`] (re-exported here, so `front_gdl::load` and
//! `front_gdl::print` still work).
//!
//! Stages, each in its own module:
//!
//! 1. reading, normalisation and validation: [`parse`], [`check`], [`load`] (in
//!    `front-gdl-syntax`);
//! 2. [`ground`]: grounding — relevance, exact static evaluation, relaxed reachability,
//!    instantiation with planned joins, guards;
//! 3. `propnet`: the ground program simplified to a fixpoint, and its strongly connected
//!    components (the recursive parts that need a fixpoint loop in RG);
//! 4. `lower`: the RG game — [`translate`], and [`GdlFrontEnd`].
//!
//! The independent reasoner that checks these translations lives in the `gdl-reasoner` crate,
//! which depends on `front-gdl-syntax` but not on this crate: it shares no grounding or lowering
//! code with what it checks.
//!
//! Findings are [`GdlDiagnostic`]s with stable codes (`gdl::E-VAL-040`, see [`error`]); a stage
//! that finds an error returns all its findings (errors and warnings) at once in [`GdlErrors`].
//!
//! ```
//! use front_gdl::{TranslateOptions, translate};
//! let text = "(role p) (init s) (<= (legal p go) (true s)) (<= (next t) (does p go))
//!             (<= terminal (true t)) (<= (goal p 100) (true t))";
//! let tr = translate(rg_core::FileId(0), text, &TranslateOptions::default(), &mut |_| {})
//!     .expect("translates");
//! assert!(tr.warnings.is_empty());
//! ```

pub use front_gdl_syntax::{
    Analysis, Args, Atom, Checked, Code, DepEdge, Dependency, GdlDiagnostic, GdlErrors, Level,
    Literal, Loaded, ParseOptions, Parsed, Program, RelId, Role, Rule, Sym, Symbols, Syntax, Term,
    TermId, VarId, check, check_with, format, load, parse,
};
pub use front_gdl_syntax::{ast, error, graph, infix, lexer, print, reader, validate};

pub mod ground;
mod lenient;
mod lower;
mod propnet;
mod translate;

pub use ground::{GroundLimits, Lifting, Progress};
pub use translate::{TranslateOptions, TranslateStats, Translation, translate};

use front_gdl_syntax::names;
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered};

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
        t.parse.lenient |= opts.lenient;
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
