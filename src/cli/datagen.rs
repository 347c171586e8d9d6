//! `searchlight datagen`: self-play training data for `tune` (format in
//! `experiments::datagen`). Appends to `--out`, a whole game at a time.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

use clap::Args;

use super::{fail, progress};
use crate::experiments::datagen::{self, DatagenSpec};
use crate::matches::{INTERRUPT, openings};

#[derive(Debug, Args)]
pub struct DatagenArgs {
    /// File to append the positions to.
    #[arg(long)]
    out: String,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Random plies played after the opening, so games differ.
    #[arg(long, default_value_t = 4)]
    random_plies: usize,
    /// Openings (EPD or PGN); default: the balanced 8-ply set built into the binary.
    #[arg(long)]
    openings: Option<String>,
    /// Games played at once (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evaluator the games are played with.
    #[arg(long, default_value = "classical")]
    eval: String,
}

pub fn run(args: &DatagenArgs) -> ExitCode {
    let (openings, source) = match openings::load(args.openings.as_deref(), false, None) {
        Ok(o) => (o.positions, o.source),
        Err(e) => return fail("datagen", e),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let spec = DatagenSpec {
        games: args.games,
        nodes: args.nodes,
        random_plies: args.random_plies,
        threads,
        seed: args.seed,
        eval: args.eval.clone(),
    };
    // Refuse a bad evaluator name (with the list) before any file is touched.
    if let Err(e) = datagen::engine(&spec) {
        return fail("datagen", e);
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out);
    let mut file = match file {
        Ok(f) => f,
        Err(e) => return fail("datagen", format!("cannot open {}: {e}", args.out)),
    };
    let _ = ctrlc::set_handler(|| {
        if INTERRUPT.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: keeping the finished games (Ctrl-C again to exit at once)");
    });
    eprintln!(
        "datagen: {} games, {} nodes per move, openings {source} ({}), {threads} threads, Eval={}",
        spec.games,
        spec.nodes,
        openings.len(),
        spec.eval
    );
    let bar = progress(
        spec.games,
        "{bar:40} {pos}/{len} games {msg} [{elapsed_precise}, eta {eta}]",
    );
    let started = Instant::now();
    let (mut games, mut positions) = (0usize, 0usize);
    let mut error = None;
    crate::pool::run(
        spec.games,
        threads,
        || datagen::engine(&spec).ok(),
        |engine, i| {
            let engine = engine.as_mut()?;
            datagen::play(engine, &openings, &spec, i, &INTERRUPT)
        },
        |_, data| {
            bar.inc(1);
            if let Some(data) = data {
                if let Err(e) = file
                    .write_all(data.lines.as_bytes())
                    .and_then(|()| file.flush())
                {
                    error = Some(e);
                    return false;
                }
                games += 1;
                positions += data.positions;
                bar.set_message(format!("{positions} positions"));
            }
            !INTERRUPT.load(Ordering::Relaxed)
        },
    );
    bar.finish_and_clear();
    if let Some(e) = error {
        return fail("datagen", format!("cannot write {}: {e}", args.out));
    }
    println!(
        "datagen: {games} games, {positions} positions appended to {} in {:.1} s",
        args.out,
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
