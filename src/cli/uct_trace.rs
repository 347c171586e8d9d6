//! `searchlight uct-trace`: how a UCT-family search values one root move of a position as
//! the iterations go by (thesis §4.3: UCT rates a move into a level-5 or level-7 trap
//! nearly as high as the best move). CSV on stdout, one row every `--every` iterations.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::process::ExitCode;

use clap::Args;
use shakmaty::CastlingMode;

use crate::board::{Game, Material, Position};
use crate::search::uct::domain::LeafEstimate;
use crate::search::uct::experiment::{TraceSpec, trace_move};
use crate::search::uct::search::{Backup, Config};

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
    // Standard castling notation unless the castling rights only make sense in Chess960.
    let parsed = Position::from_fen(&args.fen, CastlingMode::Standard)
        .or_else(|_| Position::from_fen(&args.fen, CastlingMode::Chess960));
    let pos = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let traced = match pos.parse_uci(&args.mv) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (backup, leaf) = match args.search.as_str() {
        "uct" => (Backup::Average, LeafEstimate::Playout(args.playout_cap)),
        "ucth" => (Backup::Average, LeafEstimate::Eval),
        "uctmaxh" => (Backup::Minimax, LeafEstimate::Eval),
        other => {
            eprintln!("error: --search '{other}': expected uct, ucth or uctmaxh");
            return ExitCode::from(2);
        }
    };
    let spec = TraceSpec {
        leaf,
        config: Config {
            c: args.c,
            backup,
            solver: false,
        },
        memory_bytes: args.memory << 20,
        iterations: args.iterations,
        every: args.every,
    };
    let game = Game::new(pos.clone());
    let rows = trace_move(&game, &Material, traced, &spec);
    println!("iteration,move,visits,value,best,best_visits,best_value,root_value");
    for r in rows {
        let best = r.best.map_or(String::new(), |m| pos.to_uci(m).to_string());
        println!(
            "{},{},{},{:.4},{},{},{:.4},{:.4}",
            r.iteration,
            args.mv,
            r.visits,
            r.value,
            best,
            r.best_visits,
            r.best_value,
            r.root_value
        );
    }
    ExitCode::SUCCESS
}
