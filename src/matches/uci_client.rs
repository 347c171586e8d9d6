//! The client side of UCI: driving an external engine (Stockfish, GNU Chess, another
//! Searchlight) as a child process. Every wait has a deadline, so an engine that
//! hangs or dies is an error for the caller, never a hang; dropping the client ends the
//! process and reaps it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam::channel::{Receiver, RecvTimeoutError, unbounded};
use thiserror::Error;

use crate::value::UciScore;

/// What went wrong with an external engine.
#[derive(Debug, Error)]
pub enum ClientError {
    #[error("cannot start '{program}': {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("engine did not answer '{0}' in time")]
    Timeout(String),
    #[error("engine exited")]
    Exited,
    #[error("cannot write to engine: {0}")]
    Write(std::io::Error),
    #[error("engine sent a malformed reply: {0}")]
    Protocol(String),
}

/// The last search report seen before `bestmove`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub depth: Option<u32>,
    pub score: Option<UciScore>,
    pub nodes: Option<u64>,
    /// Each time the main line (`multipv 1`) began with another move.
    pub turns: Vec<RawTurn>,
}

/// A turn of the main line as reported: the time since the search began, the depth of
/// the line and its first move as UCI text.
pub type RawTurn = (Duration, Option<u32>, String);

/// Records a turn of the main line, unless it still begins with the last turn's move.
pub fn note_turn(turns: &mut Vec<RawTurn>, at: Duration, depth: Option<u32>, first: &str) {
    if turns.last().is_none_or(|(_, _, m)| m != first) {
        turns.push((at, depth, first.to_string()));
    }
}

/// An engine's answer to `go`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub bestmove: String,
    pub ponder: Option<String>,
    pub report: Report,
}

/// A running external UCI engine.
pub struct Client {
    /// The `id name` the engine announced (the program path until the handshake).
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `program(pid)`, naming the engine in the traffic log.
    who: String,
}

impl Client {
    /// Starts `program args...` with piped stdin/stdout (stderr is discarded).
    pub fn start(program: &str, args: &[String]) -> Result<Self, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| ClientError::Spawn {
                program: program.to_string(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ClientError::Exited);
        };
        let (tx, lines) = unbounded();
        // Each line both ways is logged at trace level under the target `uci`, as
        // cutechess-cli's `-debug` prints them: `RUST_LOG=uci=trace searchlight match ...`.
        let who = format!("{program}({})", child.id());
        let reader_who = who.clone();
        // The reader thread ends when the engine closes its stdout.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        log::trace!(target: "uci", "<{reader_who}: {line}");
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(Client {
            name: program.to_string(),
            child,
            stdin,
            lines,
            who,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        log::trace!(target: "uci", ">{}: {line}", self.who);
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(ClientError::Write)
    }

    /// The next line the engine writes, waiting at most `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Result<String, ClientError> {
        self.lines.recv_timeout(timeout).map_err(|e| match e {
            RecvTimeoutError::Timeout => ClientError::Timeout("a line".into()),
            RecvTimeoutError::Disconnected => ClientError::Exited,
        })
    }

    /// The engine's process id (tests read its memory use from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True once the engine process has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Reads lines until `accept` returns `Some`, or the deadline passes.
    fn read_until<T>(
        &mut self,
        what: &str,
        timeout: Duration,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(v) = accept(&line) {
                        return Ok(v);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(ClientError::Timeout(what.into())),
                Err(RecvTimeoutError::Disconnected) => return Err(ClientError::Exited),
            }
        }
    }

    /// `uci` … `uciok`, remembering the engine's name.
    pub fn handshake(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send("uci")?;
        let mut name = None;
        self.read_until("uci", timeout, |line| {
            if let Some(n) = line.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            }
            (line.trim() == "uciok").then_some(())
        })?;
        if let Some(n) = name {
            self.name = n;
        }
        Ok(())
    }

    /// `isready` … `readyok`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send("isready")?;
        self.read_until("isready", timeout, |line| {
            (line.trim() == "readyok").then_some(())
        })
    }

    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), ClientError> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    /// Sends `position` and `go`, and waits for `bestmove`. If the deadline passes the
    /// engine is told to stop and given `grace` more to answer.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        timeout: Duration,
        grace: Duration,
    ) -> Result<Reply, ClientError> {
        self.send(position)?;
        self.send(go)?;
        let sent = Instant::now();
        let mut report = Report::default();
        let mut take = |line: &str| -> Option<Result<Reply, ClientError>> {
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("info") => {
                    note_info(line, &mut report);
                    if let Some(first) = main_line_first_move(line) {
                        note_turn(&mut report.turns, sent.elapsed(), report.depth, first);
                    }
                    None
                }
                Some("bestmove") => Some(match tokens.next() {
                    Some(m) => {
                        let ponder = match (tokens.next(), tokens.next()) {
                            (Some("ponder"), Some(p)) => Some(p.to_string()),
                            _ => None,
                        };
                        Ok(Reply {
                            bestmove: m.to_string(),
                            ponder,
                            report: report.clone(),
                        })
                    }
                    None => Err(ClientError::Protocol(line.to_string())),
                }),
                _ => None,
            }
        };
        match self.read_until("go", timeout, &mut take) {
            Err(ClientError::Timeout(_)) => {
                self.send("stop")?;
                self.read_until("stop", grace, &mut take)?
            }
            other => other?,
        }
    }

    /// Asks the engine to quit, then makes sure the process is gone and reaped.
    pub fn quit(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Keeps depth, score and nodes from an `info` line.
fn note_info(line: &str, report: &mut Report) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => report.depth = tokens.get(i + 1).and_then(|t| t.parse().ok()),
            "nodes" => report.nodes = tokens.get(i + 1).and_then(|t| t.parse().ok()),
            "score" => {
                let value = tokens.get(i + 2).and_then(|v| v.parse::<i32>().ok());
                report.score = match (tokens.get(i + 1), value) {
                    (Some(&"cp"), Some(v)) => Some(UciScore::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(UciScore::Mate(v)),
                    _ => report.score,
                };
                i += 2;
            }
            "pv" | "string" => break,
            _ => {}
        }
        i += 1;
    }
}

/// The first move of an `info` line's principal variation, if the line has one and it is
/// the main line (no `multipv`, or `multipv 1`).
fn main_line_first_move(line: &str) -> Option<&str> {
    let mut tokens = line.split_whitespace();
    let mut main = true;
    while let Some(t) = tokens.next() {
        match t {
            "multipv" => main = tokens.next() == Some("1"),
            "pv" => return tokens.next().filter(|_| main),
            "string" => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_line_first_move_is_read_and_other_lines_are_not() {
        let first = main_line_first_move;
        assert_eq!(first("info depth 3 score cp 5 pv e2e4 e7e5"), Some("e2e4"));
        assert_eq!(
            first("info depth 3 multipv 1 score cp 5 pv d2d4"),
            Some("d2d4")
        );
        assert_eq!(first("info depth 3 multipv 2 score cp 1 pv c2c4"), None);
        assert_eq!(first("info depth 3 score cp 5 nodes 10"), None);
        assert_eq!(first("info string pv e2e4"), None);
        assert_eq!(first("info depth 3 pv"), None);
    }

    #[test]
    fn info_lines_keep_depth_nodes_and_a_typed_score() {
        let mut r = Report::default();
        note_info(
            "info depth 12 seldepth 20 score cp -35 nodes 1000 pv e2e4",
            &mut r,
        );
        assert_eq!(r.depth, Some(12));
        assert_eq!(r.nodes, Some(1000));
        assert_eq!(r.score, Some(UciScore::Cp(-35)));
        note_info("info depth 13 score mate 3 lowerbound nodes 2000", &mut r);
        assert_eq!(r.score, Some(UciScore::Mate(3)));
        note_info("info string score cp 1", &mut r);
        assert_eq!(r.score, Some(UciScore::Mate(3)));
    }
}
