//! Material exchanges: which moves change material (the tactical moves quiescence search
//! follows), the MVV-LVA key that orders them, and static exchange evaluation — the
//! material outcome of the capture sequence a move starts on its target square, each side
//! recapturing with its least valuable attacker and free to stop when going on would lose
//! (pins are ignored, as usual).

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Move, Position as _, Role};

use super::eval::piece_value;

/// Captures and promotions: the moves quiescence search looks at.
#[inline]
pub fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Ordering key for tactical moves: most valuable victim (or promotion gain) first, least
/// valuable attacker among equals.
#[inline]
pub fn mvv_lva(m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let promotion = m
        .promotion()
        .map_or(0, |p| piece_value(p) - piece_value(Role::Pawn));
    (victim + promotion) * 8 - piece_value(m.role()) / 100
}

/// The exchange value of `m` for the side playing it, in centipawns.
pub fn see(pos: &Chess, m: Move) -> i32 {
    let (Some(from), to) = (m.from(), m.to()) else {
        return 0;
    };
    if m.is_castle() {
        return 0;
    }
    let board = pos.board();
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    let mut gain = [0i32; 32];
    if let Move::EnPassant { .. } = m {
        // The captured pawn is not on the target square.
        let victim = shakmaty::Square::from_coords(to.file(), from.rank());
        occupied ^= Bitboard::from(victim);
    }
    let (first, mut on_square) = first_capture(m);
    gain[0] = first;
    let bishops = board.bishops_and_queens();
    let rooks = board.rooks_and_queens();
    let mut attackers = (board.attacks_to(to, shakmaty::Color::White, occupied)
        | board.attacks_to(to, shakmaty::Color::Black, occupied))
        & occupied;
    let mut side = !pos.turn();
    let mut depth = 0;
    loop {
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        let Some((role, sq)) = least_valuable(board, ours) else {
            break;
        };
        if role == Role::King && !(attackers & board.by_color(!side)).is_empty() {
            // The king may not capture into a defended square.
            break;
        }
        depth += 1;
        gain[depth] = piece_value(on_square) - gain[depth - 1];
        if depth + 1 >= gain.len() {
            break;
        }
        occupied ^= Bitboard::from(sq);
        // Removing the attacker may uncover a slider behind it.
        attackers |=
            (bishop_attacks(to, occupied) & bishops) | (rook_attacks(to, occupied) & rooks);
        attackers &= occupied;
        on_square = role;
        side = !side;
    }
    while depth > 0 {
        gain[depth - 1] = -((-gain[depth - 1]).max(gain[depth]));
        depth -= 1;
    }
    gain[0]
}

/// `see(pos, m) >= threshold`, answered without the exchange where its first capture
/// alone decides: the side to move can stop after its own capture, so the exchange is
/// worth at most what that capture takes, and the opponent can stop after taking back
/// once, so it is worth at least that less the capturing piece. Always the same answer as
/// [`see`], only cheaper.
#[inline]
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    if m.from().is_none() || m.is_castle() {
        return 0 >= threshold;
    }
    let (gain, on_square) = first_capture(m);
    if gain < threshold {
        return false;
    }
    if gain - piece_value(on_square) >= threshold {
        return true;
    }
    see(pos, m) >= threshold
}

/// What the move itself wins (the victim, and a promotion's gain over the pawn) and the
/// piece it leaves on its square for the opponent to take.
#[inline]
fn first_capture(m: Move) -> (i32, Role) {
    let victim = m.capture().map_or(0, piece_value);
    match m.promotion() {
        Some(p) => (victim + piece_value(p) - piece_value(Role::Pawn), p),
        None => (victim, m.role()),
    }
}

fn least_valuable(
    board: &shakmaty::Board,
    candidates: Bitboard,
) -> Option<(Role, shakmaty::Square)> {
    Role::ALL.into_iter().find_map(|role| {
        (candidates & board.by_role(role))
            .first()
            .map(|sq| (role, sq))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use shakmaty::CastlingMode;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let m = pos.parse_uci(uci).unwrap();
        see(pos.chess(), m)
    }

    #[test]
    fn undefended_pawn_wins_a_pawn() {
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
    }

    #[test]
    fn knight_takes_defended_pawn_behind_xray_loses() {
        // The classic: Nxe5 with rook/queen batteries on both sides.
        let fen = "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1";
        assert_eq!(see_of(fen, "d3e5"), -220);
    }

    /// The shortcut must never disagree with the full exchange: every move of a few
    /// tactical positions, against thresholds from a queen down to a queen up.
    #[test]
    fn see_ge_agrees_with_see_everywhere() {
        let fens = [
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "8/2P3k1/8/3pP3/8/8/5p2/1K2R3 w - d6 0 1",
            "8/2P3k1/8/3pP3/8/8/5p2/1K2R3 b - - 0 1",
        ];
        // And every position of the perft suite and the tactics suite: pins, promotions,
        // en passant, batteries.
        let mut positions: Vec<Position> = fens
            .iter()
            .map(|f| Position::from_fen(f, CastlingMode::Standard).unwrap())
            .collect();
        for suite in [
            include_str!("../../perft/perftsuite.epd"),
            include_str!("../../tests/data/wac.epd"),
        ] {
            positions.extend(crate::board::epd::read_positions(suite).unwrap());
        }
        let mut checked = 0;
        for pos in &positions {
            for m in pos.legal_moves() {
                let full = see(pos.chess(), m);
                for t in (-1000..=1000).step_by(10) {
                    assert_eq!(
                        see_ge(pos.chess(), m, t),
                        full >= t,
                        "{} {m:?} {t}",
                        pos.fen()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 2_000_000, "{checked}");
    }

    #[test]
    fn quiet_move_to_attacked_square_is_not_a_gain() {
        assert_eq!(see_of("4k3/8/8/3p4/8/8/8/2N1K3 w - - 0 1", "c1b3"), 0);
    }
}
