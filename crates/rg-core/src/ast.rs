//! The owned, string-based syntax tree of RG: five lists (typedefs, constants, variables,
//! edges, pragmas) in source order.
//!
//! This is the exchange format between front-ends and the core: a front-end builds an
//! [`ast::Game`](Game) (with spans into *its* source where it has them) and converts it with
//! [`crate::Game::from_ast`] into the interned, index-based IR that validators, passes, the
//! interpreter and the emitters work on. [`crate::Game::to_ast`] goes back (used by the JSON
//! emitter and by structural equality).
//!
//! Equality, ordering and hashing ignore every [`Loc`], so two trees are equal iff they are
//! *structurally* equal: the same lists element by element, locations ignored. The derived `Ord`
//! follows the variant and field order of the reference's definitions (the total order it uses when
//! passes sort things).

use crate::span::{Loc, Span};
use std::fmt;

/// A name occurrence: a type, constant, variable, node, symbol or tag name, with its location.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident {
    pub name: String,
    pub loc: Loc,
}

impl Ident {
    /// A name without location.
    pub fn new(name: impl Into<String>) -> Self {
        Ident {
            name: name.into(),
            loc: Loc::NONE,
        }
    }

    /// A name located at `span`.
    pub fn spanned(name: impl Into<String>, span: Span) -> Self {
        Ident {
            name: name.into(),
            loc: Loc(Some(span)),
        }
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.name)
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl From<&str> for Ident {
    fn from(s: &str) -> Self {
        Ident::new(s)
    }
}

impl From<String> for Ident {
    fn from(s: String) -> Self {
        Ident::new(s)
    }
}

impl From<&String> for Ident {
    fn from(s: &String) -> Self {
        Ident::new(s.as_str())
    }
}

/// A type: `L -> R`, a set `{ a, b }` or a type name. Variant order = the reference's sort order
/// (Arrow < Set < TypeReference).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `L -> R` (right-associative).
    Arrow {
        lhs: Box<Type>,
        rhs: Box<Type>,
        loc: Loc,
    },
    /// `{ a, b, c }` (at least one member when parsed).
    Set { members: Vec<Ident>, loc: Loc },
    /// A type name `T`.
    Name(Ident),
}

impl Type {
    /// `{ m1, m2, … }`.
    pub fn set<I, S>(members: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Ident>,
    {
        Type::Set {
            members: members.into_iter().map(Into::into).collect(),
            loc: Loc::NONE,
        }
    }

    /// A type name.
    pub fn name(name: impl Into<Ident>) -> Self {
        Type::Name(name.into())
    }

    /// `lhs -> rhs`.
    pub fn arrow(lhs: Type, rhs: Type) -> Self {
        Type::Arrow {
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            loc: Loc::NONE,
        }
    }

    /// The location of this type occurrence.
    pub fn loc(&self) -> Loc {
        match self {
            Type::Arrow { loc, .. } | Type::Set { loc, .. } => *loc,
            Type::Name(id) => id.loc,
        }
    }
}

/// A value: a symbol (or constant name) or a map `{ k: v, :default }`. Variant order = the
/// reference's sort order (Element < Map).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// A symbol or the name of a constant.
    Element(Ident),
    /// `{ k: v, :d }`; entries in written order (the default entry may be anywhere).
    Map { entries: Vec<Entry>, loc: Loc },
}

impl Value {
    /// A symbol / constant-name value.
    pub fn elem(name: impl Into<Ident>) -> Self {
        Value::Element(name.into())
    }

    /// A map with the given keyed entries followed by the default entry.
    pub fn map<I, K>(entries: I, default: Value) -> Self
    where
        I: IntoIterator<Item = (K, Value)>,
        K: Into<Ident>,
    {
        let mut entries: Vec<Entry> = entries
            .into_iter()
            .map(|(k, v)| Entry::keyed(k, v))
            .collect();
        entries.push(Entry::default_entry(default));
        Value::Map {
            entries,
            loc: Loc::NONE,
        }
    }

    /// `{ :d }`.
    pub fn default_map(default: Value) -> Self {
        Value::map(std::iter::empty::<(Ident, Value)>(), default)
    }

    /// The location of this value occurrence.
    pub fn loc(&self) -> Loc {
        match self {
            Value::Element(id) => id.loc,
            Value::Map { loc, .. } => *loc,
        }
    }
}

/// A map entry; `key == None` is the default entry `:v`. Sorted with the default first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entry {
    pub key: Option<Ident>,
    pub value: Value,
    pub loc: Loc,
}

impl Entry {
    /// `k: v`.
    pub fn keyed(key: impl Into<Ident>, value: Value) -> Self {
        Entry {
            key: Some(key.into()),
            value,
            loc: Loc::NONE,
        }
    }

    /// `:v`.
    pub fn default_entry(value: Value) -> Self {
        Entry {
            key: None,
            value,
            loc: Loc::NONE,
        }
    }
}

/// An expression: `e1[e2]`, `T(e)` or a name. Variant order = the reference's (Access < Cast <
/// Reference).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expr {
    /// `e1[e2]`.
    Access {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        loc: Loc,
    },
    /// `T(e)`; `ty` is always a [`Type::Name`] when parsed.
    Cast { ty: Type, expr: Box<Expr>, loc: Loc },
    /// A bare name: constant, variable or symbol.
    Ref(Ident),
}

impl Expr {
    /// A reference to a name.
    pub fn name(name: impl Into<Ident>) -> Self {
        Expr::Ref(name.into())
    }

    /// `lhs[rhs]`.
    pub fn access(lhs: Expr, rhs: Expr) -> Self {
        Expr::Access {
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            loc: Loc::NONE,
        }
    }

    /// `T(e)`.
    pub fn cast(ty: impl Into<Ident>, expr: Expr) -> Self {
        Expr::Cast {
            ty: Type::Name(ty.into()),
            expr: Box::new(expr),
            loc: Loc::NONE,
        }
    }

    /// The location of this expression occurrence.
    pub fn loc(&self) -> Loc {
        match self {
            Expr::Access { loc, .. } | Expr::Cast { loc, .. } => *loc,
            Expr::Ref(id) => id.loc,
        }
    }

    /// The root name: descend through casts and into the left side of accesses (the variable or
    /// constant an expression reads or writes).
    pub fn root(&self) -> &Ident {
        match self {
            Expr::Access { lhs, .. } => lhs.root(),
            Expr::Cast { expr, .. } => expr.root(),
            Expr::Ref(id) => id,
        }
    }
}

/// An edge label: assignment, any-assignment, comparison, reachability check, skip, tag or
/// variable tag. Variant order = the reference's sort order (Assignment <
/// AssignmentAny < Comparison < Reachability < Skip < Tag < TagVariable).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// `l = r`.
    Assign { lhs: Expr, rhs: Expr },
    /// `l = T(*)`.
    AssignAny { lhs: Expr, ty: Type },
    /// `l == r` / `l != r`.
    Compare { lhs: Expr, rhs: Expr, negated: bool },
    /// `? a -> b` / `! a -> b`.
    Reach {
        from: Ident,
        to: Ident,
        negated: bool,
    },
    /// The empty action.
    Skip,
    /// `$ s`.
    Tag(Ident),
    /// `$$ v`.
    TagVar(Ident),
}

/// An edge `from, to: label;`. Ordered by label, then `from`, then `to` (the reference's order).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    pub from: Ident,
    pub to: Ident,
    pub label: Label,
    /// The whole declaration (or, for generated edges, the construct it came from).
    pub loc: Loc,
}

impl Edge {
    /// An edge without location.
    pub fn new(from: impl Into<Ident>, to: impl Into<Ident>, label: Label) -> Self {
        Edge {
            from: from.into(),
            to: to.into(),
            label,
            loc: Loc::NONE,
        }
    }
}

impl PartialOrd for Edge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Edge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.label, &self.from, &self.to).cmp(&(&other.label, &other.from, &other.to))
    }
}

/// `type N = T;`
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Typedef {
    pub name: Ident,
    pub ty: Type,
    pub loc: Loc,
}

/// `const N: T = V;`
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constant {
    pub name: Ident,
    pub ty: Type,
    pub value: Value,
    pub loc: Loc,
}

/// `var N: T = V;`
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variable {
    pub name: Ident,
    pub ty: Type,
    /// The initial value ("defaultValue" in the reference's JSON).
    pub init: Value,
    pub loc: Loc,
}

/// A tag pattern of `@simpleApply`: a literal tag or a binder `p: T`. Symbol < Variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PragmaTag {
    /// A literal tag symbol.
    Symbol(Ident),
    /// A binder `p: T`.
    Variable { name: Ident, ty: Type },
}

/// An assignment `l = r` inside `@simpleApply`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PragmaAssign {
    pub lhs: Expr,
    pub rhs: Expr,
}

/// The content of a pragma: a fact about nodes or symbols that consumers may trust (the
/// interpreter and the compiled model do). Variant order = the reference's sort order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PragmaKind {
    /// `@artificialTag t1 t2;`
    ArtificialTag { tags: Vec<Ident> },
    /// `@disjoint n : m1 m2;`
    Disjoint { node: Ident, nodes: Vec<Ident> },
    /// `@disjointExhaustive n : m1 m2;`
    DisjointExhaustive { node: Ident, nodes: Vec<Ident> },
    /// `@integer o : s0 s1;`
    Integer { offset: u64, symbols: Vec<Ident> },
    /// `@iterator a b c : v;`
    Iterator {
        a: Ident,
        b: Ident,
        c: Ident,
        variable: Ident,
    },
    /// `@repeat n1 n2 : v1 v2;`
    Repeat {
        nodes: Vec<Ident>,
        variables: Vec<Ident>,
    },
    /// `@simpleApply a b [tags] assignments;`
    SimpleApply {
        from: Ident,
        to: Ident,
        tags: Vec<PragmaTag>,
        assignments: Vec<PragmaAssign>,
    },
    /// `@simpleApplyExhaustive a b [tags] assignments;`
    SimpleApplyExhaustive {
        from: Ident,
        to: Ident,
        tags: Vec<PragmaTag>,
        assignments: Vec<PragmaAssign>,
    },
    /// `@tagIndex n1 n2 : i;`
    TagIndex { index: u64, nodes: Vec<Ident> },
    /// `@tagMaxIndex n1 n2 : i;`
    TagMaxIndex { index: u64, nodes: Vec<Ident> },
    /// `@translatedFromRbg;`
    TranslatedFromRbg,
    /// `@unique n1 n2;`
    Unique { nodes: Vec<Ident> },
    /// Any other `@…;`, content kept verbatim (without `@` and `;`).
    Unknown { content: String },
}

/// A pragma declaration with its location.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pragma {
    pub kind: PragmaKind,
    pub loc: Loc,
}

impl Pragma {
    /// A pragma without location.
    pub fn new(kind: PragmaKind) -> Self {
        Pragma {
            kind,
            loc: Loc::NONE,
        }
    }
}

/// A whole game: five lists, each in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Game {
    pub typedefs: Vec<Typedef>,
    pub constants: Vec<Constant>,
    pub variables: Vec<Variable>,
    pub edges: Vec<Edge>,
    pub pragmas: Vec<Pragma>,
}

impl Game {
    /// An empty game.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `type name = ty;`.
    pub fn typedef(&mut self, name: impl Into<Ident>, ty: Type) -> &mut Self {
        self.typedefs.push(Typedef {
            name: name.into(),
            ty,
            loc: Loc::NONE,
        });
        self
    }

    /// Appends `const name: ty = value;`.
    pub fn constant(&mut self, name: impl Into<Ident>, ty: Type, value: Value) -> &mut Self {
        self.constants.push(Constant {
            name: name.into(),
            ty,
            value,
            loc: Loc::NONE,
        });
        self
    }

    /// Appends `var name: ty = init;`.
    pub fn variable(&mut self, name: impl Into<Ident>, ty: Type, init: Value) -> &mut Self {
        self.variables.push(Variable {
            name: name.into(),
            ty,
            init,
            loc: Loc::NONE,
        });
        self
    }

    /// Appends the edge `from, to: label;`.
    pub fn edge(
        &mut self,
        from: impl Into<Ident>,
        to: impl Into<Ident>,
        label: Label,
    ) -> &mut Self {
        self.edges.push(Edge::new(from, to, label));
        self
    }

    /// Appends a pragma.
    pub fn pragma(&mut self, kind: PragmaKind) -> &mut Self {
        self.pragmas.push(Pragma::new(kind));
        self
    }
}

/// Shorthands for labels.
impl Label {
    /// `lhs = rhs`.
    pub fn assign(lhs: Expr, rhs: Expr) -> Self {
        Label::Assign { lhs, rhs }
    }

    /// `lhs = ty(*)`.
    pub fn assign_any(lhs: Expr, ty: Type) -> Self {
        Label::AssignAny { lhs, ty }
    }

    /// `lhs == rhs`.
    pub fn eq(lhs: Expr, rhs: Expr) -> Self {
        Label::Compare {
            lhs,
            rhs,
            negated: false,
        }
    }

    /// `lhs != rhs`.
    pub fn ne(lhs: Expr, rhs: Expr) -> Self {
        Label::Compare {
            lhs,
            rhs,
            negated: true,
        }
    }

    /// `? from -> to`.
    pub fn reach(from: impl Into<Ident>, to: impl Into<Ident>) -> Self {
        Label::Reach {
            from: from.into(),
            to: to.into(),
            negated: false,
        }
    }

    /// `! from -> to`.
    pub fn not_reach(from: impl Into<Ident>, to: impl Into<Ident>) -> Self {
        Label::Reach {
            from: from.into(),
            to: to.into(),
            negated: true,
        }
    }

    /// `$ s`.
    pub fn tag(symbol: impl Into<Ident>) -> Self {
        Label::Tag(symbol.into())
    }

    /// `$$ v`.
    pub fn tag_var(var: impl Into<Ident>) -> Self {
        Label::TagVar(var.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    #[test]
    fn equality_ignores_locations() {
        let a = Ident::spanned("x", Span::new(FileId(0), 3, 4));
        assert_eq!(a, Ident::new("x"));
        assert_ne!(a, Ident::new("y"));
    }

    #[test]
    fn labels_sort_in_reference_order() {
        let mut v = [
            Label::tag("a"),
            Label::Skip,
            Label::reach("a", "b"),
            Label::assign(Expr::name("x"), Expr::name("y")),
        ];
        v.sort();
        assert!(matches!(v[0], Label::Assign { .. }));
        assert!(matches!(v[1], Label::Reach { .. }));
        assert!(matches!(v[2], Label::Skip));
        assert!(matches!(v[3], Label::Tag(_)));
    }

    #[test]
    fn root_descends_casts_and_accesses() {
        let e = Expr::access(
            Expr::cast("T", Expr::access(Expr::name("b"), Expr::name("x"))),
            Expr::name("y"),
        );
        assert_eq!(e.root().as_str(), "b");
    }
}
