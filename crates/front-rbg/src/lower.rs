//! Lowering of an LL-RBG game to RG by Thompson's construction, the board, the position and
//! the piece counters becoming variables, with these corrections to the reference translation:
//! collision-free names, exact arithmetic with bound checks, `{}` never valid, no tags in
//! patterns or keeper segments, every switch guarded by "the next player can move".

use crate::error::{Code, RbgError};
use crate::syntax::{Arith, Game as Rbg, Rule};
use rg_core::{
    Constant, ExprId, Game, Label, MapEntry, NodeId, Pragma, PragmaKind, Span, Spans, Symbol,
    TypeId, Typedef, ValueId, Variable,
};
use std::collections::{BTreeMap, HashMap, HashSet};

type R<T> = Result<T, RbgError>;

/// Names the output defines or relies on; RBG names equal to one of them get a `_` appended.
const RESERVED: [&str; 27] = [
    "const",
    "type",
    "var",
    "player",
    "goals",
    "visible",
    "keeper",
    "random",
    "begin",
    "end",
    "Bool",
    "Goals",
    "Visibility",
    "PlayerOrSystem",
    "Player",
    "Score",
    "Piece",
    "Coord",
    "CoordOrNull",
    "Board",
    "Counter",
    "Counters",
    "board",
    "coord",
    "counters",
    "null",
    "nan",
];

fn safe(name: &str) -> String {
    if RESERVED.contains(&name) || name.contains('_') {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

fn num_name(v: i64) -> String {
    if v < 0 {
        format!("neg{}", -v)
    } else {
        v.to_string()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Piece,
    Player,
    Variable,
    Label,
}

struct L<'a> {
    rbg: &'a Rbg,
    g: Game,
    span: Span,
    kinds: HashMap<&'a str, Kind>,
    bounds: HashMap<&'a str, i64>,
    labels: HashSet<&'a str>,
    vertices: usize,
    counter: usize,
    modifiers: usize,
    range_types: HashMap<(i64, i64, bool), TypeId>,
    tables: HashMap<String, String>,
    patterns: HashMap<(Rule, bool), (NodeId, NodeId)>,
    uses_counters: bool,
    null: Symbol,
    /// Vertex targets per label, by vertex index (for shift-chain lookups).
    succ: HashMap<String, Vec<Option<usize>>>,
    lookups: usize,
    /// The most values an arithmetic result may range over, and the most cells all arithmetic
    /// and comparison tables may have together (`--size-limit`).
    limit: usize,
    /// Cells of the tables made so far.
    table_cells: i128,
    /// The range and `nan` of each arithmetic table's result, by the table's key (computing
    /// them takes a pass over the table, which a repeated expression must not pay again).
    results: HashMap<String, (i64, i64, bool)>,
}

/// The number of integers in `lo..=hi` (0 when empty), exactly.
fn width(lo: i64, hi: i64) -> i128 {
    (i128::from(hi) - i128::from(lo) + 1).max(0)
}

/// A relation on vertices: one bit row per source vertex.
#[derive(Clone, PartialEq, Eq)]
struct Rel {
    n: usize,
    rows: Vec<Vec<u64>>,
}

impl Rel {
    fn empty(n: usize) -> Self {
        Rel {
            n,
            rows: vec![vec![0; n.div_ceil(64)]; n],
        }
    }
    fn identity(n: usize) -> Self {
        let mut r = Rel::empty(n);
        for i in 0..n {
            r.set(i, i);
        }
        r
    }
    fn set(&mut self, i: usize, j: usize) {
        self.rows[i][j / 64] |= 1 << (j % 64);
    }
    fn get(&self, i: usize, j: usize) -> bool {
        self.rows[i][j / 64] >> (j % 64) & 1 == 1
    }
    fn union(mut self, o: &Rel) -> Rel {
        for (a, b) in self.rows.iter_mut().zip(&o.rows) {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= y;
            }
        }
        self
    }
    fn compose(&self, o: &Rel) -> Rel {
        let mut r = Rel::empty(self.n);
        for i in 0..self.n {
            for k in self.row(i) {
                let (dst, src) = (&mut r.rows[i], &o.rows[k]);
                for (x, y) in dst.iter_mut().zip(src) {
                    *x |= y;
                }
            }
        }
        r
    }

    fn count(&self, i: usize) -> usize {
        self.rows[i].iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Reflexive-transitive closure: a graph search from every vertex.
    fn star(&self) -> Rel {
        let succ: Vec<Vec<usize>> = (0..self.n).map(|i| self.row(i)).collect();
        let mut r = Rel::empty(self.n);
        let mut stack = Vec::new();
        for i in 0..self.n {
            r.set(i, i);
            stack.push(i);
            while let Some(v) = stack.pop() {
                for &w in &succ[v] {
                    if !r.get(i, w) {
                        r.set(i, w);
                        stack.push(w);
                    }
                }
            }
        }
        r
    }

    /// The targets of vertex `i`, in order.
    fn row(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for (w, &word) in self.rows[i].iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                out.push(w * 64 + b);
                bits &= bits - 1;
            }
        }
        out
    }
}

/// Whether a rule only moves the position (shifts, and sums, concatenations and stars of them).
fn shift_only(r: &Rule) -> bool {
    match r {
        Rule::Shift(_) | Rule::Noop => true,
        Rule::Alt(v) | Rule::Seq(v) => v.iter().all(shift_only),
        Rule::Star(x) => shift_only(x),
        _ => false,
    }
}

impl<'a> L<'a> {
    fn sym(&mut self, s: &str) -> Symbol {
        self.g.sym(s)
    }

    fn r(&mut self, s: &str) -> ExprId {
        let s = self.g.sym(s);
        self.g.expr_ref(s)
    }

    fn at(&mut self, m: ExprId, k: ExprId) -> ExprId {
        self.g.expr_access(m, k)
    }

    fn fresh(&mut self) -> NodeId {
        self.counter += 1;
        let n = format!("n{}", self.counter);
        self.g.node_named(&n)
    }

    fn edge(&mut self, a: NodeId, b: NodeId, l: Label) {
        self.g
            .add_edge_spanned(a, b, l, Spans::whole(Some(self.span)));
    }

    fn typedef(&mut self, name: &str, members: Vec<String>) -> TypeId {
        let syms: Vec<Symbol> = members.iter().map(|m| self.g.sym(m)).collect();
        let ty = self.g.type_set(syms);
        let name = self.g.sym(name);
        self.g.typedefs.push(Typedef {
            name,
            ty,
            spans: Spans::whole(Some(self.span)),
        });
        self.g.type_name(name)
    }

    /// The set type `{lo..hi}` (with `nan` if asked), created once.
    fn range(&mut self, lo: i64, hi: i64, nan: bool) -> TypeId {
        if let Some(&t) = self.range_types.get(&(lo, hi, nan)) {
            return t;
        }
        let mut members: Vec<String> = (lo..=hi).map(num_name).collect();
        if nan {
            members.insert(0, "nan".to_string());
        }
        let name = format!(
            "Int_{}_{}{}",
            num_name(lo),
            num_name(hi),
            if nan { "_nan" } else { "" }
        );
        let t = self.typedef(&name, members);
        self.range_types.insert((lo, hi, nan), t);
        t
    }

    fn elem(&mut self, s: &str) -> ValueId {
        let s = self.g.sym(s);
        self.g.value_elem(s)
    }

    fn map_value(&mut self, default: ValueId, entries: Vec<(String, ValueId)>) -> ValueId {
        let mut es: Vec<MapEntry> = entries
            .into_iter()
            .map(|(k, v)| MapEntry {
                key: Some(self.g.sym(&k)),
                value: v,
            })
            .collect();
        es.push(MapEntry {
            key: None,
            value: default,
        });
        self.g.value_map(es)
    }

    fn constant(&mut self, name: &str, ty: TypeId, value: ValueId) {
        let name = self.g.sym(name);
        self.g.constants.push(Constant {
            name,
            ty,
            value,
            spans: Spans::whole(Some(self.span)),
        });
    }

    fn variable(&mut self, name: &str, ty: TypeId, init: ValueId) {
        let name = self.g.sym(name);
        self.g.variables.push(Variable {
            name,
            ty,
            init,
            spans: Spans::whole(Some(self.span)),
        });
    }

    // ----- arithmetic --------------------------------------------------------------------------

    /// Translates an arithmetic expression: the RG expression, its exact range and whether it may
    /// be `nan` (a division by zero somewhere).
    fn arith(&mut self, a: &Arith) -> R<(ExprId, i64, i64, bool)> {
        match a {
            Arith::Num(n) => {
                let e = self.r(&num_name(*n));
                Ok((e, *n, *n, false))
            }
            Arith::Name(n) => match self.kinds.get(n.as_str()) {
                Some(Kind::Variable) => {
                    let b = self.bounds[n.as_str()];
                    let e = self.r(&safe(n));
                    Ok((e, 0, b, false))
                }
                Some(Kind::Player) => {
                    let b = self.bounds[n.as_str()];
                    let goals = self.r("goals");
                    let p = self.r(&safe(n));
                    Ok((self.at(goals, p), 0, b, false))
                }
                Some(Kind::Piece) => {
                    self.uses_counters = true;
                    let c = self.r("counters");
                    let p = self.r(&safe(n));
                    Ok((self.at(c, p), 0, self.vertices as i64, false))
                }
                _ => Err(RbgError::new(
                    Code::Unknown,
                    format!("`{n}` is not a variable, player or piece"),
                    self.span,
                )),
            },
            Arith::Op(op, items) => {
                let mut acc = self.arith(&items[0])?;
                for it in &items[1..] {
                    let rhs = self.arith(it)?;
                    acc = self.binary(*op, acc, rhs)?;
                }
                Ok(acc)
            }
        }
    }

    fn binary(
        &mut self,
        op: char,
        (le, l0, l1, ln): (ExprId, i64, i64, bool),
        (re, r0, r1, rn): (ExprId, i64, i64, bool),
    ) -> R<(ExprId, i64, i64, bool)> {
        // Exact in i128, which no operation on two i64 overflows; a result outside i64 is an
        // error (`Some(Err(v))`), a division by zero `nan` (`None`).
        let f = |a: i64, b: i64| -> Option<Result<i64, i128>> {
            let (a, b) = (i128::from(a), i128::from(b));
            let v = match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ => (b != 0).then(|| a / b)?,
            };
            Some(i64::try_from(v).map_err(|_| v))
        };
        let key = format!("{op}|{l0}|{l1}|{ln}|{r0}|{r1}|{rn}");
        if let (Some(&(lo, hi, nan)), Some(name)) = (self.results.get(&key), self.tables.get(&key))
        {
            let t = self.r(&name.clone());
            let e = self.at(t, le);
            let e = self.at(e, re);
            return Ok((e, lo, hi, nan));
        }
        let (mut lo, mut hi, mut nan) = (i64::MAX, i64::MIN, ln || rn);
        if width(l0, l1).saturating_mul(width(r0, r1)) > 1_000_000 {
            return Err(RbgError::new(
                Code::TooLarge,
                "arithmetic table too large",
                self.span,
            ));
        }
        self.table_budget(width(l0, l1) * width(r0, r1))?;
        for a in l0..=l1 {
            for b in r0..=r1 {
                match f(a, b) {
                    Some(Ok(v)) => {
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                    Some(Err(v)) => {
                        return Err(RbgError::new(
                            Code::Overflow,
                            format!("`{a} {op} {b}` is {v}, beyond 64-bit integers"),
                            self.span,
                        ));
                    }
                    None => nan = true,
                }
            }
        }
        if lo > hi {
            lo = 0;
            hi = 0;
        }
        if width(lo, hi) > self.limit as i128 {
            return Err(RbgError::new(Code::TooLarge,
                format!(
                    "this arithmetic ranges over {} values ({lo}..{hi}), more than the limit of {}",
                    width(lo, hi),
                    self.limit
                ),
                self.span,
            )
            .help("the translation makes a type of every value an expression can take; raise the limit with `--size-limit N`"));
        }
        self.results.insert(key.clone(), (lo, hi, nan));
        let name = match self.tables.get(&key) {
            Some(n) => n.clone(),
            None => {
                let name = format!("math_{}", self.tables.len() + 1);
                let lt = self.range(l0, l1, ln);
                let rt = self.range(r0, r1, rn);
                let out = self.range(lo, hi, nan);
                let ty = {
                    let inner = self.g.type_arrow(rt, out);
                    self.g.type_arrow(lt, inner)
                };
                let nanv = self.elem("nan");
                let mut rows = Vec::new();
                for a in l0..=l1 {
                    let mut cells = Vec::new();
                    for b in r0..=r1 {
                        // Every result fits: the loop above has returned otherwise.
                        let v = match f(a, b) {
                            Some(Ok(v)) => num_name(v),
                            Some(Err(_)) | None => "nan".to_string(),
                        };
                        cells.push((num_name(b), self.elem(&v)));
                    }
                    let d = if rn { nanv } else { cells[0].1 };
                    let cells = cells.into_iter().filter(|c| c.1 != d).collect();
                    let row = self.map_value(d, cells);
                    rows.push((num_name(a), row));
                }
                let nan_row = self.map_value(nanv, Vec::new());
                let d = if ln { nan_row } else { rows[0].1 };
                let rows = rows.into_iter().filter(|r| r.1 != d).collect();
                let value = self.map_value(d, rows);
                self.constant(&name, ty, value);
                self.tables.insert(key, name.clone());
                name
            }
        };
        let t = self.r(&name);
        let e = self.at(t, le);
        let e = self.at(e, re);
        Ok((e, lo, hi, nan))
    }

    /// Counts `cells` more table cells against the size limit.
    fn table_budget(&mut self, cells: i128) -> R<()> {
        self.table_cells = self.table_cells.saturating_add(cells);
        if self.table_cells > self.limit as i128 {
            return Err(RbgError::new(Code::TooLarge,
                format!(
                    "the arithmetic and comparison tables of this game have more than {} cells",
                    self.limit
                ),
                self.span,
            )
            .help("each arithmetic expression or comparison on variables becomes a table over their ranges; raise the limit with `--size-limit N`"));
        }
        Ok(())
    }

    /// A Boolean table `name[v] == 1` over a range, true where `ok(v)`.
    fn predicate(
        &mut self,
        lo: i64,
        hi: i64,
        nan: bool,
        ok: impl Fn(i64) -> bool,
        tag: &str,
    ) -> String {
        let key = format!("{tag}|{lo}|{hi}|{nan}");
        if let Some(n) = self.tables.get(&key) {
            return n.clone();
        }
        let name = format!("math_{}", self.tables.len() + 1);
        let dom = self.range(lo, hi, nan);
        let bool_t = self.range(0, 1, false);
        let ty = self.g.type_arrow(dom, bool_t);
        let zero = self.elem("0");
        let one = self.elem("1");
        let entries = (lo..=hi)
            .filter(|v| ok(*v))
            .map(|v| (num_name(v), one))
            .collect();
        let value = self.map_value(zero, entries);
        self.constant(&name, ty, value);
        self.tables.insert(key, name.clone());
        name
    }

    // ----- rules -------------------------------------------------------------------------------

    fn tags(&mut self, a: NodeId, b: NodeId, in_pattern: bool) -> R<()> {
        if in_pattern {
            self.edge(a, b, Label::Skip);
            return Ok(());
        }
        self.modifiers += 1;
        let n = self.fresh();
        let coord = self.sym("coord");
        self.edge(a, n, Label::TagVar(coord));
        let t = self.sym(&format!("index_{}", self.modifiers));
        self.edge(n, b, Label::Tag(t));
        Ok(())
    }

    fn translate(&mut self, r: &Rule, a: NodeId, b: NodeId, pat: bool) -> R<()> {
        if !matches!(r, Rule::Shift(_) | Rule::Noop) && shift_only(r) && self.lookup(r, a, b)? {
            return Ok(());
        }
        match r {
            Rule::Alt(alts) => {
                for s in alts {
                    self.translate(s, a, b, pat)?;
                }
            }
            Rule::Seq(items) => self.seq(items, a, b, pat)?,
            Rule::Star(x) => {
                let pre = self.fresh();
                let post = self.fresh();
                self.edge(a, pre, Label::Skip);
                self.edge(a, b, Label::Skip);
                self.translate(x, pre, post, pat)?;
                self.edge(post, pre, Label::Skip);
                self.edge(post, b, Label::Skip);
            }
            Rule::Shift(d) => self.shift(d, a, b)?,
            Rule::On(ps) => {
                for p in ps {
                    self.check_kind(p, Kind::Piece)?;
                    let board = self.r("board");
                    let coord = self.r("coord");
                    let lhs = self.at(board, coord);
                    let rhs = self.r(&safe(p));
                    self.edge(
                        a,
                        b,
                        Label::Compare {
                            lhs,
                            rhs,
                            negated: false,
                        },
                    );
                }
            }
            Rule::Off(p) => self.off(p, a, b, pat)?,
            Rule::Assign(v, e) => self.assign(v, e, a, b, pat)?,
            Rule::Cmp(l, op, r) => self.compare(l, op, r, a, b)?,
            Rule::Pattern(pos, body) => {
                let key = ((**body).clone(), true);
                let (s, t) = match self.patterns.get(&key) {
                    Some(&st) => st,
                    None => {
                        let s = self.fresh();
                        let t = self.fresh();
                        self.translate(body, s, t, true)?;
                        self.patterns.insert(key, (s, t));
                        (s, t)
                    }
                };
                self.edge(
                    a,
                    b,
                    Label::Reach {
                        from: s,
                        to: t,
                        negated: !*pos,
                    },
                );
            }
            Rule::Switch(p) => {
                if pat {
                    return Err(RbgError::new(
                        Code::SwitchInPattern,
                        "a pattern cannot contain a switch",
                        self.span,
                    ));
                }
                let n = self.fresh();
                self.tags(a, n, false)?;
                let lhs = self.r("player");
                let rhs = match p {
                    Some(p) => {
                        self.check_kind(p, Kind::Player)?;
                        self.r(&safe(p))
                    }
                    None => self.r("keeper"),
                };
                self.edge(n, b, Label::Assign { lhs, rhs });
            }
            Rule::Noop => self.edge(a, b, Label::Skip),
        }
        Ok(())
    }

    /// A sequence; a run of position-only items becomes one lookup.
    fn seq(&mut self, items: &[Rule], a: NodeId, b: NodeId, pat: bool) -> R<()> {
        let mut cur = a;
        let mut i = 0;
        while i < items.len() {
            // A run of position-only items (shifts and tests of the position) becomes one lookup:
            // a constant map from each vertex to where the run ends.
            let mut j = i;
            while j < items.len() && shift_only(&items[j]) {
                j += 1;
            }
            let n = self.fresh();
            if j > i + 1 && j - i < items.len() {
                let run = Rule::Seq(items[i..j].to_vec());
                if !self.lookup(&run, cur, n)? {
                    let mut c = cur;
                    for it in &items[i..j] {
                        let m = self.fresh();
                        self.translate(it, c, m, pat)?;
                        c = m;
                    }
                    self.edge(c, n, Label::Skip);
                }
                i = j;
            } else {
                self.translate(&items[i], cur, n, pat)?;
                i += 1;
            }
            cur = n;
        }
        self.edge(cur, b, Label::Skip);
        Ok(())
    }

    /// A shift along a direction: the position moves, and must not leave the board.
    fn shift(&mut self, d: &str, a: NodeId, b: NodeId) -> R<()> {
        if self.kinds.get(d) != Some(&Kind::Label) {
            return Err(RbgError::new(
                Code::Unknown,
                format!("`{d}` is not a direction of the board"),
                self.span,
            ));
        }
        if self.labels.contains(d) {
            let n = self.fresh();
            let coord = self.r("coord");
            let dir = self.r(&format!("direction_{d}"));
            let rhs = self.at(dir, coord);
            self.edge(a, n, Label::Assign { lhs: coord, rhs });
            let null = self.g.expr_ref(self.null);
            self.edge(
                n,
                b,
                Label::Compare {
                    lhs: coord,
                    rhs: null,
                    negated: true,
                },
            );
        }
        Ok(())
    }

    /// `[p]`: puts piece `p` on the current vertex (and counts pieces when the rules do).
    fn off(&mut self, p: &str, a: NodeId, b: NodeId, pat: bool) -> R<()> {
        self.check_kind(p, Kind::Piece)?;
        let board = self.r("board");
        let coord = self.r("coord");
        let here = self.at(board, coord);
        let mut cur = a;
        if self.uses_counters {
            let counters = self.r("counters");
            let dec = self.r("counter_decr");
            let inc = self.r("counter_incr");
            let c_here = self.at(counters, here);
            let n1 = self.fresh();
            let rhs = self.at(dec, c_here);
            self.edge(cur, n1, Label::Assign { lhs: c_here, rhs });
            let pe = self.r(&safe(p));
            let c_p = self.at(counters, pe);
            let n2 = self.fresh();
            let rhs = self.at(inc, c_p);
            self.edge(n1, n2, Label::Assign { lhs: c_p, rhs });
            cur = n2;
        }
        let n3 = self.fresh();
        self.tags(cur, n3, pat)?;
        let rhs = self.r(&safe(p));
        self.edge(n3, b, Label::Assign { lhs: here, rhs });
        Ok(())
    }

    /// `[$ v = e]`: assigns a variable or a player's score, when the value fits its bound.
    fn assign(&mut self, v: &str, e: &Arith, a: NodeId, b: NodeId, pat: bool) -> R<()> {
        let (target, bound) = match self.kinds.get(v) {
            Some(Kind::Variable) => (self.r(&safe(v)), self.bounds[v]),
            Some(Kind::Player) => {
                let goals = self.r("goals");
                let p = self.r(&safe(v));
                (self.at(goals, p), self.bounds[v])
            }
            _ => {
                return Err(RbgError::new(
                    Code::Unknown,
                    format!("`{v}` is not a variable or player"),
                    self.span,
                ));
            }
        };
        let (ex, lo, hi, nan) = self.arith(e)?;
        if hi < 0 || lo > bound {
            // The value can never fit: the action is never valid.
            return Ok(());
        }
        let mut cur = a;
        if lo < 0 || hi > bound || nan {
            let fits = self.predicate(
                lo,
                hi,
                nan,
                |x| (0..=bound).contains(&x),
                &format!("fits{bound}"),
            );
            let t = self.r(&fits);
            let lhs = self.at(t, ex);
            let one = self.r("1");
            let n = self.fresh();
            self.edge(
                cur,
                n,
                Label::Compare {
                    lhs,
                    rhs: one,
                    negated: false,
                },
            );
            cur = n;
        }
        let n = self.fresh();
        self.edge(
            cur,
            n,
            Label::Assign {
                lhs: target,
                rhs: ex,
            },
        );
        self.tags(n, b, pat)?;
        Ok(())
    }

    /// `{$ l op r}`: a comparison, directly between names and numbers, else by a table.
    fn compare(&mut self, l: &Arith, op: &str, r: &Arith, a: NodeId, b: NodeId) -> R<()> {
        let op = &op;
        let (le, l0, l1, ln) = self.arith(l)?;
        let (re, r0, r1, rn) = self.arith(r)?;
        let simple = |x: &Arith| matches!(x, Arith::Num(_) | Arith::Name(_));
        if matches!(*op, "==" | "!=") && simple(l) && simple(r) && (l1 < r0 || r1 < l0) {
            // No value of one side is a value of the other (`{$ v == 21}` with `v(20)`):
            // `==` never holds and `!=` always does (a comparison never fails because a value
            // is out of range). RG cannot compare the two types.
            if *op == "!=" {
                self.edge(a, b, Label::Skip);
            }
        } else if matches!(*op, "==" | "!=") && simple(l) && simple(r) {
            self.edge(
                a,
                b,
                Label::Compare {
                    lhs: le,
                    rhs: re,
                    negated: *op == "!=",
                },
            );
        } else {
            // A table over both exact ranges; `nan` compares false.
            let key = format!("cmp{op}|{l0}|{l1}|{ln}|{r0}|{r1}|{rn}");
            let name = match self.tables.get(&key) {
                Some(n) => n.clone(),
                None => {
                    self.table_budget(width(l0, l1) * width(r0, r1))?;
                    let name = format!("math_{}", self.tables.len() + 1);
                    let lt = self.range(l0, l1, ln);
                    let rt = self.range(r0, r1, rn);
                    let bt = self.range(0, 1, false);
                    let inner = self.g.type_arrow(rt, bt);
                    let ty = self.g.type_arrow(lt, inner);
                    let zero = self.elem("0");
                    let one = self.elem("1");
                    let mut rows = Vec::new();
                    for x in l0..=l1 {
                        let cells: Vec<(String, ValueId)> = (r0..=r1)
                            .filter(|y| match *op {
                                "==" => x == *y,
                                "!=" => x != *y,
                                "<" => x < *y,
                                "<=" => x <= *y,
                                ">" => x > *y,
                                _ => x >= *y,
                            })
                            .map(|y| (num_name(y), one))
                            .collect();
                        let row = self.map_value(zero, cells);
                        rows.push((num_name(x), row));
                    }
                    let zero_row = self.map_value(zero, Vec::new());
                    let value = self.map_value(zero_row, rows);
                    self.constant(&name, ty, value);
                    self.tables.insert(key, name.clone());
                    name
                }
            };
            let t = self.r(&name);
            let x = self.at(t, le);
            let lhs = self.at(x, re);
            let one = self.r("1");
            self.edge(
                a,
                b,
                Label::Compare {
                    lhs,
                    rhs: one,
                    negated: false,
                },
            );
        }
        Ok(())
    }

    /// The relation "from vertex i, the rule can end at vertex j".
    fn relation(&self, r: &Rule) -> R<Rel> {
        let n = self.vertices;
        Ok(match r {
            Rule::Shift(d) => {
                if self.kinds.get(d.as_str()) != Some(&Kind::Label) {
                    return Err(RbgError::new(
                        Code::Unknown,
                        format!("`{d}` is not a direction of the board"),
                        self.span,
                    ));
                }
                let mut rel = Rel::empty(n);
                if let Some(t) = self.succ.get(d) {
                    for (i, x) in t.iter().enumerate() {
                        if let Some(j) = x {
                            rel.set(i, *j);
                        }
                    }
                }
                rel
            }
            Rule::Noop => Rel::identity(n),
            Rule::Alt(v) => {
                let mut acc = Rel::empty(n);
                for x in v {
                    acc = acc.union(&self.relation(x)?);
                }
                acc
            }
            Rule::Seq(v) => {
                let mut acc = Rel::identity(n);
                for x in v {
                    acc = acc.compose(&self.relation(x)?);
                }
                acc
            }
            Rule::Star(x) => self.relation(x)?.star(),
            _ => unreachable!("only position rules"),
        })
    }

    /// Lowers a position-only rule as a lookup when that is simpler than its automaton:
    /// everywhere → `coord = Coord(*)`; at most one target per vertex → a constant map.
    /// Returns `false` to fall back to Thompson's construction.
    fn lookup(&mut self, r: &Rule, a: NodeId, b: NodeId) -> R<bool> {
        let n = self.vertices;
        if n > 512 {
            return Ok(false);
        }
        let rel = self.relation(r)?;
        let coord = self.r("coord");
        if (0..n).all(|i| rel.count(i) == n) {
            let coord_t = {
                let s = self.sym("Coord");
                self.g.type_name(s)
            };
            self.edge(
                a,
                b,
                Label::AssignAny {
                    lhs: coord,
                    ty: coord_t,
                },
            );
            return Ok(true);
        }
        if (0..n).all(|i| rel.count(i) <= 1) {
            let rows: Vec<Vec<usize>> = (0..n).map(|i| rel.row(i)).collect();
            self.lookups += 1;
            let name = format!("lookup_{}", self.lookups);
            let coord_t = {
                let s = self.sym("Coord");
                self.g.type_name(s)
            };
            let con_t = {
                let s = self.sym("CoordOrNull");
                self.g.type_name(s)
            };
            let ty = self.g.type_arrow(coord_t, con_t);
            let nullv = self.elem("null");
            let names: Vec<String> = self.rbg.board.iter().map(|v| safe(&v.name)).collect();
            let entries: Vec<(String, ValueId)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.first().map(|&j| (i, j)))
                .map(|(i, j)| (names[i].clone(), self.elem(&names[j])))
                .collect();
            let value = self.map_value(nullv, entries);
            self.constant(&name, ty, value);
            let m = self.r(&name);
            let rhs = self.at(m, coord);
            let mid = self.fresh();
            self.edge(a, mid, Label::Assign { lhs: coord, rhs });
            let null = self.g.expr_ref(self.null);
            self.edge(
                mid,
                b,
                Label::Compare {
                    lhs: coord,
                    rhs: null,
                    negated: true,
                },
            );
            return Ok(true);
        }
        Ok(false)
    }

    fn check_kind(&self, name: &str, k: Kind) -> R<()> {
        if self.kinds.get(name) == Some(&k) {
            Ok(())
        } else {
            let what = match k {
                Kind::Piece => "piece",
                Kind::Player => "player",
                Kind::Variable => "variable",
                Kind::Label => "direction",
            };
            Err(RbgError::new(
                Code::Unknown,
                format!("`{name}` is not a declared {what}"),
                self.span,
            ))
        }
    }
}

fn uses_piece_arith(r: &Rule, pieces: &HashSet<&str>) -> bool {
    fn arith(a: &Arith, pieces: &HashSet<&str>) -> bool {
        match a {
            Arith::Num(_) => false,
            Arith::Name(n) => pieces.contains(n.as_str()),
            Arith::Op(_, xs) => xs.iter().any(|x| arith(x, pieces)),
        }
    }
    match r {
        Rule::Alt(v) | Rule::Seq(v) => v.iter().any(|x| uses_piece_arith(x, pieces)),
        Rule::Star(x) | Rule::Pattern(_, x) => uses_piece_arith(x, pieces),
        Rule::Assign(_, a) => arith(a, pieces),
        Rule::Cmp(a, _, b) => arith(a, pieces) || arith(b, pieces),
        _ => false,
    }
}

/// What the declarations and the board declare: the kind of each name, the bound of each
/// player and variable, the edge labels.
type Declared<'a> = (
    HashMap<&'a str, Kind>,
    HashMap<&'a str, i64>,
    HashSet<&'a str>,
);

/// `message` with the closest of `candidates` as a suggestion.
fn with_suggestion<'n>(
    e: RbgError,
    name: &str,
    candidates: impl IntoIterator<Item = &'n str>,
) -> RbgError {
    let mut names: Vec<&str> = candidates.into_iter().collect();
    names.sort_unstable();
    match rg_core::suggest::closest(name, names) {
        Some(c) => e.help(format!("did you mean `{c}`?")),
        None => e,
    }
}

/// Checks the declarations and the board: every name declared once and as one kind, every
/// vertex's piece declared, every edge to a vertex of the board. Every error is reported.
fn declarations(rbg: &Rbg, span: Span) -> Result<Declared<'_>, Vec<RbgError>> {
    let mut errors = Vec::new();
    let mut kinds = HashMap::new();
    let mut bounds = HashMap::new();
    for (p, b) in &rbg.players {
        if kinds.insert(p.as_str(), Kind::Player).is_some() {
            errors.push(RbgError::new(
                Code::Duplicate,
                format!("player `{p}` is declared twice"),
                span,
            ));
        }
        bounds.insert(p.as_str(), *b as i64);
    }
    for p in &rbg.pieces {
        if let Some(k) = kinds.insert(p.as_str(), Kind::Piece)
            && k != Kind::Piece
        {
            errors.push(RbgError::new(
                Code::Clash,
                format!("`{p}` is both a piece and a player"),
                span,
            ));
        }
    }
    for (v, b) in &rbg.variables {
        if kinds.insert(v, Kind::Variable).is_some() {
            errors.push(RbgError::new(
                Code::Duplicate,
                format!("`{v}` is declared twice"),
                span,
            ));
        }
        bounds.insert(v, *b as i64);
    }
    let mut labels = HashSet::new();
    let vertex_names: HashSet<&str> = rbg.board.iter().map(|v| v.name.as_str()).collect();
    for v in &rbg.board {
        if !rbg.pieces.contains(&v.piece) {
            errors.push(with_suggestion(
                RbgError::new(
                    Code::Unknown,
                    format!("`{}` is not a declared piece", v.piece),
                    v.span,
                ),
                &v.piece,
                rbg.pieces.iter().map(String::as_str),
            ));
        }
        for (l, t) in &v.edges {
            if !vertex_names.contains(t.as_str()) {
                errors.push(with_suggestion(
                    RbgError::new(
                        Code::UnknownVertex,
                        format!("`{t}` is not a vertex of the board"),
                        v.span,
                    ),
                    t,
                    vertex_names.iter().copied(),
                ));
            }
            match kinds.get(l.as_str()) {
                Some(Kind::Label) | None => {
                    kinds.insert(l.as_str(), Kind::Label);
                }
                _ => errors.push(RbgError::new(
                    Code::Clash,
                    format!("edge label `{l}` is also a piece, player or variable"),
                    v.span,
                )),
            }
            labels.insert(l.as_str());
        }
    }
    for lab in &rbg.labels {
        match kinds.get(lab.as_str()) {
            Some(Kind::Label) | None => {
                kinds.insert(lab.as_str(), Kind::Label);
            }
            _ => errors.push(RbgError::new(
                Code::Clash,
                format!("direction `{lab}` is also a piece, player or variable"),
                span,
            )),
        }
    }
    if rbg.board.is_empty() {
        errors.push(RbgError::new(
            Code::BadShape,
            "the board has no vertex",
            span,
        ));
    }
    if rbg.rules.is_none() {
        errors.push(RbgError::new(
            Code::MissingSection,
            "the game has no `#rules`",
            span,
        ));
    }
    if errors.is_empty() {
        Ok((kinds, bounds, labels))
    } else {
        Err(errors)
    }
}

/// Lowers a parsed LL game.
pub(crate) fn lower(rbg: &Rbg, span: Span, limit: usize) -> Result<Game, Vec<RbgError>> {
    let (kinds, bounds, labels) = declarations(rbg, span)?;
    let rules = rbg.rules.as_ref().expect("checked by `declarations`");
    let mut l = L::new(rbg, span, (kinds, bounds, labels), limit);
    let (piece_t, coord_t, coord_or_null) = l.types();
    l.state(piece_t, coord_t, coord_or_null);
    // Rules: Thompson's construction from `begin`; falling off the end is a dead end.
    let begin = l.g.node_named("begin");
    let exit = l.fresh();
    l.translate(rules, begin, exit, false)
        .map_err(|e| vec![e])?;
    let mut g = l.g;
    strip_keeper_tags(&mut g);
    guard_switches(&mut g);
    g.pragmas.push(Pragma {
        kind: PragmaKind::TranslatedFromRbg,
        derived: false,
        span: None,
    });
    Ok(g)
}

fn player_assignment(g: &Game, label: &Label) -> Option<bool> {
    let wk = g.well_known();
    match *label {
        Label::Assign { lhs, rhs } if g.expr(lhs) == rg_core::ExprData::Ref(wk.player) => {
            Some(g.expr(rhs) == rg_core::ExprData::Ref(wk.keeper))
        }
        _ => None,
    }
}

/// Tags executed while the player is certainly the keeper become skips (the keeper's moves
/// are not moves of a player, so they carry no tags): a
/// forward "must" analysis over the main automaton.
fn strip_keeper_tags(g: &mut Game) {
    let Some(begin) = g.begin() else { return };
    // Reachable nodes (labels ignored, reachability checks not entered).
    let mut reach = vec![false; g.node_capacity()];
    let mut stack = vec![begin];
    reach[begin.0 as usize] = true;
    while let Some(n) = stack.pop() {
        for &e in g.outgoing(n) {
            let t = g.edge(e).to;
            if !reach[t.0 as usize] {
                reach[t.0 as usize] = true;
                stack.push(t);
            }
        }
    }
    // Greatest fixpoint: keeper[n] = AND over reachable incoming edges of their output.
    let mut keeper = reach.clone();
    let mut work: Vec<NodeId> = g.nodes().ids().filter(|n| reach[n.0 as usize]).collect();
    while let Some(n) = work.pop() {
        if n == begin {
            continue;
        }
        let mut all = true;
        for &e in g.incoming(n) {
            let d = g.edge(e);
            if !reach[d.from.0 as usize] {
                continue;
            }
            let out = match player_assignment(g, &d.label) {
                Some(k) => k,
                None => keeper[d.from.0 as usize],
            };
            all &= out;
        }
        if keeper[n.0 as usize] && !all {
            keeper[n.0 as usize] = false;
            for &e in g.outgoing(n) {
                work.push(g.edge(e).to);
            }
        }
    }
    let edges: Vec<_> = g.edges().map(|(id, _)| id).collect();
    for e in edges {
        let d = g.edge(e);
        if d.label.is_tag() && reach[d.from.0 as usize] && keeper[d.from.0 as usize] {
            g.set_label(e, Label::Skip);
        }
    }
}

/// Every `player = P` edge is guarded by "P has a legal move" (a player without a legal move
/// ends the game; this is the single-copy
/// construction): a copy of the main automaton without tags, where every `player` assignment
/// leads to one node `found`.
fn guard_switches(g: &mut Game) {
    let Some(begin) = g.begin() else { return };
    let end = g.node_named("end");
    let mut reach = vec![false; g.node_capacity()];
    let mut stack = vec![begin];
    reach[begin.0 as usize] = true;
    while let Some(n) = stack.pop() {
        for &e in g.outgoing(n) {
            let t = g.edge(e).to;
            if !reach[t.0 as usize] {
                reach[t.0 as usize] = true;
                stack.push(t);
            }
        }
    }
    let found = g.node_named("guard_found");
    let originals: Vec<_> = g.edges().map(|(id, _)| id).collect();
    let mut copy: HashMap<NodeId, NodeId> = HashMap::new();
    let mut copy_of = |g: &mut Game, n: NodeId| -> NodeId {
        *copy.entry(n).or_insert_with(|| {
            let name = format!("guard_{}", g.node_name(n));
            g.node_named(&name)
        })
    };
    for &e in &originals {
        let d = g.edge(e).clone();
        if !reach[d.from.0 as usize] {
            continue;
        }
        let from = copy_of(g, d.from);
        if player_assignment(g, &d.label).is_some() {
            g.add_edge_spanned(from, found, Label::Skip, d.spans.clone());
            continue;
        }
        let to = copy_of(g, d.to);
        let label = if d.label.is_tag() {
            Label::Skip
        } else {
            d.label
        };
        g.add_edge_spanned(from, to, label, d.spans.clone());
    }
    let keeper = {
        let k = g.well_known().keeper;
        g.expr_ref(k)
    };
    let player = {
        let p = g.well_known().player;
        g.expr_ref(p)
    };
    for e in originals {
        let d = g.edge(e).clone();
        if !reach[d.from.0 as usize] || player_assignment(g, &d.label).is_none() {
            continue;
        }
        let start = copy_of(g, d.to);
        let c1 = g.node_named(&format!("{}_can{}", g.node_name(d.from), e.0));
        let c2 = g.node_named(&format!("{}_cannot{}", g.node_name(d.from), e.0));
        g.set_source(e, c1);
        g.add_edge_spanned(
            d.from,
            c1,
            Label::Reach {
                from: start,
                to: found,
                negated: false,
            },
            d.spans.clone(),
        );
        g.add_edge_spanned(
            d.from,
            c2,
            Label::Reach {
                from: start,
                to: found,
                negated: true,
            },
            d.spans.clone(),
        );
        g.add_edge_spanned(
            c2,
            end,
            Label::Assign {
                lhs: player,
                rhs: keeper,
            },
            d.spans,
        );
    }
}

impl<'a> L<'a> {
    /// The lowering state of a checked game, with the successor of every vertex by label.
    fn new(rbg: &'a Rbg, span: Span, declared: Declared<'a>, limit: usize) -> Self {
        let (kinds, bounds, labels) = declared;
        let rules = rbg.rules.as_ref().expect("checked by `declarations`");
        let piece_set: HashSet<&str> = rbg.pieces.iter().map(String::as_str).collect();
        let mut g = Game::new();
        let null = g.sym("null");
        let mut l = L {
            rbg,
            g,
            span: rbg.rules_span.unwrap_or(span),
            kinds,
            bounds,
            labels,
            vertices: rbg.board.len(),
            counter: 0,
            modifiers: 0,
            range_types: HashMap::new(),
            tables: HashMap::new(),
            patterns: HashMap::new(),
            uses_counters: uses_piece_arith(rules, &piece_set),
            null,
            succ: HashMap::new(),
            lookups: 0,
            limit,
            table_cells: 0,
            results: HashMap::new(),
        };
        let index: HashMap<&str, usize> = rbg
            .board
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.as_str(), i))
            .collect();
        for (i, v) in rbg.board.iter().enumerate() {
            for (lab, t) in &v.edges {
                l.succ
                    .entry(lab.clone())
                    .or_insert_with(|| vec![None; rbg.board.len()])[i] = Some(index[t.as_str()]);
            }
        }
        l
    }

    /// The types `Player`, `Score`, `Piece`, `Coord` and `CoordOrNull`, and a constant map
    /// `direction_<label>` from each vertex to its successor along the label (or `null`).
    /// Returns the types of pieces, of vertices and of vertices or `null`.
    fn types(&mut self) -> (TypeId, TypeId, TypeId) {
        let rbg = self.rbg;
        // Types.
        let players: Vec<String> = rbg.players.iter().map(|(p, _)| safe(p)).collect();
        self.typedef("Player", players);
        let max_score = rbg.players.iter().map(|p| p.1 as i64).max().unwrap_or(0);
        let score = self.typedef("Score", (0..=max_score).map(num_name).collect());
        self.range_types.insert((0, max_score, false), score);
        let pieces: Vec<String> = rbg.pieces.iter().map(|p| safe(p)).collect();
        let piece_t = self.typedef("Piece", pieces);
        let coords: Vec<String> = rbg.board.iter().map(|v| safe(&v.name)).collect();
        let coord_t = self.typedef("Coord", coords.clone());
        let mut with_null = vec!["null".to_string()];
        with_null.extend(coords.iter().cloned());
        let coord_or_null = self.typedef("CoordOrNull", with_null);
        // Directions.
        let mut by_label: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
        for v in &rbg.board {
            for (lab, t) in &v.edges {
                by_label
                    .entry(lab.as_str())
                    .or_default()
                    .push((safe(&v.name), safe(t)));
            }
        }
        for (lab, entries) in by_label {
            let ty = self.g.type_arrow(coord_t, coord_or_null);
            let nullv = self.elem("null");
            let es: Vec<(String, ValueId)> = entries
                .into_iter()
                .map(|(k, t)| {
                    let v = self.elem(&t);
                    (k, v)
                })
                .collect();
            let value = self.map_value(nullv, es);
            self.constant(&format!("direction_{lab}"), ty, value);
        }
        (piece_t, coord_t, coord_or_null)
    }

    /// The variables: the board (the most frequent piece as the default), the position, the
    /// piece counters when the rules count pieces, and the declared variables.
    fn state(&mut self, piece_t: TypeId, coord_t: TypeId, coord_or_null: TypeId) {
        let rbg = self.rbg;
        // Board, position, counters, variables.
        let mut freq: BTreeMap<&str, usize> = BTreeMap::new();
        for v in &rbg.board {
            *freq.entry(v.piece.as_str()).or_default() += 1;
        }
        let most = freq
            .iter()
            .max_by_key(|(_, c)| **c)
            .map(|(p, _)| *p)
            .expect("non-empty board");
        let board_t = self.g.type_arrow(coord_t, piece_t);
        let dv = self.elem(&safe(most));
        let cells: Vec<(String, ValueId)> = rbg
            .board
            .iter()
            .filter(|v| v.piece != most)
            .map(|v| (safe(&v.name), self.elem(&safe(&v.piece))))
            .collect();
        let board_v = self.map_value(dv, cells);
        self.variable("board", board_t, board_v);
        let first = self.elem(&safe(&rbg.board[0].name));
        self.variable("coord", coord_or_null, first);
        if self.uses_counters {
            let n = rbg.board.len() as i64;
            let counter_t = self.range(0, n, false);
            let ty = self.g.type_arrow(piece_t, counter_t);
            let zero = self.elem("0");
            let es: Vec<(String, ValueId)> = freq
                .iter()
                .map(|(p, c)| (safe(p), self.elem(&c.to_string())))
                .collect();
            let init = self.map_value(zero, es);
            self.variable("counters", ty, init);
            for (name, delta) in [("counter_decr", -1i64), ("counter_incr", 1)] {
                let ty = self.g.type_arrow(counter_t, counter_t);
                let es: Vec<(String, ValueId)> = (0..=n)
                    .map(|i| (num_name(i), self.elem(&num_name((i + delta).clamp(0, n)))))
                    .collect();
                let d = self.elem("0");
                let value = self.map_value(d, es);
                self.constant(name, ty, value);
            }
        }
        for (v, b) in &rbg.variables {
            let t = self.range(0, *b as i64, false);
            let zero = self.elem("0");
            self.variable(&safe(v), t, zero);
        }
    }
}
