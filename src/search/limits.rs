//! What a `go` asks for. Every limit given applies at once; the search stops at whichever
//! is reached first (depth, nodes, movetime, the clock, a mate of the asked length).

use std::time::Duration;

use shakmaty::Move;

use crate::value::{MATE, MATE_BOUND, Value};

/// The limits of one search, as `go` gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    pub wtime: Option<Duration>,
    pub btime: Option<Duration>,
    pub winc: Option<Duration>,
    pub binc: Option<Duration>,
    pub movestogo: Option<u32>,
    /// Search until `stop`, and hold `bestmove` until then.
    pub infinite: bool,
    /// Search as if infinite until `ponderhit` turns the clock on.
    pub ponder: bool,
    /// Restrict the root to these moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// Only a depth limit: what bench, tests and experiments use.
    pub fn depth(depth: u32) -> Self {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Nothing would end the search but `stop`: no limit, no clock, not asked to run until
    /// `stop` either (which a GUI that says `infinite` or `ponder` will send).
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.mate.is_none()
            && self.wtime.is_none()
            && self.btime.is_none()
            && !self.infinite
            && !self.ponder
    }

    /// A root with this many moves to choose from is answered after the first iteration:
    /// only a single choice on the clock. `movetime`, a depth or `infinite` ask for the
    /// search itself (an analyst restricting `searchmoves` to one move wants its score),
    /// so they get it.
    pub fn answers_at_once(&self, choices: usize) -> bool {
        choices == 1 && (self.wtime.is_some() || self.btime.is_some()) && !self.infinite
    }

    /// Only a fixed time per move.
    pub fn movetime(ms: u64) -> Self {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// `go mate N` is answered: `value` is a mate in at most N moves for the side to move.
    pub fn mate_found(&self, value: Value) -> bool {
        self.mate
            .is_some_and(|n| value >= MATE_BOUND && MATE - value < 2 * n as Value)
    }

    /// Only a node budget.
    pub fn nodes(nodes: u64) -> Self {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }
}
