//! `searchlight match`: engine-vs-engine games between in-process backends and external
//! UCI engines — a match, a round robin or a gauntlet — with PGN output, a live progress
//! line, per-pairing statistics, an Elo table, and an optional SPRT.

use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::fail;
use crate::board::tablebase::Tablebases;
use crate::matches::json::{self, GameEntry, MatchInfo};
use crate::matches::openings::Openings;
use crate::matches::player::Player;
use crate::matches::standings::{Sprt, Standings};
use crate::matches::{
    Adjudication, Draw, GameSettings, INTERRUPT, Job, Participant, Resign, engines_file,
    opening_order, openings, pairings, participants, pgn, run as play, schedule,
};

/// The rules the games are played under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    Standard,
    /// Chess960: `UCI_Chess960` set on every player, castling written king-takes-rook.
    #[value(alias = "chess960")]
    Fischerandom,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OpeningsOrder {
    Sequential,
    Random,
}

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// A player: a backend with options (`"pvs Hash=64"`), an external engine
    /// (`"cmd=/usr/games/stockfish option.Skill Level=3 name=sf3"`) or `conf=NAME` from
    /// the engines file; limits `tc=40/60+0.6`, `st=SEC`, `nodes=N`, `depth=N` override
    /// --tc. Two players play a match, more a round robin.
    #[arg(long = "engine", required = true, value_name = "SPEC")]
    engines: Vec<String>,
    /// The first player against each other one only.
    #[arg(long)]
    gauntlet: bool,
    /// Games per pairing (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 2)]
    games: u32,
    /// Clock for players without limits of their own: `moves/base+inc`, `base+inc`
    /// (seconds).
    #[arg(long)]
    tc: Option<String>,
    /// Opening positions: EPD/FEN lines, or a .pgn file (each game's end position);
    /// default: the balanced 8-ply set built into the binary (the 960 start positions
    /// with `--variant fischerandom`); `startpos` for the start position only.
    #[arg(long)]
    openings: Option<String>,
    /// With a .pgn file of openings: each game's position after its first N plies
    /// (cutechess-cli's `plies=N`), so that whole games can serve as openings.
    #[arg(long, value_name = "N")]
    opening_plies: Option<usize>,
    /// `fischerandom` (alias `chess960`) plays Chess960; an opening file with a Chess960
    /// position does too.
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    variant: Variant,
    #[arg(long, value_enum, default_value_t = OpeningsOrder::Sequential)]
    openings_order: OpeningsOrder,
    /// Seed of the random opening order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Append each finished game to this PGN file.
    #[arg(long)]
    pgnout: Option<String>,
    /// Write the results as JSON (players, pairings with W-D-L, Elo, nElo, LOS,
    /// pentanomial, the SPRT, terminations, every game), kept up to date during the match.
    #[arg(long, value_name = "FILE")]
    json: Option<String>,
    /// Adjudicate a loss, as cutechess-cli and fastchess do: `movecount=N score=CP
    /// [twosided=true]` (a side's engine sees it CP behind for N of its moves; twosided: the
    /// opponent's engine agrees), or the short form `MOVES CP` (two-sided).
    #[arg(long, num_args = 1..=3, value_name = "KEY=VALUE", allow_negative_numbers = true)]
    resign: Option<Vec<String>>,
    /// Adjudicate a draw: `movenumber=N movecount=N score=CP` (both engines see the score
    /// within CP of 0 for N moves each, after move `movenumber`), or `MOVES CP`.
    #[arg(long, num_args = 1..=3, value_name = "KEY=VALUE", allow_negative_numbers = true)]
    draw: Option<Vec<String>>,
    /// Adjudicate by Syzygy endgame tables, as cutechess-cli's `-tb`: a game that reaches
    /// a position the tables in these directories hold (`:`-separated) ends with their
    /// result under the fifty-move rule.
    #[arg(long, value_name = "DIRS")]
    tb: Option<String>,
    /// With `--tb`: adjudicate only positions of at most this many pieces.
    #[arg(long, default_value_t = 7, value_name = "N")]
    tb_pieces: usize,
    /// Adjudicate a draw when a game is still going after N moves of each side, counted
    /// from its opening position, as cutechess-cli's `-maxmoves`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    maxmoves: Option<u32>,
    /// Stop when the SPRT decides (two players): `elo0=0 elo1=5 alpha=0.05 beta=0.05
    /// model=logistic` (or `model=normalized`: the bounds in normalized Elo, as fastchess
    /// and fishtest take them).
    #[arg(long, num_args = 0..=5, value_name = "KEY=VALUE")]
    sprt: Option<Vec<String>>,
    /// Milliseconds an external engine may exceed its clock before it loses on time.
    #[arg(long, default_value_t = 200)]
    timemargin: u64,
    /// Seconds an external engine without a clock may think before it counts as hung.
    #[arg(long, default_value_t = 60)]
    hang: u64,
    /// Engine definitions for `conf=NAME`.
    #[arg(long, default_value = "engines/engines.json")]
    engines_file: String,
    /// The PGN Event tag.
    #[arg(long, default_value = "Searchlight match")]
    event: String,
}

pub fn run(args: &MatchArgs) -> ExitCode {
    match run_match(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail("match", e),
    }
}

/// What a match plays, settled before the first game.
struct Plan {
    participants: Vec<Participant>,
    openings: Openings,
    sprt: Option<Sprt>,
    pairs: Vec<(usize, usize)>,
    jobs: Vec<Job>,
}

/// The players, openings, SPRT and schedule the arguments ask for, or why they cannot be.
fn plan(args: &MatchArgs) -> Result<Plan, String> {
    if args.engines.len() < 2 {
        return Err("a match needs at least two --engine".into());
    }
    let global_tc = args
        .tc
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e| format!("{e}"))?;
    let entries = std::fs::read_to_string(&args.engines_file)
        .ok()
        .and_then(|t| engines_file::parse(&t).ok())
        .unwrap_or_default();
    let mut participants =
        participants(&args.engines, global_tc, &entries).map_err(|e| e.to_string())?;
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| e.to_string())?;
    if sprt.is_some() && participants.len() != 2 {
        return Err("--sprt needs exactly two players".into());
    }
    if args.opening_plies.is_some() && !args.openings.as_deref().is_some_and(openings::is_pgn) {
        return Err("--opening-plies cuts the games of a .pgn file given by --openings".into());
    }
    let openings = openings::load(
        args.openings.as_deref(),
        args.variant == Variant::Fischerandom,
        args.opening_plies,
    )
    .map_err(|e| e.to_string())?;
    if openings.chess960 {
        if args.variant == Variant::Standard {
            eprintln!(
                "{} holds Chess960 positions: the match is played as Chess960",
                openings.source
            );
        }
        for p in &mut participants {
            p.spec.options.push(("UCI_Chess960".into(), "true".into()));
        }
    }
    if sprt.is_some()
        && openings.positions.len() == 1
        && participants.iter().all(|p| p.is_deterministic())
    {
        return Err(format!(
            "--sprt with one opening ({}) and players that search fixed nodes or depth: \
             every game pair would repeat the first, so the test would count one result many \
             times; give more openings or a clock",
            openings.source
        ));
    }
    let random = args.openings_order == OpeningsOrder::Random;
    let order = opening_order(openings.positions.len(), random, args.seed);
    let pairs = pairings(participants.len(), args.gauntlet);
    let jobs = schedule(&pairs, args.games, &order);
    Ok(Plan {
        participants,
        openings,
        sprt,
        pairs,
        jobs,
    })
}

/// Starts each player once before the first game. A player that cannot start at all (an
/// unknown option or value of an in-process backend, a command that is not there) would
/// forfeit every game it is drawn for in no time; that is a mistake in the command line,
/// not a result, so the match is refused. A later failure to start (a flaky external
/// engine) still forfeits only its game.
fn preflight(participants: &[Participant]) -> Result<(), String> {
    for p in participants {
        Player::start(&p.spec).map_err(|e| format!("{}: {e}", p.name))?;
    }
    Ok(())
}

fn run_match(args: &MatchArgs) -> Result<(), String> {
    let settings = game_settings(args)?;
    let plan = plan(args)?;
    preflight(&plan.participants)?;
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut pgn_file = open_pgn(args.pgnout.as_deref())?;
    let Plan {
        participants,
        openings,
        sprt,
        pairs,
        jobs,
    } = plan;
    eprintln!(
        "{} {}games, {} pairing(s), openings: {} ({} positions, {:?}), concurrency {concurrency}",
        jobs.len(),
        if openings.chess960 { "Chess960 " } else { "" },
        pairs.len(),
        openings.source,
        openings.positions.len(),
        args.openings_order
    );
    for p in &participants {
        eprintln!("  {}: {}", p.name, p.limits.describe());
    }
    // Ctrl-C: finish cleanly (no new games, games under way dropped, engines ended, the
    // table of the games so far); a second Ctrl-C exits at once. The PGN holds every
    // finished game either way.
    let _ = ctrlc::set_handler(|| {
        if INTERRUPT.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping (Ctrl-C again to exit at once)");
    });
    let names: Vec<String> = participants.iter().map(|p| p.name.clone()).collect();
    let mut st = Standings::new(participants.len(), pairs, sprt);
    let date = pgn::today();
    let tty = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut write_error: Option<String> = None;
    let mut entries: Vec<GameEntry> = Vec::new();
    let mut json_written = Instant::now();
    let info = |seconds: f64| MatchInfo {
        event: &args.event,
        variant: if openings.chess960 {
            "fischerandom"
        } else {
            "standard"
        },
        openings: &openings.source,
        players: participants
            .iter()
            .map(|p| (p.name.clone(), p.limits.describe()))
            .collect(),
        scheduled: jobs.len(),
        seconds,
        interrupted: INTERRUPT.load(Ordering::Relaxed),
    };
    play(
        &jobs,
        &participants,
        &openings.positions,
        &settings,
        concurrency,
        |finished| {
            if let Some(file) = pgn_file.as_mut() {
                let text = pgn::render(&finished.record, &args.event, &date);
                if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    write_error = Some(e.to_string());
                }
            }
            let go_on = st.add(&finished);
            entries.push(GameEntry::of(&finished));
            // Rewritten at most once a second, so a long match does not spend its time
            // writing; the last write after the match has every game.
            if let Some(path) = &args.json
                && json_written.elapsed() >= Duration::from_secs(1)
            {
                let value = json::render(
                    &info(started.elapsed().as_secs_f64()),
                    &st,
                    &names,
                    &entries,
                );
                if let Err(e) = json::write(path, &value) {
                    write_error = Some(format!("{path}: {e}"));
                }
                json_written = Instant::now();
            }
            let line = st.progress_line(&finished, &names, jobs.len());
            if tty {
                eprint!("\r\x1b[K{line}");
            } else {
                eprintln!("{line}");
            }
            go_on
        },
    );
    if tty {
        eprintln!();
    }
    if INTERRUPT.load(Ordering::Relaxed) {
        eprintln!("interrupted after {} finished games", st.done);
    }
    if let Some(e) = write_error {
        eprintln!("warning: writing the PGN or JSON failed: {e}");
    }
    let seconds = started.elapsed().as_secs_f64();
    report(args, &st, &names, seconds);
    if let Some(path) = &args.json {
        json::write(path, &json::render(&info(seconds), &st, &names, &entries))
            .map_err(|e| format!("{path}: {e}"))?;
        println!("JSON: {path}");
    }
    Ok(())
}

/// The tables on stdout after the match.
fn report(args: &MatchArgs, st: &Standings, names: &[String], seconds: f64) {
    println!("\n{} games in {seconds:.1} s", st.done);
    print!("\n{}", st.pairing_table(names));
    if let Some(warning) = st.repeated_warning() {
        eprintln!("{warning}");
        println!("\nrepeated games: {} of {}", st.repeated, st.done);
    }
    if names.len() > 2 {
        print!("\n{}", st.rating_table(names));
    }
    if let Some(path) = &args.pgnout {
        println!("PGN: {path}");
    }
}

fn game_settings(args: &MatchArgs) -> Result<GameSettings, String> {
    Ok(GameSettings {
        adjudication: Adjudication {
            resign: args.resign.as_deref().map(Resign::parse).transpose()?,
            draw: args.draw.as_deref().map(Draw::parse).transpose()?,
            tablebases: args
                .tb
                .as_deref()
                .map(|dir| open_tables(dir, args.tb_pieces))
                .transpose()?,
            max_moves: args.maxmoves,
        },
        grace: Duration::from_millis(args.timemargin),
        hang: Duration::from_secs(args.hang.max(1)),
    })
}

/// The tables of `--tb`; a directory without any is a mistake in the command line.
fn open_tables(dir: &str, pieces: usize) -> Result<Tablebases, String> {
    let tables = Tablebases::open(dir).map_err(|e| format!("--tb: {e}"))?;
    if tables.files() == 0 {
        return Err(format!("--tb: no Syzygy tables (.rtbw, .rtbz) in {dir}"));
    }
    Ok(tables.with_limit(pieces))
}

/// The PGN file games are appended to, if one is asked for.
fn open_pgn(path: Option<&str>) -> Result<Option<File>, String> {
    path.map(|path| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))
    })
    .transpose()
}
