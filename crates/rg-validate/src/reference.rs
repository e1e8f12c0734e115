//! The reference's seven validators (assignments, duplicated names, maps, reachability of
//! `end`, tag loops, tag variables, types), with its conditions and messages, but
//! reporting every violation instead of stopping at the first.

use rg_core::print::{print_edge, print_label, print_type, print_value};
use rg_core::typeck::{Resolved, TypeEnv, TypeFail};
use rg_core::{
    Cost, ExprData, Game, Label, Location, Severity, Span, Validator, ValueData, ValueId, Violation,
};
use std::collections::{HashMap, HashSet};

pub(crate) fn violation(
    validator: &'static str,
    code: &'static str,
    at: Location,
    message: String,
    help: &str,
    span: Option<Span>,
) -> Violation {
    Violation {
        validator,
        code,
        severity: Severity::Error,
        at,
        message,
        help: Some(help.to_string()),
        span,
        labels: Vec::new(),
    }
}

/// Edge part indices (rg_core::game module docs): source, target, label, then the label's parts.
const PART_LHS: usize = 3;

/// Assignments only to variables (not to constants or symbols); no `player = T(*)` (who
/// moves must be decided, not chosen).
#[derive(Clone, Copy, Debug)]
pub struct Assignments;

impl Validator for Assignments {
    fn name(&self) -> &'static str {
        "assignments"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let index = game.name_index();
        let player = game.well_known().player;
        for (id, e) in game.edges() {
            let (lhs, any) = match e.label {
                Label::Assign { lhs, .. } => (lhs, false),
                Label::AssignAny { lhs, .. } => (lhs, true),
                _ => continue,
            };
            let root = game.expr_root(lhs);
            let span = e.spans.part_or_whole(PART_LHS);
            if !index.variables.contains_key(&root) {
                out.push(violation(
                    self.name(),
                    "rg::assignments::not-a-variable",
                    Location::Edge(id),
                    format!(
                        "{} is constant in {}",
                        game.name(root),
                        print_label(game, &e.label)
                    ),
                    "only variables (or entries of maps stored in variables) can be assigned",
                    span,
                ));
            } else if any && game.expr(lhs) == ExprData::Ref(player) {
                out.push(violation(
                    self.name(),
                    "rg::assignments::player-any",
                    Location::Edge(id),
                    format!(
                        "AssignAny is not allowed for the player variable in {}.",
                        print_label(game, &e.label)
                    ),
                    "assign each player on its own edge: `player = PlayerOrSystem(p)`",
                    e.spans.whole,
                ));
            }
        }
    }
}

/// No two constants, typedefs or variables share a name (a name must resolve to one
/// declaration).
#[derive(Clone, Copy, Debug)]
pub struct DuplicatedNames;

impl Validator for DuplicatedNames {
    fn name(&self) -> &'static str {
        "duplicated-names"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let mut check = |names: Vec<(rg_core::Symbol, Option<Span>, Location)>,
                         kind: &str,
                         code: &'static str| {
            let mut first: HashMap<rg_core::Symbol, Option<Span>> = HashMap::new();
            for (name, span, at) in names {
                match first.get(&name) {
                    None => {
                        first.insert(name, span);
                    }
                    Some(prev) => {
                        let mut v = violation(
                            self.name(),
                            code,
                            at,
                            format!("Multiple {kind}s named {}.", game.name(name)),
                            "rename or remove one of the declarations",
                            span,
                        );
                        if let Some(p) = prev {
                            v.labels.push((*p, "first declared here".to_string()));
                        }
                        out.push(v);
                    }
                }
            }
        };
        check(
            game.constants
                .iter()
                .enumerate()
                .map(|(i, c)| (c.name, c.spans.whole, Location::Constant(i)))
                .collect(),
            "constant",
            "rg::names::duplicate-constant",
        );
        check(
            game.typedefs
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name, t.spans.whole, Location::Typedef(i)))
                .collect(),
            "typedef",
            "rg::names::duplicate-typedef",
        );
        check(
            game.variables
                .iter()
                .enumerate()
                .map(|(i, v)| (v.name, v.spans.whole, Location::Variable(i)))
                .collect(),
            "variable",
            "rg::names::duplicate-variable",
        );
    }
}

/// Map values have unique keys and exactly one default entry (what a lookup of any other key
/// reads).
#[derive(Clone, Copy, Debug)]
pub struct Maps;

impl Maps {
    fn check_value(
        &self,
        game: &Game,
        v: ValueId,
        at: Location,
        span: Option<Span>,
        out: &mut Vec<Violation>,
    ) {
        let ValueData::Map(entries) = game.value(v) else {
            return;
        };
        let mut keys = HashSet::new();
        let mut default = false;
        for e in entries.iter() {
            self.check_value(game, e.value, at, span, out);
            match e.key {
                Some(k) => {
                    if !keys.insert(k) {
                        out.push(violation(
                            self.name(),
                            "rg::maps::duplicate-key",
                            at,
                            format!(
                                "Duplicated key {} in map {}.",
                                game.name(k),
                                print_value(game, v)
                            ),
                            "a map lists each key once",
                            span,
                        ));
                    }
                }
                None => {
                    if default {
                        out.push(violation(
                            self.name(),
                            "rg::maps::duplicate-default",
                            at,
                            format!("Duplicated default value in map {}.", print_value(game, v)),
                            "a map has exactly one default entry `:value`",
                            span,
                        ));
                    }
                    default = true;
                }
            }
        }
        if !default {
            out.push(violation(
                self.name(),
                "rg::maps::missing-default",
                at,
                format!("Missing default value in {}.", print_value(game, v)),
                "add a default entry, e.g. `{ a: 1, :0 }`",
                span,
            ));
        }
    }
}

impl Validator for Maps {
    fn name(&self) -> &'static str {
        "maps"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        for (i, c) in game.constants.iter().enumerate() {
            self.check_value(game, c.value, Location::Constant(i), c.spans.whole, out);
        }
        for (i, v) in game.variables.iter().enumerate() {
            self.check_value(game, v.init, Location::Variable(i), v.spans.whole, out);
        }
    }
}

/// Some edge into `end` is reachable from `begin` (labels ignored): a game that can never end
/// is rejected.
#[derive(Clone, Copy, Debug)]
pub struct EndReachable;

impl Validator for EndReachable {
    fn name(&self) -> &'static str {
        "reachabilities"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let fail = |out: &mut Vec<Violation>, span: Option<Span>| {
            out.push(violation(
                self.name(),
                "rg::reachability::end-unreachable",
                Location::Game,
                "end is not reachable from begin.".to_string(),
                "every game needs a path of edges from `begin` to `end`",
                span,
            ));
        };
        let (Some(begin), Some(end)) = (game.begin(), game.end()) else {
            fail(out, game.begin().and_then(|b| game.node_data(b).span));
            return;
        };
        let mut seen = vec![false; game.node_capacity()];
        let mut stack = vec![begin];
        seen[begin.0 as usize] = true;
        while let Some(n) = stack.pop() {
            for &e in game.outgoing(n) {
                let to = game.edge(e).to;
                if to == end {
                    return;
                }
                if !seen[to.0 as usize] {
                    seen[to.0 as usize] = true;
                    stack.push(to);
                }
            }
        }
        fail(out, game.node_data(begin).span);
    }
}

/// No edge that emits a tag loops on its own node (a move could repeat the tag without
/// bound).
#[derive(Clone, Copy, Debug)]
pub struct TagLoops;

impl Validator for TagLoops {
    fn name(&self) -> &'static str {
        "tag-loops"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        for (id, e) in game.edges() {
            if e.from == e.to && e.label.is_tag() {
                out.push(violation(
                    self.name(),
                    "rg::tags::loop",
                    Location::Edge(id),
                    format!("Edge {} causes a tag generating loop.", print_edge(game, e)),
                    "a tag on a self-loop makes move generation endless; move the tag off the loop",
                    e.spans.whole,
                ));
            }
        }
    }
}

/// `$$ v` names a variable of a set type (its value becomes the tag, so it must be a symbol).
#[derive(Clone, Copy, Debug)]
pub struct TagVariables;

impl Validator for TagVariables {
    fn name(&self) -> &'static str {
        "tag-variables"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        let env = TypeEnv::new(game);
        for (id, e) in game.edges() {
            let Label::TagVar(v) = e.label else { continue };
            let span = e.spans.whole;
            let Some(var) = game.variable(v) else {
                out.push(violation(
                    self.name(),
                    "rg::tag-variables::unresolved",
                    Location::Edge(id),
                    format!("Unresolved variable {}.", game.name(v)),
                    "`$$ v` emits the value of the variable `v`; declare it with `var`",
                    span,
                ));
                continue;
            };
            match env.resolve(var.ty) {
                Ok(Resolved::Set(_)) => {}
                Ok(Resolved::Arrow(..)) => out.push(violation(
                    self.name(),
                    "rg::tag-variables::not-a-set",
                    Location::Edge(id),
                    format!(
                        "Expected Set type, got {}.",
                        print_type(game, env.resolve_id(var.ty).unwrap_or(var.ty))
                    ),
                    "only a variable holding a symbol can be used as a tag",
                    span,
                )),
                Err(TypeFail::Unresolved(t) | TypeFail::Cyclic(t)) => out.push(violation(
                    self.name(),
                    "rg::tag-variables::unresolved-type",
                    Location::Edge(id),
                    format!("Unresolved type {}.", game.name(t)),
                    "declare the type with `type`",
                    span,
                )),
            }
        }
    }
}

/// The type checker (rg_core::typeck): every constant, variable and label is well typed;
/// every error.
#[derive(Clone, Copy, Debug)]
pub struct Types;

impl Validator for Types {
    fn name(&self) -> &'static str {
        "types"
    }
    fn cost(&self) -> Cost {
        Cost::Linear
    }
    fn validate(&self, game: &Game, out: &mut Vec<Violation>) {
        out.extend(rg_core::typeck::check(game));
    }
}
