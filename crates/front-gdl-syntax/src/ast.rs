//! The abstract syntax of a normalised GDL description: rules over atoms over terms.
//!
//! A [`Program`] is a list of [`Rule`]s `head ⇐ b1 ∧ … ∧ bn` (facts have no body) after the
//! normalisations of the reader: keywords folded, `(p)` read as `p`, `and` flattened,
//! disjunctions expanded into separate rules, `(not (distinct s t))` resolved by unification,
//! duplicate rules removed. Everything is index-based for the grounder:
//!
//! * [`Sym`] — an interned name (constant, function, relation or variable name) with
//!   case-folded identity (GDL is case-independent); [`Symbols::name`] gives its first-seen spelling. The
//!   GDL keywords have fixed symbols ([`Sym::ROLE`], [`Sym::TRUE`], …).
//! * [`RelId`] — a relation, identified by (name, arity): a name used with two arities is two
//!   relations (and a warning). The keyword
//!   relations with their catalogue arity have fixed ids ([`RelId::ROLE`], [`RelId::TRUE`], …)
//!   and exist in every program, used or not.
//! * [`TermId`] — one term *occurrence* in the program's term arena, with its span. Terms are
//!   immutable and may be shared between rules expanded from one source form.
//! * [`VarId`] — a variable of one rule: an index into [`Rule::vars`], numbered by first
//!   occurrence (head first, then the body in order), so rules equal up to variable renaming
//!   have equal structure.
//!
//! Spans: every rule, atom, distinct literal and term occurrence has the span of the source text
//! it came from. Spans never take part in [`Program::structurally_eq`].

use rg_core::{EntityId, FileId, Span};
use rustc_hash::FxHashMap;
use std::fmt;

rg_core::entity_id! {
    /// An interned name of one program (case-folded identity, first-seen spelling).
    pub struct Sym, "sym";
}

rg_core::entity_id! {
    /// A relation of one program: a (name, arity) pair.
    pub struct RelId, "rel";
}

rg_core::entity_id! {
    /// A term occurrence in a program's term arena.
    pub struct TermId, "t";
}

rg_core::entity_id! {
    /// A variable of one rule (an index into [`Rule::vars`]).
    pub struct VarId, "v";
}

/// The GDL keywords, pre-interned in this order (so `Sym::ROLE` is symbol 0, …).
const KEYWORDS: [&str; 17] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "base", "input", "sees",
    "random", "distinct", "not", "or", "and", "<=",
];

/// The keyword relations with the arity every use must have, pre-registered in this order.
const KEYWORD_RELATIONS: [(Sym, u32); 11] = [
    (Sym::ROLE, 1),
    (Sym::INIT, 1),
    (Sym::TRUE, 1),
    (Sym::NEXT, 1),
    (Sym::LEGAL, 2),
    (Sym::DOES, 2),
    (Sym::GOAL, 2),
    (Sym::TERMINAL, 0),
    (Sym::BASE, 1),
    (Sym::INPUT, 2),
    (Sym::SEES, 2),
];

impl Sym {
    /// `role`
    pub const ROLE: Sym = Sym(0);
    /// `init`
    pub const INIT: Sym = Sym(1);
    /// `true`
    pub const TRUE: Sym = Sym(2);
    /// `next`
    pub const NEXT: Sym = Sym(3);
    /// `legal`
    pub const LEGAL: Sym = Sym(4);
    /// `does`
    pub const DOES: Sym = Sym(5);
    /// `goal`
    pub const GOAL: Sym = Sym(6);
    /// `terminal`
    pub const TERMINAL: Sym = Sym(7);
    /// `base`
    pub const BASE: Sym = Sym(8);
    /// `input`
    pub const INPUT: Sym = Sym(9);
    /// `sees` (GDL-II)
    pub const SEES: Sym = Sym(10);
    /// `random` (GDL-II chance role; an ordinary constant otherwise)
    pub const RANDOM: Sym = Sym(11);
    /// `distinct`
    pub const DISTINCT: Sym = Sym(12);
    /// `not`
    pub const NOT: Sym = Sym(13);
    /// `or`
    pub const OR: Sym = Sym(14);
    /// `and` (non-standard, tolerated in bodies)
    pub const AND: Sym = Sym(15);
    /// `<=`
    pub const IMPLIES: Sym = Sym(16);

    /// Whether this is a keyword relation name (`role` … `sees`).
    pub fn is_keyword_relation(self) -> bool {
        self.0 <= Sym::SEES.0
    }

    /// The arity every use of a keyword relation must have, `None` for other symbols.
    pub fn keyword_arity(self) -> Option<usize> {
        KEYWORD_RELATIONS
            .iter()
            .find(|(s, _)| *s == self)
            .map(|&(_, a)| a as usize)
    }

    /// Whether this is one of the connectives `distinct`, `not`, `or`, `and`, `<=`.
    pub fn is_connective(self) -> bool {
        (Sym::DISTINCT.0..=Sym::IMPLIES.0).contains(&self.0)
    }

    /// Whether this is any GDL keyword (relation, `random` or connective).
    pub fn is_keyword(self) -> bool {
        (self.0 as usize) < KEYWORDS.len()
    }
}

impl RelId {
    /// `role/1`
    pub const ROLE: RelId = RelId(0);
    /// `init/1`
    pub const INIT: RelId = RelId(1);
    /// `true/1`
    pub const TRUE: RelId = RelId(2);
    /// `next/1`
    pub const NEXT: RelId = RelId(3);
    /// `legal/2`
    pub const LEGAL: RelId = RelId(4);
    /// `does/2`
    pub const DOES: RelId = RelId(5);
    /// `goal/2`
    pub const GOAL: RelId = RelId(6);
    /// `terminal/0`
    pub const TERMINAL: RelId = RelId(7);
    /// `base/1`
    pub const BASE: RelId = RelId(8);
    /// `input/2`
    pub const INPUT: RelId = RelId(9);
    /// `sees/2`
    pub const SEES: RelId = RelId(10);

    /// Whether this is one of the pre-registered keyword relations (with its catalogue arity).
    pub fn is_keyword(self) -> bool {
        (self.0 as usize) < KEYWORD_RELATIONS.len()
    }
}

/// Folds a name for case-insensitive identity (GDL symbols are case-independent: `Cell` and
/// `cell` are one symbol). Borrowed when nothing changes.
pub(crate) fn fold(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(text.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    } else {
        std::borrow::Cow::Owned(text.to_lowercase())
    }
}

/// `text` folded to lower case (see [`fold`]), using `buf` only when something changes.
fn fold_into<'a>(text: &'a str, buf: &'a mut String) -> &'a str {
    if text.is_ascii() {
        if !text.bytes().any(|b| b.is_ascii_uppercase()) {
            return text;
        }
        buf.clear();
        buf.extend(text.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        buf.clear();
        buf.push_str(&text.to_lowercase());
    }
    buf
}

/// The symbol table of one program.
///
/// Identity is case-folded unless the program was read with `case_sensitive`; keywords are
/// always folded. Each symbol keeps the spelling it was first seen with as a
/// constant (or, if it never occurs as a constant, as a variable).
#[derive(Clone, Debug)]
pub struct Symbols {
    index: FxHashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
    /// Whether the spelling in `names` came from a constant (a later constant spelling replaces
    /// one taken from a variable).
    from_constant: Vec<bool>,
    case_sensitive: bool,
    /// Reused buffer for folding.
    scratch: String,
}

impl Symbols {
    /// A table holding only the keywords.
    pub fn new(case_sensitive: bool) -> Self {
        let mut s = Symbols {
            index: FxHashMap::default(),
            names: Vec::new(),
            from_constant: Vec::new(),
            case_sensitive,
            scratch: String::new(),
        };
        for kw in KEYWORDS {
            s.insert_new(kw.into(), kw, true);
        }
        s
    }

    fn insert_new(&mut self, key: Box<str>, spelling: &str, constant: bool) -> Sym {
        let sym = Sym::new(self.names.len());
        self.index.insert(key, sym);
        self.names.push(spelling.into());
        self.from_constant.push(constant);
        sym
    }

    /// Whether identity is exact rather than case-folded.
    pub fn case_sensitive(&self) -> bool {
        self.case_sensitive
    }

    /// The symbol of `text`, if present (looked up case-insensitively unless case-sensitive;
    /// keywords always case-insensitively).
    pub fn get(&self, text: &str) -> Option<Sym> {
        let folded = fold(text);
        if let Some(&s) = self.index.get(&*folded) {
            if !self.case_sensitive || s.is_keyword() {
                return Some(s);
            }
        }
        if self.case_sensitive {
            return self.index.get(text).copied().filter(|s| !s.is_keyword());
        }
        None
    }

    /// The symbol of `text`, interning it as a constant (or function/relation) name if new.
    pub fn intern(&mut self, text: &str) -> Sym {
        self.intern_as(text, true)
    }

    /// Interns `text`; `constant` says whether it is spelled as a constant (not a variable).
    pub(crate) fn intern_as(&mut self, text: &str, constant: bool) -> Sym {
        // Fold into a reused buffer: most names are read many times.
        let mut scratch = std::mem::take(&mut self.scratch);
        let folded = fold_into(text, &mut scratch);
        let found = match self.index.get(folded) {
            Some(&s) if s.is_keyword() || !self.case_sensitive => Some(s),
            _ if self.case_sensitive => self.index.get(text).copied(),
            _ => None,
        };
        let sym = match found {
            Some(s) => {
                if constant && !self.from_constant[s.index()] {
                    self.names[s.index()] = text.into();
                    self.from_constant[s.index()] = true;
                }
                s
            }
            None => {
                let key: Box<str> = if self.case_sensitive { text } else { folded }.into();
                self.insert_new(key, text, constant)
            }
        };
        self.scratch = scratch;
        sym
    }

    /// The spelling of a symbol (keywords in lower case).
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.index()]
    }

    /// Number of symbols, keywords included.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table holds nothing (never: the keywords are always there).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A contiguous run of argument terms in [`Program::args`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Args {
    start: u32,
    len: u32,
}

impl Args {
    /// Number of arguments.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A term: a variable of the enclosing rule, a constant, or a function applied to
/// at least one argument. Object constants and `(f)` are both `Const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A variable of the enclosing rule.
    Var(VarId),
    /// An object constant.
    Const(Sym),
    /// `(f t1 … tk)`, k ≥ 1; the function's identity is (name, k).
    Fn(Sym, Args),
}

/// An atomic sentence `(rel t1 … tn)`; nullary relations have no arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The relation (name, arity).
    pub rel: RelId,
    /// The arguments; their number is the relation's arity.
    pub args: Args,
    /// The sentence in the source (a word or a list).
    pub span: Span,
}

/// A body literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A positive atom.
    Pos(Atom),
    /// A negated atom (negation as failure); the span is the atom's.
    Neg(Atom),
    /// `(distinct s t)`: syntactic inequality.
    Distinct {
        /// `s`
        left: TermId,
        /// `t`
        right: TermId,
        /// The `(distinct …)` form.
        span: Span,
    },
}

impl Literal {
    /// The literal's source location.
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => a.span,
            Literal::Distinct { span, .. } => *span,
        }
    }

    /// The atom of a positive or negative literal.
    pub fn atom(&self) -> Option<&Atom> {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => Some(a),
            Literal::Distinct { .. } => None,
        }
    }
}

/// A rule `head ⇐ body`; a fact when the body is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The head sentence.
    pub head: Atom,
    /// The body literals, in source order.
    pub body: Vec<Literal>,
    /// The rule's variables by [`VarId`]: exactly the variables occurring in the rule,
    /// numbered by first occurrence (head, then body).
    pub vars: Vec<Sym>,
    /// The source form the rule came from (several rules share it when an `or` was expanded).
    pub span: Span,
}

impl Rule {
    /// Whether the body is empty.
    pub fn is_fact(&self) -> bool {
        self.body.is_empty()
    }
}

/// A normalised GDL description.
#[derive(Clone, Debug)]
pub struct Program {
    file: FileId,
    pub(crate) symbols: Symbols,
    relations: Vec<(Sym, u32)>,
    relation_index: FxHashMap<(Sym, u32), RelId>,
    /// The span of each relation's first occurrence (none for unused keyword relations).
    relation_spans: Vec<Option<Span>>,
    terms: Vec<Term>,
    term_spans: Vec<Span>,
    args: Vec<TermId>,
    /// The rules, in source order (expanded rules in the order of their disjuncts).
    pub rules: Vec<Rule>,
}

impl Program {
    /// An empty program of `file` (only the keywords and keyword relations).
    pub fn new(file: FileId, case_sensitive: bool) -> Self {
        let mut p = Program {
            file,
            symbols: Symbols::new(case_sensitive),
            relations: Vec::new(),
            relation_index: FxHashMap::default(),
            relation_spans: Vec::new(),
            terms: Vec::new(),
            term_spans: Vec::new(),
            args: Vec::new(),
            rules: Vec::new(),
        };
        for (name, arity) in KEYWORD_RELATIONS {
            p.relation(name, arity, None);
        }
        p
    }

    /// The source file all spans refer to.
    pub fn file(&self) -> FileId {
        self.file
    }

    /// The symbol table.
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// The spelling of a symbol.
    pub fn name(&self, sym: Sym) -> &str {
        self.symbols.name(sym)
    }

    /// The symbol of `text`, interned as a constant (or function or relation) name if new.
    pub fn intern(&mut self, text: &str) -> Sym {
        self.symbols.intern(text)
    }

    /// The rules.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The relation (name, arity), registering it if new; `span` is recorded as its first
    /// occurrence.
    pub fn relation(&mut self, name: Sym, arity: u32, span: Option<Span>) -> RelId {
        if let Some(&r) = self.relation_index.get(&(name, arity)) {
            if self.relation_spans[r.index()].is_none() {
                self.relation_spans[r.index()] = span;
            }
            return r;
        }
        let r = RelId::new(self.relations.len());
        self.relations.push((name, arity));
        self.relation_spans.push(span);
        self.relation_index.insert((name, arity), r);
        r
    }

    /// The relation (name, arity), if the program has it.
    pub fn find_relation(&self, name: Sym, arity: u32) -> Option<RelId> {
        self.relation_index.get(&(name, arity)).copied()
    }

    /// Number of relations (keyword relations included).
    pub fn relation_count(&self) -> usize {
        self.relations.len()
    }

    /// Every relation id, in registration order (keyword relations first).
    pub fn relations(&self) -> impl Iterator<Item = RelId> + '_ {
        (0..self.relations.len()).map(RelId::new)
    }

    /// The name of a relation.
    pub fn rel_name(&self, rel: RelId) -> Sym {
        self.relations[rel.index()].0
    }

    /// The arity of a relation.
    pub fn rel_arity(&self, rel: RelId) -> usize {
        self.relations[rel.index()].1 as usize
    }

    /// Where the relation first occurs (none for a keyword relation the program never uses).
    pub fn rel_span(&self, rel: RelId) -> Option<Span> {
        self.relation_spans[rel.index()]
    }

    /// A term occurrence.
    pub fn term(&self, t: TermId) -> Term {
        self.terms[t.index()]
    }

    /// The source location of a term occurrence.
    pub fn term_span(&self, t: TermId) -> Span {
        self.term_spans[t.index()]
    }

    /// The terms of an argument run.
    pub fn args(&self, args: Args) -> &[TermId] {
        &self.args[args.start as usize..(args.start + args.len) as usize]
    }

    /// Adds a term occurrence.
    pub fn add_term(&mut self, term: Term, span: Span) -> TermId {
        let id = TermId::new(self.terms.len());
        self.terms.push(term);
        self.term_spans.push(span);
        id
    }

    /// Stores an argument run.
    pub fn add_args(&mut self, terms: &[TermId]) -> Args {
        let start = self.args.len() as u32;
        self.args.extend_from_slice(terms);
        Args {
            start,
            len: terms.len() as u32,
        }
    }

    /// Whether a term contains no variable.
    pub fn is_ground(&self, t: TermId) -> bool {
        match self.term(t) {
            Term::Var(_) => false,
            Term::Const(_) => true,
            Term::Fn(_, args) => self.args(args).iter().all(|&a| self.is_ground(a)),
        }
    }

    /// Whether two term occurrences of one rule are syntactically equal.
    pub fn term_eq(&self, a: TermId, b: TermId) -> bool {
        if a == b {
            return true;
        }
        match (self.term(a), self.term(b)) {
            (Term::Var(x), Term::Var(y)) => x == y,
            (Term::Const(x), Term::Const(y)) => x == y,
            (Term::Fn(f, xs), Term::Fn(g, ys)) => {
                f == g
                    && xs.len() == ys.len()
                    && self
                        .args(xs)
                        .iter()
                        .zip(self.args(ys))
                        .all(|(&x, &y)| self.term_eq(x, y))
            }
            _ => false,
        }
    }

    /// Whether `needle` occurs in `hay` (equal to it or to one of its subterms).
    pub fn occurs_in(&self, needle: TermId, hay: TermId) -> bool {
        self.term_eq(needle, hay)
            || match self.term(hay) {
                Term::Fn(_, args) => self.args(args).iter().any(|&a| self.occurs_in(needle, a)),
                _ => false,
            }
    }

    /// Calls `f` on every variable occurrence of a term (pre-order).
    pub fn for_each_var(&self, t: TermId, f: &mut impl FnMut(VarId, TermId)) {
        match self.term(t) {
            Term::Var(v) => f(v, t),
            Term::Const(_) => {}
            Term::Fn(_, args) => {
                for &a in self.args(args) {
                    self.for_each_var(a, f);
                }
            }
        }
    }

    /// Displays a term of `rule` in prefix KIF.
    pub fn display_term<'a>(&'a self, rule: &'a Rule, t: TermId) -> impl fmt::Display + 'a {
        Show(move |f: &mut fmt::Formatter<'_>| crate::print::write_term(f, self, rule, t))
    }

    /// Displays an atom of `rule` in prefix KIF.
    pub fn display_atom<'a>(&'a self, rule: &'a Rule, atom: &'a Atom) -> impl fmt::Display + 'a {
        Show(move |f: &mut fmt::Formatter<'_>| crate::print::write_atom(f, self, rule, atom))
    }

    /// Displays a relation as `name/arity`.
    pub fn display_rel(&self, rel: RelId) -> impl fmt::Display + '_ {
        Show(move |f: &mut fmt::Formatter<'_>| {
            write!(
                f,
                "{}/{}",
                self.name(self.rel_name(rel)),
                self.rel_arity(rel)
            )
        })
    }

    /// Whether two programs have the same rules, symbol spellings and relations, ignoring
    /// spans and the numbering of symbols, relations and terms.
    pub fn structurally_eq(&self, other: &Program) -> bool {
        self.rules.len() == other.rules.len()
            && self.rules.iter().zip(&other.rules).all(|(a, b)| {
                a.vars.len() == b.vars.len()
                    && a.vars
                        .iter()
                        .zip(&b.vars)
                        .all(|(&x, &y)| self.name(x) == other.name(y))
                    && self.atom_eq(&a.head, other, &b.head)
                    && a.body.len() == b.body.len()
                    && a.body.iter().zip(&b.body).all(|(x, y)| match (x, y) {
                        (Literal::Pos(x), Literal::Pos(y)) | (Literal::Neg(x), Literal::Neg(y)) => {
                            self.atom_eq(x, other, y)
                        }
                        (
                            Literal::Distinct { left, right, .. },
                            Literal::Distinct {
                                left: l2,
                                right: r2,
                                ..
                            },
                        ) => {
                            self.cross_term_eq(*left, other, *l2)
                                && self.cross_term_eq(*right, other, *r2)
                        }
                        _ => false,
                    })
            })
    }

    fn atom_eq(&self, a: &Atom, other: &Program, b: &Atom) -> bool {
        self.name(self.rel_name(a.rel)) == other.name(other.rel_name(b.rel))
            && a.args.len() == b.args.len()
            && self
                .args(a.args)
                .iter()
                .zip(other.args(b.args))
                .all(|(&x, &y)| self.cross_term_eq(x, other, y))
    }

    fn cross_term_eq(&self, a: TermId, other: &Program, b: TermId) -> bool {
        match (self.term(a), other.term(b)) {
            (Term::Var(x), Term::Var(y)) => x == y,
            (Term::Const(x), Term::Const(y)) => self.name(x) == other.name(y),
            (Term::Fn(f, xs), Term::Fn(g, ys)) => {
                self.name(f) == other.name(g)
                    && xs.len() == ys.len()
                    && self
                        .args(xs)
                        .iter()
                        .zip(other.args(ys))
                        .all(|(&x, &y)| self.cross_term_eq(x, other, y))
            }
            _ => false,
        }
    }
}

/// A `Display` from a closure.
struct Show<F>(F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Show<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}
