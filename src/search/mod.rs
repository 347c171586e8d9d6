//! Search layer: the contract every algorithm implements — [`Backend`], the request and
//! the result — the registry that maps UCI/CLI names to backends, and the machinery they
//! share: limits, the stop/time control, progress reports and iterative deepening on the
//! chess view. The backends live in families of their own: [`pvs`] (the tournament
//! engine), [`research`] (alpha-beta, the MT drivers, rollouts, FSSS) and [`uct`].

pub mod control;
pub mod deepening;
pub mod info;
pub mod limits;
pub mod pvs;
pub mod registry;
pub mod research;
pub mod uct;

use shakmaty::Move;

use crate::board::tablebase::Tablebases;
use crate::board::{Evaluator, Game};
use crate::options::{Declared, Options};
use crate::value::Value;

pub use control::SearchControl;
pub use info::{Info, InfoSink};
pub use limits::Limits;

/// Search threads: Lazy SMP for `pvs`, tree or root parallelism for the UCT family.
pub static THREADS: Declared<i64> = Declared::spin(
    "Threads",
    1,
    1,
    256,
    "search threads (Lazy SMP for pvs; for the UCT family a shared tree or one tree per thread, see UCT_Parallel)",
);

/// Table size: `pvs`'s transposition table, the research backends' bound storage.
pub static HASH: Declared<i64> = Declared::spin(
    "Hash",
    16,
    1,
    65536,
    "transposition table / bound storage size in MB",
);

/// Root moves reported with their own line (`info ... multipv k`), best first; the move
/// played is line 1. Read by `pvs`.
pub static MULTIPV: Declared<i64> = Declared::spin(
    "MultiPV",
    1,
    1,
    256,
    "number of best root moves reported, each with its line (pvs)",
);

/// The `MultiPV` option as a line count.
pub fn multipv(options: &Options) -> usize {
    options.get(&MULTIPV).max(1) as usize
}

/// The `Threads` option as a thread count.
pub fn threads(options: &Options) -> usize {
    options.get(&THREADS).max(1) as usize
}

/// The `Hash` option in MB.
pub fn hash_mb(options: &Options) -> usize {
    options.get(&HASH).max(1) as usize
}

/// Everything one search needs: the game (root position and history), the limits, the
/// shared control (stop flag, clock), where to report, the evaluator, and the options.
pub struct SearchRequest<'a> {
    pub game: &'a Game,
    pub limits: &'a Limits,
    pub control: &'a SearchControl,
    pub sink: &'a dyn InfoSink,
    pub eval: &'a dyn Evaluator,
    /// All option values; backends read their own (and `Threads`, `Hash`) from here.
    pub options: &'a Options,
    /// The endgame tables of `SyzygyPath`, for the backends that probe them in their
    /// search (the root's moves are already limited to the ones the tables keep).
    pub tablebases: Option<&'a Tablebases>,
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

/// Why a backend cannot take the options it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// A search algorithm. One instance lives as long as the engine keeps it selected, so it
/// may keep memory between the moves of a game.
pub trait Backend: Send {
    /// Searches the root of `req.game` until a limit is reached or `req.control` says stop,
    /// reporting through `req.sink`. Must return promptly (within a few ms) after a stop.
    /// The root has at least one legal move: the engine answers positions without one
    /// itself.
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult;

    /// Forgets what belongs to the previous game (tables, move-ordering memory, trees).
    fn new_game(&mut self) {}

    /// Work due between two searches, called once the last one's `bestmove` is out, so
    /// that it is off the clock: in a GUI the opponent's move gives it time. A backend
    /// must not depend on it being called (tools drive backends directly): what it leaves
    /// undone, the next [`search`](Self::search) does first.
    fn between_searches(&mut self) {}

    /// Takes the current options before the next search: a backend that holds memory
    /// sized by an option (`pvs`'s table by `Hash`) resizes it here, so that a size the
    /// machine cannot give is refused when it is set. On error the backend is unchanged.
    fn configure(&mut self, _options: &Options) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// Running a backend directly, for the backends' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::Duration;

    use super::info::Silent;
    use super::*;
    use crate::board::Material;

    /// Options holding `settings` (`name`, `value`) over the defaults of `decls`.
    pub fn options(decls: &[&crate::options::OptionDecl], settings: &[(&str, &str)]) -> Options {
        let mut options = Options::new(decls.iter().map(|&d| d.clone()).collect());
        for (name, value) in settings {
            let (_, v) = options.validate(name, Some(value)).unwrap();
            options.set(name, v);
        }
        options
    }

    /// One search of `game` under `limits` with the material evaluator.
    pub fn search(
        backend: &mut dyn Backend,
        game: &Game,
        limits: &Limits,
        options: &Options,
        sink: &dyn InfoSink,
    ) -> SearchResult {
        let control = SearchControl::new(limits, game.position().turn(), Duration::ZERO);
        let req = SearchRequest {
            game,
            limits,
            control: &control,
            sink,
            eval: &Material,
            options,
            tablebases: None,
        };
        backend.search(&req)
    }

    /// A backend that panics in the middle of its search, as a bug would.
    pub struct Broken;

    impl Backend for Broken {
        fn search(&mut self, _: &SearchRequest<'_>) -> SearchResult {
            std::panic::panic_any("a bug in the backend")
        }
    }

    /// Material, except on any thread but `home`, where it panics as a bug would, and
    /// counts the panics.
    struct BrokenOffHome {
        home: std::thread::ThreadId,
        panics: std::sync::atomic::AtomicUsize,
    }

    impl Evaluator for BrokenOffHome {
        fn evaluate(&self, pos: &shakmaty::Chess) -> i32 {
            if std::thread::current().id() != self.home {
                self.panics
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                std::panic::panic_any("a bug in a helper thread");
            }
            Material.evaluate(pos)
        }
    }

    /// A silent search whose helper threads panic at their first evaluation (the main
    /// thread is the caller's), and how many of them did: on a busy machine a helper may
    /// start only after the main thread has finished.
    pub fn with_broken_helpers(
        backend: &mut dyn Backend,
        game: &Game,
        limits: &Limits,
        options: &Options,
    ) -> (SearchResult, usize) {
        let control = SearchControl::new(limits, game.position().turn(), Duration::ZERO);
        let eval = BrokenOffHome {
            home: std::thread::current().id(),
            panics: Default::default(),
        };
        let req = SearchRequest {
            game,
            limits,
            control: &control,
            sink: &Silent,
            eval: &eval,
            options,
            tablebases: None,
        };
        let result = backend.search(&req);
        (result, eval.panics.into_inner())
    }

    /// A silent search with default options.
    pub fn quick(backend: &mut dyn Backend, game: &Game, limits: &Limits) -> SearchResult {
        search(backend, game, limits, &Options::new(Vec::new()), &Silent)
    }
}
