//! Input languages and the dispatch to their front-ends (static dispatch: one `match`).

use crate::diag::Diagnostic;
use crate::error::Error;
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered};
use std::path::Path;

/// An input language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Lang {
    /// Regular Games (.rg)
    Rg,
    /// High-level Regular Games (.hrg)
    Hrg,
    /// Regular Boardgames, high- or low-level (.rbg)
    Rbg,
    /// Game Description Language in KIF, incl. GDL-II (.kif, .gdl); `gdl` is accepted too
    #[cfg_attr(feature = "clap", value(alias = "gdl"))]
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
    pub fn detect(path: &str, from: Option<Lang>) -> Result<Lang, Error> {
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
            let guess = Path::new(path)
                .extension()
                .and_then(|e| e.to_str())
                .and_then(|e| closest_extension(&e.to_ascii_lowercase()));
            Error::Usage(match guess {
                Some(ext) => format!(
                    "cannot tell the language of `{path}` from its extension: did you mean \
                     `.{ext}`? (known: {}; or name the language with --from)",
                    known.join(", ")
                ),
                None => format!(
                    "cannot tell the language of `{path}` from its extension (known: {}); use --from",
                    known.join(", ")
                ),
            })
        })
    }

    /// Lowers a source text to a game (without builtins).
    pub fn lower(self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, Error> {
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
    ) -> Result<(String, Vec<Diagnostic>), Error> {
        match self {
            Lang::Lg => front_linegames::load(file, text)
                .map(|(game, warnings)| {
                    let warnings = warnings
                        .iter()
                        .flat_map(|w| Diagnostic::from_miette(w, Some(file)))
                        .collect();
                    (front_linegames::hrg_text(&game), warnings)
                })
                .map_err(|e| Error::input(&e, Some(file))),
            other => Err(Error::Usage(format!(
                "--emit hrg prints the HRG generated from a LineGames (.lg) file, not from {} input",
                other.name()
            ))),
        }
    }
}

/// The known extension a mistyped one most likely meant (`hgr` → `hrg`): at most two edits
/// away, a swap of neighbours counting as one; ties go to the one of the same length, then to
/// the first in `Lang::ALL` order.
fn closest_extension(ext: &str) -> Option<&'static str> {
    let a: Vec<char> = ext.chars().collect();
    Lang::ALL
        .iter()
        .flat_map(|l| l.extensions().iter().copied())
        .map(|k| {
            let b: Vec<char> = k.chars().collect();
            (osa_distance(&a, &b), usize::from(a.len() != b.len()), k)
        })
        .filter(|&(d, _, _)| d >= 1 && d <= 2.min(a.len()))
        .min_by_key(|&(d, len, _)| (d, len))
        .map(|(_, _, k)| k)
}

/// Edit distance where a swap of two neighbouring characters costs one (optimal string
/// alignment).
fn osa_distance(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Runs a front-end, converting its typed error into diagnostics located in `file` (the
/// boundary of the diagnostics model, see [`crate::diag`]).
pub fn lower_with<F: FrontEnd>(
    fe: &F,
    file: FileId,
    text: &str,
    opts: &LowerOptions,
) -> Result<Lowered, Error> {
    fe.lower(file, text, opts)
        .map_err(|e| Error::input(&e, Some(file)))
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
