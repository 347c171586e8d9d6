//! `searchlight match`: engine-vs-engine games between in-process backends and external
//! UCI engines — a match, a round robin or a gauntlet — with PGN output, a live progress
//! line, per-pairing statistics, an Elo table, and an optional SPRT.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::collections::{BTreeMap, HashMap};
use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::spec::EngineSpec;
use crate::board::Position;
use crate::matches::stats::{Tally, bradley_terry, sprt_bounds};
use crate::matches::{
    Adjudication, Finished, GameSettings, INTERRUPT, Participant, PlayerLimits, TimeControl,
    opening_order, pairings, pgn, run, schedule,
};

/// The opening set used when `--openings` is not given, if it exists.
const DEFAULT_OPENINGS: &str = "openings/balanced_8ply.epd";

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
    /// Opening positions: EPD/FEN lines, or a .pgn file (each game's end position); default openings/balanced_8ply.epd if it exists,
    /// else the start position.
    #[arg(long)]
    openings: Option<String>,
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
    /// Adjudicate a win when both engines see one side CP centipawns behind for MOVES
    /// moves each.
    #[arg(long, num_args = 2, value_names = ["MOVES", "CP"])]
    resign: Option<Vec<i32>>,
    /// Adjudicate a draw when both engines see the score within CP of 0 for MOVES moves
    /// each.
    #[arg(long, num_args = 2, value_names = ["MOVES", "CP"])]
    draw: Option<Vec<i32>>,
    /// Stop when the SPRT decides (two players): `elo0=0 elo1=5 alpha=0.05 beta=0.05`.
    #[arg(long, num_args = 0..=4, value_name = "KEY=VALUE")]
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

/// SPRT parameters.
#[derive(Debug, Clone, Copy)]
struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
}

fn parse_sprt(words: &[String]) -> Result<Sprt, String> {
    let mut s = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
    };
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or(format!("--sprt: '{w}' is not key=value"))?;
        let v: f64 = v
            .parse()
            .map_err(|_| format!("--sprt: bad number in '{w}'"))?;
        match k {
            "elo0" => s.elo0 = v,
            "elo1" => s.elo1 = v,
            "alpha" => s.alpha = v,
            "beta" => s.beta = v,
            _ => return Err(format!("--sprt: unknown key '{k}'")),
        }
    }
    if !(s.alpha > 0.0 && s.alpha < 1.0 && s.beta > 0.0 && s.beta < 1.0) || s.elo0 >= s.elo1 {
        return Err("--sprt: need 0 < alpha, beta < 1 and elo0 < elo1".into());
    }
    Ok(s)
}

fn load_openings(path: Option<&str>) -> Result<(Vec<Position>, String), String> {
    let path = match path {
        Some(p) => p.to_string(),
        None if std::path::Path::new(DEFAULT_OPENINGS).exists() => DEFAULT_OPENINGS.into(),
        None => return Ok((vec![Position::startpos()], "the start position".into())),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    if path.to_ascii_lowercase().ends_with(".pgn") {
        let positions: Vec<Position> = pgn::read_openings(&text)
            .map_err(|e| format!("{path}: {e}"))?
            .into_iter()
            .filter(|p| !p.legal_moves().is_empty())
            .collect();
        if positions.is_empty() {
            return Err(format!("{path}: no playable positions"));
        }
        return Ok((positions, path));
    }
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let record =
            crate::epd::EpdRecord::parse(line).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
        if !record.position.legal_moves().is_empty() {
            positions.push(record.position);
        }
    }
    if positions.is_empty() {
        return Err(format!("{path}: no playable positions"));
    }
    Ok((positions, path))
}

/// What the main thread keeps while games come in.
struct Standings {
    pairings: Vec<(usize, usize)>,
    tallies: Vec<Tally>,
    /// First game of each pair: (pairing, pair) → points of the pairing's first player.
    half_pairs: HashMap<(usize, usize), f64>,
    points: Vec<Vec<f64>>,
    games: Vec<Vec<u32>>,
    terminations: BTreeMap<String, u32>,
    done: usize,
}

impl Standings {
    fn add(&mut self, f: &Finished) {
        let job = f.job;
        let (a, _) = self.pairings[job.pairing];
        let white_points = f.record.outcome.white_points();
        let first_points = if job.white == a {
            white_points
        } else {
            1.0 - white_points
        };
        let tally = &mut self.tallies[job.pairing];
        tally.add(first_points);
        if let Some(other) = self.half_pairs.remove(&(job.pairing, job.pair)) {
            tally.add_pair(other, first_points);
        } else {
            self.half_pairs
                .insert((job.pairing, job.pair), first_points);
        }
        self.points[job.white][job.black] += white_points;
        self.points[job.black][job.white] += 1.0 - white_points;
        self.games[job.white][job.black] += 1;
        self.games[job.black][job.white] += 1;
        // Group reasons by their kind ("illegal move e2e5" → "illegal move").
        let text = &f.record.termination;
        let mut kind = text.split('(').next().unwrap_or("").trim().to_string();
        for prefix in ["illegal move", "engine failed", "both engines failed"] {
            if text.starts_with(prefix) {
                kind = prefix.to_string();
            }
        }
        *self.terminations.entry(kind).or_default() += 1;
        self.done += 1;
    }
}

fn signed(x: f64) -> String {
    // Adding 0.0 turns -0.0 into 0.0.
    format!("{:+.1}", x + 0.0)
}

/// `Elo ± margin`, or `+inf`/`-inf` when one side scored everything (no finite estimate).
fn elo_text(t: &Tally) -> String {
    let e = t.elo();
    if t.games() > 0 && t.wins == t.games() {
        "+inf".into()
    } else if t.games() > 0 && t.losses == t.games() {
        "-inf".into()
    } else {
        format!("{} ± {:.1}", signed(e.elo), e.margin())
    }
}

pub fn run_cli(args: &MatchArgs) -> ExitCode {
    match run_match(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_match(args: &MatchArgs) -> Result<(), String> {
    if args.engines.len() < 2 {
        return Err("a match needs at least two --engine".into());
    }
    let global_tc: Option<TimeControl> = args.tc.as_deref().map(str::parse).transpose()?;
    let entries = std::fs::read_to_string(&args.engines_file)
        .ok()
        .and_then(|t| crate::engines_file::parse(&t).ok())
        .unwrap_or_default();
    let mut participants: Vec<Participant> = Vec::new();
    for text in &args.engines {
        let spec = EngineSpec::parse(text)?.resolve_conf(&entries)?;
        let limits = PlayerLimits::from_spec(&spec, global_tc)?;
        // A name already taken gets the options appended ("pvs Hash=1"), then a number.
        let mut name = spec.name.clone();
        if participants.iter().any(|p| p.name == name) {
            for (k, v) in &spec.options {
                name = format!("{name} {k}={v}");
            }
        }
        let mut n = 2;
        let base = name.clone();
        while participants.iter().any(|p| p.name == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        participants.push(Participant { spec, limits, name });
    }
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    if sprt.is_some() && participants.len() != 2 {
        return Err("--sprt needs exactly two players".into());
    }
    let adjudication = Adjudication {
        resign: args.resign.as_deref().map(|v| (v[0].max(1) as u32, v[1])),
        draw: args.draw.as_deref().map(|v| (v[0].max(1) as u32, v[1])),
    };
    let settings = GameSettings {
        adjudication,
        grace: Duration::from_millis(args.timemargin),
        hang: Duration::from_secs(args.hang.max(1)),
    };
    let (openings, source) = load_openings(args.openings.as_deref())?;
    let order = opening_order(
        openings.len(),
        args.openings_order == OpeningsOrder::Random,
        args.seed,
    );
    let pairs = pairings(participants.len(), args.gauntlet);
    let jobs = schedule(&pairs, args.games, &order);
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut pgn_file = match &args.pgnout {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{path}: {e}"))?,
        ),
        None => None,
    };
    eprintln!(
        "{} games, {} pairing(s), openings: {} ({} positions, {:?}), concurrency {concurrency}",
        jobs.len(),
        pairs.len(),
        source,
        openings.len(),
        args.openings_order
    );
    for p in &participants {
        eprintln!("  {}: {}", p.name, p.limits.describe());
    }

    let n = participants.len();
    let mut st = Standings {
        pairings: pairs.clone(),
        tallies: vec![Tally::default(); pairs.len()],
        half_pairs: HashMap::new(),
        points: vec![vec![0.0; n]; n],
        games: vec![vec![0; n]; n],
        terminations: BTreeMap::new(),
        done: 0,
    };
    // Ctrl-C: finish cleanly (no new games, games under way dropped, engines ended, the
    // table of the games so far); a second Ctrl-C exits at once. The PGN holds every
    // finished game either way.
    let _ = ctrlc::set_handler(|| {
        if INTERRUPT.swap(true, std::sync::atomic::Ordering::Relaxed) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping (Ctrl-C again to exit at once)");
    });
    let date = pgn::today();
    let tty = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut sprt_verdict: Option<String> = None;
    let mut write_error: Option<String> = None;
    run(
        &jobs,
        &participants,
        &openings,
        &settings,
        concurrency,
        |finished| {
            if let Some(file) = pgn_file.as_mut() {
                let text = pgn::render(&finished.record, &args.event, &date);
                if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    write_error = Some(e.to_string());
                }
            }
            st.add(&finished);
            let t = st.tallies[finished.job.pairing];
            let (a, b) = pairs[finished.job.pairing];
            let line = format!(
                "[{}/{}] {} - {}: {} ({})  |  {} vs {}: +{} ={} -{} {:.1}% Elo {}",
                st.done,
                jobs.len(),
                finished.record.white,
                finished.record.black,
                pgn::result_token(finished.record.outcome),
                finished.record.termination,
                participants[a].name,
                participants[b].name,
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score(),
                elo_text(&t)
            );
            if tty {
                eprint!("\r\x1b[K{line}");
            } else {
                eprintln!("{line}");
            }
            if let Some(s) = sprt {
                let llr = t.llr(s.elo0, s.elo1);
                let (lo, hi) = sprt_bounds(s.alpha, s.beta);
                if sprt_verdict.is_some() {
                    // Decided already: games that were under way still count above.
                    return false;
                }
                let decided = |h: &str, elo: f64| {
                    format!(
                        "{h} accepted ({}={elo}) at game {} with LLR {llr:.3}",
                        if h == "H1" { "elo1" } else { "elo0" },
                        st.done
                    )
                };
                if llr >= hi {
                    sprt_verdict = Some(decided("H1", s.elo1));
                } else if llr <= lo {
                    sprt_verdict = Some(decided("H0", s.elo0));
                }
                if sprt_verdict.is_some() {
                    return false;
                }
            }
            true
        },
    );
    if tty {
        eprintln!();
    }
    if INTERRUPT.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("interrupted after {} finished games", st.done);
    }
    if let Some(e) = write_error {
        eprintln!("warning: writing the PGN failed: {e}");
    }
    print_report(
        &participants,
        &st,
        sprt,
        sprt_verdict,
        started.elapsed(),
        args,
    );
    Ok(())
}

fn print_report(
    participants: &[Participant],
    st: &Standings,
    sprt: Option<Sprt>,
    verdict: Option<String>,
    elapsed: Duration,
    args: &MatchArgs,
) {
    println!("\n{} games in {:.1} s", st.done, elapsed.as_secs_f64());
    println!("\n| pairing | games | W-D-L | score | Elo ± 95% | LOS | pentanomial 0-½-1-1½-2 |");
    println!("|---|---:|---|---:|---|---:|---|");
    for (i, &(a, b)) in st.pairings.iter().enumerate() {
        let t = st.tallies[i];
        println!(
            "| {} vs {} | {} | {}-{}-{} | {:.1}% | {} | {:.1}% | {} |",
            participants[a].name,
            participants[b].name,
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score(),
            elo_text(&t),
            100.0 * t.los(),
            t.penta
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("-")
        );
    }
    let reasons: Vec<String> = st
        .terminations
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    println!("\nterminations: {}", reasons.join(", "));
    if let Some(s) = sprt {
        let t = st.tallies[0];
        let (lo, hi) = sprt_bounds(s.alpha, s.beta);
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3} (bounds {:.3}, {:.3}) over {} {}; {}",
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            t.llr(s.elo0, s.elo1),
            lo,
            hi,
            if t.pairs() > 0 { t.pairs() } else { t.games() },
            if t.pairs() > 0 { "pairs" } else { "games" },
            verdict.unwrap_or_else(|| "no decision yet".into())
        );
    }
    if participants.len() > 2 {
        let elo = bradley_terry(&st.points, &st.games, 1.0);
        let mut rows: Vec<usize> = (0..participants.len()).collect();
        rows.sort_by(|&x, &y| elo[y].total_cmp(&elo[x]));
        println!("\n| rank | player | games | score | Elo |");
        println!("|---:|---|---:|---:|---:|");
        for (rank, &i) in rows.iter().enumerate() {
            let games: u32 = st.games[i].iter().sum();
            let points: f64 = st.points[i].iter().sum();
            println!(
                "| {} | {} | {} | {:.1}% | {} |",
                rank + 1,
                participants[i].name,
                games,
                if games > 0 {
                    100.0 * points / f64::from(games)
                } else {
                    0.0
                },
                signed(elo[i])
            );
        }
        println!(
            "\nElo: Bradley-Terry maximum likelihood over all games with one virtual draw per pairing, mean 0."
        );
    }
    if let Some(path) = &args.pgnout {
        println!("PGN: {path}");
    }
}
