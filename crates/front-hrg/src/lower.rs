//! Lowering of graph bodies to RG edges: each statement becomes edges between fresh nodes,
//! graphs are inlined at each call (a `reusable` graph once, returning through a variable),
//! compile-time loops are unrolled.

use crate::error::{Code, HrgError};
use crate::eval::{Env, RgVal, Value, World};
use crate::syntax::{BinOp, Decl, Expr, ExprKind, Function, Graph, Stmt, StmtKind, Type};
use rg_core::{
    Constant, ExprId, Game, Label, MapEntry, NodeId, Pragma, PragmaKind, Span, Spans, TypeId,
    Typedef, ValueId, Variable,
};
use std::collections::{BTreeSet, HashMap, HashSet};

type R<T> = Result<T, HrgError>;

#[derive(Clone)]
struct Ctx<'a> {
    graph: &'a Graph,
    fin: NodeId,
    ret: NodeId,
    brk: Option<NodeId>,
    cont: Option<NodeId>,
    prefix: String,
    subst: Env,
}

#[derive(Default)]
struct Reusable {
    instance: bool,
    calls: Vec<String>,
    returns_linked: bool,
}

pub(crate) struct Lowerer<'a> {
    world: World<'a>,
    graphs: HashMap<&'a str, &'a Graph>,
    pub g: Game,
    counters: HashMap<String, usize>,
    instances: HashMap<String, usize>,
    params_created: HashSet<String>,
    reusable: HashMap<String, Reusable>,
    artificial: BTreeSet<String>,
    stack: Vec<String>,
    edges: HashSet<(NodeId, NodeId, Label)>,
    /// The errors found so far: lowering goes on after an error in a declaration or a
    /// statement, so that independent errors are all reported.
    errors: Vec<HrgError>,
}

/// How many errors lowering collects before it stops (repeats, as in a graph inlined many
/// times, are dropped afterwards; the report keeps at most [`crate::error::MAX_ERRORS`]).
const MAX_COLLECTED: usize = 1000;

fn is_builtin_stmt(name: &str) -> bool {
    matches!(name, "end" | "return" | "break" | "continue")
}

impl<'a> Lowerer<'a> {
    /// A lowerer of `decls`, with the errors of duplicate domains and graphs (the first
    /// declaration is kept).
    pub fn new(decls: &'a [Decl], limit: usize) -> Self {
        let (world, mut errors) = World::new(decls, limit);
        let mut graphs = HashMap::new();
        for d in decls {
            if let Decl::Graph(gr) = d {
                if graphs.contains_key(gr.name.as_str()) {
                    errors.push(HrgError::new(
                        Code::Duplicate,
                        format!("duplicated graph `{}`", gr.name),
                        gr.span,
                    ));
                } else {
                    graphs.insert(gr.name.as_str(), gr);
                }
            }
        }
        Lowerer {
            world,
            graphs,
            g: Game::new(),
            counters: HashMap::new(),
            instances: HashMap::new(),
            params_created: HashSet::new(),
            reusable: HashMap::new(),
            artificial: BTreeSet::new(),
            stack: Vec::new(),
            edges: HashSet::new(),
            errors,
        }
    }

    /// Records an error and goes on, or returns it when lowering must stop (the game is
    /// already too large, or there are too many errors).
    fn fail(&mut self, e: HrgError) -> R<()> {
        if e.code == Code::TooLarge || self.errors.len() >= MAX_COLLECTED {
            return Err(e);
        }
        self.errors.push(e);
        Ok(())
    }

    // ----- RG construction helpers -------------------------------------------------------------

    fn ty(&mut self, t: &Type) -> TypeId {
        match t {
            Type::Set(v) => {
                let syms: Vec<_> = v.iter().map(|s| self.g.sym(s)).collect();
                self.g.type_set(syms)
            }
            Type::Name(n, None) => {
                let s = self.g.sym(n);
                self.g.type_name(s)
            }
            Type::Name(n, Some(r)) => {
                let s = self.g.sym(n);
                let l = self.g.type_name(s);
                let r = self.ty(r);
                self.g.type_arrow(l, r)
            }
        }
    }

    fn value(&mut self, v: &RgVal) -> ValueId {
        match v {
            RgVal::Elem(s) => {
                let s = self.g.sym(s);
                self.g.value_elem(s)
            }
            RgVal::Map(d, es) => {
                let dv = self.value(d);
                let mut entries = Vec::with_capacity(es.len() + 1);
                for (k, v) in es {
                    let key = self.g.sym(k);
                    let value = self.value(v);
                    entries.push(MapEntry {
                        key: Some(key),
                        value,
                    });
                }
                entries.push(MapEntry {
                    key: None,
                    value: dv,
                });
                self.g.value_map(entries)
            }
        }
    }

    fn reference(&mut self, name: &str) -> ExprId {
        let s = self.g.sym(name);
        self.g.expr_ref(s)
    }

    fn node(&mut self, name: &str) -> NodeId {
        self.g.node_named(name)
    }

    fn fresh(&mut self, prefix: &str) -> NodeId {
        let c = self.counters.entry(prefix.to_string()).or_default();
        *c += 1;
        let name = format!("{prefix}{c}");
        self.node(&name)
    }

    /// An error once the game has more nodes and edges than the size limit: unrolled loops
    /// (`repeat N`, `repeat X in D`) and graph calls multiply a program's size.
    fn check_size(&self, span: Span) -> R<()> {
        let n = self.g.node_capacity() + self.g.edge_count();
        if n > self.world.limit {
            return Err(crate::eval::too_large(
                "the translated game",
                n as u128,
                "nodes and edges",
                self.world.limit,
                span,
            )
            .help("loops are unrolled and graphs inlined: `repeat N` and graph calls multiply the size of their bodies; raise the limit with `--size-limit N`"));
        }
        Ok(())
    }

    fn edge(&mut self, from: NodeId, to: NodeId, label: Label, span: Span) {
        // Identical parallel edges add nothing: the same edge is made once.
        if self.edges.insert((from, to, label)) {
            self.g
                .add_edge_spanned(from, to, label, Spans::whole(Some(span)));
        }
    }

    fn add_variable(&mut self, name: &str, t: &Type, init: &RgVal, span: Span) {
        let ty = self.ty(t);
        let init = self.value(init);
        let name = self.g.sym(name);
        self.g.variables.push(Variable {
            name,
            ty,
            init,
            spans: Spans::whole(Some(span)),
        });
    }

    // ----- declarations ------------------------------------------------------------------------

    /// The game, or every error found: those of the declarations and of name resolution
    /// first (graphs are not lowered when there are any), then those of the graph bodies.
    pub fn lower(
        mut self,
        decls: &'a [Decl],
        text: Option<&str>,
        file_span: Span,
    ) -> Result<Game, Vec<HrgError>> {
        if let Err(e) = self.declarations(decls) {
            self.errors.push(e);
            return Err(self.errors);
        }
        self.errors
            .extend(crate::resolve::check(decls, &self.world, text));
        let rules = self.rules_graph(file_span);
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let Some(rules) = rules else {
            return Err(self.errors);
        };
        if let Err(e) = self.rules(rules) {
            self.errors.push(e);
        }
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        Ok(self.finish())
    }

    /// Domains become types, functions constant maps, variables get their initial values.
    /// Errors are recorded; only one that stops lowering is returned.
    fn declarations(&mut self, decls: &'a [Decl]) -> R<()> {
        for d in decls {
            let r = match d {
                Decl::Domain(name, _, span) => self.domain(name, *span),
                Decl::Function(f) => self.function(f),
                _ => Ok(()),
            };
            if let Err(e) = r {
                self.fail(e)?;
            }
        }
        for d in decls {
            if let Decl::Variable(name, t, init, span) = d {
                match self.initial(t, init.as_ref(), *span) {
                    Ok(v) => self.add_variable(name, t, &v, *span),
                    Err(e) => self.fail(e)?,
                }
            }
        }
        Ok(())
    }

    fn domain(&mut self, name: &str, span: Span) -> R<()> {
        let elems = self.world.elems(name, span)?.expect("declared domain");
        let mut names = Vec::new();
        for e in &elems {
            names.push(e.name().expect("not a map"));
        }
        let ty = self.ty(&Type::Set(names));
        let name = self.g.sym(name);
        self.g.typedefs.push(Typedef {
            name,
            ty,
            spans: Spans::whole(Some(span)),
        });
        Ok(())
    }

    fn function(&mut self, f: &Function) -> R<()> {
        let table = self.world.table(f)?;
        let ty = self.ty(&f.ty);
        let value = self.value(&table);
        let name = self.g.sym(&f.name);
        self.g.constants.push(Constant {
            name,
            ty,
            value,
            spans: Spans::whole(Some(f.span)),
        });
        Ok(())
    }

    /// The graph `rules` (recording an error when it is missing or has parameters).
    fn rules_graph(&mut self, file_span: Span) -> Option<&'a Graph> {
        let Some(rules) = self.graphs.get("rules").copied() else {
            self.errors.push(
                HrgError::new(Code::NoRules, "the program has no graph `rules`", file_span)
                    .help("`graph rules() { … }` is where the game starts"),
            );
            return None;
        };
        if !rules.params.is_empty() {
            self.errors.push(HrgError::new(
                Code::NoRules,
                "`rules` takes no parameters",
                rules.span,
            ));
        }
        Some(rules)
    }

    /// Lowers `rules` between `begin` and `end`.
    fn rules(&mut self, rules: &'a Graph) -> R<()> {
        let begin = self.node("begin");
        let end = self.node("end");
        let rb = self.node("rules_begin");
        let re = self.node("rules_end");
        self.edge(begin, rb, Label::Skip, rules.span);
        self.instantiate(rules, rb, re, end, "rules_".to_string())?;
        self.edge(re, end, Label::Skip, rules.span);
        Ok(())
    }

    /// The return types and variables of reusable graphs, and the artificial tags.
    fn finish(mut self) -> Game {
        // Return types of reusable graphs, and the artificial tags.
        let mut names: Vec<String> = self.reusable.keys().cloned().collect();
        names.sort();
        for g in names {
            let calls = self.reusable[&g].calls.clone();
            if calls.is_empty() {
                continue;
            }
            let span = self.graphs[g.as_str()].span;
            let tname = format!("{g}_return_type");
            let ty = self.ty(&Type::Set(calls.clone()));
            let tsym = self.g.sym(&tname);
            self.g.typedefs.push(Typedef {
                name: tsym,
                ty,
                spans: Spans::whole(Some(span)),
            });
            let vt = Type::Name(tname, None);
            self.add_variable(
                &format!("{g}_return"),
                &vt,
                &RgVal::Elem(calls[0].clone()),
                span,
            );
        }
        if !self.artificial.is_empty() {
            let tags: Vec<_> = self
                .artificial
                .iter()
                .map(|t| self.g.sym(t))
                .collect::<Vec<_>>();
            self.g.pragmas.push(Pragma {
                kind: PragmaKind::ArtificialTag(tags),
                derived: false,
                span: None,
            });
        }
        self.g
    }

    fn initial(&self, t: &Type, init: Option<&Expr>, span: Span) -> R<RgVal> {
        let Some(e) = init else {
            return self.world.default_of(t, span);
        };
        // `{ _ = e }`: the map sending everything to `e`.
        if let ExprKind::Map(None, parts) = &e.kind
            && parts.len() == 1
            && matches!(parts[0].key, crate::syntax::Pattern::Wildcard)
            && parts[0].bindings.is_empty()
        {
            let v = self.world.eval(&parts[0].value, &Env::new())?;
            let v = self.world.to_rg(&v, e.span)?;
            return Ok(RgVal::Map(Box::new(v), Vec::new()));
        }
        let v = self.world.eval(e, &Env::new())?;
        self.world.to_rg(&v, e.span)
    }

    // ----- graphs ------------------------------------------------------------------------------

    fn param_var(g: &Graph, i: usize) -> String {
        format!("{}_arg{i}_{}", g.name, g.params[i].0)
    }

    fn ensure_params(&mut self, g: &'a Graph) -> R<()> {
        if self.params_created.insert(g.name.clone()) {
            for (i, (_, t)) in g.params.iter().enumerate() {
                let d = self.world.default_of(t, g.span)?;
                let name = Self::param_var(g, i);
                self.add_variable(&name, t, &d, g.span);
            }
        }
        Ok(())
    }

    fn instantiate(
        &mut self,
        g: &'a Graph,
        b: NodeId,
        f: NodeId,
        fin: NodeId,
        prefix: String,
    ) -> R<()> {
        if !g.reusable && self.stack.contains(&g.name) {
            return Err(HrgError::new(
                Code::Recursion,
                format!(
                    "graph `{}` calls itself; only a `reusable graph` may recurse",
                    g.name
                ),
                g.span,
            ));
        }
        self.ensure_params(g)?;
        self.stack.push(g.name.clone());
        let ctx = Ctx {
            graph: g,
            fin,
            ret: f,
            brk: None,
            cont: None,
            prefix,
            subst: Env::new(),
        };
        let end = self.stmts(&g.body, b, &ctx)?;
        if let Some(cur) = end {
            self.edge(cur, f, Label::Skip, g.span);
        }
        self.stack.pop();
        Ok(())
    }

    fn graph(&self, name: &str, span: Span) -> R<&'a Graph> {
        self.graphs.get(name).copied().ok_or_else(|| {
            crate::eval::unknown(
                Code::UnknownGraph,
                "graph",
                "",
                name,
                self.graphs.keys().copied(),
                "declare it with `graph name(…) { … }`",
                span,
            )
        })
    }

    /// Assigns the arguments of a call of `g` from `cur`; returns the last node.
    fn assign_args(
        &mut self,
        g: &'a Graph,
        args: &[Expr],
        mut cur: NodeId,
        prefix: &str,
        ctx: &Ctx<'a>,
        span: Span,
    ) -> R<NodeId> {
        if args.len() != g.params.len() {
            return Err(HrgError::new(
                Code::Arity,
                format!(
                    "graph `{}` expects {} arguments but got {}",
                    g.name,
                    g.params.len(),
                    args.len()
                ),
                span,
            ));
        }
        self.ensure_params(g)?;
        for (i, a) in args.iter().enumerate() {
            let lhs = self.reference(&Self::param_var(g, i));
            let rhs = self.tr(a, ctx)?;
            let n = self.fresh(prefix);
            self.edge(cur, n, Label::Assign { lhs, rhs }, a.span);
            cur = n;
        }
        Ok(cur)
    }

    fn instance_prefix(&mut self, g: &Graph) -> String {
        let k = self.instances.entry(g.name.clone()).or_default();
        *k += 1;
        format!("{}_{}_", g.name, k)
    }

    fn call(
        &mut self,
        name: &str,
        args: &[Expr],
        cur: NodeId,
        ctx: &Ctx<'a>,
        span: Span,
    ) -> R<NodeId> {
        if ctx.subst.contains_key(name) {
            return Err(HrgError::new(
                Code::BadSubstitution,
                format!("cannot substitute `{name}` in a graph call"),
                span,
            ));
        }
        let g = self.graph(name, span)?;
        if !g.reusable {
            let last = self.assign_args(g, args, cur, &ctx.prefix.clone(), ctx, span)?;
            let p = self.instance_prefix(g);
            let b = self.node(&format!("{p}begin"));
            let f = self.node(&format!("{p}end"));
            self.edge(last, b, Label::Skip, span);
            self.instantiate(g, b, f, ctx.fin, p)?;
            let r = self.fresh(&ctx.prefix);
            self.edge(f, r, Label::Skip, span);
            return Ok(r);
        }
        let state = self.reusable.entry(g.name.clone()).or_default();
        let id = format!("{}_call_{}", g.name, state.calls.len() + 1);
        state.calls.push(id.clone());
        let idn = self.node(&id);
        self.edge(cur, idn, Label::Skip, span);
        let n0 = self.fresh(&ctx.prefix);
        let lhs = self.reference(&format!("{}_return", g.name));
        let rhs = self.reference(&id);
        self.edge(idn, n0, Label::Assign { lhs, rhs }, span);
        let last = self.assign_args(g, args, n0, &ctx.prefix.clone(), ctx, span)?;
        let gb = self.node(&format!("{}_begin", g.name));
        let ge = self.node(&format!("{}_end", g.name));
        let gr = self.node(&format!("{}_return", g.name));
        self.edge(last, gb, Label::Skip, span);
        self.ensure_reusable_instance(g, ctx.fin)?;
        if !self.reusable[&g.name].returns_linked {
            self.reusable
                .get_mut(&g.name)
                .expect("present")
                .returns_linked = true;
            self.edge(ge, gr, Label::Skip, g.span);
        }
        let n = self.fresh(&ctx.prefix);
        let lhs = self.reference(&format!("{}_return", g.name));
        let rhs = self.reference(&id);
        self.edge(
            gr,
            n,
            Label::Compare {
                lhs,
                rhs,
                negated: false,
            },
            span,
        );
        Ok(n)
    }

    fn ensure_reusable_instance(&mut self, g: &'a Graph, fin: NodeId) -> R<()> {
        let state = self.reusable.entry(g.name.clone()).or_default();
        if state.instance {
            return Ok(());
        }
        state.instance = true;
        let gb = self.node(&format!("{}_begin", g.name));
        let ge = self.node(&format!("{}_end", g.name));
        self.instantiate(g, gb, ge, fin, format!("{}_", g.name))
    }

    /// A reachability instance of `g(args)`: returns (start, target).
    fn reachable(&mut self, e: &Expr, ctx: &Ctx<'a>) -> R<(NodeId, NodeId)> {
        let ExprKind::Call(head, args) = &e.kind else {
            return Err(HrgError::new(
                Code::BadCondition,
                "`reachable` needs a graph call, e.g. `reachable(g())`",
                e.span,
            ));
        };
        let ExprKind::Name(name) = &head.kind else {
            return Err(HrgError::new(
                Code::BadCondition,
                "`reachable` needs a graph call",
                e.span,
            ));
        };
        let g = self.graph(name, e.span)?;
        let s = self.fresh(&ctx.prefix);
        let sub = format!("{}{}_", ctx.prefix, self.counters[&ctx.prefix]);
        let last = self.assign_args(g, args, s, &sub, ctx, e.span)?;
        if g.reusable {
            let gb = self.node(&format!("{}_begin", g.name));
            let ge = self.node(&format!("{}_end", g.name));
            self.edge(last, gb, Label::Skip, e.span);
            self.ensure_reusable_instance(g, ge)?;
            Ok((s, ge))
        } else {
            let p = self.instance_prefix(g);
            let b = self.node(&format!("{p}begin"));
            let f = self.node(&format!("{p}end"));
            self.edge(last, b, Label::Skip, e.span);
            self.instantiate(g, b, f, f, p)?;
            Ok((s, f))
        }
    }

    // ----- statements --------------------------------------------------------------------------

    /// Lowers a statement list from `cur`; returns the node where control falls off the end, or
    /// `None` if the list ends with `end()`, `return()`, `break()` or `continue()`.
    fn stmts(&mut self, list: &[Stmt], mut cur: NodeId, ctx: &Ctx<'a>) -> R<Option<NodeId>> {
        for (i, s) in list.iter().enumerate() {
            let last = i + 1 == list.len();
            if let StmtKind::Call(name, args) = &s.kind
                && is_builtin_stmt(name)
                && !self.graphs.contains_key(name.as_str())
            {
                if let Err(e) = self.control(name, args, last, cur, ctx, s.span) {
                    self.fail(e)?;
                }
                return Ok(None);
            }
            cur = match self.stmt(s, cur, ctx) {
                Ok(n) => n,
                Err(e) => {
                    // Go on from a new node, as if the statement were not there.
                    self.fail(e)?;
                    self.fresh(&ctx.prefix)
                }
            };
        }
        Ok(Some(cur))
    }

    /// `end()`, `return()`, `break()` or `continue()` from `cur`: the last statement of its
    /// block, without arguments (`break` and `continue` inside a loop).
    fn control(
        &mut self,
        name: &str,
        args: &[Expr],
        last: bool,
        cur: NodeId,
        ctx: &Ctx<'a>,
        span: Span,
    ) -> R<()> {
        if !args.is_empty() {
            return Err(HrgError::new(
                Code::Arity,
                format!("`{name}()` takes no arguments"),
                span,
            ));
        }
        if !last {
            return Err(HrgError::new(
                Code::ControlFlow,
                format!("`{name}()` has to be the last statement of its block"),
                span,
            )
            .help("the statements after it could never run"));
        }
        match name {
            "end" => {
                let lhs = self.reference("player");
                let rhs = self.reference("keeper");
                self.edge(cur, ctx.fin, Label::Assign { lhs, rhs }, span);
            }
            "return" => self.edge(cur, ctx.ret, Label::Skip, span),
            _ => {
                let target = if name == "break" { ctx.brk } else { ctx.cont };
                let t = target.ok_or_else(|| {
                    HrgError::new(
                        Code::ControlFlow,
                        format!("`{name}()` outside a loop"),
                        span,
                    )
                })?;
                self.edge(cur, t, Label::Skip, span);
            }
        }
        Ok(())
    }

    fn block_into(
        &mut self,
        list: &[Stmt],
        from: NodeId,
        next: NodeId,
        ctx: &Ctx<'a>,
        span: Span,
    ) -> R<()> {
        self.check_size(span)?;
        if let Some(end) = self.stmts(list, from, ctx)? {
            self.edge(end, next, Label::Skip, span);
        }
        Ok(())
    }

    fn subst_name(&self, name: &str, ctx: &Ctx<'a>) -> String {
        match ctx.subst.get(name) {
            Some(v) => v.name().unwrap_or_else(|| name.to_string()),
            None => name.to_string(),
        }
    }

    fn lhs(&mut self, root: &str, idx: &[Expr], ctx: &Ctx<'a>, span: Span) -> R<ExprId> {
        if ctx.subst.contains_key(root) {
            return Err(HrgError::new(
                Code::BadSubstitution,
                format!("cannot substitute `{root}` in an assigned variable"),
                span,
            ));
        }
        if ctx.graph.params.iter().any(|(p, _)| p == root) {
            return Err(HrgError::new(
                Code::AssignedParameter,
                format!(
                    "`{root}` is a parameter of `{}` and cannot be assigned",
                    ctx.graph.name
                ),
                span,
            )
            .help("parameters are inputs; assign a global variable instead"));
        }
        let mut e = self.reference(root);
        for i in idx {
            let k = self.tr(i, ctx)?;
            e = self.g.expr_access(e, k);
        }
        Ok(e)
    }

    fn stmt(&mut self, s: &Stmt, cur: NodeId, ctx: &Ctx<'a>) -> R<NodeId> {
        let span = s.span;
        match &s.kind {
            StmtKind::Assign(root, idx, e) => {
                let lhs = self.lhs(root, idx, ctx, span)?;
                let rhs = self.tr(e, ctx)?;
                let n = self.fresh(&ctx.prefix);
                self.edge(cur, n, Label::Assign { lhs, rhs }, span);
                Ok(n)
            }
            StmtKind::AssignAny(root, idx, t) => {
                let lhs = self.lhs(root, idx, ctx, span)?;
                let ty = self.ty(t);
                let n = self.fresh(&ctx.prefix);
                self.edge(cur, n, Label::AssignAny { lhs, ty }, span);
                Ok(n)
            }
            StmtKind::Tag(syms, artificial) => {
                let joined = syms
                    .iter()
                    .map(|x| self.subst_name(x, ctx))
                    .collect::<Vec<_>>()
                    .join("__");
                if *artificial {
                    self.artificial.insert(joined.clone());
                }
                let t = self.g.sym(&joined);
                let n = self.fresh(&ctx.prefix);
                self.edge(cur, n, Label::Tag(t), span);
                Ok(n)
            }
            StmtKind::TagVar(v) => {
                if ctx.subst.contains_key(v) {
                    return Err(HrgError::new(
                        Code::BadSubstitution,
                        format!("cannot substitute `{v}` in a tag variable"),
                        span,
                    ));
                }
                let t = self.g.sym(v);
                let n = self.fresh(&ctx.prefix);
                self.edge(cur, n, Label::TagVar(t), span);
                Ok(n)
            }
            StmtKind::Call(name, args) if name == "check" && !self.graphs.contains_key("check") => {
                if args.len() != 1 {
                    return Err(HrgError::new(
                        Code::Arity,
                        "`check` takes one condition",
                        span,
                    ));
                }
                let n = self.fresh(&ctx.prefix);
                self.cond(&args[0], cur, Some(n), None, ctx)?;
                Ok(n)
            }
            StmtKind::Call(name, args) => self.call(name, args, cur, ctx, span),
            StmtKind::If(c, a, b) => {
                let t = self.fresh(&ctx.prefix);
                let e = self.fresh(&ctx.prefix);
                self.cond(c, cur, Some(t), Some(e), ctx)?;
                match b {
                    None => {
                        self.block_into(a, t, e, ctx, span)?;
                        Ok(e)
                    }
                    Some(b) => {
                        let j = self.fresh(&ctx.prefix);
                        self.block_into(a, t, j, ctx, span)?;
                        self.block_into(b, e, j, ctx, span)?;
                        Ok(j)
                    }
                }
            }
            _ => self.control_stmt(s, cur, ctx),
        }
    }

    /// The statements with blocks that loop or branch: `while`, `loop`, `repeat`, `branch`.
    fn control_stmt(&mut self, s: &Stmt, cur: NodeId, ctx: &Ctx<'a>) -> R<NodeId> {
        let span = s.span;
        match &s.kind {
            StmtKind::While(c, body) => {
                let t = self.fresh(&ctx.prefix);
                let e = self.fresh(&ctx.prefix);
                self.cond(c, cur, Some(t), Some(e), ctx)?;
                let inner = Ctx {
                    brk: Some(e),
                    cont: Some(cur),
                    ..ctx.clone()
                };
                self.block_into(body, t, cur, &inner, span)?;
                Ok(e)
            }
            StmtKind::Loop(body) => {
                let h = self.fresh(&ctx.prefix);
                let x = self.fresh(&ctx.prefix);
                self.edge(cur, h, Label::Skip, span);
                let inner = Ctx {
                    brk: Some(x),
                    cont: Some(h),
                    ..ctx.clone()
                };
                self.block_into(body, h, h, &inner, span)?;
                Ok(x)
            }
            StmtKind::Repeat(n, body) => {
                // Every copy makes a node at least: stop a count over the limit at once.
                if *n as u128 > self.world.limit as u128 {
                    return Err(crate::eval::too_large(
                        &format!("`repeat {n}`"),
                        *n as u128,
                        "copies",
                        self.world.limit,
                        span,
                    ));
                }
                let x = self.fresh(&ctx.prefix);
                let mut cur = cur;
                for _ in 0..*n {
                    self.check_size(span)?;
                    let nx = self.fresh(&ctx.prefix);
                    let inner = Ctx {
                        brk: Some(x),
                        cont: Some(nx),
                        ..ctx.clone()
                    };
                    self.block_into(body, cur, nx, &inner, span)?;
                    cur = nx;
                }
                self.edge(cur, x, Label::Skip, span);
                Ok(x)
            }
            StmtKind::RepeatIn(v, t, body) => {
                let elems = self.loop_elements(t, ctx, span)?;
                let x = self.fresh(&ctx.prefix);
                let mut cur = cur;
                for el in elems {
                    self.check_size(span)?;
                    let nx = self.fresh(&ctx.prefix);
                    let mut inner = Ctx {
                        brk: Some(x),
                        cont: Some(nx),
                        ..ctx.clone()
                    };
                    inner.subst.insert(v.clone(), el);
                    self.block_into(body, cur, nx, &inner, span)?;
                    cur = nx;
                }
                self.edge(cur, x, Label::Skip, span);
                Ok(x)
            }
            StmtKind::Branch(arms) => {
                let j = self.fresh(&ctx.prefix);
                for arm in arms {
                    self.block_into(arm, cur, j, ctx, span)?;
                }
                Ok(j)
            }
            StmtKind::BranchIn(v, t, body) => {
                let elems = self.loop_elements(t, ctx, span)?;
                let j = self.fresh(&ctx.prefix);
                for el in elems {
                    self.check_size(span)?;
                    let mut inner = ctx.clone();
                    inner.subst.insert(v.clone(), el);
                    self.block_into(body, cur, j, &inner, span)?;
                }
                Ok(j)
            }
            _ => unreachable!("`stmt` lowers the other statements"),
        }
    }

    fn loop_elements(&self, t: &Type, _ctx: &Ctx<'a>, span: Span) -> R<Vec<Value>> {
        let elems = self.world.enumerate(t, span)?;
        Ok(elems
            .into_iter()
            .map(|v| Value::Sym(v.name().expect("not a map")))
            .collect())
    }

    // ----- conditions and runtime expressions -----------------------------------------------

    fn cond(
        &mut self,
        c: &Expr,
        entry: NodeId,
        t: Option<NodeId>,
        e: Option<NodeId>,
        ctx: &Ctx<'a>,
    ) -> R<()> {
        match &c.kind {
            ExprKind::Bin(op @ (BinOp::Eq | BinOp::Neq), a, b) => {
                let l = self.tr(a, ctx)?;
                let r = self.tr(b, ctx)?;
                let neg = *op == BinOp::Neq;
                if let Some(t) = t {
                    self.edge(entry, t, Label::Compare { lhs: l, rhs: r, negated: neg }, c.span);
                }
                if let Some(e) = e {
                    self.edge(entry, e, Label::Compare { lhs: l, rhs: r, negated: !neg }, c.span);
                }
                Ok(())
            }
            ExprKind::Bin(BinOp::And, a, b) => {
                let m = self.fresh(&ctx.prefix);
                self.cond(a, entry, Some(m), e, ctx)?;
                self.cond(b, m, t, e, ctx)
            }
            ExprKind::Bin(BinOp::Or, a, b) => match e {
                None => {
                    self.cond(a, entry, t, None, ctx)?;
                    self.cond(b, entry, t, None, ctx)
                }
                Some(e) => {
                    let f = self.fresh(&ctx.prefix);
                    self.cond(a, entry, t, Some(f), ctx)?;
                    self.cond(b, f, t, Some(e), ctx)
                }
            },
            ExprKind::Call(head, args) => {
                let ExprKind::Name(f) = &head.kind else {
                    return Err(HrgError::new(Code::BadCondition, "this is not a condition", c.span));
                };
                match (f.as_str(), args.len()) {
                    ("not", 1) => self.cond(&args[0], entry, e, t, ctx),
                    ("true", 0) => {
                        if let Some(t) = t {
                            self.edge(entry, t, Label::Skip, c.span);
                        }
                        Ok(())
                    }
                    ("false", 0) => {
                        if let Some(e) = e {
                            self.edge(entry, e, Label::Skip, c.span);
                        }
                        Ok(())
                    }
                    ("reachable", 1) => {
                        let (s, target) = self.reachable(&args[0], ctx)?;
                        if let Some(t) = t {
                            self.edge(entry, t, Label::Reach { from: s, to: target, negated: false }, c.span);
                        }
                        if let Some(e) = e {
                            self.edge(entry, e, Label::Reach { from: s, to: target, negated: true }, c.span);
                        }
                        Ok(())
                    }
                    _ => Err(HrgError::new(Code::BadCondition, format!("`{f}(…)` is not a condition"), c.span).help(
                        "conditions are `==`, `!=`, `&&`, `||`, `not(c)`, `true()`, `false()` and `reachable(g(…))`",
                    )),
                }
            }
            _ => Err(HrgError::new(Code::BadCondition, "this is not a condition a game can test", c.span).help(
                "at run time only `==`, `!=`, `&&`, `||`, `not(c)`, `true()`, `false()` and `reachable(g(…))` exist",
            )),
        }
    }

    fn tr(&mut self, e: &Expr, ctx: &Ctx<'a>) -> R<ExprId> {
        match &e.kind {
            ExprKind::Name(x) => {
                if let Some(v) = ctx.subst.get(x) {
                    let n = v.name().expect("loop values are symbols");
                    return Ok(self.reference(&n));
                }
                if let Some(i) = ctx.graph.params.iter().position(|(p, _)| p == x) {
                    let n = Self::param_var(ctx.graph, i);
                    return Ok(self.reference(&n));
                }
                Ok(self.reference(x))
            }
            ExprKind::Access(a, b) => {
                let a = self.tr(a, ctx)?;
                let b = self.tr(b, ctx)?;
                Ok(self.g.expr_access(a, b))
            }
            ExprKind::Call(f, args) => {
                let mut x = self.tr(f, ctx)?;
                for a in args {
                    let k = self.tr(a, ctx)?;
                    x = self.g.expr_access(x, k);
                }
                Ok(x)
            }
            ExprKind::Ctor(..) => {
                let v = self.world.eval(e, &ctx.subst)?;
                let n = v.name().ok_or_else(|| HrgError::new(Code::NotRuntime, "a map is not a value here", e.span))?;
                Ok(self.reference(&n))
            }
            _ => Err(HrgError::new(Code::NotRuntime, "this expression cannot be computed by a game at run time", e.span)
                .help("graph bodies can only look values up (`m[k]`, `f(x)`) and compare them; arithmetic, `if … then … else` and map literals are compile-time only")),
        }
    }
}
