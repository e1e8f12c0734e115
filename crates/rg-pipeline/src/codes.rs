//! The registry of diagnostic codes: every code a front-end, the RG checker, a validator or the
//! pipeline itself can report. `--allow CODE` accepts only these (a typo would otherwise
//! silence nothing, silently), and suggests the closest one.
//!
//! The list is kept honest by a test that reads the sources of every crate and checks that each
//! code written there is listed here; GDL's catalogue and the HRG and RBG code lists are taken
//! from their front-ends directly.

/// The codes written out in the crates (all but those the GDL, HRG and RBG front-ends list
/// themselves, see [`known`]).
pub const CODES: &[&str] = &[
    // RG syntax (rg-core's parser).
    "rg::parse",
    "rg::parse::bad_integer",
    "rg::parse::space_before_binder_colon",
    "rg::parse::space_before_bracket",
    "rg::parse::too_deep",
    "rg::parse::unexpected_character",
    "rg::parse::unexpected_eof",
    "rg::parse::unexpected_token",
    "rg::parse::unterminated_pragma",
    // RG types and built-ins (rg-core).
    "rg::types::arrow-expected",
    "rg::types::cyclic-type",
    "rg::types::not-assignable",
    "rg::types::not-comparable",
    "rg::types::set-expected",
    "rg::types::unresolved-type",
    "rg::builtins::empty-set",
    "rg::builtins::missing-type",
    "rg::builtins::set-expected",
    "rg::builtins::type-mismatch",
    "rg::builtins::variable-mismatch",
    // The reference validators (rg-validate).
    "rg::assignments::not-a-variable",
    "rg::assignments::player-any",
    "rg::names::duplicate-constant",
    "rg::names::duplicate-typedef",
    "rg::names::duplicate-variable",
    "rg::maps::duplicate-default",
    "rg::maps::duplicate-key",
    "rg::maps::missing-default",
    "rg::reachability::end-unreachable",
    "rg::tags::loop",
    "rg::tag-variables::not-a-set",
    "rg::tag-variables::unresolved",
    "rg::tag-variables::unresolved-type",
    // The lints (rg-validate).
    "rg::lint::constant-and-variable",
    "rg::lint::disjoint-targets",
    "rg::lint::duplicate-member",
    "rg::lint::end-has-edges",
    "rg::lint::end-not-keeper",
    "rg::lint::keeper-begins",
    "rg::lint::pragma-unknown-node",
    "rg::lint::pragma-unknown-variable",
    "rg::lint::reachability-loop",
    "rg::lint::reachability-never",
    "rg::lint::system-player",
    "rg::lint::unreachable-node",
    // The optimiser, the interpreter and the compiler.
    "rg::passes::failed",
    "rg::interp::ambiguous_move",
    "rg::interp::dead_end",
    "rg::interp::keeper_moves",
    "rg::interp::no_begin",
    "rg::interp::not_equivalent",
    "rg::interp::path_format",
    "rg::interp::path_illegal",
    "rg::interp::path_tag",
    "rg::interp::play_too_long",
    "rg::interp::proper",
    "rg::interp::runtime",
    "rg::interp::search_limit",
    "rg::interp::unsupported",
    "rg::compile::no_begin",
    "rg::compile::too_large",
    "rg::compile::unsupported",
    // GDL (besides the catalogue codes of `front_gdl::error::Code`).
    "gdl::invalid",
    "gdl::reasoner::joint-move",
    "gdl::reasoner::keyword-dependency",
    "gdl::reasoner::limit",
    "gdl::reasoner::negation-cycle",
    "gdl::reasoner::role",
    "gdl::reasoner::unsafe-rule",
    // LineGames.
    "lg::errors",
    "lg::internal",
    "lg::LG001::capital_name",
    "lg::LG001::syntax",
    "lg::LG001::unexpected_character",
    "lg::LG001::unknown_board",
    "lg::LG001::unknown_direction",
    "lg::LG001::unknown_side",
    "lg::LG001::unknown_statement",
    "lg::LG001::unterminated_string",
    "lg::LG002::game_not_first",
    "lg::LG002::missing_game",
    "lg::LG002::second_game",
    "lg::LG003::repeated_statement",
    "lg::LG004::missing_capture",
    "lg::LG004::missing_limit",
    "lg::LG005::bad_dimensions",
    "lg::LG006::bad_triangle",
    "lg::LG007::link_conflict",
    "lg::LG008::self_link",
    "lg::LG008::short_line",
    "lg::LG009::duplicate_point",
    "lg::LG009::reserved_name",
    "lg::LG010::unknown_point",
    "lg::LG011::selector_mismatch",
    "lg::LG012::bad_span",
    "lg::LG013::empty_selector",
    "lg::LG014::zero_limit",
    "lg::LG015::no_links",
    "lg::LG016::too_large",
    "lg::warning::disconnected",
    "lg::warning::isolated_point",
    "lg::warning::no_men",
    // The command line.
    "rgt::batch::memory-limit",
    "rgt::batch::timeout",
    "rgt::internal",
    "rgt::io",
    "rgt::perft::dead_end",
    "rgt::usage",
];

/// Every known code: [`CODES`], GDL's catalogue (`gdl::E-…`, `gdl::W-…`) and the codes of the
/// HRG and RBG front-ends, sorted.
pub fn known() -> Vec<String> {
    let mut all: Vec<String> = CODES
        .iter()
        .chain(front_hrg::CODES)
        .chain(front_rbg::CODES)
        .map(|c| (*c).to_owned())
        .collect();
    all.extend(front_gdl::error::Code::ALL.iter().map(|c| c.miette_code()));
    all.sort();
    all.dedup();
    all
}

/// Whether rgt can report this code.
pub fn is_known(code: &str) -> bool {
    CODES.contains(&code)
        || front_hrg::CODES.contains(&code)
        || front_rbg::CODES.contains(&code)
        || front_gdl::error::Code::ALL
            .iter()
            .any(|c| c.miette_code() == code)
}

/// The known code closest to a mistyped one (case differences are free), if one is plausibly
/// meant.
pub fn closest(code: &str) -> Option<String> {
    let known = known();
    rg_core::suggest::closest(code, known.iter().map(String::as_str)).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// The Rust sources under `dir`, recursively.
    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// Every code-shaped token in `text`: `"ns::a::b"` string literals and `code(ns::a::b)`
    /// attributes, for the namespaces rgt uses.
    fn codes_in(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for ns in ["rg", "gdl", "hrg", "rbg", "lg", "rgt"] {
            for open in ["\"", "code("] {
                let needle = format!("{open}{ns}::");
                let mut rest = text;
                while let Some(i) = rest.find(&needle) {
                    let start = i + open.len();
                    let tail = &rest[start..];
                    let end = tail
                        .find(|c: char| !(c.is_ascii_alphanumeric() || "_:-".contains(c)))
                        .unwrap_or(tail.len());
                    let close = tail[end..].chars().next();
                    let closed = match open {
                        "\"" => close == Some('"'),
                        _ => close == Some(')'),
                    };
                    let code = &tail[..end];
                    if closed && !code.ends_with(':') && !code.ends_with("::{}") {
                        found.push(code.to_owned());
                    }
                    rest = &tail[end..];
                }
            }
        }
        found
    }

    #[test]
    fn every_code_in_the_sources_is_registered() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        sources(&root.join("crates"), &mut files);
        sources(&root.join("cli/src"), &mut files);
        assert!(files.len() > 50, "the sources were not found");
        let known = known();
        let mut missing = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).expect("source file");
            // Test modules spell wrong codes on purpose.
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            for code in codes_in(text) {
                if !known.contains(&code) {
                    missing.push(format!("{code} ({})", f.display()));
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(
            missing.is_empty(),
            "codes reported but not in rg_pipeline::codes::CODES:\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn gdl_catalogue_codes_are_known() {
        assert!(is_known("gdl::W-VAL-014"));
        assert!(is_known("rg::lint::unreachable-node"));
        assert!(!is_known("gdl::W-VAL-999"));
        assert_eq!(
            closest("rg::lint::unreachable-nodes").as_deref(),
            Some("rg::lint::unreachable-node")
        );
    }
}
