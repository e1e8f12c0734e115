//! The visited-state set of one search: a set of `u32` keys with O(1) clearing.
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

impl SeenSet {
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
        if self.generation == 0 {
            self.generation = 1;
        }
        if (self.entries.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let h = hash_words(key);
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (g, e) = self.table[i];
            if g != self.generation {
                let idx = self.entries.len() as u32;
                self.entries
                    .push((h, self.keys.len() as u32, key.len() as u32));
                self.keys.extend_from_slice(key);
                self.table[i] = (self.generation, idx);
                return true;
            }
            let (eh, start, len) = self.entries[e as usize];
            if eh == h && self.keys[start as usize..(start + len) as usize] == *key {
                return false;
            }
            i = (i + 1) & mask;
        }
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
}
