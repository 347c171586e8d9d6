//! Critical levels (Understanding Sampling-Based Adversarial Search Methods (2012) §5.2):
//! on binary trees where MAX must choose correctly at implanted critical depths, the
//! iterations UCT and UCTMAX-H need until the root value stays at or above τ, as a
//! function of the critical depths.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::plot::{Series, exponential_fit, line_chart};
use super::trees::ExperimentError;
use crate::search::uct::arena::Arena;
use crate::search::uct::parallel::{SLOT_BLOCK, SharedSearcher};
use crate::search::uct::playout::{LeafEstimate, Scale};
use crate::search::uct::search::{Backup, Config, Searcher};
use crate::search::uct::shared::SharedArena;
use crate::tree::Rng;
use crate::tree::critical::CriticalTree;

/// The τ-convergence point of one search: the first iteration from which the root value
/// stays at or above `tau` until `max_iterations`; `None` if it is below at the end.
pub fn convergence_point(
    mut tree: CriticalTree,
    config: Config,
    tau: f32,
    max_iterations: u64,
    seed: u64,
) -> Option<u64> {
    let root = tree.root();
    // A node per iteration, and room for the runs of slots a binary tree's nodes leave
    // behind as they grow (each holds its first child alone until the second comes).
    let bytes = 2 * (max_iterations as usize + 2) * Arena::<u32>::node_size();
    let mut s = Searcher::new(Arena::with_memory(bytes), config, seed);
    s.prepare(&mut tree, &root, 0);
    let mut last_below = 0;
    for t in 1..=max_iterations {
        s.iterate(&mut tree, &root);
        if s.root_value() < tau {
            last_below = t;
        }
    }
    (last_below < max_iterations).then_some(last_below + 1)
}

/// The τ-convergence point of `threads` threads iterating together on one shared tree
/// (`UCT_Parallel tree`: virtual loss, each move added once). Iterations are counted over
/// all threads; each thread reads the root value right after its iteration, and the point
/// is the first count from which every such reading stayed at or above `tau`. With one
/// thread it is [`convergence_point`] on the shared tree's code.
pub fn convergence_point_shared(
    tree: CriticalTree,
    config: Config,
    tau: f32,
    max_iterations: u64,
    seed: u64,
    threads: usize,
) -> Option<u64> {
    let root = tree.root();
    let nodes = max_iterations as usize + 2 + threads * SLOT_BLOCK;
    let arena = SharedArena::with_memory(nodes * SharedArena::<u32>::node_size());
    SharedSearcher::new(&arena, config, seed).prepare(&mut tree.clone(), &root, 0);
    let (next, last_below) = (AtomicU64::new(0), AtomicU64::new(0));
    std::thread::scope(|scope| {
        for i in 0..threads as u64 {
            let (arena, next, last_below, root) = (&arena, &next, &last_below, &root);
            let mut tree = tree.clone();
            scope.spawn(move || {
                let mut s = SharedSearcher::new(arena, config, seed.wrapping_mul(64) + i);
                loop {
                    let t = next.fetch_add(1, Relaxed) + 1;
                    if t > max_iterations {
                        break;
                    }
                    s.iterate(&mut tree, root);
                    if s.view().root_value() < tau {
                        last_below.fetch_max(t, Relaxed);
                    }
                }
            });
        }
    });
    let last_below = last_below.into_inner();
    (last_below < max_iterations).then_some(last_below + 1)
}

/// A UCT configuration for the critical trees: no evaluator there, so a new node is valued
/// by one random descent to a leaf, whatever the backup rule.
pub fn config(c: f32, backup: Backup) -> Config {
    Config {
        c,
        backup,
        solver: false,
        leaf: LeafEstimate::Heuristic,
        scale: Scale::Linear(1.0),
    }
}

/// The experiment's settings.
#[derive(Debug, Clone, Copy)]
pub struct CriticalSpec {
    pub height: u32,
    /// A first critical level at this depth; the second varies over the even depths below
    /// the height. Without it, a single critical level varies.
    pub first: Option<u32>,
    pub seeds: u64,
    pub max_iterations: u64,
    pub tau: f32,
    pub c: f32,
    /// Threads on one shared tree; 1 is the thesis' single search on a tree of its own.
    pub threads: usize,
}

impl CriticalSpec {
    /// The depths the varying level takes.
    pub fn depths(&self) -> Vec<u32> {
        match self.first {
            Some(first) => (first + 2..self.height).step_by(2).collect(),
            None => (0..self.height).step_by(2).collect(),
        }
    }
}

/// One configuration: an algorithm, the critical levels, and the runs' convergence points.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalRow {
    pub algorithm: &'static str,
    pub levels: Vec<u32>,
    /// The varying level's depth.
    pub depth: u32,
    /// Per seed, the convergence point (`None`: not converged).
    pub runs: Vec<Option<u64>>,
}

impl CriticalRow {
    /// The median of the converged runs.
    pub fn median(&self) -> Option<u64> {
        let mut converged: Vec<u64> = self.runs.iter().flatten().copied().collect();
        converged.sort_unstable();
        converged.get(converged.len() / 2).copied()
    }

    pub fn converged(&self) -> usize {
        self.runs.iter().flatten().count()
    }
}

/// A seed per run, well mixed.
pub fn run_seed(base: u64, run: u64) -> u64 {
    Rng::new(base ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// UCT and UCTMAX-H over every depth of the varying level; `on_row` sees each row when
/// it is done, `on_progress(done, total)` each finished run (every run is
/// `max_iterations` long, so runs are a fair unit of the work).
pub fn critical(
    spec: &CriticalSpec,
    mut on_row: impl FnMut(&CriticalRow),
    mut on_progress: impl FnMut(u64, u64),
) -> Result<Vec<CriticalRow>, ExperimentError> {
    let depths = spec.depths();
    if depths.is_empty() {
        return Err(ExperimentError::Shape(format!(
            "no critical depth fits below height {}",
            spec.height
        )));
    }
    let mut rows = Vec::new();
    let total = 2 * depths.len() as u64 * spec.seeds;
    let mut done = 0;
    for (algorithm, backup) in [("UCT", Backup::Average), ("UCTMAX-H", Backup::Minimax)] {
        for &depth in &depths {
            let levels: Vec<u32> = spec.first.into_iter().chain([depth]).collect();
            let mut runs = Vec::new();
            for seed in 0..spec.seeds {
                let tree = CriticalTree::new(spec.height, &levels, run_seed(7, seed))
                    .map_err(|e| ExperimentError::Shape(e.0))?;
                let cfg = config(spec.c, backup);
                let (tau, max) = (spec.tau, spec.max_iterations);
                runs.push(if spec.threads > 1 {
                    convergence_point_shared(tree, cfg, tau, max, seed + 1, spec.threads)
                } else {
                    convergence_point(tree, cfg, tau, max, seed + 1)
                });
                done += 1;
                on_progress(done, total);
            }
            let row = CriticalRow {
                algorithm,
                levels,
                depth,
                runs,
            };
            on_row(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// Per algorithm, the median iterations against the varying depth.
pub fn series(rows: &[CriticalRow]) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for r in rows {
        if out.last().is_none_or(|s| s.name != r.algorithm) {
            out.push(Series {
                name: r.algorithm.to_string(),
                points: Vec::new(),
            });
        }
        if let (Some(m), Some(s)) = (r.median(), out.last_mut()) {
            s.points.push((f64::from(r.depth), m as f64));
        }
    }
    out
}

/// The fit `iterations ~ a * base^(d/2)` of a series as `(a, base)`: the base per two
/// plies, as Ramanujan (2012) fits it.
pub fn fit(series: &Series) -> Option<(f64, f64)> {
    let halves: Vec<(f64, f64)> = series.points.iter().map(|&(d, y)| (d / 2.0, y)).collect();
    exponential_fit(&halves).map(|(a, base, _)| (a, base))
}

/// The medians as an SVG line chart on a log scale.
pub fn chart(spec: &CriticalSpec, series: &[Series]) -> String {
    let x_label = match spec.first {
        Some(f) => format!("depth of the second critical level (first at {f})"),
        None => "depth of the critical level".to_string(),
    };
    let title = format!(
        "Iterations until the root value stays >= {} (binary trees, height {})",
        spec.tau, spec.height
    );
    line_chart(
        &title,
        &x_label,
        "median iterations (log scale)",
        series,
        true,
    )
}

/// Every run as CSV: `algorithm,levels,seed,iterations` (empty when not converged).
pub fn critical_csv(rows: &[CriticalRow]) -> String {
    let mut csv = String::from("algorithm,levels,seed,iterations\n");
    for r in rows {
        let levels: Vec<String> = r.levels.iter().map(u32::to_string).collect();
        for (seed, t) in r.runs.iter().enumerate() {
            let _ = writeln!(
                csv,
                "{},{},{seed},{}",
                r.algorithm,
                levels.join(" "),
                t.map_or(String::new(), |t| t.to_string())
            );
        }
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uct_converges_on_a_shallow_critical_tree_and_later_on_a_deeper_one() {
        let cfg = config(0.4, Backup::Average);
        let shallow = CriticalTree::new(10, &[0, 2], 1).unwrap();
        let deep = CriticalTree::new(10, &[0, 8], 1).unwrap();
        let a = convergence_point(shallow, cfg, 0.7, 100_000, 1).unwrap();
        let b = convergence_point(deep, cfg, 0.7, 100_000, 1).unwrap();
        assert!(a < b, "{a} vs {b}");
    }

    /// The shared tree with four threads still finds the implanted strategy, and needs
    /// more iterations for a deeper critical level, as one thread does. One tree and one
    /// run say little: the point scatters by orders of magnitude from seed to seed (one
    /// thread too, and there a shallow level is sometimes the slower), and the threads'
    /// interleaving makes each run differ. So the medians over eight trees are compared,
    /// a run that never settles counting as the slowest.
    #[test]
    fn a_shared_tree_converges_with_four_threads() {
        const SEEDS: u64 = 8;
        for backup in [Backup::Average, Backup::Minimax] {
            let cfg = config(0.4, backup);
            let median = |second: u32| {
                let mut points: Vec<u64> = (1..=SEEDS)
                    .map(|seed| {
                        let tree = CriticalTree::new(10, &[0, second], seed).unwrap();
                        convergence_point_shared(tree, cfg, 0.7, 100_000, seed, 4)
                            .unwrap_or(u64::MAX)
                    })
                    .collect();
                points.sort_unstable();
                points[points.len() / 2]
            };
            let (a, b) = (median(2), median(8));
            assert!(
                a < 100_000,
                "{backup:?}: the shallow trees do not converge ({a})"
            );
            assert!(a < b, "{backup:?}: medians {a} vs {b}");
        }
    }

    #[test]
    fn rows_cover_both_algorithms_and_every_depth() {
        let spec = CriticalSpec {
            height: 6,
            first: Some(0),
            seeds: 2,
            max_iterations: 2_000,
            tau: 0.7,
            c: 0.4,
            threads: 1,
        };
        assert_eq!(spec.depths(), [2, 4]);
        let mut progress = Vec::new();
        let rows = critical(&spec, |_| {}, |done, total| progress.push((done, total))).unwrap();
        assert_eq!(progress, (1..=8).map(|d| (d, 8)).collect::<Vec<_>>());
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].levels, [0, 2]);
        assert_eq!(rows[3].algorithm, "UCTMAX-H");
        assert!(rows.iter().all(|r| r.runs.len() == 2));
        assert_eq!(critical_csv(&rows).lines().count(), 1 + 8);
        let s = series(&rows);
        assert_eq!(s.len(), 2);
        assert!(chart(&spec, &s).starts_with("<svg"));
        let none = CriticalSpec { height: 2, ..spec };
        assert!(critical(&none, |_| {}, |_, _| {}).is_err());
    }
}
