//! `searchlight perft`: one position (`--fen`, `--depth`, `--divide`) or a whole EPD suite
//! (`--suite`), with timing in nodes per second.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::board::Position;
use crate::perft::{divide_parallel, parse_suite};

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Position to count from (default: the start position). Chess960 castling rights are
    /// recognised from the FEN.
    #[arg(long)]
    pub fen: Option<String>,
    /// Plies to count (for --suite: the deepest depth checked per position).
    #[arg(long, short)]
    pub depth: u32,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Check every position of an EPD suite (`FEN ;D1 n ;D2 n ...`).
    #[arg(long)]
    pub suite: Option<String>,
    /// Worker threads (root moves are shared out).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

pub fn run(args: &PerftArgs) -> ExitCode {
    match &args.suite {
        Some(path) => run_suite(path, args.depth, args.threads),
        None => run_single(args),
    }
}

fn run_single(args: &PerftArgs) -> ExitCode {
    let fen = args
        .fen
        .as_deref()
        .unwrap_or("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let line = crate::perft::parse_suite_line(fen);
    let pos = match line {
        Ok(case) => case.position,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let counts = divide_parallel(pos.chess(), args.depth, args.threads);
    let elapsed = start.elapsed();
    let total: u64 = if args.depth == 0 {
        1
    } else {
        counts.iter().map(|(_, n)| n).sum()
    };
    if args.divide {
        for (m, n) in &counts {
            println!("{}: {n}", pos.to_uci(*m));
        }
        println!();
    }
    println!("nodes {total}");
    println!("time {:.3} s", elapsed.as_secs_f64());
    println!("nps {:.0}", total as f64 / elapsed.as_secs_f64().max(1e-9));
    ExitCode::SUCCESS
}

fn run_suite(path: &str, max_depth: u32, threads: usize) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let cases = match parse_suite(&text) {
        Ok(c) => c,
        Err((line, e)) => {
            eprintln!("error: {path}:{line}: {e}");
            return ExitCode::from(2);
        }
    };
    let bar = ProgressBar::new(cases.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (mut passed, mut failed, mut nodes) = (0, 0, 0u64);
    let start = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let Some(&(depth, expected)) = case
            .counts
            .iter()
            .filter(|(d, _)| *d <= max_depth)
            .max_by_key(|(d, _)| *d)
        else {
            bar.println(format!(
                "{:>4} skip (no count at depth <= {max_depth}) {}",
                i + 1,
                case.fen
            ));
            bar.inc(1);
            continue;
        };
        let got = count(&case.position, depth, threads);
        nodes += got;
        let verdict = if got == expected {
            passed += 1;
            "pass"
        } else {
            failed += 1;
            "FAIL"
        };
        bar.suspend(|| {
            println!(
                "{:>4} {verdict} D{depth} {got} (expected {expected}) {}",
                i + 1,
                case.fen
            );
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{passed} passed, {failed} failed, {nodes} nodes in {secs:.1} s ({:.0} nps)",
        nodes as f64 / secs.max(1e-9)
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn count(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide_parallel(pos.chess(), depth, threads)
        .iter()
        .map(|(_, n)| n)
        .sum()
}
