//! A UCI session: the game the GUI set up and the [`Engine`], which runs the search
//! thread. The input thread calls [`Session::handle`] for every line and is never blocked
//! by a running search: `isready` is answered while one runs, and `stop` and `quit` wait
//! only for it to wind down (a millisecond or so), so its `bestmove` comes first.

use std::time::Duration;

use shakmaty::Move;

use super::command::{Command, Go, Start, parse};
use super::debug;
use super::output::{Output, format_bestmove, format_option, format_score};
use crate::board::{Game, Position};
use crate::engine::{DEBUG_LOG_FILE, Engine, named_path};
use crate::search::SearchResult;
use crate::value::Bound;
use crate::{ENGINE_AUTHOR, ENGINE_NAME};

/// How long a `go` searches when its errors left it without any limit.
const FALLBACK_MOVETIME: Duration = Duration::from_millis(1000);

/// Whether the input loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The protocol state behind one GUI connection.
pub struct Session {
    out: Output,
    engine: Engine,
    game: Game,
}

impl Session {
    /// A session with default options and the start position.
    pub fn new(out: Output) -> Self {
        Self::with_engine(out, Engine::new())
    }

    /// A session over an engine of the caller's.
    pub fn with_engine(out: Output, engine: Engine) -> Self {
        Session {
            out,
            engine,
            game: Game::new(Position::startpos()),
        }
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        self.out.received(line);
        let flow = match parse(line) {
            Ok(command) => self.execute(command),
            Err(e) => {
                self.out.error(&e.to_string());
                Flow::Continue
            }
        };
        // Options set while a search ran are applied when it ends, which this line may
        // have caused (`stop`, `go`, `setoption`).
        if let Some(e) = self.engine.take_deferred_error() {
            self.out.error(&e);
        }
        flow
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
                if name.eq_ignore_ascii_case(DEBUG_LOG_FILE.name())
                    && let Err(e) = self.transcribe_to(value.as_deref())
                {
                    self.out.error(&e);
                    return Flow::Continue;
                }
                match self.engine.set_option(&name, value.as_deref()) {
                    Ok(()) => {
                        if let Some(note) = self.engine.take_notice() {
                            self.out.message(&note);
                        }
                    }
                    Err(e) => self.out.error(&e.to_string()),
                }
            }
            Command::UciNewGame => {
                self.engine.new_game();
                self.game = Game::new(self.start_position());
            }
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(go) => self.go(go),
            // Waiting for the search thread puts its `bestmove` before the answer to anything
            // sent after `stop`: a GUI that syncs with `isready` and then starts the next
            // search never reads the old search's move as the new one's. The wait is short,
            // since every backend checks the flag within a millisecond or so.
            Command::Stop => self.engine.halt(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.shutdown();
                return Flow::Quit;
            }
            Command::Empty | Command::Register => {}
            Command::Perft(depth) => self.print(debug::perft(self.game.position(), depth)),
            Command::Display => self.print(debug::display(self.game.position())),
            Command::Eval => {
                let (name, evaluator) = self.engine.evaluator();
                self.print(debug::eval(self.game.position(), name, evaluator));
            }
        }
        Flow::Continue
    }

    /// `Debug Log File`: the transcript goes to the file named from now on (no file for
    /// `<empty>`); one that cannot be opened is refused and the transcript kept as it was.
    fn transcribe_to(&self, value: Option<&str>) -> Result<(), String> {
        let path = value.and_then(named_path);
        self.out.transcribe_to(path).map_err(|e| {
            let path = path.unwrap_or_default();
            format!("Debug Log File: cannot open {path}: {e}; the log in use is kept")
        })
    }

    fn print(&self, lines: Vec<String>) {
        for line in lines {
            self.out.line(&line);
        }
    }

    /// Stops any search and waits for its thread (which prints its `bestmove`).
    pub fn shutdown(&mut self) {
        self.engine.halt();
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

    /// Every `go` ends in a `bestmove`, the GUI waits for it: what could not be read is
    /// reported and left out, and a `go` left without any limit by its errors searches for
    /// [`FALLBACK_MOVETIME`] rather than forever.
    fn go(&mut self, go: Go) {
        let pos = self.game.position();
        let mut limits = go.limits;
        let mut faulty = !go.errors.is_empty();
        for e in &go.errors {
            self.out.error(&format!("{e}; searching with the rest"));
        }
        for text in &go.searchmoves {
            match pos.parse_uci(text) {
                Ok(m) => limits.searchmoves.push(m),
                Err(e) => {
                    faulty = true;
                    self.out
                        .error(&format!("go searchmoves: {e}; move left out"));
                }
            }
        }
        if faulty && limits.is_unbounded() {
            limits.movetime = Some(FALLBACK_MOVETIME);
        }
        let out = self.out.clone();
        let sink = Box::new(self.out.clone());
        let started = self
            .engine
            .go(self.game.clone(), limits, sink, move |game, result| {
                answer(&out, game, &result);
            });
        if let Err(e) = started {
            self.out.error(&format!("go: {e}"));
        }
    }
}

/// `bestmove` (and `ponder`), after the search thread's result: a position without a
/// legal move says why before the empty `bestmove`.
fn answer(out: &Output, game: &Game, result: &SearchResult) {
    let root = game.position();
    if result.best.is_none() {
        out.line(&format!(
            "info depth 0 {}",
            format_score(result.value, Bound::Exact)
        ));
    }
    let best = result.best.map(|m| root.to_uci(m));
    let ponder = result.best.zip(result.ponder).and_then(|(b, p)| {
        let after = root.play(b);
        legal_here(&after, p).then(|| after.to_uci(p))
    });
    out.line(&format_bestmove(best.as_ref(), ponder.as_ref()));
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

#[cfg(test)]
mod tests;
