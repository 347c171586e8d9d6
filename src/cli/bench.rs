//! `searchlight bench`: the bench positions to a fixed depth, one line each; the last
//! line, `<nodes> nodes <nps> nps`, is what OpenBench reads.

use std::process::ExitCode;

use clap::Args;

use super::fail;
use crate::board::eval::DEFAULT_EVAL;
use crate::experiments::bench::{DEFAULT_DEPTH, POSITIONS, bench};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Search depth per position.
    #[arg(default_value_t = DEFAULT_DEPTH)]
    pub depth: u32,
    /// The backend to measure.
    #[arg(long, default_value = "pvs")]
    pub search: String,
    /// Table size in MB (cleared before every position).
    #[arg(long, default_value_t = 16)]
    pub hash: u32,
    /// The evaluator (the signature is that of the default).
    #[arg(long, default_value = DEFAULT_EVAL)]
    pub eval: String,
}

pub fn run(args: &BenchArgs) -> ExitCode {
    let outcome = bench(
        &args.search,
        &args.eval,
        args.depth,
        args.hash,
        |i, fen, nodes, best| {
            println!(
                "{:>2}/{} {nodes:>12} nodes  bestmove {best:<6} {fen}",
                i + 1,
                POSITIONS.len()
            );
        },
    );
    match outcome {
        Ok(totals) => {
            let nps = totals.nodes as f64 / totals.time.as_secs_f64().max(1e-9);
            println!(
                "search {} depth {} time {} ms",
                args.search,
                args.depth,
                totals.time.as_millis()
            );
            println!("{} nodes {} nps", totals.nodes, nps as u64);
            ExitCode::SUCCESS
        }
        Err(e) => fail("bench", e),
    }
}
