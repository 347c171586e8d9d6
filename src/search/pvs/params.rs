//! Every tunable constant of `pvs`, named, in one place: changing one changes the bench
//! signature, so each change is a measured decision (an SPRT), not an edit in passing.

/// Aspiration windows start at this depth, this wide on each side of the last value.
pub const ASPIRATION_DEPTH: i32 = 4;
pub const ASPIRATION_DELTA: i32 = 25;
/// After a fail, the window grows by half its width plus this.
pub const ASPIRATION_GROWTH: i32 = 10;

/// Time on the clock: the share of the soft target to spend (percent) by how many
/// iterations in a row kept the best move, and the extra share when the value fell by at
/// least `TIME_FALL` since the last iteration.
pub const TIME_STABILITY: [u32; 5] = [140, 110, 90, 80, 70];
pub const TIME_FALL: i32 = 30;
pub const TIME_FALL_EXTRA: u32 = 30;

/// Reverse futility: at most this depth, a margin per ply (one ply fewer when improving).
pub const RFP_DEPTH: i32 = 6;
pub const RFP_MARGIN: i32 = 90;

/// Reverse futility is not trusted when this many enemy pieces (a queen counting two)
/// attack the squares around the king, nor razoring when the side to move has this many
/// around the enemy king.
pub const KING_DANGER: u32 = 3;

/// Razoring: at most this depth, a node whose static evaluation plus `BASE + PER_PLY2 *
/// depth²` cannot reach alpha is settled by quiescence when quiescence agrees.
pub const RAZOR_DEPTH: i32 = 3;
pub const RAZOR_BASE: i32 = 300;
pub const RAZOR_PER_PLY2: i32 = 250;

/// Null move: from this depth; reduction `BASE + depth / DEPTH_DIVISOR` plus one ply per
/// `EVAL_DIVISOR` centipawns above beta, at most `EVAL_CAP` of those.
pub const NMP_DEPTH: i32 = 3;
pub const NMP_BASE: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_EVAL_CAP: i32 = 3;

/// Internal iterative reduction: from this depth, a node without a table move is searched
/// one ply shallower.
pub const IIR_DEPTH: i32 = 4;

/// Singular extensions: from this depth, where the table holds a move with a bound at
/// most `SE_TT_DEPTH` plies shallower that is not an upper bound, the other moves are
/// searched at half depth on a null window `SE_MARGIN` cp per ply below the stored value.
pub const SE_DEPTH: i32 = 7;
pub const SE_TT_DEPTH: i32 = 3;
pub const SE_MARGIN: i32 = 3;

/// Late-move pruning: at most this depth, quiet moves beyond `(BASE + depth²) / (2 -
/// improving)` are skipped.
pub const LMP_DEPTH: i32 = 5;
pub const LMP_BASE: i32 = 3;

/// Futility pruning of quiet moves: at most this depth, when the static evaluation plus
/// `BASE + PER_PLY * depth` cannot reach alpha.
pub const FUTILITY_DEPTH: i32 = 4;
pub const FUTILITY_BASE: i32 = 100;
pub const FUTILITY_PER_PLY: i32 = 100;

/// SEE pruning of quiet moves: at most this depth, a move losing more than this times
/// depth² in the exchange on its square.
pub const QUIET_SEE_DEPTH: i32 = 5;
pub const QUIET_SEE_PER_PLY2: i32 = 30;

/// SEE pruning of captures: at most this depth, a capture losing more than this per ply.
pub const SEE_PRUNE_DEPTH: i32 = 6;
pub const SEE_PRUNE_PER_PLY: i32 = 100;

/// Late-move reductions: from this depth and move index; the table is
/// `BASE + ln(depth) ln(index) / DIVISOR`, and history takes a ply off per `HISTORY`.
pub const LMR_DEPTH: i32 = 3;
pub const LMR_INDEX: usize = 2;
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_HISTORY: i32 = 8192;
/// Late-move reductions a ply deeper once more than this many of the node's children
/// have failed high (the node is likely to fail low).
pub const CUTOFF_COUNT: u32 = 3;

/// Quiescence delta pruning: a capture that could not lift the stand-pat to alpha even
/// with this margin is skipped.
pub const DELTA_MARGIN: i32 = 200;

/// History: the bonus of a cutoff is `min(depth², CAP) * SCALE`; scores stay within
/// `MAX` (the gravity formula), and are divided by `AGE_DIVISOR` between searches.
pub const HISTORY_BONUS_CAP: i32 = 400;
pub const HISTORY_BONUS_SCALE: i32 = 32;
pub const HISTORY_MAX: i32 = 16_384;
pub const HISTORY_AGE_DIVISOR: i32 = 4;
/// Move ordering: added to the history of a quiet move that takes the threatened piece
/// away (a quarter of `HISTORY_MAX`: ahead of the average quiet move, behind the killers).
pub const ESCAPE_BONUS: i32 = 4096;
