//! A player for matches and test suites: an in-process [`Engine`] or an external UCI
//! engine behind the same small interface — set up from an [`EngineSpec`], asked for a
//! move under limits.

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Move};

use thiserror::Error;

use super::spec::{EngineKind, EngineSpec};
use super::uci_client::{Client, ClientError, RawTurn, note_turn};
use crate::board::Game;
use crate::engine::{Engine, EngineError, SEARCH};
use crate::search::Limits;
use crate::search::info::{Info, InfoSink};
use crate::value::UciScore;

/// Why a player could not be started or set up.
#[derive(Debug, Error)]
pub enum PlayerError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// How long an external engine may take to start and answer `isready`.
const STARTUP: Duration = Duration::from_secs(10);

/// Why a player failed to give a move: the reason a game is forfeited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThinkError {
    /// No answer before the deadline (and the grace after `stop`).
    Timeout,
    /// The engine process exited.
    Crashed,
    /// A `bestmove` that is not a legal move here (garbage included).
    Illegal(String),
    /// Anything else: a malformed reply, a broken pipe, no legal move.
    Other(String),
}

impl std::fmt::Display for ThinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThinkError::Timeout => write!(f, "engine did not answer in time"),
            ThinkError::Crashed => write!(f, "engine crashed"),
            ThinkError::Illegal(m) => write!(f, "illegal move {m}"),
            ThinkError::Other(e) => write!(f, "{e}"),
        }
    }
}

impl From<ClientError> for ThinkError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Timeout(_) => ThinkError::Timeout,
            ClientError::Exited | ClientError::Write(_) => ThinkError::Crashed,
            other => ThinkError::Other(other.to_string()),
        }
    }
}

/// A move and what the player said about it.
#[derive(Debug, Clone)]
pub struct Thought {
    pub best: Move,
    pub score: Option<UciScore>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// How the main line's first move changed during the search, in order.
    pub turns: Vec<Turn>,
}

/// The main line began with another move: when (since the search began), at what depth,
/// and the move (`None` for one that is not legal here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub at: Duration,
    pub depth: Option<u32>,
    pub first: Option<Move>,
}

/// Keeps the turns of an in-process search's main line, as the UCI client keeps an
/// external engine's: the time, the depth and the move as UCI text.
#[derive(Default)]
struct Turns(Mutex<Vec<RawTurn>>);

impl InfoSink for Turns {
    fn info(&self, info: &Info) {
        let (Some(first), true) = (info.pv.first(), info.multipv <= 1) else {
            return;
        };
        if let Ok(mut turns) = self.0.lock() {
            note_turn(&mut turns, info.time, Some(info.depth), &first.to_string());
        }
    }
    fn message(&self, _: &str) {}
}

enum Inner {
    Local(Box<Engine>),
    External(Client),
}

/// A player ready to think.
pub struct Player {
    pub name: String,
    inner: Inner,
}

impl Player {
    /// Starts the player a specification describes, with its options set.
    pub fn start(spec: &EngineSpec) -> Result<Self, PlayerError> {
        let inner = match &spec.kind {
            EngineKind::Local { backend } => {
                let mut engine = Engine::new();
                engine.set_option(SEARCH.name(), Some(backend))?;
                for (name, value) in &spec.options {
                    engine.set_option(name, Some(value))?;
                }
                Inner::Local(Box::new(engine))
            }
            EngineKind::External { program, args } => {
                let mut client = Client::start(program, args)?;
                client.handshake(STARTUP)?;
                for (name, value) in &spec.options {
                    client.set_option(name, value)?;
                }
                client.sync(STARTUP)?;
                Inner::External(client)
            }
        };
        Ok(Player {
            name: spec.name.clone(),
            inner,
        })
    }

    /// True for an external engine (a child process).
    pub fn is_external(&self) -> bool {
        matches!(self.inner, Inner::External(_))
    }

    /// Tells the player a new game starts.
    pub fn new_game(&mut self) -> Result<(), ClientError> {
        match &mut self.inner {
            Inner::Local(engine) => {
                engine.new_game();
                Ok(())
            }
            Inner::External(client) => {
                client.send("ucinewgame")?;
                client.sync(STARTUP)
            }
        }
    }

    /// Asks for a move in the game's current position. `deadline` bounds how long an
    /// external engine may take before it is stopped (and then forfeits if still silent).
    pub fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        deadline: Duration,
    ) -> Result<Thought, ThinkError> {
        match &mut self.inner {
            Inner::Local(engine) => {
                let turns = Turns::default();
                // A panic in an in-process backend loses its game, as a crash of an engine
                // process does, and the match goes on: the engine searches with a fresh
                // backend next time.
                let result = catch_unwind(AssertUnwindSafe(|| engine.search(game, limits, &turns)))
                    .map_err(|_| ThinkError::Crashed)?;
                let best = result
                    .best
                    .ok_or_else(|| ThinkError::Other("no legal move".into()))?;
                let turns = turns.0.into_inner().unwrap_or_default();
                Ok(Thought {
                    best,
                    score: Some(UciScore::from_value(result.value)),
                    depth: Some(result.depth),
                    nodes: Some(result.nodes),
                    turns: read_turns(game, &turns),
                })
            }
            Inner::External(client) => {
                let reply = client.search(
                    &position_command(game),
                    &go_command(limits),
                    deadline,
                    Duration::from_millis(500),
                )?;
                let best = game
                    .position()
                    .parse_uci(&reply.bestmove)
                    .map_err(|_| ThinkError::Illegal(reply.bestmove.clone()))?;
                Ok(Thought {
                    best,
                    score: reply.report.score,
                    depth: reply.report.depth,
                    nodes: reply.report.nodes,
                    turns: read_turns(game, &reply.report.turns),
                })
            }
        }
    }
}

/// The turns of a main line with their moves read in the game's position, as its
/// `bestmove` is.
fn read_turns(game: &Game, turns: &[RawTurn]) -> Vec<Turn> {
    turns
        .iter()
        .map(|(at, depth, m)| Turn {
            at: *at,
            depth: *depth,
            first: game.position().parse_uci(m).ok(),
        })
        .collect()
}

/// `position fen <start> moves ...` for a game.
pub fn position_command(game: &Game) -> String {
    let start = Fen::from_position(game.start().chess(), EnPassantMode::Legal);
    let mut s = format!("position fen {start}");
    if !game.moves().is_empty() {
        s.push_str(" moves");
        for m in game.start().uci_line(game.moves()) {
            let _ = write!(s, " {m}");
        }
    }
    s
}

/// `go ...` for limits.
pub fn go_command(limits: &Limits) -> String {
    let mut s = String::from("go");
    let ms = |d: Duration| d.as_millis();
    if let Some(d) = limits.depth {
        let _ = write!(s, " depth {d}");
    }
    if let Some(n) = limits.nodes {
        let _ = write!(s, " nodes {n}");
    }
    if let Some(t) = limits.movetime {
        let _ = write!(s, " movetime {}", ms(t));
    }
    for (key, value) in [
        ("wtime", limits.wtime),
        ("btime", limits.btime),
        ("winc", limits.winc),
        ("binc", limits.binc),
    ] {
        if let Some(t) = value {
            let _ = write!(s, " {key} {}", ms(t));
        }
    }
    if let Some(n) = limits.movestogo {
        let _ = write!(s, " movestogo {n}");
    }
    if s == "go" {
        s.push_str(" infinite");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    #[test]
    fn commands_for_an_external_engine() {
        let game = Game::from_uci_moves(Position::startpos(), &["e2e4", "e7e5"]).unwrap();
        assert_eq!(
            position_command(&game),
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5"
        );
        let limits = Limits {
            wtime: Some(Duration::from_millis(1500)),
            btime: Some(Duration::from_millis(900)),
            movestogo: Some(7),
            ..Limits::default()
        };
        assert_eq!(go_command(&limits), "go wtime 1500 btime 900 movestogo 7");
        assert_eq!(go_command(&Limits::default()), "go infinite");
    }

    #[test]
    fn a_local_player_whose_search_panics_crashes_and_recovers() {
        use crate::search::testing::Broken;
        let mut player = Player {
            name: "broken".into(),
            inner: Inner::Local(Box::new(Engine::with_backend(Box::new(Broken)))),
        };
        let game = Game::new(Position::startpos());
        let think = |p: &mut Player| p.think(&game, &Limits::depth(2), Duration::from_secs(10));
        assert!(matches!(think(&mut player), Err(ThinkError::Crashed)));
        // The broken backend is gone; the selected one (pvs) plays the next move.
        assert_eq!(think(&mut player).unwrap().depth, Some(2));
    }

    #[test]
    fn a_local_player_reports_a_typed_score() {
        let spec = EngineSpec::parse("pvs").unwrap();
        let mut player = Player::start(&spec).unwrap();
        let mated_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
        let pos = Position::from_fen(mated_in_one, shakmaty::CastlingMode::Standard).unwrap();
        let thought = player
            .think(&Game::new(pos), &Limits::depth(3), Duration::from_secs(10))
            .unwrap();
        assert_eq!(thought.score, Some(UciScore::Mate(1)));
        assert!(
            EngineSpec::parse("nonsense")
                .map(|s| Player::start(&s))
                .is_ok_and(|p| p.is_err())
        );
    }
}
