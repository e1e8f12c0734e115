//! Static semantics of RG (what the `types` validator checks): type resolution, assignability,
//! expression typing, and [`check`], which returns *every* type error of a game (the reference
//! stops at the first; the order here is the reference's: edges, then constants, then variables,
//! so the first error reported is the reference's error).
//!
//! Inferred types are [`Ty`]s: a type of the game, or the singleton set `{ s }` of a symbol
//! (so checking never has to add types to the game).

use crate::game::{
    Game, Label, NameIndex, Spans, TypeData, TypeId, ValueData, ValueId, expr_slots, type_slots,
    value_slots,
};
use crate::interner::Symbol;
use crate::print::{print_label, print_type};
use crate::span::Span;
use crate::validate::{Location, Severity, Violation};
use crate::{ExprData, ExprId};

/// The name of the validator reported in violations.
pub const VALIDATOR: &str = "types";

/// An inferred type: a declared type, or the singleton set of a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A type of the game (unresolved: names stay names).
    Id(TypeId),
    /// `{ s }`, the type of a bare symbol.
    Singleton(Symbol),
}

/// A type after resolution: never a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved<'g> {
    /// A set.
    Set(Members<'g>),
    /// An arrow `K -> V` (components unresolved).
    Arrow(TypeId, TypeId),
}

/// The members of a resolved set, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Members<'g> {
    /// The singleton type of a symbol.
    One(Symbol),
    /// A declared set type.
    Many(&'g [Symbol]),
}

impl<'g> Members<'g> {
    /// The members as a slice.
    pub fn as_slice(&self) -> &[Symbol] {
        match self {
            Members::One(s) => std::slice::from_ref(s),
            Members::Many(ms) => ms,
        }
    }

    /// Whether `s` is a member.
    pub fn contains(&self, s: Symbol) -> bool {
        self.as_slice().contains(&s)
    }

    /// Number of members (duplicates counted).
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

/// Why a type relation could not be decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeFail {
    /// A type name without typedef.
    Unresolved(Symbol),
    /// A typedef that refers to itself (the reference loops forever).
    Cyclic(Symbol),
}

/// Which declarations are visible when typing names (inside a constant's value only the
/// constants above it; in labels and variables every constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everything (edge labels).
    All,
    /// The first `n` constants and no variables (the value of constant number `n`).
    ConstantsBefore(usize),
    /// All constants, no variables (initial values of variables).
    Constants,
}

/// Type relations over one game: resolution, assignability, the type of a name.
#[derive(Debug)]
pub struct TypeEnv<'g> {
    game: &'g Game,
    index: NameIndex,
    /// The members of large set types, for membership tests (a linear search per test made
    /// checking a map over a set of 65 536 members take seconds).
    large_sets: std::cell::RefCell<
        std::collections::HashMap<TypeId, std::rc::Rc<std::collections::HashSet<Symbol>>>,
    >,
}

/// Sets with more members than this are searched through a hash set.
const SMALL_SET: usize = 32;

impl<'g> TypeEnv<'g> {
    /// Builds the lookup tables of `game`.
    pub fn new(game: &'g Game) -> Self {
        TypeEnv {
            game,
            index: game.name_index(),
            large_sets: Default::default(),
        }
    }

    /// The game.
    pub fn game(&self) -> &'g Game {
        self.game
    }

    /// The id of the set or arrow type that `t` resolves to (type names followed).
    pub fn resolve_id(&self, mut t: TypeId) -> Result<TypeId, TypeFail> {
        let mut steps = 0usize;
        while let TypeData::Name(n) = self.game.ty(t) {
            let Some(&i) = self.index.typedefs.get(n) else {
                return Err(TypeFail::Unresolved(*n));
            };
            steps += 1;
            if steps > self.game.typedefs.len() {
                return Err(TypeFail::Cyclic(*n));
            }
            t = self.game.typedefs[i].ty;
        }
        Ok(t)
    }

    /// `resolve(T)`: follows type names to a set or an arrow.
    pub fn resolve(&self, t: TypeId) -> Result<Resolved<'g>, TypeFail> {
        Ok(match self.game.ty(self.resolve_id(t)?) {
            TypeData::Set(ms) => Resolved::Set(Members::Many(ms)),
            TypeData::Arrow(k, v) => Resolved::Arrow(*k, *v),
            TypeData::Name(_) => unreachable!("resolve_id never returns a name"),
        })
    }

    /// `resolve` of an inferred type.
    pub fn resolve_ty(&self, t: Ty) -> Result<Resolved<'g>, TypeFail> {
        match t {
            Ty::Id(id) => self.resolve(id),
            Ty::Singleton(s) => Ok(Resolved::Set(Members::One(s))),
        }
    }

    /// The members of the set `t` resolves to (`values(T)`), or `None` for an arrow.
    pub fn values(&self, t: TypeId) -> Result<Option<Members<'g>>, TypeFail> {
        Ok(match self.resolve(t)? {
            Resolved::Set(ms) => Some(ms),
            Resolved::Arrow(..) => None,
        })
    }

    /// `assignable(L, R, strict)`: may a value of type `R` be stored where `L` is
    /// expected?
    pub fn assignable(&self, l: Ty, r: Ty, strict: bool) -> Result<bool, TypeFail> {
        if l == r {
            return Ok(true);
        }
        match (self.shape(l), self.shape(r)) {
            (Shape::Arrow(l1, l2), Shape::Arrow(r1, r2)) => {
                Ok(self.assignable(Ty::Id(l1), Ty::Id(r1), strict)?
                    && self.assignable(Ty::Id(l2), Ty::Id(r2), strict)?)
            }
            (Shape::Set(ls), Shape::Set(rs)) => Ok(if strict {
                rs.as_slice().iter().all(|&m| self.member(l, ls, m))
            } else {
                rs.as_slice().iter().any(|&m| self.member(l, ls, m))
            }),
            (Shape::Name(id), _) => self.assignable(Ty::Id(self.resolve_id(id)?), r, strict),
            (_, Shape::Name(id)) => self.assignable(l, Ty::Id(self.resolve_id(id)?), strict),
            _ => Ok(false),
        }
    }

    /// Whether `m` is one of `ms`, the members of the set type `t`.
    fn member(&self, t: Ty, ms: Members<'g>, m: Symbol) -> bool {
        match t {
            Ty::Id(id) if ms.len() > SMALL_SET => self
                .large_sets
                .borrow_mut()
                .entry(id)
                .or_insert_with(|| std::rc::Rc::new(ms.as_slice().iter().copied().collect()))
                .contains(&m),
            _ => ms.contains(m),
        }
    }

    /// Whether `n` is a member of the set type `t` resolves to (`false` for an arrow).
    pub fn is_member(&self, t: TypeId, n: Symbol) -> Result<bool, TypeFail> {
        let id = self.resolve_id(t)?;
        Ok(match self.resolve(id)? {
            Resolved::Set(ms) => self.member(Ty::Id(id), ms, n),
            Resolved::Arrow(..) => false,
        })
    }

    /// `looselyEqual(A, B)`: mutual non-strict assignability (used by the builtins step).
    pub fn loosely_equal(&self, a: Ty, b: Ty) -> Result<bool, TypeFail> {
        Ok(self.assignable(a, b, false)? && self.assignable(b, a, false)?)
    }

    fn shape(&self, t: Ty) -> Shape<'g> {
        match t {
            Ty::Singleton(s) => Shape::Set(Members::One(s)),
            Ty::Id(id) => match self.game.ty(id) {
                TypeData::Arrow(k, v) => Shape::Arrow(*k, *v),
                TypeData::Set(ms) => Shape::Set(Members::Many(ms)),
                TypeData::Name(_) => Shape::Name(id),
            },
        }
    }

    /// `typeOf(name)` in a scope: the declared type of the visible constant or variable of that
    /// name, or else the singleton set of the symbol itself.
    pub fn type_of(&self, name: Symbol, scope: Scope) -> Ty {
        if let Some(&i) = self.index.constants.get(&name) {
            let visible = match scope {
                Scope::All | Scope::Constants => true,
                Scope::ConstantsBefore(n) => i < n,
            };
            if visible {
                return Ty::Id(self.game.constants[i].ty);
            }
        }
        if scope == Scope::All
            && let Some(&i) = self.index.variables.get(&name)
        {
            return Ty::Id(self.game.variables[i].ty);
        }
        Ty::Singleton(name)
    }

    /// Whether `name` denotes a visible constant or variable in `scope`.
    pub fn is_declared(&self, name: Symbol, scope: Scope) -> bool {
        !matches!(self.type_of(name, scope), Ty::Singleton(_))
    }

    /// `infer(e)` in the scope of edge labels, without locations.
    pub fn infer(&self, e: ExprId) -> Result<Ty, InferError> {
        self.infer_at(e, 0)
    }

    fn infer_at(&self, e: ExprId, slot: usize) -> Result<Ty, InferError> {
        match self.game.expr(e) {
            ExprData::Ref(s) => Ok(self.type_of(s, Scope::All)),
            ExprData::Cast(t, x) => {
                let r = self.infer_at(x, slot + 1 + type_slots(self.game, t))?;
                match self.assignable(Ty::Id(t), r, false) {
                    Ok(true) => Ok(Ty::Id(t)),
                    Ok(false) => Err(InferError::NotAssignable {
                        rhs: r,
                        lhs: Ty::Id(t),
                        slot,
                    }),
                    Err(f) => Err(InferError::Fail(f, slot + 1)),
                }
            }
            ExprData::Access(m, k) => {
                let mt = self.infer_at(m, slot + 1)?;
                let (kt, vt) = match self.resolve_ty(mt) {
                    Ok(Resolved::Arrow(kt, vt)) => (kt, vt),
                    Ok(Resolved::Set(_)) => return Err(InferError::ArrowExpected(mt, slot + 1)),
                    Err(f) => return Err(InferError::Fail(f, slot + 1)),
                };
                let key_slot = slot + 1 + expr_slots(self.game, m);
                let at = self.infer_at(k, key_slot)?;
                match self.resolve_ty(at) {
                    Ok(Resolved::Set(_)) => {}
                    Ok(Resolved::Arrow(..)) => return Err(InferError::SetExpected(at, key_slot)),
                    Err(f) => return Err(InferError::Fail(f, key_slot)),
                }
                match self.assignable(Ty::Id(kt), at, false) {
                    Ok(true) => Ok(Ty::Id(vt)),
                    Ok(false) => Err(InferError::NotAssignable {
                        rhs: at,
                        lhs: Ty::Id(kt),
                        slot: key_slot,
                    }),
                    Err(f) => Err(InferError::Fail(f, key_slot)),
                }
            }
        }
    }

    /// Prints an inferred type as the reference does in messages.
    pub fn show(&self, t: Ty) -> String {
        match t {
            Ty::Id(id) => print_type(self.game, id),
            Ty::Singleton(s) => format!("{{ {} }}", self.game.name(s)),
        }
    }
}

enum Shape<'g> {
    Arrow(TypeId, TypeId),
    Set(Members<'g>),
    Name(TypeId),
}

/// Why `infer` failed, with the pre-order slot of the sub-expression at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InferError {
    /// A resolution failure.
    Fail(TypeFail, usize),
    /// `e1[e2]` where `e1` is not a map.
    ArrowExpected(Ty, usize),
    /// `e1[e2]` where `e2` is a map.
    SetExpected(Ty, usize),
    /// A cast or key whose type does not overlap.
    NotAssignable { rhs: Ty, lhs: Ty, slot: usize },
}

/// Checks every edge label, constant and variable of `game` and returns
/// every violation found, in the reference's order.
pub fn check(game: &Game) -> Vec<Violation> {
    let env = TypeEnv::new(game);
    let mut out = Vec::new();
    let mut ck = Checker {
        env: &env,
        out: &mut out,
    };
    for (id, e) in game.edges() {
        ck.edge(id, e);
    }
    for (i, c) in game.constants.iter().enumerate() {
        let slot = 1 + type_slots(game, c.ty);
        ck.value(
            c.value,
            c.ty,
            Scope::ConstantsBefore(i),
            &c.spans,
            slot,
            Location::Constant(i),
        );
    }
    for (i, v) in game.variables.iter().enumerate() {
        let slot = 1 + type_slots(game, v.ty);
        ck.value(
            v.init,
            v.ty,
            Scope::Constants,
            &v.spans,
            slot,
            Location::Variable(i),
        );
    }
    out
}

struct Checker<'a, 'g> {
    env: &'a TypeEnv<'g>,
    out: &'a mut Vec<Violation>,
}

/// Edge parts: source node, target node, label, then the label's pieces (game.rs module doc).
const LABEL_PIECES: usize = 3;

impl Checker<'_, '_> {
    fn push(
        &mut self,
        code: &'static str,
        at: Location,
        message: String,
        span: Option<Span>,
        help: Option<String>,
    ) {
        self.out.push(Violation {
            validator: VALIDATOR,
            code,
            severity: Severity::Error,
            at,
            message,
            help,
            span,
            labels: Vec::new(),
        });
    }

    fn fail(&mut self, f: TypeFail, at: Location, span: Option<Span>) {
        let g = self.env.game();
        match f {
            TypeFail::Unresolved(n) => {
                let name = g.name(n);
                let help = crate::suggest::closest(name, g.typedefs.iter().map(|t| g.name(t.name)))
                    .map(|s| format!("did you mean `{s}`?"))
                    .or_else(|| Some(format!("declare it: `type {name} = {{ … }};`")));
                self.push(
                    "rg::types::unresolved-type",
                    at,
                    format!("Unresolved type {name}."),
                    span,
                    help,
                );
            }
            TypeFail::Cyclic(n) => self.push(
                "rg::types::cyclic-type",
                at,
                format!("Type {} is defined in terms of itself.", g.name(n)),
                span,
                Some(
                    "type aliases must not be recursive; give one of them a set or arrow type"
                        .into(),
                ),
            ),
        }
    }

    fn infer_error(&mut self, e: InferError, at: Location, spans: &Spans) {
        let env = self.env;
        match e {
            InferError::Fail(f, slot) => self.fail(f, at, spans.part_or_whole(slot)),
            InferError::ArrowExpected(t, slot) => {
                let help = match t {
                    Ty::Singleton(s) => format!(
                        "`{}` is neither a constant nor a variable, so it is a plain symbol; only maps can be accessed with `[…]`",
                        env.game().name(s)
                    ),
                    Ty::Id(_) => {
                        "only maps (values of an arrow type) can be accessed with `[…]`".into()
                    }
                };
                self.push(
                    "rg::types::arrow-expected",
                    at,
                    format!("Expected Arrow type, got {}.", env.show(t)),
                    spans.part_or_whole(slot),
                    Some(help),
                )
            }
            InferError::SetExpected(t, slot) => self.push(
                "rg::types::set-expected",
                at,
                format!("Expected Set type, got {}.", env.show(t)),
                spans.part_or_whole(slot),
                Some("map keys must be symbols, not maps".into()),
            ),
            InferError::NotAssignable { rhs, lhs, slot } => self.push(
                "rg::types::not-assignable",
                at,
                format!("{} is not assignable to {}", env.show(rhs), env.show(lhs)),
                spans.part_or_whole(slot),
                None,
            ),
        }
    }

    fn edge(&mut self, id: crate::EdgeId, e: &crate::EdgeData) {
        let env = self.env;
        let g = env.game();
        let at = Location::Edge(id);
        let spans = &e.spans;
        let label_span = spans.part_or_whole(2);
        match e.label {
            Label::Assign { lhs, rhs } => {
                let l_slot = LABEL_PIECES;
                let r_slot = l_slot + expr_slots(g, lhs);
                let (l, r) = (env.infer_at(lhs, l_slot), env.infer_at(rhs, r_slot));
                let (l, r) = match (l, r) {
                    (Ok(l), Ok(r)) => (l, r),
                    (l, r) => {
                        for err in [l.err(), r.err()].into_iter().flatten() {
                            self.infer_error(err, at, spans);
                        }
                        return;
                    }
                };
                match env.assignable(l, r, false) {
                    Ok(true) => {}
                    Ok(false) => {
                        let help = self.literal_help(rhs, l);
                        self.push(
                            "rg::types::not-assignable",
                            at,
                            format!("{} is not assignable to {}", env.show(r), env.show(l)),
                            spans.part_or_whole(r_slot).or(label_span),
                            help,
                        )
                    }
                    Err(f) => self.fail(f, at, label_span),
                }
            }
            Label::AssignAny { lhs, ty } => {
                let l_slot = LABEL_PIECES;
                let t_slot = l_slot + expr_slots(g, lhs);
                let l = match env.infer_at(lhs, l_slot) {
                    Ok(l) => l,
                    Err(err) => return self.infer_error(err, at, spans),
                };
                match env.assignable(l, Ty::Id(ty), true) {
                    Ok(true) => {}
                    Ok(false) => self.push(
                        "rg::types::not-assignable",
                        at,
                        format!(
                            "{} is not assignable to {}",
                            env.show(Ty::Id(ty)),
                            env.show(l)
                        ),
                        spans.part_or_whole(t_slot),
                        Some("every member of the type of `(*)` must fit the target".into()),
                    ),
                    Err(f) => self.fail(f, at, spans.part_or_whole(t_slot)),
                }
            }
            Label::Compare { lhs, rhs, .. } => {
                let l_slot = LABEL_PIECES;
                let r_slot = l_slot + expr_slots(g, lhs);
                let (l, r) = match (env.infer_at(lhs, l_slot), env.infer_at(rhs, r_slot)) {
                    (Ok(l), Ok(r)) => (l, r),
                    (l, r) => {
                        for err in [l.err(), r.err()].into_iter().flatten() {
                            self.infer_error(err, at, spans);
                        }
                        return;
                    }
                };
                let ok = env
                    .assignable(l, r, false)
                    .and_then(|a| Ok(a || env.assignable(r, l, false)?));
                match ok {
                    Ok(true) => {}
                    Ok(false) => {
                        let help = self.literal_help(rhs, l);
                        self.push(
                            "rg::types::not-comparable",
                            at,
                            format!("{} is not comparable to {}", env.show(l), env.show(r)),
                            label_span,
                            help,
                        )
                    }
                    Err(f) => self.fail(f, at, label_span),
                }
            }
            Label::Reach { .. } | Label::Skip | Label::Tag(_) | Label::TagVar(_) => {}
        }
    }

    /// For a literal symbol on the right that does not fit: suggest the closest member.
    fn literal_help(&self, rhs: ExprId, expected: Ty) -> Option<String> {
        let g = self.env.game();
        let ExprData::Ref(s) = g.expr(g.strip_casts(rhs)) else {
            return None;
        };
        if self.env.is_declared(s, Scope::All) {
            return None;
        }
        let Ok(Resolved::Set(ms)) = self.env.resolve_ty(expected) else {
            return None;
        };
        crate::suggest::closest(g.name(s), ms.as_slice().iter().map(|&m| g.name(m)))
            .map(|m| format!("did you mean `{m}`?"))
    }

    /// `check(v, T)`: whether value `v` fits type `T`; `slot` is the pre-order slot of `v` in
    /// `spans`.
    fn value(
        &mut self,
        v: ValueId,
        t: TypeId,
        scope: Scope,
        spans: &Spans,
        slot: usize,
        at: Location,
    ) {
        let env = self.env;
        let g = env.game();
        match g.value(v) {
            ValueData::Element(n) => self.name_in(*n, t, scope, spans.part_or_whole(slot), at),
            ValueData::Map(entries) => {
                let (k, vt) = match env.resolve(t) {
                    Ok(Resolved::Arrow(k, vt)) => (k, vt),
                    Ok(Resolved::Set(_)) => {
                        return self.push(
                            "rg::types::arrow-expected",
                            at,
                            format!("Expected Arrow type, got {}.", print_type(g, t)),
                            spans.part_or_whole(slot),
                            Some("a map value needs a map type `K -> V`".into()),
                        );
                    }
                    Err(f) => return self.fail(f, at, spans.part_or_whole(slot)),
                };
                let mut s = slot + 1;
                for e in entries.iter() {
                    s += 1; // the entry itself
                    let key_slot = s;
                    if e.key.is_some() {
                        s += 1;
                    }
                    self.value(e.value, vt, scope, spans, s, at);
                    if let Some(key) = e.key {
                        self.name_in(key, k, scope, spans.part_or_whole(key_slot), at);
                    }
                    s += value_slots(g, e.value);
                }
            }
        }
    }

    /// The name rule of `check` for an element or a map key.
    fn name_in(&mut self, n: Symbol, t: TypeId, scope: Scope, span: Option<Span>, at: Location) {
        let env = self.env;
        let g = env.game();
        let n_ty = env.type_of(n, scope);
        let ok = if env.is_declared(n, scope) {
            env.assignable(Ty::Id(t), n_ty, false)
        } else {
            env.is_member(t, n)
        };
        match ok {
            Ok(true) => {}
            Ok(false) => {
                let help = match env.resolve(t) {
                    Ok(Resolved::Set(ms)) if !env.is_declared(n, scope) => {
                        crate::suggest::closest(g.name(n), ms.as_slice().iter().map(|&m| g.name(m)))
                            .map(|m| format!("did you mean `{m}`?"))
                    }
                    _ => None,
                };
                self.push(
                    "rg::types::not-assignable",
                    at,
                    format!(
                        "{} is not assignable to {}",
                        env.show(n_ty),
                        print_type(g, t)
                    ),
                    span,
                    help,
                )
            }
            Err(f) => self.fail(f, at, span),
        }
    }
}

/// The label of an edge, printed, for messages about generated games.
pub fn describe_label(game: &Game, label: &Label) -> String {
    print_label(game, label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    /// The reference's examples of type errors.
    fn first_error(edge: &str) -> Option<String> {
        let text = format!(
            "type Player = {{ x }}; type Score = {{ 0 }}; type T = {{ a, b }}; var v: T = a;\n\
             const c: T -> T = {{ :a }};\n{edge}"
        );
        let mut g = crate::parse(FileId(0), &text).expect("parses");
        crate::builtins::add_builtins(&mut g).expect("builtins");
        check(&g).into_iter().next().map(|v| v.message)
    }

    #[test]
    fn reference_examples() {
        assert_eq!(first_error("begin, end: v = c[b];"), None);
        assert_eq!(
            first_error("begin, end: v = q;").unwrap(),
            "{ q } is not assignable to T"
        );
        assert_eq!(
            first_error("begin, end: v == q;").unwrap(),
            "T is not comparable to { q }"
        );
        assert_eq!(
            first_error("begin, end: c == v;").unwrap(),
            "T -> T is not comparable to T"
        );
        assert_eq!(
            first_error("begin, end: v[a] == a;").unwrap(),
            "Expected Arrow type, got T."
        );
        assert_eq!(
            first_error("begin, end: c[c] == a;").unwrap(),
            "Expected Set type, got T -> T."
        );
        assert_eq!(
            first_error("begin, end: c[q] == a;").unwrap(),
            "{ q } is not assignable to T"
        );
        assert_eq!(
            first_error("begin, end: v = U(a);").unwrap(),
            "Unresolved type U."
        );
        assert_eq!(first_error("begin, end: v = T(*);"), None);
        assert_eq!(
            first_error("begin, end: v = { a, q }(*);").unwrap(),
            "{ a, q } is not assignable to T"
        );
    }

    #[test]
    fn values_see_only_earlier_constants_and_no_variables() {
        let text = "type Player = { x }; type Score = { 0 }; type T = { a, b };\n\
                    const c1: T = c2; const c2: T = a; const c3: T = c2; var w: T = v; var v: T = a;";
        let mut g = crate::parse(FileId(0), text).unwrap();
        crate::builtins::add_builtins(&mut g).unwrap();
        let msgs: Vec<_> = check(&g).into_iter().map(|v| (v.at, v.message)).collect();
        assert_eq!(
            msgs,
            vec![
                (
                    Location::Constant(0),
                    "{ c2 } is not assignable to T".to_owned()
                ),
                (
                    Location::Variable(0),
                    "{ v } is not assignable to T".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn every_error_is_reported_with_the_span_of_the_culprit() {
        let text = "type Player = { x }; type Score = { 0 }; type T = { a, b };\nvar v: T = a;\n\
                    begin, end: v = q;\na, b: v = Tt(a);\n";
        let mut g = crate::parse(FileId(0), text).unwrap();
        crate::builtins::add_builtins(&mut g).unwrap();
        let errs = check(&g);
        assert_eq!(errs.len(), 2);
        let s = errs[0].span.unwrap();
        assert_eq!(&text[s.start as usize..s.end as usize], "q");
        let s = errs[1].span.unwrap();
        assert_eq!(&text[s.start as usize..s.end as usize], "Tt");
        assert_eq!(errs[1].help.as_deref(), Some("did you mean `T`?"));
    }

    #[test]
    fn cyclic_typedefs_are_reported_not_looped_on() {
        let text =
            "type Player = { x }; type Score = { 0 }; type A = B; type B = A;\nvar v: A = a;";
        let mut g = crate::parse(FileId(0), text).unwrap();
        crate::builtins::add_builtins(&mut g).unwrap();
        let errs = check(&g);
        assert_eq!(errs[0].code, "rg::types::cyclic-type");
    }
}
