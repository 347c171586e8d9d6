//! Search values: centipawns from the side to move, with mate scores packed near the ends
//! of the range so that a shorter mate always compares better; the bound a value is, and
//! how values are stored in tables shared across plies and reported to UCI.

/// A search value in centipawns, from the side to move's point of view.
pub type Value = i32;

/// Outside every reachable value; the initial window is `(-INFINITY, INFINITY)`.
pub const INFINITY: Value = 32_000;
/// The value of giving checkmate now; a mate `n` plies away is `MATE - n`.
pub const MATE: Value = 31_000;
/// Deepest ply any search reaches (stacks and mate ranges are sized by it).
pub const MAX_PLY: usize = 128;
/// Values at or beyond this are mate scores.
pub const MATE_BOUND: Value = MATE - MAX_PLY as Value;
/// The value of a drawn position.
pub const DRAW: Value = 0;
/// The value of a position the endgame tables call won, `ply` plies from the root; far
/// above any evaluation and below every mate, so that a mate the search sees still
/// ranks first, and the nearer of two table wins second. Reported as centipawns (about
/// `cp 20000`), as Stockfish does.
#[inline]
pub const fn tablebase_win_in(ply: usize) -> Value {
    TABLEBASE_WIN - ply as Value
}
/// See [`tablebase_win_in`].
pub const TABLEBASE_WIN: Value = 20_000;

/// The value of delivering mate `ply` plies from the root.
#[inline]
pub const fn mate_in(ply: usize) -> Value {
    MATE - ply as Value
}

/// The value of being mated `ply` plies from the root.
#[inline]
pub const fn mated_in(ply: usize) -> Value {
    -MATE + ply as Value
}

/// True for values that encode a forced mate for either side.
#[inline]
pub const fn is_mate(v: Value) -> bool {
    v >= MATE_BOUND || v <= -MATE_BOUND
}

/// Mate scores are relative to the root; a table shared across plies stores them relative
/// to the node instead, so an entry stays right wherever the position recurs.
#[inline]
pub const fn to_table(v: Value, ply: usize) -> Value {
    if v >= MATE_BOUND {
        v + ply as Value
    } else if v <= -MATE_BOUND {
        v - ply as Value
    } else {
        v
    }
}

/// The inverse of [`to_table`].
#[inline]
pub const fn from_table(v: Value, ply: usize) -> Value {
    if v >= MATE_BOUND {
        v - ply as Value
    } else if v <= -MATE_BOUND {
        v + ply as Value
    } else {
        v
    }
}

/// What a search value says about the true value: equal to it, at least it (the search
/// failed high), or at most it (the search failed low).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

impl Bound {
    /// The bound a fail-soft search's result `v` gives for the window `(alpha, beta)`.
    #[inline]
    pub fn of(v: Value, alpha: Value, beta: Value) -> Bound {
        if v >= beta {
            Bound::Lower
        } else if v <= alpha {
            Bound::Upper
        } else {
            Bound::Exact
        }
    }
}

/// A value as UCI reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UciScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move gets mated).
    Mate(i32),
}

impl UciScore {
    pub fn from_value(v: Value) -> Self {
        if v >= MATE_BOUND {
            UciScore::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            UciScore::Mate(-(MATE + v) / 2)
        } else {
            UciScore::Cp(v)
        }
    }

    /// One number for comparing scores (match adjudication): centipawns, with a mate
    /// beyond any evaluation and a nearer mate further out.
    pub fn centipawns(self) -> i32 {
        match self {
            UciScore::Cp(cp) => cp,
            UciScore::Mate(n) if n > 0 => 100_000 - n,
            UciScore::Mate(n) => -100_000 - n,
        }
    }
}

impl std::fmt::Display for UciScore {
    /// As `info score` writes it: `cp 35`, `mate -3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UciScore::Cp(cp) => write!(f, "cp {cp}"),
            UciScore::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(UciScore::from_value(mate_in(1)), UciScore::Mate(1));
        assert_eq!(UciScore::from_value(mate_in(3)), UciScore::Mate(2));
        assert_eq!(UciScore::from_value(mated_in(0)), UciScore::Mate(0));
        assert_eq!(UciScore::from_value(mated_in(2)), UciScore::Mate(-1));
        assert_eq!(UciScore::from_value(35), UciScore::Cp(35));
        assert_eq!(UciScore::Mate(-3).to_string(), "mate -3");
        assert!(UciScore::Mate(2).centipawns() > UciScore::Mate(5).centipawns());
        assert!(UciScore::Mate(-2).centipawns() < UciScore::Cp(-5000).centipawns());
    }

    #[test]
    fn table_adjustment_round_trips() {
        for v in [mate_in(5), mated_in(7), 120, -40] {
            assert_eq!(from_table(to_table(v, 9), 9), v);
        }
        // A mate found 3 plies below the root is a mate in 2 plies from that node.
        assert_eq!(to_table(mate_in(5), 3), mate_in(2));
    }
}
