//! `searchlight traps`: which moves of the side to move walk into a forced mate, for one
//! FEN or every position of a file, with a summary of the share at risk per level; the
//! backend check; and `traps generate`, the semi-random-games measurement.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::{fail, progress, read, write};
use crate::board::{Position, epd};
use crate::experiments::trap_check::{CheckReport, check_backends, parse_budget};
use crate::experiments::trap_generate::{self, GenerateSpec};
use crate::traps::{self, Analysis, analyse_all};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TrapsArgs {
    #[command(subcommand)]
    pub command: Option<TrapsCommand>,
    /// One position.
    #[arg(long, conflicts_with_all = ["epd", "pgn"])]
    pub fen: Option<String>,
    /// An EPD (or FEN-per-line) file.
    #[arg(long, conflicts_with = "pgn")]
    pub epd: Option<String>,
    /// A PGN file: the position before every move of every game (or the plies of
    /// --plies), whether the move played walked into a trap and whether it was punished.
    #[arg(long)]
    pub pgn: Option<String>,
    /// With --pgn: only the positions before these moves (1-based plies: 1 is White's
    /// first move).
    #[arg(long, value_delimiter = ',', requires = "pgn")]
    pub plies: Vec<usize>,
    /// With --pgn: skip the first N games (to cut a file into shards).
    #[arg(long, default_value_t = 0, requires = "pgn")]
    pub skip: usize,
    /// With --pgn: analyse at most M games.
    #[arg(long, requires = "pgn")]
    pub take: Option<usize>,
    /// With --pgn: the summary as JSON too, for `traps merge` to add up the shards of a
    /// file split with --skip/--take.
    #[arg(long, value_name = "FILE", requires = "pgn")]
    pub summary: Option<String>,
    /// With --pgn: a self-contained HTML report — per game a chart of the trap moves per
    /// ply, and a board for every fall with the trap move and the refutation drawn.
    #[arg(long, value_name = "FILE", requires = "pgn")]
    pub html: Option<String>,
    /// Deepest trap level (odd plies of the opponent's forced mate).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=15))]
    pub max_level: u8,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also the soft traps: moves whose value searched to k plies is at least CP below the
    /// best move's while at k - 2 plies it was within CP (exact alpha-beta with quiescence,
    /// Eval=material; k = 3, 5, ... up to --max-level).
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(1..))]
    pub soft: Option<i32>,
    /// Worker threads for a file (one position each; one game each with --pgn).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// For every position at risk: the move each of these backends chooses under the same
    /// budget, whether it is a trap, and its values for its move and for the trap move.
    #[arg(long, value_delimiter = ',')]
    pub check_backends: Vec<String>,
    /// The budget for --check-backends: nodes=N or movetime=MS.
    #[arg(long, default_value = "nodes=100000")]
    pub budget: String,
}

#[derive(Debug, clap::Subcommand)]
pub enum TrapsCommand {
    /// Semi-random games, the positions at given plies analysed (Ramanujan 2012 §4.2).
    Generate(GenerateArgs),
    /// The summaries of shards (`traps --pgn ... --summary FILE`) added up into one.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' summary files.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Writes the merged summary as JSON too.
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Plies at which the position is analysed.
    #[arg(long, value_delimiter = ',', default_value = "15,31,47,63")]
    pub plies: Vec<usize>,
    #[arg(long, default_value_t = 0.33)]
    pub random_prob: f64,
    /// Depth of the `pvs` moves (without --engine).
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    /// The engine of the non-random moves, as a `match` SPEC with depth=, nodes= or st=:
    /// `"cmd=/usr/games/gnuchess -u depth=8"` (the thesis' choice), `"pvs Eval=classical
    /// depth=8"`; default: `pvs` at --depth on Eval=material.
    #[arg(long, value_name = "SPEC")]
    pub engine: Option<String>,
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

pub fn run(args: &TrapsArgs) -> ExitCode {
    if let Some(TrapsCommand::Generate(g)) = &args.command {
        return match generate(g) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail("traps generate", e),
        };
    }
    if let Some(TrapsCommand::Merge(m)) = &args.command {
        return match super::trap_games::merge(&m.files, m.out.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail("traps merge", e),
        };
    }
    if let Some(path) = &args.pgn {
        if args.soft.is_some() {
            return fail("traps", "--soft works on --fen or --epd, not --pgn");
        }
        return match super::trap_games::run(args, path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail("traps", e),
        };
    }
    let positions = match read_positions(args) {
        Ok(p) => p,
        Err(e) => return fail("traps", e),
    };
    let bar = if positions.len() > 1 {
        progress(positions.len(), "traps {bar:40} {pos}/{len} {msg}")
    } else {
        indicatif::ProgressBar::hidden()
    };
    let results = analyse_all(
        &positions,
        args.max_level,
        args.soft,
        args.threads.max(1),
        || bar.inc(1),
    );
    bar.finish_and_clear();
    match args.format {
        Format::Table => print!("{}", traps::table(&results)),
        Format::Csv => print!("{}", traps::csv(&results)),
        Format::Json => {
            let all: Vec<&Analysis> = results.iter().map(|(_, a)| a).collect();
            match serde_json::to_string_pretty(&all) {
                Ok(s) => println!("{s}"),
                Err(e) => eprintln!("traps: {e}"),
            }
        }
    }
    if args.format == Format::Table || args.epd.is_some() {
        summary(&results, args.max_level);
    }
    if args.check_backends.is_empty() {
        return ExitCode::SUCCESS;
    }
    let positions: Vec<(usize, &Position)> = positions.iter().map(|(l, p)| (*l, p)).collect();
    let report = parse_budget(&args.budget)
        .and_then(|limits| check_backends(&results, &positions, &args.check_backends, &limits));
    match report {
        Ok(report) => {
            print_checks(&report, args);
            ExitCode::SUCCESS
        }
        Err(e) => fail("traps", e),
    }
}

/// The positions with their line numbers; unreadable lines of a file are reported and
/// skipped.
fn read_positions(args: &TrapsArgs) -> Result<Vec<(usize, Position)>, String> {
    match (&args.fen, &args.epd) {
        (Some(fen), _) => Position::from_fen_auto(fen)
            .map(|p| vec![(1, p)])
            .map_err(|e| format!("--fen: {e}")),
        (None, Some(path)) => {
            let text = read(path)?;
            let mut out = Vec::new();
            for line in epd::read(&text) {
                match line {
                    Ok(l) => out.push((l.line, l.position)),
                    Err(e) => eprintln!("traps: {e}; skipped"),
                }
            }
            Ok(out)
        }
        (None, None) => Err("give --fen FEN, --epd FILE or --pgn FILE".into()),
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(results: &[(usize, Analysis)], max_level: u8) {
    let n = results.len().max(1) as f64;
    eprintln!("\n{} positions analysed; share at risk:", results.len());
    for k in trap_generate::levels(max_level) {
        let at = results.iter().filter(|(_, a)| a.at_risk_within(k)).count();
        let lost = results.iter().filter(|(_, a)| a.lost_within(k)).count();
        eprintln!(
            "  level <= {k}: {at:>5} ({:.1}%), of which {lost} lost (every move a trap)",
            100.0 * at as f64 / n
        );
    }
    let mut times: Vec<Duration> = results.iter().map(|(_, a)| a.time).collect();
    times.sort();
    if let Some(median) = times.get(times.len() / 2) {
        let total: Duration = times.iter().sum();
        let max = times.last().map_or(0.0, |t| millis(*t));
        eprintln!(
            "time per position: median {:.1} ms, mean {:.1} ms, max {max:.1} ms",
            millis(*median),
            millis(total) / n,
        );
    }
}

fn print_checks(report: &CheckReport, args: &TrapsArgs) {
    if args.format == Format::Json {
        match serde_json::to_string_pretty(&report.checks) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("traps: {e}"),
        }
    } else {
        println!(
            "\n| line | backend | chosen | trap? | value of chosen | trap move (level) | value of trap move |"
        );
        println!("| ---: | --- | --- | --- | ---: | --- | ---: |");
        for c in &report.checks {
            let trap = c.trap_level.map_or("no".into(), |l| format!("level {l}"));
            println!(
                "| {} | {} | {} | {trap} | {} | {} ({}) | {} |",
                c.line,
                c.backend,
                c.chosen,
                c.value_chosen,
                c.trap_move,
                c.shallowest,
                c.value_trap
            );
        }
    }
    eprintln!(
        "\nfell into a trap, of {} positions at risk with a safe move (budget {}); \
         {} lost positions (every move a trap) not counted:",
        report.at_risk, args.budget, report.lost
    );
    for (name, n) in &report.fell {
        eprintln!("  {name:<14} {n:>4}");
    }
}

fn generate(args: &GenerateArgs) -> Result<(), String> {
    let spec = GenerateSpec {
        games: args.games,
        plies: args.plies.clone(),
        random_prob: args.random_prob,
        depth: args.depth,
        max_level: args.max_level,
        seed: args.seed,
        threads: args.threads.max(1),
        engine: args.engine.clone(),
    };
    let bar = progress(args.games, "{bar:40} {pos}/{len} {elapsed}");
    let samples = trap_generate::generate(&spec, || bar.inc(1))?;
    bar.finish_and_clear();
    let levels = trap_generate::levels(args.max_level);
    let shares = trap_generate::shares(&samples, &args.plies, &levels);
    write(&args.csv, trap_generate::samples_csv(&samples))?;
    let mover = args
        .engine
        .clone()
        .unwrap_or_else(|| format!("pvs depth {} on Eval=material", args.depth));
    println!(
        "{} semi-random games (random move with probability {}, else {mover}), seed {}; \
         cells: % at risk (count; 95% Wilson interval)",
        args.games, args.random_prob, args.seed
    );
    let header: String = levels
        .iter()
        .map(|k| format!(" at risk, level <= {k} |"))
        .collect();
    println!("| ply | positions |{header}");
    println!("|{}", " --- |".repeat(levels.len() + 2));
    for s in &shares {
        let cells: String = s
            .at_risk
            .iter()
            .map(|&(k, n)| {
                let (lo, hi) = s.interval(k);
                format!(" {:.1}% ({n}; {lo:.1}–{hi:.1}) |", s.percent(k))
            })
            .collect();
        println!("| {} | {} |{cells}", s.ply, s.positions);
    }
    write(&args.svg, trap_generate::chart(&shares, &levels))?;
    println!("wrote {} and {}", args.csv, args.svg);
    Ok(())
}
