//! Driving the built binary over pipes, as a GUI does.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use searchlight::matches::uci_client::Client;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

pub const WAIT: Duration = Duration::from_secs(30);

/// How long an answer that should come at once (`bestmove` after `stop`) may take before
/// the engine counts as hung. Latencies themselves are measured and printed, not asserted:
/// on a loaded two-core machine the scheduler, not the engine, decides them.
pub const HANG: Duration = Duration::from_secs(5);

/// The engine under test, started fresh.
pub struct Engine {
    pub client: Client,
}

impl Engine {
    pub fn start() -> Self {
        let client = Client::start(env!("CARGO_BIN_EXE_searchlight"), &[]).expect("engine starts");
        Engine { client }
    }

    /// Started and through the `uci` handshake.
    pub fn ready() -> Self {
        let mut e = Self::start();
        e.send("uci");
        e.expect("uciok");
        e
    }

    pub fn send(&mut self, line: &str) {
        self.client.send(line).expect("engine accepts input");
    }

    /// Reads lines until one equals `line` or starts with `line ` and returns all read.
    pub fn expect(&mut self, line: &str) -> Vec<String> {
        self.expect_within(line, WAIT)
    }

    pub fn expect_within(&mut self, line: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.client.next_line(left) {
                Ok(l) => {
                    let done = l == line || l.starts_with(&format!("{line} "));
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("waiting for '{line}': {e}; saw {seen:?}"),
            }
        }
    }

    /// Lines that arrive within `window` (for checking that nothing, or only an error, comes).
    pub fn lines_within(&mut self, window: Duration) -> Vec<String> {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        while let Ok(l) = self
            .client
            .next_line(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(l);
        }
        seen
    }

    /// `isready` answered: the engine is alive and has processed everything before.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect("readyok")
    }

    /// Sends `go ...`, waits for `bestmove`, checks every line, returns (lines, bestmove).
    pub fn go(&mut self, go: &str, pos: &Chess) -> (Vec<String>, String) {
        self.send(go);
        let lines = self.expect("bestmove");
        let best = check_search_output(&lines, pos);
        (lines, best)
    }
}

/// Parses a FEN (standard castling).
pub fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal")
}

/// A Chess960 position after UCI moves in king-takes-rook notation.
pub fn chess960(fen: &str, moves: &[&str]) -> Chess {
    let start = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Chess960)
        .expect("legal");
    play(start, moves)
}

/// Plays UCI moves from a position.
pub fn play(mut pos: Chess, moves: &[&str]) -> Chess {
    for m in moves {
        let m = m
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
    }
    pos
}

/// Checks a search's output: every `info` line is well formed, the `bestmove` is legal in
/// `pos` and so is its ponder move after it. Returns the best move.
pub fn check_search_output(lines: &[String], pos: &Chess) -> String {
    let mut best = None;
    for line in lines {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.first() {
            Some(&"info") => check_info(&tokens, pos),
            Some(&"bestmove") => {
                let m = tokens.get(1).expect("bestmove has a move");
                let parsed = m.parse::<UciMove>().expect("bestmove is UCI");
                let mv = parsed
                    .to_move(pos)
                    .unwrap_or_else(|_| panic!("illegal bestmove {m}"));
                if let (Some(&"ponder"), Some(p)) = (tokens.get(2), tokens.get(3)) {
                    let mut after = pos.clone();
                    after.play_unchecked(mv);
                    let p = p.parse::<UciMove>().expect("ponder is UCI");
                    assert!(p.to_move(&after).is_ok(), "illegal ponder move in {line}");
                }
                best = Some(m.to_string());
            }
            _ => panic!("unexpected line during search: {line}"),
        }
    }
    best.expect("a bestmove line")
}

/// An `info` line: known keys with well-formed values, and a legal pv.
fn check_info(tokens: &[&str], pos: &Chess) {
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" | "seldepth" | "multipv" | "nodes" | "nps" | "time" | "hashfull" | "tbhits" => {
                let v = tokens.get(i + 1).expect("value");
                v.parse::<u64>()
                    .unwrap_or_else(|_| panic!("bad {} in {tokens:?}", tokens[i]));
                i += 2;
            }
            "score" => {
                assert!(
                    matches!(tokens.get(i + 1), Some(&"cp") | Some(&"mate")),
                    "{tokens:?}"
                );
                tokens[i + 2].parse::<i32>().expect("score value");
                i += 3;
                if matches!(tokens.get(i), Some(&"lowerbound") | Some(&"upperbound")) {
                    i += 1;
                }
            }
            "pv" => {
                let mut p = pos.clone();
                for m in &tokens[i + 1..] {
                    let mv = m
                        .parse::<UciMove>()
                        .expect("pv move is UCI")
                        .to_move(&p)
                        .unwrap_or_else(|_| panic!("illegal pv move {m} in {tokens:?}"));
                    p.play_unchecked(mv);
                }
                return;
            }
            "string" => return,
            other => panic!("unknown info key {other} in {tokens:?}"),
        }
    }
}

/// A path for a test's file under the system's temporary directory, named by the process
/// and `name`, with any file a previous run left there removed.
pub fn temp(name: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("searchlight-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// A directory of its own under the system's temporary directory, removed when dropped, so
/// that test runs leave nothing behind (even when an assertion fails).
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// `tag` keeps concurrently running tests of one binary apart.
    pub fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("searchlight-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Scratch(dir)
    }

    pub fn file(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
