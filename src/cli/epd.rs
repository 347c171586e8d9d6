//! `searchlight epd`: runs a test suite (`bm`/`am` in SAN) at a fixed time per position
//! and prints solved/total — for one or several players in the same run, so that a peer
//! such as Stockfish is measured exactly the same way. `--csv` keeps one row per player
//! and position for a spreadsheet. `--nodes` replaces the clock by a node budget: with one
//! thread the result is then the same on every run and every machine, so two builds can
//! be compared without the second-to-second noise of a timed run. `--concurrency` shares
//! the positions out over a few workers (the one worker pool), each with its own
//! instance of the player.

use std::fs::File;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use shakmaty::san::SanPlus;

use super::{fail, progress, read};
use crate::board::Game;
use crate::board::epd::{self, EpdRecord};
use crate::experiments::csv;
use crate::matches::player::{Player, Turn};
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
    /// A node budget per position instead of the time (`go nodes N`).
    #[arg(long, conflicts_with = "movetime")]
    pub nodes: Option<u64>,
    /// A player: a backend name with options (`"pvs Hash=64"`) or an external engine
    /// (`"cmd=/usr/games/stockfish"`). Repeat to compare; default `pvs`.
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// Positions searched at once, each worker with its own instance of the player (one
    /// engine process each for an external engine). For a timed run keep this times the
    /// engine's threads within the cores, or the players share them unevenly.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub concurrency: u64,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
    /// Also write one CSV row per engine and position to this file:
    /// `engine,id,expected,played,solved,depth,time_ms,found_ms,found_depth`. `expected`
    /// is the `bm` moves as the suite writes them (`am ` before avoided ones), `played`
    /// the move in SAN, `depth` empty when the engine reported none, `time_ms` the
    /// search's wall time; `found_ms` and `found_depth` say when the main line last
    /// turned to a solving move and kept one to the end (empty when not solved, or when
    /// the engine's lines never showed it).
    #[arg(long)]
    pub csv: Option<String>,
}

/// The columns of `--csv`.
const CSV_HEADER: [&str; 9] = [
    "engine",
    "id",
    "expected",
    "played",
    "solved",
    "depth",
    "time_ms",
    "found_ms",
    "found_depth",
];

/// What one player did on one position.
struct Outcome {
    id: String,
    /// The move in SAN, or why there is none.
    played: Result<String, String>,
    solved: bool,
    depth: Option<u32>,
    score: Option<String>,
    time: Duration,
    /// When the solution was found for good: the time and depth of the main line's turn
    /// to a solving move that no later turn undid.
    found: Option<(Duration, Option<u32>)>,
}

/// The `--csv` file, written a row at a time so that an interrupted run keeps its rows.
struct CsvFile {
    path: String,
    file: File,
}

impl CsvFile {
    fn create(path: &str) -> Result<Self, String> {
        let file = File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?;
        let mut out = CsvFile {
            path: path.to_string(),
            file,
        };
        out.write(&csv::row(&CSV_HEADER))?;
        Ok(out)
    }

    fn write(&mut self, line: &str) -> Result<(), String> {
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path))
    }
}

pub fn run(args: &EpdArgs) -> ExitCode {
    let records = match load(&args.file) {
        Ok(r) => r,
        Err(e) => return fail("epd", e),
    };
    let specs = if args.engines.is_empty() {
        vec!["pvs".to_string()]
    } else {
        args.engines.clone()
    };
    // Opened before any search, so that a bad path fails at once, not after the suite.
    let mut csv = match args.csv.as_deref().map(CsvFile::create).transpose() {
        Ok(c) => c,
        Err(e) => return fail("epd", e),
    };
    let named = specs.len() > 1;
    let mut summary = Vec::new();
    for text in &specs {
        match run_suite(text, &records, args, named, csv.as_mut()) {
            Ok(result) => summary.push(result),
            Err(e) => return fail("epd", e),
        }
    }
    println!();
    let budget = match args.nodes {
        Some(n) => format!("{n} nodes"),
        None => format!("{} ms", args.movetime),
    };
    for (name, solved, found) in &summary {
        println!(
            "{name}: solved {solved}/{} at {budget} per position ({}){}",
            records.len(),
            args.file,
            solution_times(found)
        );
    }
    if let Some(csv) = &csv {
        println!("wrote {}", csv.path);
    }
    ExitCode::SUCCESS
}

/// The suite's records; a line that is not one is reported and skipped, and so is a
/// position that names neither a best nor an avoided move (any move would solve it, and
/// count). A suite left without a record is an error.
fn load(path: &str) -> Result<Vec<EpdRecord>, String> {
    let text = read(path)?;
    let mut records = Vec::new();
    for line in epd::read(&text) {
        let number = line.as_ref().map_or(0, |l| l.line);
        match line.and_then(|l| EpdRecord::from_line(&l)) {
            Ok(r) if r.best.is_empty() && r.avoid.is_empty() => {
                eprintln!("warning: {path}: line {number}: neither bm nor am; skipped");
            }
            Ok(r) => records.push(r),
            Err(e) => eprintln!("warning: {path}: {e}; skipped"),
        }
    }
    if records.is_empty() {
        return Err(format!(
            "{path}: no position with a bm or am operation (EPD: FEN, then `bm Qg6;` or `am Bxh7;`)"
        ));
    }
    Ok(records)
}

/// What `run_suite` returns for a player: its name, the solved count and the solution
/// times that are known.
type Tally = (String, usize, Vec<Duration>);

/// Runs the suite with one player, `--concurrency` positions at a time (each worker with
/// its own instance of the player): a table line per position on stdout (named after the
/// player when several are compared) and a CSV row per position, both in the suite's
/// order whatever order the workers finish in.
fn run_suite(
    text: &str,
    records: &[EpdRecord],
    args: &EpdArgs,
    named: bool,
    mut csv: Option<&mut CsvFile>,
) -> Result<Tally, String> {
    let spec = EngineSpec::parse(text).map_err(|e| e.to_string())?;
    let name = &spec.name;
    let bar = progress(records.len(), "{prefix} {bar:40} {pos}/{len} solved {msg}");
    bar.set_prefix(name.clone());
    let (limits, deadline) = limits(args);
    let (mut solved, mut found) = (0, Vec::new());
    let mut failed = Ok(());
    // Finished positions wait here until every earlier one is printed.
    let mut pending: Vec<Option<Outcome>> = Vec::new();
    pending.resize_with(records.len(), || None);
    let mut printed = 0;
    crate::pool::run(
        records.len(),
        args.concurrency as usize,
        || Player::start(&spec).map_err(|e| format!("{name}: {e}")),
        |player, i| {
            let player = player.as_mut().map_err(|e| e.clone())?;
            if let Err(e) = player.new_game() {
                // Not `bar.println`: a hidden bar (stderr not a terminal) would drop it.
                bar.suspend(|| eprintln!("{name}: {e}"));
            }
            Ok(attempt(player, &records[i], i, &limits, deadline))
        },
        |i, result: Result<Outcome, String>| {
            let outcome = match result {
                Ok(o) => o,
                Err(e) => {
                    failed = Err(e);
                    return false;
                }
            };
            pending[i] = Some(outcome);
            while let Some(outcome) = pending.get_mut(printed).and_then(Option::take) {
                let record = &records[printed];
                printed += 1;
                solved += usize::from(outcome.solved);
                found.extend(outcome.found.map(|(at, _)| at));
                if !args.quiet {
                    let prefix = if named {
                        format!("{name:<12} ")
                    } else {
                        String::new()
                    };
                    let line = table_line(record, &outcome);
                    bar.suspend(|| println!("{prefix}{line}"));
                }
                if let Some(csv) = csv.as_deref_mut() {
                    failed = csv.write(&csv_row(name, record, &outcome));
                    if failed.is_err() {
                        return false;
                    }
                }
                bar.set_message(solved.to_string());
                bar.inc(1);
            }
            true
        },
    );
    bar.finish_and_clear();
    failed?;
    Ok((spec.name.clone(), solved, found))
}

/// The median and the slowest of the solution times, for the summary line: how much of
/// the budget the solved positions needed.
fn solution_times(found: &[Duration]) -> String {
    let mut ms: Vec<u128> = found.iter().map(Duration::as_millis).collect();
    ms.sort_unstable();
    match (ms.get(ms.len() / 2), ms.last()) {
        (Some(median), Some(slowest)) => {
            format!("; solution time median {median} ms, slowest {slowest} ms")
        }
        _ => String::new(),
    }
}

/// The `go` of every position and how long to wait for its answer: the time plus two
/// seconds, or for a node budget a minute plus its time at ten thousand nodes a second
/// (an engine slower than that is taken to have hung).
fn limits(args: &EpdArgs) -> (Limits, Duration) {
    match args.nodes {
        Some(n) => (
            Limits::nodes(n),
            Duration::from_secs(60) + Duration::from_millis(n / 10),
        ),
        None => (
            Limits::movetime(args.movetime),
            Duration::from_millis(args.movetime + 2000),
        ),
    }
}

/// One search of one position, timed.
fn attempt(
    player: &mut Player,
    record: &EpdRecord,
    index: usize,
    limits: &Limits,
    deadline: Duration,
) -> Outcome {
    let game = Game::new(record.position.clone());
    let id = record
        .id
        .clone()
        .unwrap_or_else(|| format!("#{}", index + 1));
    let started = Instant::now();
    let thought = player.think(&game, limits, deadline);
    let time = started.elapsed();
    match thought {
        Ok(t) => {
            let solved = record.solved_by(t.best);
            Outcome {
                id,
                played: Ok(SanPlus::from_move(record.position.chess().clone(), t.best).to_string()),
                solved,
                depth: t.depth,
                score: t.score.map(|s| s.to_string()),
                time,
                found: if solved {
                    found(record, &t.turns)
                } else {
                    None
                },
            }
        }
        Err(e) => Outcome {
            id,
            played: Err(e.to_string()),
            solved: false,
            depth: None,
            score: None,
            time,
            found: None,
        },
    }
}

/// The turn of the main line after which every first move solved the record: the solution
/// time a suite reports, which says how much of the budget a solved position needed.
fn found(record: &EpdRecord, turns: &[Turn]) -> Option<(Duration, Option<u32>)> {
    let mut found = None;
    for turn in turns {
        if turn.first.is_some_and(|m| record.solved_by(m)) {
            found.get_or_insert((turn.at, turn.depth));
        } else {
            found = None;
        }
    }
    found
}

/// The moves the record names, as the suite writes them: `Qg6`, `am Bxh7`, or both.
fn expected(record: &EpdRecord) -> String {
    let spaced = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut parts = Vec::new();
    if !record.best_text.is_empty() {
        parts.push(spaced(&record.best_text));
    }
    if !record.avoid_text.is_empty() {
        parts.push(format!("am {}", spaced(&record.avoid_text)));
    }
    parts.join(" ")
}

fn table_line(record: &EpdRecord, o: &Outcome) -> String {
    let id = &o.id;
    match &o.played {
        Ok(san) => {
            let verdict = if o.solved { "ok  " } else { "MISS" };
            let expected = if record.best_text.is_empty() {
                expected(record)
            } else {
                format!("bm {}", expected(record))
            };
            let score = o.score.as_deref().unwrap_or_default();
            let found = match o.found {
                Some((at, Some(depth))) => {
                    format!("  found at {} ms, depth {depth}", at.as_millis())
                }
                Some((at, None)) => format!("  found at {} ms", at.as_millis()),
                None => String::new(),
            };
            format!("{id:<10} {verdict} {san:<7} {expected}  [{score}]{found}")
        }
        Err(e) => format!("{id:<10} ERR  {e}"),
    }
}

fn csv_row(engine: &str, record: &EpdRecord, o: &Outcome) -> String {
    let played = o.played.as_deref().unwrap_or_default();
    let depth = o.depth.map(|d| d.to_string()).unwrap_or_default();
    let ms = o.time.as_millis().to_string();
    let (found_ms, found_depth) = match o.found {
        Some((at, depth)) => (
            at.as_millis().to_string(),
            depth.map(|d| d.to_string()).unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    };
    csv::row(&[
        engine,
        &o.id,
        &expected(record),
        played,
        if o.solved { "true" } else { "false" },
        &depth,
        &ms,
        &found_ms,
        &found_depth,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> EpdRecord {
        let text =
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";";
        let line = epd::read(text).next().unwrap().unwrap();
        EpdRecord::from_line(&line).unwrap()
    }

    fn turn(ms: u64, depth: u32, uci: &str) -> Turn {
        let pos = record().position;
        Turn {
            at: Duration::from_millis(ms),
            depth: Some(depth),
            first: pos.parse_uci(uci).ok(),
        }
    }

    #[test]
    fn the_solution_time_is_the_last_turn_to_the_key_that_stayed() {
        let r = record();
        let at = |ms| Some((Duration::from_millis(ms), Some(ms as u32)));
        assert_eq!(found(&r, &[]), None);
        assert_eq!(found(&r, &[turn(1, 1, "g3g6")]), at(1));
        // Found, lost, found again: the second find is the one that counts.
        let back_and_forth = [turn(1, 1, "g3g6"), turn(2, 2, "g3g4"), turn(3, 3, "g3g6")];
        assert_eq!(found(&r, &back_and_forth), at(3));
        assert_eq!(found(&r, &back_and_forth[..2]), None);
        // A move that is not legal here never solves.
        assert_eq!(found(&r, &[turn(1, 1, "a1a8")]), None);
    }

    #[test]
    fn a_position_without_bm_or_am_is_no_test_and_a_suite_of_none_is_refused() {
        let dir = std::env::temp_dir().join(format!("searchlight-epd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let suite = dir.join("suite.epd");
        let startpos = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        std::fs::write(
            &suite,
            format!("{startpos} bm e4; id \"a\";\n{startpos} id \"b\";\n"),
        )
        .unwrap();
        let records = load(suite.to_str().unwrap()).unwrap();
        let ids: Vec<_> = records.iter().map(|r| r.id.as_deref()).collect();
        assert_eq!(ids, [Some("a")]);

        std::fs::write(&suite, format!("{startpos} id \"b\";\n")).unwrap();
        let e = load(suite.to_str().unwrap()).unwrap_err();
        assert!(e.contains("no position with a bm or am"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
