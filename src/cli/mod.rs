//! The command line: no subcommand runs the UCI engine on stdin/stdout; the subcommands
//! are the tools.

pub mod bench;
pub mod critical;
pub mod epd;
pub mod matches;
pub mod perft;
pub mod player;
pub mod spec;
pub mod trap_check;
pub mod trap_generate;
pub mod traps;
pub mod trees;
pub mod uct_trace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// Experiments on synthetic trees (growth, parity) and the chess backend comparison.
    Trees(trees::TreesArgs),
    /// The value a UCT-family search gives one root move, iteration by iteration (CSV).
    UctTrace(uct_trace::TraceArgs),
    /// Engine-vs-engine games: match, round robin or gauntlet, with PGN and statistics.
    Match(matches::MatchArgs),
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
        Some(Tool::Match(args)) => matches::run_cli(&args),
    }
}
