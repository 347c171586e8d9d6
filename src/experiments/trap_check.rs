//! Which backends walk into the traps (Understanding Sampling-Based Adversarial Search
//! Methods (2012) Table 4.1). For each position at risk, each backend searches under the
//! same budget; its move is classified (a trap? which level?), and its value for that move
//! is set beside its value for the shallowest trap move (a second search restricted to
//! that move with `searchmoves`), so one sees whether the backend rates the trap nearly as
//! high.

use crate::board::eval::RESEARCH_EVAL;
use serde::Serialize;

use super::trees::ExperimentError;
use crate::board::{Game, Position};
use crate::engine::Engine;
use crate::search::Limits;
use crate::search::info::Silent;
use crate::search::registry;
use crate::traps::Analysis;
use crate::value::{UciScore, Value};

/// One backend's behaviour in one position at risk.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub line: usize,
    pub backend: String,
    pub chosen: String,
    /// The trap level of the chosen move, if it is one.
    pub trap_level: Option<u8>,
    pub value_chosen: String,
    pub trap_move: String,
    /// The shallowest trap level of the position.
    pub shallowest: u8,
    pub value_trap: String,
}

/// Every check, and per backend how often it fell in.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub checks: Vec<Check>,
    /// Positions at risk with a safe move: the ones a backend can fail in.
    pub at_risk: usize,
    /// Positions where every move is a trap: not checked, since no choice avoids the mate.
    pub lost: usize,
    pub fell: Vec<(String, usize)>,
}

/// `nodes=N` or `movetime=MS`.
pub fn parse_budget(text: &str) -> Result<Limits, ExperimentError> {
    let bad =
        || ExperimentError::Shape(format!("budget '{text}': expected nodes=N or movetime=MS"));
    let (kind, n) = text.split_once('=').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    match kind.trim() {
        "nodes" => Ok(Limits::nodes(n)),
        "movetime" => Ok(Limits::movetime(n)),
        _ => Err(bad()),
    }
}

/// A value as the table shows it: pawns, or `#N` for a mate.
fn score(v: Value) -> String {
    match UciScore::from_value(v) {
        UciScore::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        UciScore::Mate(n) => format!("#{n}"),
    }
}

/// Runs every backend on every position at risk. `positions` pairs each analysis's line
/// number with its position.
pub fn check_backends(
    results: &[(usize, Analysis)],
    positions: &[(usize, &Position)],
    backends: &[String],
    limits: &Limits,
) -> Result<CheckReport, ExperimentError> {
    for b in backends {
        if registry::find(b).is_none() {
            return Err(ExperimentError::Shape(format!(
                "unknown backend '{b}' (known: {})",
                registry::names().join(", ")
            )));
        }
    }
    let mut engines: Vec<(String, Engine)> = backends
        .iter()
        .map(|b| {
            Engine::with_options(&[("Search", b), ("Eval", RESEARCH_EVAL)]).map(|e| (b.clone(), e))
        })
        .collect::<Result<_, _>>()?;
    let mut report = CheckReport::default();
    let mut fell = vec![0usize; engines.len()];
    for (line, analysis) in results.iter().filter(|(_, a)| a.at_risk()) {
        let Some((_, pos)) = positions.iter().find(|(l, _)| l == line) else {
            continue;
        };
        let Some(trap) = analysis.traps.first() else {
            continue;
        };
        if analysis.lost {
            report.lost += 1;
            continue;
        }
        report.at_risk += 1;
        let game = Game::new((*pos).clone());
        for (i, (name, engine)) in engines.iter_mut().enumerate() {
            engine.new_game();
            let result = engine.search(&game, limits, &Silent);
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
            report.checks.push(Check {
                line: *line,
                backend: name.clone(),
                chosen: uci,
                trap_level,
                value_chosen: score(result.value),
                trap_move: trap.uci.clone(),
                shallowest: trap.level,
                value_trap: score(on_trap.value),
            });
        }
    }
    report.fell = engines.into_iter().map(|(n, _)| n).zip(fell).collect();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traps::analyse;
    use shakmaty::CastlingMode;

    #[test]
    fn a_searching_backend_avoids_a_level_1_trap_and_values_it_as_mate() {
        // The a1 rook guards the back rank: leaving it allows ...Re1#.
        let fen = "4r1k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let results = vec![(1, analyse(&pos, 1))];
        let report = check_backends(
            &results,
            &[(1, &pos)],
            &["alphabeta".into()],
            &Limits::depth(3),
        )
        .unwrap();
        assert_eq!(report.at_risk, 1);
        assert_eq!(report.fell, [("alphabeta".to_string(), 0)]);
        let c = &report.checks[0];
        assert_eq!(c.trap_level, None);
        assert_eq!(c.value_trap, "#-1");
        assert!(parse_budget("nodes=5").is_ok());
        assert!(parse_budget("seconds=5").is_err());
        assert!(
            check_backends(&results, &[(1, &pos)], &["nope".into()], &Limits::depth(1)).is_err()
        );
    }

    #[test]
    fn a_lost_position_is_not_a_fall() {
        // Black's one legal move, Kb8, allows Rh8#: the position is lost, not a mistake
        // waiting to happen.
        let fen = "k7/8/1K6/8/8/8/8/7R b - - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let analysis = analyse(&pos, 3);
        assert!(analysis.lost, "{:?}", analysis.traps);
        assert!(analysis.lost_within(3) && !analysis.lost_within(0));
        let results = vec![(1, analysis)];
        let report = check_backends(
            &results,
            &[(1, &pos)],
            &["alphabeta".into()],
            &Limits::depth(3),
        )
        .unwrap();
        assert_eq!((report.at_risk, report.lost), (0, 1));
        assert_eq!(report.fell, [("alphabeta".to_string(), 0)]);
        assert!(report.checks.is_empty());
    }
}
