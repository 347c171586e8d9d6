//! A player for the tools: an in-process [`Engine`] or an external UCI engine behind the
//! same small interface — set up from an [`EngineSpec`], asked for a move under limits.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::fmt::Write as _;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Move};

use super::spec::{EngineKind, EngineSpec};
use crate::board::Game;
use crate::engine::Engine;
use crate::search::Limits;
use crate::search::info::Silent;
use crate::search::score::UciScore;
use crate::uci::client::{Client, ClientError};

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
    /// `cp N` or `mate N`, if reported.
    pub score: Option<String>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
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
    pub fn start(spec: &EngineSpec) -> Result<Self, String> {
        let inner = match &spec.kind {
            EngineKind::Local { backend } => {
                let mut engine = Engine::new();
                engine.set_option("Search", Some(backend))?;
                for (name, value) in &spec.options {
                    engine.set_option(name, Some(value))?;
                }
                Inner::Local(Box::new(engine))
            }
            EngineKind::External { program, args } => {
                let mut client = Client::start(program, args).map_err(|e| e.to_string())?;
                client.handshake(STARTUP).map_err(|e| e.to_string())?;
                for (name, value) in &spec.options {
                    client.set_option(name, value).map_err(|e| e.to_string())?;
                }
                client.sync(STARTUP).map_err(|e| e.to_string())?;
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
    pub fn new_game(&mut self) -> Result<(), String> {
        match &mut self.inner {
            Inner::Local(engine) => {
                engine.new_game();
                Ok(())
            }
            Inner::External(client) => {
                client.send("ucinewgame").map_err(|e| e.to_string())?;
                client.sync(STARTUP).map_err(|e| e.to_string())
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
                let result = engine.search(game, limits, &Silent);
                let best = result
                    .best
                    .ok_or_else(|| ThinkError::Other("no legal move".into()))?;
                let score = match UciScore::from_value(result.value) {
                    UciScore::Cp(cp) => format!("cp {cp}"),
                    UciScore::Mate(n) => format!("mate {n}"),
                };
                Ok(Thought {
                    best,
                    score: Some(score),
                    depth: Some(result.depth),
                    nodes: Some(result.nodes),
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
                })
            }
        }
    }
}

/// `position fen <start> moves ...` for a game.
pub fn position_command(game: &Game) -> String {
    let start = Fen::from_position(game.start().chess(), EnPassantMode::Legal);
    let mut s = format!("position fen {start}");
    if !game.moves().is_empty() {
        s.push_str(" moves");
        let mut pos = game.start().clone();
        for &m in game.moves() {
            let _ = write!(s, " {}", pos.to_uci(m));
            pos = pos.play(m);
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
