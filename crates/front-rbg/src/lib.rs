//! Regular Boardgames (RBG) front-end (rbg.md): sections, declarations, explicit boards, the
//! rules parser, and the lowering to RG by Thompson's construction with the board, the position
//! and the piece counters embedded.

mod error;
mod lower;
mod macros;
mod print;
mod syntax;

pub use error::RbgError;
use rg_core::{FileId, FrontEnd, LowerOptions, Lowered, Span};
use syntax::{Parser, Tok};

/// The RBG front-end.
#[derive(Clone, Copy, Debug, Default)]
pub struct RbgFrontEnd;

impl FrontEnd for RbgFrontEnd {
    type Error = RbgError;

    fn name(&self) -> &'static str {
        "rbg"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["rbg"]
    }

    fn lower(&self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, RbgError> {
        let toks = syntax::lex(file, text)?;
        let whole = Span::new(file, 0, text.len());
        let game = parse(&toks, whole, opts.size_limit())?;
        let mut game = lower::lower(&game, whole, opts.size_limit())?;
        // Guards of states where the next player can never move, and the nodes only they
        // reach, are dropped, so the translation is lint-clean.
        rg_core::tidy::remove_dead_code(&mut game);
        Ok(Lowered::new(game))
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
pub fn to_ll(file: FileId, text: &str) -> Result<String, RbgError> {
    let toks = syntax::lex(file, text)?;
    let game = parse(
        &toks,
        Span::new(file, 0, text.len()),
        LowerOptions::default().size_limit(),
    )?;
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
        return Err(RbgError::new(
            format!("the bound {b} of `{name}` is above the limit of {}", limit.saturating_sub(1)),
            span,
        )
        .help("the translation makes a type of every value up to a bound; raise the limit with `--size-limit N`"));
    }
    Ok(list)
}

/// Splits the token stream into directives, expands macros and parses the five sections.
fn parse(toks: &[(Tok, Span)], whole: Span, limit: usize) -> Result<syntax::Game, RbgError> {
    let (sections, macros) = macros::directives(toks)?;
    let mut expander = macros::Expander::new(toks, macros, limit);
    let mut game = syntax::Game::default();
    let mut seen: Vec<&str> = Vec::new();
    // Declarations first, then the board, then the rules (rbg.md §3).
    let rank = |n: &str| {
        ["players", "pieces", "variables", "board", "rules"]
            .iter()
            .position(|x| *x == n)
    };
    let mut ordered: Vec<&macros::Section> = sections.iter().collect();
    ordered.sort_by_key(|s| rank(&s.name));
    for s in ordered {
        if seen.contains(&s.name.as_str()) {
            return Err(RbgError::new(
                format!("section `#{}` appears twice", s.name),
                s.span,
            ));
        }
        seen.push(&s.name);
        let body = expander.section(s)?;
        let origins = std::mem::take(&mut expander.origins);
        let end = body.last().map_or(s.span, |t| t.1);
        let mut p = Parser::new(&body, end)
            .with_origins(&origins)
            .with_limit(limit);
        // Names and bounds are known once the declarations are parsed; only the rules need them.
        let (names, bounds) = if s.name == "rules" {
            let bounds: std::collections::HashMap<String, u64> = game
                .players
                .iter()
                .chain(game.variables.iter())
                .cloned()
                .collect();
            (declared_names(&game), bounds)
        } else {
            Default::default()
        };
        if s.name == "rules" {
            p = p.with_names(&names).with_bounds(&bounds);
        }
        match s.name.as_str() {
            "players" => game.players = bounded(p.bounded_list()?, limit, s.span)?,
            "pieces" => {
                let mut v = p.ident_list()?;
                v.sort();
                v.dedup();
                game.pieces = v;
            }
            "variables" => game.variables = bounded(p.bounded_list()?, limit, s.span)?,
            "board" => {
                let (vertices, labels) = p.board()?;
                game.board = vertices;
                game.labels = labels;
            }
            _ => {
                game.rules = Some(p.rule()?);
                game.rules_span = Some(s.span);
            }
        }
        p.finish(&s.name)?;
    }
    for s in ["players", "pieces", "variables", "board", "rules"] {
        if !seen.contains(&s) {
            return Err(RbgError::new(
                format!("the section `#{s}` is missing"),
                whole,
            ));
        }
    }
    Ok(game)
}
