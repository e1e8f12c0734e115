//! From S-expressions to the normalised [`Program`], checking the shape of every form (a fact
//! is a sentence, a rule `(<= head body…)`) and normalising:
//!
//! * keywords are recognised case-insensitively (and printed in lower case);
//! * `(p)` is the sentence `p` and `(f)` the constant `f` (W-PARSE-007);
//! * `(<= h)` is the fact `h` (W-PARSE-008);
//! * `(and …)` in a body is flattened (W-PARSE-009);
//! * bodies are put in disjunctive normal form, one rule per disjunct: `(not (or a b))`
//!   becomes `(not a) (not b)`, `(not (not a))` becomes `a` (W-VAL-016 for these non-standard
//!   nestings), `(not (and …))` is E-VAL-012, `(or)` is false (W-VAL-011);
//! * `(not (distinct s t))` unifies `s` and `t` (full unification, compound terms included)
//!   and applies the unifier to the whole rule; a rule whose terms do not unify is dropped;
//! * rules identical up to variable renaming are kept once.
//!
//! The structural errors (E-PARSE-003…005: a form that is no sentence, a malformed rule or
//! literal) and the symbol warnings W-LEX-010 (unusual
//! characters) and W-LEX-011 (two spellings of one symbol) are found here too. A top-level list
//! whose first element is a list is a wrapper: its forms are read as top-level forms.

use crate::ast::{Atom, Literal, Program, RelId, Rule, Sym, Term, TermId, VarId};
use crate::error::{Code, GdlDiagnostic, Sink};
use crate::lexer::is_usual_char;
use crate::reader::{Sexp, SexpKind};
use rg_core::{EntityId, Span};
use rustc_hash::FxHashSet;

/// The most rules one source form may expand to (E-VAL-017 beyond).
pub const MAX_EXPANSION: usize = 1 << 16;

/// One conjunct of a disjunct: a literal, or an equality from `(not (distinct s t))`.
#[derive(Clone, Copy, Debug)]
enum Item {
    Lit(Literal),
    Eq(TermId, TermId),
}

/// A disjunctive normal form: a list of conjunctions.
type Dnf = Vec<Vec<Item>>;

/// Where a sentence is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Head,
    Body,
}

/// The variables of the form being read (few: a linear search beats hashing).
#[derive(Default)]
struct FormVars<'a> {
    /// Name, first spelling and first location of each raw variable, by raw id.
    names: Vec<(Sym, &'a str, Span)>,
}

/// Builds a program from the forms of one file.
pub(crate) struct Builder<'a, 's> {
    program: Program,
    sink: &'s mut Sink,
    /// First constant spelling and location of each symbol (for W-LEX-011).
    first: Vec<Option<(&'a str, Span)>>,
    /// Spellings already reported for W-LEX-011.
    reported_case: FxHashSet<(Sym, &'a str)>,
    /// Symbols already checked for W-LEX-010.
    checked_chars: Vec<bool>,
    vars: FormVars<'a>,
    /// Encoded rules seen so far (rules identical up to variable renaming are kept once).
    seen: FxHashSet<Vec<u32>>,
}

impl<'a, 's> Builder<'a, 's> {
    pub(crate) fn new(program: Program, sink: &'s mut Sink) -> Self {
        Builder {
            program,
            sink,
            first: Vec::new(),
            reported_case: FxHashSet::default(),
            checked_chars: Vec::new(),
            vars: FormVars::default(),
            seen: FxHashSet::default(),
        }
    }

    pub(crate) fn finish(self) -> Program {
        self.program
    }

    fn warn(&mut self, d: GdlDiagnostic) {
        self.sink.push(d);
    }

    /// Interns a word as a constant/function/relation name, with the symbol warnings.
    fn symbol(&mut self, word: &'a str, span: Span) -> Sym {
        let sym = self.program.symbols.intern_as(word, true);
        if sym.is_keyword() {
            return sym;
        }
        let i = sym.index();
        if self.first.len() <= i {
            self.first.resize(i + 1, None);
        }
        match self.first[i] {
            None => self.first[i] = Some((word, span)),
            Some((first, first_span)) => {
                if first != word && self.reported_case.insert((sym, word)) {
                    self.warn(
                        GdlDiagnostic::new(
                            Code::InconsistentCase,
                            span,
                            format!(
                                "`{first}` and `{word}` differ only in case; they are treated as \
                                 the same symbol"
                            ),
                        )
                        .with_label(format!("`{word}`"))
                        .with_secondary(first_span, format!("`{first}` first"))
                        .with_help(format!("spell it `{first}` everywhere")),
                    );
                }
            }
        }
        self.check_chars(sym, word, span);
        sym
    }

    /// W-LEX-010, once per symbol.
    fn check_chars(&mut self, sym: Sym, word: &str, span: Span) {
        let i = sym.index();
        if self.checked_chars.len() <= i {
            self.checked_chars.resize(i + 1, false);
        }
        if std::mem::replace(&mut self.checked_chars[i], true) {
            return;
        }
        let mut unusual: Vec<char> = word.chars().filter(|&c| !is_usual_char(c)).collect();
        if unusual.is_empty() {
            return;
        }
        unusual.dedup();
        let list: Vec<String> = unusual.iter().map(|c| format!("`{c}`")).collect();
        self.warn(
            GdlDiagnostic::new(
                Code::UnusualCharacters,
                span,
                format!(
                    "unusual characters {} in `{word}`; other GDL tools may not accept them",
                    list.join(" ")
                ),
            )
            .with_help("portable GDL names use only letters, digits, `_` and `-`"),
        );
    }

    /// The raw id of variable `?name` in the current form.
    fn variable(&mut self, name: &'a str, span: Span) -> VarId {
        let sym = self.program.symbols.intern_as(name, false);
        if let Some(v) = self.vars.names.iter().position(|n| n.0 == sym) {
            let v = VarId::new(v);
            let (_, first, first_span) = self.vars.names[v.index()];
            if first != name {
                self.warn(
                    GdlDiagnostic::new(
                        Code::InconsistentCase,
                        span,
                        format!(
                            "`?{first}` and `?{name}` differ only in case; they are the same \
                             variable"
                        ),
                    )
                    .with_label(format!("`?{name}`"))
                    .with_secondary(first_span, format!("`?{first}` first"))
                    .with_help(format!("spell it `?{first}` everywhere in this rule")),
                );
                // Report each spelling once per form.
                self.vars.names[v.index()].1 = name;
            }
            return v;
        }
        self.check_chars(sym, name, span);
        let v = VarId::new(self.vars.names.len());
        self.vars.names.push((sym, name, span));
        v
    }

    /// Reads one top-level form (splicing wrappers).
    pub(crate) fn form(&mut self, sexp: &Sexp<'a>) {
        if let SexpKind::List(items) = &sexp.kind {
            if let Some(Sexp {
                kind: SexpKind::List(_),
                ..
            }) = items.first()
            {
                for item in items {
                    self.form(item);
                }
                return;
            }
        }
        self.vars.names.clear();
        let (head, body) = match &sexp.kind {
            SexpKind::List(items)
                if items
                    .first()
                    .and_then(Sexp::as_const)
                    .is_some_and(|w| w == "<=") =>
            {
                let Some(head) = items.get(1) else {
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::NotASentence,
                            sexp.span,
                            "the head of a rule must be a relation sentence, found nothing",
                        )
                        .with_help("a rule reads `(<= head literal…)`"),
                    );
                    return;
                };
                if items.len() == 2 {
                    self.warn(
                        GdlDiagnostic::new(
                            Code::EmptyBody,
                            sexp.span,
                            "rule with an empty body; write the fact",
                        )
                        .with_help("a rule without body literals is the same as its head alone"),
                    );
                }
                (head, &items[2..])
            }
            _ => (sexp, &[][..]),
        };
        let head = self.sentence(head, Place::Head);
        let mut dnf: Option<Dnf> = Some(vec![Vec::new()]);
        for lit in body {
            let d = self.literal(lit, false, false);
            dnf = match (dnf, d) {
                (Some(a), Some(b)) => self.product(a, b, sexp.span),
                _ => None,
            };
        }
        let (Some(head), Some(dnf)) = (head, dnf) else {
            return;
        };
        for conj in dnf {
            self.emit_rule(head, &conj, sexp.span);
        }
    }

    /// The conjunction of two DNFs, or E-VAL-017 when it gets too large.
    fn product(&mut self, a: Dnf, b: Dnf, span: Span) -> Option<Dnf> {
        if a.len().saturating_mul(b.len()) > MAX_EXPANSION {
            return self.too_many(span);
        }
        if b.len() == 1 {
            let mut a = a;
            for conj in &mut a {
                conj.extend_from_slice(&b[0]);
            }
            return Some(a);
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in &a {
            for y in &b {
                let mut c = x.clone();
                c.extend_from_slice(y);
                out.push(c);
            }
        }
        Some(out)
    }

    /// E-VAL-017.
    fn too_many(&mut self, span: Span) -> Option<Dnf> {
        self.sink.push(
            GdlDiagnostic::new(
                Code::TooManyDisjuncts,
                span,
                format!("the disjunctions of this rule expand to more than {MAX_EXPANSION} rules"),
            )
            .with_help("define the disjunctions as separate relations"),
        );
        None
    }

    /// The DNF of a body literal (negated when `negated`). `in_or` says whether the literal is
    /// a disjunct (for the nested-`or` warning).
    fn literal(&mut self, sexp: &Sexp<'a>, negated: bool, in_or: bool) -> Option<Dnf> {
        let atom_dnf = |atom: Atom| {
            Some(vec![vec![Item::Lit(if negated {
                Literal::Neg(atom)
            } else {
                Literal::Pos(atom)
            })]])
        };
        let SexpKind::List(items) = &sexp.kind else {
            return atom_dnf(self.sentence(sexp, Place::Body)?);
        };
        let Some(kw) = items.first().and_then(Sexp::as_const) else {
            return atom_dnf(self.sentence(sexp, Place::Body)?);
        };
        let args = &items[1..];
        let is = |name: &str| kw.eq_ignore_ascii_case(name);
        if is("not") {
            if args.len() != 1 {
                self.connective_arity(sexp, "not", "one literal", args.len());
                return None;
            }
            let inner = &args[0];
            let rewrite = match nested_connective(inner) {
                Some("or") => {
                    "`(not (or a b …))` is not standard GDL; rewritten as `(not a) (not b) …`"
                }
                Some("not") => "`(not (not a))` is not standard GDL; rewritten as `a`",
                Some("distinct") => {
                    "`(not (distinct s t))` is not standard GDL; rewritten by unifying `s` and `t`"
                }
                _ => "",
            };
            if !rewrite.is_empty() {
                self.warn(GdlDiagnostic::new(
                    Code::NestedConnective,
                    sexp.span,
                    rewrite,
                ));
            }
            return self.literal(inner, !negated, false);
        }
        if is("or") {
            if args.is_empty() {
                self.warn(
                    GdlDiagnostic::new(
                        Code::EmptyOr,
                        sexp.span,
                        "empty disjunction is always false",
                    )
                    .with_help("a rule with `(or)` in its body never applies; it is dropped"),
                );
            }
            if in_or && !negated {
                self.warn(GdlDiagnostic::new(
                    Code::NestedConnective,
                    sexp.span,
                    "`or` inside `or` is not standard GDL; its disjuncts were added to the outer `or`",
                ));
            }
            let parts: Vec<Option<Dnf>> = args
                .iter()
                .map(|a| self.literal(a, negated, !negated))
                .collect();
            let parts: Vec<Dnf> = parts.into_iter().collect::<Option<_>>()?;
            return if negated {
                // ¬(a ∨ b) = ¬a ∧ ¬b
                let mut acc: Dnf = vec![Vec::new()];
                for p in parts {
                    acc = self.product(acc, p, sexp.span)?;
                }
                Some(acc)
            } else {
                let total: usize = parts.iter().map(Vec::len).sum();
                if total > MAX_EXPANSION {
                    return self.too_many(sexp.span);
                }
                Some(parts.into_iter().flatten().collect())
            };
        }
        if is("and") {
            if negated {
                self.sink.push(
                    GdlDiagnostic::new(
                        Code::NegatedNonLiteral,
                        sexp.span,
                        "only sentences can be negated",
                    )
                    .with_label("`and` under `not`")
                    .with_help("negate a helper relation defined by the conjunction instead"),
                );
                return None;
            }
            self.warn(
                GdlDiagnostic::new(
                    Code::AndInBody,
                    sexp.span,
                    "`and` is not GDL; its literals were added to the body",
                )
                .with_help("list the literals directly in the rule body"),
            );
            let mut acc: Dnf = vec![Vec::new()];
            let mut ok = true;
            for a in args {
                match self.literal(a, false, false) {
                    Some(d) if ok => match self.product(acc.clone(), d, sexp.span) {
                        Some(p) => acc = p,
                        None => ok = false,
                    },
                    _ => ok = false,
                }
            }
            return ok.then_some(acc);
        }
        if is("distinct") {
            if args.len() != 2 {
                self.connective_arity(sexp, "distinct", "two terms", args.len());
                for a in args {
                    self.term(a);
                }
                return None;
            }
            let left = self.term(&args[0]);
            let right = self.term(&args[1]);
            let (left, right) = (left?, right?);
            return Some(vec![vec![if negated {
                Item::Eq(left, right)
            } else {
                Item::Lit(Literal::Distinct {
                    left,
                    right,
                    span: sexp.span,
                })
            }]]);
        }
        atom_dnf(self.sentence(sexp, Place::Body)?)
    }

    /// E-PARSE-005 for a connective with the wrong number of arguments.
    fn connective_arity(&mut self, sexp: &Sexp<'a>, kw: &str, takes: &str, found: usize) {
        self.sink.push(
            GdlDiagnostic::new(
                Code::MisplacedConnective,
                sexp.span,
                format!("`{kw}` is a connective and cannot be used here: it takes exactly {takes}, found {found}"),
            )
            .with_help(match kw {
                "not" => "write `(not literal)`, one literal per `not`",
                _ => "write `(distinct s t)` with two terms",
            }),
        );
    }

    /// E-PARSE-005 for a connective keyword where a sentence or term is expected.
    fn misplaced_connective(&mut self, word: &str, span: Span, place: &str) {
        self.sink.push(
            GdlDiagnostic::new(
                Code::MisplacedConnective,
                span,
                format!("`{word}` is a connective and cannot be used here"),
            )
            .with_label(place.to_owned()),
        );
    }

    /// A relation sentence: `p` or `(p t…)`.
    fn sentence(&mut self, sexp: &Sexp<'a>, place: Place) -> Option<Atom> {
        let what = match place {
            Place::Head => "the head of a rule must be a relation sentence",
            Place::Body => "a rule body holds sentences, `not`, `or` and `distinct` only",
        };
        match &sexp.kind {
            SexpKind::Var(v) => {
                self.sink.push(
                    GdlDiagnostic::new(
                        Code::NotASentence,
                        sexp.span,
                        format!("{what}, found the variable `?{v}`"),
                    )
                    .with_help("GDL is first order: a sentence starts with a relation name"),
                );
                None
            }
            SexpKind::Const(w) => {
                let sym = self.symbol(w, sexp.span);
                if sym.is_connective() {
                    self.misplaced_connective(w, sexp.span, "a sentence is expected here");
                    return None;
                }
                let rel = self.program.relation(sym, 0, Some(sexp.span));
                Some(self.atom(rel, &[], sexp.span))
            }
            SexpKind::List(items) => {
                let Some(first) = items.first() else {
                    self.empty_list(sexp.span);
                    return None;
                };
                let name = match &first.kind {
                    SexpKind::Const(w) => *w,
                    other => {
                        let found = match other {
                            SexpKind::Var(v) => {
                                format!("a sentence starting with the variable `?{v}`")
                            }
                            _ => "a list starting with a list".to_owned(),
                        };
                        self.sink.push(
                            GdlDiagnostic::new(
                                Code::NotASentence,
                                sexp.span,
                                format!("{what}, found {found}"),
                            )
                            .with_help(
                                "a sentence reads `(relation term…)` with a constant relation name",
                            ),
                        );
                        return None;
                    }
                };
                let sym = self.symbol(name, first.span);
                if sym.is_connective() {
                    self.misplaced_connective(
                        name,
                        first.span,
                        match place {
                            Place::Head => "a rule head must be a relation sentence",
                            Place::Body => "not allowed inside a sentence",
                        },
                    );
                    return None;
                }
                let args = &items[1..];
                if args.is_empty() {
                    self.unnecessary_parens(name, sexp.span);
                }
                let terms = self.terms(args)?;
                let rel = self
                    .program
                    .relation(sym, terms.len() as u32, Some(sexp.span));
                Some(self.atom(rel, &terms, sexp.span))
            }
        }
    }

    fn atom(&mut self, rel: RelId, terms: &[TermId], span: Span) -> Atom {
        Atom {
            rel,
            args: self.program.add_args(terms),
            span,
        }
    }

    fn empty_list(&mut self, span: Span) {
        self.sink.push(
            GdlDiagnostic::new(Code::EmptyList, span, "empty list")
                .with_help("`()` is neither a sentence nor a term; remove it"),
        );
    }

    fn unnecessary_parens(&mut self, name: &str, span: Span) {
        self.warn(
            GdlDiagnostic::new(
                Code::UnnecessaryParens,
                span,
                format!("unnecessary parentheses: `({name})` is the same as `{name}`"),
            )
            .with_help(format!("write `{name}`")),
        );
    }

    /// Argument terms; every one is read (to report all errors) before giving up.
    fn terms(&mut self, args: &[Sexp<'a>]) -> Option<Vec<TermId>> {
        let terms: Vec<Option<TermId>> = args.iter().map(|a| self.term(a)).collect();
        terms.into_iter().collect()
    }

    /// A term: a variable, a constant or `(f t…)`.
    fn term(&mut self, sexp: &Sexp<'a>) -> Option<TermId> {
        match &sexp.kind {
            SexpKind::Var(v) => {
                let id = self.variable(v, sexp.span);
                Some(self.program.add_term(Term::Var(id), sexp.span))
            }
            SexpKind::Const(w) => {
                let sym = self.symbol(w, sexp.span);
                if sym.is_connective() && sym != Sym::AND {
                    self.misplaced_connective(w, sexp.span, "a term is expected here");
                    return None;
                }
                Some(self.program.add_term(Term::Const(sym), sexp.span))
            }
            SexpKind::List(items) => {
                let Some(first) = items.first() else {
                    self.empty_list(sexp.span);
                    return None;
                };
                let SexpKind::Const(name) = first.kind else {
                    self.sink.push(
                        GdlDiagnostic::new(
                            Code::NotASentence,
                            first.span,
                            "a compound term must start with a function name",
                        )
                        .with_help("a term reads `constant`, `?variable` or `(function term…)`"),
                    );
                    return None;
                };
                let sym = self.symbol(name, first.span);
                if sym.is_connective() && sym != Sym::AND {
                    self.misplaced_connective(name, first.span, "a term is expected here");
                    return None;
                }
                let args = &items[1..];
                if args.is_empty() {
                    self.unnecessary_parens(name, sexp.span);
                    return Some(self.program.add_term(Term::Const(sym), sexp.span));
                }
                let terms = self.terms(args)?;
                let args = self.program.add_args(&terms);
                Some(self.program.add_term(Term::Fn(sym, args), sexp.span))
            }
        }
    }

    /// Adds the rule `head ⇐ conj` once its equalities (from `(not (distinct s t))`) are solved
    /// by unification and its variables renumbered, unless it is a duplicate or its equalities
    /// do not unify.
    fn emit_rule(&mut self, head: Atom, conj: &[Item], span: Span) {
        let raw_vars = self.vars.names.len();
        let mut subst: Vec<Option<TermId>> = vec![None; raw_vars];
        let mut has_eq = false;
        for item in conj {
            if let Item::Eq(a, b) = *item {
                has_eq = true;
                if !unify(&self.program, &mut subst, a, b) {
                    return;
                }
            }
        }
        let body: Vec<Literal> = conj
            .iter()
            .filter_map(|i| match i {
                Item::Lit(l) => Some(*l),
                Item::Eq(..) => None,
            })
            .collect();
        let rule = if !has_eq && numbering_is_identity(&self.program, &head, &body, raw_vars) {
            Rule {
                head,
                body,
                vars: self.vars.names.iter().map(|&(s, _, _)| s).collect(),
                span,
            }
        } else {
            let mut copier = Copier {
                subst: &subst,
                map: vec![None; raw_vars],
                vars: Vec::new(),
                names: &self.vars.names,
            };
            let head = copier.atom(&mut self.program, &head);
            let body = body
                .iter()
                .map(|l| match *l {
                    Literal::Pos(a) => Literal::Pos(copier.atom(&mut self.program, &a)),
                    Literal::Neg(a) => Literal::Neg(copier.atom(&mut self.program, &a)),
                    Literal::Distinct { left, right, span } => Literal::Distinct {
                        left: copier.term(&mut self.program, left),
                        right: copier.term(&mut self.program, right),
                        span,
                    },
                })
                .collect();
            Rule {
                head,
                body,
                vars: copier.vars,
                span,
            }
        };
        let mut rule = rule;
        dedup_literals(&self.program, &mut rule.body);
        if self.seen.insert(encode(&self.program, &rule)) {
            self.program.rules.push(rule);
        }
    }
}

/// Removes repeated literals from a body (an `or` case can repeat a literal of the rule).
fn dedup_literals(p: &Program, body: &mut Vec<Literal>) {
    let atom_eq = |a: &Atom, b: &Atom| {
        a.rel == b.rel
            && p.args(a.args)
                .iter()
                .zip(p.args(b.args))
                .all(|(&x, &y)| p.term_eq(x, y))
    };
    let same = |a: &Literal, b: &Literal| match (a, b) {
        (Literal::Pos(x), Literal::Pos(y)) | (Literal::Neg(x), Literal::Neg(y)) => atom_eq(x, y),
        (
            Literal::Distinct { left, right, .. },
            Literal::Distinct {
                left: l2,
                right: r2,
                ..
            },
        ) => p.term_eq(*left, *l2) && p.term_eq(*right, *r2),
        _ => false,
    };
    let mut kept: Vec<Literal> = Vec::with_capacity(body.len());
    for l in body.drain(..) {
        if !kept.iter().any(|k| same(k, &l)) {
            kept.push(l);
        }
    }
    *body = kept;
}

/// The connective a literal form starts with, if any (`not`, `or`, `and`, `distinct`).
fn nested_connective<'a>(sexp: &Sexp<'a>) -> Option<&'static str> {
    let SexpKind::List(items) = &sexp.kind else {
        return None;
    };
    let w = items.first()?.as_const()?;
    ["not", "or", "and", "distinct"]
        .into_iter()
        .find(|k| w.eq_ignore_ascii_case(k))
}

/// Whether the variables of the rule first occur in the order 0, 1, …, n-1 (head, then the
/// body in order, as the raw numbering and [`Copier`] go) and all n occur.
fn numbering_is_identity(p: &Program, head: &Atom, body: &[Literal], n: usize) -> bool {
    let mut next = 0usize;
    let mut ok = true;
    let mut visit = |v: VarId, _| {
        if v.index() == next {
            next += 1;
        } else if v.index() > next {
            ok = false;
        }
    };
    for &t in p.args(head.args) {
        p.for_each_var(t, &mut visit);
    }
    for l in body {
        match *l {
            Literal::Pos(a) | Literal::Neg(a) => {
                for &t in p.args(a.args) {
                    p.for_each_var(t, &mut visit);
                }
            }
            Literal::Distinct { left, right, .. } => {
                p.for_each_var(left, &mut visit);
                p.for_each_var(right, &mut visit);
            }
        }
    }
    ok && next == n
}

/// Follows variable bindings.
fn walk(p: &Program, subst: &[Option<TermId>], mut t: TermId) -> TermId {
    while let Term::Var(v) = p.term(t) {
        match subst[v.index()] {
            Some(b) => t = b,
            None => break,
        }
    }
    t
}

/// Whether variable `v` occurs in `t` (under `subst`).
fn occurs(p: &Program, subst: &[Option<TermId>], v: VarId, t: TermId) -> bool {
    match p.term(walk(p, subst, t)) {
        Term::Var(w) => w == v,
        Term::Const(_) => false,
        Term::Fn(_, args) => p.args(args).iter().any(|&a| occurs(p, subst, v, a)),
    }
}

/// Unifies two terms of one rule, extending `subst` (with occurs check).
fn unify(p: &Program, subst: &mut [Option<TermId>], a: TermId, b: TermId) -> bool {
    let (a, b) = (walk(p, subst, a), walk(p, subst, b));
    match (p.term(a), p.term(b)) {
        (Term::Var(x), Term::Var(y)) if x == y => true,
        (Term::Var(x), _) => {
            if occurs(p, subst, x, b) {
                return false;
            }
            subst[x.index()] = Some(b);
            true
        }
        (_, Term::Var(y)) => {
            if occurs(p, subst, y, a) {
                return false;
            }
            subst[y.index()] = Some(a);
            true
        }
        (Term::Const(x), Term::Const(y)) => x == y,
        (Term::Fn(f, xs), Term::Fn(g, ys)) => {
            f == g
                && xs.len() == ys.len()
                && (0..xs.len()).all(|i| {
                    let (x, y) = (p.args(xs)[i], p.args(ys)[i]);
                    unify(p, subst, x, y)
                })
        }
        _ => false,
    }
}

/// Copies the terms of a rule, applying a substitution and numbering the variables by first
/// occurrence.
struct Copier<'c, 'a> {
    subst: &'c [Option<TermId>],
    map: Vec<Option<VarId>>,
    vars: Vec<Sym>,
    names: &'c [(Sym, &'a str, Span)],
}

impl Copier<'_, '_> {
    fn term(&mut self, p: &mut Program, t: TermId) -> TermId {
        let span = p.term_span(t);
        let t = walk(p, self.subst, t);
        match p.term(t) {
            Term::Var(v) => {
                let new = match self.map[v.index()] {
                    Some(n) => n,
                    None => {
                        let n = VarId::new(self.vars.len());
                        self.vars.push(self.names[v.index()].0);
                        self.map[v.index()] = Some(n);
                        n
                    }
                };
                p.add_term(Term::Var(new), span)
            }
            Term::Const(_) => t,
            Term::Fn(f, args) => {
                let span = p.term_span(t);
                let old: Vec<TermId> = p.args(args).to_vec();
                let new: Vec<TermId> = old.into_iter().map(|a| self.term(p, a)).collect();
                let args = p.add_args(&new);
                p.add_term(Term::Fn(f, args), span)
            }
        }
    }

    fn atom(&mut self, p: &mut Program, a: &Atom) -> Atom {
        let old: Vec<TermId> = p.args(a.args).to_vec();
        let new: Vec<TermId> = old.into_iter().map(|t| self.term(p, t)).collect();
        Atom {
            rel: a.rel,
            args: p.add_args(&new),
            span: a.span,
        }
    }
}

/// A rule as a flat key: equal keys ⇔ equal rules (variables are numbered canonically).
fn encode(p: &Program, rule: &Rule) -> Vec<u32> {
    fn term(p: &Program, t: TermId, out: &mut Vec<u32>) {
        match p.term(t) {
            Term::Var(v) => out.extend([0, v.0]),
            Term::Const(s) => out.extend([1, s.0]),
            Term::Fn(f, args) => {
                out.extend([2, f.0, args.len() as u32]);
                for &a in p.args(args) {
                    term(p, a, out);
                }
            }
        }
    }
    fn atom(p: &Program, a: &Atom, out: &mut Vec<u32>) {
        out.push(a.rel.0);
        for &t in p.args(a.args) {
            term(p, t, out);
        }
    }
    let mut out = Vec::with_capacity(16);
    atom(p, &rule.head, &mut out);
    for l in &rule.body {
        match l {
            Literal::Pos(a) => {
                out.push(u32::MAX);
                atom(p, a, &mut out);
            }
            Literal::Neg(a) => {
                out.push(u32::MAX - 1);
                atom(p, a, &mut out);
            }
            Literal::Distinct { left, right, .. } => {
                out.push(u32::MAX - 2);
                term(p, *left, &mut out);
                term(p, *right, &mut out);
            }
        }
    }
    out
}
