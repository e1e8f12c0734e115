//! The diagnostics of a document, computed by the same pipeline calls as the command line.
//!
//! The **full** check is `rg_pipeline::translate_text` with the session's options — exactly the
//! records `rgt translate` renders (before optimisation, which reports only bugs of rgt). For
//! RG, HRG and LineGames it is quick and is the only check. A GDL description is first given a
//! **fast** check (reading and the GDL rules: syntax, arities, safety, stratification), shown at
//! once, because its full translation grounds the game and can take seconds; an RBG game is
//! first read without lowering its board (syntax, names, macros). The full check's records then
//! replace the fast ones.
//!
//! Both run on worker threads (see [`crate::server`]); a panic in rgt's code is caught and
//! becomes an `rgt::internal` diagnostic instead of taking the server down.

use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Url};
use rg_core::SourceMap;
use rg_pipeline::{Diagnostic, Error, Lang, Options, Severity, diag};

use crate::position::LineIndex;

/// The full check: the pipeline's diagnostics for `text`, as `rgt translate` reports them.
pub fn full(lang: Lang, name: &str, text: &str, opts: &Options) -> Vec<Diagnostic> {
    guarded(|| {
        let mut sources = SourceMap::new();
        let result =
            rg_pipeline::translate_text(&mut sources, lang, name.to_owned(), text.to_owned(), opts);
        match result {
            Ok(loaded) => loaded.diagnostics,
            Err(e) => error_diagnostics(e),
        }
    })
}

/// Whether `lang` has a fast check (whose full check then runs on the slow worker).
pub fn has_fast(lang: Lang) -> bool {
    matches!(lang, Lang::Kif | Lang::Rbg)
}

/// The fast check, for the languages whose full check can be slow (GDL, and RBG, whose large
/// boards take a while to lower): `None` for the others.
pub fn fast(lang: Lang, text: &str, opts: &Options) -> Option<Vec<Diagnostic>> {
    match lang {
        Lang::Kif => Some(fast_gdl(text, opts)),
        Lang::Rbg => Some(fast_rbg(text, opts)),
        _ => None,
    }
}

/// Reading an RBG game without lowering it (syntax, names, macros).
fn fast_rbg(text: &str, opts: &Options) -> Vec<Diagnostic> {
    guarded(|| {
        let mut sources = SourceMap::new();
        let file = sources.add("fast", String::new());
        let mut lower = rg_core::LowerOptions::default();
        lower.size_limit = opts.size_limit;
        let mut all = match front_rbg::check(file, text, &lower) {
            Ok(()) => Vec::new(),
            Err(e) => Diagnostic::from_miette(&e, Some(file)),
        };
        diag::sort(&mut all);
        all
    })
}

/// Reading a GDL description and checking its rules (syntax, arities, safety, stratification).
fn fast_gdl(text: &str, opts: &Options) -> Vec<Diagnostic> {
    guarded(|| {
        let mut sources = SourceMap::new();
        let file = sources.add("fast", String::new());
        let mut parse = front_gdl::ParseOptions::default();
        parse.lenient = opts.lenient;
        let found = match front_gdl::load(file, text, &parse) {
            Ok(loaded) => loaded
                .warnings
                .iter()
                .flat_map(|w| Diagnostic::from_miette(w, Some(file)))
                .collect(),
            Err(e) => Diagnostic::from_miette(&e, Some(file)),
        };
        let (errors, warnings): (Vec<_>, Vec<_>) = found.into_iter().partition(|d| d.is_error());
        let mut all = errors;
        all.extend(opts.lints.apply(warnings));
        diag::sort(&mut all);
        all
    })
}

/// The diagnostics of a failed step.
pub fn error_diagnostics(e: Error) -> Vec<Diagnostic> {
    match e {
        Error::Input(diags) => diags,
        Error::Io(msg) => vec![Diagnostic::new(Severity::Error, Some("rgt::io"), msg)],
        Error::Usage(msg) => vec![Diagnostic::new(Severity::Error, Some("rgt::usage"), msg)],
    }
}

/// Runs `f`, turning a panic into an internal-error diagnostic.
pub fn guarded(f: impl FnOnce() -> Vec<Diagnostic>) -> Vec<Diagnostic> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        vec![
            Diagnostic::new(
                Severity::Error,
                Some("rgt::internal"),
                format!("internal error: rgt failed on this file ({what})"),
            )
            .with_help("this is a bug in rgt, not in your game; please report it with the file"),
        ]
    })
}

/// An rgt diagnostic as an LSP one: the primary span is the range (the start of the file when
/// it has none), the help follows the message on a line of its own, and the secondary labels
/// (and the primary label's text) are related locations.
pub fn to_lsp(d: &Diagnostic, uri: &Url, text: &str, lines: &LineIndex) -> lsp_types::Diagnostic {
    let range = |l: &diag::Label| lines.range(text, l.offset, l.offset + l.len);
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut related: Vec<DiagnosticRelatedInformation> = Vec::new();
    if let Some(text) = d
        .primary
        .as_ref()
        .and_then(|p| p.text.as_ref().map(|t| (p, t)))
    {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range(text.0)),
            message: text.1.clone(),
        });
    }
    for l in &d.secondary {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range(l)),
            message: l.text.clone().unwrap_or_default(),
        });
    }
    let suggestion = crate::features::suggestion(d.help.as_deref().unwrap_or(""))
        .or_else(|| crate::features::suggestion(&d.message));
    lsp_types::Diagnostic {
        range: d.primary.as_ref().map(range).unwrap_or_default(),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Advice => DiagnosticSeverity::INFORMATION,
        }),
        code: d.code.clone().map(NumberOrString::String),
        code_description: None,
        source: Some("rgt".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: suggestion.map(|s| serde_json::json!({ "replacement": s })),
    }
}

/// Runs `f`; `None` if it panicked.
pub fn guarded_value<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}
