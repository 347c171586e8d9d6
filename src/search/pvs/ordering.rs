//! Move ordering: the order alpha-beta tries moves in decides how much it prunes.
//! The table move first, then winning and equal captures by MVV-LVA, queen promotions,
//! the killer moves of the ply, quiet moves by history, and losing captures last.
//!
//! A quiet move's history has three parts: the butterfly table (side, from, to, kept
//! apart by whether the opponent attacks the from and the to square), and two
//! continuation tables indexed by the piece and destination of the move one ply back
//! (the counter-move history) and two plies back (the follow-up history). A move that
//! answers a particular move well is remembered for that move, not for the whole search.

use arrayvec::ArrayVec;
use shakmaty::{Move, MoveList, Square};

use super::params::{
    ESCAPE_BONUS, HISTORY_AGE_DIVISOR, HISTORY_BONUS_CAP, HISTORY_BONUS_SCALE, HISTORY_MAX,
};
use super::tt::PackedMove;
use crate::board::Position;
use crate::board::exchange::{is_tactical, mvv_lva, see_ge};
use crate::value::MAX_PLY;

const GOOD_TACTICAL: i32 = 2_000_000;
const KILLER: [i32; 2] = [1_500_000, 1_400_000];
const BAD_CAPTURE: i32 = -2_000_000;

/// A move's piece (colour and role) and destination, `0..PIECE_TO`: the index of the
/// continuation tables.
pub type PieceTo = usize;
const PIECE_TO: usize = 12 * 64;
/// No move (the root, or a null move): a row of the tables that is never rewarded.
pub const NO_PIECE_TO: PieceTo = PIECE_TO;

/// The index of `m` played from `pos`.
#[inline]
pub fn piece_to(pos: &Position, m: Move) -> PieceTo {
    let piece = pos.turn() as usize * 6 + (m.role() as usize - 1);
    piece * 64 + m.to() as usize
}

/// The moves before a node that its quiet moves' history is read against: one ply back,
/// then two.
#[derive(Clone, Copy)]
pub struct Context {
    pub before: [PieceTo; 2],
    /// The squares the opponent attacks: a quiet move's history is kept apart for
    /// leaving an attacked square and for stepping onto one.
    pub threats: u64,
    /// The square of the piece the opponent threatens (see the null move's threat in
    /// `search.rs`): a quiet move that takes it away is ordered ahead of its history.
    pub escape: Option<Square>,
}

impl Context {
    pub const NONE: Context = Context {
        before: [NO_PIECE_TO; 2],
        threats: 0,
        escape: None,
    };

    /// Whether `m` moves the threatened piece: late in the list by its history, it may
    /// still be the move that saves the node, so it is ordered ahead of its history,
    /// neither pruned as late or futile nor reduced as far.
    #[inline]
    pub fn escapes(&self, m: Move) -> bool {
        self.escape.is_some_and(|sq| m.from() == Some(sq))
    }
}

/// A continuation table: per previous move (`NO_PIECE_TO` included), per move.
/// Scores are stored in 16 bits: the gravity keeps them within `HISTORY_MAX` (16,384), and
/// half the bytes keep more of the tables in cache, where every quiet move reads two.
type Continuation = [[i16; PIECE_TO]; PIECE_TO + 1];
const _: () = assert!(HISTORY_MAX < i16::MAX as i32);

/// The butterfly table: per side and threat case (see [`butterfly`]), from, to.
type Butterfly = [[[i16; 64]; 64]; 8];

/// Per-thread ordering memory: two killer moves per ply, the butterfly table, and the two
/// continuation tables.
pub struct Heuristics {
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    history: Box<Butterfly>,
    continuation: [Box<Continuation>; 2],
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 8]),
            continuation: [zeroed_continuation(), zeroed_continuation()],
        }
    }
}

/// Built on the heap: a table is 1.2 MB, more than a thread's stack should hold.
fn zeroed_continuation() -> Box<Continuation> {
    let rows = vec![[0i16; PIECE_TO]; PIECE_TO + 1].into_boxed_slice();
    match rows.try_into() {
        Ok(table) => table,
        Err(_) => unreachable!("the row count is the table's"),
    }
}

impl Heuristics {
    /// Forgets everything (new game). The tables are zeroed in place, not allocated anew:
    /// the first search of the game would fault fresh pages in on its clock (1 to 2 ms,
    /// `tools/go_cost.py`), where this does the work at `ucinewgame`, which the GUI
    /// waits for with `isready`.
    pub fn clear(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for row in self.history.iter_mut().flatten() {
            row.fill(0);
        }
        for row in self.continuation.iter_mut().flat_map(|t| t.iter_mut()) {
            row.fill(0);
        }
    }

    /// A memory with its tables written once, so that their pages are in before a search
    /// needs them (see [`clear`](Self::clear)).
    pub fn touched() -> Self {
        let mut h = Heuristics::default();
        h.clear();
        h
    }

    /// Between searches killers are stale; history is kept but damped.
    pub fn age(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for row in self.history.iter_mut().flatten() {
            for h in row.iter_mut() {
                *h /= HISTORY_AGE_DIVISOR as i16;
            }
        }
        for row in self.continuation.iter_mut().flat_map(|t| t.iter_mut()) {
            for h in row.iter_mut() {
                *h /= HISTORY_AGE_DIVISOR as i16;
            }
        }
    }

    /// The butterfly history plus both continuation histories of a quiet move.
    #[inline]
    pub fn quiet_score(&self, pos: &Position, m: Move, ctx: &Context) -> i32 {
        let (side, from, to_square) = butterfly(pos, m, ctx.threats);
        let to = piece_to(pos, m);
        i32::from(self.history[side][from][to_square])
            + i32::from(self.continuation[0][ctx.before[0]][to])
            + i32::from(self.continuation[1][ctx.before[1]][to])
    }

    #[inline]
    pub fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers[ply].contains(&Some(m))
    }

    /// A quiet move caused a cutoff: it becomes a killer and gains history; the quiet
    /// moves tried before it lose history.
    pub fn reward(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: i32,
        ctx: &Context,
        best: Move,
        tried: &[Move],
    ) {
        if self.killers[ply][0] != Some(best) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(best);
        }
        let bonus = (depth * depth).min(HISTORY_BONUS_CAP) * HISTORY_BONUS_SCALE;
        self.update(pos, ctx, best, bonus);
        for &m in tried {
            self.update(pos, ctx, m, -bonus);
        }
    }

    fn update(&mut self, pos: &Position, ctx: &Context, m: Move, bonus: i32) {
        let (side, from, to_square) = butterfly(pos, m, ctx.threats);
        apply(&mut self.history[side][from][to_square], bonus);
        let to = piece_to(pos, m);
        for (table, &before) in self.continuation.iter_mut().zip(&ctx.before) {
            if before != NO_PIECE_TO {
                apply(&mut table[before][to], bonus);
            }
        }
    }
}

/// The butterfly history's index of `m`: side to move and whether its from and to
/// squares are attacked, from square, to square.
#[inline]
fn butterfly(pos: &Position, m: Move, threats: u64) -> (usize, usize, usize) {
    let from = m.from().map_or(0, |s| s as usize);
    let to = m.to() as usize;
    let attacked = |sq: usize| usize::from(threats >> sq & 1 != 0);
    let case = pos.turn() as usize * 4 + attacked(from) * 2 + attacked(to);
    (case, from, to)
}

/// History "gravity": updates shrink as the score nears its bound, so scores stay bounded
/// and recent results weigh more.
#[inline]
fn apply(slot: &mut i16, bonus: i32) {
    let old = i32::from(*slot);
    // In range: the gravity holds a score within one of `HISTORY_MAX`, far inside i16.
    *slot = (old + bonus - old * bonus.abs() / HISTORY_MAX) as i16;
}

/// Hands out the moves of a node best-first. The table move goes first without scoring
/// anything else, since it alone often refutes the node; the rest are scored only when
/// asked for and picked by selection, which is cheaper than sorting when a cutoff comes
/// after one or two moves. It sorts the node's own list in place: a move list is over a
/// kilobyte, and copying it into the picker cost more than the picking.
pub struct MovePicker<'m> {
    moves: &'m mut MoveList,
    /// Filled when first needed, over all the moves (empty until then): created at every
    /// node, so a zeroed array of the full capacity would cost more than most nodes search.
    scores: ArrayVec<i32, 256>,
    next: usize,
    tt_move: PackedMove,
    ply: usize,
    ctx: Context,
}

impl<'m> MovePicker<'m> {
    /// Moves of a main-search node reached by the moves in `ctx`.
    pub fn new(moves: &'m mut MoveList, tt_move: PackedMove, ply: usize, ctx: Context) -> Self {
        MovePicker {
            moves,
            scores: ArrayVec::new(),
            next: 0,
            tt_move,
            ply,
            ctx,
        }
    }

    /// Moves of a quiescence node, all tactical: ordered by MVV-LVA alone.
    pub fn tactical(moves: &'m mut MoveList) -> Self {
        let mut picker = Self::new(moves, PackedMove::NONE, 0, Context::NONE);
        let scores = picker.moves.iter().map(|&m| mvv_lva(m));
        picker.scores.extend(scores);
        picker
    }

    /// The next move in order, or `None` when all are out.
    pub fn next(&mut self, pos: &Position, heuristics: &Heuristics) -> Option<Move> {
        let n = self.moves.len();
        if self.next == 0
            && self.tt_move != PackedMove::NONE
            && let Some(i) = self.moves.iter().position(|&m| self.tt_move.matches(m))
        {
            let m = self.moves[i];
            self.moves.swap(0, i);
            self.next = 1;
            return Some(m);
        }
        if self.next >= n {
            return None;
        }
        if self.scores.is_empty() {
            self.score(pos, heuristics);
        }
        // The first of the highest scores, over a slice so the scan has no bounds checks.
        let rest = &self.scores[self.next..n];
        let mut top = rest[0];
        let mut offset = 0;
        for (i, &score) in rest.iter().enumerate().skip(1) {
            if score > top {
                top = score;
                offset = i;
            }
        }
        let best = self.next + offset;
        // Read before the swap: reading it back after would load the five-byte move
        // across the two stores that just wrote it, which the CPU cannot forward.
        let m = self.moves[best];
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(m)
    }

    fn score(&mut self, pos: &Position, heuristics: &Heuristics) {
        let ply = self.ply;
        let from = self.next;
        // The moves already handed out are never looked at again.
        self.scores.extend(std::iter::repeat_n(0, from));
        for &m in &self.moves[from..] {
            let score = if is_tactical(m) {
                if see_ge(pos.chess(), m, 0) {
                    GOOD_TACTICAL + mvv_lva(m)
                } else {
                    BAD_CAPTURE + mvv_lva(m)
                }
            } else if heuristics.killers[ply][0] == Some(m) {
                KILLER[0]
            } else if heuristics.killers[ply][1] == Some(m) {
                KILLER[1]
            } else {
                let escape = if self.ctx.escapes(m) { ESCAPE_BONUS } else { 0 };
                heuristics.quiet_score(pos, m, &self.ctx) + escape
            };
            self.scores.push(score);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clearing_in_place_forgets_killers_and_every_history() {
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        let (best, tried) = (moves[0], &moves[1..3]);
        let ctx = Context {
            before: [3, 5],
            threats: 0,
            escape: None,
        };
        let mut h = Heuristics::touched();
        h.reward(&pos, 4, 6, &ctx, best, tried);
        assert!(h.is_killer(4, best));
        assert!(h.quiet_score(&pos, best, &ctx) > 0);
        assert!(h.quiet_score(&pos, tried[0], &ctx) < 0);
        h.clear();
        assert!(!h.is_killer(4, best));
        for &m in moves.iter() {
            assert_eq!(h.quiet_score(&pos, m, &ctx), 0);
        }
    }

    #[test]
    fn the_threatened_piece_moves_first_among_quiet_moves() {
        let pos = Position::startpos();
        let mut moves = pos.legal_moves();
        let ctx = Context {
            escape: Some(Square::G1),
            ..Context::NONE
        };
        let h = Heuristics::touched();
        let mut picker = MovePicker::new(&mut moves, PackedMove::NONE, 0, ctx);
        for _ in 0..2 {
            let m = picker.next(&pos, &h).map(|m| m.from());
            assert_eq!(m, Some(Some(Square::G1)));
        }
        assert_ne!(
            picker.next(&pos, &h).map(|m| m.from()),
            Some(Some(Square::G1))
        );
    }
}
