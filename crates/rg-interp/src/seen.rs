//! The visited-state set of one search: a set of `u32` keys with O(1) clearing. It doubles as an
//! interner (every key gets the index of its first insertion), which the search uses to store
//! each distinct state once.
//!
//! Keys are stored back to back in one arena; the open-addressing table holds the entry index and
//! the generation it was written in, so clearing is a generation bump, which matters because
//! every reachability check starts a new (usually tiny) search.

#[derive(Clone, Debug, Default)]
pub(crate) struct SeenSet {
    /// Per slot: generation and entry index.
    table: Vec<(u32, u32)>,
    /// Per entry: hash, start and length in `keys`.
    entries: Vec<(u64, u32, u32)>,
    keys: Vec<u32>,
    generation: u32,
}

/// The contribution of value `v` at position `i` to a state's hash, a sum over positions: changing
/// a few slots of a long state updates it in time proportional to the change (subtract the old
/// slots' contributions, add the new).
#[inline]
pub(crate) fn hash_slot(i: usize, v: u32) -> u64 {
    // splitmix64's finaliser.
    let mut z = ((i as u64) << 32 | u64::from(v)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash of `words` that is a sum over positions, so changing a few slots of a long state
/// updates it in time proportional to the change (subtract the old slots, add the new).
#[cfg(test)]
pub(crate) fn hash_sum(words: &[u32]) -> u64 {
    hash_sum_from(0, 0, words)
}

/// `h` plus the contributions of `words` placed from position `start` on: the [`hash_sum`] of a
/// state continued from the hash of its first `start` slots.
#[cfg(test)]
pub(crate) fn hash_sum_from(h: u64, start: usize, words: &[u32]) -> u64 {
    words
        .iter()
        .enumerate()
        .fold(h, |h, (i, &v)| h.wrapping_add(hash_slot(start + i, v)))
}

#[inline]
pub(crate) fn hash_words(words: &[u32]) -> u64 {
    // FxHash-style multiplicative hashing, then a final mix so the low bits are usable.
    let mut h: u64 = words.len() as u64;
    for &w in words {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// [`hash_words`] for long keys (the check memo's, hundreds of words): four independent lanes
/// over pairs of words, since one lane's chain of multiplications would be the cost of a lookup,
/// then the same final mix.
#[inline]
pub(crate) fn hash_words_wide(key: &[u32]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut lanes = [key.len() as u64, 1, 2, 3];
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        for (j, lane) in lanes.iter_mut().enumerate() {
            let w = u64::from(c[2 * j]) | u64::from(c[2 * j + 1]) << 32;
            *lane = (lane.rotate_left(5) ^ w).wrapping_mul(K);
        }
    }
    for &v in chunks.remainder() {
        lanes[0] = (lanes[0].rotate_left(5) ^ u64::from(v)).wrapping_mul(K);
    }
    let mut h =
        lanes[0] ^ lanes[1].rotate_left(16) ^ lanes[2].rotate_left(32) ^ lanes[3].rotate_left(48);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

impl SeenSet {
    /// The words the set holds, as the search budget counts them: the keys, 4 per entry and
    /// 4 per entry in the table (kept at most half full).
    pub fn words(&self) -> usize {
        self.keys.len() + self.entries.len() * 8
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.keys.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: old generations could look current again.
            self.table.iter_mut().for_each(|s| *s = (0, 0));
            self.generation = 1;
        }
    }

    /// Inserts `key`; returns `false` if it was already present.
    pub fn insert(&mut self, key: &[u32]) -> bool {
        self.intern(key).1
    }

    /// The index of `key` (0, 1, … in order of first insertion since the last clear), and
    /// whether it was new.
    pub fn intern(&mut self, key: &[u32]) -> (u32, bool) {
        self.intern_hashed(key, hash_words(key))
    }

    /// [`SeenSet::intern`] with the key's hash computed by the caller (any function of the
    /// key's contents whose low bits are well mixed).
    #[inline]
    pub fn intern_hashed(&mut self, key: &[u32], h: u64) -> (u32, bool) {
        self.intern_by(h, |k| k == key, |keys| keys.extend_from_slice(key))
    }

    /// Interns a key given by its hash `h`, a test `same` of whether a stored key is it, and a
    /// function `write` that appends it to the arena: for keys that are cheaper to compare and
    /// store in another form than as one slice.
    #[inline]
    pub fn intern_by(
        &mut self,
        h: u64,
        same: impl Fn(&[u32]) -> bool,
        write: impl FnOnce(&mut Vec<u32>),
    ) -> (u32, bool) {
        if self.generation == 0 {
            self.generation = 1;
        }
        if (self.entries.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (g, e) = self.table[i];
            if g != self.generation {
                let idx = self.entries.len() as u32;
                let start = self.keys.len();
                write(&mut self.keys);
                self.entries
                    .push((h, start as u32, (self.keys.len() - start) as u32));
                self.table[i] = (self.generation, idx);
                return (idx, true);
            }
            let (eh, start, len) = self.entries[e as usize];
            if eh == h && same(&self.keys[start as usize..(start + len) as usize]) {
                return (e, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// The key of index `id` (from [`SeenSet::intern`] since the last clear).
    #[cfg(test)]
    pub fn get(&self, id: u32) -> &[u32] {
        let (_, start, len) = self.entries[id as usize];
        &self.keys[start as usize..(start + len) as usize]
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(64);
        self.table.clear();
        self.table.resize(cap, (0, 0));
        let mask = cap - 1;
        for (idx, &(h, _, _)) in self.entries.iter().enumerate() {
            let mut i = h as usize & mask;
            while self.table[i].0 == self.generation {
                i = (i + 1) & mask;
            }
            self.table[i] = (self.generation, idx as u32);
        }
    }
}

/// A set of keys of `N` words stored in the table itself, each numbered in order of first
/// insertion, with O(1) clearing: the visited-state keys of a search (node, tags, values, each
/// as one number) and the numbering of tag sequences, where [`SeenSet`]'s arena would cost more
/// than the keys.
#[derive(Clone, Debug)]
pub(crate) struct KeyTable<const N: usize> {
    /// Per slot: generation, index, key.
    table: Vec<(u32, u32, [u32; N])>,
    len: u32,
    generation: u32,
}

impl<const N: usize> Default for KeyTable<N> {
    fn default() -> Self {
        KeyTable {
            table: Vec::new(),
            len: 0,
            generation: 1,
        }
    }
}

impl<const N: usize> KeyTable<N> {
    /// The words the table holds, as the search budget counts them: `N + 2` words per slot,
    /// 2 slots per key (it is kept at most half full).
    pub fn words(&self) -> usize {
        self.len as usize * (N + 2) * 2
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|s| s.0 = 0);
            self.generation = 1;
        }
    }

    /// The index of `key` (0, 1, … in order of first insertion since the last clear), and
    /// whether it was new.
    #[inline]
    pub fn intern(&mut self, key: [u32; N]) -> (u32, bool) {
        if (self.len as usize + 1) * 2 > self.table.len() {
            self.grow();
        }
        let mask = self.table.len() - 1;
        let mut i = hash_words(&key) as usize & mask;
        loop {
            let (g, idx, k) = &self.table[i];
            if *g != self.generation {
                let idx = self.len;
                self.table[i] = (self.generation, idx, key);
                self.len += 1;
                return (idx, true);
            }
            if *k == key {
                return (*idx, false);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let cap = (self.table.len() * 2).max(64);
        let old = std::mem::replace(&mut self.table, vec![(0, 0, [0; N]); cap]);
        let mask = cap - 1;
        for (g, idx, k) in old {
            if g == self.generation {
                let mut i = hash_words(&k) as usize & mask;
                while self.table[i].0 == self.generation {
                    i = (i + 1) & mask;
                }
                self.table[i] = (g, idx, k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_detects_duplicates_and_clear_forgets() {
        let mut s = SeenSet::default();
        for i in 0..1000u32 {
            assert!(s.insert(&[i, i + 1]));
        }
        for i in 0..1000u32 {
            assert!(!s.insert(&[i, i + 1]));
        }
        assert!(s.insert(&[1, 2, 3]));
        assert!(!s.insert(&[1, 2]));
        s.clear();
        assert!(s.insert(&[1, 2]));
        assert!(s.insert(&[]));
        assert!(!s.insert(&[]));
    }

    #[test]
    fn hash_sum_updates_by_slots() {
        let a = [3u32, 1, 4, 1, 5, 9, 2, 6];
        let mut b = a;
        b[5] = 7;
        let h = hash_sum(&a)
            .wrapping_sub(hash_slot(5, 9))
            .wrapping_add(hash_slot(5, 7));
        assert_eq!(h, hash_sum(&b));
        assert_eq!(hash_sum_from(hash_sum(&a[..3]), 3, &a[3..]), hash_sum(&a));
        // Positions matter: swapping two values changes the hash.
        let mut c = a;
        c.swap(0, 1);
        assert_ne!(hash_sum(&a), hash_sum(&c));
    }

    #[test]
    fn intern_numbers_keys_in_order_and_gets_them_back() {
        let mut s = SeenSet::default();
        for i in 0..300u32 {
            assert_eq!(s.intern(&[i, 7, i]), (i, true));
        }
        assert_eq!(s.intern(&[5, 7, 5]), (5, false));
        assert_eq!(s.get(299), &[299, 7, 299]);
        s.clear();
        assert_eq!(s.intern(&[299, 7, 299]), (0, true));
        assert_eq!(s.get(0), &[299, 7, 299]);
    }

    #[test]
    fn key_table_numbers_keys_and_clear_forgets_them() {
        let mut t = KeyTable::<3>::default();
        for i in 0..1000u32 {
            assert_eq!(t.intern([i, i / 7, 3]), (i, true));
        }
        for i in (0..1000u32).rev() {
            assert_eq!(t.intern([i, i / 7, 3]), (i, false));
        }
        t.clear();
        assert_eq!(t.intern([999, 142, 3]), (0, true));
        assert_eq!(t.intern([0, 0, 3]), (1, true));
        assert_eq!(t.intern([999, 142, 3]), (0, false));
    }
}
