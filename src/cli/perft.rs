//! `searchlight perft`: one position (`--fen`, `--depth`, `--divide`) or a whole EPD suite
//! (`--suite`), with timing in nodes per second.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{fail, progress, read};
use crate::board::Position;
use crate::board::perft::{count, divide_parallel, parse_suite};

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
    let pos = match &args.fen {
        Some(fen) => match Position::from_fen_auto(fen) {
            Ok(p) => p,
            Err(e) => return fail("perft", e),
        },
        None => Position::startpos(),
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
    let cases = match read(path).and_then(|t| parse_suite(&t).map_err(|e| e.to_string())) {
        Ok(c) => c,
        Err(e) => return fail("perft", format!("{path}: {e}")),
    };
    let bar = progress(cases.len(), "{bar:40} {pos}/{len} {elapsed} {msg}");
    let (mut passed, mut failed, mut nodes) = (0, 0, 0u64);
    let start = Instant::now();
    for case in &cases {
        let fen = case.position.fen();
        let Some((depth, expected)) = case.deepest(max_depth) else {
            bar.println(format!(
                "{:>4} skip (no count at depth <= {max_depth}) {fen}",
                case.line
            ));
            bar.inc(1);
            continue;
        };
        let got = count(case.position.chess(), depth, threads);
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
                "{:>4} {verdict} D{depth} {got} (expected {expected}) {fen}",
                case.line
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
