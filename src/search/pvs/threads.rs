//! What the threads of one Lazy SMP search share besides the table: the last iteration
//! each completed. When the search ends, a helper that completed a deeper iteration than
//! the main thread with at least its value, or that proved a faster mate, is played
//! instead: a tactic found a ply deeper by a helper is not thrown away because the main
//! thread had not reached that ply yet. (Helpers that also skipped a depth already
//! searched by half the other threads, to spread them over depths, lost about 7 Elo with
//! two threads; see the README's search changes.)

use std::sync::Mutex;

use super::search::RootLine;
use crate::value::{MATE_BOUND, Value};

/// A completed iteration of one thread.
#[derive(Debug, Clone)]
pub(super) struct Finished {
    pub depth: i32,
    pub seldepth: u32,
    pub line: RootLine,
}

/// The board the threads of one search post to.
#[derive(Debug)]
pub(super) struct Threads {
    finished: Vec<Mutex<Option<Finished>>>,
}

impl Threads {
    pub fn new(count: usize) -> Self {
        let count = count.max(1);
        Threads {
            finished: (0..count).map(|_| Mutex::new(None)).collect(),
        }
    }

    /// Thread `id` completed an iteration with `line` as its best root line.
    pub fn post(&self, id: usize, finished: Finished) {
        if let Some(slot) = self.finished.get(id) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(finished);
        }
    }

    /// A helper's iteration to play instead of the main thread's result (`depth`,
    /// `value`; depth 0 where the main thread completed no iteration): deeper and at
    /// least as good, or a faster proven mate.
    pub fn better_than(&self, depth: i32, value: Value) -> Option<Finished> {
        let mut pick: Option<Finished> = None;
        let (mut best_depth, mut best_value) = (depth, value);
        for slot in self.finished.iter().skip(1) {
            let Some(f) = slot.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
                continue;
            };
            let deeper = f.depth > best_depth && (best_depth == 0 || f.line.value >= best_value);
            let faster_mate = f.line.value >= MATE_BOUND && f.line.value > best_value;
            if (deeper || faster_mate) && !f.line.pv.is_empty() {
                (best_depth, best_value) = (f.depth, f.line.value);
                pick = Some(f);
            }
        }
        pick
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use shakmaty::{Move, Role, Square};

    fn finished(depth: i32, value: Value) -> Finished {
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None,
        };
        Finished {
            depth,
            seldepth: depth as u32,
            line: RootLine { value, pv: vec![m] },
        }
    }

    #[test]
    fn only_a_deeper_helper_at_least_as_good_or_a_faster_mate_is_played() {
        let t = Threads::new(3);
        assert!(t.better_than(8, 30).is_none());
        t.post(1, finished(9, 20));
        assert!(t.better_than(8, 30).is_none(), "deeper but worse");
        t.post(2, finished(8, 90));
        assert!(t.better_than(8, 30).is_none(), "better but not deeper");
        t.post(2, finished(10, 30));
        assert_eq!(t.better_than(8, 30).map(|f| f.depth), Some(10));
        t.post(1, finished(3, MATE_BOUND + 5));
        assert_eq!(t.better_than(8, 30).map(|f| f.depth), Some(3));
        // Any completed iteration beats none.
        let t = Threads::new(2);
        t.post(1, finished(1, -200));
        assert_eq!(t.better_than(0, 0).map(|f| f.depth), Some(1));
        // The main thread's own post is never a candidate.
        let solo = Threads::new(1);
        solo.post(0, finished(20, 500));
        assert!(solo.better_than(8, 30).is_none());
    }
}
