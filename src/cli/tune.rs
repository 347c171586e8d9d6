//! `searchlight tune`: Texel tuning of `Eval=classical` on `datagen` positions; writes the
//! weights as Rust source (src/board/eval/weights.rs by default), to be rebuilt with.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{fail, read, write};
use crate::board::eval::{features, nnue};
use crate::board::find_evaluator;
use crate::experiments::{train, tune, wdl};

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Data written by `searchlight datagen`.
    #[arg(long)]
    data: String,
    /// Where to write the generated weights (default src/board/eval/weights.rs, with
    /// `--nnue` nets/searchlight-768x128.nnue).
    #[arg(long)]
    out: Option<String>,
    /// Passes over the data (default 1000, with `--nnue` 40).
    #[arg(long)]
    epochs: Option<usize>,
    /// Adam's step size (default 1.0 centipawn, with `--nnue` 0.001 in float weights).
    #[arg(long)]
    rate: Option<f64>,
    /// Train the network of `Eval=nnue` instead of the classical weights.
    #[arg(long)]
    nnue: bool,
    /// `--nnue`: also train on each position without castling rights mirrored left to right.
    #[arg(long)]
    mirror: bool,
    /// `--nnue`: the evaluation the net learns to correct, `classical` or `material`.
    #[arg(long, default_value = "classical")]
    base: String,
    /// `--nnue`: positions per Adam step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// `--nnue`: the seed of the initial weights, the held-out split and the order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// `--nnue`: start from this net file's weights instead of random ones and train on
    /// (fine-tuning it on new data); its base must be `--base`.
    #[arg(long)]
    init: Option<String>,
    /// Start from material values only instead of the built-in weights.
    #[arg(long)]
    from_scratch: bool,
    /// A block of features to hold at its starting weights (its name as in the weights
    /// file, e.g. "bishop pair"); may be repeated.
    #[arg(long)]
    keep: Vec<String>,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Weight of the game's result in the target; the rest is the sigmoid of the line's
    /// search score (1: the result alone, Texel's original method).
    #[arg(long, default_value_t = 1.0, value_parser = fraction)]
    lambda: f64,
    /// Fit the win/draw/loss model of `--eval` instead of the weights (printed, not written).
    #[arg(long)]
    wdl: bool,
    /// The evaluator whose WDL model is fitted.
    #[arg(long, default_value = "classical")]
    eval: String,
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
    if args.wdl {
        return fit_wdl(args, &text, threads, started);
    }
    if args.nnue {
        return train_net(args, &text, threads, started);
    }
    let out = args.out.as_deref().unwrap_or("src/board/eval/weights.rs");
    let (epochs, rate) = (args.epochs.unwrap_or(1000), args.rate.unwrap_or(1.0));
    let start = if args.from_scratch {
        features::initial()
    } else {
        tune::current()
    };
    let mut data = match tune::load(&text, &start, threads) {
        Ok(d) if d.is_empty() => return fail("tune", format!("{}: no positions", args.data)),
        Ok(d) => d,
        Err(e) => return fail("tune", format!("{}: {e}; no weights written", args.data)),
    };
    drop(text);
    for block in &args.keep {
        if let Err(e) = data.keep(block) {
            return fail("tune", format!("{e}; no weights written"));
        }
    }
    let k = tune::fit_k(&data, &start);
    data.blend(args.lambda, k);
    let before = data.loss(&start, k);
    eprintln!(
        "tune: {} positions, {} weights, K = {k:.4}, loss before {before:.6} ({:.1} s)",
        data.len(),
        2 * features::COUNT,
        started.elapsed().as_secs_f64()
    );
    let tuned = tune::adam(&data, &start, k, epochs, rate, threads, |epoch, loss| {
        eprintln!("  epoch {epoch}: loss {loss:.6}");
    });
    let after = data.loss(&tuned, k);
    let kept = if args.keep.is_empty() {
        String::new()
    } else {
        format!(", kept: {}", args.keep.join("; "))
    };
    let provenance = format!(
        "{} positions from {}, K = {k:.4}, lambda = {}, {} epochs{kept}: loss {before:.6} -> {after:.6}.",
        data.len(),
        args.data,
        args.lambda,
        epochs
    );
    if let Err(e) = write(out, tune::source(&tuned, &provenance)) {
        return fail("tune", e);
    }
    println!(
        "tune: loss {before:.6} -> {after:.6} (K = {k:.4}, {} positions, {} epochs) in {:.1} s; wrote {}",
        data.len(),
        epochs,
        started.elapsed().as_secs_f64(),
        out
    );
    ExitCode::SUCCESS
}

/// The weights of the net file at `path`, which must correct `base`.
fn starting_net(path: &str, base: nnue::Base) -> Result<train::FloatNet, String> {
    let net = crate::engine::read_net(path)?;
    if net.base != base {
        return Err(format!(
            "{path} corrects {}, not the --base {}",
            net.base.name(),
            base.name()
        ));
    }
    Ok(train::FloatNet::from_network(&net))
}

/// `tune --nnue`: trains the network and writes the quantised net file.
fn train_net(args: &TuneArgs, text: &str, threads: usize, started: Instant) -> ExitCode {
    let out = args
        .out
        .as_deref()
        .unwrap_or("nets/searchlight-768x128.nnue");
    let Some(base) = nnue::Base::ALL.into_iter().find(|b| b.name() == args.base) else {
        return fail(
            "tune",
            format!("unknown base '{}': material or classical", args.base),
        );
    };
    let mut data = match train::NetData::parse(text, args.mirror, base) {
        Ok(d) if d.is_empty() => return fail("tune", format!("{}: no positions", args.data)),
        Ok(d) => d,
        Err(e) => return fail("tune", format!("{}: {e}; no net written", args.data)),
    };
    let k = data.fit_k();
    data.blend(args.lambda, k);
    let settings = train::Settings {
        epochs: args.epochs.unwrap_or(40),
        rate: args.rate.unwrap_or(0.001) as f32,
        batch: args.batch.max(1),
        threads,
        seed: args.seed,
        held_out: 10,
    };
    let mut net = match &args.init {
        None => train::FloatNet::random(args.seed),
        Some(path) => match starting_net(path, base) {
            Ok(net) => net,
            Err(e) => return fail("tune", format!("{e}; no net written")),
        },
    };
    let (train_set, held) = train::split(&data, &settings);
    let before = net.loss(&data, &train_set, k, threads);
    eprintln!(
        "tune --nnue: {} positions ({} held out), {} parameters, K = {k:.4}, loss before {before:.6} ({:.1} s)",
        data.len(),
        held.len(),
        train::PARAMS,
        started.elapsed().as_secs_f64()
    );
    let mut last = (before, f64::NAN);
    let sets = (train_set, held);
    train::train(
        &data,
        &mut net,
        k,
        &settings,
        sets,
        |epoch, loss, held_loss| {
            last = (loss, held_loss);
            eprintln!(
                "  epoch {epoch}: loss {loss:.6}, held out {} ({:.0} s)",
                held_text(held_loss),
                started.elapsed().as_secs_f64()
            );
        },
    );
    if let Err(e) = write(out, net.quantise(base).to_bytes()) {
        return fail("tune", e);
    }
    println!(
        "tune --nnue: loss {before:.6} -> {:.6}, held out {} (K = {k:.4}, {} positions, {} epochs) in {:.1} s; wrote {out}",
        last.0,
        held_text(last.1),
        data.len(),
        settings.epochs,
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// The held-out loss, or "none" when too few positions were given to hold any out.
fn held_text(loss: f64) -> String {
    if loss.is_nan() {
        "none".into()
    } else {
        format!("{loss:.6}")
    }
}

/// A number from 0 to 1.
fn fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{s}` is not a number from 0 to 1")),
    }
}

/// `tune --wdl`: the maximum-likelihood WDL model of one evaluator on the data.
fn fit_wdl(args: &TuneArgs, text: &str, threads: usize, started: Instant) -> ExitCode {
    let Some(info) = find_evaluator(&args.eval) else {
        return fail("tune", format!("unknown evaluator '{}'", args.eval));
    };
    let eval = (info.make)(&nnue::built_in());
    let samples = match wdl::samples(text, eval.as_ref(), threads) {
        Ok(s) if s.is_empty() => return fail("tune", format!("{}: no positions", args.data)),
        Ok(s) => s,
        Err(e) => return fail("tune", format!("{}: {e}", args.data)),
    };
    let counts = [1, 0, -1].map(|o| samples.iter().filter(|s| s.outcome == o).count());
    let before = wdl::loss(&samples, &info.wdl);
    let model = wdl::fit(
        &samples,
        &info.wdl,
        args.epochs.unwrap_or(1000),
        |step, loss| {
            eprintln!("  step {step}: loss {loss:.6}");
        },
    );
    let after = wdl::loss(&samples, &model);
    println!(
        "tune --wdl: Eval={}, {} positions (side to move won {}, drew {}, lost {}), \
         log-loss {before:.6} -> {after:.6} in {:.1} s",
        info.name,
        samples.len(),
        counts[0],
        counts[1],
        counts[2],
        started.elapsed().as_secs_f64()
    );
    println!(
        "WdlModel {{ a: [{:.1}, {:.1}], b: [{:.1}, {:.1}] }}",
        model.a[0], model.a[1], model.b[0], model.b[1]
    );
    ExitCode::SUCCESS
}
