//! The command line: no subcommand runs the UCI engine on stdin/stdout; the subcommands
//! are the tools. Each module here parses its arguments, calls the library, and prints.

pub mod bench;
pub mod datagen;
pub mod epd;
pub mod matches;
pub mod perft;
pub mod trap_games;
pub mod traps;
pub mod trees;
pub mod tune;
pub mod uct_trace;

use std::fmt::Display;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Parser)]
#[command(
    name = "searchlight",
    version,
    about = "A UCI chess engine whose search is a plug-in. Without a subcommand it speaks UCI on stdin/stdout."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Tool>,
}

#[derive(Debug, Subcommand)]
enum Tool {
    /// Count leaf nodes of the legal move tree (move generator check and speed).
    Perft(perft::PerftArgs),
    /// Search fixed positions to a fixed depth; prints the node signature and speed.
    Bench(bench::BenchArgs),
    /// Run an EPD test suite (bm/am) at a fixed time per position.
    Epd(epd::EpdArgs),
    /// Which moves walk into a forced mate within k plies (search traps, exact).
    Traps(traps::TrapsArgs),
    /// Experiments on synthetic trees (growth, parity, critical levels) and the chess
    /// backend comparison.
    Trees(trees::TreesArgs),
    /// The value a UCT-family search gives one root move, iteration by iteration (CSV).
    UctTrace(uct_trace::TraceArgs),
    /// Engine-vs-engine games: match, round robin or gauntlet, with PGN and statistics.
    Match(matches::MatchArgs),
    /// Self-play games at fixed nodes, written as training positions for `tune`.
    Datagen(datagen::DatagenArgs),
    /// Texel tuning of the classical evaluator's weights on `datagen` positions.
    Tune(tune::TuneArgs),
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            crate::uci::run();
            ExitCode::SUCCESS
        }
        Some(Tool::Perft(args)) => perft::run(&args),
        Some(Tool::Bench(args)) => bench::run(&args),
        Some(Tool::Epd(args)) => epd::run(&args),
        Some(Tool::Traps(args)) => traps::run(&args),
        Some(Tool::Trees(args)) => trees::run(&args),
        Some(Tool::UctTrace(args)) => uct_trace::run(&args),
        Some(Tool::Match(args)) => matches::run(&args),
        Some(Tool::Datagen(args)) => datagen::run(&args),
        Some(Tool::Tune(args)) => tune::run(&args),
    }
}

/// Reports a tool's failure on stderr; exit status 2.
fn fail(tool: &str, e: impl Display) -> ExitCode {
    eprintln!("{tool}: error: {e}");
    ExitCode::from(2)
}

/// Reads a file the tool needs.
fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// Writes a file the tool produces.
fn write(path: &str, contents: impl AsRef<[u8]>) -> Result<(), String> {
    std::fs::write(path, contents).map_err(|e| format!("cannot write {path}: {e}"))
}

/// A progress bar of `len` steps with this template (`{bar}`, `{pos}`, `{msg}`, ...).
fn progress(len: usize, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
