//! The papers' experiments on synthetic trees, and the chess comparison:
//! - growth: leaves evaluated against tree height on uniform random trees, per algorithm,
//!   with a fit `a * base^h` (Rollout-based Game-tree Search (2012) §4, Figure 1a);
//! - parity: on {0,1}-valued binary trees, the share of trees where FSSS and MT-SSS*
//!   evaluate strictly fewer leaves than alpha-beta, by height (its Figure 1b);
//! - chess: nodes, leaf evaluations and time of the chess backends to a fixed depth on
//!   the bench positions (and as CSV).

use crate::board::eval::RESEARCH_EVAL;
use std::fmt::Write as _;
use std::time::Instant;

use thiserror::Error;

use super::bench::{BenchTotals, bench};
use super::csv;
use super::plot::{Series, bar_chart, exponential_fit, line_chart};
use super::solve::{Algorithm, NAMES, solve};
use crate::engine::EngineError;
use crate::search::research::bounds::MapBounds;
use crate::search::research::mt::{Driver, TestProcedure};
use crate::tree::rng::hash;
use crate::tree::{GameTree, RandomTree, ValueRange};

/// Why an experiment cannot run as asked.
#[derive(Debug, Error)]
pub enum ExperimentError {
    #[error("unknown algorithm '{0}' (known: {known})", known = NAMES.join(", "))]
    UnknownAlgorithm(String),
    #[error("{0}")]
    Shape(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// One measured run of an algorithm on a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    pub value: i32,
    pub leaves: u64,
    pub nodes: u64,
    pub micros: u128,
}

/// Solves a copy of `tree` with `algorithm` on unlimited storage.
pub fn measure(algorithm: Algorithm, tree: &RandomTree) -> Measure {
    let mut t = tree.clone();
    let root = t.root();
    let start = Instant::now();
    let value = solve(algorithm, &mut t, &root, &mut MapBounds::default());
    Measure {
        value,
        leaves: t.leaves().count(),
        nodes: t.nodes(),
        micros: start.elapsed().as_micros(),
    }
}

/// A comma-separated list of algorithm names.
pub fn parse_algorithms(list: &str) -> Result<Vec<(String, Algorithm)>, ExperimentError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            Algorithm::parse(name, 1, 1000)
                .map(|a| (name.to_string(), a))
                .ok_or_else(|| ExperimentError::UnknownAlgorithm(name.to_string()))
        })
        .collect()
}

/// The seed of tree `i` of height `h`.
pub fn tree_seed(base: u64, h: u32, i: u64) -> u64 {
    hash(base ^ (u64::from(h) << 32) ^ i)
}

/// The trees of the growth experiment.
#[derive(Debug, Clone, Copy)]
pub struct GrowthSpec {
    pub branching: u32,
    pub min_height: u32,
    pub max_height: u32,
    pub trees: u64,
    pub range: ValueRange,
    pub seed: u64,
}

/// A fit `a * base^h` as `(a, base, r²)`.
pub type Fit = (f64, f64, f64);

/// What the growth experiment measured.
#[derive(Debug, Clone, Default)]
pub struct Growth {
    /// One CSV row per (algorithm, tree): `algorithm,b,h,range,seed,value,leaves,nodes,time_us`.
    pub csv: String,
    /// Per algorithm, `(h, mean leaves)`.
    pub means: Vec<(String, Vec<(f64, f64)>)>,
}

impl Growth {
    /// Mean leaves against height, one line per algorithm, on a log scale (SVG).
    pub fn chart(&self, spec: &GrowthSpec) -> String {
        let series: Vec<Series> = self
            .means
            .iter()
            .map(|(name, points)| Series {
                name: name.clone(),
                points: points.clone(),
            })
            .collect();
        let title = format!(
            "Leaves evaluated vs height (b={}, {} values, mean of {})",
            spec.branching, spec.range, spec.trees
        );
        line_chart(&title, "height h", "leaves (log scale)", &series, true)
    }

    /// Per algorithm, the fit of its means.
    pub fn fits(&self) -> Vec<(String, Option<Fit>)> {
        self.means
            .iter()
            .map(|(name, points)| (name.clone(), exponential_fit(points)))
            .collect()
    }
}

/// Leaves evaluated per algorithm and height. `on_height` sees each height's means as
/// soon as they are known; `on_progress(done, total)` follows the work after every tree,
/// counted in leaves of the trees searched (`b^h` a tree and algorithm), because the
/// last heights hold nearly all of it and a count of trees would stall near the end.
pub fn growth(
    spec: &GrowthSpec,
    algorithms: &[(String, Algorithm)],
    mut on_height: impl FnMut(u32, &[f64]),
    mut on_progress: impl FnMut(u64, u64),
) -> Result<Growth, ExperimentError> {
    if spec.branching < 2
        || f64::from(spec.max_height) * f64::from(spec.branching).log2() > 40.0
        || spec.min_height > spec.max_height
    {
        return Err(ExperimentError::Shape(
            "tree too large or heights out of order (b^h must stay below 2^40)".into(),
        ));
    }
    let mut out = Growth {
        csv: String::from("algorithm,b,h,range,seed,value,leaves,nodes,time_us\n"),
        means: algorithms
            .iter()
            .map(|(n, _)| (n.clone(), Vec::new()))
            .collect(),
    };
    let size = |h: u32| u64::from(spec.branching).pow(h);
    let per_tree = algorithms.len() as u64;
    let work = (spec.min_height..=spec.max_height)
        .map(|h| size(h).saturating_mul(per_tree).saturating_mul(spec.trees))
        .fold(0, u64::saturating_add);
    let mut done = 0;
    for h in spec.min_height..=spec.max_height {
        let mut row = Vec::with_capacity(algorithms.len());
        for (k, (name, alg)) in algorithms.iter().enumerate() {
            let mut total = 0u64;
            for i in 0..spec.trees {
                let seed = tree_seed(spec.seed, h, i);
                let tree = RandomTree::new(spec.branching, h, spec.range, seed);
                let m = measure(*alg, &tree);
                total += m.leaves;
                let _ = writeln!(
                    out.csv,
                    "{name},{},{h},{},{seed},{},{},{},{}",
                    spec.branching, spec.range, m.value, m.leaves, m.nodes, m.micros
                );
                done += size(h);
                on_progress(done, work);
            }
            let mean = total as f64 / spec.trees.max(1) as f64;
            out.means[k].1.push((f64::from(h), mean));
            row.push(mean);
        }
        on_height(h, &row);
    }
    Ok(out)
}

/// One height of the parity experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParityRow {
    pub h: u32,
    pub trees: u64,
    /// Trees where FSSS, MT-SSS* evaluated strictly fewer leaves than alpha-beta.
    pub fsss_fewer: u64,
    pub sss_fewer: u64,
}

impl ParityRow {
    pub fn odd(&self) -> bool {
        self.h % 2 == 1
    }

    /// Percent of the trees where FSSS, MT-SSS* evaluated fewer leaves.
    pub fn shares(&self) -> (f64, f64) {
        let n = self.trees.max(1) as f64;
        (
            100.0 * self.fsss_fewer as f64 / n,
            100.0 * self.sss_fewer as f64 / n,
        )
    }
}

/// The rows of odd (or even) heights added up (`h` is that of the last), if there are any.
pub fn parity_total(rows: &[ParityRow], odd: bool) -> Option<ParityRow> {
    rows.iter()
        .filter(|r| r.odd() == odd)
        .copied()
        .reduce(|a, b| ParityRow {
            h: b.h,
            trees: a.trees + b.trees,
            fsss_fewer: a.fsss_fewer + b.fsss_fewer,
            sss_fewer: a.sss_fewer + b.sss_fewer,
        })
}

/// The shares by height as an SVG bar chart.
pub fn parity_chart(rows: &[ParityRow]) -> String {
    let categories: Vec<String> = rows.iter().map(|r| r.h.to_string()).collect();
    let series = |name: &str, share: fn(&ParityRow) -> f64| Series {
        name: name.into(),
        points: rows.iter().map(|r| (f64::from(r.h), share(r))).collect(),
    };
    bar_chart(
        "% of {0,1} binary trees with strictly fewer leaves than alpha-beta, by height",
        "% of trees",
        &categories,
        &[
            series("FSSS", |r| r.shares().0),
            series("MT-SSS*", |r| r.shares().1),
        ],
    )
}

/// FSSS and MT-SSS* against alpha-beta on {0,1} binary trees, height by height.
pub fn parity(
    heights: std::ops::RangeInclusive<u32>,
    trees: u64,
    seed: u64,
    mut on_row: impl FnMut(&ParityRow),
) -> Result<Vec<ParityRow>, ExperimentError> {
    if *heights.end() > 30 || heights.is_empty() {
        return Err(ExperimentError::Shape(
            "heights must be ordered and at most 30".into(),
        ));
    }
    let fsss = Algorithm::Fsss { restart: false };
    let sss = Algorithm::Mt(Driver::Sss, TestProcedure::Double);
    let mut rows = Vec::new();
    for h in heights {
        let mut row = ParityRow {
            h,
            trees,
            fsss_fewer: 0,
            sss_fewer: 0,
        };
        for i in 0..trees {
            let tree = RandomTree::new(2, h, ValueRange::Binary, tree_seed(seed, h, i));
            let base = measure(Algorithm::AlphaBeta, &tree).leaves;
            row.fsss_fewer += u64::from(measure(fsss, &tree).leaves < base);
            row.sss_fewer += u64::from(measure(sss, &tree).leaves < base);
        }
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The parity rows as CSV.
pub fn parity_csv(rows: &[ParityRow]) -> String {
    let mut csv = String::from("h,parity,trees,fsss_fewer,sss_fewer,fsss_share,sss_share\n");
    for r in rows {
        let n = r.trees.max(1) as f64;
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{:.4},{:.4}",
            r.h,
            if r.odd() { "odd" } else { "even" },
            r.trees,
            r.fsss_fewer,
            r.sss_fewer,
            r.fsss_fewer as f64 / n,
            r.sss_fewer as f64 / n
        );
    }
    csv
}

/// One backend's totals on the bench positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChessRow {
    pub backend: String,
    pub totals: BenchTotals,
}

/// The chess backends to `depth` on the bench positions, one after the other; `on_row`
/// sees each backend's row as soon as it is done.
pub fn chess(
    backends: &[&str],
    depth: u32,
    hash_mb: u32,
    mut on_row: impl FnMut(&ChessRow),
) -> Result<Vec<ChessRow>, ExperimentError> {
    let mut rows = Vec::with_capacity(backends.len());
    for &name in backends {
        let totals = bench(name, RESEARCH_EVAL, depth, hash_mb, |_, _, _, _| {})?;
        let row = ChessRow {
            backend: name.to_string(),
            totals,
        };
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The chess rows as CSV: `backend,depth,nodes,leaves,time_ms`. `leaves` is empty for a
/// backend that does not count its leaf evaluations (`pvs`), rather than a false 0.
pub fn chess_csv(rows: &[ChessRow], depth: u32) -> String {
    let mut out = csv::row(&["backend", "depth", "nodes", "leaves", "time_ms"]);
    for r in rows {
        let t = &r.totals;
        let leaves = if t.leaves == 0 {
            String::new()
        } else {
            t.leaves.to_string()
        };
        out.push_str(&csv::row(&[
            r.backend.clone(),
            depth.to_string(),
            t.nodes.to_string(),
            leaves,
            format!("{:.1}", t.time.as_secs_f64() * 1000.0),
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_measures_every_algorithm_at_every_height() {
        let algorithms = parse_algorithms("alphabeta, fsss").unwrap();
        let spec = GrowthSpec {
            branching: 2,
            min_height: 2,
            max_height: 5,
            trees: 3,
            range: ValueRange::Wide,
            seed: 1,
        };
        let mut heights = Vec::new();
        let mut progress = Vec::new();
        let g = growth(
            &spec,
            &algorithms,
            |h, means| {
                heights.push(h);
                // FSSS never evaluates more leaves than alpha-beta.
                assert!(means[1] <= means[0]);
            },
            |done, total| progress.push((done, total)),
        )
        .unwrap();
        // One report per tree and algorithm, rising to the whole: 2 * 3 * (4 + 8 + 16 + 32).
        assert_eq!(progress.len(), 4 * 2 * 3);
        assert!(progress.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(progress.last(), Some(&(360, 360)));
        assert_eq!(heights, [2, 3, 4, 5]);
        assert_eq!(g.csv.lines().count(), 1 + 4 * 2 * 3);
        // At height 2 alpha-beta evaluates between 3 and 4 leaves of 4.
        let (_, ab) = &g.means[0];
        assert!((3.0..=4.0).contains(&ab[0].1), "{ab:?}");
        assert!(g.fits().iter().all(|(_, fit)| fit.is_some()));
        assert!(parse_algorithms("alphabeta,nope").is_err());
        let too_big = GrowthSpec {
            max_height: 50,
            ..spec
        };
        assert!(growth(&too_big, &algorithms, |_, _| {}, |_, _| {}).is_err());
    }

    #[test]
    fn chess_csv_has_a_row_per_backend() {
        let rows = chess(&["alphabeta", "pvs"], 1, 1, |_| {}).unwrap();
        let csv = chess_csv(&rows, 1);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "backend,depth,nodes,leaves,time_ms");
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(lines[1].starts_with("alphabeta,1,"), "{csv}");
        // pvs counts no leaf evaluations: the field is empty.
        assert!(
            lines[2].starts_with("pvs,1,") && lines[2].contains(",,"),
            "{csv}"
        );
        assert!(chess(&["nope"], 1, 1, |_| {}).is_err());
    }

    #[test]
    fn parity_counts_are_shares_of_the_trees() {
        let rows = parity(1..=4, 20, 1, |_| {}).unwrap();
        assert_eq!(rows.len(), 4);
        for r in &rows {
            assert!(r.fsss_fewer <= r.trees && r.sss_fewer <= r.trees);
        }
        // A single MAX node over two leaves: every algorithm must see both.
        assert_eq!(rows[0].fsss_fewer, 0);
        assert_eq!(parity_csv(&rows).lines().count(), 5);
        let odd = parity_total(&rows, true).unwrap();
        assert_eq!((odd.trees, odd.h), (40, 3));
        assert!(parity_chart(&rows).starts_with("<svg"));
    }
}
