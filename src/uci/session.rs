//! A UCI session: the game the GUI set up, the [`Engine`] core, and the search thread. The
//! input thread calls [`Session::handle`] for every line and is never blocked by a search:
//! `stop`, `isready` and `quit` are answered while one runs.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use shakmaty::Move;

use super::command::{Command, Go, Start, parse};
use super::output::{Output, format_bestmove, format_option, format_score};
use crate::board::{Game, Position};
use crate::engine::{Engine, SearchJob};
use crate::search::Backend;
use crate::search::SearchControl;
use crate::search::score::{Bound, DRAW, mated_in};
use crate::{ENGINE_AUTHOR, ENGINE_NAME};

/// Whether the input loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// A search running (or finished and not yet joined) on its own thread.
struct Running {
    control: Arc<SearchControl>,
    /// Set by the search thread just before it prints `bestmove`: from then on the GUI may
    /// send the next `go`, and it must not be told a search is still running.
    answered: Arc<AtomicBool>,
    handle: JoinHandle<Box<dyn Backend>>,
}

/// The protocol state behind one GUI connection.
pub struct Session {
    out: Output,
    engine: Engine,
    game: Game,
    running: Option<Running>,
}

impl Session {
    /// A session with default options and the start position.
    pub fn new(out: Output) -> Self {
        Session {
            out,
            engine: Engine::new(),
            game: Game::new(Position::startpos()),
            running: None,
        }
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        match parse(line) {
            Ok(command) => self.execute(command),
            Err(e) => {
                self.out.error(&e.to_string());
                Flow::Continue
            }
        }
    }

    fn execute(&mut self, command: Command) -> Flow {
        match command {
            Command::Uci => {
                self.out.line(&format!("id name {ENGINE_NAME}"));
                self.out.line(&format!("id author {ENGINE_AUTHOR}"));
                for decl in self.engine.options().decls() {
                    self.out.line(&format_option(decl));
                }
                self.out.line("uciok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::Debug(on) => log::set_max_level(if on {
                log::LevelFilter::Debug
            } else {
                log::LevelFilter::Warn
            }),
            Command::SetOption { name, value } => {
                if let Err(e) = self.engine.set_option(&name, value.as_deref()) {
                    self.out.error(&e);
                }
            }
            Command::UciNewGame => {
                self.engine.new_game();
                self.game = Game::new(self.start_position());
            }
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(go) => self.go(go),
            Command::Stop => {
                if let Some(r) = &self.running {
                    r.control.stop();
                }
            }
            Command::PonderHit => {
                if let Some(r) = &self.running {
                    r.control.ponderhit();
                }
            }
            Command::Quit => {
                self.shutdown();
                return Flow::Quit;
            }
            Command::Empty => {}
            Command::Unknown(text) => log::debug!("ignored unknown command: {text}"),
        }
        Flow::Continue
    }

    /// Stops any search and waits for its thread (which prints its `bestmove`).
    pub fn shutdown(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
        self.join_search();
    }

    fn searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.answered.load(Ordering::Acquire))
    }

    /// Joins a finished (or stopping) search thread and takes the backend back.
    fn join_search(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        let backend = running.handle.join().ok();
        if backend.is_none() {
            log::error!("search thread panicked; starting a fresh backend");
            self.out
                .error("search failed internally; backend restarted");
        }
        self.engine.return_backend(backend);
    }

    fn start_position(&self) -> Position {
        const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        Position::from_fen(STARTPOS, self.engine.castling_mode()).unwrap_or_default()
    }

    /// Builds the whole game first; the current one is replaced only if every part is valid.
    fn set_position(&mut self, start: Start, moves: &[String]) {
        let start = match start {
            Start::StartPos => Ok(self.start_position()),
            Start::Fen(fen) => Position::from_fen(&fen, self.engine.castling_mode()),
        };
        match start.and_then(|s| Game::from_uci_moves(s, moves)) {
            Ok(game) => self.game = game,
            Err(e) => self
                .out
                .error(&format!("position: {e}; position unchanged")),
        }
    }

    fn go(&mut self, go: Go) {
        if self.searching() {
            self.out
                .error("go: a search is already running (send stop first)");
            return;
        }
        self.join_search();
        let pos = self.game.position().clone();
        let mut limits = go.limits;
        for text in &go.searchmoves {
            match pos.parse_uci(text) {
                Ok(m) => limits.searchmoves.push(m),
                Err(e) => {
                    self.out.error(&format!("go searchmoves: {e}"));
                    return;
                }
            }
        }
        let control = Arc::new(SearchControl::new(
            &limits,
            pos.turn(),
            self.engine.move_overhead(),
        ));
        let job = self.engine.take_job();
        let game = self.game.clone();
        let out = self.out.clone();
        let thread_control = Arc::clone(&control);
        let answered = Arc::new(AtomicBool::new(false));
        let thread_answered = Arc::clone(&answered);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || search_thread(job, game, limits, thread_control, out, &thread_answered));
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    control,
                    answered,
                    handle,
                })
            }
            Err(e) => {
                self.out
                    .error(&format!("go: cannot start the search thread: {e}"));
                self.engine.return_backend(None);
            }
        }
    }
}

/// Body of the search thread: search, hold the answer while pondering or infinite, then
/// print `bestmove` and hand the backend back.
fn search_thread(
    mut job: SearchJob,
    game: Game,
    limits: crate::search::Limits,
    control: Arc<SearchControl>,
    out: Output,
    answered: &AtomicBool,
) -> Box<dyn Backend> {
    let result = job.run(&game, &limits, &control, &out);
    let root = game.position();
    if result.best.is_none() {
        // No legal move: say why before the empty bestmove.
        let value = if root.is_check() { mated_in(0) } else { DRAW };
        out.line(&format!(
            "info depth 0 {}",
            format_score(value, Bound::Exact)
        ));
    }
    control.wait_until_released();
    let best = result.best.map(|m| root.to_uci(m));
    let ponder = result.best.zip(result.ponder).and_then(|(b, p)| {
        let after = root.play(b);
        legal_here(&after, p).then(|| after.to_uci(p))
    });
    answered.store(true, Ordering::Release);
    out.line(&format_bestmove(best.as_ref(), ponder.as_ref()));
    job.backend
}

/// Guards the ponder move: a move from a table can be stale.
fn legal_here(pos: &Position, m: Move) -> bool {
    pos.legal_moves().contains(&m)
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shutdown();
    }
}
