//! Hashing of small integer tuples for the grounder's tables.
//!
//! Ground terms, atoms and index keys are tuples of `u32`. They live in flat arenas; a
//! [`TupleSet`] is an open-addressing hash table of *row numbers* into such an arena, so a
//! lookup by a borrowed slice allocates nothing and a stored tuple costs 8 bytes of table plus
//! its arena slot. The hash is FxHash-style (multiply-rotate): fast and good enough for ids.

/// A 32-bit FxHash-style hash of a tuple of ids.
#[inline]
pub(crate) fn hash_tuple(t: &[u32]) -> u32 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h: u64 = t.len() as u64;
    for &x in t {
        h = (h.rotate_left(5) ^ u64::from(x)).wrapping_mul(K);
    }
    // Final mix so every input bit reaches the kept half.
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (h ^ (h >> 32)) as u32
}

const EMPTY: u32 = u32::MAX;

/// A set of row numbers, keyed by the tuple each row stands for (given by the caller).
///
/// The caller owns the tuples; lookups take a closure returning the tuple of a row. The full
/// 32-bit hash of every row is stored beside it (in the same slot, so a probe touches one
/// cache line), so growing never needs the tuples and most mismatches are rejected without
/// looking at them.
#[derive(Clone, Debug, Default)]
pub(crate) struct TupleSet {
    /// Slot → (row or `EMPTY`, the row's hash).
    slots: Vec<(u32, u32)>,
    /// log2 of the number of slots.
    bits: u32,
    len: usize,
}

impl TupleSet {
    /// Number of rows stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn slot(&self, h: u32) -> usize {
        // Fibonacci hashing: the top `bits` bits of h · 2^32/φ.
        ((u64::from(h).wrapping_mul(0x9e37_79b9_7f4a_7c15)) >> (64 - self.bits)) as usize
    }

    /// The row whose tuple equals `key`, if any.
    #[inline]
    pub(crate) fn find<'a>(&self, key: &[u32], tuple: impl Fn(u32) -> &'a [u32]) -> Option<u32> {
        self.find_hashed(hash_tuple(key), key, tuple)
    }

    /// [`TupleSet::find`] with the key's hash already computed.
    pub(crate) fn find_hashed<'a>(
        &self,
        h: u32,
        key: &[u32],
        tuple: impl Fn(u32) -> &'a [u32],
    ) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(h);
        loop {
            let (r, rh) = self.slots[i];
            if r == EMPTY {
                return None;
            }
            if rh == h && tuple(r) == key {
                return Some(r);
            }
            i = (i + 1) & mask;
        }
    }

    /// Records `row`, whose tuple hashes to `h` and is not yet present.
    pub(crate) fn insert_new(&mut self, h: u32, row: u32) {
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        self.place(h, row);
        self.len += 1;
    }

    fn place(&mut self, h: u32, row: u32) {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(h);
        while self.slots[i].0 != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = (row, h);
    }

    fn grow(&mut self) {
        self.bits = if self.slots.is_empty() {
            4
        } else {
            self.bits + 1
        };
        let cap = 1usize << self.bits;
        let old_slots = std::mem::replace(&mut self.slots, vec![(EMPTY, 0); cap]);
        for (r, h) in old_slots {
            if r != EMPTY {
                self.place(h, r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let tuples: Vec<Vec<u32>> = (0..1000u32).map(|i| vec![i % 7, i, i / 3]).collect();
        let mut set = TupleSet::default();
        for (i, t) in tuples.iter().enumerate() {
            assert_eq!(set.find(t, |r| &tuples[r as usize]), None);
            set.insert_new(hash_tuple(t), i as u32);
        }
        assert_eq!(set.len(), 1000);
        for (i, t) in tuples.iter().enumerate() {
            assert_eq!(set.find(t, |r| &tuples[r as usize]), Some(i as u32));
        }
        assert_eq!(set.find(&[9, 9, 9], |r| &tuples[r as usize]), None);
        assert_eq!(set.find(&[], |r| &tuples[r as usize]), None);
    }
}
