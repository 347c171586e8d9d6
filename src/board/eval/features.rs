//! The features of the classical evaluator: each is a count (white's minus black's) that
//! the evaluation multiplies by a tapered (middlegame, endgame) weight. Because the
//! evaluation is linear in its weights, `searchlight tune` can fit every weight at once:
//! it records these counts per position instead of summing them.

/// One block of consecutive features: a name and how many.
pub struct Block {
    pub name: &'static str,
    pub start: usize,
    pub len: usize,
}

macro_rules! layout {
    ($($id:ident = $len:expr, $name:literal;)*) => {
        layout!(@offsets 0usize; $($id = $len;)*);
        /// Every block, in index order.
        pub const BLOCKS: &[Block] = &[$(Block { name: $name, start: $id, len: $len }),*];
    };
    (@offsets $at:expr; $id:ident = $len:expr; $($rest:ident = $rlen:expr;)*) => {
        pub const $id: usize = $at;
        layout!(@offsets $at + $len; $($rest = $rlen;)*);
    };
    (@offsets $at:expr;) => {
        /// The number of features (and of weight pairs).
        pub const COUNT: usize = $at;
    };
}

layout! {
    MATERIAL = 5, "material (pawn, knight, bishop, rook, queen)";
    PST = 6 * 64, "piece-square (role, square from the owner's side)";
    MOBILITY_KNIGHT = 9, "knight mobility";
    MOBILITY_BISHOP = 14, "bishop mobility";
    MOBILITY_ROOK = 15, "rook mobility";
    MOBILITY_QUEEN = 28, "queen mobility";
    PASSED = 8, "passed pawn by rank";
    PASSED_FREE = 8, "passed pawn with an empty path, by rank";
    PASSED_OWN_KING = 8, "own king's distance to a passed pawn's stop square, by rank";
    PASSED_THEIR_KING = 8, "enemy king's distance to a passed pawn's stop square, by rank";
    ISOLATED = 1, "isolated pawn";
    DOUBLED = 1, "doubled pawn";
    BACKWARD = 1, "backward pawn";
    CONNECTED = 8, "connected pawn (defended or beside one), by rank";
    KING_ATTACKS = 4, "attacks on the enemy king zone (knight, bishop, rook, queen)";
    KING_ATTACKERS = 8, "pieces attacking the enemy king zone (0..7)";
    SHIELD = 3, "king file shield pawn (one ahead, two ahead, none)";
    STORM = 8, "enemy pawn on a king file, by distance ahead (0 = none)";
    KING_OPEN_FILE = 1, "king file without pawns";
    KING_HALF_OPEN_FILE = 1, "king file without own pawns";
    BISHOP_PAIR = 1, "bishop pair";
    ROOK_OPEN = 1, "rook on an open file";
    ROOK_HALF_OPEN = 1, "rook on a half-open file";
    THREAT_BY_PAWN = 6, "own piece attacked by an enemy pawn (by role)";
    THREAT_BY_MINOR = 6, "own piece attacked by an enemy minor (by role)";
    THREAT_BY_ROOK = 6, "own piece attacked by an enemy rook (by role)";
    HANGING = 1, "own piece attacked and not defended";
    TEMPO = 1, "side to move";
    SAFE_CHECKS = 4, "squares the side could check from, unguarded by the enemy (knight, bishop, rook, queen)";
    KING_PRESSURE = 8, "attacks on the enemy king zone, by number of attackers (0..7)";
}

/// A readable name for feature `i` (for the generated weights file).
pub fn name(i: usize) -> String {
    BLOCKS
        .iter()
        .find(|b| (b.start..b.start + b.len).contains(&i))
        .map_or_else(
            || format!("feature {i}"),
            |b| format!("{} [{}]", b.name, i - b.start),
        )
}

/// Hand-set weights to start tuning from: material, and everything else zero.
pub fn initial() -> Vec<[f64; 2]> {
    let mut w = vec![[0.0; 2]; COUNT];
    let material = [
        [100.0, 120.0],
        [320.0, 300.0],
        [330.0, 320.0],
        [480.0, 520.0],
        [950.0, 950.0],
    ];
    w[MATERIAL..MATERIAL + 5].copy_from_slice(&material);
    w
}
