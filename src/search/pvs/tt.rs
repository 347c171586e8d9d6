//! The transposition table: a fixed-size hash of search results shared by every search
//! thread without locks.
//!
//! Each slot is two atomic words, the packed entry and `key ^ entry`. A reader accepts a
//! slot only if the two agree with its key, so a slot torn by two threads writing at once
//! reads as a miss instead of as another position's data (Hyatt's lockless hashing).
//!
//! Replacement: a bucket of four slots shares one cache line. A store for a key already in
//! the bucket overwrites that slot, unless the old entry is much deeper and the new one is
//! only a bound (a shallow re-search must not erase a deep result). Otherwise the victim is
//! the slot worth least, where worth is depth minus eight per search generation of age:
//! entries from earlier searches give way first, then the shallowest.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use shakmaty::Move;

use super::huge_pages::ZeroedArray;
use crate::value::{Bound, Value};

const SLOTS: usize = 4;
const GENERATION_BITS: u64 = 6;
const GENERATION_MASK: u8 = (1 << GENERATION_BITS) - 1;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    slots: [Slot; SLOTS],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// A move packed into 16 bits: from, to and promotion piece. Enough to find the move again
/// in a position's legal move list, which is how the search uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    pub const NONE: PackedMove = PackedMove(0);

    pub fn new(m: Move) -> Self {
        let from = m.from().map_or(0, |s| s as u16);
        let to = m.to() as u16;
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from | (to << 6) | (promo << 12))
    }

    /// True if `m` is the move this was packed from.
    #[inline]
    pub fn matches(self, m: Move) -> bool {
        self != Self::NONE && self == Self::new(m)
    }
}

/// What a probe finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub mv: PackedMove,
    /// Stored relative to the node (see [`crate::value::to_table`]).
    pub value: Value,
    pub eval: Value,
    pub depth: i32,
    pub bound: Bound,
}

impl Entry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Upper => 1,
            Bound::Lower => 2,
            Bound::Exact => 3,
        };
        u64::from(self.mv.0)
            | (u64::from(self.value as i16 as u16) << 16)
            | (u64::from(self.eval as i16 as u16) << 32)
            | (u64::from(self.depth.clamp(0, 255) as u8) << 48)
            | (bound << 56)
            | (u64::from(generation & GENERATION_MASK) << 58)
    }

    /// `None` for an empty slot.
    fn unpack(data: u64) -> Option<Self> {
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Entry {
            mv: PackedMove(data as u16),
            value: Value::from((data >> 16) as u16 as i16),
            eval: Value::from((data >> 32) as u16 as i16),
            depth: i32::from((data >> 48) as u8),
            bound,
        })
    }
}

fn generation_of(data: u64) -> u8 {
    (data >> 58) as u8 & GENERATION_MASK
}

/// The shared transposition table.
pub struct TranspositionTable {
    buckets: ZeroedArray<Bucket>,
    generation: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} MB)", self.size_mb())
    }
}

/// Why a table of the asked size could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a {mb} MB hash table: {reason}")]
pub struct AllocError {
    pub mb: usize,
    pub reason: String,
}

impl TranspositionTable {
    /// A cleared table of `mb` megabytes (at least one bucket). The size is checked against
    /// the memory the system says is available, so a too-large `Hash` is an error rather
    /// than an out-of-memory kill later.
    pub fn new(mb: usize) -> Result<Self, AllocError> {
        let bytes = mb.saturating_mul(1 << 20);
        if let Some(available) = available_memory()
            && bytes as u64 > available
        {
            return Err(AllocError {
                mb,
                reason: format!("only {} MB available", available >> 20),
            });
        }
        let count = bytes / std::mem::size_of::<Bucket>();
        // SAFETY: a zeroed bucket is an empty one, `Bucket::default()`.
        let buckets =
            unsafe { ZeroedArray::new(count) }.map_err(|reason| AllocError { mb, reason })?;
        Ok(TranspositionTable {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// The smallest table (one bucket): the fallback when memory is too short for more.
    pub fn minimal() -> Self {
        // SAFETY: as in `new`.
        match unsafe { ZeroedArray::new(1) } {
            Ok(buckets) => TranspositionTable {
                buckets,
                generation: AtomicU8::new(0),
            },
            Err(_) => std::alloc::handle_alloc_error(std::alloc::Layout::new::<Bucket>()),
        }
    }

    /// The table's size in MB.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Empties every slot. Safe while searches run: they just see misses.
    pub fn clear(&self) {
        for bucket in self.buckets.iter() {
            for slot in &bucket.slots {
                slot.data.store(0, Ordering::Relaxed);
                slot.check.store(0, Ordering::Relaxed);
            }
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search generation, which ages every stored entry by one.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation
            .store(g.wrapping_add(1) & GENERATION_MASK, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto any bucket count, not only powers of two.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Hints the CPU to fetch the bucket of `key` before it is probed.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = std::ptr::from_ref(self.bucket(key)).cast::<i8>();
            // SAFETY: prefetching is only a hint and never faults; the pointer is valid.
            unsafe { _mm_prefetch(ptr, _MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.bucket(key).slots.iter().find_map(|slot| {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.check.load(Ordering::Relaxed);
            if check ^ data == key {
                Entry::unpack(data)
            } else {
                None
            }
        })
    }

    /// Stores a search result for `key` (see the module doc for what gets replaced).
    pub fn store(&self, key: u64, mut entry: Entry) {
        let bucket = self.bucket(key);
        let generation = self.generation.load(Ordering::Relaxed);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for slot in &bucket.slots {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.check.load(Ordering::Relaxed);
            let Some(old) = Entry::unpack(data) else {
                if victim_worth > i32::MIN {
                    victim = slot;
                    victim_worth = i32::MIN;
                }
                continue;
            };
            if check ^ data == key {
                if entry.mv == PackedMove::NONE {
                    entry.mv = old.mv;
                }
                let much_deeper = old.depth > entry.depth + 3;
                if much_deeper && entry.bound != Bound::Exact && generation_of(data) == generation {
                    return;
                }
                victim = slot;
                break;
            }
            let age = i32::from(generation.wrapping_sub(generation_of(data)) & GENERATION_MASK);
            let worth = old.depth - 8 * age;
            if worth < victim_worth {
                victim = slot;
                victim_worth = worth;
            }
        }
        let data = entry.pack(generation);
        victim.data.store(data, Ordering::Relaxed);
        victim.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of sampled slots holding an entry of the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for bucket in &self.buckets[..sample] {
            for slot in &bucket.slots {
                let data = slot.data.load(Ordering::Relaxed);
                if Entry::unpack(data).is_some() && generation_of(data) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * SLOTS).max(1)) as u32
    }
}

/// `MemAvailable` from /proc/meminfo, where the system has one.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    fn entry(depth: i32, value: Value, bound: Bound) -> Entry {
        Entry {
            mv: PackedMove::NONE,
            value,
            eval: 7,
            depth,
            bound,
        }
    }

    #[test]
    fn store_then_probe_round_trips_every_field() {
        let tt = TranspositionTable::new(1).unwrap();
        let pos = Position::startpos();
        let m = pos.legal_moves()[5];
        let e = Entry {
            mv: PackedMove::new(m),
            value: -30_990,
            eval: -12,
            depth: 17,
            bound: Bound::Lower,
        };
        tt.store(pos.key(), e);
        assert_eq!(tt.probe(pos.key()), Some(e));
        assert!(e.mv.matches(m));
        assert!(!e.mv.matches(pos.legal_moves()[4]));
        assert_eq!(tt.probe(pos.key() ^ 1), None);
    }

    #[test]
    fn shallow_bound_does_not_erase_deep_result() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(42, entry(12, 50, Bound::Exact));
        tt.store(42, entry(2, 10, Bound::Upper));
        assert_eq!(tt.probe(42).unwrap().depth, 12);
        tt.store(42, entry(11, 20, Bound::Exact));
        assert_eq!(tt.probe(42).unwrap().depth, 11);
    }

    #[test]
    fn clear_and_hashfull() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.hashfull(), 0);
        for key in 0..100_000u64 {
            tt.store(
                key.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                entry(1, 0, Bound::Exact),
            );
        }
        assert!(tt.hashfull() > 900, "hashfull {}", tt.hashfull());
        tt.new_search();
        assert_eq!(tt.hashfull(), 0, "entries of an old search do not count");
        tt.clear();
        assert_eq!(tt.probe(0x9E37_79B9_7F4A_7C15), None);
    }

    #[test]
    fn oversized_table_is_refused() {
        assert!(TranspositionTable::new(usize::MAX >> 21).is_err());
    }
}
