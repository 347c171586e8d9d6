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

use crate::search::uct::experiment::{convergence_point, fit_exponential, median, run_seed};
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

/// One curve of the chart: a name and (depth, median iterations) points.
type Series = (String, Vec<(f64, f64)>);

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
        series.push((name.to_string(), points));
    }
    for (name, points) in &series {
        // UCT(d) ~ a * N^(d/2): the base per two plies, as the thesis fits it (N = 2.37).
        let halves: Vec<(f64, f64)> = points.iter().map(|&(d, y)| (d / 2.0, y)).collect();
        match fit_exponential(&halves) {
            Some((a, b)) => println!(
                "{name}: median iterations ~ {:.1} * {:.2}^(d/2)",
                a.exp(),
                b.exp()
            ),
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

/// A line chart with a logarithmic y axis, as a standalone SVG document.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    const W: f64 = 640.0;
    const H: f64 = 400.0;
    const L: f64 = 70.0;
    const R: f64 = 130.0;
    const T: f64 = 40.0;
    const B: f64 = 50.0;
    const COLOURS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let all = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y.max(1.0).log10());
        y1 = y1.max(y.max(1.0).log10());
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    let (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let px = |x: f64| L + (x - x0) / (x1 - x0) * (W - L - R);
    let py = |y: f64| H - B - (y.max(1.0).log10() - y0) / (y1 - y0) * (H - T - B);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        W / 2.0,
        escape(title)
    );
    // Axes, decade ticks on y, a tick per point on x.
    let _ = writeln!(
        s,
        r#"<path d="M{L},{T} V{} H{}" fill="none" stroke="black"/>"#,
        H - B,
        W - R
    );
    for decade in (y0 as i32)..=(y1 as i32) {
        let y = py(10f64.powi(decade));
        let _ = writeln!(
            s,
            r##"<line x1="{L}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">1e{decade}</text>"##,
            W - R,
            L - 6.0,
            y + 4.0
        );
    }
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    for x in xs {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{x}</text>"#,
            px(x),
            H - B + 16.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        L + (W - L - R) / 2.0,
        H - 12.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(16,{}) rotate(-90)" text-anchor="middle">{}</text>"#,
        T + (H - T - B) / 2.0,
        escape(y_label)
    );
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for &(x, y) in points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                px(x),
                py(y)
            );
        }
        let ly = T + 20.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
            W - R + 10.0,
            W - R + 30.0,
            W - R + 36.0,
            ly + 4.0,
            escape(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_is_an_svg_with_one_line_per_series() {
        let series = vec![
            ("UCT".to_string(), vec![(2.0, 10.0), (4.0, 100.0)]),
            ("UCTMAX-H".to_string(), vec![(2.0, 20.0), (4.0, 3000.0)]),
        ];
        let svg = line_chart("t <1>", "x", "y", &series);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("t &lt;1&gt;"));
    }
}
