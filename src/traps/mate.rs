//! An exact forced-mate prover (Understanding Sampling-Based Adversarial Search Methods
//! (2012) §4.1–4.2: a level-k trap is proven by a full-width
//! win/loss search of depth k). "Can the side to move force checkmate within `n` plies?"
//! is answered by an AND/OR search over win/loss only: the attacker needs one move, the
//! defender must be mated after every reply. Almost all of the work is disproof (most
//! moves are no trap), so everything below aims at proving "no mate" cheaply, and exactly:
//! - "within n plies" is monotone in n: a mate within n is a mate within n + 2, no mate
//!   within n is no mate within n − 2. The table keeps, per position, the shortest proven
//!   and the longest disproven horizon, so one search at the deepest level answers the
//!   shallower questions too;
//! - a disproof is as small as the defender's escapes make it. Far from the leaves the
//!   defender tries checking replies first (after the escape the table remembers): in
//!   check, the attacker's next choice shrinks to a few evasions. This one ordering made
//!   the prover eight times faster on WAC;
//! - near the leaves the escape is usually the table's or one of the last two found at that
//!   depth (killers), tested for legality alone, so no reply list is generated;
//! - on the attacker's last ply only checks can mate. The squares from which each piece
//!   would give check come from attack tables; where no discovered check, promotion,
//!   castling or en passant is possible, only the moves onto those squares are generated.
//!   Mates in one are not stored: a lookup hit in 4% of cases on WAC.
//!
//! Draw rules: stalemate is not a mate; a move that reaches the fifty-move limit without
//! mating ends the line as a draw (so near the limit the table keys include the clock);
//! insufficient material cannot be mated. Threefold repetition cannot complete inside a
//! 7-ply line from a position without history.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, Role, Square, attacks};

use crate::board::Position;
use crate::board::exchange::mvv_lva;
use crate::board::position::slider_blockers;
use crate::board::rules::{self, Terminal};

/// The deepest horizon the prover is asked for (`--max-level` 15 and the move before).
const MAX_PLIES: u32 = 16;

/// What is known about one (position, side) across horizons.
#[derive(Debug, Clone, Copy)]
struct Known {
    /// The answer is yes for every horizon from this one (`u8::MAX`: none known).
    yes_from: u8,
    /// The answer is no for every horizon up to this one (`None`: none known).
    no_upto: Option<u8>,
    /// Attacker: the mating move at `yes_from`. Defender: the last escape found.
    mv: Option<Move>,
}

impl Default for Known {
    fn default() -> Self {
        Known {
            yes_from: u8::MAX,
            no_upto: None,
            mv: None,
        }
    }
}

impl Known {
    /// The answer is yes at `plies`, so at every longer horizon too.
    fn yes_at(&mut self, plies: u8) {
        self.yes_from = self.yes_from.min(plies);
    }

    /// The answer is no at `plies`, so at every shorter horizon too.
    fn no_at(&mut self, plies: u8) {
        self.no_upto = Some(self.no_upto.map_or(plies, |n| n.max(plies)));
    }

    fn answer(&self, plies: u8) -> Option<bool> {
        if plies >= self.yes_from {
            Some(true)
        } else if self.no_upto.is_some_and(|n| plies <= n) {
            Some(false)
        } else {
            None
        }
    }
}

/// Zobrist keys are already uniform: hashing them again (SipHash) only costs time.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

type Table = HashMap<u64, Known, BuildHasherDefault<KeyHasher>>;

/// A table of proven results, shared across the moves of one position (and its levels).
#[derive(Default)]
pub struct MateProver {
    /// Attacker to move: mates within the horizon, with the mating move.
    attack: Table,
    /// Defender to move: is mated within the horizon, or the reply that escapes.
    defence: Table,
    /// Per plies left: the last two escapes anywhere (a defence that stops one attack
    /// often stops its siblings: the killer heuristic, for disproofs).
    killers: [[Option<Move>; 2]; MAX_PLIES as usize],
    /// Positions visited.
    pub nodes: u64,
}

impl std::fmt::Debug for MateProver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MateProver")
            .field("attack", &self.attack.len())
            .field("defence", &self.defence.len())
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// The table key: the Zobrist key, and near the fifty-move limit the clock too, since
/// there the same placement can be a mate on one path and a draw on another.
fn table_key(pos: &Position) -> u64 {
    let clock = pos.halfmoves();
    if clock + MAX_PLIES >= 100 {
        pos.key() ^ u64::from(clock).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    } else {
        pos.key()
    }
}

impl MateProver {
    pub fn new() -> Self {
        Self::default()
    }

    /// True if the side to move in `pos` can force checkmate within `plies` plies.
    pub fn mates_within(&mut self, pos: &Position, plies: u8) -> bool {
        self.attack(pos, plies).is_some()
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
            let m = self.attack(&pos, n)?;
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

    /// The first move of a mate within `plies` for the side to move, if there is one.
    fn attack(&mut self, pos: &Position, plies: u8) -> Option<Move> {
        if plies <= 1 {
            // Mates in one are rarely met twice (a table hit in 4% of lookups on WAC) and
            // cheaper to find again than to store.
            self.nodes += 1;
            return self.mate_in_one(pos);
        }
        let key = table_key(pos);
        let known = self.attack.get(&key).copied().unwrap_or_default();
        match known.answer(plies) {
            Some(true) => return known.mv,
            Some(false) => return None,
            None => {}
        }
        self.nodes += 1;
        let found = self.attack_deeper(pos, plies);
        let entry = self.attack.entry(key).or_default();
        match found {
            Some(m) if plies < entry.yes_from => {
                entry.yes_at(plies);
                entry.mv = Some(m);
            }
            Some(_) => {}
            None => entry.no_at(plies),
        }
        found
    }

    /// A checking move that mates at once.
    fn mate_in_one(&mut self, pos: &Position) -> Option<Move> {
        let filter = CheckFilter::new(pos);
        let chess = pos.chess();
        let Some(targets) = filter.direct_check_targets(pos) else {
            return pos
                .legal_moves()
                .into_iter()
                .find(|&m| filter.may_give_check(m) && mates(chess, m));
        };
        for (role, squares) in targets {
            for to in squares {
                let candidates = shakmaty::Position::san_candidates(chess, role, to);
                if let Some(m) = candidates.into_iter().find(|&m| mates(chess, m)) {
                    return Some(m);
                }
            }
        }
        None
    }

    /// A mate within `plies` ≥ 3: possible checks first, then captures by MVV-LVA (the
    /// order only matters for proofs; a disproof tries every move).
    fn attack_deeper(&mut self, pos: &Position, plies: u8) -> Option<Move> {
        let filter = CheckFilter::new(pos);
        let mut moves: Vec<(i32, Move)> = pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let check = if filter.may_give_check(m) { 1 << 20 } else { 0 };
                (-(check + mvv_lva(m)), m)
            })
            .collect();
        moves.sort_unstable_by_key(|&(order, _)| order);
        moves
            .into_iter()
            .map(|(_, m)| m)
            .find(|&m| self.defended_mated(&pos.play(m), plies - 1))
    }

    /// True if the side to move in `pos` (the defender) is mated now, or is mated within
    /// `plies` more plies whatever it plays.
    fn defended_mated(&mut self, pos: &Position, plies: u8) -> bool {
        self.nodes += 1;
        if plies == 0 {
            // Only mate counts now; a stalemate or a draw by rule is an escape.
            return pos.is_check() && pos.legal_moves().is_empty();
        }
        let chess = pos.chess();
        if pos.halfmoves() >= 100 || shakmaty::Position::is_insufficient_material(chess) {
            let replies = pos.legal_moves();
            return rules::end(chess, !replies.is_empty(), false) == Some(Terminal::Checkmate);
        }
        let key = table_key(pos);
        let known = self.defence.get(&key).copied().unwrap_or_default();
        if let Some(answer) = known.answer(plies) {
            return answer;
        }
        let slot = usize::from(plies).min(MAX_PLIES as usize - 1);
        let killers = self.killers[slot];
        // Deep down, a reply that checks shrinks the attacker's next choice to evasions,
        // so checks go before the killers there; near the leaves the killers are cheaper.
        let deep = plies >= 4;
        let mut hints = if deep {
            [known.mv, None, None]
        } else {
            [known.mv, killers[0], killers[1]]
        };
        for i in 0..hints.len() {
            // A hint repeated, or illegal here, is not tried.
            let Some(r) = hints[i] else { continue };
            if hints[..i].contains(&Some(r)) || !shakmaty::Position::is_legal(chess, r) {
                hints[i] = None;
                continue;
            }
            if self.attack(&pos.play(r), plies - 1).is_none() {
                self.escaped(key, slot, plies, r);
                return false;
            }
        }
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return pos.is_check();
        }
        let mut rest: Vec<(i32, Move)> = replies
            .iter()
            .filter(|r| !hints.contains(&Some(**r)))
            .map(|&r| (0, r))
            .collect();
        if deep {
            let filter = CheckFilter::new(pos);
            for (order, r) in &mut rest {
                let check = if filter.may_give_check(*r) {
                    1 << 21
                } else {
                    0
                };
                let killer = if killers.contains(&Some(*r)) {
                    1 << 20
                } else {
                    0
                };
                *order = -(check + killer + mvv_lva(*r));
            }
            rest.sort_by_key(|&(order, _)| order);
        }
        for (_, r) in rest {
            if self.attack(&pos.play(r), plies - 1).is_none() {
                self.escaped(key, slot, plies, r);
                return false;
            }
        }
        self.defence.entry(key).or_default().yes_at(plies);
        true
    }

    /// Remembers that `r` escapes a mate within `plies` at the defender's position `key`.
    fn escaped(&mut self, key: u64, slot: usize, plies: u8, r: Move) {
        let entry = self.defence.entry(key).or_default();
        entry.no_at(plies);
        entry.mv = Some(r);
        let k = &mut self.killers[slot];
        if k[0] != Some(r) {
            k[1] = k[0];
            k[0] = Some(r);
        }
    }
}

/// A cheap superset of the checking moves, so the last attacking ply plays only the
/// moves that might check: a move checks only if its piece attacks the enemy king from its
/// destination, or it takes a lone blocker off the line between the king and one of our
/// sliders (a discovered check), or it is a castle or an en-passant capture (kept, they
/// are rare).
struct CheckFilter {
    king: Option<Square>,
    occupied: Bitboard,
    them: Color,
    /// Our pieces that stand alone between the enemy king and one of our sliders.
    discoverers: Bitboard,
    /// Squares from which a piece would attack the king, by the lines it moves on. They
    /// are computed on the board before the move: a piece that moves along a line through
    /// the king already attacked the king along it unless something else blocks it, so
    /// vacating its square never opens its own line (a promoting pawn excepted).
    knight: Bitboard,
    diagonal: Bitboard,
    straight: Bitboard,
    pawn: Bitboard,
}

impl CheckFilter {
    fn new(pos: &Position) -> Self {
        let board = shakmaty::Position::board(pos.chess());
        let them = !pos.turn();
        let us = pos.turn();
        let occupied = board.occupied();
        let mut filter = CheckFilter {
            king: board.king_of(them),
            occupied,
            them,
            discoverers: Bitboard::EMPTY,
            knight: Bitboard::EMPTY,
            diagonal: Bitboard::EMPTY,
            straight: Bitboard::EMPTY,
            pawn: Bitboard::EMPTY,
        };
        let Some(king) = filter.king else {
            return filter;
        };
        filter.knight = attacks::knight_attacks(king);
        filter.diagonal = attacks::bishop_attacks(king, occupied);
        filter.straight = attacks::rook_attacks(king, occupied);
        filter.pawn = attacks::pawn_attacks(them, king);
        let ours = board.by_color(us);
        filter.discoverers = slider_blockers(board, ours, king) & ours;
        filter
    }

    fn may_give_check(&self, m: Move) -> bool {
        let Some(king) = self.king else { return true };
        let Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } = m
        else {
            return true; // castling, en passant
        };
        if self.discoverers.contains(from) && !attacks::aligned(king, from, to) {
            return true;
        }
        if let Some(promoted) = promotion {
            let occupied = self.occupied.without(from).with(to);
            return attacks::attacks(to, promoted.of(!self.them), occupied).contains(king);
        }
        let squares = match role {
            Role::Pawn => self.pawn,
            Role::Knight => self.knight,
            Role::Bishop => self.diagonal,
            Role::Rook => self.straight,
            Role::Queen => self.diagonal | self.straight,
            Role::King => Bitboard::EMPTY,
        };
        squares.contains(to)
    }

    /// The squares onto which each of our roles (pawn, knight, bishop, rook, queen) could
    /// move to give a direct check, judged from attack tables without generating moves;
    /// `None` when a check of another kind is possible — a discovered check, a promotion,
    /// a castled rook reaching the king's file or rank, an en-passant capture — and the
    /// moves must be generated in full.
    fn direct_check_targets(&self, pos: &Position) -> Option<[(Role, Bitboard); 5]> {
        let king = self.king?;
        let chess = pos.chess();
        let board = shakmaty::Position::board(chess);
        let us = !self.them;
        let ours = board.by_color(us);
        let occ = self.occupied;
        // The castled rook ends on the d- or f-file of our back rank.
        let castle_check = matches!(king.file(), shakmaty::File::D | shakmaty::File::F)
            || king.rank() == us.relative_rank(shakmaty::Rank::First);
        let pawns = board.by_piece(Role::Pawn.of(us));
        if (castle_check && shakmaty::Position::castles(chess).has_color(us))
            || shakmaty::Position::ep_square(chess, EnPassantMode::Legal).is_some()
            || self.discoverers.any()
            || (pawns & Bitboard::from_rank(us.relative_rank(shakmaty::Rank::Seventh))).any()
        {
            return None;
        }
        let reach = |role: Role| -> Bitboard {
            board
                .by_piece(role.of(us))
                .into_iter()
                .fold(Bitboard::EMPTY, |acc, sq| {
                    acc | attacks::attacks(sq, role.of(us), occ)
                })
                & !ours
        };
        let theirs = board.by_color(self.them);
        let pawn_reach = pawns.into_iter().fold(Bitboard::EMPTY, |acc, sq| {
            acc | (attacks::pawn_attacks(us, sq) & theirs) | pawn_pushes(us, sq, occ)
        });
        Some([
            (Role::Pawn, pawn_reach & self.pawn),
            (Role::Knight, reach(Role::Knight) & self.knight),
            (Role::Bishop, reach(Role::Bishop) & self.diagonal),
            (Role::Rook, reach(Role::Rook) & self.straight),
            (
                Role::Queen,
                reach(Role::Queen) & (self.diagonal | self.straight),
            ),
        ])
    }
}

/// The legal move `m` checkmates. (The key is not needed: mates in one are not stored.)
fn mates(chess: &Chess, m: Move) -> bool {
    let mut after = chess.clone();
    shakmaty::Position::play_unchecked(&mut after, m);
    shakmaty::Position::is_checkmate(&after)
}

/// The squares a pawn of `color` on `sq` can push to.
fn pawn_pushes(color: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let Some(one) = sq.offset(if color == Color::White { 8 } else { -8 }) else {
        return Bitboard::EMPTY;
    };
    if occ.contains(one) {
        return Bitboard::EMPTY;
    }
    let start = Bitboard::from_rank(color.relative_rank(shakmaty::Rank::Second));
    let two = if start.contains(sq) {
        one.offset(if color == Color::White { 8 } else { -8 })
            .filter(|t| !occ.contains(*t))
    } else {
        None
    };
    Bitboard::from_square(one) | two.map_or(Bitboard::EMPTY, Bitboard::from_square)
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

    #[test]
    fn the_fifty_move_clock_is_part_of_the_question_near_the_limit() {
        // 1.Kb6 Kb8 2.Rh8#, no mate in one; with the clock at 99, 1.Kb6 reaches the limit.
        let fresh = pos("k7/8/2K5/8/8/8/8/7R w - - 0 1");
        let late = pos("k7/8/2K5/8/8/8/8/7R w - - 99 80");
        for order in [[&fresh, &late], [&late, &fresh]] {
            // One prover for both: its table must not answer one with the other.
            let mut prover = MateProver::new();
            for p in order {
                let expected = p.halfmoves() == 0;
                assert_eq!(prover.mates_within(p, 3), expected, "{}", p.fen());
                assert_eq!(prover.mates_within(p, 5), expected, "{}", p.fen());
            }
        }
    }

    #[test]
    fn the_check_filter_misses_no_check() {
        // Positions rich in discovered checks, promotions, castling and en passant.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2pP4/8/8/8/4K2R w K c6 0 1",
            "3k4/8/8/8/8/8/3B4/R2QK2R w KQ - 0 1",
            "7k/1P6/8/8/8/8/6B1/K7 w - - 0 1",
            "k7/8/8/3q4/8/3N4/8/3K4 b - - 0 1",
        ];
        for fen in fens {
            let p = Position::from_fen_auto(fen).unwrap();
            let filter = CheckFilter::new(&p);
            let targets = filter.direct_check_targets(&p);
            for &m in &p.legal_moves() {
                if !p.play(m).is_check() {
                    continue;
                }
                assert!(filter.may_give_check(m), "{fen}: {m:?}");
                if let (Some(targets), Move::Normal { role, to, .. }) = (targets, m) {
                    let squares = targets.iter().find(|(r, _)| *r == role).map(|t| t.1);
                    assert!(squares.is_some_and(|b| b.contains(to)), "{fen}: {m:?}");
                }
            }
        }
    }
}
