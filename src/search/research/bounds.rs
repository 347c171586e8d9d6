//! Bound storage for the research backends: a pair `[lo, hi]` known to contain each visited
//! node's value (Pruning Game Tree by Rollouts (2015): `M = {[v-, v+]}`; the "memory" of
//! the memory-enhanced tests of Solution Trees as a Basis for Game Tree Search (1994)). Two
//! stores behind one trait:
//! - [`MapBounds`], unlimited, for synthetic trees, where the papers' claims about *which*
//!   leaves are evaluated must be checked exactly;
//! - [`BoundTable`], a fixed-size table for chess, sized by the `Hash` option. When it is
//!   full an entry is overwritten; a lost entry reads as `[-INF, +INF]`, which only widens
//!   what the search knows, so values stay exact (the search may just redo work).

use std::collections::HashMap;

use crate::tree::GameTree;
use crate::value::{INFINITY, Value, from_table, to_table};

/// A closed interval known to contain a node's negamax value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bounds {
    pub lo: Value,
    pub hi: Value,
}

impl Bounds {
    /// Nothing known.
    pub const OPEN: Bounds = Bounds {
        lo: -INFINITY,
        hi: INFINITY,
    };

    pub const fn exact(v: Value) -> Self {
        Bounds { lo: v, hi: v }
    }

    /// The value is known.
    pub const fn is_closed(self) -> bool {
        self.lo >= self.hi
    }

    /// The same interval from the other side's point of view.
    pub const fn negate(self) -> Self {
        Bounds {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    /// Both intervals hold, so their intersection does (kept non-empty: stale entries of
    /// path-dependent chess values must not make a search believe in an empty interval).
    pub fn intersect(self, other: Bounds) -> Self {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        if lo <= hi { Bounds { lo, hi } } else { other }
    }
}

/// Where the research backends keep their bounds, keyed by [`GameTree::key`].
pub trait BoundStore {
    fn get(&self, key: u64) -> Option<Bounds>;
    fn put(&mut self, key: u64, bounds: Bounds);
    fn clear(&mut self);
}

/// The stored bounds of `node`, `[-INF, +INF]` if none. Mate values are stored relative to
/// the node and read back relative to the root.
pub fn load<T: GameTree, S: BoundStore + ?Sized>(store: &S, tree: &T, node: &T::Node) -> Bounds {
    load_key(store, tree.key(node), tree.ply(node))
}

/// [`load`] for a node whose key and ply are already known.
pub fn load_key<S: BoundStore + ?Sized>(store: &S, key: u64, ply: usize) -> Bounds {
    store.get(key).map_or(Bounds::OPEN, |b| Bounds {
        lo: from_node(b.lo, ply),
        hi: from_node(b.hi, ply),
    })
}

/// Stores the bounds of the node with this key at this ply.
pub fn save_key<S: BoundStore + ?Sized>(store: &mut S, key: u64, ply: usize, b: Bounds) {
    store.put(
        key,
        Bounds {
            lo: to_node(b.lo, ply),
            hi: to_node(b.hi, ply),
        },
    );
}

/// The infinite sentinels are not mate scores and stay where they are.
fn to_node(v: Value, ply: usize) -> Value {
    if v.abs() >= INFINITY {
        v
    } else {
        to_table(v, ply)
    }
}

fn from_node(v: Value, ply: usize) -> Value {
    if v.abs() >= INFINITY {
        v
    } else {
        from_table(v, ply)
    }
}

/// Unlimited storage in a hash map: nothing is ever lost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapBounds {
    map: HashMap<u64, Bounds>,
}

impl MapBounds {
    /// Every stored entry (for comparing the storage two algorithms leave behind).
    pub fn entries(&self) -> &HashMap<u64, Bounds> {
        &self.map
    }
}

impl BoundStore for MapBounds {
    fn get(&self, key: u64) -> Option<Bounds> {
        self.map.get(&key).copied()
    }
    fn put(&mut self, key: u64, bounds: Bounds) {
        self.map.insert(key, bounds);
    }
    fn clear(&mut self) {
        self.map.clear();
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    bounds: Bounds,
}

/// An empty slot: the interval is reversed, which no stored entry ever is.
const EMPTY: Slot = Slot {
    key: 0,
    bounds: Bounds { lo: 1, hi: 0 },
};

const BUCKET: usize = 4;

/// A fixed-size table of bounds in buckets of four. Keys that must never be lost (the
/// root's children, so that the move to play is always known) are pinned in a small map
/// beside it.
#[derive(Debug, Clone)]
pub struct BoundTable {
    slots: Vec<Slot>,
    pinned: HashMap<u64, Bounds>,
    pin_keys: Vec<u64>,
    used: usize,
    overwritten: u64,
    turn: usize,
}

impl BoundTable {
    /// A table of at most `mb` megabytes (at least one bucket).
    pub fn new(mb: usize) -> Self {
        Self::with_slots((mb << 20) / std::mem::size_of::<Slot>())
    }

    /// A table of about `slots` entries (experiments and tests of a full table).
    pub fn with_slots(slots: usize) -> Self {
        let buckets = (slots / BUCKET).max(1);
        BoundTable {
            slots: vec![EMPTY; buckets * BUCKET],
            pinned: HashMap::new(),
            pin_keys: Vec::new(),
            used: 0,
            overwritten: 0,
            turn: 0,
        }
    }

    /// Size in megabytes the table was made for (rounded down).
    pub fn megabytes(&self) -> usize {
        (self.slots.len() * std::mem::size_of::<Slot>()) >> 20
    }

    /// Keeps these keys' bounds whatever else is overwritten.
    pub fn pin(&mut self, keys: &[u64]) {
        self.pin_keys = keys.to_vec();
        self.pinned.retain(|k, _| keys.contains(k));
    }

    /// Permille of slots in use.
    pub fn permille(&self) -> u32 {
        (self.used as u64 * 1000 / self.slots.len() as u64) as u32
    }

    /// Slots in use.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Entries lost to overwriting since the last clear.
    pub fn overwritten(&self) -> u64 {
        self.overwritten
    }

    fn bucket(&self, key: u64) -> usize {
        let buckets = (self.slots.len() / BUCKET) as u128;
        ((u128::from(key) * buckets) >> 64) as usize * BUCKET
    }
}

impl BoundStore for BoundTable {
    fn get(&self, key: u64) -> Option<Bounds> {
        if let Some(b) = self.pinned.get(&key) {
            return Some(*b);
        }
        let start = self.bucket(key);
        self.slots[start..start + BUCKET]
            .iter()
            .find(|s| s.key == key && !s.bounds.is_reversed())
            .map(|s| s.bounds)
    }

    fn put(&mut self, key: u64, bounds: Bounds) {
        if self.pin_keys.contains(&key) {
            self.pinned.insert(key, bounds);
            return;
        }
        let start = self.bucket(key);
        let bucket = &mut self.slots[start..start + BUCKET];
        let index = match bucket
            .iter()
            .position(|s| s.key == key && !s.bounds.is_reversed())
        {
            Some(i) => i,
            None => match bucket.iter().position(|s| s.bounds.is_reversed()) {
                Some(i) => {
                    self.used += 1;
                    i
                }
                None => {
                    // Full bucket: rotate the victim so no slot is favoured.
                    self.overwritten += 1;
                    self.turn = (self.turn + 1) % BUCKET;
                    self.turn
                }
            },
        };
        bucket[index] = Slot { key, bounds };
    }

    fn clear(&mut self) {
        self.slots.fill(EMPTY);
        self.pinned.clear();
        self.used = 0;
        self.overwritten = 0;
    }
}

impl Bounds {
    const fn is_reversed(self) -> bool {
        self.lo > self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_overwrites_but_pinned_keys_stay() {
        let mut t = BoundTable::new(0);
        t.pin(&[7]);
        t.put(7, Bounds::exact(3));
        for k in 100..200 {
            t.put(k, Bounds { lo: 0, hi: 5 });
        }
        assert!(t.overwritten() > 0);
        assert_eq!(t.get(7), Some(Bounds::exact(3)));
        assert_eq!(t.get(199), Some(Bounds { lo: 0, hi: 5 }));
        t.clear();
        assert_eq!(t.get(199), None);
    }

    #[test]
    fn mate_values_are_stored_relative_to_the_node() {
        let mut m = MapBounds::default();
        let mate_in_3 = crate::value::mate_in(3);
        save_key(
            &mut m,
            1,
            2,
            Bounds {
                lo: mate_in_3,
                hi: INFINITY,
            },
        );
        // The same position one ply deeper is a mate one ply further away.
        assert_eq!(load_key(&m, 1, 3).lo, mate_in_3 - 1);
        assert_eq!(load_key(&m, 1, 3).hi, INFINITY);
    }
}
