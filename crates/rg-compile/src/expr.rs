//! C++ for expressions, locations and whole-map values.
//!
//! A scalar is its class-local number (`uint32_t`). A map-valued expression is a run of
//! elements: the variable or constant it lives in, the index of its first element and its shape.
//! Accesses add `key * stride` to that index, so `board[pos]` becomes one array read and nested
//! maps are row-major.

use crate::error::CompileError;
use crate::layout::{Layout, NameRef, RtVal, Shape};
use rg_core::{ExprData, ExprId, Game, Span, Symbol};

/// Where a run of elements lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Var(usize),
    Const(usize),
}

/// A compiled expression.
#[derive(Clone, Debug)]
pub(crate) enum Operand {
    /// A bare symbol; its number depends on the class of the place it meets.
    Lit(Symbol),
    /// A scalar of class `class`: a C++ expression of its local number.
    Scalar { code: String, class: usize },
    /// A map value: `shape`'s elements from `index` on in `src`.
    Elems {
        src: Src,
        index: String,
        shape: Shape,
        /// Accesses applied to the variable or constant (its map depth).
        depth: usize,
    },
}

/// A location an assignment stores into.
#[derive(Clone, Debug)]
pub(crate) struct Location {
    pub var: usize,
    pub index: String,
    pub shape: Shape,
    pub depth: usize,
    /// Keys that must be in the map's declared domain: (map level, key code).
    pub checks: Vec<(usize, String)>,
    /// The presence flags of the explicit map levels the location is inside, outermost
    /// first: a store sets each (innermost first) to whether its entry differs from its
    /// map's default.
    pub flags: Vec<Flag>,
}

/// The presence flag of one explicit map level on a location's path: element indices of the
/// flag, of the entry and of the map's default, and the length of an entry.
#[derive(Clone, Debug)]
pub(crate) struct Flag {
    pub flag: String,
    pub entry: String,
    pub default: String,
    pub len: u64,
}

/// Generates expression code for one game.
pub(crate) struct ExprGen<'a> {
    pub game: &'a Game,
    pub layout: &'a Layout,
    /// Names bound to a symbol at run time (the binders of a `@simpleApply` tag pattern): the
    /// C++ expression of the bound symbol's id. Where one meets a place of class `c`, its
    /// number is `SLc<c>[id]`, and class `c` is recorded in `sl_used`.
    pub binders: std::collections::HashMap<Symbol, String>,
    pub sl_used: std::cell::RefCell<std::collections::BTreeSet<usize>>,
    /// A scalar variable read as a C++ expression instead of from the state (the loop
    /// variable of a selection loop, see `Gen::selection_chain`).
    pub subst: Option<(usize, String)>,
    /// Whether variables are read with 64-bit indices (`GW<v>`, in selection loops).
    pub wide: bool,
}

/// `a + b` for index expressions, folding zeros.
fn add_index(a: &str, b: &str) -> String {
    match (a, b) {
        ("0", x) | (x, "0") => x.to_string(),
        _ => format!("{a} + {b}"),
    }
}

fn mul_index(k: &str, stride: u64) -> String {
    match stride {
        0 => "0".into(),
        1 => k.to_string(),
        _ => format!("({k}) * {stride}u"),
    }
}

impl ExprGen<'_> {
    /// Reads element `index` of `src` in state `st`.
    pub fn read(&self, src: Src, index: &str, st: &str) -> String {
        match src {
            Src::Var(v) if self.wide => format!("GW{v}({st}, {index})"),
            Src::Var(v) => format!("G{v}({st}, {index})"),
            Src::Const(c) => format!("K{c}[{index}]"),
        }
    }

    /// The class-local number of `s` in class `class`.
    pub fn literal(
        &self,
        s: Symbol,
        class: usize,
        span: Option<Span>,
    ) -> Result<u32, CompileError> {
        self.layout.literal(self.game, s, class, span)
    }

    /// Compiles `e`, read in state `st`.
    pub fn operand(
        &self,
        e: ExprId,
        st: &str,
        span: Option<Span>,
    ) -> Result<Operand, CompileError> {
        let e = self.game.strip_casts(e);
        match self.game.expr(e) {
            ExprData::Cast(..) => unreachable!("casts stripped"),
            ExprData::Ref(x) => Ok(match self.layout.name_ref(self.game, x) {
                NameRef::Literal(s) => Operand::Lit(s),
                NameRef::Var(v) => {
                    let f = &self.layout.vars[v];
                    match &f.shape {
                        Shape::Scalar(c) => Operand::Scalar {
                            code: match &self.subst {
                                Some((sv, code)) if *sv == v => code.clone(),
                                _ => self.read(Src::Var(v), "0", st),
                            },
                            class: *c,
                        },
                        shape => Operand::Elems {
                            src: Src::Var(v),
                            index: "0".into(),
                            shape: shape.clone(),
                            depth: 0,
                        },
                    }
                }
                NameRef::Const(k) => {
                    let c = &self.layout.consts[k];
                    match &c.shape {
                        Shape::Scalar(class) => Operand::Scalar {
                            code: format!("{}u", c.elements[0]),
                            class: *class,
                        },
                        shape => Operand::Elems {
                            src: Src::Const(k),
                            index: "0".into(),
                            shape: shape.clone(),
                            depth: 0,
                        },
                    }
                }
            }),
            ExprData::Access(m, k) => {
                let Operand::Elems {
                    src,
                    index,
                    shape: Shape::Map { key, val, .. },
                    depth,
                } = self.operand(m, st, span)?
                else {
                    return Err(CompileError::at("a symbol is accessed as a map", span));
                };
                let kcode = self.scalar_in(k, key, st, span)?;
                let stride = val.elements(&self.layout.classes);
                let index = add_index(&index, &mul_index(&kcode, stride));
                Ok(match *val {
                    Shape::Scalar(class) => Operand::Scalar {
                        code: self.read(src, &index, st),
                        class,
                    },
                    shape => Operand::Elems {
                        src,
                        index,
                        shape,
                        depth: depth + 1,
                    },
                })
            }
        }
    }

    /// Compiles `e` as a scalar of class `class`.
    pub fn scalar_in(
        &self,
        e: ExprId,
        class: usize,
        st: &str,
        span: Option<Span>,
    ) -> Result<String, CompileError> {
        match self.operand(e, st, span)? {
            Operand::Lit(s) => match self.binders.get(&s) {
                Some(id) => {
                    self.sl_used.borrow_mut().insert(class);
                    Ok(format!("SLc{class}[{id}]"))
                }
                None => Ok(format!("{}u", self.literal(s, class, span)?)),
            },
            Operand::Scalar { code, .. } => Ok(code),
            Operand::Elems { .. } => Err(CompileError::at("a map used as a symbol", span)),
        }
    }

    /// The location `e` names.
    pub fn location(
        &self,
        e: ExprId,
        st: &str,
        span: Option<Span>,
    ) -> Result<Location, CompileError> {
        let e = self.game.strip_casts(e);
        match self.game.expr(e) {
            ExprData::Cast(..) => unreachable!("casts stripped"),
            ExprData::Ref(x) => {
                let v = self.layout.assigned_var(self.game, x, span)?;
                Ok(Location {
                    var: v,
                    index: "0".into(),
                    shape: self.layout.vars[v].shape.clone(),
                    depth: 0,
                    checks: Vec::new(),
                    flags: Vec::new(),
                })
            }
            ExprData::Access(m, k) => {
                let mut loc = self.location(m, st, span)?;
                let Shape::Map { key, val, ext } = loc.shape else {
                    return Err(CompileError::at("a symbol is accessed as a map", span));
                };
                let kcode = self.scalar_in(k, key, st, span)?;
                if self.layout.vars[loc.var]
                    .domains
                    .get(loc.depth)
                    .is_some_and(Option::is_some)
                {
                    loc.checks.push((loc.depth, kcode.clone()));
                }
                let stride = val.elements(&self.layout.classes);
                let base = loc.index.clone();
                loc.index = add_index(&loc.index, &mul_index(&kcode, stride));
                if ext {
                    let keys = self.layout.classes[key].len();
                    let trailer = add_index(&base, &format!("{}u", keys * stride));
                    loc.flags.push(Flag {
                        flag: add_index(&trailer, &kcode),
                        entry: loc.index.clone(),
                        default: add_index(&trailer, &format!("{keys}u")),
                        len: stride,
                    });
                }
                loc.shape = *val;
                loc.depth += 1;
                Ok(loc)
            }
        }
    }

    /// The default of the maps an element run of `src` at map depth `depth` holds, when it is
    /// the same for all of them (see the layout's module doc).
    pub fn default_at(&self, src: Src, depth: usize) -> Option<&RtVal> {
        match src {
            Src::Var(v) => self.layout.vars[v].init.uniform_default(depth),
            Src::Const(c) => self.layout.consts[c].value.uniform_default(depth),
        }
    }
}
