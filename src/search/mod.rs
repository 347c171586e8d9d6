//! Search layer: the [`Backend`] interface every algorithm implements, the registry that
//! maps UCI/CLI names to backends, and the machinery they share (limits, the stop/time
//! control, progress reports, the transposition table, move ordering).

pub mod alphabeta;
pub mod bounds;
pub mod control;
pub mod deepening;
pub mod fsss;
pub mod info;
pub mod limits;
pub mod mt;
pub mod ordering;
pub mod pvs;
pub mod registry;
pub mod rollout;
pub mod score;
pub mod solve;
pub mod stored;
pub mod tt;
pub mod uct;

use shakmaty::Move;

use crate::board::{Evaluator, Game};
use crate::options::Options;

pub use control::SearchControl;
pub use info::{Info, InfoSink};
pub use limits::Limits;
pub use score::Value;
pub use tt::TranspositionTable;

/// Everything one search needs: the game (root position and history), the limits, the
/// shared control (stop flag, clock), where to report, and the engine's shared resources.
pub struct SearchRequest<'a> {
    pub game: &'a Game,
    pub limits: &'a Limits,
    pub control: &'a SearchControl,
    pub sink: &'a dyn InfoSink,
    pub tt: &'a TranspositionTable,
    pub eval: &'a dyn Evaluator,
    /// All option values; backends read their own (and `Threads`, `Hash`) from here.
    pub options: &'a Options,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play: `None` only when the root has no legal move.
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// The root value of the last completed iteration.
    pub value: Value,
    /// The depth of the last completed iteration.
    pub depth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Leaf evaluations (the research backends' cost measure; 0 where not counted).
    pub leaves: u64,
}

/// A search algorithm. One instance lives as long as the engine keeps it selected, so it
/// may keep memory between the moves of a game.
pub trait Backend: Send {
    /// Searches the root of `req.game` until a limit is reached or `req.control` says stop,
    /// reporting through `req.sink`. Must return promptly (within a few ms) after a stop.
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult;

    /// Forgets what belongs to the previous game.
    fn new_game(&mut self) {}
}
