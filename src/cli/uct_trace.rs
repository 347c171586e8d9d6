//! `searchlight uct-trace`: how a UCT-family search values one root move of a position as
//! the iterations go by. CSV on stdout, one row every `--every` iterations.

use std::process::ExitCode;

use clap::Args;

use super::fail;
use crate::board::{Game, Material, Position};
use crate::experiments::uct_trace::{TraceSpec, trace_move};
use crate::search::uct::playout::{LeafEstimate, Scale};
use crate::search::uct::search::{Backup, Config};
use crate::tree::chess::Estimate;

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The position (FEN; Chess960 castling rights are accepted).
    #[arg(long)]
    pub fen: String,
    /// The root move to trace, in UCI notation.
    #[arg(long = "move")]
    pub mv: String,
    #[arg(long, default_value_t = 100_000)]
    pub iterations: u64,
    /// A row every this many iterations.
    #[arg(long, default_value_t = 1000)]
    pub every: u64,
    /// uct (random playouts), ucth or uctmaxh.
    #[arg(long, default_value = "uct")]
    pub search: String,
    /// The UCB1 exploration constant.
    #[arg(long, default_value_t = 0.4)]
    pub c: f32,
    /// Playout length cap for uct.
    #[arg(long, default_value_t = 200)]
    pub playout_cap: u32,
    /// Tree memory in MB.
    #[arg(long, default_value_t = 512)]
    pub memory: usize,
}

pub fn run(args: &TraceArgs) -> ExitCode {
    let pos = match Position::from_fen_auto(&args.fen) {
        Ok(p) => p,
        Err(e) => return fail("uct-trace", e),
    };
    let traced = match pos.parse_uci(&args.mv) {
        Ok(m) => m,
        Err(e) => return fail("uct-trace", e),
    };
    let (backup, leaf) = match args.search.as_str() {
        "uct" => (Backup::Average, LeafEstimate::Playout(args.playout_cap)),
        "ucth" => (Backup::Average, LeafEstimate::Heuristic),
        "uctmaxh" => (Backup::Minimax, LeafEstimate::Heuristic),
        other => {
            let e = format!("--search '{other}': expected uct, ucth or uctmaxh");
            return fail("uct-trace", e);
        }
    };
    let spec = TraceSpec {
        config: Config {
            c: args.c,
            backup,
            solver: false,
            leaf,
            scale: Scale::Centipawns,
        },
        estimate: Estimate::Static,
        memory_bytes: args.memory << 20,
        iterations: args.iterations,
        every: args.every,
    };
    // The research baseline: the traces reproduce with `Eval=material`.
    let rows = trace_move(&Game::new(pos.clone()), &Material, traced, &spec);
    println!("iteration,move,visits,value,best,best_visits,best_value,root_value");
    for r in rows {
        let best = r.best.map_or(String::new(), |m| pos.to_uci(m).to_string());
        println!(
            "{},{},{},{:.4},{best},{},{:.4},{:.4}",
            r.iteration, args.mv, r.visits, r.value, r.best_visits, r.best_value, r.root_value
        );
    }
    ExitCode::SUCCESS
}
