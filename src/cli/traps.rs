//! `searchlight traps`: which moves of the side to move walk into a forced mate (thesis
//! §4.1–4.2), for one FEN or every position of an EPD file, with a summary of how many
//! positions are at risk at each level. Positions are analysed one per worker thread.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::CastlingMode;

use crate::board::Position;
use crate::traps::{Analysis, analyse};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TrapsArgs {
    #[command(subcommand)]
    pub command: Option<TrapsCommand>,
    /// One position.
    #[arg(long, conflicts_with = "epd")]
    pub fen: Option<String>,
    /// An EPD (or plain FEN-per-line) file; only the first four fields of a line are read.
    #[arg(long)]
    pub epd: Option<String>,
    /// Deepest trap level (odd plies of the opponent's forced mate).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=15))]
    pub max_level: u8,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Worker threads for a file (one position each).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// For every position at risk: the move each of these backends chooses under the same
    /// budget, whether it is a trap, and its values for its move and for the trap move.
    #[arg(long, value_delimiter = ',')]
    pub check_backends: Vec<String>,
    /// The budget for --check-backends: nodes=N or movetime=MS.
    #[arg(long, default_value = "nodes=100000")]
    pub budget: String,
}

#[derive(Debug, clap::Subcommand)]
pub enum TrapsCommand {
    /// The thesis' measurement: semi-random games, positions at given plies analysed.
    Generate(super::trap_generate::GenerateArgs),
}

/// The levels the summary reports.
const LEVELS: [u8; 4] = [1, 3, 5, 7];

pub fn run(args: &TrapsArgs) -> ExitCode {
    if let Some(TrapsCommand::Generate(g)) = &args.command {
        return match super::trap_generate::run(g) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("traps generate: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mut skipped = Vec::new();
    let positions: Vec<(usize, Position)> = match (&args.fen, &args.epd) {
        (Some(fen), _) => match Position::from_fen(fen.trim(), CastlingMode::Standard) {
            Ok(p) => vec![(1, p)],
            Err(e) => {
                eprintln!("traps: --fen: {e}");
                return ExitCode::from(2);
            }
        },
        (None, Some(path)) => match std::fs::read_to_string(path) {
            Ok(text) => read_positions(&text, &mut skipped),
            Err(e) => {
                eprintln!("traps: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        },
        (None, None) => {
            eprintln!("traps: give --fen FEN or --epd FILE");
            return ExitCode::from(2);
        }
    };
    for (line, reason) in &skipped {
        eprintln!("traps: line {line} skipped: {reason}");
    }
    let results = analyse_all(&positions, args.max_level, args.threads.max(1));
    match args.format {
        Format::Table => print_table(&results),
        Format::Csv => print_csv(&results),
        Format::Json => {
            let all: Vec<&Analysis> = results.iter().map(|(_, a)| a).collect();
            match serde_json::to_string_pretty(&all) {
                Ok(s) => println!("{s}"),
                Err(e) => eprintln!("traps: {e}"),
            }
        }
    }
    if args.format == Format::Table || args.epd.is_some() {
        summary(&results, skipped.len(), args.max_level);
    }
    if !args.check_backends.is_empty() {
        let positions: Vec<(usize, &Position)> = positions.iter().map(|(l, p)| (*l, p)).collect();
        if let Err(e) = super::trap_check::run(
            &results,
            &positions,
            &args.check_backends,
            &args.budget,
            args.format,
        ) {
            eprintln!("traps: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// Positions with their line numbers; unreadable lines are recorded, not fatal.
pub fn read_positions(text: &str, skipped: &mut Vec<(usize, String)>) -> Vec<(usize, Position)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        let fen = format!("{} 0 1", fields.join(" "));
        match Position::from_fen(&fen, CastlingMode::Standard) {
            Ok(p) => out.push((i + 1, p)),
            Err(e) => skipped.push((i + 1, e.to_string())),
        }
    }
    out
}

fn analyse_all(
    positions: &[(usize, Position)],
    max_level: u8,
    threads: usize,
) -> Vec<(usize, Analysis)> {
    let bar = if positions.len() > 1 {
        let bar = ProgressBar::new(positions.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("traps {bar:40} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(positions.len()));
    std::thread::scope(|s| {
        for _ in 0..threads.min(positions.len()).max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((line, pos)) = positions.get(i) else {
                        break;
                    };
                    let a = analyse(pos, max_level);
                    if let Ok(mut r) = results.lock() {
                        r.push((*line, a));
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(line, _)| *line);
    results
}

fn print_table(results: &[(usize, Analysis)]) {
    for (line, a) in results {
        let status = match a.shallowest {
            Some(l) => format!("AT RISK (shallowest level {l})"),
            None => format!("safe up to level {}", a.max_level),
        };
        println!(
            "line {line}: {} — {status}; {} of {} moves are traps; {} nodes, {:.0} ms",
            a.fen,
            a.traps.len(),
            a.legal_moves,
            a.nodes,
            a.time.as_secs_f64() * 1000.0
        );
        for t in &a.traps {
            println!(
                "    {:<8} {:<6} level {}  {}",
                t.san,
                t.uci,
                t.level,
                t.line.join(" ")
            );
        }
    }
}

fn print_csv(results: &[(usize, Analysis)]) {
    println!("line,fen,legal_moves,trap_san,trap_uci,level,refutation,nodes,time_ms");
    for (line, a) in results {
        if a.traps.is_empty() {
            println!(
                "{line},\"{}\",{},,,,,{},{:.1}",
                a.fen,
                a.legal_moves,
                a.nodes,
                a.time.as_secs_f64() * 1000.0
            );
        }
        for t in &a.traps {
            println!(
                "{line},\"{}\",{},{},{},{},{},{},{:.1}",
                a.fen,
                a.legal_moves,
                t.san,
                t.uci,
                t.level,
                t.line.join(" "),
                a.nodes,
                a.time.as_secs_f64() * 1000.0
            );
        }
    }
}

fn summary(results: &[(usize, Analysis)], skipped: usize, max_level: u8) {
    let n = results.len().max(1) as f64;
    eprintln!();
    eprintln!(
        "{} positions analysed, {skipped} lines skipped; share at risk:",
        results.len()
    );
    for k in LEVELS.iter().filter(|&&k| k <= max_level) {
        let at = results.iter().filter(|(_, a)| a.at_risk_within(*k)).count();
        eprintln!("  level <= {k}: {at:>5} ({:.1}%)", 100.0 * at as f64 / n);
    }
    let mut times: Vec<Duration> = results.iter().map(|(_, a)| a.time).collect();
    times.sort();
    if let Some(median) = times.get(times.len() / 2) {
        let total: Duration = times.iter().sum();
        eprintln!(
            "time per position: median {:.1} ms, mean {:.1} ms, max {:.1} ms",
            median.as_secs_f64() * 1000.0,
            total.as_secs_f64() * 1000.0 / n,
            times.last().map_or(0.0, |t| t.as_secs_f64() * 1000.0)
        );
    }
}
