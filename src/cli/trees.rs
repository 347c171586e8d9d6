//! `searchlight trees`: the papers' experiments on synthetic trees, and the chess comparison.
//! - `growth`: leaves evaluated against tree height on uniform random trees, per algorithm,
//!   with a fit `a * base^h` (seed 000 §4, Figure 1a), as CSV and an SVG picture;
//! - `parity`: on {0,1}-valued binary trees, the share of trees where FSSS and MT-SSS*
//!   evaluate strictly fewer leaves than alpha-beta, by height parity (seed 000 Figure 1b);
//! - `chess`: nodes, leaf evaluations and time of the chess backends to fixed depths on the
//!   bench positions;
//! - `critical`: UCT and UCTMAX-H on trees with critical levels (thesis §5.2; in
//!   `critical.rs`).

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};

use crate::plot::{Series, bar_chart, exponential_fit, line_chart};
use crate::search::bounds::MapBounds;
use crate::search::solve::{Algorithm, NAMES, solve};
use crate::tree::{GameTree, RandomTree, ValueRange};

#[derive(Debug, Args)]
pub struct TreesArgs {
    #[command(subcommand)]
    pub experiment: Experiment,
}

#[derive(Debug, Subcommand)]
pub enum Experiment {
    /// Leaves evaluated vs height on uniform random trees, with exponential fits.
    Growth(GrowthArgs),
    /// Share of {0,1} binary trees where FSSS / MT-SSS* beat alpha-beta, by height parity.
    Parity(ParityArgs),
    /// Nodes, leaf evaluations and time of chess backends to a fixed depth (bench positions).
    Chess(ChessArgs),
    /// UCT and UCTMAX-H on binary trees with critical levels (thesis §5.2): iterations
    /// until the root value stays >= 0.7, as CSV, a table with fits, and an SVG chart.
    Critical(super::critical::CriticalArgs),
}

#[derive(Debug, Args)]
pub struct GrowthArgs {
    /// Comma-separated algorithms (see `--help` of `trees`; e.g. alphabeta,sss,fsss).
    #[arg(
        long,
        default_value = "alphabeta,sss,fsss,rollout-ab,rollout-sss,rollout-random,rollout-uct"
    )]
    pub algorithms: String,
    #[arg(long, default_value_t = 2)]
    pub branching: u32,
    #[arg(long, default_value_t = 2)]
    pub min_height: u32,
    #[arg(long, default_value_t = 16)]
    pub max_height: u32,
    /// Trees per height.
    #[arg(long, default_value_t = 50)]
    pub trees: u64,
    /// Leaf values: wide, binary or small:N.
    #[arg(long, default_value = "wide")]
    pub range: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write one CSV row per (algorithm, tree).
    #[arg(long, default_value = "trees-growth.csv")]
    pub csv: String,
    /// Where to write the picture.
    #[arg(long, default_value = "trees-growth.svg")]
    pub svg: String,
}

#[derive(Debug, Args)]
pub struct ParityArgs {
    #[arg(long, default_value_t = 1)]
    pub min_height: u32,
    #[arg(long, default_value_t = 14)]
    pub max_height: u32,
    /// Trees per height.
    #[arg(long, default_value_t = 500)]
    pub trees: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value = "trees-parity.csv")]
    pub csv: String,
    #[arg(long, default_value = "trees-parity.svg")]
    pub svg: String,
}

#[derive(Debug, Args)]
pub struct ChessArgs {
    /// Comma-separated backends.
    #[arg(
        long,
        default_value = "alphabeta,pvs,mtdf,sss,dual,mtd-step,fsss,rollout-ab,rollout-sss,rollout-random,rollout-uct"
    )]
    pub backends: String,
    /// Depth every position is searched to (iterative deepening up to it).
    #[arg(long, default_value_t = 4)]
    pub depth: u32,
    /// Bound storage / table size in MB.
    #[arg(long, default_value_t = 64)]
    pub hash: u32,
}

pub fn run(args: &TreesArgs) -> ExitCode {
    let outcome = match &args.experiment {
        Experiment::Growth(a) => growth(a),
        Experiment::Parity(a) => parity(a),
        Experiment::Chess(a) => chess(a),
        Experiment::Critical(a) => return super::critical::run(a),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trees: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One measured run of an algorithm on a tree.
struct Measure {
    value: i32,
    leaves: u64,
    nodes: u64,
    micros: u128,
}

fn measure(algorithm: Algorithm, tree: &RandomTree) -> Measure {
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

fn parse_algorithms(list: &str) -> Result<Vec<(String, Algorithm)>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            Algorithm::parse(name, 1, 1000)
                .map(|a| (name.to_string(), a))
                .ok_or_else(|| format!("unknown algorithm '{name}' (known: {})", NAMES.join(", ")))
        })
        .collect()
}

fn write_file(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))
}

fn tree_seed(base: u64, h: u32, i: u64) -> u64 {
    crate::tree::synthetic::splitmix(base ^ (u64::from(h) << 32) ^ i)
}

fn growth(args: &GrowthArgs) -> Result<(), String> {
    let algorithms = parse_algorithms(&args.algorithms)?;
    let range = ValueRange::parse(&args.range)?;
    if args.branching < 2
        || f64::from(args.max_height) * f64::from(args.branching).log2() > 40.0
        || args.min_height > args.max_height
    {
        return Err("tree too large or heights out of order (b^h must stay below 2^40)".into());
    }
    let mut csv = String::from("algorithm,b,h,range,seed,value,leaves,nodes,time_us\n");
    let mut means: Vec<Vec<(f64, f64)>> = vec![Vec::new(); algorithms.len()];
    println!(
        "mean leaves evaluated, b={} {range} leaves, {} trees per height",
        args.branching, args.trees
    );
    print!("{:>3}", "h");
    for (name, _) in &algorithms {
        print!(" {name:>14}");
    }
    println!();
    for h in args.min_height..=args.max_height {
        print!("{h:>3}");
        for (k, (name, alg)) in algorithms.iter().enumerate() {
            let mut total = 0u64;
            for i in 0..args.trees {
                let seed = tree_seed(args.seed, h, i);
                let tree = RandomTree::new(args.branching, h, range, seed);
                let m = measure(*alg, &tree);
                total += m.leaves;
                let _ = writeln!(
                    csv,
                    "{name},{},{h},{range},{seed},{},{},{},{}",
                    args.branching, m.value, m.leaves, m.nodes, m.micros
                );
            }
            let mean = total as f64 / args.trees.max(1) as f64;
            means[k].push((f64::from(h), mean));
            print!(" {mean:>14.1}");
        }
        println!();
    }
    println!("\nfit of mean leaves = a * base^h:");
    let mut series = Vec::new();
    for ((name, _), points) in algorithms.iter().zip(means) {
        match exponential_fit(&points) {
            Some((a, base, r2)) => {
                println!("  {name:<15} {a:.3} * {base:.4}^h   (r² {r2:.4})")
            }
            None => println!("  {name:<15} too few points to fit"),
        }
        series.push(Series {
            name: name.clone(),
            points,
        });
    }
    write_file(&args.csv, &csv)?;
    let title = format!(
        "Leaves evaluated vs height (b={}, {range} values, mean of {})",
        args.branching, args.trees
    );
    write_file(
        &args.svg,
        &line_chart(&title, "height h", "leaves (log scale)", &series, true),
    )?;
    println!("\nwrote {} and {}", args.csv, args.svg);
    Ok(())
}

fn parity(args: &ParityArgs) -> Result<(), String> {
    if args.max_height > 30 || args.min_height > args.max_height {
        return Err("heights must be ordered and at most 30".into());
    }
    let ab = Algorithm::AlphaBeta;
    let fsss = Algorithm::Fsss { restart: false };
    let sss = Algorithm::Mt(
        crate::search::mt::Driver::Sss,
        crate::search::mt::TestProcedure::Double,
    );
    let mut csv = String::from("h,parity,trees,fsss_fewer,sss_fewer,fsss_share,sss_share\n");
    // [odd, even] x [trees, fsss fewer, sss fewer]
    let mut by_parity = [[0u64; 3]; 2];
    let mut categories = Vec::new();
    let mut fsss_series = Vec::new();
    let mut sss_series = Vec::new();
    println!(
        "binary trees with {{0,1}} leaves, {} trees per height",
        args.trees
    );
    println!(
        "{:>3} {:>6} {:>16} {:>16}",
        "h", "parity", "FSSS < alpha-beta", "MT-SSS* < a-b"
    );
    for h in args.min_height..=args.max_height {
        let (mut f, mut s) = (0u64, 0u64);
        for i in 0..args.trees {
            let tree = RandomTree::new(2, h, ValueRange::Binary, tree_seed(args.seed, h, i));
            let base = measure(ab, &tree).leaves;
            f += u64::from(measure(fsss, &tree).leaves < base);
            s += u64::from(measure(sss, &tree).leaves < base);
        }
        let odd = h % 2 == 1;
        let p = if odd { "odd" } else { "even" };
        let n = args.trees.max(1) as f64;
        println!(
            "{h:>3} {p:>6} {:>15.1}% {:>15.1}%",
            100.0 * f as f64 / n,
            100.0 * s as f64 / n
        );
        let _ = writeln!(
            csv,
            "{h},{p},{},{f},{s},{:.4},{:.4}",
            args.trees,
            f as f64 / n,
            s as f64 / n
        );
        let slot = &mut by_parity[usize::from(!odd)];
        slot[0] += args.trees;
        slot[1] += f;
        slot[2] += s;
        categories.push(format!("{h}"));
        fsss_series.push((f64::from(h), 100.0 * f as f64 / n));
        sss_series.push((f64::from(h), 100.0 * s as f64 / n));
    }
    for (name, [n, f, s]) in ["odd", "even"].iter().zip(by_parity) {
        if n > 0 {
            println!(
                "all {name:<4} heights: FSSS fewer in {:.1}%, MT-SSS* fewer in {:.1}% of {n} trees",
                100.0 * f as f64 / n as f64,
                100.0 * s as f64 / n as f64
            );
        }
    }
    write_file(&args.csv, &csv)?;
    let series = [
        Series {
            name: "FSSS".into(),
            points: fsss_series,
        },
        Series {
            name: "MT-SSS*".into(),
            points: sss_series,
        },
    ];
    let chart = bar_chart(
        "% of {0,1} binary trees with strictly fewer leaves than alpha-beta, by height",
        "% of trees",
        &categories,
        &series,
    );
    write_file(&args.svg, &chart)?;
    println!("wrote {} and {}", args.csv, args.svg);
    Ok(())
}

fn chess(args: &ChessArgs) -> Result<(), String> {
    println!(
        "bench positions ({}), one thread, {} MB, iterative deepening to depth {}",
        super::bench::POSITIONS.len(),
        args.hash,
        args.depth
    );
    println!("| backend | nodes | leaf evaluations | time (s) |");
    println!("| --- | ---: | ---: | ---: |");
    for name in args
        .backends
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let totals = super::bench::bench(name, args.depth, args.hash, |_, _, _, _| {})?;
        let leaves = if totals.leaves == 0 {
            "—".to_string()
        } else {
            totals.leaves.to_string()
        };
        println!(
            "| `{name}` | {} | {leaves} | {:.2} |",
            totals.nodes,
            totals.time.as_secs_f64()
        );
    }
    Ok(())
}
