//! Typed `u32` entity ids, a vector indexed by them and a uniqueness-interned arena.
//!
//! Cranelift's `entity_impl!` idea without the dependency: every entity kind gets its own newtype
//! so a node id can never be used as an edge id, and the display prefix (`n12`, `e40`) makes
//! debug output readable.

use indexmap::IndexSet;
use std::hash::Hash;
use std::marker::PhantomData;

/// An entity id: a dense `u32` index.
pub trait EntityId: Copy + Eq + Ord + Hash + std::fmt::Debug {
    /// The id with this index.
    fn new(index: usize) -> Self;
    /// The index of this id.
    fn index(self) -> usize;
}

/// Declares `u32` newtype ids implementing [`EntityId`] with a display prefix.
#[macro_export]
macro_rules! entity_id {
    ($(#[$meta:meta])* $vis:vis struct $name:ident, $prefix:literal;) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        $vis struct $name(pub u32);

        impl $crate::ids::EntityId for $name {
            #[inline]
            fn new(index: usize) -> Self {
                debug_assert!(index <= u32::MAX as usize);
                $name(index as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

/// A vector indexed by a typed id.
#[derive(Clone, PartialEq, Eq)]
pub struct IndexVec<I: EntityId, T> {
    raw: Vec<T>,
    _marker: PhantomData<fn(I) -> I>,
}

impl<I: EntityId, T: std::fmt::Debug> std::fmt::Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<I: EntityId, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: EntityId, T> IndexVec<I, T> {
    /// An empty vector.
    pub fn new() -> Self {
        IndexVec {
            raw: Vec::new(),
            _marker: PhantomData,
        }
    }

    /// An empty vector with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        IndexVec {
            raw: Vec::with_capacity(n),
            _marker: PhantomData,
        }
    }

    /// A side table of `n` entries, each `value` (e.g. one flag per node of a game:
    /// `IndexVec::from_elem(false, game.node_capacity())`).
    pub fn from_elem(value: T, n: usize) -> Self
    where
        T: Clone,
    {
        IndexVec {
            raw: vec![value; n],
            _marker: PhantomData,
        }
    }

    /// Appends and returns the new id.
    pub fn push(&mut self, value: T) -> I {
        let id = I::new(self.raw.len());
        self.raw.push(value);
        id
    }

    /// Number of entries (live or not).
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The entry for `id`, if in range.
    pub fn get(&self, id: I) -> Option<&T> {
        self.raw.get(id.index())
    }

    /// The entry for `id`, mutably, if in range.
    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.raw.get_mut(id.index())
    }

    /// All ids in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        (0..self.raw.len()).map(I::new)
    }

    /// `(id, entry)` pairs in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator {
        self.raw.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// `(id, entry)` pairs in order, mutably.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (I, &mut T)> + ExactSizeIterator {
        self.raw.iter_mut().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// The entries in order.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }

    /// The entries as a plain vector, for code that indexes by number.
    pub fn into_raw(self) -> Vec<T> {
        self.raw
    }

    /// The underlying slice.
    pub fn as_slice(&self) -> &[T] {
        &self.raw
    }
}

impl<I: EntityId, T> std::ops::Index<I> for IndexVec<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.raw[id.index()]
    }
}

impl<I: EntityId, T> std::ops::IndexMut<I> for IndexVec<I, T> {
    #[inline]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.raw[id.index()]
    }
}

impl<I: EntityId, T> FromIterator<T> for IndexVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        IndexVec {
            raw: iter.into_iter().collect(),
            _marker: PhantomData,
        }
    }
}

/// A per-entity side table with a default value for ids never written (Cranelift's
/// `SecondaryMap`). Reading an id beyond the end yields the default.
#[derive(Clone, Debug)]
pub struct SecondaryMap<I: EntityId, T: Clone> {
    raw: Vec<T>,
    default: T,
    _marker: PhantomData<fn(I) -> I>,
}

impl<I: EntityId, T: Clone + Default> Default for SecondaryMap<I, T> {
    fn default() -> Self {
        Self::with_default(T::default())
    }
}

impl<I: EntityId, T: Clone> SecondaryMap<I, T> {
    /// An empty map whose unset entries read as `default`.
    pub fn with_default(default: T) -> Self {
        SecondaryMap {
            raw: Vec::new(),
            default,
            _marker: PhantomData,
        }
    }

    /// The value for `id` (the default if never set).
    pub fn get(&self, id: I) -> &T {
        self.raw.get(id.index()).unwrap_or(&self.default)
    }

    /// Sets the value for `id`.
    pub fn set(&mut self, id: I, value: T) {
        let i = id.index();
        if i >= self.raw.len() {
            self.raw.resize(i + 1, self.default.clone());
        }
        self.raw[i] = value;
    }

    /// A mutable reference to the value for `id`, growing the table if needed.
    pub fn get_mut(&mut self, id: I) -> &mut T {
        let i = id.index();
        if i >= self.raw.len() {
            self.raw.resize(i + 1, self.default.clone());
        }
        &mut self.raw[i]
    }
}

/// An arena that stores each distinct value once (naga's `UniqueArena`): inserting a value equal
/// to one already present returns the existing id, so equality of ids is equality of values.
#[derive(Clone)]
pub struct UniqueArena<I: EntityId, T: Hash + Eq> {
    /// Ids are insertion positions; the hasher only speeds look-ups (the passes look up
    /// expressions in their hot loops).
    set: IndexSet<T, rustc_hash::FxBuildHasher>,
    _marker: PhantomData<fn(I) -> I>,
}

impl<I: EntityId, T: Hash + Eq + std::fmt::Debug> std::fmt::Debug for UniqueArena<I, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.set.iter().enumerate().map(|(i, t)| (I::new(i), t)))
            .finish()
    }
}

impl<I: EntityId, T: Hash + Eq> Default for UniqueArena<I, T> {
    fn default() -> Self {
        UniqueArena {
            set: IndexSet::default(),
            _marker: PhantomData,
        }
    }
}

impl<I: EntityId, T: Hash + Eq> UniqueArena<I, T> {
    /// Inserts `value` (or finds the equal one) and returns its id.
    pub fn insert(&mut self, value: T) -> I {
        I::new(self.set.insert_full(value).0)
    }

    /// The id of a value equal to `value`, if present.
    pub fn find(&self, value: &T) -> Option<I> {
        self.set.get_index_of(value).map(I::new)
    }

    /// The value with this id, if in range.
    pub fn get(&self, id: I) -> Option<&T> {
        self.set.get_index(id.index())
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

impl<I: EntityId, T: Hash + Eq> std::ops::Index<I> for UniqueArena<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.set[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    entity_id! {
        /// Test id.
        struct TestId, "t";
    }

    #[test]
    fn unique_arena_dedups() {
        let mut a: UniqueArena<TestId, String> = UniqueArena::default();
        let x = a.insert("x".into());
        let y = a.insert("y".into());
        assert_ne!(x, y);
        assert_eq!(a.insert("x".into()), x);
        assert_eq!(format!("{y}"), "t1");
    }

    #[test]
    fn secondary_map_defaults() {
        let mut m: SecondaryMap<TestId, u8> = SecondaryMap::with_default(7);
        assert_eq!(*m.get(TestId(5)), 7);
        m.set(TestId(2), 1);
        assert_eq!(*m.get(TestId(2)), 1);
        assert_eq!(*m.get(TestId(1)), 7);
    }
}
