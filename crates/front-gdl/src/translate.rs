//! The whole translation of a GDL description to RG: parse and normalise → validate → ground
//! → simplify → lower.

use crate::error::{GdlDiagnostic, GdlErrors};
use crate::ground::{GroundLimits, Progress};
use crate::{ParseOptions, propnet};
use rg_core::{FileId, Game};
use std::time::{Duration, Instant};

/// Options of a GDL translation.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct TranslateOptions {
    /// How the text is read.
    pub parse: ParseOptions,
    /// The grounding guards.
    pub limits: GroundLimits,
}

/// Sizes measured during a translation (for reports and benchmarks).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TranslateStats {
    /// Ground atoms (exact facts and M⁺).
    pub atoms: usize,
    /// Ground rule instances recorded.
    pub instances: usize,
    /// Fluents with an RG variable.
    pub fluents: usize,
    /// Ground rules left after simplification.
    pub rules: usize,
    /// Ground recursive components.
    pub recursive_components: usize,
    /// The ten largest relations (`name/arity`, atoms) and the ten rules with the most ground
    /// instances (source line, instances), largest first.
    pub largest_relations: Vec<(String, usize)>,
    pub largest_rules: Vec<(usize, usize)>,
    /// Time spent grounding, simplifying and lowering.
    pub ground_time: Duration,
    pub simplify_time: Duration,
    pub lower_time: Duration,
}

/// A translated game with the warnings found on the way.
#[derive(Debug)]
pub struct Translation {
    pub game: Game,
    pub warnings: Vec<GdlDiagnostic>,
    pub stats: TranslateStats,
}

/// Translates a GDL description to an RG game (without the RG built-ins, which the caller
/// adds). `progress` is called now and then during long translations.
pub fn translate(
    file: FileId,
    text: &str,
    opts: &TranslateOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Translation, GdlErrors> {
    let start = Instant::now();
    let loaded = crate::load(file, text, &opts.parse)?;
    let mut warnings = loaded.warnings;
    let fail = |mut warnings: Vec<GdlDiagnostic>, e: GdlDiagnostic| {
        warnings.push(e);
        GdlErrors::new(warnings)
    };
    let safe = opts
        .parse
        .lenient
        .then(|| crate::lenient::make_safe(&loaded.program))
        .flatten();
    let p = match safe {
        // `--lenient` let unsafe rules through (W-VAL-041): ground their safe equivalents. The
        // rewritten rules are checked again; their warnings are the ones already reported.
        Some(safe) => match crate::check(&safe) {
            Ok(_) => safe,
            Err(e) => {
                warnings.extend(e.diagnostics);
                return Err(GdlErrors::new(warnings));
            }
        },
        None => loaded.program,
    };
    let t0 = Instant::now();
    let g = match crate::ground::ground(&p, &opts.limits, start, progress) {
        Ok(g) => g,
        Err(e) => return Err(fail(warnings, e)),
    };
    let t1 = Instant::now();
    progress(&Progress {
        phase: "simplifying",
        atoms: g.atoms.len() as u64,
        instances: g.inst.len() as u64,
        elapsed: start.elapsed(),
    });
    let net = match propnet::Net::build(&p, &g) {
        Ok(n) => n,
        Err(e) => return Err(fail(warnings, e)),
    };
    let t2 = Instant::now();
    let (game, lw) = crate::lower::lower(&p, &g, &net);
    let t3 = Instant::now();
    let failed = lw.iter().any(GdlDiagnostic::is_error);
    warnings.extend(lw);
    if failed {
        // A limit of the lifted lowering (E-LOW-061): the game is incomplete.
        return Err(GdlErrors::new(warnings));
    }
    crate::error::sort_diagnostics(&mut warnings);
    let stats = TranslateStats {
        atoms: g.atoms.len(),
        instances: g.inst.len(),
        fluents: game
            .variables
            .iter()
            .filter(|v| game.name(v.name).starts_with("f_"))
            .count(),
        rules: net.alive.iter().filter(|&&a| a).count(),
        recursive_components: net.sccs.len(),
        largest_relations: g.largest_relations(&p, 10),
        largest_rules: g.largest_rules(&p, text, 10),
        ground_time: t1 - t0,
        simplify_time: t2 - t1,
        lower_time: t3 - t2,
    };
    Ok(Translation {
        game,
        warnings,
        stats,
    })
}
