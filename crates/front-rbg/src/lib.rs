//! Regular Boardgames (RBG) front-end (rbg.md): sections, declarations, explicit boards, the
//! rules parser, and the lowering to RG by Thompson's construction with the board, the position
//! and the piece counters embedded.

mod error;
mod lower;
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

    fn lower(&self, file: FileId, text: &str, _opts: &LowerOptions) -> Result<Lowered, RbgError> {
        let toks = syntax::lex(file, text)?;
        let whole = Span::new(file, 0, text.len());
        let game = parse(&toks, whole)?;
        Ok(Lowered::new(lower::lower(&game, whole)?))
    }
}

/// Splits the token stream at `#` and parses the five sections.
fn parse(toks: &[(Tok, Span)], whole: Span) -> Result<syntax::Game, RbgError> {
    let mut game = syntax::Game::default();
    let mut seen: Vec<String> = Vec::new();
    let mut i = 0;
    if toks.first().map(|t| &t.0) != Some(&Tok::P("#")) && toks.len() > 1 {
        return Err(RbgError::new(
            "an RBG file starts with a section such as `#board =`",
            toks[0].1,
        ));
    }
    while i < toks.len() && toks[i].0 != Tok::Eof {
        let hash = toks[i].1;
        i += 1;
        let name = match toks.get(i).map(|t| &t.0) {
            Some(Tok::Ident(n)) => n.clone(),
            _ => return Err(RbgError::new("expected a section name after `#`", hash)),
        };
        i += 1;
        if toks.get(i).map(|t| &t.0) != Some(&Tok::P("=")) {
            return Err(RbgError::new(
                format!("`#{name}` is a macro definition; HL macros are not supported yet"),
                hash,
            )
            .help("translate the game to LL-RBG with rbgParser first"));
        }
        i += 1;
        let start = i;
        while i < toks.len() && toks[i].0 != Tok::P("#") && toks[i].0 != Tok::Eof {
            i += 1;
        }
        let body = &toks[start..i];
        let end = toks.get(i).map_or(whole, |t| t.1);
        if seen.contains(&name) {
            return Err(RbgError::new(
                format!("section `#{name}` appears twice"),
                hash,
            ));
        }
        seen.push(name.clone());
        let mut p = Parser::new(body, end);
        match name.as_str() {
            "players" => game.players = p.bounded_list()?,
            "pieces" => {
                let mut v = p.ident_list()?;
                v.sort();
                v.dedup();
                game.pieces = v;
            }
            "variables" => game.variables = p.bounded_list()?,
            "board" => {
                if matches!(body.first().map(|t| &t.0), Some(Tok::Ident(g)) if matches!(g.as_str(), "rectangle" | "hexagon" | "cuboid"))
                {
                    return Err(RbgError::new(
                        "board generators are HL-RBG; they are not supported yet",
                        body[0].1,
                    ));
                }
                game.board = p.board()?;
            }
            "rules" => {
                game.rules = Some(p.rule()?);
                game.rules_span = Some(hash);
            }
            other => {
                return Err(RbgError::new(format!("unknown section `#{other}`"), hash));
            }
        }
        p.finish(&name)?;
    }
    for s in ["players", "pieces", "variables", "board", "rules"] {
        if !seen.iter().any(|x| x == s) {
            return Err(RbgError::new(
                format!("the section `#{s}` is missing"),
                whole,
            ));
        }
    }
    Ok(game)
}
