//! Relation tables: append-only sets of ground tuples with indexes per bound-argument pattern.
//!
//! Rows are numbered in insertion order and never removed, so the semi-naive evaluation can
//! describe "old", "delta" and "all" facts as row ranges, and an index (a posting list of
//! increasing row numbers per key) is brought up to date by indexing only the rows appended
//! since it was last used.

use super::hash::{TupleSet, hash_tuple};
use super::terms::GTerm;

/// One bound-argument pattern's index.
#[derive(Clone, Debug)]
struct Index {
    /// The argument positions forming the key, increasing.
    positions: Box<[u8]>,
    /// Distinct keys, concatenated.
    keys: Vec<u32>,
    set: TupleSet,
    /// Key number → rows with that key, increasing.
    postings: Vec<Vec<u32>>,
    /// Rows `0..indexed` are in the index.
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
    pub(crate) fn atom(&self, r: u32) -> u32 {
        self.atom[r as usize]
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

    /// The index over `positions`, created if needed (not yet brought up to date).
    pub(crate) fn index_for(&mut self, positions: &[u8]) -> usize {
        if let Some(i) = self
            .indexes
            .iter()
            .position(|ix| &*ix.positions == positions)
        {
            return i;
        }
        self.indexes.push(Index {
            positions: positions.into(),
            keys: Vec::new(),
            set: TupleSet::default(),
            postings: Vec::new(),
            indexed: 0,
        });
        self.indexes.len() - 1
    }

    /// Brings index `i` up to date with every row.
    pub(crate) fn refresh_index(&mut self, i: usize) {
        let a = self.arity;
        let ix = &mut self.indexes[i];
        let k = ix.positions.len();
        let mut key = Vec::with_capacity(k);
        for r in ix.indexed..self.len {
            let row = &self.rows[r as usize * a..(r as usize + 1) * a];
            key.clear();
            key.extend(ix.positions.iter().map(|&p| row[p as usize]));
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
        let k = ix.positions.len();
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

    #[test]
    fn rows_indexes_and_ranges() {
        let mut t = Table::new(2);
        assert_eq!(t.insert(&[1, 2], 10), (0, true));
        assert_eq!(t.insert(&[1, 3], 11), (1, true));
        assert_eq!(t.insert(&[1, 2], 12), (0, false));
        assert_eq!(t.insert(&[2, 3], 12), (2, true));
        assert_eq!(t.atom(2), 12);
        assert_eq!(t.find(&[2, 3]), Some(2));
        assert_eq!(t.find(&[3, 2]), None);
        assert_eq!(t.distinct_in(0), 2);
        assert_eq!(t.distinct_in(1), 2);
        let i = t.index_for(&[0]);
        t.refresh_index(i);
        assert_eq!(t.lookup(i, &[1], 0, 3), &[0, 1]);
        t.insert(&[1, 4], 13);
        t.refresh_index(i);
        assert_eq!(t.lookup(i, &[1], 0, 4), &[0, 1, 3]);
        assert_eq!(t.lookup(i, &[1], 1, 3), &[1]);
        assert_eq!(t.lookup(i, &[1], 2, 3), &[] as &[u32]);
        assert_eq!(t.lookup(i, &[9], 0, 4), &[] as &[u32]);
        let j = t.index_for(&[1]);
        t.refresh_index(j);
        assert_eq!(t.lookup(j, &[3], 0, 4), &[1, 2]);
        // Nullary relations hold at most the empty tuple.
        let mut z = Table::new(0);
        assert_eq!(z.insert(&[], 0), (0, true));
        assert_eq!(z.insert(&[], 1), (0, false));
        assert_eq!(z.find(&[]), Some(0));
    }
}
