//! Compile-time semantics: domains, values, evaluation, functions tabulated into
//! constant maps, initial values and map compression.

use crate::error::{Code, HrgError};
use crate::syntax::{
    BinOp, Binding, Decl, Element, Expr, ExprKind, Function, Pattern, Type, Values, is_upper,
};
use rg_core::Span;
use std::cmp::Ordering;
use std::collections::HashMap;

/// A compile-time value: a symbol, a constructor value `C(v…)` (named `C__v1_v2` in RG), or a
/// map (only while a map literal is evaluated).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Value {
    Sym(String),
    Ctor(String, Vec<Value>),
    Map(Option<Box<Value>>, Vec<(Value, Value)>),
}

impl Value {
    /// The mangled RG name of a symbol or constructor value.
    pub fn name(&self) -> Option<String> {
        match self {
            Value::Sym(s) => Some(s.clone()),
            Value::Ctor(c, args) => {
                let mut s = format!("{c}__");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        s.push('_');
                    }
                    s.push_str(&a.name()?);
                }
                Some(s)
            }
            Value::Map(..) => None,
        }
    }

    fn show(&self) -> String {
        match self {
            Value::Sym(s) => s.clone(),
            Value::Ctor(c, args) => format!(
                "{c}({})",
                args.iter().map(Value::show).collect::<Vec<_>>().join(", ")
            ),
            Value::Map(..) => "{ … }".to_string(),
        }
    }
}

/// An RG value: an element or a map with a default and entries.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RgVal {
    Elem(String),
    Map(Box<RgVal>, Vec<(String, RgVal)>),
}

impl RgVal {
    fn size(&self) -> usize {
        match self {
            RgVal::Elem(_) => 1,
            RgVal::Map(_, es) => 1 + es.iter().map(|(_, v)| v.size()).sum::<usize>(),
        }
    }
}

/// Compression of a map without a default: the most frequent value becomes the default (so
/// keys the literal does not mention map to it); ties prefer the
/// smaller value, then the greatest in RG order.
pub(crate) fn compress(entries: Vec<(String, RgVal)>) -> RgVal {
    // Counted by a map (a linear search per entry was quadratic in the number of entries).
    let mut counts: HashMap<&RgVal, usize> = HashMap::new();
    for (_, v) in &entries {
        *counts.entry(v).or_default() += 1;
    }
    let best = counts
        .into_iter()
        .max_by(|(a, ca), (b, cb)| ca.cmp(cb).then(b.size().cmp(&a.size())).then(a.cmp(b)))
        .map(|(v, _)| v.clone());
    let Some(d) = best else {
        return RgVal::Map(Box::new(RgVal::Elem(String::new())), Vec::new());
    };
    let kept = entries.into_iter().filter(|(_, v)| *v != d).collect();
    RgVal::Map(Box::new(d), kept)
}

/// The compile-time world: domains and functions by name.
pub(crate) struct World<'a> {
    pub domains: HashMap<&'a str, (&'a [Element], Span)>,
    pub functions: HashMap<&'a str, &'a Function>,
    elems: std::cell::RefCell<HashMap<String, Vec<Value>>>,
    depth: std::cell::Cell<usize>,
    /// The most values a domain, a range or a map may have (`--size-limit`).
    pub limit: usize,
}

pub(crate) type Env = HashMap<String, Value>;

const MAX_DEPTH: usize = 2000;

/// The error for a collection of `n` values (or more) where at most `limit` are allowed.
pub(crate) fn too_large(what: &str, n: u128, unit: &str, limit: usize, span: Span) -> HrgError {
    HrgError::new(
        Code::TooLarge,
        format!("{what} has {n} {unit}, more than the limit of {limit}"),
        span,
    )
    .help("rgt limits what a game may make at translation time; raise it with `--size-limit N`")
}

fn binding_values(b: &Binding, limit: usize, span: Span) -> Result<Vec<Value>, HrgError> {
    Ok(match &b.values {
        Values::Range(a, z) => {
            let n = (i128::from(*z) - i128::from(*a) + 1).max(0) as u128;
            if n > limit as u128 {
                return Err(too_large(
                    &format!("the range `{a}..{z}`"),
                    n,
                    "values",
                    limit,
                    span,
                ));
            }
            (*a..=*z).map(|i| Value::Sym(i.to_string())).collect()
        }
        Values::Set(v) => v.iter().map(|s| Value::Sym(s.clone())).collect(),
    })
}

/// Every combination of the lists, first list varying slowest; an error when there are more
/// than `limit`.
fn product(lists: &[Vec<Value>], limit: usize, span: Span) -> Result<Vec<Vec<Value>>, HrgError> {
    let n = lists
        .iter()
        .try_fold(1u128, |n, l| n.checked_mul(l.len() as u128))
        .unwrap_or(u128::MAX);
    if n > limit as u128 {
        return Err(too_large(
            "the combination of the bindings",
            n,
            "values",
            limit,
            span,
        ));
    }
    let mut out = vec![Vec::new()];
    for l in lists {
        let mut next = Vec::with_capacity(out.len() * l.len());
        for prefix in &out {
            for v in l {
                let mut p = prefix.clone();
                p.push(v.clone());
                next.push(p);
            }
        }
        out = next;
    }
    Ok(out)
}

fn as_int(v: &Value, span: Span) -> Result<i64, HrgError> {
    match v {
        Value::Sym(s) => s.parse::<i32>().map(i64::from).map_err(|_| {
            HrgError::new(Code::Arithmetic, format!("`{s}` is not an integer"), span)
                .help("arithmetic works on symbols spelled as 32-bit integers")
        }),
        other => Err(HrgError::new(
            Code::Arithmetic,
            format!("`{}` is not an integer", other.show()),
            span,
        )),
    }
}

/// Natural order of names (digit runs compare as numbers).
fn natural(a: &str, b: &str) -> Ordering {
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        return x.cmp(&y);
    }
    let (mut i, mut j) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (i.peek().copied(), j.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let mut na = String::new();
                while let Some(c) = i.peek().copied().filter(char::is_ascii_digit) {
                    na.push(c);
                    i.next();
                }
                let mut nb = String::new();
                while let Some(c) = j.peek().copied().filter(char::is_ascii_digit) {
                    nb.push(c);
                    j.next();
                }
                let (na, nb) = (na.trim_start_matches('0'), nb.trim_start_matches('0'));
                let o = na.len().cmp(&nb.len()).then(na.cmp(nb));
                if o != Ordering::Equal {
                    return o;
                }
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                i.next();
                j.next();
            }
        }
    }
}

impl<'a> World<'a> {
    /// The world of a program, and an error for each domain declared again (the first
    /// declaration is kept).
    pub fn new(decls: &'a [Decl], limit: usize) -> (Self, Vec<HrgError>) {
        let mut domains = HashMap::new();
        let mut functions = HashMap::new();
        let mut errors = Vec::new();
        for d in decls {
            match d {
                Decl::Domain(name, elems, span) => {
                    if domains.contains_key(name.as_str()) {
                        errors.push(HrgError::new(
                            Code::Duplicate,
                            format!("duplicated domain `{name}`"),
                            *span,
                        ));
                    } else {
                        domains.insert(name.as_str(), (elems.as_slice(), *span));
                    }
                }
                Decl::Function(f) => {
                    functions.insert(f.name.as_str(), f);
                }
                _ => {}
            }
        }
        let world = World {
            domains,
            functions,
            elems: Default::default(),
            depth: Default::default(),
            limit,
        };
        (world, errors)
    }

    /// The values of domain `D`, in source order (a name that is a domain contributes its
    /// values, any other name itself, a generator every combination of its bindings), or `None`
    /// if `D` is not a domain.
    pub fn elems(&self, d: &str, _span: Span) -> Result<Option<Vec<Value>>, HrgError> {
        self.elems_guarded(d, &mut Vec::new())
    }

    fn elems_guarded(
        &self,
        d: &str,
        stack: &mut Vec<String>,
    ) -> Result<Option<Vec<Value>>, HrgError> {
        if let Some(v) = self.elems.borrow().get(d) {
            return Ok(Some(v.clone()));
        }
        let Some(&(elements, dspan)) = self.domains.get(d) else {
            return Ok(None);
        };
        if stack.iter().any(|s| s == d) {
            return Err(HrgError::new(
                Code::RecursiveDomain,
                format!("domain `{d}` contains itself"),
                dspan,
            ));
        }
        stack.push(d.to_string());
        let mut out = Vec::new();
        for e in elements {
            match e {
                _ if out.len() > self.limit => break,
                Element::Name(n) => match self.elems_guarded(n, stack)? {
                    Some(vs) => out.extend(vs),
                    None => out.push(Value::Sym(n.clone())),
                },
                Element::Generator {
                    name,
                    params,
                    bindings,
                } => {
                    let mut lists = Vec::new();
                    for p in params {
                        if is_upper(p) {
                            let b = bindings.iter().find(|b| b.name == *p).ok_or_else(|| {
                                HrgError::new(
                                    Code::MissingBinding,
                                    format!("missing values for `{p}`"),
                                    dspan,
                                )
                                .help(format!("add a binding such as `{p} in 0..3` after `where`"))
                            })?;
                            lists.push(binding_values(b, self.limit, dspan)?);
                        } else {
                            lists.push(vec![Value::Sym(p.clone())]);
                        }
                    }
                    for combo in product(&lists, self.limit, dspan)? {
                        out.push(Value::Ctor(name.clone(), combo));
                    }
                }
            }
        }
        if out.len() > self.limit {
            return Err(too_large(
                &format!("domain `{d}`"),
                out.len() as u128,
                "values",
                self.limit,
                dspan,
            ));
        }
        stack.pop();
        self.elems.borrow_mut().insert(d.to_string(), out.clone());
        Ok(Some(out))
    }

    /// The domain elements of a type that must be enumerated (a domain name or a set type).
    pub fn enumerate(&self, t: &Type, span: Span) -> Result<Vec<Value>, HrgError> {
        match t {
            Type::Set(v) => Ok(v.iter().map(|s| Value::Sym(s.clone())).collect()),
            Type::Name(n, None) => self.elems(n, span)?.ok_or_else(|| {
                unknown(
                    Code::UnknownType,
                    "type",
                    "the domain ",
                    n,
                    self.domains.keys().copied(),
                    "only domains declared in the program can be enumerated",
                    span,
                )
            }),
            Type::Name(..) => Err(HrgError::new(
                Code::BadType,
                "a map type cannot be enumerated",
                span,
            )),
        }
    }

    pub fn eval(&self, e: &Expr, env: &Env) -> Result<Value, HrgError> {
        let d = self.depth.get();
        if d > MAX_DEPTH {
            return Err(HrgError::new(
                Code::EvalTooDeep,
                "compile-time evaluation is too deep (recursive functions?)",
                e.span,
            ));
        }
        self.depth.set(d + 1);
        let r = self.eval_inner(e, env);
        self.depth.set(d);
        r
    }

    fn eval_inner(&self, e: &Expr, env: &Env) -> Result<Value, HrgError> {
        match &e.kind {
            ExprKind::Name(x) => match env.get(x) {
                Some(v) => Ok(v.clone()),
                None if is_upper(x) => Err(HrgError::new(Code::UnboundVariable, format!("unknown variable `{x}`"), e.span)
                    .help("upper-case names in values are pattern or loop variables")),
                None => Ok(Value::Sym(x.clone())),
            },
            ExprKind::Ctor(c, args) => Ok(Value::Ctor(
                c.clone(),
                args.iter()
                    .map(|a| self.eval(a, env))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Call(head, args) => {
                let ExprKind::Name(f) = &head.kind else {
                    return Err(HrgError::new(Code::NotConstant,
                        "only a function name can be applied at compile time",
                        e.span,
                    ));
                };
                let f = env
                    .get(f)
                    .and_then(Value::name)
                    .unwrap_or_else(|| f.clone());
                let vals = args
                    .iter()
                    .map(|a| self.eval(a, env))
                    .collect::<Result<Vec<_>, _>>()?;
                self.apply(&f, &vals, e.span)
            }
            ExprKind::If(c, a, b) => {
                if self.cond(c, env)? {
                    self.eval(a, env)
                } else {
                    self.eval(b, env)
                }
            }
            ExprKind::Bin(op @ (BinOp::Add | BinOp::Sub | BinOp::Rem), a, b) => {
                let x = as_int(&self.eval(a, env)?, a.span)?;
                let y = as_int(&self.eval(b, env)?, b.span)?;
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    _ => {
                        if y == 0 {
                            return Err(HrgError::new(Code::Arithmetic, "remainder by zero", e.span));
                        }
                        (x + y) % y
                    }
                };
                Ok(Value::Sym(r.to_string()))
            }
            ExprKind::Map(default, parts) => {
                let d = match default {
                    Some(d) => Some(Box::new(self.eval(d, env)?)),
                    None => None,
                };
                let mut entries: Vec<(Value, Value)> = Vec::new();
                // Keys seen so far (a linear search per key was quadratic in the map's size).
                let mut keys: std::collections::HashSet<Value> = Default::default();
                for part in parts {
                    let lists = part
                        .bindings
                        .iter()
                        .map(|b| binding_values(b, self.limit, part.value.span))
                        .collect::<Result<Vec<_>, _>>()?;
                    if let Some(first) = part.bindings.first()
                        && part.bindings[1..].iter().any(|b| b.name == first.name)
                    {
                        return Err(HrgError::new(Code::BoundTwice,
                            format!("`{}` is bound twice", first.name),
                            part.value.span,
                        ));
                    }
                    for combo in product(&lists, self.limit, part.value.span)? {
                        let mut env2 = env.clone();
                        for (b, v) in part.bindings.iter().zip(combo) {
                            env2.insert(b.name.clone(), v);
                        }
                        let key = self.instantiate(&part.key, &env2, part.value.span)?;
                        if !keys.insert(key.clone()) {
                            return Err(HrgError::new(Code::DuplicateKey,
                                format!("duplicated map key `{}`", key.show()),
                                part.value.span,
                            ));
                        }
                        let v = self.eval(&part.value, &env2)?;
                        entries.push((key, v));
                    }
                }
                Ok(Value::Map(d, entries))
            }
            _ => Err(HrgError::new(Code::NotConstant,
                "this expression cannot be evaluated at compile time",
                e.span,
            )
            .help("values are symbols, constructors `C(...)`, function calls, `if … then … else`, `+ - %` and map literals")),
        }
    }

    fn instantiate(&self, p: &Pattern, env: &Env, span: Span) -> Result<Value, HrgError> {
        match p {
            Pattern::Wildcard => Err(HrgError::new(
                Code::BadMap,
                "`_` cannot be a map key here",
                span,
            )),
            Pattern::Name(n) if is_upper(n) => env.get(n).cloned().ok_or_else(|| {
                HrgError::new(
                    Code::UnboundVariable,
                    format!("unknown variable `{n}` in a map key"),
                    span,
                )
            }),
            Pattern::Name(n) => Ok(Value::Sym(n.clone())),
            Pattern::Ctor(c, ps) => Ok(Value::Ctor(
                c.clone(),
                ps.iter()
                    .map(|p| self.instantiate(p, env, span))
                    .collect::<Result<_, _>>()?,
            )),
        }
    }

    pub fn cond(&self, c: &Expr, env: &Env) -> Result<bool, HrgError> {
        match &c.kind {
            ExprKind::Bin(BinOp::And, a, b) => Ok(self.cond(a, env)? && self.cond(b, env)?),
            ExprKind::Bin(BinOp::Or, a, b) => Ok(self.cond(a, env)? || self.cond(b, env)?),
            ExprKind::Bin(BinOp::In, a, d) => {
                let v = self.eval(a, env)?;
                let ExprKind::Name(dn) = &d.kind else {
                    return Err(HrgError::new(
                        Code::NotConstant,
                        "`in` needs a domain name",
                        d.span,
                    ));
                };
                let elems = self.elems(dn, d.span)?.ok_or_else(|| {
                    HrgError::new(Code::UnknownType, format!("`{dn}` is not a domain"), d.span)
                })?;
                Ok(elems.contains(&v))
            }
            ExprKind::Bin(
                op @ (BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
                a,
                b,
            ) => {
                let (x, y) = (self.eval(a, env)?, self.eval(b, env)?);
                let o = self.compare(&x, &y, c.span)?;
                Ok(match op {
                    BinOp::Eq => x == y,
                    BinOp::Neq => x != y,
                    BinOp::Lt => o == Ordering::Less,
                    BinOp::Le => o != Ordering::Greater,
                    BinOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                })
            }
            _ => Err(HrgError::new(
                Code::NotConstant,
                "this is not a valid condition",
                c.span,
            )),
        }
    }

    fn compare(&self, a: &Value, b: &Value, span: Span) -> Result<Ordering, HrgError> {
        match (a, b) {
            (Value::Sym(x), Value::Sym(y)) => Ok(natural(x, y)),
            (Value::Ctor(c, xs), Value::Ctor(d, ys)) => {
                let mut o = natural(c, d).then(xs.len().cmp(&ys.len()));
                for (x, y) in xs.iter().zip(ys) {
                    if o != Ordering::Equal {
                        break;
                    }
                    o = self.compare(x, y, span)?;
                }
                Ok(o)
            }
            _ => Err(HrgError::new(
                Code::NotComparable,
                format!(
                    "values `{}` and `{}` are not comparable",
                    a.show(),
                    b.show()
                ),
                span,
            )),
        }
    }

    pub fn apply(&self, f: &str, args: &[Value], span: Span) -> Result<Value, HrgError> {
        let func = self.functions.get(f).ok_or_else(|| {
            unknown(
                Code::UnknownFunction,
                "function",
                "",
                f,
                self.functions.keys().copied(),
                "declare it with `name : Type -> Type` and its cases",
                span,
            )
        })?;
        for (pats, body) in &func.cases {
            if pats.len() != args.len() {
                return Err(HrgError::new(
                    Code::Arity,
                    format!(
                        "function `{f}` expects {} arguments but got {}",
                        pats.len(),
                        args.len()
                    ),
                    span,
                ));
            }
            let mut env = Env::new();
            if pats.iter().zip(args).all(|(p, v)| matches(p, v, &mut env)) {
                return self.eval(body, &env);
            }
        }
        Err(HrgError::new(
            Code::NoCase,
            format!(
                "no case for {f}({})",
                args.iter().map(Value::show).collect::<Vec<_>>().join(", ")
            ),
            func.span,
        )
        .help("add a case (or a final catch-all case with `_`) covering these arguments"))
    }

    /// Converts a value to RG: a symbol or constructor to its name, a map with a default
    /// entry by entry, a map without one by compression.
    pub fn to_rg(&self, v: &Value, span: Span) -> Result<RgVal, HrgError> {
        match v {
            Value::Map(Some(d), es) => {
                let d = self.to_rg(d, span)?;
                let mut entries = Vec::new();
                for (k, v) in es {
                    let key = k
                        .name()
                        .ok_or_else(|| HrgError::new(Code::BadMap, "a map key is a map", span))?;
                    entries.push((key, self.to_rg(v, span)?));
                }
                Ok(RgVal::Map(Box::new(d), entries))
            }
            Value::Map(None, es) => {
                let mut entries = Vec::new();
                for (k, v) in es {
                    let key = k
                        .name()
                        .ok_or_else(|| HrgError::new(Code::BadMap, "a map key is a map", span))?;
                    entries.push((key, self.to_rg(v, span)?));
                }
                if entries.is_empty() {
                    return Err(HrgError::new(
                        Code::BadMap,
                        "an empty map has no default",
                        span,
                    ));
                }
                Ok(compress(entries))
            }
            other => Ok(RgVal::Elem(other.name().expect("not a map"))),
        }
    }

    /// The initial value of a variable declared without one: the first element of a domain,
    /// or for `A -> B` the map sending everything to the default of `B`.
    pub fn default_of(&self, t: &Type, span: Span) -> Result<RgVal, HrgError> {
        match t {
            Type::Name(n, None) => {
                let elems = self.enumerate(t, span)?;
                let first = elems.first().ok_or_else(|| {
                    HrgError::new(Code::EmptyDomain, format!("domain `{n}` is empty"), span)
                })?;
                Ok(RgVal::Elem(
                    first.name().expect("domain elements are not maps"),
                ))
            }
            Type::Name(n, Some(rest)) => {
                self.enumerate(&Type::Name(n.clone(), None), span)?;
                Ok(RgVal::Map(
                    Box::new(self.default_of(rest, span)?),
                    Vec::new(),
                ))
            }
            Type::Set(_) => Err(HrgError::new(
                Code::BadType,
                "a variable of a set type needs an initial value",
                span,
            )),
        }
    }

    /// The constant map of a function: one layer per parameter over the elements of its
    /// domain, each layer compressed.
    pub fn table(&self, f: &Function) -> Result<RgVal, HrgError> {
        let k = f.cases.first().map_or(0, |c| c.0.len());
        if k == 0 {
            return Err(HrgError::new(
                Code::Arity,
                format!("function `{}` needs at least one parameter", f.name),
                f.span,
            ));
        }
        let mut layers = Vec::new();
        let mut t = &f.ty;
        for _ in 0..k {
            match t {
                Type::Name(n, Some(rest)) => {
                    layers.push(self.enumerate(&Type::Name(n.clone(), None), f.span)?);
                    t = rest;
                }
                _ => {
                    return Err(HrgError::new(
                        Code::Arity,
                        format!(
                            "function `{}` has {k} parameters but its type has fewer arrows",
                            f.name
                        ),
                        f.span,
                    ));
                }
            }
        }
        let mut args = Vec::new();
        self.layer(f, &layers, &mut args)
    }

    fn layer(
        &self,
        f: &Function,
        layers: &[Vec<Value>],
        args: &mut Vec<Value>,
    ) -> Result<RgVal, HrgError> {
        let i = args.len();
        let mut entries = Vec::new();
        for v in &layers[i] {
            args.push(v.clone());
            let value = if i + 1 == layers.len() {
                let r = self.apply(&f.name, args, f.span)?;
                RgVal::Elem(r.name().ok_or_else(|| {
                    HrgError::new(
                        Code::BadMap,
                        format!("function `{}` returns a map", f.name),
                        f.span,
                    )
                })?)
            } else {
                self.layer(f, layers, args)?
            };
            args.pop();
            entries.push((v.name().expect("domain elements are not maps"), value));
        }
        if entries.is_empty() {
            return Err(HrgError::new(
                Code::EmptyDomain,
                format!("function `{}` has an empty argument domain", f.name),
                f.span,
            ));
        }
        Ok(compress(entries))
    }
}

/// `unknown <what> `name``, with the closest declared name as help (`did you mean <article>`c`?`),
/// else `fallback`.
pub(crate) fn unknown<'n>(
    code: Code,
    what: &str,
    article: &str,
    name: &str,
    declared: impl Iterator<Item = &'n str>,
    fallback: &str,
    span: Span,
) -> HrgError {
    let mut names: Vec<&str> = declared.collect();
    names.sort_unstable();
    let e = HrgError::new(code, format!("unknown {what} `{name}`"), span);
    match rg_core::suggest::closest(name, names) {
        Some(c) => e.help(format!("did you mean {article}`{c}`?")),
        None => e.help(fallback),
    }
}

fn matches(p: &Pattern, v: &Value, env: &mut Env) -> bool {
    match p {
        Pattern::Wildcard => true,
        Pattern::Name(n) if is_upper(n) => {
            env.insert(n.clone(), v.clone());
            true
        }
        Pattern::Name(n) => matches!(v, Value::Sym(s) if s == n),
        Pattern::Ctor(c, ps) => match v {
            Value::Ctor(d, vs) if c == d && ps.len() == vs.len() => {
                ps.iter().zip(vs).all(|(p, v)| matches(p, v, env))
            }
            _ => false,
        },
    }
}
