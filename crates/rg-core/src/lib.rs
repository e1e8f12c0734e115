//! `rg-core`: the Regular Games (RG) core of `rgt`.
//!
//! * [`ast`] — the owned syntax tree: what front-ends build and the RG parser produces;
//! * [`Game`] — the interned, index-based IR everything else works on;
//! * the RG lexer/parser, the built-in definitions step, the static type checker and the
//!   canonical printer;
//! * the [`FrontEnd`] and [`Validator`] traits shared by all crates.

pub mod ast;
pub mod builtins;
pub mod decls;
pub mod errors;
pub mod format;
pub mod frontend;
pub mod game;
pub mod ids;
pub mod interner;
pub mod lexer;
pub mod parser;
pub mod print;
pub mod span;
pub mod stats;
pub mod suggest;
pub mod tidy;
pub mod typeck;
pub mod validate;

pub use decls::{Decls, DeclsMark};
pub use errors::{ErrorList, ListedError};
pub use frontend::{DEFAULT_SIZE_LIMIT, FrontEnd, LowerOptions, Lowered};
pub use game::{
    Constant, EdgeData, EdgeId, ExprData, ExprId, Game, GameMark, Label, MapEntry, NodeData,
    NodeId, Phase, Pragma, PragmaKind, PragmaTag, Spans, TypeData, TypeId, Typedef, ValueData,
    ValueId, Variable,
};
pub use ids::{EntityId, IndexVec, SecondaryMap, UniqueArena};
pub use interner::{Interner, Symbol};
pub use parser::{ParseErrors, SyntaxError, parse, parse_ast};
pub use print::print;
pub use span::{FileId, Loc, SourceMap, Span};
pub use stats::GameStats;
pub use validate::{Cost, Location, Severity, Validator, Violation, annotate};
