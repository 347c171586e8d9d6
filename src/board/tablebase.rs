//! Syzygy endgame tables (`SyzygyPath`): the proven outcome of positions with few pieces.
//!
//! Two uses, as in every engine that reads them. At the root, the moves that keep the best
//! outcome the tables promise — counting the fifty-move rule from the root's clock, so
//! that a won ending is converted before the rule can draw it — become the only moves the
//! search may play. In the search, a position reached by a capture or a pawn move (its
//! clock at zero, where the win/draw/loss tables are exact) is settled by them without
//! searching further. Probing needs only the `.rtbw` files in the search and both the
//! `.rtbw` and the `.rtbz` files at the root. For analysis the fifty-move rule can be set
//! aside (`Syzygy50MoveRule`), as correspondence chess under some rules does: a win it
//! would draw is then a win.

use std::sync::Arc;

use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::board::Position;
use crate::board::game::occurrences_before;
use crate::value::{DRAW, Value, tablebase_win_in};

/// The tables of `SyzygyPath`, and how many pieces a position may have to be probed.
/// Cloning shares the tables (files are opened lazily, once, on first use).
#[derive(Clone)]
pub struct Tablebases {
    tables: Arc<Tablebase<Chess>>,
    files: usize,
    /// The largest position probed: the largest table's, or less (`SyzygyProbeLimit`).
    pieces: usize,
    /// The least depth left at which the search probes (`SyzygyProbeDepth`).
    probe_depth: i32,
    /// Whether the fifty-move rule draws a win it cannot finish (`Syzygy50MoveRule`).
    fifty_move_rule: bool,
}

/// The root's verdict: what the tables promise, and the moves that keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootProbe {
    pub outcome: Outcome,
    pub moves: Vec<Move>,
}

/// An outcome for the side to move under the fifty-move rule, from worst to best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Loss,
    /// Lost without the fifty-move rule, drawn with it.
    BlessedLoss,
    Draw,
    /// Won without the fifty-move rule, drawn with it.
    CursedWin,
    Win,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Loss => "loss",
            Outcome::BlessedLoss => "draw by the fifty-move rule (a loss without it)",
            Outcome::Draw => "draw",
            Outcome::CursedWin => "draw by the fifty-move rule (a win without it)",
            Outcome::Win => "win",
        }
    }

    /// The outcome's value for the side to move `ply` plies from the root: a win above
    /// every evaluation and below every mate, a loss its negative, and a draw by the
    /// fifty-move rule a shade from 0 towards the side it favours, so that the side that
    /// would win without the rule keeps its chances if the opponent errs.
    pub fn value(self, ply: usize) -> Value {
        match self {
            Outcome::Win => tablebase_win_in(ply),
            Outcome::CursedWin => DRAW + 1,
            Outcome::Draw => DRAW,
            Outcome::BlessedLoss => DRAW - 1,
            Outcome::Loss => -tablebase_win_in(ply),
        }
    }
}

impl From<Wdl> for Outcome {
    fn from(wdl: Wdl) -> Outcome {
        match wdl {
            Wdl::Loss => Outcome::Loss,
            Wdl::BlessedLoss => Outcome::BlessedLoss,
            Wdl::Draw => Outcome::Draw,
            Wdl::CursedWin => Outcome::CursedWin,
            Wdl::Win => Outcome::Win,
        }
    }
}

/// Plies from the root to the next capture or pawn move on the best play the tables know,
/// signed for the side to move at the root (positive: it wins), counting the root move;
/// 0 for a draw. A zeroing root move that wins counts 1 (101 if the fifty-move rule
/// would save the defender later), as a mate does.
fn distance_after_zeroing(wdl_after: Wdl) -> i32 {
    match -wdl_after {
        Wdl::Win => 1,
        Wdl::CursedWin => 101,
        Wdl::Draw => 0,
        Wdl::BlessedLoss => -101,
        Wdl::Loss => -1,
    }
}

/// Whether a position since the last zeroing move occurred twice among `keys` (the
/// current one last; `reversible` plies back at most).
fn repeated(keys: &[u64], reversible: usize) -> bool {
    let recent = &keys[keys.len().saturating_sub(reversible + 1)..];
    recent
        .iter()
        .enumerate()
        .any(|(i, k)| recent[i + 1..].contains(k))
}

impl Tablebases {
    /// Every table in the directories of `paths` (separated as `PATH` is: `:` on Unix,
    /// `;` on Windows). A directory that cannot be listed is an error naming it.
    pub fn open(paths: &str) -> Result<Tablebases, String> {
        let mut tables = Tablebase::new();
        let mut files = 0;
        for dir in std::env::split_paths(paths) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            files += tables
                .add_directory(&dir)
                .map_err(|e| format!("cannot read the directory {}: {e}", dir.display()))?;
        }
        let pieces = tables.max_pieces();
        Ok(Tablebases {
            tables: Arc::new(tables),
            files,
            pieces,
            probe_depth: 1,
            fifty_move_rule: true,
        })
    }

    /// The same tables, probed only up to `limit` pieces.
    pub fn with_limit(&self, limit: usize) -> Tablebases {
        Tablebases {
            pieces: limit.min(self.tables.max_pieces()),
            ..self.clone()
        }
    }

    /// The same tables, probed by the search only at nodes with `depth` plies or more
    /// left (on a slow disk the shallow nodes, the most numerous, cost the most).
    pub fn with_probe_depth(&self, depth: i32) -> Tablebases {
        Tablebases {
            probe_depth: depth,
            ..self.clone()
        }
    }

    /// The same tables, with the fifty-move rule or without it: without, a win the rule
    /// would draw (a cursed win) is a win and a loss it would save a loss.
    pub fn with_fifty_move_rule(&self, rule: bool) -> Tablebases {
        Tablebases {
            fifty_move_rule: rule,
            ..self.clone()
        }
    }

    /// The least depth left at which the search probes.
    pub fn probe_depth(&self) -> i32 {
        self.probe_depth
    }

    /// A result as the rule in force counts it.
    fn under_rule(&self, wdl: Wdl) -> Wdl {
        match wdl {
            Wdl::CursedWin if !self.fifty_move_rule => Wdl::Win,
            Wdl::BlessedLoss if !self.fifty_move_rule => Wdl::Loss,
            wdl => wdl,
        }
    }

    /// Table files found (a `.rtbw` and its `.rtbz` count as two).
    pub fn files(&self) -> usize {
        self.files
    }

    /// The pieces of the largest table found.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    fn covers(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.pieces && pos.castles().is_empty()
    }

    /// In the search: the outcome of a position whose clock is at zero (just after a
    /// capture or a pawn move), for the side to move; `None` when the tables do not hold
    /// it or the clock has run (the `.rtbw` files are exact only after a zeroing move).
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        let chess = pos.chess();
        if chess.halfmoves() != 0 || !self.covers(chess) {
            return None;
        }
        let wdl = self.tables.probe_wdl_after_zeroing(chess).ok()?;
        Some(self.under_rule(wdl))
    }

    /// The outcome of `pos` for the side to move under the fifty-move rule, from its
    /// clock, if the tables hold it and are sure of it (the `.rtbz` files round some
    /// distances; a win or loss those leave in doubt is not called). Without the rule
    /// the clock does not matter, and nothing is in doubt.
    pub fn outcome(&self, pos: &Position) -> Option<Wdl> {
        let chess = pos.chess();
        if chess.halfmoves() == 0 {
            return self.probe(pos);
        }
        if !self.covers(chess) {
            return None;
        }
        let wdl = self.tables.probe_wdl(chess).ok()?;
        if self.fifty_move_rule {
            return wdl.unambiguous();
        }
        Some(match wdl.signum() {
            1 => Wdl::Win,
            -1 => Wdl::Loss,
            _ => Wdl::Draw,
        })
    }

    /// At the root, with the game's `keys` (the root's last): the legal moves that keep
    /// the best outcome any move has, under the fifty-move rule (if in force) from the
    /// root's clock; `None` when the tables do not hold every position after a move. A
    /// win keeps every move that wins with time to spare before the rule — so the search
    /// chooses among them — unless a position has repeated since the last capture or pawn
    /// move, or time is short: then only the moves nearest the next zeroing move, which
    /// make progress.
    /// A move into a repetition counts as a draw, as in the search.
    pub fn root_moves(&self, pos: &Position, keys: &[u64]) -> Option<RootProbe> {
        let chess = pos.chess();
        if !self.covers(chess) {
            return None;
        }
        let clock = chess.halfmoves() as i32;
        // Plies the fifty-move rule leaves the game; without the rule time never runs out.
        let left = if self.fifty_move_rule {
            100 - clock
        } else {
            i32::MAX / 4
        };
        let mut line = keys.to_vec();
        let mut scored = Vec::new();
        for m in chess.legal_moves() {
            let next = pos.play(m);
            let after = next.chess();
            line.push(next.key());
            let distance = if after.is_checkmate() {
                1
            } else if m.is_zeroing() {
                distance_after_zeroing(self.tables.probe_wdl_after_zeroing(after).ok()?)
            } else if occurrences_before(&line, clock as usize + 1) > 0 {
                0
            } else {
                let dtz = -self.tables.probe_dtz(after).ok()?.ignore_rounding().0;
                dtz + dtz.signum()
            };
            line.pop();
            scored.push((m, distance));
        }
        let keep = |pred: &dyn Fn(i32) -> bool| -> Vec<Move> {
            scored
                .iter()
                .filter(|&&(_, d)| pred(d))
                .map(|&(m, _)| m)
                .collect()
        };
        let nearest_win = scored.iter().map(|&(_, d)| d).filter(|&d| d > 0).min();
        let longest_loss = scored.iter().map(|&(_, d)| d).min().unwrap_or(0);
        let (outcome, moves) = if let Some(best) = nearest_win {
            let spare = !repeated(keys, clock as usize) && best < left;
            let furthest = if spare { left - 1 } else { best };
            let outcome = if best <= left {
                Outcome::Win
            } else {
                Outcome::CursedWin
            };
            (outcome, keep(&|d| d > 0 && d <= furthest))
        } else if scored.iter().any(|&(_, d)| d == 0) {
            (Outcome::Draw, keep(&|d| d == 0))
        } else if -longest_loss * 2 < left {
            // Lost whatever is played, and the rule is far off: the search resists.
            (Outcome::Loss, keep(&|_| true))
        } else {
            let outcome = if -longest_loss <= left {
                Outcome::Loss
            } else {
                Outcome::BlessedLoss
            };
            (outcome, keep(&|d| d == longest_loss))
        };
        Some(RootProbe { outcome, moves })
    }
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("files", &self.files)
            .field("pieces", &self.pieces)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn tables() -> Tablebases {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");
        Tablebases::open(dir).expect("the test tables are readable")
    }

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, CastlingMode::Standard).expect("a legal test position")
    }

    #[test]
    fn the_root_keeps_only_the_moves_that_keep_the_win() {
        // King and pawn against king: only the king's step to f5 wins (f7 draws).
        let probe = tables()
            .root_moves(&position("8/8/5K2/7k/8/8/6P1/8 w - - 0 1"), &[])
            .expect("KPvK is in the test tables");
        assert_eq!(probe.outcome, Outcome::Win);
        let moves: Vec<String> = probe
            .moves
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(moves, ["f6f5"]);
    }

    #[test]
    fn the_search_probes_only_where_the_clock_is_at_zero_and_within_the_limit() {
        let tb = tables();
        // After a capture: rook and king against king, the king's side to move loses.
        assert_eq!(
            tb.probe(&position("8/8/8/4k3/8/8/8/R3K3 b - - 0 1")),
            Some(Wdl::Loss)
        );
        assert_eq!(
            tb.probe(&position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")),
            Some(Wdl::Win)
        );
        // The clock has run: the search does not probe.
        assert_eq!(tb.probe(&position("8/8/8/4k3/8/8/8/R3K3 b - - 3 9")), None);
        // A table that is not there, and a limit below the position's pieces.
        assert_eq!(tb.probe(&position("8/8/8/4k3/8/8/8/RB2K3 b - - 0 1")), None);
        assert_eq!(
            tb.with_limit(2)
                .probe(&position("8/8/8/4k3/8/8/8/R3K3 b - - 0 1")),
            None
        );
    }

    #[test]
    fn a_skewer_is_the_only_win_in_a_rook_ending() {
        let probe = tables()
            .root_moves(&position("8/6r1/K7/8/6k1/8/1R6/8 w - - 0 1"), &[])
            .expect("KRvKR is in the test tables");
        assert_eq!(probe.outcome, Outcome::Win);
        assert_eq!(probe.moves.len(), 1);
    }

    #[test]
    fn after_a_repetition_only_the_moves_nearest_the_win_remain() {
        // Queen against king, far from mate: many moves win with time to spare.
        let tb = tables();
        let pos = position("8/8/8/3k4/8/8/8/Q3K3 w - - 10 40");
        let fresh = tb.root_moves(&pos, &[pos.key()]).expect("KQvK");
        assert_eq!(fresh.outcome, Outcome::Win);
        // The same root, having occurred before: the moves must now make progress.
        let again = tb
            .root_moves(&pos, &[pos.key(), 1, 2, 3, pos.key()])
            .expect("KQvK");
        assert_eq!(again.outcome, Outcome::Win);
        assert!(
            !again.moves.is_empty() && again.moves.len() < fresh.moves.len(),
            "{} of {}",
            again.moves.len(),
            fresh.moves.len()
        );
        assert!(again.moves.iter().all(|m| fresh.moves.contains(m)));
        // With the clock near the rule, the same holds without a repetition.
        let late = position("8/8/8/3k4/8/8/8/Q3K3 w - - 90 80");
        let hurried = tb.root_moves(&late, &[late.key()]).expect("KQvK");
        assert_eq!(hurried.moves, again.moves);
    }

    #[test]
    fn without_the_fifty_move_rule_the_clock_does_not_draw_a_win() {
        let tb = tables();
        // Queen against king, the mate more than the ten plies the rule leaves.
        let pos = position("8/8/8/3k4/8/8/8/Q3K3 w - - 90 80");
        let ruled = tb.root_moves(&pos, &[pos.key()]).expect("KQvK");
        assert_eq!(ruled.outcome, Outcome::CursedWin);
        assert_ne!(tb.outcome(&pos), Some(Wdl::Win));
        let free = tb.with_fifty_move_rule(false);
        let unruled = free.root_moves(&pos, &[pos.key()]).expect("KQvK");
        assert_eq!(unruled.outcome, Outcome::Win);
        // Time to spare again: every winning move is the search's to choose from.
        assert!(unruled.moves.len() > ruled.moves.len());
        assert_eq!(free.outcome(&pos), Some(Wdl::Win));
        // The lone king's side: lost without the rule, whatever the clock.
        let defender = position("8/8/8/3k4/8/8/8/Q3K3 b - - 95 80");
        assert_eq!(free.outcome(&defender), Some(Wdl::Loss));
        assert_eq!(
            free.root_moves(&defender, &[defender.key()])
                .expect("KQvK")
                .outcome,
            Outcome::Loss
        );
    }

    #[test]
    fn a_move_into_a_repetition_counts_as_a_draw() {
        // Every move of the lone king loses, but one back into an earlier position is a
        // draw (the search would call it one).
        let tb = tables();
        let pos = position("8/8/8/4k3/8/8/8/R3K3 b - - 4 30");
        let plain = tb.root_moves(&pos, &[pos.key()]).expect("KRvK");
        assert_eq!(plain.outcome, Outcome::Loss);
        let back = plain.moves[0];
        let earlier = pos.play(back).key();
        let probe = tb.root_moves(&pos, &[7, earlier, pos.key()]).expect("KRvK");
        assert_eq!(probe.outcome, Outcome::Draw);
        assert_eq!(probe.moves, [back]);
    }

    #[test]
    fn a_missing_directory_is_named() {
        let e = Tablebases::open("/no/such/dir").expect_err("not a directory");
        assert!(e.contains("/no/such/dir"), "{e}");
    }
}
