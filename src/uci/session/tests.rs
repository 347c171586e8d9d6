//! The session over an engine with a scripted backend: the order of answers, and state kept
//! across bad input.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;
use crate::search::{Backend, SearchRequest};

/// Plays the last legal move at once.
struct Last;

impl Backend for Last {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        SearchResult {
            best: req.game.position().legal_moves().last().copied(),
            ..SearchResult::default()
        }
    }
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self) -> Vec<String> {
        let bytes = self.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Waits until a line starting with `prefix` has been written.
    fn wait_for(&self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let lines = self.lines();
            if lines.iter().any(|l| l.starts_with(prefix)) {
                return lines;
            }
            assert!(Instant::now() < deadline, "no '{prefix}' in {lines:?}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// What the scripted backend plays.
fn last_move(pos: &Position) -> String {
    let m = *pos.legal_moves().last().unwrap();
    pos.to_uci(m).to_string()
}

fn session() -> (Session, Captured) {
    let captured = Captured::default();
    let out = Output::new(Box::new(captured.clone()));
    let engine = Engine::with_backend(Box::new(Last));
    (Session::with_engine(out, engine), captured)
}

#[test]
fn isready_is_answered_while_an_infinite_search_holds_bestmove() {
    let (mut s, out) = session();
    s.handle("go infinite");
    s.handle("isready");
    let lines = out.wait_for("readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    s.handle("go depth 1");
    let lines = out.wait_for("info string error: go: a search is already running");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    s.handle("stop");
    let lines = out.wait_for("bestmove");
    let ready = lines.iter().position(|l| l == "readyok").unwrap();
    let best = lines
        .iter()
        .position(|l| l.starts_with("bestmove"))
        .unwrap();
    assert!(ready < best);
    assert_eq!(
        lines[best],
        format!("bestmove {}", last_move(&Position::startpos()))
    );
}

#[test]
fn bad_input_keeps_the_last_good_position() {
    let (mut s, out) = session();
    s.handle("position startpos moves e2e4");
    s.handle("position fen not/a/fen w - - 0 1");
    s.handle("position startpos moves e2e5");
    s.handle("go depth 1");
    let lines = out.wait_for("bestmove");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("info string error:"))
            .count(),
        2,
        "{lines:?}"
    );
    // Black's last legal move after 1.e4: the engine is still in that position.
    let after = Game::from_uci_moves(Position::startpos(), &["e2e4"]).unwrap();
    let expected = format!("bestmove {}", last_move(after.position()));
    assert_eq!(lines.last().unwrap(), &expected);
}

#[test]
fn uci_lists_every_declared_option_and_a_mated_root_says_why() {
    let (mut s, out) = session();
    s.handle("uci");
    let lines = out.wait_for("uciok");
    let options = lines
        .iter()
        .filter(|l| l.starts_with("option name "))
        .count();
    assert_eq!(options, crate::engine::option_declarations().len());
    s.handle("position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    s.handle("go depth 2");
    let lines = out.wait_for("bestmove");
    assert_eq!(lines[lines.len() - 2], "info depth 0 score mate 0");
    assert_eq!(lines[lines.len() - 1], "bestmove (none)");
}

#[test]
fn the_debug_log_file_keeps_both_sides_of_the_conversation_in_order() {
    let dir = std::env::temp_dir().join(format!("searchlight-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("uci.log");
    let _ = std::fs::remove_file(&log);
    let (mut s, out) = session();
    s.handle(&format!(
        "setoption name debug log file value {}",
        log.display()
    ));
    s.handle("isready");
    s.handle("go depth 1");
    out.wait_for("bestmove");
    // A file that cannot be opened is refused, and the transcript goes on where it was.
    s.handle("setoption name Debug Log File value /no/such/dir/uci.log");
    s.handle("setoption name Debug Log File value <empty>");
    s.handle("isready");
    let lines = out.wait_for("readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: Debug Log File: cannot open /no/such/dir")),
        "{lines:?}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    let best = format!("<< bestmove {}", last_move(&Position::startpos()));
    assert_eq!(
        kept,
        [
            ">> isready",
            "<< readyok",
            ">> go depth 1",
            best.as_str(),
            ">> setoption name Debug Log File value /no/such/dir/uci.log",
            kept[5],
            ">> setoption name Debug Log File value <empty>",
        ],
        "{text}"
    );
    assert!(kept[5].starts_with("<< info string error: Debug Log File"));
    std::fs::remove_dir_all(&dir).unwrap();
}
