//! Hash-consed ground terms: every ground term is a `u32`.
//!
//! A term is stored as the tuple `[functor, arg1, …, argk]` (a constant is `[name]`), where the
//! functor is a symbol index of the program and the arguments are term ids. Equal terms get
//! equal ids, so term equality is integer equality and atoms are tuples of term ids.

use super::hash::{TupleSet, hash_tuple};

/// A ground term id.
pub(crate) type GTerm = u32;

/// The arena of ground terms of one grounding.
#[derive(Clone, Debug)]
pub(crate) struct TermStore {
    data: Vec<u32>,
    /// `start[t]..start[t + 1]` is term `t`'s tuple in `data` (one sentinel at the end).
    start: Vec<u32>,
    depth: Vec<u16>,
    set: TupleSet,
}

impl Default for TermStore {
    fn default() -> Self {
        TermStore {
            data: Vec::new(),
            start: vec![0],
            depth: Vec::new(),
            set: TupleSet::default(),
        }
    }
}

impl TermStore {
    /// Number of distinct terms.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.depth.len()
    }

    /// Number of distinct terms (ids are `0..term_count()`).
    pub(crate) fn term_count(&self) -> usize {
        self.depth.len()
    }

    /// The words the tuples of all terms take (what bounds the store's memory).
    pub(crate) fn words(&self) -> usize {
        self.data.len()
    }

    /// The tuple `[functor, args…]` of a term.
    #[inline]
    pub(crate) fn tuple(&self, t: GTerm) -> &[u32] {
        &self.data[self.start[t as usize] as usize..self.start[t as usize + 1] as usize]
    }

    /// The functor (or constant name) of a term.
    #[cfg(test)]
    pub(crate) fn functor(&self, t: GTerm) -> u32 {
        self.data[self.start[t as usize] as usize]
    }

    /// The arguments of a term (empty for a constant).
    #[cfg(test)]
    pub(crate) fn args(&self, t: GTerm) -> &[GTerm] {
        &self.tuple(t)[1..]
    }

    /// Nesting depth: 0 for a constant, 1 + the deepest argument otherwise.
    pub(crate) fn depth(&self, t: GTerm) -> u16 {
        self.depth[t as usize]
    }

    /// The term with this tuple, if it exists.
    #[inline]
    pub(crate) fn find(&self, key: &[u32]) -> Option<GTerm> {
        self.set.find(key, |r| self.tuple(r))
    }

    /// The term with this tuple `[functor, args…]`, created if new.
    pub(crate) fn intern(&mut self, key: &[u32]) -> GTerm {
        let h = hash_tuple(key);
        if let Some(t) = self.set.find_hashed(h, key, |r| {
            &self.data[self.start[r as usize] as usize..self.start[r as usize + 1] as usize]
        }) {
            return t;
        }
        let id = self.depth.len() as GTerm;
        let depth = key[1..]
            .iter()
            .map(|&a| self.depth[a as usize] + 1)
            .max()
            .unwrap_or(0);
        self.data.extend_from_slice(key);
        self.start.push(self.data.len() as u32);
        self.depth.push(depth);
        self.set.insert_new(h, id);
        id
    }

    /// The constant named by symbol `name`.
    pub(crate) fn constant(&mut self, name: u32) -> GTerm {
        self.intern(&[name])
    }

    /// The canonical order on terms (it orders the RG declarations and decides which of two
    /// colliding names is renamed): constants before compound terms, constants by
    /// `name_cmp` of their names, compound terms by functor name, arity, then arguments.
    pub(crate) fn cmp(
        &self,
        a: GTerm,
        b: GTerm,
        name_cmp: &impl Fn(u32, u32) -> std::cmp::Ordering,
    ) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        if a == b {
            return Ordering::Equal;
        }
        let (ta, tb) = (self.tuple(a), self.tuple(b));
        (ta.len() > 1)
            .cmp(&(tb.len() > 1))
            .then_with(|| name_cmp(ta[0], tb[0]))
            .then_with(|| ta.len().cmp(&tb.len()))
            .then_with(|| {
                for (&x, &y) in ta[1..].iter().zip(&tb[1..]) {
                    let o = self.cmp(x, y, name_cmp);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_terms_share_one_id() {
        let mut s = TermStore::default();
        let a = s.constant(7);
        let b = s.constant(8);
        let fab = s.intern(&[3, a, b]);
        let fab2 = s.intern(&[3, a, b]);
        let fba = s.intern(&[3, b, a]);
        assert_eq!(fab, fab2);
        assert_ne!(fab, fba);
        assert_eq!(s.args(fab), &[a, b]);
        assert_eq!(s.functor(fab), 3);
        assert_eq!(s.depth(a), 0);
        let g = s.intern(&[4, fab]);
        assert_eq!(s.depth(g), 2);
        assert_eq!(s.find(&[4, fab]), Some(g));
        assert_eq!(s.find(&[4, fba]), None);
        // `f` and `(f a)` are different terms even with the same name.
        let f = s.constant(3);
        assert_ne!(f, fab);
        assert_eq!(s.len(), 6);
    }
}
