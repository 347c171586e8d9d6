//! `traps --check-backends`: which backends walk into the traps (thesis Table 4.1). For
//! each position at risk, each backend searches under the same budget; its move is
//! classified (a trap? which level?), and its value for that move is set beside its value
//! for the shallowest trap move (a second search restricted to that move with
//! `searchmoves`), so one sees whether the backend rates the trap nearly as high.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use serde::Serialize;

use super::traps::Format;
use crate::board::{Game, Position};
use crate::engine::Engine;
use crate::search::Limits;
use crate::search::info::Silent;
use crate::search::registry;
use crate::search::score::UciScore;
use crate::traps::Analysis;

/// One backend's behaviour in one position at risk.
#[derive(Debug, Serialize)]
pub struct Check {
    pub line: usize,
    pub backend: String,
    pub chosen: String,
    /// The trap level of the chosen move, if it is one.
    pub trap_level: Option<u8>,
    pub value_chosen: String,
    pub trap_move: String,
    pub value_trap: String,
}

fn parse_budget(text: &str) -> Result<Limits, String> {
    let (kind, n) = text
        .split_once('=')
        .ok_or_else(|| format!("budget '{text}': expected nodes=N or movetime=MS"))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("budget '{text}': '{n}' is not a number"))?;
    match kind.trim() {
        "nodes" => Ok(Limits::nodes(n)),
        "movetime" => Ok(Limits::movetime(n)),
        _ => Err(format!("budget '{text}': expected nodes=N or movetime=MS")),
    }
}

fn score(v: i32) -> String {
    match UciScore::from_value(v) {
        UciScore::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        UciScore::Mate(n) => format!("#{n}"),
    }
}

pub fn run(
    results: &[(usize, Analysis)],
    positions: &[(usize, &Position)],
    backends: &[String],
    budget: &str,
    format: Format,
) -> Result<(), String> {
    let limits = parse_budget(budget)?;
    for b in backends {
        if registry::find(b).is_none() {
            return Err(format!(
                "unknown backend '{b}' (known: {})",
                registry::names().join(", ")
            ));
        }
    }
    let mut engines: Vec<(String, Engine)> = backends
        .iter()
        .map(|b| Engine::with_options(&[("Search", b)]).map(|e| (b.clone(), e)))
        .collect::<Result<_, _>>()?;
    let mut checks = Vec::new();
    let mut fell = vec![0usize; engines.len()];
    let mut at_risk = 0;
    for (line, analysis) in results.iter().filter(|(_, a)| a.at_risk()) {
        let Some((_, pos)) = positions.iter().find(|(l, _)| l == line) else {
            continue;
        };
        let Some(trap) = analysis.traps.first() else {
            continue;
        };
        at_risk += 1;
        let game = Game::new((*pos).clone());
        for (i, (name, engine)) in engines.iter_mut().enumerate() {
            engine.new_game();
            let result = engine.search(&game, &limits, &Silent);
            let Some(best) = result.best else { continue };
            let uci = pos.to_uci(best).to_string();
            let trap_level = analysis
                .traps
                .iter()
                .find(|t| t.uci == uci)
                .map(|t| t.level);
            fell[i] += usize::from(trap_level.is_some());
            engine.new_game();
            let mut restricted = limits.clone();
            restricted.searchmoves = vec![trap.mv];
            let on_trap = engine.search(&game, &restricted, &Silent);
            checks.push(Check {
                line: *line,
                backend: name.clone(),
                chosen: uci,
                trap_level,
                value_chosen: score(result.value),
                trap_move: trap.uci.clone(),
                value_trap: score(on_trap.value),
            });
        }
    }
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&checks).map_err(|e| e.to_string())?
        );
    } else {
        println!();
        println!(
            "| line | backend | chosen | trap? | value of chosen | trap move (level) | value of trap move |"
        );
        println!("| ---: | --- | --- | --- | ---: | --- | ---: |");
        for c in &checks {
            let level = results
                .iter()
                .find(|(l, _)| *l == c.line)
                .and_then(|(_, a)| a.shallowest)
                .unwrap_or_default();
            println!(
                "| {} | {} | {} | {} | {} | {} ({level}) | {} |",
                c.line,
                c.backend,
                c.chosen,
                c.trap_level
                    .map_or("no".to_string(), |l| format!("level {l}")),
                c.value_chosen,
                c.trap_move,
                c.value_trap
            );
        }
    }
    eprintln!("\nfell into a trap, of {at_risk} positions at risk (budget {budget}):");
    for ((name, _), n) in engines.iter().zip(fell) {
        eprintln!("  {name:<14} {n:>4}");
    }
    Ok(())
}
