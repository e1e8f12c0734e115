//! The JSON encoding of a game: the reference toolchain's encoding of the RG syntax tree (every
//! tree node an object whose `kind` names it: `EdgeDeclaration`, `Assignment`, `Reference`, …),
//! one line of compact JSON with the keys of every object in alphabetical order.
//!
//! The document is built as a small tree whose objects are `BTreeMap`s and serialised with serde,
//! so the key order never depends on serde_json's feature flags.

use crate::{EmitError, Emitter};
use rg_core::Game;
use rg_core::ast;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::collections::BTreeMap;
use std::io::Write;

/// Emits the game as JSON (the reference toolchain's syntax-tree encoding), followed by a
/// newline.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonEmitter;

impl Emitter for JsonEmitter {
    fn name(&self) -> &'static str {
        "json"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn emit(&self, game: &Game, out: &mut dyn Write) -> Result<(), EmitError> {
        let doc = game_json(&game.to_ast());
        serde_json::to_writer(&mut *out, &doc).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        Ok(())
    }
}

/// A JSON value whose objects keep their keys sorted.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(u64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<&'static str, Json>),
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Num(n) => s.serialize_u64(*n),
            Json::Str(t) => s.serialize_str(t),
            Json::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Json::Obj(map) => {
                let mut m = s.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

fn obj<const N: usize>(fields: [(&'static str, Json); N]) -> Json {
    Json::Obj(fields.into_iter().collect())
}

fn kind(k: &str) -> Json {
    Json::Str(k.to_owned())
}

fn s(id: &ast::Ident) -> Json {
    Json::Str(id.name.clone())
}

fn strs(ids: &[ast::Ident]) -> Json {
    Json::Arr(ids.iter().map(s).collect())
}

fn node(id: &ast::Ident) -> Json {
    obj([("identifier", s(id)), ("kind", kind("Node"))])
}

fn nodes(ids: &[ast::Ident]) -> Json {
    Json::Arr(ids.iter().map(node).collect())
}

/// The JSON document of a game.
pub fn game_json(g: &ast::Game) -> Json {
    obj([
        (
            "constants",
            Json::Arr(
                g.constants
                    .iter()
                    .map(|c| {
                        obj([
                            ("identifier", s(&c.name)),
                            ("kind", kind("ConstantDeclaration")),
                            ("type", type_json(&c.ty)),
                            ("value", value_json(&c.value)),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "edges",
            Json::Arr(
                g.edges
                    .iter()
                    .map(|e| {
                        obj([
                            ("kind", kind("EdgeDeclaration")),
                            ("label", label_json(&e.label)),
                            ("lhs", node(&e.from)),
                            ("rhs", node(&e.to)),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("kind", kind("GameDeclaration")),
        (
            "pragmas",
            Json::Arr(g.pragmas.iter().map(|p| pragma_json(&p.kind)).collect()),
        ),
        (
            "types",
            Json::Arr(
                g.typedefs
                    .iter()
                    .map(|t| {
                        obj([
                            ("identifier", s(&t.name)),
                            ("kind", kind("TypeDeclaration")),
                            ("type", type_json(&t.ty)),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "variables",
            Json::Arr(
                g.variables
                    .iter()
                    .map(|v| {
                        obj([
                            ("defaultValue", value_json(&v.init)),
                            ("identifier", s(&v.name)),
                            ("kind", kind("VariableDeclaration")),
                            ("type", type_json(&v.ty)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

fn type_json(t: &ast::Type) -> Json {
    match t {
        ast::Type::Arrow { lhs, rhs, .. } => obj([
            ("kind", kind("Arrow")),
            ("lhs", type_json(lhs)),
            ("rhs", type_json(rhs)),
        ]),
        ast::Type::Set { members, .. } => {
            obj([("identifiers", strs(members)), ("kind", kind("Set"))])
        }
        ast::Type::Name(n) => obj([("identifier", s(n)), ("kind", kind("TypeReference"))]),
    }
}

fn value_json(v: &ast::Value) -> Json {
    match v {
        ast::Value::Element(n) => obj([("identifier", s(n)), ("kind", kind("Element"))]),
        ast::Value::Map { entries, .. } => obj([
            (
                "entries",
                Json::Arr(
                    entries
                        .iter()
                        .map(|e| {
                            obj([
                                ("identifier", e.key.as_ref().map_or(Json::Null, s)),
                                ("kind", kind("ValueEntry")),
                                ("value", value_json(&e.value)),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("kind", kind("Map")),
        ]),
    }
}

fn expr_json(e: &ast::Expr) -> Json {
    match e {
        ast::Expr::Access { lhs, rhs, .. } => obj([
            ("kind", kind("Access")),
            ("lhs", expr_json(lhs)),
            ("rhs", expr_json(rhs)),
        ]),
        ast::Expr::Cast { ty, expr, .. } => obj([
            ("kind", kind("Cast")),
            ("lhs", type_json(ty)),
            ("rhs", expr_json(expr)),
        ]),
        ast::Expr::Ref(n) => obj([("identifier", s(n)), ("kind", kind("Reference"))]),
    }
}

fn label_json(l: &ast::Label) -> Json {
    match l {
        ast::Label::Assign { lhs, rhs } => obj([
            ("kind", kind("Assignment")),
            ("lhs", expr_json(lhs)),
            ("rhs", expr_json(rhs)),
        ]),
        ast::Label::AssignAny { lhs, ty } => obj([
            ("kind", kind("AssignmentAny")),
            ("lhs", expr_json(lhs)),
            ("rhs", type_json(ty)),
        ]),
        ast::Label::Compare { lhs, rhs, negated } => obj([
            ("kind", kind("Comparison")),
            ("lhs", expr_json(lhs)),
            ("negated", Json::Bool(*negated)),
            ("rhs", expr_json(rhs)),
        ]),
        ast::Label::Reach { from, to, negated } => obj([
            ("kind", kind("Reachability")),
            ("lhs", node(from)),
            ("negated", Json::Bool(*negated)),
            ("rhs", node(to)),
        ]),
        ast::Label::Skip => obj([("kind", kind("Skip"))]),
        ast::Label::Tag(t) => obj([("kind", kind("Tag")), ("symbol", s(t))]),
        ast::Label::TagVar(v) => obj([("identifier", s(v)), ("kind", kind("TagVariable"))]),
    }
}

fn pragma_json(p: &ast::PragmaKind) -> Json {
    use ast::PragmaKind as P;
    match p {
        P::ArtificialTag { tags } => obj([("kind", kind("ArtificialTag")), ("tags", strs(tags))]),
        P::Disjoint { node: n, nodes: ns } => obj([
            ("kind", kind("Disjoint")),
            ("node", node(n)),
            ("nodes", nodes(ns)),
        ]),
        P::DisjointExhaustive { node: n, nodes: ns } => obj([
            ("kind", kind("DisjointExhaustive")),
            ("node", node(n)),
            ("nodes", nodes(ns)),
        ]),
        P::Integer { offset, symbols } => obj([
            ("identifiers", strs(symbols)),
            ("kind", kind("Integer")),
            ("offset", Json::Num(*offset)),
        ]),
        P::Iterator { a, b, c, variable } => obj([
            ("kind", kind("Iterator")),
            ("node_a", node(a)),
            ("node_b", node(b)),
            ("node_c", node(c)),
            ("variable", s(variable)),
        ]),
        P::Repeat {
            nodes: ns,
            variables,
        } => obj([
            ("identifiers", strs(variables)),
            ("kind", kind("Repeat")),
            ("nodes", nodes(ns)),
        ]),
        P::SimpleApply {
            from,
            to,
            tags,
            assignments,
        }
        | P::SimpleApplyExhaustive {
            from,
            to,
            tags,
            assignments,
        } => obj([
            (
                "assignments",
                Json::Arr(
                    assignments
                        .iter()
                        .map(|a| obj([("lhs", expr_json(&a.lhs)), ("rhs", expr_json(&a.rhs))]))
                        .collect(),
                ),
            ),
            (
                "kind",
                kind(if matches!(p, P::SimpleApply { .. }) {
                    "SimpleApply"
                } else {
                    "SimpleApplyExhaustive"
                }),
            ),
            ("lhs", node(from)),
            ("rhs", node(to)),
            (
                "tags",
                Json::Arr(
                    tags.iter()
                        .map(|t| match t {
                            ast::PragmaTag::Symbol(sym) => {
                                obj([("Symbol", obj([("symbol", s(sym))]))])
                            }
                            ast::PragmaTag::Variable { name, ty } => obj([(
                                "Variable",
                                obj([("identifier", s(name)), ("type", type_json(ty))]),
                            )]),
                        })
                        .collect(),
                ),
            ),
        ]),
        P::TagIndex { index, nodes: ns } => obj([
            ("index", Json::Num(*index)),
            ("kind", kind("TagIndex")),
            ("nodes", nodes(ns)),
        ]),
        P::TagMaxIndex { index, nodes: ns } => obj([
            ("index", Json::Num(*index)),
            ("kind", kind("TagMaxIndex")),
            ("nodes", nodes(ns)),
        ]),
        P::TranslatedFromRbg => obj([("kind", kind("TranslatedFromRbg"))]),
        P::Unique { nodes: ns } => obj([("kind", kind("Unique")), ("nodes", nodes(ns))]),
        P::Unknown { content } => obj([
            ("content", Json::Str(content.clone())),
            ("kind", kind("Unknown")),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_alphabetical_and_compact() {
        let g = rg_core::parse(
            rg_core::FileId(0),
            "var x: T = { a: b, :c }; a, b: ? c -> d; @unique a;",
        )
        .unwrap();
        let out = crate::emit_to_string(&JsonEmitter, &g);
        assert_eq!(
            out,
            "{\"constants\":[],\"edges\":[{\"kind\":\"EdgeDeclaration\",\"label\":{\"kind\":\"Reachability\",\
             \"lhs\":{\"identifier\":\"c\",\"kind\":\"Node\"},\"negated\":false,\"rhs\":{\"identifier\":\"d\",\
             \"kind\":\"Node\"}},\"lhs\":{\"identifier\":\"a\",\"kind\":\"Node\"},\"rhs\":{\"identifier\":\"b\",\
             \"kind\":\"Node\"}}],\"kind\":\"GameDeclaration\",\"pragmas\":[{\"kind\":\"Unique\",\"nodes\":\
             [{\"identifier\":\"a\",\"kind\":\"Node\"}]}],\"types\":[],\"variables\":[{\"defaultValue\":\
             {\"entries\":[{\"identifier\":\"a\",\"kind\":\"ValueEntry\",\"value\":{\"identifier\":\"b\",\
             \"kind\":\"Element\"}},{\"identifier\":null,\"kind\":\"ValueEntry\",\"value\":{\"identifier\":\"c\",\
             \"kind\":\"Element\"}}],\"kind\":\"Map\"},\"identifier\":\"x\",\"kind\":\"VariableDeclaration\",\
             \"type\":{\"identifier\":\"T\",\"kind\":\"TypeReference\"}}]}\n"
        );
    }
}
