//! `Eval=classical`: a hand-structured evaluator with tuned weights. Every term is a count
//! of something on the board, multiplied by a (middlegame, endgame) weight pair; the two
//! sums are blended by the game phase, the endgame part scaled down in drawish endings.
//!
//! The walk over the board is written once, against a [`Sink`]: the engine's sink sums
//! weights as it goes, the tuner's records the counts. So the evaluation the tuner fits is
//! the one the engine plays with, term for term.

use shakmaty::{
    Bitboard, Board, ByColor, Chess, Color, Piece, Position as _, Role, Square, attacks,
};

use super::features as f;
use super::features::BLOCKS;
use super::weights::WEIGHTS;
use super::{Breakdown, Evaluator, Term};

/// Receives each feature's count, white's minus black's.
pub trait Sink {
    fn add(&mut self, feature: usize, n: i32);
}

/// The phase of a position with all pieces on the board; 0 is a pawn ending.
pub const PHASE_MAX: i32 = 24;
/// The endgame scale of a normal ending; 0 is a dead draw.
pub const SCALE_MAX: i32 = 128;

/// The built-in (middlegame, endgame) weight of a feature.
pub fn weight(feature: usize) -> [i16; 2] {
    WEIGHTS[feature]
}

/// The tuned classical evaluator.
#[derive(Debug, Default, Clone, Copy)]
pub struct Classical;

/// The engine's sink: weights summed as the walk goes, the middlegame and endgame sums
/// packed in one 64-bit integer (the endgame's times 2^32 plus the middlegame's), so that
/// a feature costs one multiply-add instead of two (`bench` 2–3% faster, docs/bench.md).
/// The packing is linear, so each sum comes out exact while it fits in 32 bits, far
/// beyond any board's.
#[derive(Default, Clone, Copy)]
struct Sum {
    packed: i64,
}

/// Every feature's weight pair packed as [`Sum`] keeps it.
const PACKED: [i64; WEIGHTS.len()] = {
    let mut packed = [0; WEIGHTS.len()];
    let mut i = 0;
    while i < WEIGHTS.len() {
        packed[i] = (WEIGHTS[i][1] as i64) * (1 << 32) + WEIGHTS[i][0] as i64;
        i += 1;
    }
    packed
};

impl Sum {
    #[inline]
    fn mg(self) -> i32 {
        self.packed as i32
    }

    /// A negative middlegame sum has borrowed one from the endgame's half; rounding the
    /// half gives it back.
    #[inline]
    fn eg(self) -> i32 {
        ((self.packed + (1 << 31)) >> 32) as i32
    }
}

impl Sink for Sum {
    #[inline(always)]
    fn add(&mut self, feature: usize, n: i32) {
        self.packed += PACKED[feature] * i64::from(n);
    }
}

impl Evaluator for Classical {
    fn evaluate(&self, pos: &Chess) -> i32 {
        let board = pos.board();
        let (mut sum, passed) = pawn_cache::lookup(board, |sum| pawns_and_kings(board, sum));
        rest(pos, passed, &mut sum);
        let (mg, eg) = (sum.mg(), sum.eg());
        let white = taper(mg, eg, phase(board), scale(board, eg >= 0)) + mating(board);
        if pos.turn() == Color::White {
            white
        } else {
            -white
        }
    }

    /// The same walk with the sums kept per block of features.
    fn breakdown(&self, pos: &Chess) -> Breakdown {
        struct PerBlock(Vec<Term>);
        impl Sink for PerBlock {
            fn add(&mut self, feature: usize, n: i32) {
                let [mg, eg] = WEIGHTS[feature];
                if let Some(t) = BLOCKS
                    .iter()
                    .position(|b| (b.start..b.start + b.len).contains(&feature))
                    .and_then(|i| self.0.get_mut(i))
                {
                    t.mg += i32::from(mg) * n;
                    t.eg += i32::from(eg) * n;
                }
            }
        }
        let terms = BLOCKS
            .iter()
            .map(|b| Term {
                name: b.name,
                mg: 0,
                eg: 0,
            })
            .collect();
        let mut per = PerBlock(terms);
        walk(pos, &mut per);
        let (mg, eg) = per.0.iter().fold((0, 0), |(m, e), t| (m + t.mg, e + t.eg));
        let board = pos.board();
        let (phase, scale) = (phase(board), scale(board, eg >= 0));
        Breakdown {
            terms: per.0,
            taper: Some((phase, scale)),
            white: taper(mg, eg, phase, scale) + mating(board),
        }
    }
}

/// The plan against a bare king ([`super::mates`]), added after the taper so that no
/// endgame scale can shrink it.
#[inline]
fn mating(board: &Board) -> i32 {
    super::mates::drive(board).unwrap_or(0)
}

/// Blends the middlegame and endgame sums by phase; the endgame sum is scaled first.
#[inline]
pub fn taper(mg: i32, eg: i32, phase: i32, scale: i32) -> i32 {
    (mg * phase + eg * scale / SCALE_MAX * (PHASE_MAX - phase)) / PHASE_MAX
}

/// Game phase from the pieces left: minor 1, rook 2, queen 4, at most [`PHASE_MAX`].
#[inline]
pub fn phase(board: &Board) -> i32 {
    let minors = (board.knights() | board.bishops()).count() as i32;
    let rooks = board.rooks().count() as i32;
    let queens = board.queens().count() as i32;
    (minors + 2 * rooks + 4 * queens).min(PHASE_MAX)
}

/// How much of the endgame score a side ahead can hope to convert: none with a lone minor
/// and no pawns or in a known draw ([`super::draws`]), little with no pawns and at most a
/// minor more, half with bishops of opposite colours and pawns only.
pub fn scale(board: &Board, white_ahead: bool) -> i32 {
    let strong = if white_ahead {
        Color::White
    } else {
        Color::Black
    };
    if super::draws::rook_pawns_held(board, strong) {
        return 0;
    }
    let units = |c: Color| {
        let us = board.by_color(c);
        3 * (us & (board.knights() | board.bishops())).count() as i32
            + 5 * (us & board.rooks()).count() as i32
            + 9 * (us & board.queens()).count() as i32
    };
    if (board.pawns() & board.by_color(strong)).is_empty() {
        if units(strong) <= 3 {
            return 0;
        }
        if units(strong) - units(!strong) <= 3 {
            return SCALE_MAX / 4;
        }
    }
    let bishops = board.bishops();
    let only_bishops = (board.knights() | board.rooks() | board.queens()).is_empty();
    let (wb, bb) = (bishops & board.white(), bishops & board.black());
    if only_bishops
        && wb.count() == 1
        && bb.count() == 1
        && (wb & Bitboard::DARK_SQUARES).is_empty() != (bb & Bitboard::DARK_SQUARES).is_empty()
    {
        return SCALE_MAX / 2;
    }
    SCALE_MAX
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

#[inline]
fn file_mask(file: u32) -> u64 {
    FILE_A << file
}

#[inline]
fn adjacent_files(file: u32) -> u64 {
    let mut m = 0;
    if file > 0 {
        m |= file_mask(file - 1);
    }
    if file < 7 {
        m |= file_mask(file + 1);
    }
    m
}

/// Ranks strictly ahead of `rank` for `color`.
#[inline]
fn ahead(color: Color, rank: u32) -> u64 {
    match color {
        Color::White if rank >= 7 => 0,
        Color::White => !0u64 << (8 * (rank + 1)),
        Color::Black => (1u64 << (8 * rank)) - 1,
    }
}

#[inline]
fn pawn_attack_span(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

#[inline]
fn relative_rank(color: Color, sq: Square) -> u32 {
    match color {
        Color::White => sq.rank() as u32,
        Color::Black => 7 - sq.rank() as u32,
    }
}

#[inline]
fn relative_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq.flip_vertical() as usize,
    }
}

/// What one side attacks, by kind of attacker.
#[derive(Default, Clone, Copy)]
struct Attacks {
    pawns: u64,
    knights: u64,
    bishops: u64,
    rooks: u64,
    queens: u64,
    all: u64,
}

/// Walks the position, handing every feature's count to `sink`.
pub fn walk<S: Sink>(pos: &Chess, sink: &mut S) {
    let passed = pawns_and_kings(pos.board(), sink);
    rest(pos, passed, sink);
}

/// The terms that depend on nothing but the pawns and the kings' squares — most of the
/// pawn structure and the king's shelter — which the engine caches per pawn structure.
/// Returns each side's passed pawns, for the terms that depend on more.
fn pawns_and_kings<S: Sink>(board: &Board, sink: &mut S) -> ByColor<u64> {
    let pawn_attacks = pawn_attacks(board);
    ByColor::new_with(|c| {
        king_shelter(board, c, sink);
        pawns(board, c, *pawn_attacks.get(!c), sink)
    })
}

/// The squares each side's pawns attack.
#[inline]
fn pawn_attacks(board: &Board) -> ByColor<u64> {
    ByColor::new_with(|c| pawn_attack_span(c, (board.pawns() & board.by_color(c)).0))
}

/// Everything else: the pieces, threats, passed pawns' free paths and the tempo.
fn rest<S: Sink>(pos: &Chess, passed: ByColor<u64>, sink: &mut S) {
    let board = pos.board();
    let pawn_attacks = pawn_attacks(board);
    // Each side's walk is built for its colour (`WHITE`), so that the sign every count
    // is multiplied by is a constant the compiler folds away.
    let attacks = ByColor {
        white: pieces::<S, true>(board, pawn_attacks.white, pawn_attacks.black, sink),
        black: pieces::<S, false>(board, pawn_attacks.black, pawn_attacks.white, sink),
    };
    let occupied = board.occupied().0;
    side_terms::<S, true>(board, occupied, passed.white, &attacks, sink);
    side_terms::<S, false>(board, occupied, passed.black, &attacks, sink);
    sink.add(f::TEMPO, sign(pos.turn()));
}

/// The colour of a walk built for `WHITE`.
#[inline(always)]
const fn colour<const WHITE: bool>() -> Color {
    if WHITE { Color::White } else { Color::Black }
}

/// One side's passed pawns' free paths, threats and safe checks.
#[inline(always)]
fn side_terms<S: Sink, const WHITE: bool>(
    board: &Board,
    occupied: u64,
    passed: u64,
    attacks: &ByColor<Attacks>,
    sink: &mut S,
) {
    let c = colour::<WHITE>();
    let sign = sign(c);
    for sq in Bitboard(passed) {
        if occupied & file_mask(sq.file() as u32) & ahead(c, sq.rank() as u32) == 0 {
            sink.add(f::PASSED_FREE + relative_rank(c, sq) as usize, sign);
        }
    }
    threats(board, c, attacks.get(c), attacks.get(!c), sign, sink);
    safe_checks(board, c, attacks.get(c), attacks.get(!c), sign, sink);
}

#[inline]
fn sign(c: Color) -> i32 {
    if c == Color::White { 1 } else { -1 }
}

/// Material, piece-square, mobility, rooks' files, the bishop pair and attacks on the
/// enemy king; returns the side's attacks.
fn pieces<S: Sink, const WHITE: bool>(
    board: &Board,
    own_pawn_attacks: u64,
    their_pawn_attacks: u64,
    sink: &mut S,
) -> Attacks {
    let c = colour::<WHITE>();
    let s = sign(c);
    let us = board.by_color(c);
    let occupied = board.occupied();
    let own_pawns = (board.pawns() & us).0;
    let all_pawns = board.pawns().0;
    let mobility_area = !((board.pawns() | board.kings()) & us).0 & !their_pawn_attacks;
    let zone = board.king_of(!c).map_or(0, |k| {
        (attacks::king_attacks(k) | Bitboard::from_square(k)).0
    });
    let mut att = Attacks {
        pawns: own_pawn_attacks,
        all: own_pawn_attacks,
        ..Attacks::default()
    };
    let (mut attackers, mut zone_attacks) = (0, 0);
    for role in Role::ALL {
        let set = board.by_piece(Piece { color: c, role });
        let index = role as usize - 1;
        if role != Role::King {
            sink.add(f::MATERIAL + index, s * set.count() as i32);
        }
        for sq in set {
            sink.add(f::PST + index * 64 + relative_square(c, sq), s);
            let a = match role {
                Role::Pawn => continue,
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occupied),
                Role::Rook => attacks::rook_attacks(sq, occupied),
                Role::Queen => attacks::queen_attacks(sq, occupied),
                Role::King => attacks::king_attacks(sq),
            }
            .0;
            att.all |= a;
            let mobility = (a & mobility_area).count_ones() as usize;
            let (block, kind) = match role {
                Role::Knight => (f::MOBILITY_KNIGHT + mobility.min(8), 0),
                Role::Bishop => (f::MOBILITY_BISHOP + mobility.min(13), 1),
                Role::Rook => (f::MOBILITY_ROOK + mobility.min(14), 2),
                Role::Queen => (f::MOBILITY_QUEEN + mobility.min(27), 3),
                _ => continue,
            };
            sink.add(block, s);
            match role {
                Role::Knight => att.knights |= a,
                Role::Bishop => att.bishops |= a,
                Role::Queen => att.queens |= a,
                Role::Rook => {
                    att.rooks |= a;
                    let file = file_mask(sq.file() as u32);
                    if all_pawns & file == 0 {
                        sink.add(f::ROOK_OPEN, s);
                    } else if own_pawns & file == 0 {
                        sink.add(f::ROOK_HALF_OPEN, s);
                    }
                }
                _ => {}
            }
            let on_zone = (a & zone).count_ones() as i32;
            if on_zone > 0 {
                sink.add(f::KING_ATTACKS + kind, s * on_zone);
                attackers += 1;
                zone_attacks += on_zone;
            }
        }
    }
    sink.add(f::KING_ATTACKERS + attackers.min(7), s);
    // One attacker's squares around the king are little danger, three attackers' are
    // much: the weight of an attacked square by how many pieces attack.
    if zone_attacks > 0 {
        sink.add(f::KING_PRESSURE + attackers.min(7), s * zone_attacks);
    }
    if (board.bishops() & us).count() >= 2 {
        sink.add(f::BISHOP_PAIR, s);
    }
    att
}

/// Passed, isolated, doubled, backward and connected pawns; returns the passed ones.
fn pawns<S: Sink>(board: &Board, c: Color, their_pawn_attacks: u64, sink: &mut S) -> u64 {
    let s = sign(c);
    let own = (board.pawns() & board.by_color(c)).0;
    let theirs = (board.pawns() & board.by_color(!c)).0;
    let mut passed = 0;
    for sq in Bitboard(own) {
        let file = sq.file() as u32;
        let rank = sq.rank() as u32;
        let rel = relative_rank(c, sq) as usize;
        let front = ahead(c, rank);
        let same = file_mask(file);
        let beside = adjacent_files(file);
        let stop = sq.offset(if c == Color::White { 8 } else { -8 });
        if own & same & front != 0 {
            sink.add(f::DOUBLED, s);
        }
        if own & beside == 0 {
            sink.add(f::ISOLATED, s);
        } else {
            let rank_mask = 0xffu64 << (8 * rank);
            let defended = attacks::pawn_attacks(!c, sq).0 & own != 0;
            if defended || own & beside & rank_mask != 0 {
                sink.add(f::CONNECTED + rel, s);
            }
            let stop_attacked =
                stop.is_some_and(|st| their_pawn_attacks & (1u64 << st as u32) != 0);
            if own & beside & !front == 0 && stop_attacked {
                sink.add(f::BACKWARD, s);
            }
        }
        if theirs & (same | beside) & front == 0 {
            sink.add(f::PASSED + rel, s);
            passed |= 1u64 << sq as u32;
            if let Some(stop) = stop {
                let distance = |k: Option<Square>| k.map_or(0, |k| k.distance(stop) as i32);
                sink.add(f::PASSED_OWN_KING + rel, s * distance(board.king_of(c)));
                sink.add(f::PASSED_THEIR_KING + rel, s * distance(board.king_of(!c)));
            }
        }
    }
    passed
}

/// The pawns in front of the king on its file and the two beside it: its own (shield),
/// the enemy's (storm), and files without them.
fn king_shelter<S: Sink>(board: &Board, c: Color, sink: &mut S) {
    let s = sign(c);
    let Some(king) = board.king_of(c) else {
        return;
    };
    let own = (board.pawns() & board.by_color(c)).0;
    let theirs = (board.pawns() & board.by_color(!c)).0;
    let king_rank = relative_rank(c, king);
    let front = ahead(c, king.rank() as u32);
    let kf = king.file() as u32;
    for file in kf.saturating_sub(1)..=(kf + 1).min(7) {
        let mask = file_mask(file);
        let nearest = |pawns: u64| {
            Bitboard(pawns & mask & front)
                .into_iter()
                .map(|p| relative_rank(c, p) - king_rank)
                .min()
        };
        let shield = match nearest(own) {
            Some(1) => 0,
            Some(2) => 1,
            _ => 2,
        };
        sink.add(f::SHIELD + shield, s);
        let storm = nearest(theirs).map_or(0, |d| d.min(7) as usize);
        sink.add(f::STORM + storm, s);
        if own & mask == 0 {
            if theirs & mask == 0 {
                sink.add(f::KING_OPEN_FILE, s);
            } else {
                sink.add(f::KING_HALF_OPEN_FILE, s);
            }
        }
    }
}

/// The side's pieces attacked by enemy pawns, minors and rooks, by role; and hanging
/// pieces (attacked, not defended).
#[inline(always)]
fn threats<S: Sink>(
    board: &Board,
    c: Color,
    ours: &Attacks,
    theirs: &Attacks,
    s: i32,
    sink: &mut S,
) {
    let us = board.by_color(c);
    for role in Role::ALL {
        let set = (board.by_role(role) & us).0;
        let index = role as usize - 1;
        let by = [
            (f::THREAT_BY_PAWN, theirs.pawns),
            (f::THREAT_BY_MINOR, theirs.knights | theirs.bishops),
            (f::THREAT_BY_ROOK, theirs.rooks),
        ];
        for (block, map) in by {
            let n = (set & map).count_ones() as i32;
            if n > 0 {
                sink.add(block + index, s * n);
            }
        }
    }
    let pieces = (us & !board.pawns() & !board.kings()).0;
    let hanging = (pieces & theirs.all & !ours.all).count_ones() as i32;
    if hanging > 0 {
        sink.add(f::HANGING, s * hanging);
    }
}

/// The squares from which each kind of the side's pieces could check the enemy king next
/// move, where no enemy piece or pawn guards the square (nor a piece of the side's own
/// stands): a check the defender cannot simply take is the start of most attacks.
#[inline(always)]
fn safe_checks<S: Sink>(
    board: &Board,
    c: Color,
    ours: &Attacks,
    theirs: &Attacks,
    s: i32,
    sink: &mut S,
) {
    let Some(king) = board.king_of(!c) else {
        return;
    };
    let occupied = board.occupied();
    let safe = !theirs.all & !board.by_color(c).0;
    let diagonal = attacks::bishop_attacks(king, occupied).0;
    let straight = attacks::rook_attacks(king, occupied).0;
    let from = [
        attacks::knight_attacks(king).0 & ours.knights,
        diagonal & ours.bishops,
        straight & ours.rooks,
        (diagonal | straight) & ours.queens,
    ];
    for (kind, squares) in from.into_iter().enumerate() {
        let n = (squares & safe).count_ones() as i32;
        if n > 0 {
            sink.add(f::SAFE_CHECKS + kind, s * n.min(3));
        }
    }
}

/// A per-thread cache of [`pawns_and_kings`]'s sums, keyed exactly by the pawns and the
/// kings' squares: pawn structures change far less often than positions, so most
/// evaluations find theirs here. A hit gives the very sums a walk would, so caching
/// changes no evaluation.
mod pawn_cache {
    use std::cell::RefCell;

    use shakmaty::{Board, ByColor, Color};

    use super::Sum;

    const SLOTS: usize = 1 << 13;

    #[derive(Clone, Copy, Default)]
    struct Slot {
        white: u64,
        black: u64,
        kings: u16,
        sum: Sum,
        passed: ByColor<u64>,
    }

    thread_local! {
        static SLOTS_OF_THREAD: RefCell<Vec<Slot>> = RefCell::new(vec![Slot::default(); SLOTS]);
    }

    /// The cached sums and passed pawns of `board`'s pawn structure, computed by `walk` on
    /// a miss.
    #[inline]
    pub(super) fn lookup(
        board: &Board,
        walk: impl FnOnce(&mut Sum) -> ByColor<u64>,
    ) -> (Sum, ByColor<u64>) {
        let white = (board.pawns() & board.white()).0;
        let black = (board.pawns() & board.black()).0;
        let square = |c: Color| board.king_of(c).map_or(64, |k| k as u16);
        let kings = square(Color::White) | square(Color::Black) << 7;
        let hash = white.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ u64::from(kings).wrapping_mul(0x1656_67B1_9E37_79F9);
        let index = (hash >> 51) as usize % SLOTS;
        SLOTS_OF_THREAD.with_borrow_mut(|slots| {
            let slot = &mut slots[index];
            // An empty slot (all zero) never matches: a position without pawns has kings.
            if slot.white == white && slot.black == black && slot.kings == kings && kings != 0 {
                return (slot.sum, slot.passed);
            }
            let mut sum = Sum::default();
            let passed = walk(&mut sum);
            *slot = Slot {
                white,
                black,
                kings,
                sum,
                passed,
            };
            (sum, passed)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use shakmaty::{CastlingMode, EnPassantMode, fen::Fen};

    fn mirrored(pos: &Chess) -> Chess {
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.mirror();
        setup.position(CastlingMode::Standard).unwrap()
    }

    /// The WAC positions and positions a few random moves on from each.
    fn positions() -> Vec<Chess> {
        let mut walk = 7usize;
        let mut out = Vec::new();
        for line in include_str!("../../../tests/data/wac.epd").lines() {
            let fen: String = line
                .split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ");
            let Ok(fen) = fen.parse::<Fen>() else {
                continue;
            };
            let Ok(mut pos) = fen.into_position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            out.push(pos.clone());
            for _ in 0..6 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                walk = walk.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let m = moves[(walk >> 33) % moves.len()];
                pos.play_unchecked(m);
            }
            out.push(pos);
        }
        out
    }

    /// Every evaluator, not only this one: `nnue` and `material` are symmetric by
    /// construction, and the test keeps them so.
    #[test]
    fn a_position_and_its_colour_flipped_mirror_score_the_same() {
        let all = positions();
        assert!(all.len() >= 500, "{} positions", all.len());
        for info in crate::board::eval::EVALUATORS {
            let eval = (info.make)(&crate::board::eval::nnue::built_in());
            for pos in &all {
                let m = mirrored(pos);
                assert_eq!(
                    eval.evaluate(pos),
                    eval.evaluate(&m),
                    "Eval={} {}",
                    info.name,
                    Fen::from_position(pos, EnPassantMode::Legal)
                );
            }
        }
    }

    #[test]
    fn the_start_is_level_and_an_extra_queen_wins() {
        let start = Classical.evaluate(Position::startpos().chess());
        assert!(start.abs() < 60, "{start}");
        let fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let up = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        assert!(Classical.evaluate(up.chess()) > 600);
    }

    /// The breakdown sums each block apart, the engine's sink packs the middlegame and
    /// endgame sums in one integer: on every position they agree, negative sums included.
    #[test]
    fn the_breakdown_adds_up_to_the_evaluation() {
        for pos in &positions() {
            let b = Classical.breakdown(pos);
            let white = if pos.turn() == Color::White { 1 } else { -1 } * Classical.evaluate(pos);
            assert_eq!(b.white, white);
            assert_eq!(b.terms.len(), BLOCKS.len());
        }
    }

    /// The counts `walk` hands out, white's minus black's.
    fn counts(fen: &str) -> Vec<i32> {
        struct Counts(Vec<i32>);
        impl Sink for Counts {
            fn add(&mut self, feature: usize, n: i32) {
                self.0[feature] += n;
            }
        }
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let mut c = Counts(vec![0; f::COUNT]);
        walk(pos.chess(), &mut c);
        c.0
    }

    /// Each side's terms look at the right side's pieces: a walk once took every
    /// per-colour table in the wrong order (shakmaty numbers Black 0 and White 1), so
    /// mobility avoided a side's own pawn attacks and threats were its own attacks.
    #[test]
    fn threats_and_mobility_see_the_enemy_pawns() {
        // A white knight on e4 attacked by the pawn on d5, which also guards c6 and e6
        // but none of the knight's eight squares; the pawn on e7 takes d6 and f6 away.
        let c = counts("4k3/4p3/8/3p4/4N3/8/8/4K3 w - - 0 1");
        let knight = Role::Knight as usize - 1;
        assert_eq!(c[f::THREAT_BY_PAWN + knight], 1);
        assert_eq!(c[f::HANGING], 1);
        assert_eq!(c[f::MOBILITY_KNIGHT + 6], 1);
        // The same knight defended by a pawn of its own is attacked but not hanging,
        // and the defender's attacks do not limit its mobility.
        let c = counts("4k3/4p3/8/3p4/4N3/5P2/8/4K3 w - - 0 1");
        assert_eq!(c[f::THREAT_BY_PAWN + knight], 1);
        assert_eq!(c[f::HANGING], 0);
        assert_eq!(c[f::MOBILITY_KNIGHT + 6], 1);
    }

    /// A pawn whose stop square an enemy pawn guards, with no pawn of its own beside it
    /// or behind on the next files, is backward: d3 here (e4 is ahead, c5 guards d4).
    /// The guard that counts is the enemy's, not its own side's.
    #[test]
    fn a_backward_pawn_is_held_by_an_enemy_pawn() {
        assert_eq!(
            counts("4k3/8/8/2p5/4P3/3P4/8/4K3 w - - 0 1")[f::BACKWARD],
            1
        );
        assert_eq!(
            counts("4k3/8/8/8/2P1P3/3P4/8/4K3 w - - 0 1")[f::BACKWARD],
            0
        );
    }

    /// A knight on e4 could check the king on e8 from d6 and f6, until a pawn on e7
    /// guards both. Black's rook on h2 could check the king on e1 from h1 and e2, but the
    /// king guards e2; it attacks three squares of the king's zone (d2, e2, f2), alone.
    #[test]
    fn safe_checks_are_check_squares_no_enemy_guards() {
        let knight = counts("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1");
        assert_eq!(knight[f::SAFE_CHECKS], 2);
        let guarded = counts("4k3/4p3/8/8/4N3/8/8/4K3 w - - 0 1");
        assert_eq!(guarded[f::SAFE_CHECKS], 0);
        let rook = counts("4k3/8/8/8/8/8/7r/4K3 b - - 0 1");
        assert_eq!(rook[f::SAFE_CHECKS + 2], -1);
        assert_eq!(rook[f::KING_PRESSURE + 1], -3);
    }

    #[test]
    fn a_lone_minor_cannot_win() {
        let fen = "8/8/4k3/8/8/3KB3/8/8 w - - 0 1";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        assert_eq!(scale(pos.chess().board(), true), 0);
        let ocb = "8/5b2/4k1p1/8/8/3KB1P1/8/8 w - - 0 1";
        let pos = Position::from_fen(ocb, CastlingMode::Standard).unwrap();
        assert_eq!(scale(pos.chess().board(), true), SCALE_MAX / 2);
    }
}
