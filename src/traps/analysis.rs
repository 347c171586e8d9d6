//! Trap analysis of one position (Understanding Sampling-Based Adversarial Search Methods
//! (2012) §4.1): for the side to move p and each legal move
//! m, the level of m is the smallest odd k up to the maximum such that after m the
//! opponent forces checkmate within k plies. The position is at risk when some move has a
//! level. Levels are tried from 1 upwards, so the first proof found is the shallowest.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::Move;
use shakmaty::san::{San, SanPlus};

use super::mate::MateProver;
use super::soft::{SoftTrap, soft_traps};
use crate::board::Position;

/// A move into a trap.
#[derive(Debug, Clone, Serialize)]
pub struct TrapMove {
    #[serde(skip)]
    pub mv: Move,
    pub san: String,
    pub uci: String,
    /// Plies the opponent needs to mate after the move (1, 3, 5, ...).
    pub level: u8,
    /// The opponent's winning line in SAN, the defence being the longest resistance.
    pub line: Vec<String>,
    /// The same line as moves (for drawing it).
    #[serde(skip)]
    pub line_moves: Vec<Move>,
}

/// What the analysis of one position found.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    pub fen: String,
    pub max_level: u8,
    pub legal_moves: usize,
    pub traps: Vec<TrapMove>,
    /// The shallowest level of any trap move.
    pub shallowest: Option<u8>,
    /// Every legal move is a trap: the position is lost (within `max_level`), and choosing
    /// among the traps — the longest resistance — is no mistake.
    pub lost: bool,
    /// Soft traps (`--soft CP`), if asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub soft: Vec<SoftTrap>,
    pub nodes: u64,
    #[serde(serialize_with = "millis")]
    pub time: Duration,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

impl Analysis {
    pub fn at_risk(&self) -> bool {
        !self.traps.is_empty()
    }

    /// At risk at level `k` or below.
    pub fn at_risk_within(&self, k: u8) -> bool {
        self.shallowest.is_some_and(|l| l <= k)
    }

    /// Lost at level `k` or below: every legal move is a trap of level `k` or less.
    pub fn lost_within(&self, k: u8) -> bool {
        self.legal_moves > 0
            && self.traps.iter().filter(|t| t.level <= k).count() == self.legal_moves
    }
}

/// Analyses `pos` up to `max_level` plies (odd; an even value is rounded down).
pub fn analyse(pos: &Position, max_level: u8) -> Analysis {
    let start = Instant::now();
    let mut prover = MateProver::new();
    let moves = pos.legal_moves();
    let mut traps = Vec::new();
    let deepest = if max_level % 2 == 1 {
        max_level
    } else {
        max_level.saturating_sub(1)
    };
    for &m in &moves {
        let after = pos.play(m);
        if after.legal_moves().is_empty() {
            continue; // p mated or stalemated the opponent: no trap.
        }
        // One search at the deepest level settles most moves (no mate) and leaves in the
        // table what the shallower levels of a trap need.
        if deepest == 0 || !prover.mates_within(&after, deepest) {
            continue;
        }
        let found = (1..=deepest)
            .step_by(2)
            .find_map(|k| prover.mate_line(&after, k).map(|line| (k, line)));
        if let Some((level, line)) = found {
            traps.push(TrapMove {
                mv: m,
                san: SanPlus::from_move(pos.chess().clone(), m).to_string(),
                uci: pos.to_uci(m).to_string(),
                level,
                line: san_line(&after, &line),
                line_moves: line,
            });
        }
    }
    traps.sort_by_key(|t| t.level);
    Analysis {
        fen: pos.fen(),
        max_level,
        legal_moves: moves.len(),
        shallowest: traps.first().map(|t| t.level),
        lost: !moves.is_empty() && traps.len() == moves.len(),
        traps,
        soft: Vec::new(),
        nodes: prover.nodes,
        time: start.elapsed(),
    }
}

/// [`analyse`], and with `soft: Some(cp)` the soft traps for margin `cp` too.
pub fn analyse_with_soft(pos: &Position, max_level: u8, soft: Option<i32>) -> Analysis {
    let mut a = analyse(pos, max_level);
    if let Some(cp) = soft {
        let start = Instant::now();
        let hard: Vec<Move> = a.traps.iter().map(|t| t.mv).collect();
        a.soft = soft_traps(pos, cp, max_level, &hard);
        a.time += start.elapsed();
    }
    a
}

/// Analyses every `(line, position)` on `threads` workers, one position each (with soft
/// traps for `soft: Some(cp)`); `on_done` is called as each is done. The results in the
/// order of the positions.
pub fn analyse_all(
    positions: &[(usize, Position)],
    max_level: u8,
    soft: Option<i32>,
    threads: usize,
    mut on_done: impl FnMut(),
) -> Vec<(usize, Analysis)> {
    let mut results: Vec<(usize, Analysis)> = Vec::with_capacity(positions.len());
    crate::pool::run(
        positions.len(),
        threads,
        || (),
        |(), i| {
            let (line, pos) = &positions[i];
            (*line, analyse_with_soft(pos, max_level, soft))
        },
        |_, r| {
            results.push(r);
            on_done();
            true
        },
    );
    results.sort_by_key(|(line, _)| *line);
    results
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The analyses as text: per position its status, then each trap move with its line.
pub fn table(results: &[(usize, Analysis)]) -> String {
    let mut s = String::new();
    for (line, a) in results {
        let status = match a.shallowest {
            Some(_) if a.lost => format!(
                "LOST (every move walks into a mate within {} plies)",
                a.traps.last().map_or(0, |t| t.level)
            ),
            Some(l) => format!("AT RISK (shallowest level {l})"),
            None => format!("safe up to level {}", a.max_level),
        };
        let _ = writeln!(
            s,
            "line {line}: {} — {status}; {} of {} moves are traps; {} nodes, {:.0} ms",
            a.fen,
            a.traps.len(),
            a.legal_moves,
            a.nodes,
            ms(a.time)
        );
        for t in &a.traps {
            let refutation = t.line.join(" ");
            let _ = writeln!(
                s,
                "    {:<8} {:<6} level {}  {refutation}",
                t.san, t.uci, t.level
            );
        }
        for t in &a.soft {
            let _ = writeln!(
                s,
                "    {:<8} {:<6} soft, level {}  {} against {} at {} plies; {} against {} at {}",
                t.san,
                t.uci,
                t.level,
                t.value,
                t.best,
                t.level,
                t.value_before,
                t.best_before,
                t.level - 2
            );
        }
    }
    s
}

/// The analyses as CSV, one row per trap move, `kind` `mate` or `soft` (one row without a
/// trap for a safe position).
pub fn csv(results: &[(usize, Analysis)]) -> String {
    let mut s = String::from(
        "line,fen,legal_moves,kind,trap_san,trap_uci,level,refutation,nodes,time_ms\n",
    );
    for (line, a) in results {
        let head = format!("{line},\"{}\",{}", a.fen, a.legal_moves);
        let tail = format!("{},{:.1}", a.nodes, ms(a.time));
        if a.traps.is_empty() && a.soft.is_empty() {
            let _ = writeln!(s, "{head},,,,,,{tail}");
        }
        for t in &a.traps {
            let refutation = t.line.join(" ");
            let _ = writeln!(
                s,
                "{head},mate,{},{},{},{refutation},{tail}",
                t.san, t.uci, t.level
            );
        }
        for t in &a.soft {
            let _ = writeln!(
                s,
                "{head},soft,{},{},{},{} vs {},{tail}",
                t.san, t.uci, t.level, t.value, t.best
            );
        }
    }
    s
}

fn san_line(from: &Position, line: &[Move]) -> Vec<String> {
    let mut pos = from.clone();
    line.iter()
        .map(|&m| {
            let san = San::from_move(pos.chess(), m).to_string();
            pos = pos.play(m);
            if pos.legal_moves().is_empty() && pos.is_check() {
                format!("{san}#")
            } else if pos.is_check() {
                format!("{san}+")
            } else {
                san
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn levels(fen: &str, max: u8) -> Vec<(String, u8)> {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut v: Vec<_> = analyse(&pos, max)
            .traps
            .into_iter()
            .map(|t| (t.uci, t.level))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn leaving_the_back_rank_is_a_level_1_trap() {
        // The a1 rook guards the back rank against ...Re1#; leaving the rank allows it.
        let fen = "4r1k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
        let traps = levels(fen, 1);
        for m in ["a1a2", "a1a5", "a1a7", "a1e1"] {
            assert!(traps.contains(&(m.to_string(), 1)), "{m}: {traps:?}");
        }
        // Ra8 pins the e8 rook against its king: no trap.
        for m in ["h2h3", "a1b1", "a1d1", "g1f1", "a1a8"] {
            assert!(!traps.iter().any(|(t, _)| t == m), "{m}: {traps:?}");
        }
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let results = vec![(3, analyse(&pos, 1))];
        assert!(table(&results).starts_with("line 3: "));
        let rows = csv(&results);
        assert_eq!(rows.lines().count(), 1 + results[0].1.traps.len());
        assert!(rows.contains(",Ra2,a1a2,1,Re1#,"), "{rows}");
    }
}
