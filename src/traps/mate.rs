//! An exact forced-mate prover (Understanding Sampling-Based Adversarial Search Methods
//! (2012) §4.1–4.2: a level-k trap is proven by a full-width
//! win/loss search of depth k). "Can the side to move force checkmate within `n` plies?"
//! is answered by an AND/OR search over win/loss only: the attacker needs one move, the
//! defender must be mated after every reply. Pruning that keeps it exact:
//! - at the attacker's last ply only checking moves can mate;
//! - the defender's moves are tried refutation first (the move that refuted this position
//!   before), so a position with no mate usually costs one defender branch per level;
//! - results are remembered per (position, plies) — proven and disproven alike.
//!
//! Draw rules: stalemate is not a mate; a move that reaches the fifty-move limit without
//! mating ends the line as a draw; insufficient material cannot be mated. Threefold
//! repetition cannot complete inside a 7-ply line from a position without history.

use std::collections::HashMap;

use shakmaty::{Bitboard, Color, Move, Role, Square, attacks};

use crate::board::Position;
use crate::board::exchange::mvv_lva;
use crate::board::rules::{self, Terminal};

/// A table of proven results, shared across the moves of one position (and its levels).
#[derive(Debug, Default)]
pub struct MateProver {
    /// (key, plies) → the attacker mates within `plies`, with the mating move if so.
    attack: HashMap<(u64, u8), Option<Move>>,
    /// Defender positions: (key, plies) → the reply that escapes, if any.
    refutation: HashMap<(u64, u8), Move>,
    /// Per plies left: the last two refutations anywhere (a defence that stops one attack
    /// often stops its siblings: the killer heuristic, for disproofs).
    killers: [[Option<Move>; 2]; 16],
    /// Positions visited.
    pub nodes: u64,
}

impl MateProver {
    pub fn new() -> Self {
        Self::default()
    }

    /// The mating line if the side to move in `pos` can force checkmate within `plies`
    /// (odd) plies: the attacker's moves and the defender's best (longest) resistance.
    pub fn mate_line(&mut self, pos: &Position, plies: u8) -> Option<Vec<Move>> {
        self.attack(pos, plies)?;
        let mut line = Vec::new();
        let mut pos = pos.clone();
        let mut left = plies;
        loop {
            // The shortest mate from here keeps the line honest.
            let n = (1..=left)
                .step_by(2)
                .find(|&n| self.attack(&pos, n).is_some())?;
            let m = self.attack(&pos, n)??;
            line.push(m);
            pos = pos.play(m);
            if n == 1 {
                return Some(line);
            }
            // The defender's longest resistance: the reply after which mate takes longest.
            let replies = pos.legal_moves();
            let mut longest: Option<(u8, Move)> = None;
            for &r in &replies {
                let after = pos.play(r);
                let need = (1..n - 1)
                    .step_by(2)
                    .find(|&k| self.attack(&after, k).is_some())
                    .unwrap_or(n - 1);
                if longest.is_none_or(|(l, _)| need > l) {
                    longest = Some((need, r));
                }
            }
            let (need, r) = longest?;
            line.push(r);
            pos = pos.play(r);
            left = need;
        }
    }

    /// `Some(best)` if the side to move mates within `plies`; `best` is the first move of
    /// a mate (`None` inside only for a root that is already mate, which never happens
    /// here since the side to move is the attacker).
    fn attack(&mut self, pos: &Position, plies: u8) -> Option<Option<Move>> {
        let key = (pos.key(), plies);
        if let Some(&known) = self.attack.get(&key) {
            return known.map(Some);
        }
        self.nodes += 1;
        // Checks first, then captures by MVV-LVA; on the last ply only checks can mate.
        let may_check = CheckFilter::new(pos);
        let mut moves: Vec<(bool, i32, Move, Position)> = pos
            .legal_moves()
            .iter()
            .filter(|&&m| plies > 1 || may_check.may_give_check(m))
            .map(|&m| {
                let after = pos.play(m);
                (after.is_check(), mvv_lva(m), m, after)
            })
            .filter(|(check, ..)| plies > 1 || *check)
            .collect();
        moves.sort_by_key(|&(check, order, ..)| (!check, -order));
        let mut found = None;
        for (_, _, m, after) in moves {
            if self.defended_mated(&after, plies - 1) {
                found = Some(m);
                break;
            }
        }
        self.attack.insert(key, found);
        found.map(Some)
    }

    /// True if the side to move in `pos` (the defender) is mated now, or is mated within
    /// `plies` more plies whatever it plays.
    fn defended_mated(&mut self, pos: &Position, plies: u8) -> bool {
        self.nodes += 1;
        let replies = pos.legal_moves();
        // No repetition can complete inside a short line from a position without history.
        match rules::end(pos.chess(), !replies.is_empty(), false) {
            Some(t) => return t == Terminal::Checkmate,
            None if plies == 0 => return false,
            None => {}
        }
        let key = (pos.key(), plies);
        let slot = usize::from(plies).min(15);
        let mut first: Vec<Move> = Vec::with_capacity(3);
        for r in self
            .refutation
            .get(&key)
            .copied()
            .into_iter()
            .chain(self.killers[slot].iter().flatten().copied())
        {
            if replies.contains(&r) && !first.contains(&r) {
                first.push(r);
            }
        }
        let ordered = first
            .iter()
            .copied()
            .chain(replies.iter().copied().filter(|r| !first.contains(r)));
        for r in ordered {
            if self.attack(&pos.play(r), plies - 1).is_none() {
                self.refutation.insert(key, r);
                let k = &mut self.killers[slot];
                if k[0] != Some(r) {
                    k[1] = k[0];
                    k[0] = Some(r);
                }
                return false;
            }
        }
        true
    }
}

/// A cheap superset of the checking moves, so the last attacking ply plays only the
/// moves that might check: a move checks only if its piece attacks the enemy king from its
/// destination, or it leaves a line through the king (a discovered check), or it is a
/// castle or an en-passant capture (kept, they are rare).
struct CheckFilter {
    king: Option<Square>,
    occupied: Bitboard,
    them: Color,
}

impl CheckFilter {
    fn new(pos: &Position) -> Self {
        let board = shakmaty::Position::board(pos.chess());
        let them = !pos.turn();
        CheckFilter {
            king: board.king_of(them),
            occupied: board.occupied(),
            them,
        }
    }

    fn may_give_check(&self, m: Move) -> bool {
        let Some(king) = self.king else { return true };
        if m.is_castle() || m.is_en_passant() {
            return true;
        }
        if let Some(from) = m.from()
            && attacks::ray(king, from).any()
        {
            return true; // may uncover a slider, or move along the line
        }
        let to = m.to();
        let occupied = self.occupied.without(m.from().unwrap_or(to)).with(to);
        let role = m.promotion().unwrap_or(m.role());
        let hits = match role {
            Role::Pawn => attacks::pawn_attacks(!self.them, to),
            Role::Knight => attacks::knight_attacks(to),
            Role::Bishop => attacks::bishop_attacks(to, occupied),
            Role::Rook => attacks::rook_attacks(to, occupied),
            Role::Queen => attacks::queen_attacks(to, occupied),
            Role::King => Bitboard::EMPTY,
        };
        hits.contains(king)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn back_rank_mate_in_one_and_none_shorter() {
        let p = pos("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
        let mut prover = MateProver::new();
        let line = prover.mate_line(&p, 1).unwrap();
        assert_eq!(p.to_uci(line[0]).to_string(), "d1d8");
        assert!(
            prover
                .mate_line(&pos("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1"), 5)
                .is_none()
        );
    }

    #[test]
    fn stalemate_is_not_mate() {
        // Black to move is stalemated after Qb6?? would not count; here White to move:
        // Qc7 stalemates, no mate in 1 exists.
        let p = pos("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1");
        let mut prover = MateProver::new();
        assert!(prover.mate_line(&p, 1).is_some_and(|l| l.len() == 1));
        let p = pos("k7/8/2K5/8/8/8/8/8 w - - 0 1");
        assert!(prover.mate_line(&p, 3).is_none());
    }
}
