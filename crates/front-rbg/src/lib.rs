//! Regular Boardgames (RBG) front-end: sections, declarations, explicit boards, the
//! rules parser, and the lowering to RG by Thompson's construction with the board, the position
//! and the piece counters embedded.
//!
//! # Errors
//!
//! [`RbgErrors`] lists every independent error of a description (at most 100, then a note),
//! each an [`RbgError`] with a stable [`Code`]. Lexing goes on after a bad character, each
//! section is parsed on its own, the names of the rules and the declarations are checked in
//! full; an undeclared name is reported with the closest declared name or macro.
//!
//! Codes are `rbg::<phase>::<what>`, in kebab-case, grouped by the phase that finds them:
//!
//! - `lex`: characters, numbers, comments and strings;
//! - `section`: the `#name = …` directives and the five sections;
//! - `macro`: macro definitions and their expansion;
//! - `parse`: the grammar of a section (each section is parsed on its own, so an error in one
//!   does not hide those of the others);
//! - `name`: names that are not declared (with the closest declared name or macro as a
//!   suggestion), declared twice or declared as two kinds;
//! - `board`: the shape of a board generator, vertices and edges;
//! - `rules`: what the rules may do (a switch in a pattern, an assignment above a bound);
//! - `limit`: what a description may make at translation time (`--size-limit`).
//!
//! [`CODES`] lists every code; a code never changes meaning once published.

mod error;
mod lower;
mod macros;
mod print;
mod syntax;

pub use error::{CODES, Code, GROUP_CODE, RbgError, RbgErrors};
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered, Span};
use syntax::{Parser, Tok};

/// The RBG front-end.
#[derive(Clone, Copy, Debug, Default)]
pub struct RbgFrontEnd;

impl FrontEnd for RbgFrontEnd {
    type Error = RbgErrors;

    fn name(&self) -> &'static str {
        "rbg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["rbg"]
    }

    fn lower(&self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, RbgErrors> {
        let toks = lex(file, text)?;
        let whole = Span::new(file, 0, text.len());
        let game = parse(&toks, whole, opts.size_limit()).map_err(RbgErrors::new)?;
        let mut game = lower::lower(&game, whole, opts.size_limit()).map_err(RbgErrors::new)?;
        // Guards of states where the next player can never move, and the nodes only they
        // reach, are dropped, so the translation is lint-clean.
        rg_core::tidy::remove_dead_code(&mut game);
        Ok(Lowered::new(game))
    }
}

/// The tokens of `text`, or every lexical error in it.
/// Reads a game without lowering it: the lexical and syntax errors, names and macros — what an
/// editor can show at once (lowering a large board takes longer).
pub fn check(file: FileId, text: &str, opts: &LowerOptions) -> Result<(), RbgErrors> {
    let toks = lex(file, text)?;
    let whole = Span::new(file, 0, text.len());
    parse(&toks, whole, opts.size_limit()).map_err(RbgErrors::new)?;
    Ok(())
}

fn lex(file: FileId, text: &str) -> Result<Vec<(Tok, Span)>, RbgErrors> {
    let (toks, errors) = syntax::lex(file, text);
    if errors.is_empty() {
        Ok(toks)
    } else {
        Err(RbgErrors::new(errors))
    }
}

/// Every declared name by kind (pieces, players, variables, board labels), for the rules.
fn declared_names(g: &syntax::Game) -> std::collections::HashMap<String, syntax::NameKind> {
    use syntax::NameKind;
    let mut m = std::collections::HashMap::new();
    for (l, _) in g.board.iter().flat_map(|v| v.edges.iter()) {
        m.insert(l.clone(), NameKind::Label);
    }
    for l in &g.labels {
        m.insert(l.clone(), NameKind::Label);
    }
    for (v, _) in &g.variables {
        m.insert(v.clone(), NameKind::Variable);
    }
    for (p, _) in &g.players {
        m.insert(p.clone(), NameKind::Player);
    }
    for p in &g.pieces {
        m.insert(p.clone(), NameKind::Piece);
    }
    m
}

/// Expands the macros and board generators of an HL (or LL) description and prints it as LL-RBG.
pub fn to_ll(file: FileId, text: &str) -> Result<String, RbgErrors> {
    let toks = lex(file, text)?;
    let game = parse(
        &toks,
        Span::new(file, 0, text.len()),
        LowerOptions::default().size_limit(),
    )
    .map_err(RbgErrors::new)?;
    Ok(print::ll(&game))
}

/// The declarations of a `#players` or `#variables` section, each bound at most `limit` (the
/// translation makes a type of every value up to a bound).
fn bounded(
    list: Vec<(String, u64)>,
    limit: usize,
    span: Span,
) -> Result<Vec<(String, u64)>, RbgError> {
    if let Some((name, b)) = list.iter().find(|(_, b)| *b >= limit as u64) {
        return Err(RbgError::new(Code::TooLarge,
            format!("the bound {b} of `{name}` is above the limit of {}", limit.saturating_sub(1)),
            span,
        )
        .help("the translation makes a type of every value up to a bound; raise the limit with `--size-limit N`"));
    }
    Ok(list)
}

/// The sections, in the order they are parsed: declarations first, then the board, then the
/// rules (whatever their order in the file).
const SECTIONS: [&str; 5] = ["players", "pieces", "variables", "board", "rules"];

/// Splits the token stream into directives, expands macros and parses the five sections. Each
/// section is parsed on its own, so an error in one does not hide those of the others; the
/// names of the rules are checked only when the declarations and the board are valid.
fn parse(toks: &[(Tok, Span)], whole: Span, limit: usize) -> Result<syntax::Game, Vec<RbgError>> {
    let (sections, macros) = macros::directives(toks).map_err(|e| vec![e])?;
    let macro_names = macros::names(&macros);
    let mut expander = macros::Expander::new(toks, macros, limit);
    let mut game = syntax::Game::default();
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let rank = |n: &str| SECTIONS.iter().position(|x| *x == n);
    let mut ordered: Vec<&macros::Section> = sections.iter().collect();
    ordered.sort_by_key(|s| rank(&s.name));
    for s in ordered {
        if seen.contains(&s.name.as_str()) {
            errors.push(RbgError::new(
                Code::DuplicateSection,
                format!("section `#{}` appears twice", s.name),
                s.span,
            ));
            continue;
        }
        seen.push(&s.name);
        let checked = errors.is_empty();
        if let Err(e) = section(&mut expander, s, &mut game, checked, &macro_names, limit) {
            errors.extend(e);
            if errors.iter().any(|e| e.code == Code::TooLarge) {
                return Err(errors);
            }
        }
    }
    for s in SECTIONS {
        if !seen.contains(&s) {
            errors.push(RbgError::new(
                Code::MissingSection,
                format!("the section `#{s}` is missing"),
                whole,
            ));
        }
    }
    if errors.is_empty() {
        Ok(game)
    } else {
        Err(errors)
    }
}

/// Expands and parses one section into `game`. The names of the rules are checked against
/// the declarations when `checked` (the declarations and the board had no error).
fn section(
    expander: &mut macros::Expander<'_>,
    s: &macros::Section,
    game: &mut syntax::Game,
    checked: bool,
    macro_names: &[String],
    limit: usize,
) -> Result<(), Vec<RbgError>> {
    let body = expander.section(s).map_err(|e| vec![e])?;
    let origins = std::mem::take(&mut expander.origins);
    let end = body.last().map_or(s.span, |t| t.1);
    let mut p = Parser::new(&body, end)
        .with_origins(&origins)
        .with_limit(limit);
    // Names and bounds are known once the declarations are parsed; only the rules need them.
    let (names, bounds) = if s.name == "rules" && checked {
        let bounds: std::collections::HashMap<String, u64> = game
            .players
            .iter()
            .chain(game.variables.iter())
            .cloned()
            .collect();
        (declared_names(game), bounds)
    } else {
        Default::default()
    };
    if s.name == "rules" && checked {
        p = p
            .with_names(&names)
            .with_bounds(&bounds)
            .with_macros(macro_names);
    }
    let parsed = match s.name.as_str() {
        "players" => p
            .bounded_list()
            .and_then(|l| bounded(l, limit, s.span))
            .map(|l| game.players = l),
        "pieces" => p.ident_list().map(|mut v| {
            v.sort();
            v.dedup();
            game.pieces = v;
        }),
        "variables" => p
            .bounded_list()
            .and_then(|l| bounded(l, limit, s.span))
            .map(|l| game.variables = l),
        "board" => p.board().map(|(vertices, labels)| {
            game.board = vertices;
            game.labels = labels;
        }),
        _ => p.rule().map(|r| {
            game.rules = Some(r);
            game.rules_span = Some(s.span);
        }),
    };
    let mut errors = p.take_errors();
    match parsed.and_then(|()| p.finish(&s.name)) {
        Ok(()) if errors.is_empty() => Ok(()),
        Ok(()) => Err(errors),
        Err(e) => {
            errors.push(e);
            Err(errors)
        }
    }
}
