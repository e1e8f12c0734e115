//! The HRG syntax tree.

use rg_core::Span;

/// A type: a set `{ a, b }`, or a named domain, optionally the left side of an arrow
/// (`Dir -> PointOrNull -> PointOrNull`).
#[derive(Clone, Debug)]
pub enum Type {
    Set(Vec<String>),
    Name(String, Option<Box<Type>>),
}

/// The values of a binding: an integer range `0..3` (inclusive) or a set of symbols.
#[derive(Clone, Debug)]
pub enum Values {
    Range(i64, i64),
    Set(Vec<String>),
}

/// `K in 0..3` or `K in { a, b }` after `where`.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub values: Values,
}

/// One element of a domain: a name, or a generator `S(K) where K in 0..3`.
#[derive(Clone, Debug)]
pub enum Element {
    Generator {
        name: String,
        params: Vec<String>,
        bindings: Vec<Binding>,
    },
    Name(String),
}

/// A pattern in a function case or map key: `_`, a name (a literal, or a variable when it is
/// upper case), or a constructor `S(K)`.
#[derive(Clone, Debug)]
pub enum Pattern {
    Wildcard,
    Name(String),
    Ctor(String, Vec<Pattern>),
}

/// Binary operators, from `||` (loosest) to `+ - % in`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Rem,
    In,
}

/// One entry `key = value [where bindings]` of a map expression.
#[derive(Clone, Debug)]
pub struct MapPart {
    pub key: Pattern,
    pub value: Expr,
    pub bindings: Vec<Binding>,
}

/// An expression: a name, a constructor `C(…)`, an application `f(…)`, an access `m[k]`,
/// `if c then a else b`, a binary operation or a map literal `{ :default; key = value … }`.
#[derive(Clone, Debug)]
pub enum ExprKind {
    Name(String),
    Ctor(String, Vec<Expr>),
    Call(Box<Expr>, Vec<Expr>),
    Access(Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Map(Option<Box<Expr>>, Vec<MapPart>),
}

/// An expression with its source span.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A statement of a graph body: `AssignAny(var, indices, ty)` is `var[i]… = Ty(*)`,
/// `Call(name, args)` a graph or built-in call, `Tag(symbols, artificial)` is `$ s` (`$_ s`).
#[derive(Clone, Debug)]
pub enum StmtKind {
    AssignAny(String, Vec<Expr>, Type),
    Assign(String, Vec<Expr>, Expr),
    BranchIn(String, Type, Vec<Stmt>),
    Branch(Vec<Vec<Stmt>>),
    Call(String, Vec<Expr>),
    If(Expr, Vec<Stmt>, Option<Vec<Stmt>>),
    Loop(Vec<Stmt>),
    RepeatIn(String, Type, Vec<Stmt>),
    Repeat(u64, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    TagVar(String),
    Tag(Vec<String>, bool),
}

/// A statement with its source span.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// `[reusable] graph name(params) { body }`.
#[derive(Clone, Debug)]
pub struct Graph {
    pub name: String,
    pub reusable: bool,
    pub params: Vec<(String, Type)>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A function declaration `name : type` with its cases `name(patterns) = body`.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub ty: Type,
    pub cases: Vec<(Vec<Pattern>, Expr)>,
    pub span: Span,
}

/// A top-level declaration: `Domain(name, elements, span)`, a function, `Variable(name, type,
/// initial value, span)` or a graph.
#[derive(Clone, Debug)]
pub enum Decl {
    Domain(String, Vec<Element>, Span),
    Function(Function),
    Variable(String, Type, Option<Expr>, Span),
    Graph(Graph),
}
