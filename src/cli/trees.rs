//! `searchlight trees`: the experiments on synthetic trees (`growth`, `parity`,
//! `critical`) and the chess comparison (`chess`), printed as tables, with CSV and SVG
//! files for the synthetic ones (CSV on request for `chess`). `growth` and `critical`,
//! which can run for minutes, draw a progress bar on stderr.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{fail, progress, write};
use crate::experiments::bench::POSITIONS;
use crate::experiments::critical::{self, CriticalSpec, critical, critical_csv};
use crate::experiments::trees::{
    GrowthSpec, chess, chess_csv, growth, parity, parity_chart, parity_csv, parity_total,
    parse_algorithms,
};
use crate::tree::ValueRange;

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
    /// UCT and UCTMAX-H on binary trees with critical levels: iterations until the root
    /// value stays >= tau, as CSV, a table with fits, and an SVG chart.
    Critical(CriticalArgs),
}

#[derive(Debug, Args)]
pub struct GrowthArgs {
    /// Comma-separated algorithms (e.g. alphabeta,sss,fsss).
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
    #[arg(long, default_value = "trees-growth.csv")]
    pub csv: String,
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
    /// Also write the table as CSV: `backend,depth,nodes,leaves,time_ms` (`leaves` empty
    /// for a backend that does not count them).
    #[arg(long)]
    pub csv: Option<String>,
}

#[derive(Debug, Args)]
pub struct CriticalArgs {
    #[arg(long, default_value_t = 16)]
    pub height: u32,
    /// A first critical level at this depth; the second varies over the even depths
    /// below the height. Without it, a single critical level varies.
    #[arg(long)]
    pub first: Option<u32>,
    /// Trees (seeds) per configuration.
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// Iterations per search; a search still below tau at the end has not converged.
    #[arg(long, default_value_t = 200_000)]
    pub max_iterations: u64,
    #[arg(long, default_value_t = 0.7)]
    pub tau: f32,
    /// The UCB1 exploration constant.
    #[arg(long, default_value_t = 0.4)]
    pub c: f32,
    /// Threads searching one shared tree with virtual loss (`UCT_Parallel tree`);
    /// iterations are counted over all of them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    #[arg(long, default_value = "critical.csv")]
    pub csv: String,
    #[arg(long, default_value = "critical.svg")]
    pub svg: String,
}

pub fn run(args: &TreesArgs) -> ExitCode {
    let outcome = match &args.experiment {
        Experiment::Growth(a) => run_growth(a),
        Experiment::Parity(a) => run_parity(a),
        Experiment::Chess(a) => run_chess(a),
        Experiment::Critical(a) => run_critical(a),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail("trees", e),
    }
}

fn run_growth(args: &GrowthArgs) -> Result<(), String> {
    let algorithms = parse_algorithms(&args.algorithms).map_err(|e| e.to_string())?;
    let spec = GrowthSpec {
        branching: args.branching,
        min_height: args.min_height,
        max_height: args.max_height,
        trees: args.trees,
        range: ValueRange::parse(&args.range).map_err(|e| e.to_string())?,
        seed: args.seed,
    };
    println!(
        "mean leaves evaluated, b={} {} leaves, {} trees per height",
        spec.branching, spec.range, spec.trees
    );
    let names: String = algorithms
        .iter()
        .map(|(n, _)| format!(" {n:>14}"))
        .collect();
    println!("{:>3}{names}", "h");
    // Counted in leaves of the trees searched (see `growth`): a percentage reads better.
    let bar = progress(
        0,
        "{bar:40} {percent}% {msg} [{elapsed_precise}, eta {eta}]",
    );
    let result = growth(
        &spec,
        &algorithms,
        |h, means| {
            let cells: String = means.iter().map(|m| format!(" {m:>14.1}")).collect();
            bar.suspend(|| println!("{h:>3}{cells}"));
            bar.set_message(format!("heights to {h} done"));
        },
        |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        },
    );
    bar.finish_and_clear();
    let result = result.map_err(|e| e.to_string())?;
    println!("\nfit of mean leaves = a * base^h:");
    for (name, fit) in result.fits() {
        match fit {
            Some((a, base, r2)) => println!("  {name:<15} {a:.3} * {base:.4}^h   (r² {r2:.4})"),
            None => println!("  {name:<15} too few points to fit"),
        }
    }
    write(&args.csv, &result.csv)?;
    write(&args.svg, result.chart(&spec))?;
    println!("\nwrote {} and {}", args.csv, args.svg);
    Ok(())
}

fn run_parity(args: &ParityArgs) -> Result<(), String> {
    println!(
        "binary trees with {{0,1}} leaves, {} trees per height",
        args.trees
    );
    let (fsss, sss) = ("FSSS < alpha-beta", "MT-SSS* < a-b");
    println!("{:>3} {:>6} {fsss:>16} {sss:>16}", "h", "parity");
    let heights = args.min_height..=args.max_height;
    let rows = parity(heights, args.trees, args.seed, |r| {
        let p = if r.odd() { "odd" } else { "even" };
        let (f, s) = r.shares();
        println!("{:>3} {p:>6} {f:>15.1}% {s:>15.1}%", r.h);
    })
    .map_err(|e| e.to_string())?;
    for (odd, name) in [(true, "odd"), (false, "even")] {
        if let Some(t) = parity_total(&rows, odd) {
            let (f, s) = t.shares();
            let n = t.trees;
            println!(
                "all {name:<4} heights: FSSS fewer in {f:.1}%, MT-SSS* fewer in {s:.1}% of {n} trees"
            );
        }
    }
    write(&args.csv, parity_csv(&rows))?;
    write(&args.svg, parity_chart(&rows))?;
    println!("wrote {} and {}", args.csv, args.svg);
    Ok(())
}

fn run_chess(args: &ChessArgs) -> Result<(), String> {
    println!(
        "bench positions ({}), one thread, {} MB, iterative deepening to depth {}",
        POSITIONS.len(),
        args.hash,
        args.depth
    );
    println!("| backend | nodes | leaf evaluations | time (s) |");
    println!("| --- | ---: | ---: | ---: |");
    let backends: Vec<&str> = args
        .backends
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let rows = chess(&backends, args.depth, args.hash, |r| {
        let t = &r.totals;
        let leaves = if t.leaves == 0 {
            "—".to_string()
        } else {
            t.leaves.to_string()
        };
        let secs = t.time.as_secs_f64();
        println!("| `{}` | {} | {leaves} | {secs:.2} |", r.backend, t.nodes);
    })
    .map_err(|e| e.to_string())?;
    if let Some(path) = &args.csv {
        write(path, chess_csv(&rows, args.depth))?;
        println!("wrote {path}");
    }
    Ok(())
}

fn run_critical(args: &CriticalArgs) -> Result<(), String> {
    let spec = CriticalSpec {
        height: args.height,
        first: args.first,
        seeds: args.seeds,
        max_iterations: args.max_iterations,
        tau: args.tau,
        c: args.c,
        threads: usize::from(args.threads),
    };
    println!(
        "height {}, tau {}, c {}, {} trees per point, at most {} iterations, {}",
        args.height,
        args.tau,
        args.c,
        args.seeds,
        args.max_iterations,
        match args.threads {
            1 => "1 thread".to_string(),
            n => format!("{n} threads on one shared tree"),
        }
    );
    println!("| algorithm | critical levels | median iterations | converged |");
    println!("| --- | --- | --- | --- |");
    let bar = progress(
        0,
        "{bar:40} {pos}/{len} runs [{elapsed_precise}, eta {eta}]",
    );
    let rows = critical(
        &spec,
        |r| {
            let levels: Vec<String> = r.levels.iter().map(u32::to_string).collect();
            let median = r.median().map_or("-".to_string(), |m| m.to_string());
            let (n, seeds) = (r.converged(), args.seeds);
            let line = format!(
                "| {} | {} | {median} | {n}/{seeds} |",
                r.algorithm,
                levels.join(" ")
            );
            bar.suspend(|| println!("{line}"));
        },
        |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        },
    );
    bar.finish_and_clear();
    let rows = rows.map_err(|e| e.to_string())?;
    let series = critical::series(&rows);
    for sr in &series {
        match critical::fit(sr) {
            Some((a, base)) => {
                println!("{}: median iterations ~ {a:.1} * {base:.2}^(d/2)", sr.name)
            }
            None => println!("{}: too few converged points to fit", sr.name),
        }
    }
    let svg = critical::chart(&spec, &series);
    write(&args.csv, critical_csv(&rows))?;
    write(&args.svg, &svg)?;
    println!("wrote {} and {}", args.csv, args.svg);
    Ok(())
}
