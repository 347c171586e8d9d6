//! `searchlight epd`: runs a test suite (`bm`/`am` in SAN) at a fixed time per position
//! and prints solved/total — for one or several players in the same run, so that a peer
//! such as Stockfish is measured exactly the same way.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use shakmaty::san::San;

use super::{fail, progress, read};
use crate::board::Game;
use crate::board::epd::{self, EpdRecord};
use crate::matches::player::Player;
use crate::matches::spec::EngineSpec;
use crate::search::Limits;

#[derive(Debug, Args)]
pub struct EpdArgs {
    /// The EPD suite.
    #[arg(long)]
    pub file: String,
    /// Time per position in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// A player: a backend name with options (`"pvs Hash=64"`) or an external engine
    /// (`"cmd=/usr/games/stockfish"`). Repeat to compare; default `pvs`.
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &EpdArgs) -> ExitCode {
    let text = match read(&args.file) {
        Ok(t) => t,
        Err(e) => return fail("epd", e),
    };
    let mut records = Vec::new();
    for line in epd::read(&text) {
        match line.and_then(|l| EpdRecord::from_line(&l)) {
            Ok(r) => records.push(r),
            Err(e) => eprintln!("warning: {}: {e}; skipped", args.file),
        }
    }
    let specs = if args.engines.is_empty() {
        vec!["pvs".to_string()]
    } else {
        args.engines.clone()
    };
    let mut summary = Vec::new();
    for text in &specs {
        let player = EngineSpec::parse(text)
            .map_err(|e| e.to_string())
            .and_then(|spec| Player::start(&spec).map_err(|e| format!("{}: {e}", spec.name)));
        let mut player = match player {
            Ok(p) => p,
            Err(e) => return fail("epd", e),
        };
        let solved = run_suite(&mut player, &records, args);
        summary.push((player.name.clone(), solved));
    }
    println!();
    for (name, solved) in &summary {
        println!(
            "{name}: solved {solved}/{} at {} ms per position ({})",
            records.len(),
            args.movetime,
            args.file
        );
    }
    ExitCode::SUCCESS
}

fn run_suite(player: &mut Player, records: &[EpdRecord], args: &EpdArgs) -> usize {
    let bar = progress(records.len(), "{prefix} {bar:40} {pos}/{len} solved {msg}");
    bar.set_prefix(player.name.clone());
    let limits = Limits::movetime(args.movetime);
    let deadline = Duration::from_millis(args.movetime + 2000);
    let mut solved = 0;
    for (i, record) in records.iter().enumerate() {
        if let Err(e) = player.new_game() {
            bar.println(format!("{}: {e}", player.name));
        }
        let game = Game::new(record.position.clone());
        let id = record.id.clone().unwrap_or_else(|| format!("#{}", i + 1));
        let line = match player.think(&game, &limits, deadline) {
            Ok(thought) => {
                let ok = record.solved_by(thought.best);
                solved += usize::from(ok);
                let san = San::from_move(record.position.chess(), thought.best);
                let expected = if record.best_text.is_empty() {
                    format!("am {}", record.avoid_text)
                } else {
                    format!("bm {}", record.best_text)
                };
                let score = thought.score.map(|s| s.to_string()).unwrap_or_default();
                let verdict = if ok { "ok  " } else { "MISS" };
                format!("{id:<10} {verdict} {san:<7} {expected}  [{score}]")
            }
            Err(e) => format!("{id:<10} ERR  {e}"),
        };
        if !args.quiet {
            bar.suspend(|| println!("{line}"));
        }
        bar.set_message(solved.to_string());
        bar.inc(1);
    }
    bar.finish_and_clear();
    solved
}
