//! `searchlight traps --pgn FILE`: the traps of real games, read as a stream (bounded
//! memory whatever the file's size), analysed in batches on `--threads` workers, one game
//! each, and printed in file order as each batch is done.

use std::fs::File;
use std::io::{BufReader, IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::traps::{Format, TrapsArgs};
use crate::board::Position;
use crate::board::pgn::{PgnGame, PgnReader};
use crate::experiments::trap_check::{check_backends, parse_budget};
use crate::search::Limits;
use crate::traps::Analysis;
use crate::traps::games::{CSV_HEADER, GameReport, Summary, analyse_game, csv_rows, falls_text};
use crate::traps::report::{GameSketch, page};

/// Games read ahead per worker: enough to keep every worker busy, few enough that a
/// million-game file never sits in memory.
const BATCH_PER_THREAD: usize = 4;

pub fn run(args: &TrapsArgs, path: &str) -> Result<(), String> {
    let file = File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let budget = if args.check_backends.is_empty() {
        None
    } else {
        Some(parse_budget(&args.budget).map_err(|e| e.to_string())?)
    };
    let mut sketches: Vec<GameSketch> = Vec::new();
    // An unwritable report fails now, not after hours of analysis.
    let mut html = args
        .html
        .as_ref()
        .map(|out| File::create(out).map_err(|e| format!("cannot write {out}: {e}")))
        .transpose()?;
    let mut summary_file = args
        .summary
        .as_ref()
        .map(|out| File::create(out).map_err(|e| format!("cannot write {out}: {e}")))
        .transpose()?;
    let plies = args.plies.clone();
    let wanted = move |ply: usize| plies.is_empty() || plies.contains(&ply);
    let threads = args.threads.max(1);
    let bar = spinner();
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut games = PgnReader::new(BufReader::new(file))
        .skip(args.skip)
        .take(args.take.unwrap_or(usize::MAX));
    if args.format == Format::Csv {
        println!("{CSV_HEADER}");
    }
    loop {
        let mut batch: Vec<PgnGame> = Vec::new();
        for game in games.by_ref() {
            match game {
                Ok(g) => {
                    if let Some(why) = &g.stopped {
                        bar.suspend(|| {
                            eprintln!(
                                "traps: {path}: game {}: {why}; analysed up to there",
                                g.number
                            );
                        });
                    }
                    batch.push(g);
                }
                Err(e) => {
                    summary.skipped += 1;
                    bar.suspend(|| eprintln!("traps: {path}: {e}; skipped"));
                }
            }
            if batch.len() == threads * BATCH_PER_THREAD {
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        for report in analyse_batch(&batch, args.max_level, threads, &wanted) {
            summary.add(&report, args.max_level);
            let chose = match &budget {
                Some(limits) => backends_falling(&report, &args.check_backends, limits)?,
                None => Vec::new(),
            };
            bar.suspend(|| print_game(&report, args.format, &chose));
            if args.html.is_some() {
                sketches.push(GameSketch::of(&report, |ply| {
                    chose
                        .iter()
                        .filter(|(p, _)| *p == ply)
                        .map(|(_, b)| b.clone())
                        .collect()
                }));
            }
        }
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        bar.set_position(summary.games as u64);
        bar.set_message(format!(
            "{:.2} games/s, {:.1} positions/s",
            summary.games as f64 / seconds,
            summary.positions as f64 / seconds
        ));
    }
    bar.finish_and_clear();
    if let (Some(file), Some(out)) = (html.as_mut(), &args.html) {
        let title = format!("Search traps in {path} (level ≤ {})", args.max_level);
        file.write_all(page(&title, &summary, &sketches, &args.check_backends).as_bytes())
            .map_err(|e| format!("cannot write {out}: {e}"))?;
        eprintln!("wrote {out}");
    }
    if args.format == Format::Table {
        print!("\n{}", summary.table());
    } else {
        eprint!("\n{}", summary.table());
    }
    if let (Some(file), Some(out)) = (summary_file.as_mut(), &args.summary) {
        write_summary(&summary, file, out)?;
    }
    Ok(())
}

fn write_summary(summary: &Summary, file: &mut File, out: &str) -> Result<(), String> {
    let json = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
    writeln!(file, "{json}").map_err(|e| format!("cannot write {out}: {e}"))
}

/// `traps merge`: the shards' summaries added up, printed as one table.
pub fn merge(files: &[String], out: Option<&str>) -> Result<(), String> {
    let mut total = Summary::default();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let shard: Summary =
            serde_json::from_str(&text).map_err(|e| format!("{path}: not a summary: {e}"))?;
        total.merge(&shard).map_err(|e| format!("{path}: {e}"))?;
    }
    print!("{}", total.table());
    match out {
        Some(out) => {
            let mut file = File::create(out).map_err(|e| format!("cannot write {out}: {e}"))?;
            write_summary(&total, &mut file, out)
        }
        None => Ok(()),
    }
}

/// The reports of a batch, in the batch's order.
fn analyse_batch(
    batch: &[PgnGame],
    max_level: u8,
    threads: usize,
    wanted: &(impl Fn(usize) -> bool + Sync),
) -> Vec<GameReport> {
    let mut reports: Vec<(usize, GameReport)> = Vec::with_capacity(batch.len());
    crate::pool::run(
        batch.len(),
        threads,
        || (),
        |(), i| (i, analyse_game(&batch[i], max_level, wanted)),
        |_, r| {
            reports.push(r);
            true
        },
    );
    reports.sort_by_key(|(i, _)| *i);
    reports.into_iter().map(|(_, r)| r).collect()
}

/// `(ply, backend)` for each fall of the game where a backend, searching under `limits`,
/// chose a trap move too.
fn backends_falling(
    report: &GameReport,
    backends: &[String],
    limits: &Limits,
) -> Result<Vec<(usize, String)>, String> {
    let results: Vec<(usize, Analysis)> = report
        .falls()
        .map(|p| (p.ply, p.analysis.clone()))
        .collect();
    if results.is_empty() {
        return Ok(Vec::new());
    }
    let positions: Vec<(usize, &Position)> = report.falls().map(|p| (p.ply, &p.position)).collect();
    let checks =
        check_backends(&results, &positions, backends, limits).map_err(|e| e.to_string())?;
    Ok(checks
        .checks
        .into_iter()
        .filter(|c| c.trap_level.is_some())
        .map(|c| (c.line, c.backend))
        .collect())
}

fn print_game(report: &GameReport, format: Format, chose: &[(usize, String)]) {
    match format {
        Format::Table => {
            print!("{}", falls_text(report));
            for (ply, backend) in chose {
                println!(
                    "    game {} ply {ply}: {backend} chose a trap move too",
                    report.number
                );
            }
        }
        Format::Csv => print!("{}", csv_rows(report)),
        // One JSON object per game and line (JSON Lines), so the output streams too.
        Format::Json => match serde_json::to_string(report) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("traps: {e}"),
        },
    }
}

/// Games done, their rate and the positions' rate; hidden when stderr is not a terminal.
fn spinner() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} games {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
