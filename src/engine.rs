//! The engine core shared by the UCI session and the tools (bench, epd, match): options,
//! transposition table, evaluator and the selected backend, with the side effects of each
//! option applied in one place.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use shakmaty::CastlingMode;

use crate::board::eval::EVALUATORS;
use crate::board::{Evaluator, Game, find_evaluator};
use crate::options::{OptionDecl, OptionKind, OptionValue, Options};
use crate::search::registry::{self, BACKENDS, DEFAULT_BACKEND};
use crate::search::{
    Backend, InfoSink, Limits, SearchControl, SearchRequest, SearchResult, TranspositionTable,
};

/// Option names the engine itself acts on.
pub mod names {
    pub const THREADS: &str = "Threads";
    pub const HASH: &str = "Hash";
    pub const CLEAR_HASH: &str = "Clear Hash";
    pub const PONDER: &str = "Ponder";
    pub const MOVE_OVERHEAD: &str = "Move Overhead";
    pub const CHESS960: &str = "UCI_Chess960";
    pub const SEARCH: &str = "Search";
    pub const EVAL: &str = "Eval";
}

/// Default transposition table size in MB.
pub const DEFAULT_HASH_MB: i64 = 16;

/// Every option the engine announces: its own, then each backend's.
pub fn option_declarations() -> Vec<OptionDecl> {
    static EVAL_NAMES: LazyLock<Vec<&'static str>> =
        LazyLock::new(|| EVALUATORS.iter().map(|e| e.name).collect());
    let mut decls = vec![
        OptionDecl {
            name: names::THREADS,
            kind: OptionKind::Spin {
                default: 1,
                min: 1,
                max: 256,
            },
            help: "search threads (Lazy SMP for pvs)",
        },
        OptionDecl {
            name: names::HASH,
            kind: OptionKind::Spin {
                default: DEFAULT_HASH_MB,
                min: 1,
                max: 65536,
            },
            help: "transposition table / bound storage size in MB",
        },
        OptionDecl {
            name: names::CLEAR_HASH,
            kind: OptionKind::Button,
            help: "empties the transposition table",
        },
        OptionDecl {
            name: names::PONDER,
            kind: OptionKind::Check { default: false },
            help: "tells the engine the GUI may send go ponder",
        },
        OptionDecl {
            name: names::MOVE_OVERHEAD,
            kind: OptionKind::Spin {
                default: 10,
                min: 0,
                max: 5000,
            },
            help: "ms taken off every time budget for GUI and pipe latency",
        },
        OptionDecl {
            name: names::CHESS960,
            kind: OptionKind::Check { default: false },
            help: "Chess960 castling (king-takes-rook notation)",
        },
        OptionDecl {
            name: names::SEARCH,
            kind: OptionKind::Combo {
                default: DEFAULT_BACKEND,
                vars: registry::names(),
            },
            help: "search backend",
        },
        OptionDecl {
            name: names::EVAL,
            kind: OptionKind::Combo {
                default: EVALUATORS[0].name,
                vars: &EVAL_NAMES,
            },
            help: "static evaluator",
        },
    ];
    // Backends of one family share options; each is declared once.
    for decl in BACKENDS.iter().flat_map(|b| b.options) {
        if !decls.iter().any(|d| d.name == decl.name) {
            decls.push(decl.clone());
        }
    }
    decls
}

/// Options, table, evaluator and backend: what a search runs with.
pub struct Engine {
    options: Options,
    tt: Arc<TranspositionTable>,
    eval: Arc<dyn Evaluator>,
    /// `None` while a search thread holds it (see [`Engine::take_job`]).
    backend: Option<Box<dyn Backend>>,
    /// `new_game` arrived while the backend was away.
    pending_new_game: bool,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// Default options, the default backend and evaluator, a table of the default size.
    pub fn new() -> Self {
        let tt = TranspositionTable::new(DEFAULT_HASH_MB as usize)
            .unwrap_or_else(|_| TranspositionTable::minimal());
        Engine {
            options: Options::new(option_declarations()),
            tt: Arc::new(tt),
            eval: (EVALUATORS[0].make)(),
            backend: Some((BACKENDS[0].make)()),
            pending_new_game: false,
        }
    }

    /// An engine with some options set (`name=value` pairs as `setoption` takes them).
    pub fn with_options(settings: &[(&str, &str)]) -> Result<Self, String> {
        let mut engine = Engine::new();
        for (name, value) in settings {
            engine.set_option(name, Some(value))?;
        }
        Ok(engine)
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The castling mode positions are read in.
    pub fn castling_mode(&self) -> CastlingMode {
        CastlingMode::from_chess960(self.options.check(names::CHESS960))
    }

    /// `Move Overhead` as a duration.
    pub fn move_overhead(&self) -> Duration {
        Duration::from_millis(self.options.spin(names::MOVE_OVERHEAD).max(0) as u64)
    }

    /// Validates and applies a `setoption`. On error nothing changes and the message
    /// says why.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let (decl_name, parsed) = self
            .options
            .validate(name, value)
            .map(|(decl, v)| (decl.name, v))
            .map_err(|e| e.to_string())?;
        // Side effects that can fail happen before the value is committed.
        match (decl_name, &parsed) {
            (names::HASH, OptionValue::Spin(mb)) => {
                let tt = TranspositionTable::new(*mb as usize)
                    .map_err(|e| format!("{e}; Hash unchanged"))?;
                self.tt = Arc::new(tt);
            }
            (names::CLEAR_HASH, _) => self.tt.clear(),
            (names::SEARCH, OptionValue::Combo(v)) => {
                if let Some(info) = registry::find(v) {
                    // A running search keeps its own instance; this one serves the next go.
                    self.backend = Some((info.make)());
                }
            }
            (names::EVAL, OptionValue::Combo(v)) => {
                if let Some(info) = find_evaluator(v) {
                    self.eval = (info.make)();
                }
            }
            _ => {}
        }
        self.options.set(decl_name, parsed);
        Ok(())
    }

    /// A new game: the table is cleared and the backend forgets the last game.
    pub fn new_game(&mut self) {
        self.tt.clear();
        match &mut self.backend {
            Some(b) => b.new_game(),
            None => self.pending_new_game = true,
        }
    }

    fn make_backend(&self) -> Box<dyn Backend> {
        let info = registry::find(self.options.combo(names::SEARCH)).unwrap_or(&BACKENDS[0]);
        (info.make)()
    }

    /// Hands out everything a search thread needs. The backend goes with the job and comes
    /// back through [`Engine::return_backend`].
    pub fn take_job(&mut self) -> SearchJob {
        let backend = self.backend.take().unwrap_or_else(|| self.make_backend());
        SearchJob {
            backend,
            options: self.options.clone(),
            tt: Arc::clone(&self.tt),
            eval: Arc::clone(&self.eval),
        }
    }

    /// Takes back the backend of a finished job (`None`: the job's thread died).
    pub fn return_backend(&mut self, backend: Option<Box<dyn Backend>>) {
        // A `setoption name Search` during the search already installed another.
        if self.backend.is_none() {
            self.backend = Some(backend.unwrap_or_else(|| self.make_backend()));
        }
        if std::mem::take(&mut self.pending_new_game)
            && let Some(b) = &mut self.backend
        {
            b.new_game();
        }
    }

    /// Searches on the calling thread (tools and tests).
    pub fn search(&mut self, game: &Game, limits: &Limits, sink: &dyn InfoSink) -> SearchResult {
        let control = SearchControl::new(limits, game.position().turn(), self.move_overhead());
        self.search_with(game, limits, &control, sink)
    }

    /// Like [`Engine::search`] with a control the caller owns (to stop it from elsewhere).
    pub fn search_with(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        sink: &dyn InfoSink,
    ) -> SearchResult {
        let mut job = self.take_job();
        let result = job.run(game, limits, control, sink);
        self.return_backend(Some(job.backend));
        result
    }
}

/// A backend with the shared resources of one search.
pub struct SearchJob {
    pub backend: Box<dyn Backend>,
    pub options: Options,
    pub tt: Arc<TranspositionTable>,
    pub eval: Arc<dyn Evaluator>,
}

impl SearchJob {
    pub fn run(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        sink: &dyn InfoSink,
    ) -> SearchResult {
        let req = SearchRequest {
            game,
            limits,
            control,
            sink,
            tt: &self.tt,
            eval: self.eval.as_ref(),
            options: &self.options,
        };
        self.backend.search(&req)
    }
}
