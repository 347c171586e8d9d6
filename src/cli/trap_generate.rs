//! `traps generate`: the thesis' measurement (§4.2) — semi-random games (each move
//! uniformly random with probability `random_prob`, otherwise the `pvs` move at a fixed
//! depth), the positions at chosen plies analysed for traps, and the share at risk at
//! each level per ply, as a table, a CSV and an SVG bar chart.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;

use crate::board::{Game, Position};
use crate::engine::Engine;
use crate::plot::{Series, bar_chart};
use crate::search::Limits;
use crate::search::info::Silent;
use crate::traps::{Analysis, analyse};
use crate::tree::synthetic::splitmix;

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Plies at which the position is analysed.
    #[arg(long, value_delimiter = ',', default_value = "15,31,47,63")]
    pub plies: Vec<usize>,
    #[arg(long, default_value_t = 0.33)]
    pub random_prob: f64,
    /// Depth of the `pvs` moves.
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    #[arg(long, default_value_t = 7)]
    pub max_level: u8,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    #[arg(long, default_value = "traps-generate.csv")]
    pub csv: String,
    #[arg(long, default_value = "traps-generate.svg")]
    pub svg: String,
}

/// The analysed positions of one game: (ply, analysis).
fn play_game(index: usize, args: &GenerateArgs) -> Result<Vec<(usize, Analysis)>, String> {
    let mut engine = Engine::with_options(&[("Search", "pvs"), ("Hash", "16")])?;
    let mut rng = splitmix(args.seed ^ splitmix(index as u64));
    let mut game = Game::new(Position::startpos());
    let last = args.plies.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    for ply in 0..=last {
        let pos = game.position().clone();
        let moves = pos.legal_moves();
        if moves.is_empty()
            || game.is_threefold()
            || game.is_fifty_moves()
            || pos.is_insufficient_material()
        {
            break;
        }
        if args.plies.contains(&ply) {
            out.push((ply, analyse(&pos, args.max_level)));
        }
        if ply == last {
            break;
        }
        rng = splitmix(rng);
        let random = (rng >> 11) as f64 / (1u64 << 53) as f64 <= args.random_prob;
        let m = if random {
            rng = splitmix(rng);
            moves[(rng % moves.len() as u64) as usize]
        } else {
            engine
                .search(&game, &Limits::depth(args.depth), &Silent)
                .best
                .unwrap_or(moves[0])
        };
        game.push(m);
    }
    Ok(out)
}

pub fn run(args: &GenerateArgs) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, usize, Analysis)>> = Mutex::new(Vec::new());
    let error: Mutex<Option<String>> = Mutex::new(None);
    let bar = indicatif::ProgressBar::new(args.games as u64);
    std::thread::scope(|s| {
        for _ in 0..args.threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= args.games {
                        break;
                    }
                    match play_game(i, args) {
                        Ok(found) => {
                            if let Ok(mut r) = results.lock() {
                                r.extend(found.into_iter().map(|(p, a)| (i, p, a)));
                            }
                        }
                        Err(e) => {
                            if let Ok(mut slot) = error.lock() {
                                *slot = Some(e);
                            }
                            break;
                        }
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = error.into_inner().ok().flatten() {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_default();
    let levels: Vec<u8> = [1, 3, 5, 7]
        .into_iter()
        .filter(|&k| k <= args.max_level)
        .collect();
    let mut csv = String::from("game,ply,fen,shallowest_level,trap_moves,legal_moves,time_ms\n");
    for (g, ply, a) in &results {
        let _ = writeln!(
            csv,
            "{g},{ply},\"{}\",{},{},{},{:.1}",
            a.fen,
            a.shallowest.map_or(String::new(), |l| l.to_string()),
            a.traps.len(),
            a.legal_moves,
            a.time.as_secs_f64() * 1000.0
        );
    }
    std::fs::write(&args.csv, csv).map_err(|e| format!("cannot write {}: {e}", args.csv))?;
    println!(
        "{} semi-random games (random move with probability {}, else pvs depth {}), seed {}",
        args.games, args.random_prob, args.depth, args.seed
    );
    print!("| ply | positions |");
    for k in &levels {
        print!(" at risk, level <= {k} |");
    }
    println!();
    println!("|{}", " --- |".repeat(levels.len() + 2));
    let mut series: Vec<Series> = levels
        .iter()
        .map(|k| Series {
            name: format!("level <= {k}"),
            points: Vec::new(),
        })
        .collect();
    for &ply in &args.plies {
        let at: Vec<&Analysis> = results
            .iter()
            .filter(|(_, p, _)| *p == ply)
            .map(|(_, _, a)| a)
            .collect();
        print!("| {ply} | {} |", at.len());
        for (k, s) in levels.iter().zip(series.iter_mut()) {
            let n = at.iter().filter(|a| a.at_risk_within(*k)).count();
            let share = 100.0 * n as f64 / at.len().max(1) as f64;
            print!(" {share:.1}% ({n}) |");
            s.points.push((ply as f64, share));
        }
        println!();
    }
    let categories: Vec<String> = args.plies.iter().map(|p| format!("ply {p}")).collect();
    let chart = bar_chart(
        "Positions at risk in semi-random games, by ply and trap level",
        "% of positions",
        &categories,
        &series,
    );
    std::fs::write(&args.svg, chart).map_err(|e| format!("cannot write {}: {e}", args.svg))?;
    println!("wrote {} and {}", args.csv, args.svg);
    Ok(())
}
