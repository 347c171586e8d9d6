//! The engine's position: shakmaty's `Chess` plus what shakmaty leaves to an engine —
//! a Zobrist key kept up to date move by move, the null move, and UCI move notation in
//! the castling mode the GUI asked for. The draw rules shakmaty does not know (fifty
//! moves, repetition) need the game's history and live in [`super::game`].

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue as _};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Move, MoveList, Piece,
    Position as _, Role, Square, attacks,
};
use thiserror::Error;

/// Why a FEN or a move could not be turned into a position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("invalid fen '{fen}': {reason}")]
    InvalidFen { fen: String, reason: String },
    #[error("illegal position '{fen}': {reason}")]
    IllegalPosition { fen: String, reason: String },
    #[error("malformed move '{0}'")]
    MalformedMove(String),
    #[error("illegal move '{0}'")]
    IllegalMove(String),
}

/// A chess position with its Zobrist key (Polyglot-compatible, legal en-passant squares only,
/// so that equal keys mean equal positions under the FIDE repetition rule).
#[derive(Clone, Debug)]
pub struct Position {
    chess: Chess,
    key: u64,
}

impl Default for Position {
    fn default() -> Self {
        Self::from_chess(Chess::default())
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.chess == other.chess
    }
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Self {
        Self::default()
    }

    /// Wraps a shakmaty position, computing its key from scratch.
    pub fn from_chess(chess: Chess) -> Self {
        let key = full_key(&chess);
        Self { chess, key }
    }

    /// Parses a FEN (or the first four or six fields of an EPD line) in the given castling
    /// mode. Nothing is repaired silently: a FEN shakmaty rejects is an error naming why —
    /// except a check that could not arise in a game (two sliders on one line), which
    /// perft suites use and which does not stop the rules from working.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Self, PositionError> {
        let text = fen.trim();
        let parsed: Fen = text.parse().map_err(|e| PositionError::InvalidFen {
            fen: text.to_string(),
            reason: format!("{e}"),
        })?;
        let chess: Chess = match parsed.into_position(mode) {
            Ok(chess) => Ok(chess),
            Err(e) => e.ignore_impossible_check(),
        }
        .map_err(|e| PositionError::IllegalPosition {
            fen: text.to_string(),
            reason: format!("{e}"),
        })?;
        Ok(Self::from_chess(chess))
    }

    /// Parses a FEN with the castling mode read off its castling rights: standard chess
    /// unless only Chess960 explains them (Shredder-FEN files, rooks off the corners).
    pub fn from_fen_auto(fen: &str) -> Result<Self, PositionError> {
        let text = fen.trim();
        let setup = text
            .parse::<Fen>()
            .map_err(|e| PositionError::InvalidFen {
                fen: text.to_string(),
                reason: format!("{e}"),
            })?
            .into_setup();
        Self::from_fen(text, CastlingMode::detect(&setup))
    }

    /// The underlying shakmaty position.
    #[inline]
    pub fn chess(&self) -> &Chess {
        &self.chess
    }

    /// The Zobrist key.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.chess.turn()
    }

    #[inline]
    pub fn is_check(&self) -> bool {
        self.chess.is_check()
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.chess.halfmoves()
    }

    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.chess.legal_moves()
    }

    /// The legal captures and promotions of a side not in check: `legal_moves` less its
    /// quiet moves, in the same order, without generating the quiet moves first (for
    /// quiescence, where they were most of the list and all thrown away). In check, all
    /// legal moves, as quiescence searches every evasion.
    pub fn tactical_moves(&self) -> MoveList {
        let chess = &self.chess;
        if chess.is_check() {
            return chess.legal_moves();
        }
        let board = chess.board();
        let us = chess.turn();
        let mut moves = MoveList::new();
        let Some(king) = board.king_of(us) else {
            return moves;
        };
        let them = board.by_color(!us);
        let occupied = board.occupied();
        let pawns = chess.our(Role::Pawn);
        // shakmaty's order, so that the list is the one its generator gives less the quiet
        // moves: en passant, pawn captures one way then the other, promotions by a step,
        // then knights, bishops, rooks, queens, the king.
        let ep = chess
            .maybe_ep_square()
            .map(|to| (to, pawns & attacks::pawn_attacks(!us, to)))
            .filter(|(_, from)| from.any());
        if let Some((to, from)) = ep {
            for from in from {
                moves.push(Move::EnPassant { from, to });
            }
        }
        // Each pawn direction's target squares and the step from a target back to its pawn.
        let (file_a, file_h) = (
            Bitboard::from_file(File::A).0,
            Bitboard::from_file(File::H).0,
        );
        let p = pawns.0;
        let [(west, west_back), (east, east_back), (step, step_back)] = match us {
            Color::White => [
                ((p & !file_a) << 7, -7),
                ((p & !file_h) << 9, -9),
                (p << 8, -8),
            ],
            Color::Black => [
                ((p & !file_a) >> 9, 9),
                ((p & !file_h) >> 7, 7),
                (p >> 8, 8),
            ],
        };
        for (targets, back) in [(west, west_back), (east, east_back)] {
            let captures = Bitboard(targets) & them;
            for to in captures & !Bitboard::BACKRANKS {
                let from = offset(to, back);
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
            for to in captures & Bitboard::BACKRANKS {
                push_promotions(&mut moves, offset(to, back), to, board.role_at(to));
            }
        }
        for to in Bitboard(step) & !occupied & Bitboard::BACKRANKS {
            push_promotions(&mut moves, offset(to, step_back), to, None);
        }
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in chess.our(role) {
                let targets = match role {
                    Role::Knight => attacks::knight_attacks(from),
                    Role::Bishop => attacks::bishop_attacks(from, occupied),
                    Role::Rook => attacks::rook_attacks(from, occupied),
                    _ => attacks::queen_attacks(from, occupied),
                };
                for to in targets & them {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }
        for to in attacks::king_attacks(king) & them {
            if board.attacks_to(to, !us, occupied).is_empty() {
                moves.push(Move::Normal {
                    role: Role::King,
                    from: king,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
        // A piece pinned to the king moves only along the pin; an en-passant capture
        // may uncover the king on its rank.
        let blockers = slider_blockers(board, them, king);
        if blockers.any() || ep.is_some() {
            moves.retain(|m| match *m {
                Move::Normal { from, to, .. } => {
                    !blockers.contains(from) || attacks::aligned(from, to, king)
                }
                Move::EnPassant { from, to } => {
                    let taken = Square::from_coords(to.file(), from.rank());
                    let after = occupied.without(from).without(taken).with(to);
                    board.attacks_to(king, !us, after).without(taken).is_empty()
                }
                _ => true,
            });
        }
        moves
    }

    /// The castling mode the position was set up in (decides how castling is written in UCI).
    #[inline]
    pub fn mode(&self) -> CastlingMode {
        self.chess.castles().mode()
    }

    /// The side to move has pieces other than pawns and king: the guard for null-move
    /// pruning, whose assumption (passing is never best) fails in pawn endings.
    #[inline]
    pub fn has_non_pawn_material(&self) -> bool {
        let board = self.chess.board();
        let ours = board.by_color(self.turn());
        !(ours & !(board.pawns() | board.kings())).is_empty()
    }

    /// How many of the opponent's pieces (a queen counting twice) attack the squares
    /// around the side to move's king: a cheap sign that a quiet threat may be on the
    /// board that a static evaluation does not see.
    pub fn king_danger(&self) -> u32 {
        self.king_pressure(self.turn())
    }

    /// How many pieces of `!us` (a queen counting twice) attack the squares around the
    /// king of `us`: [`king_danger`](Self::king_danger) from either side of the board.
    pub fn king_pressure(&self, us: Color) -> u32 {
        let board = self.chess.board();
        let Some(king) = board.king_of(us) else {
            return 0;
        };
        let zone = attacks::king_attacks(king);
        let occupied = board.occupied();
        let mut danger = 0;
        for sq in board.by_color(!us) & !(board.pawns() | board.kings()) {
            let Some(role) = board.role_at(sq) else {
                continue;
            };
            let reach = match role {
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occupied),
                Role::Rook => attacks::rook_attacks(sq, occupied),
                _ => attacks::queen_attacks(sq, occupied),
            };
            if !(reach & zone).is_empty() {
                danger += if role == Role::Queen { 2 } else { 1 };
            }
        }
        danger
    }

    /// The squares the opponent of the side to move attacks (x-rays not counted).
    pub fn threats(&self) -> Bitboard {
        let board = self.chess.board();
        let them = !self.turn();
        let occupied = board.occupied();
        let mut threats = Bitboard::EMPTY;
        for role in Role::ALL {
            let piece = Piece { color: them, role };
            for sq in board.by_piece(piece) {
                threats |= attacks::attacks(sq, piece, occupied);
            }
        }
        threats
    }

    /// The key after `m`, computed without playing it: exact unless the move changes the
    /// castling rights or an en-passant square comes or goes, which is good enough to
    /// fetch the table's bucket while the move is being played.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        self.key ^ moved_pieces_key(self.turn(), m)
    }

    /// The position after `m`, which must be legal here (it comes from `legal_moves`),
    /// its key updated incrementally.
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        let mut chess = self.chess.clone();
        chess.play_unchecked(m);
        let key = self.key ^ key_change(&self.chess, &chess, m);
        Position { chess, key }
    }

    /// The position with the other side to move, or `None` when the side to move is in check.
    pub fn null_move(&self) -> Option<Position> {
        let chess = self.chess.clone().swap_turn().ok()?;
        // Passing changes the side to move and forfeits any en-passant capture.
        let key = self.key ^ Zobrist64::zobrist_for_white_turn().0 ^ en_passant_key(&self.chess);
        Some(Position { chess, key })
    }

    /// What it takes to check the opponent from here, worked out once per node so that
    /// each move's [`CheckSquares::gives_check`] is a lookup.
    pub fn check_squares(&self) -> CheckSquares {
        let board = self.chess.board();
        let us = self.turn();
        let Some(king) = board.king_of(!us) else {
            return CheckSquares {
                king: None,
                by_role: [Bitboard::EMPTY; 6],
                discoverers: Bitboard::EMPTY,
            };
        };
        let occupied = board.occupied();
        let ours = board.by_color(us);
        let diagonal = attacks::bishop_attacks(king, occupied);
        let straight = attacks::rook_attacks(king, occupied);
        // Our sliders lined up with the king behind exactly one piece of ours: moving that
        // piece off the line checks.
        let discoverers = slider_blockers(board, ours, king) & ours;
        CheckSquares {
            king: Some(king),
            by_role: [
                attacks::pawn_attacks(!us, king),
                attacks::knight_attacks(king),
                diagonal,
                straight,
                diagonal | straight,
                Bitboard::EMPTY,
            ],
            discoverers,
        }
    }

    /// Whether `m` (legal here) checks the opponent, without playing it: the search must
    /// know before it decides to prune a move, and most pruned moves need not be played.
    /// The pieces of the side to move are set where the move leaves them and the king is
    /// looked at from its square, which covers direct, discovered, promotion, en-passant
    /// and castling checks alike.
    pub fn gives_check(&self, m: Move) -> bool {
        let board = self.chess.board();
        let us = self.turn();
        let Some(king) = board.king_of(!us) else {
            return false;
        };
        let mut occupied = board.occupied();
        let ours = board.by_color(us);
        let mut pawns = board.pawns() & ours;
        let mut knights = board.knights() & ours;
        let mut diagonal = board.bishops_and_queens() & ours;
        let mut straight = board.rooks_and_queens() & ours;
        let (from, to, role) = match m {
            Move::Castle { king: k, rook } => {
                // The king gives no check; the rook may, from its new square.
                let side = CastlingSide::from_king_side(k < rook);
                occupied ^= Bitboard::from(k) | Bitboard::from(rook);
                occupied |= Bitboard::from(side.king_to(us));
                (rook, side.rook_to(us), Role::Rook)
            }
            Move::EnPassant { from, to } => {
                occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
                (from, to, Role::Pawn)
            }
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion.unwrap_or(role)),
            Move::Put { .. } => return self.play(m).is_check(),
        };
        occupied = (occupied & !Bitboard::from(from)) | Bitboard::from(to);
        let moved = Bitboard::from(from);
        pawns &= !moved;
        knights &= !moved;
        diagonal &= !moved;
        straight &= !moved;
        let placed = Bitboard::from(to);
        match role {
            Role::Pawn => pawns |= placed,
            Role::Knight => knights |= placed,
            Role::Bishop => diagonal |= placed,
            Role::Rook => straight |= placed,
            Role::Queen => {
                diagonal |= placed;
                straight |= placed;
            }
            Role::King => {}
        }
        let attackers = (attacks::pawn_attacks(!us, king) & pawns)
            | (attacks::knight_attacks(king) & knights)
            | (attacks::bishop_attacks(king, occupied) & diagonal)
            | (attacks::rook_attacks(king, occupied) & straight);
        attackers.any()
    }

    /// A move in UCI notation, with castling written as this position's mode expects
    /// (`e1g1` in standard chess, king-takes-rook `e1h1` in Chess960).
    pub fn to_uci(&self, m: Move) -> UciMove {
        m.to_uci(self.mode())
    }

    /// A line of moves from here in UCI notation, each written in the position it is
    /// played from (a principal variation as `info pv` shows it).
    pub fn uci_line(&self, moves: &[Move]) -> Vec<UciMove> {
        let mut pos = self.clone();
        moves
            .iter()
            .map(|&m| {
                let uci = pos.to_uci(m);
                pos = pos.play(m);
                uci
            })
            .collect()
    }

    /// Parses a UCI move and checks that it is legal here.
    pub fn parse_uci(&self, text: &str) -> Result<Move, PositionError> {
        let uci: UciMove = text
            .parse()
            .map_err(|_| PositionError::MalformedMove(text.to_string()))?;
        uci.to_move(&self.chess)
            .map_err(|_| PositionError::IllegalMove(text.to_string()))
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.chess, EnPassantMode::Legal).to_string()
    }
}

fn full_key(chess: &Chess) -> u64 {
    chess.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The squares from which each kind of piece of the side to move would check the
/// opponent's king, and the pieces whose moving off a line uncovers a check.
#[derive(Debug, Clone, Copy)]
pub struct CheckSquares {
    king: Option<Square>,
    by_role: [Bitboard; 6],
    discoverers: Bitboard,
}

impl CheckSquares {
    /// Whether `m`, legal in `pos` (the position these squares are for), checks. Plain
    /// moves are two lookups; promotions, en passant and castling, which change more
    /// than one square's worth of lines, take [`Position::gives_check`]'s full look.
    #[inline]
    pub fn gives_check(&self, pos: &Position, m: Move) -> bool {
        let Some(king) = self.king else {
            return false;
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                self.by_role[role as usize - 1].contains(to)
                    || (self.discoverers.contains(from) && !attacks::aligned(from, to, king))
            }
            _ => pos.gives_check(m),
        }
    }
}

/// The key's part for an en-passant capture, when one is legal (the key follows the FIDE
/// repetition rule: a pawn that merely could have been captured changes nothing).
#[inline]
fn en_passant_key(chess: &Chess) -> u64 {
    chess
        .ep_square(EnPassantMode::Legal)
        .map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

/// What playing `m` in `before`, giving `after`, changes in the key: the side to move,
/// the pieces the move lifts and sets down, castling rights lost, and en-passant captures
/// gained or forfeited. Unlike shakmaty's own update, it covers every move, so no key is
/// ever computed from scratch during a search.
#[inline]
fn key_change(before: &Chess, after: &Chess, m: Move) -> u64 {
    let change = moved_pieces_key(before.turn(), m);
    let (was, is) = (before.castles(), after.castles());
    let mut rights = 0;
    if was.castling_rights() != is.castling_rights() {
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if was.has(color, side) != is.has(color, side) {
                    rights ^= Zobrist64::zobrist_for_castling_right(color, side).0;
                }
            }
        }
    }
    change ^ rights ^ en_passant_key(before) ^ en_passant_key(after)
}

/// The part of a move's key change that the move alone decides: the turn and the pieces
/// it moves, captures and places.
#[inline]
fn moved_pieces_key(us: Color, m: Move) -> u64 {
    let piece =
        |sq: Square, role: Role, color: Color| Zobrist64::zobrist_for_piece(sq, role.of(color)).0;
    let mut change = Zobrist64::zobrist_for_white_turn().0;
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            change ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(victim) = capture {
                change ^= piece(to, victim, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            change ^= piece(from, Role::Pawn, us)
                ^ piece(to, Role::Pawn, us)
                ^ piece(victim, Role::Pawn, !us);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            change ^= piece(king, Role::King, us)
                ^ piece(side.king_to(us), Role::King, us)
                ^ piece(rook, Role::Rook, us)
                ^ piece(side.rook_to(us), Role::Rook, us);
        }
        Move::Put { role, to } => change ^= piece(to, role, us),
    }
    change
}

/// The square `delta` steps (of one square each, in index order) from `sq`, for the pawn
/// moves, whose squares are on the board by construction.
#[inline]
fn offset(sq: Square, delta: i32) -> Square {
    Square::new((sq as i32 + delta) as u32)
}

/// The four promotions of a pawn step or capture, in shakmaty's order.
fn push_promotions(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        moves.push(Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: Some(promotion),
        });
    }
}

/// The pieces, of either side, alone between `king` and a slider among `sliders` aimed
/// at it: pinned pieces when the sliders are the king's enemies, pieces that can give a
/// discovered check when they are its enemies'.
pub fn slider_blockers(board: &shakmaty::Board, sliders: Bitboard, king: Square) -> Bitboard {
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers & sliders {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::exchange::is_tactical;

    /// The threat map agrees, square by square, with shakmaty's own "who attacks this
    /// square" (the slow way round), for either side to move.
    #[test]
    fn threats_are_the_squares_the_opponent_attacks() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen_auto(fen).unwrap();
            let board = pos.chess().board();
            let them = !pos.turn();
            let slow = Square::ALL
                .into_iter()
                .filter(|&sq| board.attacks_to(sq, them, board.occupied()).any())
                .collect::<Bitboard>();
            assert_eq!(pos.threats(), slow, "{fen}");
        }
        // In the start position Black attacks its own third rank and its pieces.
        let start = Position::startpos().threats();
        assert!(start.contains(Square::E6) && !start.contains(Square::E4));
    }

    /// WAC.293 after 1.Nfg5 fxg5 2.Nf6: the queen on h6 (two) and the knight on f6 (one)
    /// reach the squares around the king on h8, the bishop on g2 and the rooks do not.
    #[test]
    fn king_danger_counts_the_pieces_near_the_king() {
        let attacked = "1nbq1r1k/3rbp1p/p1p1pN1Q/1p4p1/P1pP4/6P1/1P2PPBP/R4RK1 b - - 1 2";
        assert_eq!(Position::from_fen_auto(attacked).unwrap().king_danger(), 3);
        assert_eq!(Position::startpos().king_danger(), 0);
        // White to move: Black's pieces are the attackers, and none is near.
        let quiet = "1nbq1r1k/3rbp1p/p1p1pN1Q/1p4p1/P1pP4/6P1/1P2PPBP/R4RK1 w - - 1 2";
        assert_eq!(Position::from_fen_auto(quiet).unwrap().king_danger(), 0);
        // The same counts from either side to move: White's pressure on Black's king
        // (what razoring asks of the side to move) and Black's on White's.
        let white_to_move = Position::from_fen_auto(quiet).unwrap();
        assert_eq!(white_to_move.king_pressure(Color::Black), 3);
        assert_eq!(white_to_move.king_pressure(Color::White), 0);
    }

    #[test]
    fn startpos_key_is_the_polyglot_key() {
        assert_eq!(Position::startpos().key(), 0x463b_9618_1691_fc9c);
    }

    /// Calls `check` on every move two plies deep from every perft position (standard and
    /// Chess960: all the castling, en-passant and promotion corner cases) and a few
    /// positions rich in discovered and promotion checks; the number of positions walked.
    fn walk_corner_cases(mut check: impl FnMut(&Position, Move, &Position)) -> usize {
        fn walk(pos: &Position, depth: u32, check: &mut impl FnMut(&Position, Move, &Position)) {
            for m in pos.legal_moves() {
                let child = pos.play(m);
                check(pos, m, &child);
                if depth > 1 {
                    walk(&child, depth - 1, check);
                }
            }
        }
        let suites = [
            include_str!("../../perft/perftsuite.epd"),
            include_str!("../../perft/chess960.epd"),
        ];
        let extra = [
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/2k5/3Pp3/8/8/4K2R b K d3 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "2k5/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "3k4/1P6/8/8/8/8/8/4K1B1 w - - 0 1",
            "4k3/8/8/2B5/8/8/3N4/4K3 w - - 0 1",
            "4k3/8/8/8/3p4/8/4P3/3RK3 w - - 0 1",
        ];
        let fens = suites
            .iter()
            .flat_map(|s| s.lines())
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split(';').next().unwrap_or(l))
            .chain(extra);
        let mut positions = 0;
        for fen in fens {
            walk(&Position::from_fen_auto(fen).unwrap(), 2, &mut check);
            positions += 1;
        }
        positions
    }

    /// The capture generator lists exactly `legal_moves`' captures and promotions, in
    /// its order (so quiescence searches the same tree either way), on every position
    /// two plies into the perft suites: pins, en passant that uncovers the king, every
    /// promotion.
    #[test]
    fn tactical_moves_are_the_legal_captures_and_promotions_in_order() {
        let (mut compared, mut listed) = (0, 0);
        let mut compare = |pos: &Position| {
            let mut expected = pos.legal_moves();
            if !pos.is_check() {
                expected.retain(|m| is_tactical(*m));
            }
            let got = pos.tactical_moves();
            assert_eq!(got.as_slice(), expected.as_slice(), "{}", pos.fen());
            compared += 1;
            listed += got.len();
        };
        walk_corner_cases(|_, _, child| compare(child));
        // En passant that would uncover the king: along the rank (both pawns leave it),
        // and a capturing pawn pinned on a diagonal; and one that is legal.
        for (fen, legal) in [
            ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", false),
            ("8/8/4B3/8/2pP4/8/k7/7K b - d3 0 2", false),
            ("8/8/8/8/2pP4/8/8/k6K b - d3 0 2", true),
        ] {
            let pos = Position::from_fen_auto(fen).unwrap();
            assert!(!pos.is_check(), "{fen}");
            let ep = pos.legal_moves().iter().any(|m| m.is_en_passant());
            assert_eq!(ep, legal, "{fen}");
            compare(&pos);
        }
        assert!(compared > 20_000 && listed > 50_000, "{compared} {listed}");
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let mut checks = 0;
        let positions = walk_corner_cases(|pos, m, child| {
            checks += usize::from(child.is_check());
            assert_eq!(pos.gives_check(m), child.is_check(), "{}: {m}", pos.fen());
            let squares = pos.check_squares();
            assert_eq!(
                squares.gives_check(pos, m),
                child.is_check(),
                "{}: {m}",
                pos.fen()
            );
        });
        assert!(
            positions > 100 && checks > 1000,
            "{positions} positions, {checks} checks"
        );
    }

    #[test]
    fn incremental_keys_match_keys_from_scratch() {
        let mut passes = 0;
        walk_corner_cases(|pos, m, child| {
            assert_eq!(child.key(), full_key(child.chess()), "{}: {m}", pos.fen());
            if let Some(null) = child.null_move() {
                assert_eq!(null.key(), full_key(null.chess()), "{}: null", child.fen());
                passes += 1;
            }
        });
        assert!(passes > 10_000, "{passes} null moves");
    }

    /// The prefetch key is the real one for every move that leaves the castling rights and
    /// the en-passant squares alone, so the fetched bucket is the one probed.
    #[test]
    fn the_key_before_a_move_is_exact_when_rights_and_en_passant_stay() {
        let (mut exact, mut other) = (0, 0);
        walk_corner_cases(|pos, m, child| {
            let same_rights = pos.chess().castles().castling_rights()
                == child.chess().castles().castling_rights();
            let no_ep = en_passant_key(pos.chess()) == 0 && en_passant_key(child.chess()) == 0;
            if same_rights && no_ep {
                assert_eq!(pos.key_after(m), child.key(), "{}: {m}", pos.fen());
                exact += 1;
            } else {
                other += 1;
            }
        });
        assert!(exact > other && other > 0, "{exact} exact, {other} other");
    }

    #[test]
    fn incremental_key_matches_full_key_along_a_game() {
        let mut pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            CastlingMode::Standard,
        )
        .unwrap();
        // Walk a deterministic path through every kind of move the position offers.
        for step in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(step * 7 + 3) % moves.len()];
            pos = pos.play(m);
            assert_eq!(pos.key(), full_key(pos.chess()), "after step {step}");
        }
    }

    #[test]
    fn chess960_castling_is_king_takes_rook() {
        let fen = "r4k1r/8/8/8/8/8/8/R4K1R w HAha - 0 1";
        assert!(Position::from_fen(fen, CastlingMode::Standard).is_err());
        let pos = Position::from_fen(fen, CastlingMode::Chess960).unwrap();
        let mut castles: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| m.is_castle())
            .map(|&m| pos.to_uci(m).to_string())
            .collect();
        castles.sort();
        assert_eq!(castles, ["f1a1", "f1h1"]);
        let after = pos.play(pos.parse_uci("f1h1").unwrap());
        assert!(
            after.fen().starts_with("r4k1r/8/8/8/8/8/8/R4RK1 b"),
            "{}",
            after.fen()
        );
    }

    #[test]
    fn bad_fens_and_moves_are_errors() {
        let mode = CastlingMode::Standard;
        assert!(matches!(
            Position::from_fen("not a fen", mode),
            Err(PositionError::InvalidFen { .. })
        ));
        assert!(matches!(
            Position::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", mode),
            Err(PositionError::IllegalPosition { .. })
        ));
        let pos = Position::startpos();
        assert!(matches!(
            pos.parse_uci("e2e5"),
            Err(PositionError::IllegalMove(_))
        ));
        assert!(matches!(
            pos.parse_uci("zz"),
            Err(PositionError::MalformedMove(_))
        ));
    }

    #[test]
    fn null_move_is_refused_in_check() {
        let pos =
            Position::from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 1", CastlingMode::Standard).unwrap();
        assert!(pos.null_move().is_none());
        let quiet = Position::startpos().null_move().unwrap();
        assert_eq!(quiet.turn(), Color::Black);
    }
}
