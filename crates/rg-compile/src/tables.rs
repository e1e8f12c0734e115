//! The table model: a game's automaton as constant arrays, walked by a fixed engine
//! (`cpp/tables.inc`).
//!
//! The function model ([`crate::codegen`]) writes one C++ function per node and search kind,
//! which is what makes small and medium games fast, but the translations of large GDL games
//! have 10^5–10^6 nodes, and their C++ takes the compiler minutes. For them the automaton is
//! emitted as data instead: per node its first edge and its pragmas, per edge its target, kind
//! and two operands, the code of the expressions (a small stack machine over the packed state
//! of [`crate::layout`]), the members of any-assignments and the domains of map stores. Arrays
//! compile in a fraction of the time functions take. The engine runs the interpreter's search
//! itself: a depth-first search with an explicit pending stack (successors pushed in edge
//! order, finished moves output last in, first out), the visited-state check per node, tags and
//! ordinary part (or the `@repeat` variables; none at `@unique` nodes), covering `@disjoint`
//! nodes stopping at their first successful edge, and reachability checks as nested searches
//! cached per expansion, so that moves come in the interpreter's order.

use crate::error::CompileError;
use crate::layout::{Layout, NameRef, Shape};
use crate::search::{SearchPlan, Visit, assigns_player};
use rg_core::{EdgeId, ExprData, ExprId, Game, Label, Span, Symbol};
use std::collections::HashMap;
use std::fmt::Write;

// Edge kinds (`TE_KIND`); keep in step with `cpp/tables.inc`.
const K_SKIP: u32 = 0;
const K_TAG: u32 = 1;
const K_TAGVAR: u32 = 2;
const K_ASSIGN: u32 = 3;
const K_ASSIGN_PLAYER: u32 = 4;
const K_ANY: u32 = 5;
const K_ANY_PLAYER: u32 = 6;
const K_CMP: u32 = 7;
const K_CMP_NOT: u32 = 8;
const K_REACH: u32 = 9;
const K_REACH_NOT: u32 = 10;
const K_TEST: u32 = 11;
const K_TEST_NOT: u32 = 12;
const K_SET: u32 = 13;
const K_SET_PLAYER: u32 = 14;

// Expression code (`CODE`).
const O_END: u32 = 0;
const O_LIT: u32 = 1;
const O_VAR: u32 = 2;
const O_CONST: u32 = 3;
const O_INDEX: u32 = 4;
const O_READ: u32 = 5;
const O_DOMAIN: u32 = 6;
const O_EQ: u32 = 7;
const O_EQRUN: u32 = 8;
const O_STORE: u32 = 9;
const O_STORERUN: u32 = 10;
// Only in games with explicit maps (the engine's cases for them are added then).
const O_SAVE: u32 = 11;
const O_FLAG: u32 = 12;

// Node flags (`TN_FLAGS`).
const N_UNIQUE: u32 = 1;
const N_DISJOINT: u32 = 2;
const N_REPEAT: u32 = 4;
const N_SWITCH: u32 = 8;

/// Nodes with fewer edges than this test their values edge by edge (an index does not pay).
const SWITCH_MIN_EDGES: usize = 4;

/// A compiled expression.
enum Opnd {
    /// A bare symbol: its number depends on the class of the place it meets.
    Lit(Symbol),
    /// Code leaving a scalar of this class on the stack.
    Scalar(Vec<u32>, usize),
    /// Code leaving a run of elements (a map value) on the stack.
    Run {
        code: Vec<u32>,
        shape: Shape,
        /// The variable (`Ok`) or constant (`Err`) it lives in and its map depth there.
        src: Result<usize, usize>,
        depth: usize,
    },
}

/// The data of one game.
struct Tables<'a> {
    game: &'a Game,
    layout: &'a Layout,
    code: Vec<u32>,
    members: Vec<u32>,
    member_ids: HashMap<Vec<u32>, u32>,
    domains: Vec<u8>,
    domain_ids: HashMap<(usize, usize), u32>,
    symtab: Vec<u32>,
    class_at: HashMap<usize, u32>,
    max_stack: u32,
}

impl Tables<'_> {
    fn literal(&self, s: Symbol, class: usize, span: Option<Span>) -> Result<u32, CompileError> {
        self.layout.literal(self.game, s, class, span)
    }

    /// Compiles `e` (recursion bounded by the layout's expression depth limit, which every
    /// expression of a game it accepted is within).
    fn operand(&self, e: ExprId, span: Option<Span>) -> Result<Opnd, CompileError> {
        let e = self.game.strip_casts(e);
        match self.game.expr(e) {
            ExprData::Cast(..) => unreachable!("casts stripped"),
            ExprData::Ref(x) => Ok(match self.layout.name_ref(self.game, x) {
                NameRef::Literal(s) => Opnd::Lit(s),
                NameRef::Var(v) => match &self.layout.vars[v].shape {
                    Shape::Scalar(c) => Opnd::Scalar(vec![O_VAR, v as u32, O_READ], *c),
                    shape => Opnd::Run {
                        code: vec![O_VAR, v as u32],
                        shape: shape.clone(),
                        src: Ok(v),
                        depth: 0,
                    },
                },
                NameRef::Const(k) => {
                    let c = &self.layout.consts[k];
                    match &c.shape {
                        Shape::Scalar(class) => Opnd::Scalar(vec![O_LIT, c.elements[0]], *class),
                        shape => Opnd::Run {
                            code: vec![O_CONST, k as u32],
                            shape: shape.clone(),
                            src: Err(k),
                            depth: 0,
                        },
                    }
                }
            }),
            ExprData::Access(m, k) => {
                let Opnd::Run {
                    mut code,
                    shape: Shape::Map { key, val, .. },
                    src,
                    depth,
                } = self.operand(m, span)?
                else {
                    return Err(CompileError::at("a symbol is accessed as a map", span));
                };
                code.extend(self.scalar_in(k, key, span)?);
                let stride = val.elements(&self.layout.classes);
                code.extend([O_INDEX, stride_u32(stride, span)?]);
                Ok(match *val {
                    Shape::Scalar(class) => {
                        code.push(O_READ);
                        Opnd::Scalar(code, class)
                    }
                    shape => Opnd::Run {
                        code,
                        shape,
                        src,
                        depth: depth + 1,
                    },
                })
            }
        }
    }

    /// Code leaving `e`, a scalar of class `class`, on the stack.
    fn scalar_in(
        &self,
        e: ExprId,
        class: usize,
        span: Option<Span>,
    ) -> Result<Vec<u32>, CompileError> {
        match self.operand(e, span)? {
            Opnd::Lit(s) => Ok(vec![O_LIT, self.literal(s, class, span)?]),
            Opnd::Scalar(code, _) => Ok(code),
            Opnd::Run { .. } => Err(CompileError::at("a map used as a symbol", span)),
        }
    }

    /// Code leaving the location `e` names (a run of its variable) on the stack, checking
    /// that the keys of its accesses are in their maps' declared domains; its shape and map
    /// depth.
    fn location(&mut self, e: ExprId, span: Option<Span>) -> Result<Located, CompileError> {
        // Iterative over the chain of accesses, outermost last.
        let mut keys = Vec::new();
        let mut cur = self.game.strip_casts(e);
        let root = loop {
            match self.game.expr(cur) {
                ExprData::Access(m, k) => {
                    keys.push(k);
                    cur = self.game.strip_casts(m);
                }
                ExprData::Ref(x) => break x,
                ExprData::Cast(..) => unreachable!("casts stripped"),
            }
        };
        let v = self.layout.assigned_var(self.game, root, span)?;
        let mut code = vec![O_VAR, v as u32];
        let mut shape = self.layout.vars[v].shape.clone();
        let mut depth = 0;
        let mut flags = Vec::new();
        for &k in keys.iter().rev() {
            let Shape::Map { key, val, ext } = shape else {
                return Err(CompileError::at("a symbol is accessed as a map", span));
            };
            // An explicit level: the map's run and its entry's are saved for the flag update.
            let slot = 2 * (flags.len() / 4) as u32;
            if ext {
                code.extend([O_SAVE, slot]);
            }
            code.extend(self.scalar_in(k, key, span)?);
            if let Some(Some(mask)) = self.layout.vars[v].domains.get(depth) {
                let n = self.domains.len() as u32;
                let off = *self.domain_ids.entry((v, depth)).or_insert(n);
                if off == n {
                    self.domains.extend(mask.iter().map(|&b| u8::from(b)));
                }
                code.extend([O_DOMAIN, off]);
            }
            let stride = val.elements(&self.layout.classes);
            code.extend([O_INDEX, stride_u32(stride, span)?]);
            if ext {
                code.extend([O_SAVE, slot + 1]);
                let keys = self.layout.classes[key].len();
                flags.push(O_FLAG);
                flags.extend([slot, stride_u32(stride, span)?, stride_u32(keys, span)?]);
            }
            shape = *val;
            depth += 1;
        }
        // Innermost first.
        let flags = flags.chunks(4).rev().flatten().copied().collect();
        Ok((code, v, shape, depth, flags))
    }

    /// The default of the maps a run holds, when it is the same for all (see the layout).
    fn default_at(&self, src: Result<usize, usize>, depth: usize) -> Option<&crate::layout::RtVal> {
        match src {
            Ok(v) => self.layout.vars[v].init.uniform_default(depth),
            Err(c) => self.layout.consts[c].value.uniform_default(depth),
        }
    }

    /// Appends `code` and `O_END` to the code; returns where it starts.
    fn add_code(&mut self, code: Vec<u32>) -> u32 {
        // The deepest the stack gets (the engine's stack is an array of the game's maximum).
        let (mut depth, mut i) = (0i64, 0);
        while i < code.len() {
            let (change, operands) = match code[i] {
                O_END => (0, 0),
                O_SAVE => (0, 1),
                O_FLAG => (0, 3),
                O_LIT | O_VAR | O_CONST => (1, 1),
                O_INDEX | O_EQRUN => (-1, 1),
                O_DOMAIN => (0, 1),
                O_READ => (0, 0),
                O_EQ => (-1, 0),
                O_STORE => (-2, 0),
                _ => (-2, 1),
            };
            depth += change;
            self.max_stack = self.max_stack.max(depth as u32);
            i += 1 + operands;
        }
        let at = self.code.len() as u32;
        self.code.extend(code);
        self.code.push(O_END);
        at
    }

    /// The code of `lhs == rhs`, leaving 1 or 0.
    fn equality(
        &self,
        lhs: ExprId,
        rhs: ExprId,
        span: Option<Span>,
    ) -> Result<Vec<u32>, CompileError> {
        let l = self.operand(lhs, span)?;
        let r = self.operand(rhs, span)?;
        Ok(match (l, r) {
            (Opnd::Lit(a), Opnd::Lit(b)) => vec![O_LIT, u32::from(a == b)],
            (Opnd::Lit(a), Opnd::Scalar(mut code, class))
            | (Opnd::Scalar(mut code, class), Opnd::Lit(a)) => {
                code.extend([O_LIT, self.literal(a, class, span)?, O_EQ]);
                code
            }
            (Opnd::Scalar(mut a, _), Opnd::Scalar(b, _)) => {
                a.extend(b);
                a.push(O_EQ);
                a
            }
            (
                Opnd::Run {
                    code: mut a,
                    shape,
                    src: sa,
                    depth: da,
                },
                Opnd::Run {
                    code: b,
                    src: sb,
                    depth: db,
                    ..
                },
            ) => {
                // An explicit map holds its default and presence flags among its elements.
                let explicit = matches!(shape, Shape::Map { ext: true, .. });
                let (x, y) = (self.default_at(sa, da), self.default_at(sb, db));
                if !explicit && (x.is_none() || y.is_none()) {
                    return Err(CompileError::at(
                        "a comparison of maps whose defaults differ between their entries",
                        span,
                    ));
                }
                if !explicit && x != y {
                    vec![O_LIT, 0]
                } else {
                    let n = shape.elements(&self.layout.classes);
                    a.extend(b);
                    a.extend([O_EQRUN, stride_u32(n, span)?]);
                    a
                }
            }
            // A symbol never equals a map.
            _ => vec![O_LIT, 0],
        })
    }

    /// The offset in `SYMTAB` of class `c`'s table (local number -> symbol id).
    fn class_table(&mut self, c: usize) -> u32 {
        if let Some(&at) = self.class_at.get(&c) {
            return at;
        }
        let at = self.symtab.len() as u32;
        self.symtab
            .extend(self.layout.classes[c].members.iter().map(|s| s.0));
        self.class_at.insert(c, at);
        at
    }

    /// The kind and operands of edge `e`.
    fn edge(&mut self, e: EdgeId) -> Result<(u32, u32, u32), CompileError> {
        let game = self.game;
        let data = game.edge(e);
        let span = data.spans.whole;
        Ok(match data.label {
            Label::Skip => (K_SKIP, 0, 0),
            Label::Tag(s) => (K_TAG, s.0, 0),
            Label::TagVar(v) => {
                let var = *self.layout.var_by_name.get(&v).ok_or_else(|| {
                    CompileError::at(format!("`$$ {}`: no such variable", game.name(v)), span)
                })?;
                let Shape::Scalar(class) = self.layout.vars[var].shape else {
                    return Err(CompileError::at(
                        format!("`$$ {}` tags with a map", game.name(v)),
                        span,
                    ));
                };
                (K_TAGVAR, var as u32, self.class_table(class))
            }
            Label::Assign { lhs, rhs } => {
                let (mut code, v, shape, depth, flags) = self.location(lhs, span)?;
                match &shape {
                    Shape::Scalar(class) => {
                        code.extend(self.scalar_in(rhs, *class, span)?);
                        code.push(O_STORE);
                    }
                    shape => {
                        let n = shape.elements(&self.layout.classes);
                        let Opnd::Run {
                            code: rcode,
                            src,
                            depth: sdepth,
                            ..
                        } = self.operand(rhs, span)?
                        else {
                            return Err(CompileError::at(
                                "the assigned value has another shape than its location",
                                span,
                            ));
                        };
                        // An explicit level stores its default with the value.
                        let explicit = matches!(shape, Shape::Map { ext: true, .. });
                        let target = self.default_at(Ok(v), depth);
                        if !explicit && (target.is_none() || target != self.default_at(src, sdepth))
                        {
                            return Err(CompileError::map_default(span));
                        }
                        code.extend(rcode);
                        code.extend([O_STORERUN, stride_u32(n, span)?]);
                    }
                }
                code.extend(flags);
                let player = assigns_player(game, &data.label);
                // A literal stored at a fixed element: one table read.
                if let Some((v, idx, [O_LIT, x, O_STORE])) = fixed_element(&code)
                    && let Some(at) = bit_operand(self.layout, v, idx)
                {
                    return Ok((if player { K_SET_PLAYER } else { K_SET }, at, *x));
                }
                let kind = if player { K_ASSIGN_PLAYER } else { K_ASSIGN };
                (kind, self.add_code(code), 0)
            }
            Label::AssignAny { lhs, ty } => {
                let (mut code, _, shape, _, flags) = self.location(lhs, span)?;
                if self.layout.explicit_maps {
                    // The engine runs the flag updates after the location's end (see
                    // `TABLE_FLAG_ENGINE`).
                    code.push(O_END);
                    code.extend(flags);
                }
                let Shape::Scalar(class) = shape else {
                    return Err(CompileError::at("`T(*)` assigned to a map location", span));
                };
                let env = rg_core::typeck::TypeEnv::new(game);
                let Ok(rg_core::typeck::Resolved::Set(ms)) = env.resolve(ty) else {
                    return Err(CompileError::at("`T(*)` needs a set type", span));
                };
                let mut list = vec![ms.as_slice().len() as u32];
                for &m in ms.as_slice() {
                    list.push(self.literal(m, class, span)?);
                }
                let n = self.members.len() as u32;
                let at = *self.member_ids.entry(list.clone()).or_insert(n);
                if at == n {
                    self.members.extend(list);
                }
                let kind = if assigns_player(game, &data.label) {
                    K_ANY_PLAYER
                } else {
                    K_ANY
                };
                (kind, self.add_code(code), at)
            }
            Label::Compare { lhs, rhs, negated } => {
                let code = self.equality(lhs, rhs, span)?;
                // A fixed element compared with a literal.
                if let Some((v, idx, [O_READ, O_LIT, x, O_EQ])) = fixed_element(&code)
                    && let Some(at) = bit_operand(self.layout, v, idx)
                {
                    return Ok((if negated { K_TEST_NOT } else { K_TEST }, at, *x));
                }
                let kind = if negated { K_CMP_NOT } else { K_CMP };
                (kind, self.add_code(code), 0)
            }
            Label::Reach { from, to, negated } => {
                let kind = if negated { K_REACH_NOT } else { K_REACH };
                (kind, from.0, to.0)
            }
        })
    }
}

/// The element a location or access code names when all its keys are literals: `(variable,
/// element)`, and the rest of the code.
fn fixed_element(code: &[u32]) -> Option<(usize, u64, &[u32])> {
    let [O_VAR, v, rest @ ..] = code else {
        return None;
    };
    let mut idx = 0u64;
    let mut rest = rest;
    while let [O_LIT, k, O_INDEX, stride, tail @ ..] = rest {
        idx += u64::from(*k) * u64::from(*stride);
        rest = tail;
    }
    Some((*v as usize, idx, rest))
}

/// The operand of the fixed-element kinds: the element's bit position and the base-2
/// logarithm of its width (`None` for an element that takes no bits).
fn bit_operand(layout: &Layout, v: usize, idx: u64) -> Option<u32> {
    let f = &layout.vars[v];
    if f.width == 0 {
        return None;
    }
    let bit = f.bit + idx * u64::from(f.width);
    (bit < 1 << 28).then(|| (bit as u32) << 3 | f.width.trailing_zeros())
}

fn stride_u32(n: u64, span: Option<Span>) -> Result<u32, CompileError> {
    u32::try_from(n).map_err(|_| CompileError::at("a map has too many elements", span))
}

/// The table engine of a game with explicit maps: `engine` with the operations that keep their
/// presence flags (`O_SAVE slot` saves the item on top of the stack, `O_FLAG slot len keys`
/// sets the flag of the entry saved at `slot + 1` of the map saved at `slot` to whether the
/// entry differs from the map's default), and any-assignments running their location's flag
/// code (after its `O_END`) after each store. Other games keep the engine unchanged.
pub(crate) fn flag_engine(engine: &str) -> String {
    const EDITS: &[(&str, &str)] = &[
        (
            "O_STORE, O_STORERUN\n};",
            "O_STORE, O_STORERUN,\n  O_SAVE, O_FLAG\n};",
        ),
        (
            "  Moves tmp;\n};",
            "  Moves tmp;\n  Item saved[2 * 40];  // O_SAVE slots\n  uint32_t end_pc = 0;  // after the last O_END run\n};",
        ),
        (
            "      case O_END:\n        if (sp > 0) E.result = st[sp - 1];\n",
            "      case O_END:\n        E.end_pc = pc;\n        if (sp > 0) E.result = st[sp - 1];\n",
        ),
        (
            "      default: fail(\"bad table code\");",
            "      case O_SAVE: E.saved[CODE[pc++]] = st[sp - 1]; break;
      case O_FLAG: {
        const Item b = E.saved[CODE[pc]], en = E.saved[CODE[pc] + 1];
        const uint32_t len = CODE[pc + 1], keys = CODE[pc + 2];
        pc += 3;
        const uint32_t trailer = b.idx + keys * len;
        uint32_t differs = 0;
        for (uint32_t j = 0; j < len && !differs; ++j)
          differs = var_elem(E.cur, b.src, en.idx + j) != var_elem(E.cur, b.src, trailer + keys + j);
        if (len > 0) store_logged(E, b.src, trailer + (en.idx - b.idx) / len, differs);
        break;
      }
      default: fail(\"bad table code\");",
        ),
        (
            "          const Item loc = E.result;\n",
            "          const Item loc = E.result;\n          const uint32_t flags_pc = E.end_pc;\n",
        ),
        (
            "            store_logged(E, loc.src, loc.idx, ms[i]);\n",
            "            store_logged(E, loc.src, loc.idx, ms[i]);\n            run_code(E, flags_pc, ei);\n",
        ),
    ];
    let mut out = engine.to_string();
    for (from, to) in EDITS {
        debug_assert_eq!(out.matches(from).count(), 1, "{from}");
        out = out.replacen(from, to, 1);
    }
    out
}

/// A location's code (leaving its run on the stack), variable, shape and map depth, and the
/// code updating the presence flags of the explicit map levels it is inside (run after the
/// store).
type Located = (Vec<u32>, usize, Shape, usize, Vec<u32>);

/// Writes `name`'s items as a `Packed` array (`cpp/packed.inc`): their little-endian bytes in
/// string literals, which the C++ compiler reads many times faster than a list of numbers
/// (chess.kif's 91 MB of decimal initialisers took it 37 s).
pub(crate) fn array(out: &mut String, ty: &str, name: &str, items: &[u32]) {
    let size = match ty {
        "uint8_t" => 1,
        "uint16_t" => 2,
        _ => 4,
    };
    let mut bytes = Vec::with_capacity(items.len() * size);
    for &x in items {
        bytes.extend_from_slice(&x.to_le_bytes()[..size]);
    }
    let _ = write!(out, "const char {name}_BYTES[] =");
    bytes_literal(out, &bytes);
    let _ = writeln!(out, ";\nconstexpr Packed<{ty}> {name}{{{name}_BYTES}};");
}

/// `bytes` as adjacent C++ string literals of about 100 characters, one to a line: printable
/// characters as themselves, the others as octal escapes, written with all three digits only
/// where an octal digit follows (it would extend a shorter escape).
fn bytes_literal(out: &mut String, bytes: &[u8]) {
    const LINE: usize = 100;
    if bytes.is_empty() {
        out.push_str(" \"\"");
        return;
    }
    let mut line = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if line == 0 {
            out.push_str("\n    \"");
        }
        let start = out.len();
        if (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'?') {
            out.push(b as char);
        } else if bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n)) {
            let _ = write!(out, "\\{b:03o}");
        } else {
            let _ = write!(out, "\\{b:o}");
        }
        line += out.len() - start;
        if line >= LINE || i + 1 == bytes.len() {
            out.push('"');
            line = 0;
        }
    }
}

/// The smallest unsigned type holding every item.
pub(crate) fn int_type(items: &[u32]) -> &'static str {
    match items.iter().copied().max().unwrap_or(0) {
        0..=0xff => "uint8_t",
        0x100..=0xffff => "uint16_t",
        _ => "uint32_t",
    }
}

/// The C++ arrays of the game's automaton, as `cpp/tables.inc` reads them.
pub(crate) fn emit(
    game: &Game,
    layout: &Layout,
    plan: &SearchPlan,
) -> Result<String, CompileError> {
    let mut t = Tables {
        game,
        layout,
        code: Vec::new(),
        members: Vec::new(),
        member_ids: HashMap::new(),
        domains: Vec::new(),
        domain_ids: HashMap::new(),
        symtab: Vec::new(),
        class_at: HashMap::new(),
        max_stack: 0,
    };
    let n = game.node_capacity();
    let mut first = Vec::with_capacity(n + 1);
    let mut flags = Vec::with_capacity(n);
    let (mut target, mut kind, mut op_a, mut op_b) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // `@repeat` nodes: (node, first entry in REPEAT_VARS); each list is its length, then the
    // variables.
    let mut repeat_nodes: Vec<u32> = Vec::new();
    let mut repeat_at: Vec<u32> = Vec::new();
    let mut repeat_vars: Vec<u32> = Vec::new();
    let mut repeat_ids: HashMap<Vec<u32>, u32> = HashMap::new();
    for q in 0..n {
        first.push(target.len() as u32);
        let mut f = 0;
        match &plan.visit[q] {
            Visit::None => f |= N_UNIQUE,
            Visit::Full => {}
            Visit::Vars(vars) => {
                f |= N_REPEAT;
                let mut list: Vec<u32> = vars
                    .iter()
                    .filter_map(|v| layout.var_by_name.get(v))
                    .map(|&v| v as u32)
                    .collect();
                list.insert(0, list.len() as u32);
                let nid = repeat_vars.len() as u32;
                let at = *repeat_ids.entry(list.clone()).or_insert(nid);
                if at == nid {
                    repeat_vars.extend(list);
                }
                repeat_nodes.push(q as u32);
                repeat_at.push(at);
            }
        }
        if plan.disjoint[q].is_some() {
            f |= N_DISJOINT;
        }
        let mut edges = Vec::with_capacity(plan.out[q].len());
        for &e in &plan.out[q] {
            let (k, a, b) = t.edge(e)?;
            edges.push((k, a, b, game.edge(e).to.0));
        }
        // A node whose edges all test one packed element against values is a switch: its
        // edges sorted by value (stably, so the edges of one value keep their order), which
        // the engine bisects for the value the element holds. Only the edges of that value
        // succeed, so they push their successors in the order of the node's edges, as before.
        if edges.len() >= SWITCH_MIN_EDGES
            && edges.iter().all(|x| x.0 == K_TEST && x.1 == edges[0].1)
        {
            edges.sort_by_key(|x| x.2);
            f |= N_SWITCH;
        }
        flags.push(f);
        for (k, a, b, to) in edges {
            target.push(to);
            kind.push(k);
            op_a.push(a);
            op_b.push(b);
        }
    }
    first.push(target.len() as u32);

    let switches = flags.iter().filter(|&&f| f & N_SWITCH != 0).count();
    let mut out = String::new();
    out.push_str("// ---- The automaton as tables (read by the engine below). ----\n\n");
    let _ = writeln!(out, "// {switches} switch node(s).\n");
    out.push_str(include_str!("cpp/packed.inc"));
    let _ = writeln!(out, "constexpr uint32_t NUM_EDGES = {}u;", target.len());
    let _ = writeln!(
        out,
        "constexpr uint32_t CODE_STACK = {}u;",
        t.max_stack.max(1)
    );
    let _ = writeln!(
        out,
        "constexpr uint32_t NUM_REPEAT_NODES = {}u;",
        repeat_nodes.len()
    );
    array(&mut out, "uint32_t", "TN_FIRST", &first);
    array(&mut out, "uint8_t", "TN_FLAGS", &flags);
    array(&mut out, int_type(&target), "TE_TARGET", &target);
    array(&mut out, "uint8_t", "TE_KIND", &kind);
    array(&mut out, int_type(&op_a), "TE_A", &op_a);
    array(&mut out, int_type(&op_b), "TE_B", &op_b);
    array(&mut out, "uint32_t", "CODE", &t.code);
    array(&mut out, "uint32_t", "MEMBERS", &t.members);
    let domains: Vec<u32> = t.domains.iter().map(|&b| u32::from(b)).collect();
    array(&mut out, "uint8_t", "DOMAIN", &domains);
    array(&mut out, "uint32_t", "SYMTAB", &t.symtab);
    array(&mut out, "uint32_t", "REPEAT_NODES", &repeat_nodes);
    array(&mut out, "uint32_t", "REPEAT_AT", &repeat_at);
    array(&mut out, "uint32_t", "REPEAT_VARS", &repeat_vars);
    // Variables: bit offset and width of element 0; constants: their elements, flattened.
    let bits: Vec<u32> = layout.vars.iter().map(|f| f.bit as u32).collect();
    let widths: Vec<u32> = layout.vars.iter().map(|f| f.width).collect();
    let counts: Vec<u32> = layout.vars.iter().map(|f| f.count as u32).collect();
    array(&mut out, "uint32_t", "VAR_BIT", &bits);
    array(&mut out, "uint8_t", "VAR_WIDTH", &widths);
    array(&mut out, "uint32_t", "VAR_COUNT", &counts);
    let mut const_at = Vec::new();
    let mut const_data = Vec::new();
    for c in &layout.consts {
        const_at.push(const_data.len() as u32);
        const_data.extend_from_slice(&c.elements);
    }
    array(&mut out, "uint32_t", "CONST_AT", &const_at);
    array(&mut out, int_type(&const_data), "CONST_DATA", &const_data);
    out.push_str(
        "\n/// Element `i` of variable `v`.\ninline uint32_t var_elem(const State& s, uint32_t v, uint32_t i) {\n  const uint32_t w = VAR_WIDTH[v];\n  return w == 0 ? 0u : get_bits(s, VAR_BIT[v] + i * w, w);\n}\n\n",
    );
    Ok(out)
}
