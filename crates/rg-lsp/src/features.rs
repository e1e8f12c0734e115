//! The answers to requests about one document: hover, definition, references, the outline,
//! completion, formatting and the quick fixes of "did you mean" diagnostics. Each is a pure
//! function of the document (its text, language, line index and name index).

use crate::index::{Def, Index, Kind, Span};
use crate::position::LineIndex;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind,
    DocumentSymbol, Hover, HoverContents, Location, MarkupContent, MarkupKind, Position, Range,
    SymbolKind, TextEdit, Url, WorkspaceEdit,
};
use rg_core::FileId;
use rg_pipeline::Lang;
use std::collections::{BTreeSet, HashMap};

/// An open document.
#[derive(Debug)]
pub struct Doc {
    pub uri: Url,
    pub lang: Lang,
    pub version: i32,
    pub text: String,
    pub lines: LineIndex,
    pub index: Index,
}

impl Doc {
    /// A document with its indexes.
    pub fn new(uri: Url, lang: Lang, version: i32, text: String) -> Doc {
        let lines = LineIndex::new(&text);
        let index = Index::new(lang, &text);
        Doc {
            uri,
            lang,
            version,
            text,
            lines,
            index,
        }
    }

    fn range(&self, (s, e): Span) -> Range {
        self.lines.range(&self.text, s, e)
    }

    fn location(&self, span: Span) -> Location {
        Location::new(self.uri.clone(), self.range(span))
    }

    /// The declaration named at `pos`.
    fn def_at(&self, pos: Position) -> Option<&Def> {
        let offset = self.lines.offset(&self.text, pos);
        self.index.at(offset).map(|d| &self.index.defs[d])
    }

    /// Where the name at `pos` is declared (every declaring occurrence, for a GDL relation).
    pub fn definition(&self, pos: Position) -> Vec<Location> {
        let Some(d) = self.def_at(pos) else {
            return Vec::new();
        };
        std::iter::once(d.name_span)
            .chain(d.more.iter().copied())
            .map(|s| self.location(s))
            .collect()
    }

    /// Every occurrence of the name at `pos` (its declaration too when `declaration`).
    pub fn references(&self, pos: Position, declaration: bool) -> Vec<Location> {
        let offset = self.lines.offset(&self.text, pos);
        let Some(id) = self.index.at(offset) else {
            return Vec::new();
        };
        let d = &self.index.defs[id];
        self.index
            .occurrences(id)
            .into_iter()
            .filter(|s| declaration || (*s != d.name_span && !d.more.contains(s)))
            .map(|s| self.location(s))
            .collect()
    }

    /// What the name at `pos` is: its kind, a summary and its declaration.
    pub fn hover(&self, pos: Position) -> Option<Hover> {
        let offset = self.lines.offset(&self.text, pos);
        let id = self.index.at(offset)?;
        let d = &self.index.defs[id];
        let span = self
            .index
            .refs
            .iter()
            .find(|&&((s, e), r)| r == id && s <= offset && offset <= e)
            .map(|&(s, _)| s);
        let mut value = if d.summary.is_empty() {
            format!("{} `{}`", d.kind.describe(), d.name)
        } else {
            d.summary.clone()
        };
        if !d.detail.is_empty() {
            value.push_str(&format!("\n\n```{}\n{}\n```", self.lang.name(), d.detail));
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: span.map(|s| self.range(s)),
        })
    }

    /// The outline: global declarations, with a domain's symbols, a graph's parameters and a
    /// macro's parameters under them.
    #[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out
    pub fn symbols(&self) -> Vec<DocumentSymbol> {
        let defs = &self.index.defs;
        let make = |d: &Def| DocumentSymbol {
            name: d.name.clone(),
            detail: Some(d.kind.describe().to_owned()),
            kind: symbol_kind(d.kind),
            tags: None,
            deprecated: None,
            range: self.range((d.decl.0.min(d.name_span.0), d.decl.1.max(d.name_span.1))),
            selection_range: self.range(d.name_span),
            children: None,
        };
        let mut children: HashMap<usize, Vec<DocumentSymbol>> = HashMap::new();
        for d in defs {
            if let Some(p) = d.parent
                && matches!(d.kind, Kind::Symbol | Kind::Parameter)
            {
                children.entry(p).or_default().push(make(d));
            }
        }
        defs.iter()
            .enumerate()
            .filter(|(_, d)| d.parent.is_none() && d.scope.is_none())
            .map(|(i, d)| DocumentSymbol {
                children: children.remove(&i),
                ..make(d)
            })
            .collect()
    }

    /// The names visible at `pos` and the language's keywords.
    pub fn completion(&self, pos: Position) -> Vec<CompletionItem> {
        let offset = self.lines.offset(&self.text, pos);
        let mut seen = BTreeSet::new();
        let mut items = Vec::new();
        for d in self.index.visible(offset) {
            if seen.insert(d.name.clone()) {
                items.push(CompletionItem {
                    label: d.name.clone(),
                    kind: Some(completion_kind(d.kind)),
                    detail: Some(d.kind.describe().to_owned()),
                    ..CompletionItem::default()
                });
            }
        }
        for &k in keywords(self.lang) {
            if seen.insert(k.to_owned()) {
                items.push(CompletionItem {
                    label: k.to_owned(),
                    kind: Some(CompletionItemKind::KEYWORD),
                    ..CompletionItem::default()
                });
            }
        }
        items
    }

    /// The document in canonical form, as `rgt fmt` prints it: one edit replacing the whole
    /// text, none when it is canonical already, `None` when the language has no formatter that
    /// keeps comments (KIF, RBG) or the text does not parse (the diagnostics say why).
    pub fn formatting(&self) -> Option<Vec<TextEdit>> {
        let file = FileId(0);
        let formatted = crate::check::guarded_value(|| match self.lang {
            Lang::Rg => rg_core::format::format(file, &self.text).ok(),
            Lang::Hrg => front_hrg::format(file, &self.text).ok(),
            Lang::Lg => front_linegames::format(file, &self.text).ok(),
            Lang::Kif | Lang::Rbg => None,
        })??;
        if formatted == self.text {
            return Some(Vec::new());
        }
        Some(vec![TextEdit::new(
            self.range((0, self.text.len())),
            formatted,
        )])
    }

    /// A quick fix for each diagnostic that suggests a replacement for the name it points at.
    pub fn code_actions(&self, diagnostics: &[lsp_types::Diagnostic]) -> Vec<CodeActionOrCommand> {
        let mut actions = Vec::new();
        for d in diagnostics {
            let replacement = d
                .data
                .as_ref()
                .and_then(|v| v.get("replacement"))
                .and_then(|v| v.as_str())
                .map(str::to_owned)
                .or_else(|| suggestion(&d.message));
            let Some(replacement) = replacement else {
                continue;
            };
            let start = self.lines.offset(&self.text, d.range.start);
            let end = self.lines.offset(&self.text, d.range.end);
            let current = self.text.get(start..end).unwrap_or("");
            let is_name = !current.is_empty()
                && current
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-?".contains(c));
            if !is_name || current == replacement {
                continue;
            }
            let edit = TextEdit::new(d.range, replacement.clone());
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Replace `{current}` with `{replacement}`"),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(self.uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            }));
        }
        actions
    }
}

/// The name a "did you mean `x`?" text suggests.
pub fn suggestion(text: &str) -> Option<String> {
    let rest = &text[text.find("did you mean ")? + "did you mean ".len()..];
    let rest = rest
        .strip_prefix("a ")
        .or_else(|| rest.strip_prefix("an "))
        .unwrap_or(rest);
    let inner = rest.strip_prefix('`')?;
    let name = &inner[..inner.find('`')?];
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_owned())
}

fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rg => &["type", "const", "var", "begin", "end"],
        Lang::Hrg => &[
            "domain", "graph", "reusable", "where", "in", "if", "then", "else", "branch", "or",
            "loop", "repeat", "while", "check", "end", "return", "break", "continue", "player",
            "goals", "keeper",
        ],
        Lang::Rbg => &["#players", "#pieces", "#variables", "#board", "#rules"],
        Lang::Kif => &[
            "<=", "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct",
            "not", "or", "base", "input", "random", "sees",
        ],
        Lang::Lg => &[],
    }
}

fn symbol_kind(k: Kind) -> SymbolKind {
    match k {
        Kind::Type => SymbolKind::ENUM,
        Kind::Symbol | Kind::Piece | Kind::Direction => SymbolKind::ENUM_MEMBER,
        Kind::Constant | Kind::Player => SymbolKind::CONSTANT,
        Kind::Variable | Kind::Parameter | Kind::Local => SymbolKind::VARIABLE,
        Kind::Node => SymbolKind::KEY,
        Kind::Function | Kind::Macro | Kind::Relation => SymbolKind::FUNCTION,
        Kind::Graph => SymbolKind::MODULE,
        Kind::Term => SymbolKind::CONSTRUCTOR,
    }
}

fn completion_kind(k: Kind) -> CompletionItemKind {
    match k {
        Kind::Type => CompletionItemKind::ENUM,
        Kind::Symbol | Kind::Piece | Kind::Direction => CompletionItemKind::ENUM_MEMBER,
        Kind::Constant | Kind::Player => CompletionItemKind::CONSTANT,
        Kind::Variable | Kind::Parameter | Kind::Local => CompletionItemKind::VARIABLE,
        Kind::Node => CompletionItemKind::REFERENCE,
        Kind::Function | Kind::Macro | Kind::Relation => CompletionItemKind::FUNCTION,
        Kind::Graph => CompletionItemKind::MODULE,
        Kind::Term => CompletionItemKind::CONSTRUCTOR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_read_from_help_texts() {
        assert_eq!(suggestion("did you mean `turn`?").as_deref(), Some("turn"));
        assert_eq!(
            suggestion("x; did you mean a `Piece`?").as_deref(),
            Some("Piece")
        );
        assert_eq!(suggestion("did you mean it?"), None);
        assert_eq!(suggestion("no suggestion"), None);
    }
}
