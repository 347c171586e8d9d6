//! The engine core shared by the UCI server and the tools (bench, epd, match): the options,
//! the evaluator and the selected backend, with the side effects of each option applied in
//! one place; and the lifecycle of a search on its own thread — [`Engine::go`],
//! [`Engine::stop`], [`Engine::ponderhit`], [`Engine::wait`] — so that anything can search
//! asynchronously the way a GUI does.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::CastlingMode;
use thiserror::Error;

use crate::board::eval::EVALUATORS;
use crate::board::eval::nnue::{self, Network};
use crate::board::tablebase::Tablebases;
use crate::board::{Evaluator, Game, find_evaluator, rules};
use crate::options::{Declared, OptionDecl, OptionError, OptionValue, Options};
use crate::search::pvs::skill::{CALIBRATED_EVAL, LIMIT_STRENGTH};
use crate::search::registry::{self, BACKENDS, DEFAULT_BACKEND};
use crate::search::{
    Backend, ConfigError, HASH, Info, InfoSink, Limits, SearchControl, SearchRequest, SearchResult,
    THREADS,
};
use crate::value::{Bound, Value, is_mate};

pub static CLEAR_HASH: Declared<()> = Declared::button(
    "Clear Hash",
    "forgets what the search learned (table, move ordering, UCT trees), as ucinewgame does",
);
pub static PONDER: Declared<bool> = Declared::check(
    "Ponder",
    false,
    "tells the engine the GUI may send go ponder",
);
pub static MOVE_OVERHEAD: Declared<i64> = Declared::spin(
    "Move Overhead",
    10,
    0,
    5000,
    "ms taken off every time budget for GUI and pipe latency",
);
pub static CHESS960: Declared<bool> = Declared::check(
    "UCI_Chess960",
    false,
    "Chess960 castling (king-takes-rook notation)",
);
pub static SHOW_WDL: Declared<bool> = Declared::check(
    "UCI_ShowWDL",
    false,
    "add wdl W D L (permille, side to move) to info lines, from the evaluator's fitted model",
);
/// The backend; its values are the registry's names.
pub static SEARCH: LazyLock<Declared<&'static str>> = LazyLock::new(|| {
    Declared::combo(
        "Search",
        DEFAULT_BACKEND,
        registry::names(),
        "search backend",
    )
});
/// The evaluator; its values are the evaluators' names.
pub static EVAL: LazyLock<Declared<&'static str>> = LazyLock::new(|| {
    static NAMES: LazyLock<Vec<&'static str>> =
        LazyLock::new(|| EVALUATORS.iter().map(|e| e.name).collect());
    Declared::combo("Eval", EVALUATORS[0].name, &NAMES, "static evaluator")
});

/// The network of `Eval=nnue`: a file `tune --nnue` wrote, or the one built in.
pub static EVAL_FILE: Declared<String> = Declared::string(
    "EvalFile",
    BUILT_IN_NET,
    "the network of Eval=nnue: a file written by searchlight tune --nnue, or <built-in>",
);
const BUILT_IN_NET: &str = "<built-in>";

/// Directories of Syzygy endgame tables (`.rtbw`, `.rtbz`).
pub static SYZYGY_PATH: Declared<String> = Declared::string(
    "SyzygyPath",
    NO_PATH,
    "directories of Syzygy endgame tables, separated by : (; on Windows); <empty> for none",
);
/// The value of a path option that names nothing (what GUIs show for an empty string).
const NO_PATH: &str = "<empty>";

/// The path a path option's value names: `None` for an empty value or `<empty>`.
pub fn named_path(value: &str) -> Option<&str> {
    Some(value.trim()).filter(|p| !p.is_empty() && *p != NO_PATH)
}
/// The most pieces a probed position may have.
pub static SYZYGY_PROBE_LIMIT: Declared<i64> = Declared::spin(
    "SyzygyProbeLimit",
    7,
    0,
    7,
    "positions with more pieces than this are not looked up in the endgame tables",
);
/// The least depth left at which the search looks positions up.
pub static SYZYGY_PROBE_DEPTH: Declared<i64> = Declared::spin(
    "SyzygyProbeDepth",
    1,
    1,
    100,
    "the search looks positions up in the endgame tables only with this many plies or more left",
);
/// Whether the fifty-move rule draws a win the tables say it would.
pub static SYZYGY_50_MOVE_RULE: Declared<bool> = Declared::check(
    "Syzygy50MoveRule",
    true,
    "off: a win the fifty-move rule would draw counts as a win (analysis without the rule)",
);

/// A file that keeps the conversation with the GUI. The session, which sees every line
/// in and out, keeps it; it is declared here with every other option.
pub static DEBUG_LOG_FILE: Declared<String> = Declared::string(
    "Debug Log File",
    NO_PATH,
    "a file to append every line from and to the GUI to (>> in, << out); <empty> for none",
);

/// Every option the engine announces: its own, then each backend's (a declaration shared by
/// a family is announced once).
pub fn option_declarations() -> Vec<OptionDecl> {
    let own: [&OptionDecl; 15] = [
        &THREADS.decl,
        &HASH.decl,
        &CLEAR_HASH.decl,
        &PONDER.decl,
        &MOVE_OVERHEAD.decl,
        &CHESS960.decl,
        &SHOW_WDL.decl,
        &SEARCH.decl,
        &EVAL.decl,
        &EVAL_FILE.decl,
        &SYZYGY_PATH.decl,
        &SYZYGY_PROBE_LIMIT.decl,
        &SYZYGY_PROBE_DEPTH.decl,
        &SYZYGY_50_MOVE_RULE.decl,
        &DEBUG_LOG_FILE.decl,
    ];
    let mut decls: Vec<OptionDecl> = own.into_iter().cloned().collect();
    for &decl in BACKENDS.iter().flat_map(|b| b.options) {
        if !decls.iter().any(|d| d.name == decl.name) {
            decls.push(decl.clone());
        }
    }
    decls
}

/// Why a `setoption` or a `go` was refused.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("EvalFile {0}; the net in use is kept")]
    Net(String),
    #[error("SyzygyPath: {0}; the tables in use are kept")]
    Tablebases(String),
    #[error("a search is already running (send stop first)")]
    Busy,
    #[error("cannot start the search thread: {0}")]
    Thread(std::io::Error),
}

/// A search running on its own thread (or finished and not yet joined).
struct Running {
    control: Arc<SearchControl>,
    /// Set just before the result is handed over: from then on the caller may start the
    /// next search, and must not be told one is still running.
    answered: Arc<AtomicBool>,
    handle: JoinHandle<Box<dyn Backend>>,
}

/// Options, evaluator and backend: what a search runs with; and the search thread.
pub struct Engine {
    options: Options,
    eval: Arc<dyn Evaluator>,
    /// The network `EvalFile` names, for `Eval=nnue`.
    net: Arc<Network>,
    /// The tables `SyzygyPath` names, all of them (`SyzygyProbeLimit` applies per search).
    tablebases: Option<Tablebases>,
    /// `None` while a search holds it.
    backend: Option<Box<dyn Backend>>,
    /// `new_game` arrived while the backend was away.
    pending_new_game: bool,
    /// Options changed while the backend was away, with the values they replaced: the
    /// backend takes them when it comes back, and if it refuses them they are put back.
    deferred: Vec<(&'static str, OptionValue)>,
    /// Why the backend refused the deferred options (see [`Engine::take_deferred_error`]).
    deferred_error: Option<String>,
    running: Option<Running>,
    /// A note for the user about the last option set (see [`Engine::take_notice`]).
    notice: Option<String>,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

impl Engine {
    /// Default options, the default backend and evaluator.
    pub fn new() -> Self {
        Self::with_backend((BACKENDS[0].make)())
    }

    /// Default options with a backend of the caller's (tests bring a scripted one); a
    /// `setoption name Search` replaces it as usual.
    pub fn with_backend(mut backend: Box<dyn Backend>) -> Self {
        let options = Options::new(option_declarations());
        if let Err(e) = backend.configure(&options) {
            log::warn!("backend refused the default options: {e}");
        }
        let net = nnue::built_in();
        Engine {
            options,
            eval: (EVALUATORS[0].make)(&net),
            net,
            tablebases: None,
            backend: Some(backend),
            pending_new_game: false,
            deferred: Vec::new(),
            deferred_error: None,
            running: None,
            notice: None,
        }
    }

    /// An engine with some options set (`name`, `value` pairs as `setoption` takes them).
    pub fn with_options(settings: &[(&str, &str)]) -> Result<Self, EngineError> {
        let mut engine = Engine::new();
        for (name, value) in settings {
            engine.set_option(name, Some(value))?;
        }
        Ok(engine)
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The evaluator `Eval` selects, and its name.
    pub fn evaluator(&self) -> (&'static str, &dyn Evaluator) {
        (self.options.get(&EVAL), self.eval.as_ref())
    }

    /// The castling mode positions are read in.
    pub fn castling_mode(&self) -> CastlingMode {
        CastlingMode::from_chess960(self.options.get(&CHESS960))
    }

    /// `Move Overhead` as a duration.
    pub fn move_overhead(&self) -> Duration {
        Duration::from_millis(self.options.get(&MOVE_OVERHEAD).max(0) as u64)
    }

    /// Validates and applies a `setoption`. On error nothing changes and the error says
    /// why.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), EngineError> {
        let (decl, parsed) = self.options.validate(name, value)?;
        let decl_name = decl.name;
        // A search that has answered, or is ending, gives its backend back first, so the
        // option is applied (or refused) now, where the error reaches the GUI.
        self.settle();
        let mut next = self.options.clone();
        next.set(decl_name, parsed);
        // Side effects that can fail happen before the value is committed.
        if decl_name == SEARCH.name() {
            // A running search keeps its own instance; this one serves the next go.
            let mut backend = make_backend(next.get(&SEARCH));
            backend.configure(&next)?;
            self.backend = Some(backend);
            self.deferred.clear();
        } else if decl_name == EVAL.name() || decl_name == EVAL_FILE.name() {
            let net = if decl_name == EVAL_FILE.name() {
                load_net(&next.get(&EVAL_FILE))?
            } else {
                self.net.clone()
            };
            if let Some(info) = find_evaluator(next.get(&EVAL)) {
                self.eval = (info.make)(&net);
            }
            self.net = net;
        } else if decl_name == SYZYGY_PATH.name() {
            self.tablebases = open_tablebases(&next.get(&SYZYGY_PATH))?;
        } else if [
            SYZYGY_PROBE_LIMIT.name(),
            SYZYGY_PROBE_DEPTH.name(),
            SYZYGY_50_MOVE_RULE.name(),
        ]
        .contains(&decl_name)
        {
            // Read by each search (`take_job`).
        } else if decl_name == DEBUG_LOG_FILE.name() {
            // Opened by the session before the value gets here.
        } else if decl_name == CLEAR_HASH.name() {
            self.forget();
        } else {
            match &mut self.backend {
                Some(b) => b.configure(&next)?,
                None => {
                    if !self.deferred.iter().any(|(n, _)| *n == decl_name)
                        && let Some(old) = self.options.value(decl_name)
                    {
                        self.deferred.push((decl_name, old.clone()));
                    }
                }
            }
        }
        self.notice = self
            .oversubscribed(decl_name, &next)
            .or_else(|| self.tables_found(decl_name));
        self.options = next;
        Ok(())
    }

    /// `Threads` changed to more threads than the machine has cores: allowed (the threads
    /// then share cores), but said, once per change.
    fn oversubscribed(&self, name: &str, next: &Options) -> Option<String> {
        let threads = next.get(&THREADS);
        if name != THREADS.name() || threads == self.options.get(&THREADS) {
            return None;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (threads as usize > cores).then(|| {
            format!("Threads {threads} is more than the {cores} cores of this machine: the threads will share cores")
        })
    }

    /// What `SyzygyPath` found, as Stockfish says it: a path without tables is no error
    /// (a GUI may send its default), but the user should see that nothing was loaded.
    fn tables_found(&self, name: &str) -> Option<String> {
        if name != SYZYGY_PATH.name() {
            return None;
        }
        let tables = self.tablebases.as_ref()?;
        Some(format!(
            "found {} Syzygy table files, up to {} pieces",
            tables.files(),
            tables.max_pieces()
        ))
    }

    /// The note about the last `setoption`, if it deserves one (once: taking it clears it).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// A new game: the backend forgets the last one. A search that has answered gives its
    /// backend back first, so that its tables are cleared now, before the GUI's `isready`
    /// is answered, and not when the next `go` takes the backend, on that move's clock
    /// (the table's clear was 12 ms there with `Hash` 128).
    pub fn new_game(&mut self) {
        self.settle();
        self.forget();
    }

    fn forget(&mut self) {
        match &mut self.backend {
            Some(b) => b.new_game(),
            None => self.pending_new_game = true,
        }
    }

    /// A new instance of the selected backend, given the current options.
    fn fresh_backend(&self) -> Box<dyn Backend> {
        let mut b = make_backend(self.options.get(&SEARCH));
        if let Err(e) = b.configure(&self.options) {
            log::warn!("{e}");
        }
        b
    }

    /// Takes the backend for a search, and the shared resources with it.
    fn take_job(&mut self) -> SearchJob {
        let backend = self.backend.take().unwrap_or_else(|| self.fresh_backend());
        let limit = self.options.get(&SYZYGY_PROBE_LIMIT).max(0) as usize;
        let depth = self.options.get(&SYZYGY_PROBE_DEPTH) as i32;
        let rule = self.options.get(&SYZYGY_50_MOVE_RULE);
        SearchJob {
            backend,
            options: self.options.clone(),
            eval: self.search_eval(),
            tablebases: self.tablebases.as_ref().map(|t| {
                t.with_limit(limit)
                    .with_probe_depth(depth)
                    .with_fifty_move_rule(rule)
            }),
        }
    }

    /// The evaluator a search runs with: `Eval`'s, except that the strength levels play
    /// with the one they were calibrated with.
    fn search_eval(&self) -> Arc<dyn Evaluator> {
        if self.options.get(&LIMIT_STRENGTH)
            && let Some(info) = find_evaluator(CALIBRATED_EVAL)
        {
            return (info.make)(&self.net);
        }
        Arc::clone(&self.eval)
    }

    /// Takes back the backend of a finished search (`None`: its thread died).
    fn return_backend(&mut self, backend: Option<Box<dyn Backend>>) {
        // A `setoption name Search` during the search already installed another.
        if self.backend.is_none() {
            let deferred = std::mem::take(&mut self.deferred);
            let b = match backend {
                Some(mut b) => {
                    if !deferred.is_empty()
                        && let Err(e) = b.configure(&self.options)
                    {
                        self.undo_deferred(b.as_mut(), deferred, &e);
                    }
                    b
                }
                None => self.fresh_backend(),
            };
            self.backend = Some(b);
        }
        if std::mem::take(&mut self.pending_new_game)
            && let Some(b) = &mut self.backend
        {
            b.new_game();
        }
    }

    /// The backend refused options set while it searched: they get their old values back,
    /// which it held before, and the error waits for the session to report it.
    fn undo_deferred(
        &mut self,
        b: &mut dyn Backend,
        deferred: Vec<(&'static str, OptionValue)>,
        error: &ConfigError,
    ) {
        let names: Vec<&str> = deferred.iter().map(|(n, _)| *n).collect();
        let message = format!(
            "{error}; the options set during the search ({}) keep their values from before it",
            names.join(", ")
        );
        for (name, old) in deferred {
            self.options.set(name, old);
        }
        if let Err(e) = b.configure(&self.options) {
            log::warn!("backend refused the options it searched with: {e}");
        }
        self.deferred_error = Some(message);
    }

    /// Why options set during the last search were refused when it ended (once: taking
    /// it clears it).
    pub fn take_deferred_error(&mut self) -> Option<String> {
        self.deferred_error.take()
    }

    /// Takes the backend back from a search that has answered or is ending; one that runs
    /// on (infinite, pondering, or still thinking) keeps it.
    fn settle(&mut self) {
        let done = |r: &Running| r.control.ending() || r.answered.load(Ordering::Acquire);
        if self.running.as_ref().is_some_and(done) {
            self.wait();
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

    /// Starts searching `game` on a thread of its own and returns at once. When the search
    /// is over — and, in infinite mode, stopped; when pondering, hit or stopped — `finish`
    /// gets the game and the result on the search thread. Refused while a search runs that
    /// has not been stopped.
    pub fn go<F>(
        &mut self,
        game: Game,
        limits: Limits,
        sink: Box<dyn InfoSink + Send>,
        finish: F,
    ) -> Result<(), EngineError>
    where
        F: FnOnce(&Game, SearchResult) + Send + 'static,
    {
        // A GUI may send `stop`, `position` and `go` without waiting for the `bestmove`
        // (analysis mode does): a search that is ending is waited for, as Stockfish does.
        // One that runs on is refused, since waiting would leave `stop` and `quit` unread.
        self.settle();
        if self.running.is_some() {
            return Err(EngineError::Busy);
        }
        let control = Arc::new(SearchControl::new(
            &limits,
            game.position().turn(),
            self.move_overhead(),
        ));
        let answered = Arc::new(AtomicBool::new(false));
        let mut job = self.take_job();
        let (thread_control, thread_answered) = (Arc::clone(&control), Arc::clone(&answered));
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || {
                // A panic in the search must not leave the GUI waiting for a `bestmove`
                // that never comes: the rules pick a legal move, and the backend, which
                // may be half-updated, goes down with the thread for a fresh one.
                let searched = catch_unwind(AssertUnwindSafe(|| {
                    job.run(&game, &limits, &thread_control, sink.as_ref())
                }));
                let (result, panic) = match searched {
                    Ok(result) => (result, None),
                    Err(panic) => (fallback_result(&game), Some(panic)),
                };
                thread_control.wait_until_released();
                thread_answered.store(true, Ordering::Release);
                finish(&game, result);
                if let Some(panic) = panic {
                    std::panic::resume_unwind(panic);
                }
                job.backend.between_searches();
                job.backend
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    control,
                    answered,
                    handle,
                });
                Ok(())
            }
            Err(e) => {
                // The job (and its backend) went down with the closure.
                self.return_backend(None);
                Err(EngineError::Thread(e))
            }
        }
    }

    /// True from `go` until the result is handed to its `finish`.
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.answered.load(Ordering::Acquire))
    }

    /// The GUI's `stop`: the search ends, and its result is due even in infinite or ponder
    /// mode.
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
    }

    /// The GUI's `ponderhit`: the expected move was played, the clock starts now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.control.ponderhit();
        }
    }

    /// Stops any search and waits for its thread, which has answered by then.
    pub fn halt(&mut self) {
        self.stop();
        self.wait();
    }

    /// Waits for the search thread to end (it ends by itself, or after [`stop`](Self::stop)
    /// in infinite and ponder mode) and takes the backend back.
    pub fn wait(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        let backend = running.handle.join().ok();
        if backend.is_none() {
            log::error!("search thread panicked; starting a fresh backend");
        }
        self.return_backend(backend);
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The net `EvalFile` names; the built-in one for `<built-in>` or an empty value.
fn load_net(path: &str) -> Result<Arc<Network>, EngineError> {
    match named_path(path) {
        Some(path) if path != BUILT_IN_NET => {
            read_net(path).map(Arc::new).map_err(EngineError::Net)
        }
        _ => Ok(nnue::built_in()),
    }
}

/// Reads the net file at `path`; the error names the file and what is wrong with it.
pub fn read_net(path: &str) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}

/// The tables in the directories of `paths`; none for `<empty>` or an empty value.
fn open_tablebases(paths: &str) -> Result<Option<Tablebases>, EngineError> {
    named_path(paths)
        .map(|paths| Tablebases::open(paths).map_err(EngineError::Tablebases))
        .transpose()
}

fn make_backend(name: &str) -> Box<dyn Backend> {
    let info = registry::find(name).unwrap_or(&BACKENDS[0]);
    (info.make)()
}

/// The answer of a search that panicked: a legal move, so that the game goes on.
fn fallback_result(game: &Game) -> SearchResult {
    SearchResult {
        best: game.position().legal_moves().first().copied(),
        ..SearchResult::default()
    }
}

/// A backend with the shared resources of one search.
struct SearchJob {
    backend: Box<dyn Backend>,
    options: Options,
    eval: Arc<dyn Evaluator>,
    tablebases: Option<Tablebases>,
}

impl SearchJob {
    /// The search, except at a root without a legal move: that is answered here, for
    /// every backend, by the rules.
    fn run(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        sink: &dyn InfoSink,
    ) -> SearchResult {
        let root = game.position();
        if root.legal_moves().is_empty() {
            let end = rules::end_after_moves(root.chess(), false);
            return SearchResult {
                value: end.map_or(0, |t| t.value(0)),
                ..SearchResult::default()
            };
        }
        // `UCI_ShowWDL`: the win/draw/loss chances with every report. The root's pieces
        // set the phase: the reports are about the root.
        let with_wdl = self.options.get(&SHOW_WDL).then(|| {
            let evaluator = find_evaluator(self.options.get(&EVAL));
            let model = evaluator.map_or(EVALUATORS[0].wdl, |e| e.wdl);
            let board = shakmaty::Position::board(root.chess()).clone();
            Rewritten {
                inner: sink,
                rewrite: move |info: &Info| {
                    Some(Info {
                        wdl: Some(model.wdl(info.score, &board)),
                        ..info.clone()
                    })
                },
            }
        });
        let sink = with_wdl.as_ref().map_or(sink, |w| w as &dyn InfoSink);
        let Some((limits, value)) = self.tablebase_moves(game, limits, sink) else {
            return self.search(game, limits, control, sink);
        };
        // The tables' value in place of the search's, except a mate the search has seen,
        // which says more: a GUI shows the won ending as won. A failed aspiration
        // window's report says nothing the tables have not said, and is left out.
        let tablebase_value = |searched: Value| if is_mate(searched) { searched } else { value };
        let with_value = Rewritten {
            inner: sink,
            rewrite: |info: &Info| {
                (is_mate(info.score) || info.bound == Bound::Exact).then(|| Info {
                    score: tablebase_value(info.score),
                    ..info.clone()
                })
            },
        };
        let mut result = self.search(game, &limits, control, &with_value);
        result.value = tablebase_value(result.value);
        result
    }

    fn search(
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
            eval: self.eval.as_ref(),
            options: &self.options,
            tablebases: self.tablebases.as_ref(),
        };
        self.backend.search(&req)
    }

    /// A root the endgame tables hold: the search may play only the moves that keep the
    /// best outcome they promise (of those `searchmoves` names, if it names any of them),
    /// for every backend alike, and the value the tables give the root. The user is told
    /// what the tables say.
    fn tablebase_moves(
        &self,
        game: &Game,
        limits: &Limits,
        sink: &dyn InfoSink,
    ) -> Option<(Limits, Value)> {
        let probe = self
            .tablebases
            .as_ref()?
            .root_moves(game.position(), game.keys())?;
        let asked = &limits.searchmoves;
        let mut moves: Vec<_> = probe
            .moves
            .iter()
            .copied()
            .filter(|m| asked.is_empty() || asked.contains(m))
            .collect();
        if moves.is_empty() {
            // The user's moves all do worse; they asked for them all the same.
            moves = asked.clone();
        }
        sink.message(&format!(
            "tablebases: {}; root moves that keep it: {}",
            probe.outcome.name(),
            moves.len()
        ));
        let value = probe.outcome.value(0);
        let limits = Limits {
            searchmoves: moves,
            ..limits.clone()
        };
        Some((limits, value))
    }
}

/// Passes a search's reports on, each rewritten, or left out where `rewrite` says `None`.
struct Rewritten<'a, F> {
    inner: &'a dyn InfoSink,
    rewrite: F,
}

impl<F: Fn(&Info) -> Option<Info> + Sync> InfoSink for Rewritten<'_, F> {
    fn info(&self, info: &Info) {
        if let Some(info) = (self.rewrite)(info) {
            self.inner.info(&info);
        }
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }

    fn current_move(&self, depth: u32, mv: &shakmaty::uci::UciMove, number: u32) {
        self.inner.current_move(depth, mv, number);
    }
}

#[cfg(test)]
mod tests;
