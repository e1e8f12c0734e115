//! RG names for ground GDL terms: the one convention the translation and the reasoner share,
//! so that a move of the reasoner and a move of the translated game can be compared by name.
//!
//! A constant keeps its letters, digits and `_`; `+ - < >` become `add_ sub_ lt_ gt_` (as the
//! reference spells them) and any other character `xHH` per UTF-8 byte. A compound term is its
//! functor and flattened arguments joined by `_`. Flattening is not injective
//! (`(a (b c))` and `(a b c)` both give `a_b_c`), so names are assigned per namespace by a
//! [`Namer`]: the first term in the canonical term order keeps the natural name, the others
//! get `_2`, `_3`, … (skipping names already taken) and a W-LOW-060 warning is reported.

use std::collections::{HashMap, HashSet};

/// Appends the mangled form of one symbol.
pub fn mangle_into(name: &str, out: &mut String) {
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' => out.push(c),
            '+' => out.push_str("add_"),
            '-' => out.push_str("sub_"),
            '<' => out.push_str("lt_"),
            '>' => out.push_str("gt_"),
            _ => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("x{b:02X}"));
                }
            }
        }
    }
}

/// Value names the lowering defines or that RG reserves: a symbol spelled like one of them
/// (or with the prefix of a generated variable) would be read as that variable, so it gets the
/// prefix `v_`.
fn reserved_value(name: &str) -> bool {
    matches!(name, "goals" | "player" | "visible" | "keeper" | "random")
        || ["f_", "n_", "r_", "h_", "lf_", "does_"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// The name of a value whose natural (mangled, flattened) name is `natural`, before collisions
/// are resolved: reserved names get the prefix `v_`, as [`Namer::assign`] gives them.
pub fn value_name(natural: String) -> String {
    if reserved_value(&natural) {
        format!("v_{natural}")
    } else {
        natural
    }
}

/// A namespace of generated names.
#[derive(Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
}

/// A name collision found while naming (for W-LOW-060).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The natural name both terms flatten to.
    pub name: String,
    /// The item keeping the name and the one renamed, as indices into the input.
    pub kept: usize,
    pub renamed: usize,
    /// The name given to the renamed item.
    pub new_name: String,
}

impl Namer {
    /// Names `items` (given in canonical order with their natural names); `values` says that
    /// the names are RG value symbols (escaped when reserved). Returns the names, in input
    /// order, and the collisions.
    pub fn assign(&mut self, natural: &[String], values: bool) -> (Vec<String>, Vec<Collision>) {
        let wanted: Vec<String> = natural
            .iter()
            .map(|n| {
                if values && reserved_value(n) {
                    format!("v_{n}")
                } else {
                    n.clone()
                }
            })
            .collect();
        // First come, first served in canonical order; later ones with the same natural name
        // are suffixed (after every unique name has been claimed, so a suffixed name never
        // steals another term's natural name).
        let mut first: HashMap<&str, usize> = HashMap::new();
        let mut dup = vec![false; wanted.len()];
        for (i, w) in wanted.iter().enumerate() {
            if first.contains_key(w.as_str()) || self.taken.contains(w) {
                dup[i] = true;
            } else {
                first.insert(w, i);
            }
        }
        let mut names = wanted.clone();
        for (i, w) in wanted.iter().enumerate() {
            if !dup[i] {
                self.taken.insert(w.clone());
            }
        }
        let mut collisions = Vec::new();
        for (i, w) in wanted.iter().enumerate() {
            if !dup[i] {
                continue;
            }
            let mut k = 2;
            let name = loop {
                let c = format!("{w}_{k}");
                if !self.taken.contains(&c) && !first.contains_key(c.as_str()) {
                    break c;
                }
                k += 1;
            };
            self.taken.insert(name.clone());
            collisions.push(Collision {
                name: w.clone(),
                kept: first.get(w.as_str()).copied().unwrap_or(i),
                renamed: i,
                new_name: name.clone(),
            });
            names[i] = name;
        }
        (names, collisions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangling_keeps_plain_names_and_escapes_the_rest() {
        let m = |s: &str| {
            let mut o = String::new();
            mangle_into(s, &mut o);
            o
        };
        assert_eq!(m("cell"), "cell");
        assert_eq!(m("x_Player1"), "x_Player1");
        assert_eq!(m("+"), "add_");
        assert_eq!(m("a-b"), "asub_b");
        assert_eq!(m("<="), "lt_x3D");
        assert_eq!(m("é"), "xC3xA9");
    }

    #[test]
    fn collisions_get_suffixes_in_order_without_stealing_names() {
        let mut n = Namer::default();
        let input: Vec<String> = ["a_b_c", "a_b_c", "a_b_c_2", "x"].map(String::from).into();
        let (names, col) = n.assign(&input, false);
        assert_eq!(names, ["a_b_c", "a_b_c_3", "a_b_c_2", "x"]);
        assert_eq!(col.len(), 1);
        assert_eq!((col[0].kept, col[0].renamed), (0, 1));
    }

    #[test]
    fn reserved_value_names_are_escaped() {
        let mut n = Namer::default();
        let input: Vec<String> = ["player", "f_x", "does_a", "ok", "v_player"]
            .map(String::from)
            .into();
        let (names, _) = n.assign(&input, true);
        assert_eq!(names, ["v_player", "v_f_x", "v_does_a", "ok", "v_player_2"]);
    }
}
