//! Lints: conditions of proper games that the reference does not check (the built-in types,
//! pragma targets, unreachable nodes, checks that recurse or never hold), decided without
//! playing. All are warnings, so every game the reference accepts is
//! still accepted (`--deny warnings` makes them errors).

use crate::reference::violation;
use rg_core::print::{print_edge, print_label};
use rg_core::typeck::{Resolved, TypeEnv};
use rg_core::{
    Cost, EdgeId, EntityId, ExprData, Game, Label, Location, NodeId, PragmaKind, Severity, Span,
    TypeData, Validator, Violation,
};
use std::collections::{BTreeMap, HashSet};

fn warning(
    validator: &'static str,
    code: &'static str,
    at: Location,
    message: String,
    help: &str,
    span: Option<Span>,
) -> Violation {
    let mut v = violation(validator, code, at, message, help, span);
    v.severity = Severity::Warning;
    v
}

/// `end` has no outgoing edges and is entered only by `player = keeper` (a convention of proper
/// games in the RG paper).
#[derive(Clone, Copy, Debug)]
pub struct EndProtocol;

impl Validator for EndProtocol {
    fn name(&self) -> &'static str {
        "end-protocol"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let Some(end) = game.end() else { return };
        let wk = *game.well_known();
        for &e in game.outgoing(end) {
            let d = game.edge(e);
            out.push(warning(
                self.name(),
                "rg::lint::end-has-edges",
                Location::Edge(e),
                format!("edge `{}` leaves `end`", print_edge(game, d)),
                "a game is over at `end`: its outgoing edges are never used",
                d.spans.whole,
            ));
        }
        for &e in game.incoming(end) {
            let d = game.edge(e);
            let ok = match d.label {
                Label::Assign { lhs, rhs } => {
                    game.expr(lhs) == ExprData::Ref(wk.player)
                        && game.expr(game.strip_casts(rhs)) == ExprData::Ref(wk.keeper)
                }
                _ => false,
            };
            if !ok {
                out.push(warning(
                    self.name(),
                    "rg::lint::end-not-keeper",
                    Location::Edge(e),
                    match d.label {
                        // The empty label printed as `` read as a glitch.
                        Label::Skip => "`end` is entered by an edge without action, not by \
                                        `player = keeper`"
                            .to_owned(),
                        _ => format!(
                            "`end` is entered by `{}`, not by `player = keeper`",
                            print_label(game, &d.label)
                        ),
                    },
                    "proper games end with the keeper's move: `x, end: player = keeper;`",
                    d.spans.whole,
                ));
            }
        }
    }
}

/// The built-in types and variables as the RG paper requires them: `Player`
/// without `keeper`/`random`, `player` starting as `keeper`, no duplicate set members, no name
/// that is both a constant and a variable.
#[derive(Clone, Copy, Debug)]
pub struct PlayerSets;

impl Validator for PlayerSets {
    fn name(&self) -> &'static str {
        "player-sets"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let wk = *game.well_known();
        let env = TypeEnv::new(game);
        for (i, t) in game.typedefs.iter().enumerate() {
            if t.name == wk.player_type
                && let Ok(Resolved::Set(ms)) = env.resolve(t.ty)
            {
                for s in [wk.keeper, wk.random] {
                    if ms.contains(s) {
                        out.push(warning(
                            self.name(),
                            "rg::lint::system-player",
                            Location::Typedef(i),
                            format!("`Player` contains `{}`", game.name(s)),
                            "`keeper` and `random` are system players; `Player` lists only real players",
                            t.spans.whole,
                        ));
                    }
                }
            }
        }
        let mut reported = HashSet::new();
        for (i, t) in game.typedefs.iter().enumerate() {
            let TypeData::Set(ms) = game.ty(t.ty) else {
                continue;
            };
            let mut seen = HashSet::new();
            for &m in ms.iter() {
                if !seen.insert(m) && reported.insert((i, m)) {
                    out.push(warning(
                        self.name(),
                        "rg::lint::duplicate-member",
                        Location::Typedef(i),
                        format!(
                            "`{}` is listed twice in type `{}`",
                            game.name(m),
                            game.name(t.name)
                        ),
                        "a set lists each member once",
                        t.spans.whole,
                    ));
                }
            }
        }
        for (i, v) in game.variables.iter().enumerate() {
            if v.name == wk.player
                && let rg_core::ValueData::Element(s) = game.value(v.init)
                && *s != wk.keeper
            {
                out.push(warning(
                    self.name(),
                    "rg::lint::keeper-begins",
                    Location::Variable(i),
                    format!("`player` starts as `{}`, not `keeper`", game.name(*s)),
                    "proper games begin with the keeper's move",
                    v.spans.whole,
                ));
            }
        }
        let constants: HashSet<_> = game.constants.iter().map(|c| c.name).collect();
        for (i, v) in game.variables.iter().enumerate() {
            if constants.contains(&v.name) {
                out.push(warning(
                    self.name(),
                    "rg::lint::constant-and-variable",
                    Location::Variable(i),
                    format!("`{}` is both a constant and a variable", game.name(v.name)),
                    "in expressions the constant wins; rename one of them",
                    v.spans.whole,
                ));
            }
        }
    }
}

/// Pragmas name nodes that exist and variables that are declared; `@disjoint` lists exactly the
/// targets of the node's edges (the interpreter trusts it to pick the one edge that applies).
#[derive(Clone, Copy, Debug)]
pub struct PragmaTargets;

impl Validator for PragmaTargets {
    fn name(&self) -> &'static str {
        "pragmas"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let exists = |n: NodeId| !game.outgoing(n).is_empty() || !game.incoming(n).is_empty();
        let vars: HashSet<_> = game.variables.iter().map(|v| v.name).collect();
        for (i, p) in game.pragmas.iter().enumerate() {
            let mut missing = Vec::new();
            p.kind.for_each_node(|n| {
                if !exists(n) && !missing.contains(&n) {
                    missing.push(n);
                }
            });
            for n in missing {
                out.push(warning(
                    self.name(),
                    "rg::lint::pragma-unknown-node",
                    Location::Pragma(i),
                    format!(
                        "pragma names node `{}`, which has no edges",
                        game.node_name(n)
                    ),
                    "check the node name; pragmas are not validated by the reference",
                    p.span,
                ));
            }
            let named_vars: Vec<_> = match &p.kind {
                PragmaKind::Repeat { variables, .. } => variables.clone(),
                PragmaKind::Iterator { variable, .. } => vec![*variable],
                _ => Vec::new(),
            };
            for v in named_vars {
                if !vars.contains(&v) {
                    out.push(warning(
                        self.name(),
                        "rg::lint::pragma-unknown-variable",
                        Location::Pragma(i),
                        format!("pragma names `{}`, which is not a variable", game.name(v)),
                        "check the variable name",
                        p.span,
                    ));
                }
            }
            if let PragmaKind::Disjoint { node, nodes }
            | PragmaKind::DisjointExhaustive { node, nodes } = &p.kind
            {
                let mut want: Vec<NodeId> = game
                    .outgoing(*node)
                    .iter()
                    .map(|&e| game.edge(e).to)
                    .collect();
                let mut got = nodes.clone();
                want.sort_unstable();
                got.sort_unstable();
                if want != got {
                    out.push(warning(
                        self.name(),
                        "rg::lint::disjoint-targets",
                        Location::Pragma(i),
                        format!(
                            "the targets listed for `{}` are not those of its {} outgoing edges",
                            game.node_name(*node),
                            want.len()
                        ),
                        "list the target of every outgoing edge once; the interpreter uses the pragma only when the counts match",
                        p.span,
                    ));
                }
            }
        }
    }
}

/// Nodes with edges that no walk can reach: not from `begin`, nor from the start node of any
/// reachability check (labels ignored).
#[derive(Clone, Copy, Debug)]
pub struct UnreachableNodes;

impl Validator for UnreachableNodes {
    fn name(&self) -> &'static str {
        "unreachable-nodes"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let Some(begin) = game.begin() else { return };
        let mut roots = vec![begin];
        for (_, e) in game.edges() {
            if let Label::Reach { from, .. } = e.label {
                roots.push(from);
            }
        }
        let seen = game.reachable_until(&roots, None);
        for (n, d) in game.nodes().iter() {
            if !seen[n.0 as usize] && !game.outgoing(n).is_empty() {
                out.push(warning(
                    self.name(),
                    "rg::lint::unreachable-node",
                    Location::Node(n),
                    format!("node `{}` can never be reached", game.name(d.name)),
                    "no edge path leads here from `begin` or from a reachability check; remove it or connect it",
                    d.span,
                ));
            }
        }
    }
}

/// Reachability checks that can recurse or can never hold (with a sharp recursion test: the
/// checking edge's source must not be reachable from the check's start). The search of a check
/// stops at its target (edges leaving it are never followed), so the graph search does not go past
/// the target either.
#[derive(Clone, Copy, Debug)]
pub struct ReachabilityLint;

impl Validator for ReachabilityLint {
    fn name(&self) -> &'static str {
        "reachability-checks"
    }
    fn cost(&self) -> Cost {
        // One graph search per distinct check.
        Cost::Expensive
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        // The check edges grouped by the search they need: one search per distinct
        // (start, target), over one visited table stamped per search, so a game with many
        // checks costs what the searches visit, not checks × nodes (a table per check made
        // loading a 5.5-million-node GDL translation with 365 000 checks crawl).
        let mut groups: BTreeMap<(NodeId, NodeId), Vec<EdgeId>> = BTreeMap::new();
        for (id, e) in game.edges() {
            if let Label::Reach { from, to, .. } = e.label {
                groups.entry((from, to)).or_default().push(id);
            }
        }
        let mut stamp: Vec<u32> = vec![0; game.node_capacity()];
        let mut stack: Vec<NodeId> = Vec::new();
        let mut found: Vec<(EdgeId, Violation)> = Vec::new();
        for (k, (&(from, to), edges)) in groups.iter().enumerate() {
            let mark = k as u32 + 1;
            stamp[from.index()] = mark;
            stack.push(from);
            while let Some(n) = stack.pop() {
                if n == to {
                    continue;
                }
                for &e in game.outgoing(n) {
                    let next = game.edge(e).to;
                    if stamp[next.index()] != mark {
                        stamp[next.index()] = mark;
                        stack.push(next);
                    }
                }
            }
            let seen = |n: NodeId| stamp[n.index()] == mark;
            for &id in edges {
                let e = game.edge(id);
                // A check whose edge leaves its own target is not evaluated inside its search.
                if seen(e.from) && e.from != to {
                    found.push((
                        id,
                        warning(
                            self.name(),
                            "rg::lint::reachability-loop",
                            Location::Edge(id),
                            format!(
                                "Calculating reachability of {} from {} can cause a loop.",
                                game.node_name(to),
                                game.node_name(from)
                            ),
                            "the check's own node can be reached from its start, so evaluating it may need itself",
                            e.spans.whole,
                        ),
                    ));
                } else if from != to && !seen(to) {
                    found.push((
                        id,
                        warning(
                            self.name(),
                            "rg::lint::reachability-never",
                            Location::Edge(id),
                            format!(
                                "{} is not reachable from {}.",
                                game.node_name(to),
                                game.node_name(from)
                            ),
                            "no edge path leads from the start to the target: `?` never holds and `!` always does",
                            e.spans.whole,
                        ),
                    ));
                }
            }
        }
        // In edge order, as the checks appear.
        found.sort_by_key(|(id, _)| id.0);
        out.extend(found.into_iter().map(|(_, v)| v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rg_core::FileId;

    /// The codes of [`ReachabilityLint`] on the game of `text`.
    fn reachability_codes(text: &str) -> Vec<&'static str> {
        let text = format!("type Player = {{ a }};\ntype Score = {{ 0 }};\n{text}");
        let mut game = rg_core::parse(FileId(0), &text).expect("test game parses");
        rg_core::builtins::add_builtins(&mut game).expect("built-ins");
        let mut out = Vec::new();
        ReachabilityLint.validate(&game, &mut out);
        out.iter().map(|v| v.code).collect()
    }

    #[test]
    fn an_empty_edge_into_end_is_named_readably() {
        let text = "type Player = { a };\ntype Score = { 0 };\nbegin, s: player = a;\ns, end: ;";
        let mut game = rg_core::parse(FileId(0), text).expect("test game parses");
        rg_core::builtins::add_builtins(&mut game).expect("built-ins");
        let mut out = Vec::new();
        EndProtocol.validate(&game, &mut out);
        let messages: Vec<&str> = out.iter().map(|v| v.message.as_str()).collect();
        assert_eq!(
            messages,
            ["`end` is entered by an edge without action, not by `player = keeper`"]
        );
    }

    #[test]
    fn a_check_whose_start_leads_back_to_its_edge_loops() {
        let codes = reachability_codes(
            "begin, s: player = a;\ns, t: ? s -> u;\nt, end: player = keeper;\ns, u: ;\nu, s: ;",
        );
        assert_eq!(codes, ["rg::lint::reachability-loop"]);
    }

    /// The search stops at `t`, so the check on the move `m -> t -> begin` never evaluates
    /// itself; a check leaving its own target is not evaluated by its search either.
    #[test]
    fn a_check_that_reaches_its_edge_only_through_its_target_does_not_loop() {
        let codes = reachability_codes(
            "begin, s: ? m -> t;\ns, m: ;\nm, t: player = a;\nt, u: ? m -> t;\nu, begin: ;\n\
             t, end: player = keeper;",
        );
        assert_eq!(codes, Vec::<&str>::new());
    }
}
