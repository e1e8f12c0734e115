//! HL-RBG directives and macro expansion: lazy, lexically scoped arguments,
//! visibility by directive order, overloading by arity, and token pasting with `~`.

use crate::error::{Code, RbgError};
use crate::syntax::Tok;
use rg_core::Span;
use std::rc::Rc;

pub(crate) struct Macro {
    name: String,
    params: Vec<String>,
    body: (usize, usize),
    order: usize,
}

pub(crate) struct Section {
    pub name: String,
    pub body: (usize, usize),
    pub order: usize,
    pub span: Span,
}

#[derive(Clone)]
struct Slice {
    start: usize,
    end: usize,
    env: Rc<Vec<(String, Slice)>>,
    order: usize,
    in_macro: bool,
}

pub(crate) struct Expander<'t> {
    toks: &'t [(Tok, Span)],
    macros: Vec<Macro>,
    depth: usize,
    /// For the last expanded section: per output token, the macro use it came from.
    pub origins: Vec<Option<Span>>,
    /// Tokens produced so far, at every level of expansion, and the most allowed: macros that
    /// use each other twice double at every level.
    produced: usize,
    limit: usize,
}

type R<T> = Result<T, RbgError>;

/// The names of the macros, each once, in order of definition.
pub(crate) fn names(macros: &[Macro]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    macros
        .iter()
        .filter(|m| seen.insert(m.name.as_str()))
        .map(|m| m.name.clone())
        .collect()
}

/// Splits the tokens at `#` into sections and macro definitions.
pub(crate) fn directives(toks: &[(Tok, Span)]) -> R<(Vec<Section>, Vec<Macro>)> {
    let mut sections = Vec::new();
    let mut macros = Vec::new();
    let n = toks.len() - 1; // the last token is Eof
    if n > 0 && toks[0].0 != Tok::P("#") {
        return Err(RbgError::new(
            Code::BadDirective,
            "an RBG file starts with a section such as `#board =`",
            toks[0].1,
        ));
    }
    let mut i = 0;
    let mut order = 0;
    while i < n {
        let hash = toks[i].1;
        i += 1;
        let Some((Tok::Ident(name), _)) = toks.get(i).filter(|_| i < n) else {
            return Err(RbgError::new(
                Code::BadDirective,
                "expected a section or macro name after `#`",
                hash,
            ));
        };
        let name = name.clone();
        i += 1;
        let mut params = Vec::new();
        let is_section = matches!(
            name.as_str(),
            "players" | "pieces" | "variables" | "board" | "rules"
        );
        if !is_section && i < n && toks[i].0 == Tok::P("(") {
            i += 1;
            loop {
                match toks.get(i).map(|t| &t.0) {
                    Some(Tok::Ident(p)) if i < n => {
                        if params.contains(p) {
                            return Err(RbgError::new(
                                Code::BadDirective,
                                format!("parameter `{p}` appears twice"),
                                toks[i].1,
                            ));
                        }
                        params.push(p.clone());
                        i += 1;
                    }
                    _ => {
                        return Err(RbgError::new(
                            Code::BadDirective,
                            "expected a parameter name",
                            toks[i.min(n)].1,
                        ));
                    }
                }
                match toks.get(i).map(|t| &t.0) {
                    Some(Tok::P(";")) => i += 1,
                    Some(Tok::P(")")) => {
                        i += 1;
                        break;
                    }
                    _ => {
                        return Err(RbgError::new(
                            Code::BadDirective,
                            "expected `;` or `)`",
                            toks[i.min(n)].1,
                        ));
                    }
                }
            }
        }
        if i >= n || toks[i].0 != Tok::P("=") {
            return Err(RbgError::new(
                Code::BadDirective,
                format!("expected `=` after `#{name}`"),
                toks[i.min(n)].1,
            ));
        }
        i += 1;
        let start = i;
        while i < n && toks[i].0 != Tok::P("#") {
            i += 1;
        }
        if is_section {
            sections.push(Section {
                name,
                body: (start, i),
                order,
                span: hash,
            });
        } else {
            if macros
                .iter()
                .any(|m: &Macro| m.name == name && (m.params.is_empty() != params.is_empty()))
            {
                return Err(RbgError::new(
                    Code::DuplicateMacro,
                    format!("macro `{name}` is defined both with and without parameters"),
                    hash,
                ));
            }
            if macros
                .iter()
                .any(|m: &Macro| m.name == name && m.params.len() == params.len())
            {
                return Err(RbgError::new(
                    Code::DuplicateMacro,
                    format!(
                        "macro `{name}` with {} parameters is defined twice",
                        params.len()
                    ),
                    hash,
                ));
            }
            macros.push(Macro {
                name,
                params,
                body: (start, i),
                order,
            });
        }
        order += 1;
    }
    Ok((sections, macros))
}

fn paste(a: &(Tok, Span), b: &(Tok, Span)) -> R<(Tok, Span)> {
    let span = a.1.to(b.1);
    let t = match (&a.0, &b.0) {
        (Tok::Ident(x), Tok::Ident(y)) => Tok::Ident(format!("{x}{y}")),
        (Tok::Ident(x), Tok::Num(y)) => Tok::Ident(format!("{x}{y}")),
        (Tok::Num(x), Tok::Num(y)) => {
            let s = format!("{x}{y}");
            Tok::Num(
                s.parse()
                    .map_err(|_| RbgError::new(Code::NumberTooLarge, "too large integer", span))?,
            )
        }
        (Tok::P(p), Tok::P(q)) => match (*p, *q) {
            ("-", ">") => Tok::P("->"),
            ("->", ">") => Tok::P("->>"),
            ("+", ">") => Tok::P("+>"),
            ("{", "?") => Tok::P("{?"),
            ("{", "!") => Tok::P("{!"),
            ("{", "$") => Tok::P("{$"),
            ("[", "$") => Tok::P("[$"),
            ("<", "=") => Tok::P("<="),
            (">", "=") => Tok::P(">="),
            ("=", "=") => Tok::P("=="),
            ("!", "=") => Tok::P("!="),
            _ => {
                return Err(RbgError::new(
                    Code::BadPaste,
                    "pasting these tokens does not give a token",
                    span,
                ));
            }
        },
        _ => {
            return Err(RbgError::new(
                Code::BadPaste,
                "pasting these tokens does not give a token",
                span,
            ));
        }
    };
    Ok((t, span))
}

impl<'t> Expander<'t> {
    /// An expander that produces at most `limit` tokens per section and `8 × limit` in all
    /// (counting the tokens of every level of nested expansion).
    pub fn new(toks: &'t [(Tok, Span)], macros: Vec<Macro>, limit: usize) -> Self {
        Expander {
            toks,
            macros,
            depth: 0,
            origins: Vec::new(),
            produced: 0,
            limit,
        }
    }

    /// Counts `n` more tokens in `out`; an error past the limits.
    fn produce(&mut self, out_len: usize, n: usize, at: Span) -> R<()> {
        self.produced = self.produced.saturating_add(n);
        if out_len > self.limit || self.produced > self.limit.saturating_mul(8) {
            return Err(RbgError::new(Code::TooLarge,
                format!(
                    "macro expansion makes more than {} tokens",
                    if out_len > self.limit {
                        self.limit
                    } else {
                        self.limit.saturating_mul(8)
                    }
                ),
                at,
            )
            .help("macros that use other macros several times grow exponentially; raise the limit with `--size-limit N`"));
        }
        Ok(())
    }

    /// The expanded tokens of a section body.
    pub fn section(&mut self, s: &Section) -> R<Vec<(Tok, Span)>> {
        let slice = Slice {
            start: s.body.0,
            end: s.body.1,
            env: Rc::new(Vec::new()),
            order: s.order,
            in_macro: false,
        };
        self.origins.clear();
        // A section is expanded from the top, whatever an error left in the one before.
        self.depth = 0;
        self.expand(&slice)
    }

    fn expand(&mut self, s: &Slice) -> R<Vec<(Tok, Span)>> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(RbgError::new(
                Code::MacroTooDeep,
                "macro expansion is too deep",
                self.toks[s.start.min(self.toks.len() - 1)].1,
            ));
        }
        let mut out: Vec<(Tok, Span)> = Vec::new();
        let mut i = s.start;
        while i < s.end {
            if self.toks[i].0 == Tok::P("~") {
                return Err(RbgError::new(
                    Code::BadPaste,
                    "unexpected `~`",
                    self.toks[i].1,
                ));
            }
            let (unit, next) = self.unit(s, i)?;
            if self.depth == 1 {
                // Section level: remember which macro use produced these tokens.
                let from_macro = next > i + 1 || unit.len() != 1 || unit[0].1 != self.toks[i].1;
                let origin = from_macro.then(|| self.toks[i].1.to(self.toks[next - 1].1));
                self.origins.extend(std::iter::repeat_n(origin, unit.len()));
            }
            self.produce(out.len() + unit.len(), unit.len(), self.toks[i].1)?;
            out.extend(unit);
            i = next;
            while i < s.end && self.toks[i].0 == Tok::P("~") {
                if !s.in_macro {
                    return Err(RbgError::new(
                        Code::BadPaste,
                        "tokens can be pasted only inside macros",
                        self.toks[i].1,
                    ));
                }
                if i + 1 >= s.end {
                    return Err(RbgError::new(
                        Code::BadPaste,
                        "`~` at the end of a body",
                        self.toks[i].1,
                    ));
                }
                let (unit2, next2) = self.unit(s, i + 1)?;
                // The pasted token is located at the pasting text of the body (`a~b`).
                let written = self.toks[i - 1].1.to(self.toks[next2 - 1].1);
                i = next2;
                let mut rest = unit2.into_iter();
                match (out.pop(), rest.next()) {
                    (Some(a), Some(b)) => {
                        let (t, _) = paste(&a, &b)?;
                        out.push((t, written));
                    }
                    (Some(a), None) => out.push(a),
                    (None, Some(b)) => out.push(b),
                    (None, None) => {}
                }
                out.extend(rest);
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    /// The expansion of the unit at `i` (a token, a parameter, a macro call) and the next index.
    fn unit(&mut self, s: &Slice, i: usize) -> R<(Vec<(Tok, Span)>, usize)> {
        let (tok, span) = &self.toks[i];
        let Tok::Ident(name) = tok else {
            return Ok((vec![(tok.clone(), *span)], i + 1));
        };
        if let Some((_, arg)) = s.env.iter().find(|(p, _)| p == name) {
            let arg = arg.clone();
            return Ok((self.expand(&arg)?, i + 1));
        }
        let visible: Vec<usize> = self
            .macros
            .iter()
            .enumerate()
            .filter(|(_, m)| m.name == *name && m.order < s.order)
            .map(|(k, _)| k)
            .collect();
        if visible.is_empty() {
            return Ok((vec![(tok.clone(), *span)], i + 1));
        }
        if let Some(&k) = visible.iter().find(|&&k| self.macros[k].params.is_empty()) {
            let m = &self.macros[k];
            let body = Slice {
                start: m.body.0,
                end: m.body.1,
                env: Rc::new(Vec::new()),
                order: m.order,
                in_macro: true,
            };
            return Ok((self.expand(&body)?, i + 1));
        }
        // A call: arguments split at `;` on round-parenthesis depth 0.
        if i + 1 >= s.end || self.toks[i + 1].0 != Tok::P("(") {
            return Err(RbgError::new(
                Code::MacroArity,
                format!("macro `{name}` needs arguments: expected `(`"),
                *span,
            ));
        }
        let mut args = Vec::new();
        let mut depth = 0;
        let mut j = i + 2;
        let mut arg_start = j;
        loop {
            if j >= s.end {
                return Err(RbgError::new(
                    Code::MacroArity,
                    format!("the arguments of `{name}` are not closed"),
                    *span,
                ));
            }
            match &self.toks[j].0 {
                Tok::P("(") => depth += 1,
                Tok::P(")") if depth == 0 => {
                    args.push((arg_start, j));
                    break;
                }
                Tok::P(")") => depth -= 1,
                Tok::P(";") if depth == 0 => {
                    args.push((arg_start, j));
                    arg_start = j + 1;
                }
                _ => {}
            }
            j += 1;
        }
        let Some(&k) = visible
            .iter()
            .find(|&&k| self.macros[k].params.len() == args.len())
        else {
            return Err(RbgError::new(
                Code::MacroArity,
                format!("no macro `{name}` takes {} arguments", args.len()),
                *span,
            ));
        };
        let m = &self.macros[k];
        let env: Vec<(String, Slice)> = m
            .params
            .iter()
            .zip(args)
            .map(|(p, (a, b))| {
                (
                    p.clone(),
                    Slice {
                        start: a,
                        end: b,
                        env: s.env.clone(),
                        order: s.order,
                        in_macro: s.in_macro,
                    },
                )
            })
            .collect();
        let body = Slice {
            start: m.body.0,
            end: m.body.1,
            env: Rc::new(env),
            order: m.order,
            in_macro: true,
        };
        Ok((self.expand(&body)?, j + 1))
    }
}
