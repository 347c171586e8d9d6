//! `searchlight tune`: Texel tuning of `Eval=classical` on `datagen` positions; writes the
//! weights as Rust source (src/board/eval/weights.rs by default), to be rebuilt with.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{fail, read, write};
use crate::board::eval::features;
use crate::experiments::tune;

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Data written by `searchlight datagen`.
    #[arg(long)]
    data: String,
    /// Where to write the generated weights.
    #[arg(long, default_value = "src/board/eval/weights.rs")]
    out: String,
    #[arg(long, default_value_t = 1000)]
    epochs: usize,
    /// Adam's step size, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Start from material values only instead of the built-in weights.
    #[arg(long)]
    from_scratch: bool,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: &TuneArgs) -> ExitCode {
    let started = Instant::now();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let text = match read(&args.data) {
        Ok(t) => t,
        Err(e) => return fail("tune", e),
    };
    let start = if args.from_scratch {
        features::initial()
    } else {
        tune::current()
    };
    let data = match tune::load(&text, &start, threads) {
        Ok(d) if d.is_empty() => return fail("tune", format!("{}: no positions", args.data)),
        Ok(d) => d,
        Err(e) => return fail("tune", format!("{}: {e}; no weights written", args.data)),
    };
    drop(text);
    let k = tune::fit_k(&data, &start);
    let before = data.loss(&start, k);
    eprintln!(
        "tune: {} positions, {} weights, K = {k:.4}, loss before {before:.6} ({:.1} s)",
        data.len(),
        2 * features::COUNT,
        started.elapsed().as_secs_f64()
    );
    let tuned = tune::adam(
        &data,
        &start,
        k,
        args.epochs,
        args.rate,
        threads,
        |epoch, loss| {
            eprintln!("  epoch {epoch}: loss {loss:.6}");
        },
    );
    let after = data.loss(&tuned, k);
    let provenance = format!(
        "{} positions from {}, K = {k:.4}, {} epochs: loss {before:.6} -> {after:.6}.",
        data.len(),
        args.data,
        args.epochs
    );
    if let Err(e) = write(&args.out, &tune::source(&tuned, &provenance)) {
        return fail("tune", e);
    }
    println!(
        "tune: loss {before:.6} -> {after:.6} (K = {k:.4}, {} positions, {} epochs) in {:.1} s; wrote {}",
        data.len(),
        args.epochs,
        started.elapsed().as_secs_f64(),
        args.out
    );
    ExitCode::SUCCESS
}
