//! The validator interface and the violation data type. Implementations
//! live in `rg-validate` (and an interpreter-backed perft oracle in `rg-interp`); the pass
//! manager receives them as `&dyn Validator`.

use crate::game::{EdgeId, Game, NodeId};
use crate::ids::EntityId;
use crate::print::{Around, DeclRef, print_decorated};
use crate::span::Span;
use std::collections::HashMap;

/// How expensive a validator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cost {
    /// Linear (or near-linear) in the size of the game: run after every pass.
    Linear,
    /// Explores the game tree or similar: run at the end or on request.
    Expensive,
}

/// How serious a violation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Stops the pipeline.
    Error,
    /// Reported; does not stop the pipeline (unless warnings are denied).
    Warning,
}

/// What a violation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Location {
    /// The game as a whole.
    Game,
    /// A node.
    Node(NodeId),
    /// An edge.
    Edge(EdgeId),
    /// A typedef, by index in [`Game::typedefs`].
    Typedef(usize),
    /// A constant, by index in [`Game::constants`].
    Constant(usize),
    /// A variable, by index in [`Game::variables`].
    Variable(usize),
    /// A pragma, by index in [`Game::pragmas`].
    Pragma(usize),
}

/// One problem found by a validator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Name of the validator that found it.
    pub validator: &'static str,
    /// Stable code, e.g. `rg::maps::duplicate-key`.
    pub code: &'static str,
    pub severity: Severity,
    pub at: Location,
    /// The message (for the seven reference validators: the reference's own text, so outputs
    /// can be compared with it).
    pub message: String,
    /// A hint on how to fix it.
    pub help: Option<String>,
    /// The primary span, if the game carries source locations.
    pub span: Option<Span>,
    /// Secondary labelled spans.
    pub labels: Vec<(Span, String)>,
}

/// A check over a whole game that reports every violation it finds.
pub trait Validator: Send + Sync {
    /// Kebab-case name, equal to the module name.
    fn name(&self) -> &'static str;
    /// Whether it is cheap enough to run after every pass.
    fn cost(&self) -> Cost;
    /// Appends every violation found to `out`.
    fn validate(&self, game: &Game, out: &mut Vec<Violation>);
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Violation {}

impl miette::Diagnostic for Violation {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display + 'a>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let primary = self
            .span
            .map(|s| miette::LabeledSpan::new_primary_with_span(None, s));
        let secondary = self
            .labels
            .iter()
            .map(|(s, text)| miette::LabeledSpan::new_with_span(Some(text.clone()), *s));
        let all: Vec<_> = primary.into_iter().chain(secondary).collect();
        if all.is_empty() {
            None
        } else {
            Some(Box::new(all.into_iter()))
        }
    }
}

/// The game in canonical RG with every violation written under the line it concerns, as a
/// comment (`// ^ error[code]: message`), the way Cranelift's verifier shows errors in place.
/// A violation about a node goes under the first edge from or to it; one about the game as a
/// whole, or about a node without edges, goes in a block of comments before the first line.
/// Violations keep their order under each line.
pub fn annotate(game: &Game, violations: &[Violation]) -> String {
    let edge_line: HashMap<EdgeId, usize> =
        game.edges().enumerate().map(|(i, (e, _))| (e, i)).collect();
    let node_line = |n: NodeId| {
        game.edges()
            .position(|(_, d)| d.from == n || d.to == n)
            .map(DeclRef::Edge)
    };
    let mut under: HashMap<DeclRef, Vec<&Violation>> = HashMap::new();
    let mut header = String::new();
    for v in violations {
        let decl = match v.at {
            Location::Game => None,
            Location::Node(n) => node_line(n),
            Location::Edge(e) => edge_line.get(&e).map(|&i| DeclRef::Edge(i)),
            Location::Typedef(i) => Some(DeclRef::Typedef(i)),
            Location::Constant(i) => Some(DeclRef::Constant(i)),
            Location::Variable(i) => Some(DeclRef::Variable(i)),
            Location::Pragma(i) => Some(DeclRef::Pragma(i)),
        };
        match decl {
            Some(d) => under.entry(d).or_default().push(v),
            None => {
                let what = match v.at {
                    Location::Node(n) if n.index() < game.node_capacity() => {
                        format!(" (node {})", game.node_name(n))
                    }
                    _ => String::new(),
                };
                header.push_str(&comment(v, "", &what));
                header.push('\n');
            }
        }
    }
    let body = print_decorated(game, &mut |at, out| {
        if let Around::After(d) = at
            && let Some(vs) = under.get(&d)
        {
            for v in vs {
                out.push('\n');
                out.push_str(&comment(v, "^ ", ""));
            }
        }
    });
    header + &body
}

/// One violation as an RG comment line (without the line break).
fn comment(v: &Violation, marker: &str, what: &str) -> String {
    let severity = match v.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut line = format!("// {marker}{severity}[{}]{what}: {}", v.code, v.message);
    if let Some(help) = &v.help {
        line.push_str(" (help: ");
        line.push_str(help);
        line.push(')');
    }
    // A message on several lines stays inside the comment.
    line.replace('\n', "\n//   ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(at: Location, message: &str) -> Violation {
        Violation {
            validator: "test",
            code: "rg::test",
            severity: Severity::Error,
            at,
            message: message.into(),
            help: None,
            span: None,
            labels: Vec::new(),
        }
    }

    #[test]
    fn violations_go_under_their_lines() {
        let g = crate::parse(
            crate::FileId(0),
            "type Player = { x }; var v: Player = x;\nbegin, a: v == x; a, end: player = keeper;",
        )
        .expect("parses");
        let second = g.edges().nth(1).expect("two edges").0;
        let a = g.find_node(g.find_sym("a").expect("a")).expect("node a");
        let text = annotate(
            &g,
            &[
                violation(Location::Edge(second), "bad edge"),
                violation(Location::Variable(0), "bad variable"),
                violation(Location::Game, "bad game"),
                violation(Location::Node(a), "bad node"),
            ],
        );
        assert_eq!(
            text,
            "// error[rg::test]: bad game\n\
             type Player = { x };\n\
             var v: Player = x;\n\
             // ^ error[rg::test]: bad variable\n\
             begin, a: v == x;\n\
             // ^ error[rg::test]: bad node\n\
             a, end: player = keeper;\n\
             // ^ error[rg::test]: bad edge\n"
        );
    }
}
