//! Value classes and the state layout of a compiled game.
//!
//! **Classes.** RG values are symbols; a compiled model stores them as small integers. Two places
//! that exchange values (the sides of an assignment or a comparison, a map's keys and the
//! expression that indexes it, a variable and the type of an any-assignment into it) must use one
//! numbering, so places are grouped into *value classes* by unification (union-find over the
//! shapes of variables, constants and expressions). A class holds every symbol any of its places
//! can hold: the members of the declared types, the literals compared with or assigned to it, the
//! keys and values written in initial values. Values are stored as their 0-based position in their
//! class, so no value outside a class can ever reach a place of it, whatever the game does.
//!
//! **Maps** are total arrays over their key class (row-major for nested maps): the entry of a key
//! outside the map's declared domain holds the map's default and is never written (storing there is
//! a run-time error, as in the interpreter), so reading it gives the default, as reading a map at a
//! key outside its domain must. A runtime map value is its default and the entries it lists, which
//! may include entries equal to the default (rg.md §12.1: `{ a: 0, :0 }` is not `{ :0 }`, for
//! comparisons and for merging walks). The plain array does not record which keys are listed: it
//! determines the value when every map of its places has one fixed default and lists exactly the
//! entries that differ from it, which entry stores keep (storing the default removes the key).
//! That holds for a map level unless some value that can reach its places (the initial values of
//! the variables and the constants unified with it) lists an entry equal to its default, or the
//! defaults of those values differ (a whole-map store may then change a variable's default). Such
//! a level of a variable, or of maps compared as whole values, is *explicit*
//! ([`Shape::Map`]'s `ext`): after the entries, its elements hold a presence flag per key and
//! then the default, so an entry still sits at `key * stride` and an absent one holds the default
//! (as in the interpreter's own layout). Whole-map stores and comparisons then copy and compare
//! the default and flags with the entries, and an entry store sets the flag of each explicit level
//! it is inside to whether the entry differs from that map's default, innermost first. Every
//! other level, and every map of a game without such values, keeps the plain array.
//!
//! **State.** Every variable is a field of `width` bits per element (0, 1, 2, 4, 8, 16 or 32: the
//! bits its class needs, rounded up). Fields narrower than a byte are packed (an element never
//! straddles a byte), wider ones are byte-aligned. The ordinary variables come first and their
//! part is padded to whole 64-bit words: that prefix is the visited-state key (a search expands
//! a node once per tag sequence and values of the ordinary variables).
//! `goals`, `player` and `visible` follow.

use crate::error::CompileError;
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{ExprData, ExprId, Game, Label, Span, Symbol, TypeId, ValueData, ValueId};
use std::collections::{BTreeMap, HashMap};

/// Maps nested deeper than this are refused (types are user input).
const MAX_NESTING: usize = 32;
/// Explicit map levels nested deeper than this in one variable are refused (the printing of a
/// state formats an explicit level's default and entries apart, so its code doubles per level).
const MAX_EXPLICIT_LEVELS: usize = 8;
/// Expressions nested deeper than this are refused.
pub(crate) const MAX_EXPR_DEPTH: usize = 512;
/// The largest state, in bytes.
const MAX_STATE_BYTES: u64 = 1 << 24;
/// The largest constant, in elements.
const MAX_CONST_ELEMENTS: u64 = 1 << 26;

/// A value class: the symbols one group of places can hold, numbered from 0.
#[derive(Clone, Debug)]
pub(crate) struct Class {
    pub members: Vec<Symbol>,
    index: HashMap<Symbol, u32>,
}

impl Class {
    /// The position of `s` in the class.
    pub fn local(&self, s: Symbol) -> Option<u32> {
        self.index.get(&s).copied()
    }

    pub fn len(&self) -> u64 {
        self.members.len() as u64
    }

    /// Bits per stored value: 0, 1, 2, 4, 8, 16 or 32.
    pub fn width(&self) -> u32 {
        width_for(self.len())
    }
}

/// Bits needed for `n` distinct values, rounded up to a power of two (0 for at most one value).
fn width_for(n: u64) -> u32 {
    if n <= 1 {
        return 0;
    }
    let bits = 64 - (n - 1).leading_zeros();
    match bits {
        1 => 1,
        2 => 2,
        3 | 4 => 4,
        5..=8 => 8,
        9..=16 => 16,
        _ => 32,
    }
}

/// The shape of a value after unification.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    Scalar(usize),
    /// A map over the key class `key`. An *explicit* map (`ext`) also stores, after its
    /// entries, a presence flag per key and its default (see the module doc).
    Map {
        key: usize,
        val: Box<Shape>,
        ext: bool,
    },
}

impl Shape {
    /// The key and value classes of a map from scalars to scalars.
    pub fn scalar_map(&self) -> Option<(usize, usize)> {
        match self {
            Shape::Map { key, val, .. } => match **val {
                Shape::Scalar(v) => Some((*key, v)),
                Shape::Map { .. } => None,
            },
            Shape::Scalar(_) => None,
        }
    }

    /// The class of the scalars at the leaves.
    pub fn leaf(&self) -> usize {
        let mut s = self;
        loop {
            match s {
                Shape::Scalar(c) => return *c,
                Shape::Map { val, .. } => s = val,
            }
        }
    }

    /// Number of elements of a value of this shape: its scalars, and for an explicit map
    /// level also its presence flags and its default.
    pub fn elements(&self, classes: &[Class]) -> u64 {
        let mut levels = Vec::new();
        let mut s = self;
        while let Shape::Map { key, val, ext } = s {
            levels.push((classes[*key].len(), *ext));
            s = val;
        }
        levels.iter().rev().fold(1u64, |n, &(k, ext)| {
            let entries = n.saturating_mul(k);
            if ext {
                entries.saturating_add(k).saturating_add(n)
            } else {
                entries
            }
        })
    }

    /// Whether some level of this shape is an explicit map.
    pub fn has_ext(&self) -> bool {
        let mut s = self;
        while let Shape::Map { val, ext, .. } = s {
            if *ext {
                return true;
            }
            s = val;
        }
        false
    }

    /// The key classes, outermost first.
    pub fn keys(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut s = self;
        while let Shape::Map { key, val, .. } = s {
            out.push(*key);
            s = val;
        }
        out
    }
}

/// A runtime value: a symbol, or a map with a default value and the entries it lists (an entry
/// may be listed with the default value); constant names are already replaced by their values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RtVal {
    Elem(Symbol),
    Map(Box<RtVal>, BTreeMap<Symbol, RtVal>),
}

impl RtVal {
    /// The default of every map at depth `depth` (0 = the value itself), when they are all
    /// equal; `None` when the value is not that deep or they differ.
    pub fn uniform_default(&self, depth: usize) -> Option<&RtVal> {
        let mut level: Vec<&RtVal> = vec![self];
        for _ in 0..depth {
            let mut next = Vec::new();
            for v in level {
                let RtVal::Map(d, es) = v else { return None };
                next.push(d.as_ref());
                next.extend(es.values());
            }
            level = next;
        }
        let mut defaults = level.iter().map(|v| match v {
            RtVal::Map(d, _) => Some(d.as_ref()),
            RtVal::Elem(_) => None,
        });
        let first = defaults.next()??;
        for d in defaults {
            if d? != first {
                return None;
            }
        }
        Some(first)
    }
}

/// A variable of the compiled state.
#[derive(Clone, Debug)]
pub(crate) struct Field {
    pub name: Symbol,
    pub shape: Shape,
    /// Scalar elements (1 for a scalar).
    pub count: u64,
    /// Bits per element.
    pub width: u32,
    /// Bit offset of element 0 in the state.
    pub bit: u64,
    pub ordinary: bool,
    pub init: RtVal,
    /// Per map level, whether each key of the level's class is in the declared domain (`None`:
    /// every key is).
    pub domains: Vec<Option<Vec<bool>>>,
    pub span: Option<Span>,
}

impl Field {
    /// Bytes the field occupies (first byte, byte count).
    pub fn byte_range(&self) -> (u64, u64) {
        if self.width == 0 {
            return (0, 0);
        }
        let start = self.bit / 8;
        let end = (self.bit + self.count * u64::from(self.width)).div_ceil(8);
        (start, end - start)
    }
}

/// A constant of the compiled game: its elements flattened row-major.
#[derive(Clone, Debug)]
pub(crate) struct ConstData {
    pub name: Symbol,
    pub shape: Shape,
    pub value: RtVal,
    pub elements: Vec<u32>,
}

/// The classes, the state layout and the constants of a game.
#[derive(Debug)]
pub(crate) struct Layout {
    pub classes: Vec<Class>,
    pub vars: Vec<Field>,
    pub var_by_name: HashMap<Symbol, usize>,
    pub consts: Vec<ConstData>,
    pub const_by_name: HashMap<Symbol, usize>,
    /// Bytes of the ordinary part (a multiple of 8).
    pub ordinary_bytes: u64,
    /// Bytes of the whole state (a multiple of 8).
    pub state_bytes: u64,
    pub init: Vec<u8>,
    pub player: usize,
    pub goals: Option<usize>,
    pub visible: Option<usize>,
    /// Whether some variable or constant has an explicit map level.
    pub explicit_maps: bool,
}

/// How a name reads in an edge label: a variable, else a constant, else the symbol itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRef {
    Var(usize),
    Const(usize),
    Literal(Symbol),
}

impl Layout {
    /// What the bare name `x` denotes in an expression.
    pub fn name_ref(&self, game: &Game, x: Symbol) -> NameRef {
        let wk = game.well_known();
        let special = x == wk.goals || x == wk.player || x == wk.visible;
        if !special && let Some(&c) = self.const_by_name.get(&x) {
            return NameRef::Const(c);
        }
        if let Some(&v) = self.var_by_name.get(&x) {
            return NameRef::Var(v);
        }
        NameRef::Literal(x)
    }

    /// The variable an assignment to the bare name `x` stores into; an error at `span` when
    /// `x` is a constant or a symbol.
    pub fn assigned_var(
        &self,
        game: &Game,
        x: Symbol,
        span: Option<Span>,
    ) -> Result<usize, CompileError> {
        let what = match self.name_ref(game, x) {
            NameRef::Var(v) => return Ok(v),
            NameRef::Const(_) => "constant",
            NameRef::Literal(_) => "symbol",
        };
        Err(CompileError::at(
            format!("an assignment stores into the {what} `{}`", game.name(x)),
            span,
        ))
    }
}

// ----- unification -------------------------------------------------------------------------

#[derive(Debug, Default)]
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn add(&mut self) -> usize {
        self.0.push(self.0.len());
        self.0.len() - 1
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }
}

#[derive(Clone, Copy, Debug)]
enum SNode {
    Scalar(usize),
    Map(usize, usize),
}

/// The shape of an expression during unification: a place, or a bare literal symbol whose
/// class comes from where it is used.
#[derive(Clone, Copy, Debug)]
enum Part {
    Shape(usize),
    Lit(Symbol),
}

struct Unifier<'g> {
    game: &'g Game,
    env: TypeEnv<'g>,
    class_uf: UnionFind,
    class_syms: Vec<Vec<Symbol>>,
    shape_uf: UnionFind,
    shapes: Vec<SNode>,
    var_shape: HashMap<Symbol, usize>,
    const_shape: HashMap<Symbol, usize>,
    /// Map shapes compared as whole values (`m == c`).
    compared: Vec<usize>,
    /// The roots of the map shapes stored explicitly (see [`Unifier::explicit_maps`]).
    ext_roots: std::collections::HashSet<usize>,
}

impl<'g> Unifier<'g> {
    fn new_class(&mut self, members: &[Symbol]) -> usize {
        let c = self.class_uf.add();
        self.class_syms.push(members.to_vec());
        c
    }

    fn union_class(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.class_uf.find(a), self.class_uf.find(b));
        if ra == rb {
            return;
        }
        let moved = std::mem::take(&mut self.class_syms[ra]);
        self.class_syms[rb].extend(moved);
        self.class_uf.0[ra] = rb;
    }

    fn add_symbol(&mut self, class: usize, s: Symbol) {
        let r = self.class_uf.find(class);
        self.class_syms[r].push(s);
    }

    fn new_shape(&mut self, n: SNode) -> usize {
        let id = self.shape_uf.add();
        self.shapes.push(n);
        id
    }

    fn node(&mut self, s: usize) -> SNode {
        let r = self.shape_uf.find(s);
        self.shapes[r]
    }

    fn type_text(&self, t: TypeId) -> String {
        rg_core::print::print_type(self.game, t)
    }

    /// A fresh shape for the declared type `t`.
    fn shape_of_type(&mut self, t: TypeId, span: Option<Span>) -> Result<usize, CompileError> {
        // Iterative over the arrow chain: keys are sets, the value may be another arrow.
        let mut keys = Vec::new();
        let mut cur = t;
        loop {
            let resolved = self.env.resolve(cur).map_err(|_| {
                CompileError::at(
                    format!("type `{}` cannot be resolved", self.type_text(cur)),
                    span,
                )
            })?;
            match resolved {
                Resolved::Set(ms) => {
                    let leaf = self.new_class(ms.as_slice());
                    let mut shape = self.new_shape(SNode::Scalar(leaf));
                    for k in keys.into_iter().rev() {
                        shape = self.new_shape(SNode::Map(k, shape));
                    }
                    return Ok(shape);
                }
                Resolved::Arrow(k, v) => {
                    let members = match self.env.resolve(k) {
                        Ok(Resolved::Set(ms)) => ms.as_slice().to_vec(),
                        _ => {
                            return Err(CompileError::at(
                                format!(
                                    "the keys of map type `{}` are not a set",
                                    self.type_text(cur)
                                ),
                                span,
                            ));
                        }
                    };
                    if keys.len() >= MAX_NESTING {
                        return Err(CompileError::at(
                            format!("maps are nested deeper than {MAX_NESTING} levels"),
                            span,
                        ));
                    }
                    let kc = self.new_class(&members);
                    keys.push(kc);
                    cur = v;
                }
            }
        }
    }

    fn unify(&mut self, a: usize, b: usize, span: Option<Span>) -> Result<(), CompileError> {
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            let (ra, rb) = (self.shape_uf.find(a), self.shape_uf.find(b));
            if ra == rb {
                continue;
            }
            match (self.shapes[ra], self.shapes[rb]) {
                (SNode::Scalar(c1), SNode::Scalar(c2)) => self.union_class(c1, c2),
                (SNode::Map(k1, v1), SNode::Map(k2, v2)) => {
                    self.union_class(k1, k2);
                    work.push((v1, v2));
                }
                _ => {
                    return Err(CompileError::at(
                        "a map and a symbol meet in one place (an assignment or a map key)",
                        span,
                    ));
                }
            }
            self.shape_uf.0[ra] = rb;
        }
        Ok(())
    }

    /// Adds the symbols of the runtime value `v` to the classes of shape `s`.
    fn add_value(&mut self, v: &RtVal, s: usize, span: Option<Span>) -> Result<(), CompileError> {
        let mut work = vec![(v, s)];
        while let Some((v, s)) = work.pop() {
            match (v, self.node(s)) {
                (RtVal::Elem(x), SNode::Scalar(c)) => self.add_symbol(c, *x),
                (RtVal::Map(d, es), SNode::Map(k, val)) => {
                    work.push((d, val));
                    for (key, e) in es {
                        self.add_symbol(k, *key);
                        work.push((e, val));
                    }
                }
                (RtVal::Elem(x), SNode::Map(..)) => {
                    return Err(CompileError::at(
                        format!(
                            "symbol `{}` given where a map is expected",
                            self.game.name(*x)
                        ),
                        span,
                    ));
                }
                (RtVal::Map(..), SNode::Scalar(_)) => {
                    return Err(CompileError::at(
                        "a map value given where a symbol is expected",
                        span,
                    ));
                }
            }
        }
        Ok(())
    }

    /// The part an expression denotes; accesses unify their key with the map's key class.
    fn expr(&mut self, e: ExprId, span: Option<Span>) -> Result<Part, CompileError> {
        // Walk down the access spine iteratively; keys recurse (bounded by MAX_EXPR_DEPTH).
        self.expr_depth(e, span, 0)
    }

    fn expr_depth(
        &mut self,
        e: ExprId,
        span: Option<Span>,
        depth: usize,
    ) -> Result<Part, CompileError> {
        if depth > MAX_EXPR_DEPTH {
            return Err(CompileError::at(
                format!("expression nested deeper than {MAX_EXPR_DEPTH} levels"),
                span,
            ));
        }
        let e = self.game.strip_casts(e);
        match self.game.expr(e) {
            ExprData::Cast(..) => unreachable!("casts stripped"),
            ExprData::Ref(x) => {
                let wk = self.game.well_known();
                let special = x == wk.goals || x == wk.player || x == wk.visible;
                if !special && let Some(&s) = self.const_shape.get(&x) {
                    return Ok(Part::Shape(s));
                }
                if let Some(&s) = self.var_shape.get(&x) {
                    return Ok(Part::Shape(s));
                }
                Ok(Part::Lit(x))
            }
            ExprData::Access(m, k) => {
                let Part::Shape(ms) = self.expr_depth(m, span, depth + 1)? else {
                    return Err(CompileError::at("a symbol is accessed as a map", span));
                };
                let SNode::Map(kc, vs) = self.node(ms) else {
                    return Err(CompileError::at("a symbol is accessed as a map", span));
                };
                match self.expr_depth(k, span, depth + 1)? {
                    Part::Lit(s) => self.add_symbol(kc, s),
                    Part::Shape(ks) => match self.node(ks) {
                        SNode::Scalar(c) => self.union_class(c, kc),
                        SNode::Map(..) => {
                            return Err(CompileError::at("a map used as an access key", span));
                        }
                    },
                }
                Ok(Part::Shape(vs))
            }
        }
    }

    /// Unifies the two sides of an assignment or comparison. Returns `false` when one side is a
    /// map and the other a symbol (such a comparison never holds).
    fn meet(&mut self, l: Part, r: Part, span: Option<Span>) -> Result<bool, CompileError> {
        match (l, r) {
            (Part::Lit(_), Part::Lit(_)) => Ok(true),
            (Part::Shape(s), Part::Lit(x)) | (Part::Lit(x), Part::Shape(s)) => match self.node(s) {
                SNode::Scalar(c) => {
                    self.add_symbol(c, x);
                    Ok(true)
                }
                SNode::Map(..) => Ok(false),
            },
            (Part::Shape(a), Part::Shape(b)) => {
                let scalar = |n: SNode| matches!(n, SNode::Scalar(_));
                let (na, nb) = (self.node(a), self.node(b));
                if scalar(na) != scalar(nb) {
                    return Ok(false);
                }
                self.unify(a, b, span)?;
                Ok(true)
            }
        }
    }
}

/// Builds the runtime value of a declared value (see [`RtVal`]): `visible` says whether a name is
/// a constant whose value it denotes.
fn runtime_value(
    game: &Game,
    v: ValueId,
    consts: &HashMap<Symbol, RtVal>,
    visible: &dyn Fn(Symbol) -> bool,
    span: Option<Span>,
) -> Result<RtVal, CompileError> {
    // Values nest as deep as their type; bound it like the types.
    fn go(
        game: &Game,
        v: ValueId,
        consts: &HashMap<Symbol, RtVal>,
        visible: &dyn Fn(Symbol) -> bool,
        span: Option<Span>,
        depth: usize,
    ) -> Result<RtVal, CompileError> {
        if depth > MAX_NESTING + 1 {
            return Err(CompileError::at(
                format!("a value is nested deeper than {MAX_NESTING} levels"),
                span,
            ));
        }
        match game.value(v) {
            ValueData::Element(s) => {
                if visible(*s)
                    && let Some(c) = consts.get(s)
                {
                    return Ok(c.clone());
                }
                Ok(RtVal::Elem(*s))
            }
            ValueData::Map(entries) => {
                let Some(d) = entries.iter().find(|e| e.key.is_none()) else {
                    return Err(CompileError::at(
                        "a map value without a default entry",
                        span,
                    ));
                };
                let default = go(game, d.value, consts, visible, span, depth + 1)?;
                let mut es = BTreeMap::new();
                for e in entries.iter() {
                    if let Some(k) = e.key {
                        let val = go(game, e.value, consts, visible, span, depth + 1)?;
                        es.insert(k, val);
                    }
                }
                Ok(RtVal::Map(Box::new(default), es))
            }
        }
    }
    go(game, v, consts, visible, span, 0)
}

/// Resolves a unified shape into a [`Shape`] tree with dense class ids.
fn resolve_shape(
    u: &mut Unifier<'_>,
    s: usize,
    dense: &mut HashMap<usize, usize>,
) -> Result<Shape, CompileError> {
    let mut keys = Vec::new();
    let mut cur = s;
    loop {
        match u.node(cur) {
            SNode::Scalar(c) => {
                let r = u.class_uf.find(c);
                let next = dense.len();
                let leaf = *dense.entry(r).or_insert(next);
                let mut shape = Shape::Scalar(leaf);
                for (k, ext) in keys.into_iter().rev() {
                    shape = Shape::Map {
                        key: k,
                        val: Box::new(shape),
                        ext,
                    };
                }
                return Ok(shape);
            }
            SNode::Map(k, v) => {
                if keys.len() > MAX_NESTING {
                    return Err(CompileError::at(
                        format!("maps are nested deeper than {MAX_NESTING} levels"),
                        None,
                    ));
                }
                let r = u.class_uf.find(k);
                let next = dense.len();
                let ext = u.ext_roots.contains(&u.shape_uf.find(cur));
                keys.push((*dense.entry(r).or_insert(next), ext));
                cur = v;
            }
        }
    }
}

/// Writes the elements of `v` (of shape `shape`) row-major into `out`.
fn flatten(v: &RtVal, shape: &Shape, classes: &[Class], out: &mut Vec<u32>) {
    flatten_with(v, shape, classes, out, |c, x| {
        classes[c].local(x).expect("every value is in its class")
    });
}

/// Writes the elements of `v` (of shape `shape`) row-major into `out`, a scalar `x` of class
/// `c` as `local(c, x)`: a map's entries in key order (an unlisted one as its default), then
/// for an explicit map a flag per key (1 when the key is listed) and its default.
pub(crate) fn flatten_with(
    v: &RtVal,
    shape: &Shape,
    classes: &[Class],
    out: &mut Vec<u32>,
    local: impl Fn(usize, Symbol) -> u32,
) {
    enum Work<'a> {
        Val(&'a RtVal, &'a Shape),
        Num(u32),
    }
    // Iterative: the work in output order, last first.
    let mut work: Vec<Work<'_>> = vec![Work::Val(v, shape)];
    while let Some(w) = work.pop() {
        let (v, s) = match w {
            Work::Num(x) => {
                out.push(x);
                continue;
            }
            Work::Val(v, s) => (v, s),
        };
        match (v, s) {
            (RtVal::Elem(x), Shape::Scalar(c)) => out.push(local(*c, *x)),
            (RtVal::Map(d, es), Shape::Map { key, val, ext }) => {
                let members = &classes[*key].members;
                if *ext {
                    work.push(Work::Val(d, val));
                    for k in members.iter().rev() {
                        work.push(Work::Num(u32::from(es.contains_key(k))));
                    }
                }
                for k in members.iter().rev() {
                    work.push(Work::Val(es.get(k).unwrap_or(d), val));
                }
            }
            _ => {}
        }
    }
}

/// A constant in declaration order: its name, shape node and span.
type ConstDecl = (Symbol, usize, Option<Span>);
/// A variable in declaration order: its name, shape node, initial value, span and type.
type VarDecl = (Symbol, usize, RtVal, Option<Span>, TypeId);
/// The variables' shapes, the constants' shapes and the classes, in dense class numbers.
type DenseShapes = (Vec<Shape>, Vec<Shape>, Vec<Class>);

impl Unifier<'_> {
    /// Decides which map shapes are stored explicitly (see the module doc): a map level of a
    /// variable's places, or of places compared as whole maps, whose values may list an entry
    /// equal to their default or do not all have one default. Every other level keeps the
    /// plain array, which is exact there. Runs after the edge labels are unified.
    fn explicit_maps(
        &mut self,
        var_order: &[VarDecl],
        const_order: &[ConstDecl],
        const_vals: &HashMap<Symbol, RtVal>,
    ) {
        #[derive(Default)]
        struct Info<'v> {
            stateful: bool,
            lists_default: bool,
            default: Option<&'v RtVal>,
            differ: bool,
        }
        // The compared shapes and every level below them.
        let mut compared = std::collections::HashSet::new();
        for s in std::mem::take(&mut self.compared) {
            let mut cur = s;
            loop {
                let r = self.shape_uf.find(cur);
                if !compared.insert(r) {
                    break;
                }
                match self.shapes[r] {
                    SNode::Map(_, v) => cur = v,
                    SNode::Scalar(_) => break,
                }
            }
        }
        let mut sources: Vec<(usize, &RtVal, bool)> = var_order
            .iter()
            .map(|(_, s, init, _, _)| (*s, init, true))
            .collect();
        for (name, s, _) in const_order {
            sources.push((*s, &const_vals[name], false));
        }
        let mut info: HashMap<usize, Info<'_>> = HashMap::new();
        for (s, value, stateful) in sources {
            // Level by level (bounded by the shape's depth): the maps at that depth.
            let mut node = s;
            let mut level: Vec<&RtVal> = vec![value];
            loop {
                let r = self.shape_uf.find(node);
                let SNode::Map(_, child) = self.shapes[r] else {
                    break;
                };
                let e = info.entry(r).or_default();
                e.stateful |= stateful;
                let mut next = Vec::new();
                for v in level {
                    if let RtVal::Map(d, es) = v {
                        e.lists_default |= es.values().any(|x| x == d.as_ref());
                        match e.default {
                            None => e.default = Some(d),
                            Some(x) => e.differ |= x != d.as_ref(),
                        }
                        next.push(d.as_ref());
                        next.extend(es.values());
                    }
                }
                level = next;
                node = child;
            }
        }
        for (r, e) in info {
            if (e.stateful || compared.contains(&r)) && (e.lists_default || e.differ) {
                self.ext_roots.insert(r);
            }
        }
    }

    /// Unifies the constants in order, each seeing the earlier ones (the first declaration of a
    /// name wins); returns their values and their declarations.
    fn constants(&mut self) -> Result<(HashMap<Symbol, RtVal>, Vec<ConstDecl>), CompileError> {
        let game = self.game;
        let mut const_vals: HashMap<Symbol, RtVal> = HashMap::new();
        let mut const_order: Vec<ConstDecl> = Vec::new();
        for c in &game.constants {
            if self.const_shape.contains_key(&c.name) {
                continue;
            }
            let span = c.spans.whole;
            let shape = self.shape_of_type(c.ty, span)?;
            let earlier = &const_vals;
            let value = runtime_value(game, c.value, earlier, &|s| earlier.contains_key(&s), span)?;
            self.add_value(&value, shape, span)?;
            const_vals.insert(c.name, value);
            self.const_shape.insert(c.name, shape);
            const_order.push((c.name, shape, span));
        }
        // A constant named inside another constant's value shares its classes.
        for c in &game.constants {
            let Some(&shape) = self.const_shape.get(&c.name) else {
                continue;
            };
            unify_constant_refs(self, game, c.value, shape, c.spans.whole)?;
        }
        Ok((const_vals, const_order))
    }

    /// Unifies the variables (the first declaration of a name wins) with their initial values.
    fn variables(
        &mut self,
        const_vals: &HashMap<Symbol, RtVal>,
    ) -> Result<Vec<VarDecl>, CompileError> {
        let game = self.game;
        let mut var_order: Vec<VarDecl> = Vec::new();
        for v in &game.variables {
            if self.var_shape.contains_key(&v.name) {
                continue;
            }
            let span = v.spans.whole;
            let shape = self.shape_of_type(v.ty, span)?;
            let value = runtime_value(game, v.init, const_vals, &|_| true, span)?;
            self.add_value(&value, shape, span)?;
            unify_constant_refs(self, game, v.init, shape, span)?;
            self.var_shape.insert(v.name, shape);
            var_order.push((v.name, shape, value, span, v.ty));
        }
        Ok(var_order)
    }

    /// Unifies the shapes and classes an edge label relates: both sides of an assignment or a
    /// comparison, the members an any-assignment may store.
    fn label(&mut self, label: Label, span: Option<Span>) -> Result<(), CompileError> {
        let game = self.game;
        match label {
            Label::Assign { lhs, rhs } => {
                let l = self.expr(lhs, span)?;
                let r = self.expr(rhs, span)?;
                if matches!(l, Part::Lit(_)) {
                    return Err(CompileError::at(
                        "an assignment stores into a literal symbol",
                        span,
                    ));
                }
                if !self.meet(l, r, span)? {
                    return Err(CompileError::at(
                        "the assigned value has another shape than its location",
                        span,
                    ));
                }
            }
            Label::AssignAny { lhs, ty } => {
                let Part::Shape(l) = self.expr(lhs, span)? else {
                    return Err(CompileError::at(
                        "an assignment stores into a literal symbol",
                        span,
                    ));
                };
                let SNode::Scalar(c) = self.node(l) else {
                    return Err(CompileError::at("`T(*)` assigned to a map location", span));
                };
                match self.env.resolve(ty) {
                    Ok(Resolved::Set(ms)) => {
                        for &m in ms.as_slice() {
                            self.add_symbol(c, m);
                        }
                    }
                    _ => {
                        return Err(CompileError::at(
                            format!("`{}(*)` needs a set type", self.type_text(ty)),
                            span,
                        ));
                    }
                }
            }
            Label::Compare { lhs, rhs, .. } => {
                let l = self.expr(lhs, span)?;
                let r = self.expr(rhs, span)?;
                if self.meet(l, r, span)?
                    && let Part::Shape(s) = l
                    && matches!(self.node(s), SNode::Map(..))
                {
                    self.compared.push(s);
                }
            }
            Label::TagVar(v) => match self.var_shape.get(&v).copied().map(|s| self.node(s)) {
                Some(SNode::Scalar(_)) => {}
                Some(SNode::Map(..)) => {
                    return Err(CompileError::at(
                        format!("`$$ {}` tags with a map", game.name(v)),
                        span,
                    ));
                }
                None => {
                    return Err(CompileError::at(
                        format!("`$$ {}`: no such variable", game.name(v)),
                        span,
                    ));
                }
            },
            Label::Skip | Label::Tag(_) | Label::Reach { .. } => {}
        }
        Ok(())
    }

    /// Numbers the classes densely (variables' first, then constants', then the rest) with
    /// their members in symbol order; returns the variables' and constants' shapes in these
    /// numbers and the classes.
    fn dense_classes(
        &mut self,
        var_order: &[VarDecl],
        const_order: &[ConstDecl],
    ) -> Result<DenseShapes, CompileError> {
        let mut dense: HashMap<usize, usize> = HashMap::new();
        let mut var_shapes = Vec::new();
        for (_, s, _, _, _) in var_order {
            var_shapes.push(resolve_shape(self, *s, &mut dense)?);
        }
        let mut const_shapes = Vec::new();
        for (_, s, _) in const_order {
            const_shapes.push(resolve_shape(self, *s, &mut dense)?);
        }
        // Classes only reached through literals still need an id (for edge literals, handled by
        // the code generator through their context); make every root dense.
        for c in 0..self.class_syms.len() {
            let r = self.class_uf.find(c);
            let next = dense.len();
            dense.entry(r).or_insert(next);
        }
        let mut classes: Vec<Class> = vec![
            Class {
                members: Vec::new(),
                index: HashMap::new(),
            };
            dense.len()
        ];
        for (&root, &id) in &dense {
            let mut ms = self.class_syms[root].clone();
            ms.sort_unstable();
            ms.dedup();
            let index = ms.iter().enumerate().map(|(i, &s)| (s, i as u32)).collect();
            classes[id] = Class { members: ms, index };
        }
        Ok((var_shapes, const_shapes, classes))
    }
}

/// The constants' data (their elements flattened) and their numbers by name.
fn const_data(
    game: &Game,
    const_order: Vec<ConstDecl>,
    const_shapes: Vec<Shape>,
    mut const_vals: HashMap<Symbol, RtVal>,
    classes: &[Class],
) -> Result<(Vec<ConstData>, HashMap<Symbol, usize>), CompileError> {
    let mut consts = Vec::new();
    let mut const_by_name = HashMap::new();
    for ((name, _, span), shape) in const_order.into_iter().zip(const_shapes) {
        let value = const_vals.remove(&name).expect("built above");
        let n = shape.elements(classes);
        if n > MAX_CONST_ELEMENTS {
            return Err(CompileError::at(
                format!(
                    "constant `{}` has {n} elements, more than {MAX_CONST_ELEMENTS}",
                    game.name(name)
                ),
                span,
            ));
        }
        let mut elements = Vec::with_capacity(n as usize);
        flatten(&value, &shape, classes, &mut elements);
        const_by_name.insert(name, consts.len());
        consts.push(ConstData {
            name,
            shape,
            value,
            elements,
        });
    }
    Ok((consts, const_by_name))
}

/// The variables' fields (not yet placed) and their numbers by name.
fn var_fields(
    game: &Game,
    env: &TypeEnv<'_>,
    var_order: Vec<VarDecl>,
    var_shapes: Vec<Shape>,
    classes: &[Class],
) -> Result<(Vec<Field>, HashMap<Symbol, usize>), CompileError> {
    let wk = *game.well_known();
    let mut vars = Vec::new();
    let mut var_by_name = HashMap::new();
    for ((name, _, init, span, ty), shape) in var_order.into_iter().zip(var_shapes) {
        let mut explicit = 0;
        let mut level = &shape;
        while let Shape::Map { val, ext, .. } = level {
            explicit += usize::from(*ext);
            level = val;
        }
        if explicit > MAX_EXPLICIT_LEVELS {
            return Err(CompileError::at(
                format!(
                    "`{}` nests {explicit} map levels whose values list entries equal to their \
                     defaults or change their defaults, more than {MAX_EXPLICIT_LEVELS}",
                    game.name(name)
                ),
                span,
            ));
        }
        let ordinary = name != wk.goals && name != wk.player && name != wk.visible;
        let count = shape.elements(classes);
        // Maps of 2- and 4-bit values are stored a byte per entry: reading a byte is one
        // load, a packed entry needs shifts, and such maps are typically boards read at
        // every step of a move search. Maps of bits (GDL fluents) stay packed.
        // Presence flags take a bit.
        let width = match classes[shape.leaf()].width() {
            2 | 4 if count > 1 => 8,
            0 if shape.has_ext() => 1,
            w => w,
        };
        let domains = declared_domains(env, ty, &shape, classes);
        var_by_name.insert(name, vars.len());
        vars.push(Field {
            name,
            shape,
            count,
            width,
            bit: 0,
            ordinary,
            init,
            domains,
            span,
        });
    }
    Ok((vars, var_by_name))
}

impl Layout {
    /// Computes the classes and the state layout of `game`.
    pub fn new(game: &Game) -> Result<Layout, CompileError> {
        let env = TypeEnv::new(game);
        let mut u = Unifier {
            game,
            env,
            class_uf: UnionFind::default(),
            class_syms: Vec::new(),
            shape_uf: UnionFind::default(),
            shapes: Vec::new(),
            var_shape: HashMap::new(),
            const_shape: HashMap::new(),
            compared: Vec::new(),
            ext_roots: Default::default(),
        };
        let wk = *game.well_known();

        let (const_vals, const_order) = u.constants()?;
        let var_order = u.variables(&const_vals)?;
        if !u.var_shape.contains_key(&wk.player) {
            return Err(CompileError::at("the game has no variable `player`", None));
        }

        // Edge labels.
        let mut edges: Vec<_> = game.edges().collect();
        edges.sort_by_key(|(id, _)| *id);
        for (_, e) in &edges {
            u.label(e.label, e.spans.whole)?;
        }

        u.explicit_maps(&var_order, &const_order, &const_vals);
        let (var_shapes, const_shapes, classes) = u.dense_classes(&var_order, &const_order)?;
        let (consts, const_by_name) =
            const_data(game, const_order, const_shapes, const_vals, &classes)?;
        let (mut vars, var_by_name) = var_fields(game, &u.env, var_order, var_shapes, &classes)?;
        let (ordinary_bytes, state_bytes) = place_fields(&mut vars)?;
        let mut init = vec![0u8; state_bytes as usize];
        for f in &vars {
            let mut elems = Vec::with_capacity(f.count as usize);
            flatten(&f.init, &f.shape, &classes, &mut elems);
            for (i, &x) in elems.iter().enumerate() {
                write_bits(&mut init, f.bit + i as u64 * u64::from(f.width), f.width, x);
            }
        }
        let player = var_by_name[&wk.player];
        if !matches!(vars[player].shape, Shape::Scalar(_)) {
            return Err(CompileError::at(
                "the variable `player` holds a map",
                vars[player].span,
            ));
        }
        let goals = var_by_name.get(&wk.goals).copied();
        let visible = var_by_name.get(&wk.visible).copied();
        let explicit_maps =
            vars.iter().any(|f| f.shape.has_ext()) || consts.iter().any(|c| c.shape.has_ext());
        Ok(Layout {
            explicit_maps,
            classes,
            vars,
            var_by_name,
            consts,
            const_by_name,
            ordinary_bytes,
            state_bytes,
            init,
            player,
            goals,
            visible,
        })
    }

    /// The constant or variable value a symbol names in a value (for constant references in
    /// values, which the unifier links to the named constant's classes).
    pub fn class_name(&self, game: &Game, c: usize) -> String {
        let ms = &self.classes[c].members;
        let shown: Vec<&str> = ms.iter().take(4).map(|&s| game.name(s)).collect();
        format!(
            "{{{}{}}}",
            shown.join(", "),
            if ms.len() > 4 { ", …" } else { "" }
        )
    }

    /// The class-local number of `s` in class `class`; an error at `span` when `s` is not
    /// among the class's values.
    pub fn literal(
        &self,
        game: &Game,
        s: Symbol,
        class: usize,
        span: Option<Span>,
    ) -> Result<u32, CompileError> {
        self.classes[class].local(s).ok_or_else(|| {
            CompileError::at(
                format!(
                    "symbol `{}` cannot occur among the values {}",
                    game.name(s),
                    self.class_name(game, class)
                ),
                span,
            )
        })
    }
}

/// Links the classes of a value's constant references with the constant they name (the value
/// is a copy of that constant's value).
fn unify_constant_refs(
    u: &mut Unifier<'_>,
    game: &Game,
    v: ValueId,
    shape: usize,
    span: Option<Span>,
) -> Result<(), CompileError> {
    let mut work = vec![(v, shape)];
    while let Some((v, s)) = work.pop() {
        match game.value(v) {
            ValueData::Element(x) => {
                if let Some(&cs) = u.const_shape.get(x)
                    && cs != s
                {
                    // Only when the shapes agree (a symbol spelled like a constant of another
                    // shape is the symbol itself where a scalar is expected).
                    let scalar = |n: SNode| matches!(n, SNode::Scalar(_));
                    if scalar(u.node(cs)) == scalar(u.node(s)) {
                        u.unify(cs, s, span)?;
                    }
                }
            }
            ValueData::Map(entries) => {
                if let SNode::Map(_, val) = u.node(s) {
                    for e in entries.iter() {
                        work.push((e.value, val));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Per map level of a variable, which keys of the level's class its declared type admits.
fn declared_domains(
    env: &TypeEnv<'_>,
    ty: TypeId,
    shape: &Shape,
    classes: &[Class],
) -> Vec<Option<Vec<bool>>> {
    let mut out = Vec::new();
    let mut t = ty;
    for key in shape.keys() {
        let Ok(Resolved::Arrow(k, v)) = env.resolve(t) else {
            break;
        };
        let members = match env.resolve(k) {
            Ok(Resolved::Set(ms)) => ms.as_slice().to_vec(),
            _ => Vec::new(),
        };
        let class = &classes[key];
        let mut mask = vec![false; class.members.len()];
        for m in members {
            if let Some(i) = class.local(m) {
                mask[i as usize] = true;
            }
        }
        out.push(if mask.iter().all(|&b| b) {
            None
        } else {
            Some(mask)
        });
        t = v;
    }
    out
}

/// Assigns bit offsets; returns the bytes of the ordinary part and of the whole state.
fn place_fields(vars: &mut [Field]) -> Result<(u64, u64), CompileError> {
    let mut cursor = 0u64;
    let mut ordinary_bytes = 0;
    for ordinary in [true, false] {
        let mut idx: Vec<usize> = (0..vars.len())
            .filter(|&i| vars[i].ordinary == ordinary && vars[i].width > 0)
            .collect();
        // Narrow fields first (widest of them first, so alignment leaves no holes), then bytes,
        // then wider words; declaration order within one width.
        idx.sort_by_key(|&i| {
            let w = vars[i].width;
            if w < 8 { (0, 8 - w) } else { (1, w) }
        });
        for i in idx {
            let w = u64::from(vars[i].width);
            let align = if w < 8 { w } else { w.max(8) };
            cursor = cursor.div_ceil(align) * align;
            vars[i].bit = cursor;
            cursor = cursor.saturating_add(vars[i].count.saturating_mul(w));
            if cursor / 8 > MAX_STATE_BYTES {
                return Err(CompileError::at(
                    format!(
                        "the state needs more than {MAX_STATE_BYTES} bytes (variable with {} elements)",
                        vars[i].count
                    ),
                    vars[i].span,
                ));
            }
        }
        cursor = cursor.div_ceil(64) * 64;
        if ordinary {
            ordinary_bytes = cursor / 8;
        }
    }
    Ok((ordinary_bytes, (cursor / 8).max(8)))
}

/// Writes `width` bits of `x` at bit `bit` of `bytes` (little-endian within a field).
pub(crate) fn write_bits(bytes: &mut [u8], bit: u64, width: u32, x: u32) {
    match width {
        0 => {}
        1 | 2 | 4 => {
            let byte = (bit / 8) as usize;
            let shift = (bit % 8) as u32;
            let mask = ((1u32 << width) - 1) as u8;
            bytes[byte] = (bytes[byte] & !(mask << shift)) | (((x as u8) & mask) << shift);
        }
        _ => {
            let byte = (bit / 8) as usize;
            let n = (width / 8) as usize;
            bytes[byte..byte + n].copy_from_slice(&x.to_le_bytes()[..n]);
        }
    }
}
