//! [`Decls`]: a declaration list of a [`Game`](crate::Game) that reads like a slice and counts
//! its mutations.
//!
//! A game's typedefs, constants, variables and pragmas are public so that reading them stays plain
//! (`game.constants[i]`, `game.variables.iter()`, `game.pragmas.len()`), but the list dereferences
//! only to a shared slice: every change goes through a method of [`Decls`], and every method that
//! changes the list bumps its version. [`Game::generation`](crate::Game::generation) adds these
//! versions to the counter of the automaton, so "the game changed" is exactly "the generation
//! changed" without a convention that writers must remember. Methods that would write something
//! equal to what is there (`set`, `update`, `retain` keeping everything…) do not bump the version:
//! a rewrite of something into itself is not a change.

use crate::interner::Symbol;
use rustc_hash::FxHashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The source of version stamps: one counter for the whole process, so a stamp is never issued
/// twice. A list (or a game's automaton) that changes takes a fresh stamp; two clones of a game
/// that change independently therefore never end up with the same generation, and a game
/// rebuilt from scratch has a generation newer than the one it replaces.
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

/// A stamp never issued before.
pub(crate) fn fresh_stamp() -> u64 {
    NEXT_STAMP.fetch_add(1, Ordering::Relaxed)
}

/// A declaration list: reads as a slice, mutates only through version-counting methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decls<T> {
    items: Vec<T>,
    /// The stamp of the last change (0: never changed).
    version: u64,
    /// The stamp of the last change that was not an append (see [`Decls::rollback`]).
    last_rewrite: u64,
    /// The first declaration of each name, for [`Decls::named`], as of a version.
    by_name: NameCache,
}

/// Lists at most this long are searched by name without an index.
const SCAN_LEN: usize = 16;

/// A declaration's name, for [`Decls::named`].
pub trait Named {
    fn decl_name(&self) -> Symbol;
}

/// The name index of a list, built on demand and valid for one version of the list. It is not
/// part of the list's value: clones start without one, and lists compare without it.
#[derive(Default)]
struct NameCache(Mutex<Option<(u64, NameIndex)>>);

/// Name → position of its first declaration.
pub(crate) type NameIndex = Arc<FxHashMap<Symbol, usize>>;

impl Clone for NameCache {
    fn clone(&self) -> Self {
        NameCache::default()
    }
}

impl std::fmt::Debug for NameCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameCache")
    }
}

impl PartialEq for NameCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for NameCache {}

impl<T: Named> Decls<T> {
    /// The first declaration named `name`. Long lists keep an index by name, rebuilt after a
    /// change, so that passes looking names up once per edge stay linear.
    pub fn named(&self, name: Symbol) -> Option<&T> {
        if self.items.len() <= SCAN_LEN {
            return self.items.iter().find(|t| t.decl_name() == name);
        }
        self.name_index().get(&name).map(|&i| &self.items[i])
    }

    /// Name → position of its first declaration, built once per version of the list (a type
    /// environment asks for it every time one is made, and passes make one per rewrite).
    pub(crate) fn name_index(&self) -> NameIndex {
        // A poisoned lock only means another thread panicked while building: rebuild.
        let mut cache = self.by_name.0.lock().unwrap_or_else(|e| e.into_inner());
        match &*cache {
            Some((v, m)) if *v == self.version => Arc::clone(m),
            _ => {
                let mut m =
                    FxHashMap::with_capacity_and_hasher(self.items.len(), Default::default());
                for (i, t) in self.items.iter().enumerate() {
                    m.entry(t.decl_name()).or_insert(i);
                }
                let m = Arc::new(m);
                *cache = Some((self.version, Arc::clone(&m)));
                m
            }
        }
    }
}

/// The state of a list before tentative appends (see [`Decls::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclsMark {
    len: usize,
    version: u64,
}

impl<T> Decls<T> {
    /// An empty list (only games create lists, so that versions never go back).
    pub(crate) fn new() -> Self {
        Decls {
            items: Vec::new(),
            version: 0,
            last_rewrite: 0,
            by_name: NameCache::default(),
        }
    }

    /// The stamp of the last change of this list: it differs after every change, and never
    /// repeats (0 for a list that never changed).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The state before tentative appends: [`Decls::rollback`] returns to it.
    pub fn mark(&self) -> DeclsMark {
        DeclsMark {
            len: self.items.len(),
            version: self.version,
        }
    }

    /// Whether only appends happened since `mark`, so that [`Decls::rollback`] restores the
    /// list exactly.
    pub(crate) fn only_appended_since(&self, mark: DeclsMark) -> bool {
        self.last_rewrite <= mark.version && self.items.len() >= mark.len
    }

    /// Drops what was appended since `mark`. When only appends happened since, the list is
    /// exactly as it was and gets its old version back (undoing a tentative declaration is not
    /// a change); otherwise it is truncated like by [`Decls::truncate`]. Callers that undo
    /// appends while the rest of the game may have changed use
    /// [`Game::rollback`](crate::Game::rollback), which restores the version only when the
    /// whole game is as it was.
    pub(crate) fn rollback(&mut self, mark: DeclsMark, restore_version: bool) {
        if restore_version && self.only_appended_since(mark) {
            self.items.truncate(mark.len);
            self.version = mark.version;
        } else {
            self.truncate(mark.len);
        }
    }

    /// The mutable items, for the few writers inside rg-core that keep the count themselves.
    pub(crate) fn raw_mut(&mut self) -> &mut Vec<T> {
        *self.by_name.0.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        &mut self.items
    }

    /// Records a change that may rewrite existing declarations.
    fn bump(&mut self) {
        self.version = fresh_stamp();
        self.last_rewrite = self.version;
    }

    /// Records an append.
    fn bump_append(&mut self) {
        self.version = fresh_stamp();
    }

    /// Appends a declaration.
    pub fn push(&mut self, item: T) {
        self.items.push(item);
        self.bump_append();
    }

    /// Appends declarations (a change only if there is at least one).
    pub fn extend(&mut self, items: impl IntoIterator<Item = T>) {
        let before = self.items.len();
        self.items.extend(items);
        if self.items.len() != before {
            self.bump_append();
        }
    }

    /// Keeps the declarations `keep` accepts, in order (a change only if one is dropped).
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        let before = self.items.len();
        self.items.retain(keep);
        if self.items.len() != before {
            self.bump();
        }
    }

    /// Keeps the first `len` declarations (a change only if there were more).
    pub fn truncate(&mut self, len: usize) {
        if len < self.items.len() {
            self.items.truncate(len);
            self.bump();
        }
    }

    /// Removes every declaration (a change only if there was one).
    pub fn clear(&mut self) {
        if !self.items.is_empty() {
            self.items.clear();
            self.bump();
        }
    }

    /// Removes and returns the declaration at `index`.
    pub fn remove(&mut self, index: usize) -> T {
        let item = self.items.remove(index);
        self.bump();
        item
    }
}

impl<T: PartialEq> Decls<T> {
    /// Replaces the declaration at `index` (a change only if the new one differs); returns
    /// whether it changed.
    pub fn set(&mut self, index: usize, item: T) -> bool {
        if self.items[index] == item {
            return false;
        }
        self.items[index] = item;
        self.bump();
        true
    }

    /// Replaces the whole list (a change only if the new list differs); returns the old list.
    pub fn replace(&mut self, items: Vec<T>) -> Vec<T> {
        if self.items != items {
            self.bump();
        }
        std::mem::replace(&mut self.items, items)
    }
}

impl<T: Clone + PartialEq> Decls<T> {
    /// Edits the declaration at `index` in place (a change only if `edit` changed it); returns
    /// whether it changed.
    pub fn update(&mut self, index: usize, edit: impl FnOnce(&mut T)) -> bool {
        let mut item = self.items[index].clone();
        edit(&mut item);
        self.set(index, item)
    }

    /// Edits every declaration in place (a change only if `edit` changed one); returns whether
    /// one changed.
    pub fn update_all(&mut self, mut edit: impl FnMut(&mut T)) -> bool {
        let mut changed = false;
        for i in 0..self.items.len() {
            changed |= self.update(i, &mut edit);
        }
        changed
    }
}

impl<T> Deref for Decls<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

impl<'a, T> IntoIterator for &'a Decls<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_changes_count() {
        let mut d: Decls<u8> = Decls::new();
        d.push(1);
        d.push(2);
        let v = d.version();
        assert_eq!((d.len(), d[1]), (2, 2));
        d.retain(|_| true);
        d.truncate(5);
        d.extend([]);
        assert!(!d.set(0, 1));
        assert!(!d.update(1, |x| *x += 0));
        assert_eq!(d.version(), v);
        assert!(d.update_all(|x| *x *= 2));
        assert_eq!(&*d, &[2, 4]);
        let v = d.version();
        d.replace(vec![2, 4]);
        assert_eq!(d.version(), v);
        d.clear();
        assert!(d.version() > v);
    }

    #[test]
    fn rolling_back_appends_restores_the_version() {
        let mut d: Decls<u8> = Decls::new();
        d.push(1);
        let (m, v) = (d.mark(), d.version());
        d.push(2);
        d.extend([3, 4]);
        d.rollback(m, true);
        assert_eq!((&*d, d.version()), (&[1][..], v));
        d.push(2);
        d.set(0, 7);
        d.rollback(m, true);
        assert_eq!(&*d, &[7]);
        assert!(d.version() > v);
    }
}
