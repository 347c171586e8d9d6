//! `searchlight trees critical`: the thesis' §5.2 experiment. For binary trees with
//! implanted critical levels, the iterations UCT and UCTMAX-H need until the root value
//! stays at or above τ (0.7), as a function of the critical depths: a CSV of every run,
//! a table of medians with an exponential fit, and an SVG line chart.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::Args;

use crate::plot::{Series, exponential_fit, line_chart};
use crate::search::uct::experiment::{convergence_point, median, run_seed};
use crate::search::uct::search::{Backup, Config};
use crate::tree::critical::CriticalTree;

#[derive(Debug, Args)]
pub struct CriticalArgs {
    /// Height of the binary trees.
    #[arg(long, default_value_t = 16)]
    pub height: u32,
    /// A first critical level at this depth; the second one varies over the even depths
    /// below it. Without it, a single critical level varies.
    #[arg(long)]
    pub first: Option<u32>,
    /// Trees (seeds) per configuration.
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// Iterations per search; a search still below τ at the end counts as not converged.
    #[arg(long, default_value_t = 200_000)]
    pub max_iterations: u64,
    /// The convergence threshold τ.
    #[arg(long, default_value_t = 0.7)]
    pub tau: f32,
    /// The UCB1 exploration constant.
    #[arg(long, default_value_t = 0.4)]
    pub c: f32,
    /// Where to write the CSV of all runs.
    #[arg(long, default_value = "critical.csv")]
    pub csv: String,
    /// Where to write the chart.
    #[arg(long, default_value = "critical.svg")]
    pub svg: String,
}

pub fn run(args: &CriticalArgs) -> ExitCode {
    let depths: Vec<u32> = match args.first {
        Some(first) => (first + 2..args.height).step_by(2).collect(),
        None => (0..args.height).step_by(2).collect(),
    };
    if depths.is_empty() {
        eprintln!("error: no critical depth fits below height {}", args.height);
        return ExitCode::from(2);
    }
    let algorithms = [("UCT", Backup::Average), ("UCTMAX-H", Backup::Minimax)];
    let mut csv = String::from("algorithm,levels,seed,iterations\n");
    let mut series: Vec<Series> = Vec::new();
    println!(
        "height {}, tau {}, c {}, {} trees per point, at most {} iterations",
        args.height, args.tau, args.c, args.seeds, args.max_iterations
    );
    println!("| algorithm | critical levels | median iterations | converged |");
    println!("| --- | --- | --- | --- |");
    for (name, backup) in algorithms {
        let config = Config {
            c: args.c,
            backup,
            solver: false,
        };
        let mut points = Vec::new();
        for &d in &depths {
            let levels: Vec<u32> = args.first.into_iter().chain([d]).collect();
            let label = levels
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ");
            let mut converged = Vec::new();
            for seed in 0..args.seeds {
                let tree = match CriticalTree::new(args.height, &levels, run_seed(7, seed)) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                };
                let t = convergence_point(tree, config, args.tau, args.max_iterations, seed + 1);
                let _ = writeln!(
                    csv,
                    "{name},{label},{seed},{}",
                    t.map_or(String::new(), |t| t.to_string())
                );
                converged.extend(t);
            }
            let n = converged.len();
            let m = median(&mut converged);
            println!(
                "| {name} | {label} | {} | {n}/{} |",
                m.map_or("-".to_string(), |m| m.to_string()),
                args.seeds
            );
            if let Some(m) = m {
                points.push((f64::from(d), m as f64));
            }
        }
        series.push(Series {
            name: name.to_string(),
            points,
        });
    }
    for Series { name, points } in &series {
        // UCT(d) ~ a * N^(d/2): the base per two plies, as the thesis fits it (N = 2.37).
        let halves: Vec<(f64, f64)> = points.iter().map(|&(d, y)| (d / 2.0, y)).collect();
        match exponential_fit(&halves) {
            Some((a, base, _)) => println!("{name}: median iterations ~ {a:.1} * {base:.2}^(d/2)"),
            None => println!("{name}: too few converged points to fit"),
        }
    }
    let x_label = match args.first {
        Some(f) => format!("depth of the second critical level (first at {f})"),
        None => "depth of the critical level".to_string(),
    };
    let svg = line_chart(
        &format!(
            "Iterations until the root value stays >= {} (binary trees, height {})",
            args.tau, args.height
        ),
        &x_label,
        "median iterations (log scale)",
        &series,
        true,
    );
    for (path, text) in [(&args.csv, &csv), (&args.svg, &svg)] {
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("error: writing {path}: {e}");
            return ExitCode::from(1);
        }
    }
    println!("wrote {} and {}", args.csv, args.svg);
    ExitCode::SUCCESS
}
