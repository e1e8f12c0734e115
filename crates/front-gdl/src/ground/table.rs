//! Relation tables: append-only sets of ground tuples with indexes per access pattern.
//!
//! Rows are numbered in insertion order and never removed, so the semi-naive evaluation can
//! describe "old", "delta" and "all" facts as row ranges, and an index (a posting list of
//! increasing row numbers per key) is brought up to date by indexing only the rows appended
//! since it was last used.
//!
//! An index is described by an [`IndexSpec`]: *shape tests* (the sub-term at a path must be a
//! compound term with a given functor and arity) and *key paths* (the sub-terms whose values
//! form the key). A path starts at an argument position and descends through arguments of
//! compound terms, so `(true (cell ?x 3 ?p))` with `?x` bound is served by the rows whose
//! argument is `(cell x 3 _)`, not by a scan of every `true` fact.

use super::Atom;
use super::hash::{TupleSet, hash_tuple};
use super::terms::{GTerm, TermStore};

/// A position inside a row: `[argument, child, child, …]` (children numbered from 0).
pub(crate) type Path = Box<[u32]>;

/// Which rows an index holds and what its key is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IndexSpec {
    /// The sub-term at each path must be `(functor …)` with this many arguments. Listed
    /// outermost first, so a path's prefixes are tested before it is followed.
    pub(crate) shapes: Vec<(Path, u32, u32)>,
    /// The sub-terms forming the key, in key order.
    pub(crate) keys: Vec<Path>,
}

impl IndexSpec {
    /// Whether the index would hold every row under one key (a plain scan is as good).
    pub(crate) fn is_trivial(&self) -> bool {
        self.shapes.is_empty() && self.keys.is_empty()
    }
}

/// The sub-term of `row` at `path`; every compound term on the way must have the argument
/// (guaranteed by the shape tests that precede the path).
#[inline]
pub(crate) fn at(store: &TermStore, row: &[GTerm], path: &[u32]) -> GTerm {
    let mut t = row[path[0] as usize];
    for &c in &path[1..] {
        t = store.tuple(t)[c as usize + 1];
    }
    t
}

/// One access pattern's index.
#[derive(Clone, Debug)]
struct Index {
    spec: IndexSpec,
    /// Distinct keys, concatenated.
    keys: Vec<u32>,
    set: TupleSet,
    /// Key number → rows with that key, increasing.
    postings: Vec<Vec<u32>>,
    /// Rows `0..indexed` have been considered.
    indexed: u32,
}

/// The facts of one relation.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    arity: usize,
    rows: Vec<GTerm>,
    len: u32,
    set: TupleSet,
    /// Global atom id of each row.
    atom: Vec<u32>,
    indexes: Vec<Index>,
    /// Per column: the distinct values seen (for join cost estimates).
    col_values: Vec<Vec<u32>>,
    col_sets: Vec<TupleSet>,
    /// Semi-naive bookkeeping: rows `0..stable` are old, `stable..frontier` the current delta.
    pub(crate) stable: u32,
    pub(crate) frontier: u32,
}

impl Table {
    pub(crate) fn new(arity: usize) -> Self {
        Table {
            arity,
            rows: Vec::new(),
            len: 0,
            set: TupleSet::default(),
            atom: Vec::new(),
            indexes: Vec::new(),
            col_values: vec![Vec::new(); arity],
            col_sets: vec![TupleSet::default(); arity],
            stable: 0,
            frontier: 0,
        }
    }

    /// Number of rows.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The tuple of a row.
    #[inline]
    pub(crate) fn row(&self, r: u32) -> &[GTerm] {
        let a = self.arity;
        &self.rows[r as usize * a..(r as usize + 1) * a]
    }

    /// The global atom id of a row.
    #[inline]
    pub(crate) fn atom(&self, r: u32) -> Atom {
        Atom(self.atom[r as usize])
    }

    /// The row holding this tuple, if any.
    #[inline]
    pub(crate) fn find(&self, t: &[GTerm]) -> Option<u32> {
        let a = self.arity;
        let rows = &self.rows;
        self.set
            .find(t, |r| &rows[r as usize * a..(r as usize + 1) * a])
    }

    /// Adds a tuple; returns its row and whether it is new. `next_atom` is the global atom id
    /// a new row gets.
    pub(crate) fn insert(&mut self, t: &[GTerm], next_atom: u32) -> (u32, bool) {
        debug_assert_eq!(t.len(), self.arity);
        let h = hash_tuple(t);
        let a = self.arity;
        let rows = &self.rows;
        if let Some(r) = self
            .set
            .find_hashed(h, t, |r| &rows[r as usize * a..(r as usize + 1) * a])
        {
            return (r, false);
        }
        let r = self.len;
        self.rows.extend_from_slice(t);
        self.set.insert_new(h, r);
        self.atom.push(next_atom);
        self.len += 1;
        for (c, &v) in t.iter().enumerate() {
            let vals = &self.col_values[c];
            if self.col_sets[c]
                .find(&[v], |i| std::slice::from_ref(&vals[i as usize]))
                .is_none()
            {
                let i = vals.len() as u32;
                self.col_values[c].push(v);
                self.col_sets[c].insert_new(hash_tuple(&[v]), i);
            }
        }
        (r, true)
    }

    /// Number of distinct values in column `c`.
    pub(crate) fn distinct_in(&self, c: usize) -> usize {
        self.col_values[c].len()
    }

    /// The index for `spec`, created if needed (not yet brought up to date).
    pub(crate) fn index_for(&mut self, spec: &IndexSpec) -> usize {
        if let Some(i) = self.indexes.iter().position(|ix| ix.spec == *spec) {
            return i;
        }
        self.indexes.push(Index {
            spec: spec.clone(),
            keys: Vec::new(),
            set: TupleSet::default(),
            postings: Vec::new(),
            indexed: 0,
        });
        self.indexes.len() - 1
    }

    /// Brings index `i` up to date with every row (`store` holds the rows' terms).
    pub(crate) fn refresh_index(&mut self, i: usize, store: &TermStore) {
        let a = self.arity;
        let ix = &mut self.indexes[i];
        let k = ix.spec.keys.len();
        let mut key = Vec::with_capacity(k);
        'rows: for r in ix.indexed..self.len {
            let row = &self.rows[r as usize * a..(r as usize + 1) * a];
            for (path, f, n) in &ix.spec.shapes {
                let tup = store.tuple(at(store, row, path));
                if tup[0] != *f || tup.len() != *n as usize + 1 {
                    continue 'rows;
                }
            }
            key.clear();
            key.extend(ix.spec.keys.iter().map(|p| at(store, row, p)));
            let h = hash_tuple(&key);
            let keys = &ix.keys;
            match ix
                .set
                .find_hashed(h, &key, |n| &keys[n as usize * k..(n as usize + 1) * k])
            {
                Some(n) => ix.postings[n as usize].push(r),
                None => {
                    let n = ix.postings.len() as u32;
                    ix.keys.extend_from_slice(&key);
                    ix.set.insert_new(h, n);
                    ix.postings.push(vec![r]);
                }
            }
        }
        ix.indexed = self.len;
    }

    /// The rows of index `i` with this key (increasing), restricted to `lo..hi`.
    #[inline]
    pub(crate) fn lookup(&self, i: usize, key: &[u32], lo: u32, hi: u32) -> &[u32] {
        let ix = &self.indexes[i];
        let k = ix.spec.keys.len();
        let keys = &ix.keys;
        match ix
            .set
            .find(key, |n| &keys[n as usize * k..(n as usize + 1) * k])
        {
            None => &[],
            Some(n) => {
                let p = &ix.postings[n as usize];
                let a = if lo == 0 {
                    0
                } else {
                    p.partition_point(|&r| r < lo)
                };
                let b = if hi >= self.len {
                    p.len()
                } else {
                    p.partition_point(|&r| r < hi)
                };
                &p[a..b.max(a)]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(positions: &[u32]) -> IndexSpec {
        IndexSpec {
            shapes: Vec::new(),
            keys: positions.iter().map(|&p| vec![p].into()).collect(),
        }
    }

    #[test]
    fn rows_indexes_and_ranges() {
        let mut t = Table::new(2);
        assert_eq!(t.insert(&[1, 2], 10), (0, true));
        assert_eq!(t.insert(&[1, 3], 11), (1, true));
        assert_eq!(t.insert(&[1, 2], 12), (0, false));
        assert_eq!(t.insert(&[2, 3], 12), (2, true));
        assert_eq!(t.atom(2), Atom(12));
        assert_eq!(t.find(&[2, 3]), Some(2));
        assert_eq!(t.find(&[3, 2]), None);
        assert_eq!(t.distinct_in(0), 2);
        assert_eq!(t.distinct_in(1), 2);
        let store = TermStore::default();
        let i = t.index_for(&keys(&[0]));
        t.refresh_index(i, &store);
        assert_eq!(t.lookup(i, &[1], 0, 3), &[0, 1]);
        t.insert(&[1, 4], 13);
        t.refresh_index(i, &store);
        assert_eq!(t.lookup(i, &[1], 0, 4), &[0, 1, 3]);
        assert_eq!(t.lookup(i, &[1], 1, 3), &[1]);
        assert_eq!(t.lookup(i, &[1], 2, 3), &[] as &[u32]);
        assert_eq!(t.lookup(i, &[9], 0, 4), &[] as &[u32]);
        let j = t.index_for(&keys(&[1]));
        assert_eq!(t.index_for(&keys(&[0])), i);
        t.refresh_index(j, &store);
        assert_eq!(t.lookup(j, &[3], 0, 4), &[1, 2]);
        // Nullary relations hold at most the empty tuple.
        let mut z = Table::new(0);
        assert_eq!(z.insert(&[], 0), (0, true));
        assert_eq!(z.insert(&[], 1), (0, false));
        assert_eq!(z.find(&[]), Some(0));
    }

    /// An index over sub-terms returns exactly the rows a scan filtering every row finds, in
    /// the same (increasing) order, for every key and range.
    #[test]
    fn sub_term_indexes_agree_with_filtering_scans() {
        let mut store = TermStore::default();
        let consts: Vec<GTerm> = (0..4).map(|c| store.constant(c)).collect();
        // Functors 10 (binary) and 11 (unary); symbol 10 also names a constant, and 12 is a
        // ternary functor sharing nothing, so shape tests must look at arity and functor.
        let c10 = store.constant(10);
        let mut t = Table::new(2);
        let mut atom = 0;
        let mut add = |t: &mut Table, row: [GTerm; 2]| {
            t.insert(&row, atom);
            atom += 1;
        };
        for i in 0..60u32 {
            let a = consts[(i % 4) as usize];
            let b = consts[(i * 7 % 3) as usize];
            let first = match i % 5 {
                0 => store.intern(&[10, a, b]),
                1 => store.intern(&[11, a]),
                2 => c10,
                3 => store.intern(&[12, a, b, a]),
                _ => store.intern(&[10, b, a]),
            };
            add(&mut t, [first, consts[(i % 3) as usize]]);
        }
        // `(10 ?x k)` with the second argument of the compound term and the row's second
        // argument bound; `(10 ?x ?y)` with nothing bound; `(11 k)` keyed by its argument.
        let specs = [
            IndexSpec {
                shapes: vec![(vec![0].into(), 10, 2)],
                keys: vec![vec![0, 1].into(), vec![1].into()],
            },
            IndexSpec {
                shapes: vec![(vec![0].into(), 10, 2)],
                keys: Vec::new(),
            },
            IndexSpec {
                shapes: vec![(vec![0].into(), 11, 1)],
                keys: vec![vec![0, 0].into()],
            },
        ];
        let shape_ok = |row: &[GTerm], spec: &IndexSpec| {
            spec.shapes.iter().all(|(path, f, n)| {
                let tup = store.tuple(at(&store, row, path));
                tup[0] == *f && tup.len() == *n as usize + 1
            })
        };
        for spec in &specs {
            let ix = t.index_for(spec);
            t.refresh_index(ix, &store);
            let mut key_sets: Vec<Vec<GTerm>> = vec![Vec::new()];
            for _ in &spec.keys {
                key_sets = key_sets
                    .iter()
                    .flat_map(|k| {
                        consts.iter().map(move |&c| {
                            let mut k = k.clone();
                            k.push(c);
                            k
                        })
                    })
                    .collect();
            }
            let mut hits = 0;
            for key in &key_sets {
                for (lo, hi) in [(0, t.len()), (10, 45), (30, t.len()), (20, 20)] {
                    let scan: Vec<u32> = (lo..hi)
                        .filter(|&r| {
                            let row = t.row(r);
                            shape_ok(row, spec)
                                && spec
                                    .keys
                                    .iter()
                                    .zip(key)
                                    .all(|(p, &k)| at(&store, row, p) == k)
                        })
                        .collect();
                    assert_eq!(
                        t.lookup(ix, key, lo, hi),
                        scan.as_slice(),
                        "{spec:?} {key:?}"
                    );
                    hits += scan.len();
                }
            }
            assert!(hits > 0, "{spec:?} selects some rows");
        }
    }
}
