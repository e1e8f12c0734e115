//! Input languages and the dispatch to their front-ends (static dispatch: one `match`).

use crate::report::{Diag, Failure};
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered};
use std::path::Path;

/// An input language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Lang {
    /// Regular Games (.rg)
    Rg,
    /// High-level Regular Games (.hrg)
    Hrg,
    /// Regular Boardgames, high- or low-level (.rbg)
    Rbg,
    /// Game Description Language in KIF, incl. GDL-II (.kif, .gdl)
    Kif,
    /// LineGames (.lg)
    Lg,
}

impl Lang {
    /// Every language, in `--from` order.
    pub const ALL: [Lang; 5] = [Lang::Rg, Lang::Hrg, Lang::Rbg, Lang::Kif, Lang::Lg];

    /// The file extensions of this language (without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Lang::Rg => &["rg"],
            Lang::Hrg => &["hrg"],
            Lang::Rbg => &["rbg"],
            Lang::Kif => &["kif", "gdl"],
            Lang::Lg => &["lg"],
        }
    }

    /// The name used by `--from`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rg => "rg",
            Lang::Hrg => "hrg",
            Lang::Rbg => "rbg",
            Lang::Kif => "kif",
            Lang::Lg => "lg",
        }
    }

    /// The language of a file, by extension (case-insensitive).
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Lang::ALL
            .into_iter()
            .find(|l| l.extensions().contains(&ext.as_str()))
    }

    /// The language of `path`, or a usage error naming the known extensions.
    pub fn detect(path: &str, from: Option<Lang>) -> Result<Lang, Failure> {
        if let Some(l) = from {
            return Ok(l);
        }
        if path == "-" {
            return Ok(Lang::Rg);
        }
        Lang::from_path(Path::new(path)).ok_or_else(|| {
            let known: Vec<String> = Lang::ALL
                .iter()
                .flat_map(|l| l.extensions().iter().map(|e| format!(".{e}")))
                .collect();
            Failure::Usage(format!(
                "cannot tell the language of `{path}` from its extension (known: {}); use --from",
                known.join(", ")
            ))
        })
    }

    /// Lowers a source text to a game (without builtins).
    pub fn lower(self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, Failure> {
        match self {
            Lang::Rg => lower_with(&RgFrontEnd, file, text, opts),
            Lang::Hrg => lower_with(&front_hrg::HrgFrontEnd, file, text, opts),
            Lang::Rbg => lower_with(&front_rbg::RbgFrontEnd, file, text, opts),
            Lang::Kif => lower_with(&front_gdl::GdlFrontEnd::default(), file, text, opts),
            Lang::Lg => lower_with(&front_linegames::LgFrontEnd, file, text, opts),
        }
    }

    /// The HRG program a source text is lowered through (`--emit hrg`), with the front-end's
    /// warnings. Only LineGames is lowered through HRG; other languages are a usage error.
    pub fn generated_hrg(
        self,
        file: FileId,
        text: &str,
    ) -> Result<(String, Vec<miette::Report>), Failure> {
        match self {
            Lang::Lg => front_linegames::load(file, text)
                .map(|(game, warnings)| {
                    let warnings = warnings.into_iter().map(miette::Report::new).collect();
                    (front_linegames::hrg_text(&game), warnings)
                })
                .map_err(|e| Failure::Input(vec![Diag::new(e, Some(file))])),
            other => Err(Failure::Usage(format!(
                "--emit hrg prints the HRG generated from a LineGames (.lg) file, not from {} input",
                other.name()
            ))),
        }
    }
}

/// Runs a front-end, turning its typed error into a diagnostic located in `file`.
pub fn lower_with<F: FrontEnd>(
    fe: &F,
    file: FileId,
    text: &str,
    opts: &LowerOptions,
) -> Result<Lowered, Failure> {
    fe.lower(file, text, opts)
        .map_err(|e| Failure::Input(vec![Diag::new(e, Some(file))]))
}

/// RG itself, as a front-end: parse.
#[derive(Debug)]
pub struct RgFrontEnd;

impl FrontEnd for RgFrontEnd {
    type Error = rg_core::ParseErrors;

    fn name(&self) -> &'static str {
        "rg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["rg"]
    }

    fn lower(&self, file: FileId, text: &str, _: &LowerOptions) -> Result<Lowered, Self::Error> {
        rg_core::parse(file, text).map(Lowered::new)
    }
}
