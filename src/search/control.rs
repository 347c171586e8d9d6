//! The shared controls of one search: the stop flag every thread polls, the clock and its
//! budget, pondering, and the node budget. The input thread holds the same `Arc` and uses
//! it to answer `stop` and `ponderhit` while the search runs.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use shakmaty::Color;

use super::limits::Limits;

/// The share of `Move Overhead` that a move's unseen latency takes on average (see
/// [`TimeBudget::new`]).
const LATENCY_SHARE: u32 = 4;

/// How long to think: `soft` is the target (no new iteration starts after it), `hard` the
/// limit a running iteration is cut at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

impl TimeBudget {
    /// The budget for the side to move. `overhead` (the `Move Overhead` option) covers what
    /// the search cannot see: pipes, the GUI, process scheduling. It comes off every limit.
    pub fn new(limits: &Limits, turn: Color, overhead: Duration) -> Self {
        let mut budget = TimeBudget::default();
        let floor = Duration::from_millis(1);
        if let Some(t) = limits.movetime {
            let t = t.saturating_sub(overhead).max(floor);
            budget = TimeBudget {
                soft: Some(t),
                hard: Some(t),
            };
        }
        let (time, inc) = match turn {
            Color::White => (limits.wtime, limits.winc),
            Color::Black => (limits.btime, limits.binc),
        };
        if let Some(time) = time {
            let inc = inc.unwrap_or_default();
            let moves_to_go = limits.movestogo.unwrap_or(30).clamp(1, 50);
            // Every move still to play costs clock the search never sees (the GUI, pipes,
            // starting and stopping threads): on average about a quarter of `overhead`,
            // which is the allowance for the worst single move. An increment at least
            // that large pays it back; a smaller one (sudden death) does not, so that much
            // is kept back for each of the moves to come — else a long game at 1+0 plays
            // its last moves on a clock that latency alone empties.
            let reserve = (overhead / LATENCY_SHARE).saturating_sub(inc) * moves_to_go;
            let left = time.saturating_sub(overhead).saturating_sub(reserve);
            // The increment comes back after the move, but only if the move is made in time:
            // count three quarters of it, and never let the hard cap exceed a share of the
            // time actually left.
            let target = left / moves_to_go + inc * 3 / 4;
            let cap = if moves_to_go == 1 {
                left * 7 / 10
            } else {
                (target * 5).min(left * 2 / 5)
            };
            let hard = cap.max(floor);
            // Below the floor's worth of clock (a millisecond a move for twice the moves to
            // go) the target keeps shrinking with the clock instead of spending the floor on
            // every move: a long game's last moves then cost less and less, down to the
            // first iteration alone, rather than a fixed millisecond each until the flag.
            let dwindling = time.saturating_sub(overhead) / (2 * moves_to_go);
            let soft = target.min(hard).max(floor.min(dwindling));
            budget.soft = Some(budget.soft.map_or(soft, |s| s.min(soft)));
            budget.hard = Some(budget.hard.map_or(hard, |h| h.min(hard)));
        }
        budget
    }
}

/// Runs its closure when dropped, and so also while a panic unwinds. A search's main
/// thread holds one that tells the helper threads to stop: the scope that joins them then
/// returns however the main thread's part ended, where a panic in it would otherwise
/// leave the scope waiting for helpers that nothing stops, and the GUI without an answer.
pub struct Finally<F: FnMut()>(pub F);

impl<F: FnMut()> Drop for Finally<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// Runs a helper thread's share of a search. A panic there (a bug) ends that helper alone
/// and is logged: the main thread's result still stands, where letting the panic reach
/// the scope that joins the helpers would throw that result away for the fallback move of
/// a crashed search. `None` when the helper panicked.
pub fn contained<T>(backend: &str, work: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Some(value),
        Err(panic) => {
            log::error!(
                "{backend}: a helper thread panicked ({}); the search went on without it",
                panic_message(panic.as_ref())
            );
            None
        }
    }
}

/// The text a panic was raised with, where it has one.
pub fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("no message")
}

/// Shared state of a running search.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    /// The GUI said `stop`: also ends the hold on `bestmove` (infinite, ponder).
    released: AtomicBool,
    pondering: AtomicBool,
    infinite: bool,
    budget: TimeBudget,
    node_limit: Option<u64>,
    nodes: AtomicU64,
    /// Positions the endgame tables settled (`tbhits`).
    tb_hits: AtomicU64,
    origin: Instant,
    /// Microseconds from `origin` to the moment the clock started: `go`, or `ponderhit`.
    clock_start_us: AtomicU64,
    release_lock: Mutex<()>,
    wake: Condvar,
}

impl SearchControl {
    /// Controls for a search whose clock starts now.
    pub fn new(limits: &Limits, turn: Color, overhead: Duration) -> Self {
        SearchControl {
            stop: AtomicBool::new(false),
            released: AtomicBool::new(false),
            pondering: AtomicBool::new(limits.ponder),
            infinite: limits.infinite,
            budget: TimeBudget::new(limits, turn, overhead),
            node_limit: limits.nodes,
            nodes: AtomicU64::new(0),
            tb_hits: AtomicU64::new(0),
            origin: Instant::now(),
            clock_start_us: AtomicU64::new(0),
            release_lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Controls with no limits at all (a caller stops the search itself).
    pub fn unlimited() -> Self {
        Self::new(&Limits::default(), Color::White, Duration::ZERO)
    }

    /// The GUI's `stop`: every search thread finishes, and `bestmove` is due at once even
    /// in infinite or ponder mode.
    pub fn stop(&self) {
        self.released.store(true, Ordering::Release);
        self.finish();
    }

    /// The search itself decided to end (a limit was reached, or the main thread is done
    /// and its helpers must follow). Unlike [`stop`](Self::stop) this does not release a
    /// `bestmove` held for infinite or ponder mode.
    pub fn finish(&self) {
        self.stop.store(true, Ordering::Release);
        self.notify();
    }

    /// True once the search has been told to stop (or decided to).
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// True when the search will hand over its result without another word from the GUI:
    /// `stop` came, or the search ended by itself and holds nothing back (an infinite or
    /// pondering search waits for `stop` or `ponderhit`). A new `go` may wait for it.
    pub fn ending(&self) -> bool {
        self.stopped() && !self.holds_answer()
    }

    /// An infinite or pondering search keeps its result until `stop` (or `ponderhit`).
    fn holds_answer(&self) -> bool {
        !self.released.load(Ordering::Acquire) && (self.infinite || self.pondering())
    }

    /// The opponent played the expected move: the clock starts now.
    pub fn ponderhit(&self) {
        let now = self.origin.elapsed().as_micros() as u64;
        self.clock_start_us.store(now, Ordering::Release);
        self.pondering.store(false, Ordering::Release);
        self.notify();
    }

    /// True while pondering (time limits do not run).
    #[inline]
    pub fn pondering(&self) -> bool {
        self.pondering.load(Ordering::Acquire)
    }

    /// Time on our clock so far.
    pub fn elapsed(&self) -> Duration {
        let start = Duration::from_micros(self.clock_start_us.load(Ordering::Acquire));
        self.origin.elapsed().saturating_sub(start)
    }

    /// The time budget computed from the limits.
    pub fn budget(&self) -> TimeBudget {
        self.budget
    }

    /// The hard limit is reached: a running iteration must be abandoned.
    pub fn hard_limit_reached(&self) -> bool {
        !self.pondering() && self.budget.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// The soft target is reached: no new iteration should start.
    pub fn soft_limit_reached(&self) -> bool {
        self.scaled_soft_limit_reached(100)
    }

    /// The soft target, scaled to `percent` of itself (within the hard limit), is reached.
    /// Only a target set by the clock, below its hard limit, scales: a `movetime` is the
    /// user's to spend.
    pub fn scaled_soft_limit_reached(&self, percent: u32) -> bool {
        let Some(soft) = self.budget.soft else {
            return false;
        };
        let target = match self.clock_hard_limit() {
            Some(hard) => (soft * percent / 100).min(hard),
            None => soft,
        };
        !self.pondering() && self.elapsed() >= target
    }

    /// The hard limit of a budget the clock set, whose soft target lies below it; `None`
    /// for a `movetime` (soft and hard alike) or no time limit.
    fn clock_hard_limit(&self) -> Option<Duration> {
        match (self.budget.soft, self.budget.hard) {
            (Some(soft), Some(hard)) if soft < hard => Some(hard),
            _ => None,
        }
    }

    /// A further iteration expected to take `next` would still be running at the hard
    /// limit. A backend that throws a cut iteration away spends that time for nothing, and
    /// one that starts such iterations move after move pays the hard limit every move and
    /// plays much of a game on a nearly empty clock. Only a clock's budget (soft below
    /// hard) is spared so; a `movetime` is the user's to spend.
    pub fn next_iteration_would_be_cut(&self, next: Duration) -> bool {
        self.clock_hard_limit()
            .is_some_and(|hard| !self.pondering() && self.elapsed() + next > hard)
    }

    /// Adds to the node count of all threads; returns true when the node budget is spent.
    #[inline]
    pub fn add_nodes(&self, n: u64) -> bool {
        let total = self.nodes.fetch_add(n, Ordering::Relaxed) + n;
        self.node_limit.is_some_and(|limit| total >= limit)
    }

    /// Nodes counted so far by [`add_nodes`](Self::add_nodes).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// A position settled by the endgame tables.
    pub fn add_tb_hit(&self) {
        self.tb_hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Positions settled by the endgame tables so far.
    pub fn tb_hits(&self) -> u64 {
        self.tb_hits.load(Ordering::Relaxed)
    }

    /// The node budget, if any.
    pub fn node_limit(&self) -> Option<u64> {
        self.node_limit
    }

    /// The search must not report `bestmove` before `stop` (infinite) or, while pondering,
    /// before `ponderhit` or `stop`. Blocks until that holds.
    pub fn wait_until_released(&self) {
        let Ok(mut guard) = self.release_lock.lock() else {
            return;
        };
        while self.holds_answer() {
            match self.wake.wait_timeout(guard, Duration::from_millis(50)) {
                Ok((g, _)) => guard = g,
                Err(_) => return,
            }
        }
    }

    fn notify(&self) {
        // Taking the lock orders the flag change before the waiter's re-check.
        drop(self.release_lock.lock());
        self.wake.notify_all();
    }
}

/// How many nodes a thread searches between looks at the shared control: small enough that
/// `stop` is obeyed within a fraction of a millisecond, large enough to cost nothing.
pub const POLL_INTERVAL: u64 = 1024;

/// A search thread's view of the control: it adds the thread's nodes to the shared count in
/// batches, and tells the thread when to stop. Only the main thread (which owns the clock)
/// stops the search on time; any thread on nodes; every thread obeys the flag.
#[derive(Debug)]
pub struct Poller<'a> {
    control: &'a SearchControl,
    main: bool,
    counted: u64,
    interval: u64,
}

impl<'a> Poller<'a> {
    pub fn new(control: &'a SearchControl, main: bool) -> Self {
        // A node budget is obeyed to the node: look at every node.
        let interval = if control.node_limit.is_some() {
            1
        } else {
            POLL_INTERVAL
        };
        Poller {
            control,
            main,
            counted: 0,
            interval,
        }
    }

    /// `nodes` is this thread's node count so far; true means stop now.
    #[inline]
    pub fn poll(&mut self, nodes: u64) -> bool {
        if nodes - self.counted < self.interval {
            return false;
        }
        self.flush(nodes)
    }

    /// Adds the uncounted nodes to the shared count and checks every limit.
    pub fn flush(&mut self, nodes: u64) -> bool {
        let fresh = nodes - self.counted;
        self.counted = nodes;
        let out_of_nodes = fresh > 0 && self.control.add_nodes(fresh);
        if self.control.stopped() {
            return true;
        }
        // The budget is everyone's, so any thread that spends it ends the search: left to
        // the main thread, helpers went on for as long as it was off its core (with more
        // threads than cores, `go nodes 1000` searched up to 5,600).
        if out_of_nodes || (self.main && self.control.hard_limit_reached()) {
            self.control.finish();
            return true;
        }
        false
    }

    /// The shared control.
    pub fn control(&self) -> &'a SearchControl {
        self.control
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_main_thread_still_stops_its_helpers() {
        let control = SearchControl::unlimited();
        let helper_saw_stop = AtomicBool::new(false);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::thread::scope(|scope| {
                let _helpers_stop = Finally(|| control.finish());
                scope.spawn(|| {
                    // Bounded, so that a failure is a red test rather than a hung one.
                    let until = Instant::now() + Duration::from_secs(10);
                    while !control.stopped() && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    helper_saw_stop.store(control.stopped(), Ordering::Relaxed);
                });
                std::panic::panic_any("the main thread's search fails");
            })
        }));
        assert!(outcome.is_err(), "the panic still reaches the caller");
        assert!(helper_saw_stop.load(Ordering::Relaxed));
    }

    #[test]
    fn a_panicking_helper_is_contained_and_a_working_one_returns_its_value() {
        std::thread::scope(|scope| {
            let broken = scope.spawn(|| {
                contained("test", || -> u32 {
                    std::panic::panic_any("a bug in a helper")
                })
            });
            let working = scope.spawn(|| contained("test", || 7));
            // Both joins succeed: the scope, and the main thread's result, survive.
            assert_eq!(broken.join().ok(), Some(None));
            assert_eq!(working.join().ok(), Some(Some(7)));
        });
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn sudden_death_budget_leaves_time_for_the_rest_of_the_game() {
        let limits = Limits {
            wtime: Some(ms(1000)),
            winc: Some(ms(10)),
            ..Limits::default()
        };
        let b = TimeBudget::new(&limits, Color::White, ms(10));
        let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
        assert!(soft <= hard);
        assert!(hard <= ms(400), "hard {hard:?}");
        assert!(soft >= ms(20), "soft {soft:?}");
    }

    #[test]
    fn without_an_increment_the_overhead_of_the_moves_to_come_is_kept_back() {
        let clock = |inc: u64| Limits {
            wtime: Some(ms(1000)),
            winc: Some(ms(inc)),
            ..Limits::default()
        };
        let soft = |inc: u64| {
            let b = TimeBudget::new(&clock(inc), Color::White, ms(10));
            b.soft.unwrap()
        };
        // 1+0: (1000 − 10 − 30 × 2.5 ms) over 30 moves, 30.5 ms a move instead of 33.
        assert_eq!(soft(0), Duration::from_micros(30_500));
        // An increment as large as a move's latency pays it back: (1000 − 10) / 30 plus
        // three quarters of the increment.
        assert_eq!(soft(3), ms(33) + Duration::from_micros(2250));
        // A clock that holds no more than the reserve plays at the floor...
        let low = |t: u64| {
            let clock = Limits {
                wtime: Some(ms(t)),
                ..Limits::default()
            };
            let b = TimeBudget::new(&clock, Color::White, ms(10));
            (b.soft.unwrap(), b.hard.unwrap())
        };
        assert_eq!(low(85), (ms(1), ms(1)));
        assert_eq!(low(70), (ms(1), ms(1)));
        // ...until that is more than a share of the clock: (40 − 10) ms over 60 moves.
        assert_eq!(low(40), (Duration::from_micros(500), ms(1)));
        // With no more than the overhead left, the first iteration's move.
        assert_eq!(low(10), (Duration::ZERO, ms(1)));
    }

    #[test]
    fn only_on_the_clock_is_an_iteration_that_would_be_cut_left_unstarted() {
        let on = |limits: Limits| SearchControl::new(&limits, Color::White, ms(10));
        let clock = on(Limits {
            wtime: Some(ms(10_000)),
            ..Limits::default()
        });
        assert!(clock.next_iteration_would_be_cut(Duration::from_secs(3600)));
        assert!(!clock.next_iteration_would_be_cut(Duration::ZERO));
        let movetime = on(Limits {
            movetime: Some(ms(10_000)),
            ..Limits::default()
        });
        assert!(!movetime.next_iteration_would_be_cut(Duration::from_secs(3600)));
        let pondering = on(Limits {
            wtime: Some(ms(10_000)),
            ponder: true,
            ..Limits::default()
        });
        assert!(!pondering.next_iteration_would_be_cut(Duration::from_secs(3600)));
    }

    #[test]
    fn nearly_flagged_still_gets_a_positive_budget() {
        let limits = Limits {
            btime: Some(ms(3)),
            ..Limits::default()
        };
        let b = TimeBudget::new(&limits, Color::Black, ms(10));
        assert_eq!(b.hard, Some(ms(1)));
    }

    #[test]
    fn movetime_and_clock_combine_to_the_smaller() {
        let limits = Limits {
            movetime: Some(ms(5000)),
            wtime: Some(ms(1000)),
            ..Limits::default()
        };
        let b = TimeBudget::new(&limits, Color::White, ms(0));
        assert!(b.hard.unwrap() <= ms(400));
    }

    #[test]
    fn only_a_clock_target_scales() {
        let movetime = Limits {
            movetime: Some(ms(5000)),
            ..Limits::default()
        };
        let clock = Limits {
            wtime: Some(ms(60_000)),
            ..Limits::default()
        };
        let fixed = SearchControl::new(&movetime, Color::White, ms(0));
        let flexible = SearchControl::new(&clock, Color::White, ms(0));
        std::thread::sleep(ms(30));
        // 1% of a 2-second target has passed; a movetime is spent in full all the same.
        assert!(!fixed.scaled_soft_limit_reached(1));
        assert!(flexible.scaled_soft_limit_reached(1));
        assert!(!flexible.scaled_soft_limit_reached(100));
    }

    #[test]
    fn node_budget_is_obeyed_to_the_node() {
        let control = SearchControl::new(&Limits::nodes(10), Color::White, ms(0));
        let mut poller = Poller::new(&control, true);
        let stopped_at = (1..100).find(|&n| poller.poll(n));
        assert_eq!(stopped_at, Some(10));
        assert!(control.stopped());
    }

    #[test]
    fn any_thread_that_spends_the_node_budget_ends_the_search() {
        let control = SearchControl::new(&Limits::nodes(10), Color::White, ms(0));
        let mut main = Poller::new(&control, true);
        let mut helper = Poller::new(&control, false);
        assert!(!main.poll(4));
        // The main thread is off its core: the helper's sixth node spends the budget.
        assert_eq!((1..100).find(|&n| helper.poll(n)), Some(6));
        assert!(control.stopped());
        assert!(main.poll(5));
        assert_eq!(control.nodes(), 11);
    }

    #[test]
    fn infinite_waits_for_stop() {
        let limits = Limits {
            infinite: true,
            ..Limits::default()
        };
        let control = std::sync::Arc::new(SearchControl::new(&limits, Color::White, ms(0)));
        let c2 = control.clone();
        let waiter = std::thread::spawn(move || c2.wait_until_released());
        std::thread::sleep(ms(20));
        assert!(!waiter.is_finished());
        // The search finishing on its own does not release the answer...
        control.finish();
        std::thread::sleep(ms(20));
        assert!(!waiter.is_finished());
        // ...the GUI's stop does.
        control.stop();
        waiter.join().unwrap();
    }
}
