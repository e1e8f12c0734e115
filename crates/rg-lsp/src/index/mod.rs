//! The name index of one document: every declaration (with the span of its name, the span of
//! the whole declaration, a scope and a description for hover) and every occurrence of a
//! declared name, resolved to its declaration.
//!
//! The index is built from tokens, not from a front-end's syntax tree, so that it works on the
//! text being typed, which is often not valid: each language has a small reader of its
//! declaration forms ([`rg`], [`hrg`], [`rbg`], [`kif`]); resolution is shared. A name refers to
//! the innermost declaration whose scope contains it (graph parameters, loop variables, pattern
//! variables, macro parameters), else to the global one; RG node names and value names live in
//! separate name spaces.

mod hrg;
mod kif;
pub mod lex;
mod rbg;
mod rg;

use lex::{Tok, TokKind};
use rg_pipeline::Lang;
use std::collections::HashMap;

/// What a declared name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An RG type or an HRG domain.
    Type,
    /// A value: a member of a set type or domain, or a constructor of a domain.
    Symbol,
    /// An RG constant.
    Constant,
    /// A variable of the game state.
    Variable,
    /// An RG node.
    Node,
    /// An HRG function.
    Function,
    /// An HRG graph.
    Graph,
    /// A parameter of an HRG graph or an RBG macro.
    Parameter,
    /// A variable bound by a loop, a pattern or `where`.
    Local,
    /// An RBG macro.
    Macro,
    /// An RBG piece.
    Piece,
    /// An RBG player.
    Player,
    /// An RBG board direction.
    Direction,
    /// A GDL relation.
    Relation,
    /// A GDL function symbol that names a fluent or an action.
    Term,
}

impl Kind {
    /// How hover and completion name it.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Type => "type",
            Kind::Symbol => "symbol",
            Kind::Constant => "constant",
            Kind::Variable => "variable",
            Kind::Node => "node",
            Kind::Function => "function",
            Kind::Graph => "graph",
            Kind::Parameter => "parameter",
            Kind::Local => "local variable",
            Kind::Macro => "macro",
            Kind::Piece => "piece",
            Kind::Player => "player",
            Kind::Direction => "direction",
            Kind::Relation => "relation",
            Kind::Term => "function symbol",
        }
    }
}

/// A byte range.
pub type Span = (usize, usize);

/// A declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub kind: Kind,
    /// The name where it is declared.
    pub name_span: Span,
    /// The whole declaration.
    pub decl: Span,
    /// Further declaring occurrences (the other rules of a GDL relation).
    pub more: Vec<Span>,
    /// Where the name is visible (`None`: everywhere).
    pub scope: Option<Span>,
    /// The declaration this one belongs to in the outline (a domain's symbols, a graph's
    /// parameters).
    pub parent: Option<usize>,
    /// What hover shows first: what the name is, when more than its kind can say.
    pub summary: String,
    /// The declaration's source text (type and value), shown as code by hover.
    pub detail: String,
}

/// Which name space a token is looked up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Any declaration.
    Any,
    /// RG nodes only.
    Nodes,
    /// Everything but RG nodes.
    Values,
    /// Not a reference (a keyword position).
    None,
}

/// The index of one document.
#[derive(Clone, Debug, Default)]
pub struct Index {
    pub defs: Vec<Def>,
    /// Every resolved occurrence (declarations included), sorted by position.
    pub refs: Vec<(Span, usize)>,
}

/// What a language's reader gives: the declarations and, per token, its name space.
pub(crate) struct Declared {
    pub defs: Vec<Def>,
    pub spaces: Vec<Space>,
}

impl Index {
    /// Indexes a text in `lang` (LineGames has no name index).
    pub fn new(lang: Lang, text: &str) -> Index {
        let syntax = lex::Syntax {
            kif: lang == Lang::Kif,
            block_comments: lang == Lang::Rbg,
        };
        let toks = lex::lex(text, syntax);
        let declared = match lang {
            Lang::Rg => rg::declare(text, &toks),
            Lang::Hrg => hrg::declare(text, &toks),
            Lang::Rbg => rbg::declare(text, &toks),
            Lang::Kif => kif::declare(text, &toks),
            Lang::Lg => return Index::default(),
        };
        resolve(&toks, declared)
    }

    /// The declaration named at byte `offset` (a declaration or a reference; the offset may be
    /// just after the name).
    pub fn at(&self, offset: usize) -> Option<usize> {
        let i = self.refs.partition_point(|&((s, _), _)| s <= offset);
        let candidates = self.refs[..i].iter().rev().take(2);
        candidates
            .filter(|&&((s, e), _)| s <= offset && offset <= e)
            .map(|&(_, d)| d)
            .next()
    }

    /// Every occurrence of declaration `def`, in source order.
    pub fn occurrences(&self, def: usize) -> Vec<Span> {
        self.refs
            .iter()
            .filter(|&&(_, d)| d == def)
            .map(|&(s, _)| s)
            .collect()
    }

    /// The declarations visible at `offset`: the globals and the locals whose scope contains
    /// it.
    pub fn visible(&self, offset: usize) -> impl Iterator<Item = &Def> {
        self.defs.iter().filter(move |d| match d.scope {
            None => true,
            Some((s, e)) => s <= offset && offset <= e,
        })
    }
}

/// Resolves every name token against the declarations.
fn resolve(toks: &[Tok<'_>], declared: Declared) -> Index {
    let Declared { defs, spaces } = declared;
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, d) in defs.iter().enumerate() {
        by_name.entry(d.name.as_str()).or_default().push(i);
    }
    let mut refs = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokKind::Name {
            continue;
        }
        let space = spaces.get(i).copied().unwrap_or(Space::Any);
        let Some(cands) = by_name.get(t.text) else {
            continue;
        };
        let fits = |d: &Def| match space {
            Space::Any => true,
            Space::Nodes => d.kind == Kind::Node,
            Space::Values => d.kind != Kind::Node,
            Space::None => false,
        };
        // The innermost scope containing the token, else the first global declaration.
        let local = cands
            .iter()
            .filter(|&&c| fits(&defs[c]))
            .filter_map(|&c| {
                let (s, e) = defs[c].scope?;
                (s <= t.start && t.end() <= e).then_some((e - s, c))
            })
            .min()
            .map(|(_, c)| c);
        let global = || {
            cands
                .iter()
                .copied()
                .find(|&c| defs[c].scope.is_none() && fits(&defs[c]))
        };
        if let Some(def) = local.or_else(global) {
            refs.push(((t.start, t.end()), def));
        }
    }
    Index { defs, refs }
}

/// The text of `span`, whitespace runs collapsed, cut to a readable length.
pub(crate) fn snippet(text: &str, (start, end): Span) -> String {
    const MAX: usize = 600;
    let raw = text.get(start..end).unwrap_or("");
    let mut out = String::new();
    for (i, line) in raw.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.trim_end());
        if out.len() > MAX {
            let mut cut = MAX;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str(" …");
            break;
        }
    }
    out
}

/// The index of the token that closes the bracket opened at `open` (or the last token).
pub(crate) fn closing(toks: &[Tok<'_>], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    toks.len().saturating_sub(1)
}

/// A declaration with a summary.
pub(crate) fn summarised(mut d: Def, summary: String) -> Def {
    d.summary = summary;
    d
}

/// A declaration with the usual defaults.
pub(crate) fn def(name: &Tok<'_>, kind: Kind, decl: Span, detail: String) -> Def {
    Def {
        name: name.text.to_owned(),
        kind,
        name_span: (name.start, name.end()),
        decl,
        more: Vec::new(),
        scope: None,
        parent: None,
        summary: String::new(),
        detail,
    }
}

#[cfg(test)]
mod tests;
