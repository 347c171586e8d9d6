//! The one worker pool: numbered jobs shared out over a few threads through a common
//! counter, results streamed back to the calling thread. Perft splits root moves with it,
//! `traps` analyses positions, `traps generate` plays games, and `match` plays its schedule.
//!
//! Each worker makes its own state once (an engine, a cache of running players) and keeps
//! it across its jobs; the state never crosses threads, so it need not be `Send`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Runs `work(state, i)` for every `i` in `0..jobs` on up to `threads` threads, each with its
/// own `init()` state. Every result is handed to `on_result(i, result)` on the calling
/// thread as soon as it is done; `on_result` returns false to stop handing out jobs (jobs
/// already under way still finish and are reported). With one thread everything runs on
/// the calling thread.
pub fn run<S, R, I, W, F>(jobs: usize, threads: usize, init: I, work: W, mut on_result: F)
where
    R: Send,
    I: Fn() -> S + Sync,
    W: Fn(&mut S, usize) -> R + Sync,
    F: FnMut(usize, R) -> bool,
{
    let threads = threads.min(jobs).max(1);
    if threads == 1 {
        let mut state = init();
        for i in 0..jobs {
            if !on_result(i, work(&mut state, i)) {
                break;
            }
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // A rendezvous channel: a worker hands over its result before it takes the next job,
    // so a refusal stops the pool within a job per worker.
    let (tx, rx) = crossbeam::channel::bounded::<(usize, R)>(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, init, work) = (&next, &stop, &init, &work);
            scope.spawn(move || {
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= jobs {
                        break;
                    }
                    if tx.send((i, work(&mut state, i))).is_err() {
                        break;
                    }
                }
            });
        }
        // The receiver ends once every worker has dropped its sender.
        drop(tx);
        for (i, result) in rx {
            if !on_result(i, result) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

/// `f` applied to every item on up to `threads` threads; the results in item order.
pub fn map<T, R, F>(items: &[T], threads: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let mut results: Vec<Option<R>> = Vec::with_capacity(items.len());
    results.resize_with(items.len(), || None);
    run(
        items.len(),
        threads,
        || (),
        |(), i| f(&items[i]),
        |i, r| {
            results[i] = Some(r);
            true
        },
    );
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_item_order_on_any_thread_count() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [1, 2, 7] {
            let squares = map(&items, threads, |&x| x * x);
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }

    #[test]
    fn each_worker_keeps_its_state_and_a_refusal_stops_new_jobs() {
        let mut seen = Vec::new();
        // State counts the jobs a worker did; with one worker it reaches the job count.
        run(
            10,
            1,
            || 0u32,
            |done, i| {
                *done += 1;
                (i, *done)
            },
            |_, r| {
                seen.push(r);
                r.0 < 4
            },
        );
        assert_eq!(seen, (0..5).map(|i| (i, i as u32 + 1)).collect::<Vec<_>>());
        let mut count = 0;
        run(
            1000,
            3,
            || (),
            |(), i| i,
            |_, _| {
                count += 1;
                count < 10
            },
        );
        // Each worker may hand over a finished job and finish one more after the refusal.
        assert!((10..=16).contains(&count), "{count}");
    }
}
