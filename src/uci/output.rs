//! Everything the engine writes to the GUI. One locked writer, one whole line per write,
//! so reports from search threads never interleave with answers from the input thread.
//! The same lock keeps the transcript (`Debug Log File`) in the order the GUI saw.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Mutex};

use shakmaty::uci::UciMove;

use crate::options::{OptionDecl, OptionKind};
use crate::search::info::{Info, InfoSink};
use crate::value::{Bound, UciScore, Value};

/// A shared, line-atomic protocol writer.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Sink>>,
}

struct Sink {
    writer: Box<dyn Write + Send>,
    /// Every line in and out, as `>> ` and `<< ` lines, while `Debug Log File` names one.
    transcript: Option<File>,
}

impl Sink {
    fn transcribe(&mut self, direction: &str, text: &str) {
        let Some(file) = &mut self.transcript else {
            return;
        };
        // One write per line: the engines of a match may append to the same file, and a
        // line written in pieces could be split by another process's.
        let line = format!("{direction} {text}\n");
        if let Err(e) = file.write_all(line.as_bytes()) {
            // A full disk must not stop the engine; the transcript ends there.
            log::warn!("cannot write to the debug log file: {e}; logging stopped");
            self.transcript = None;
        }
    }
}

impl Output {
    /// Writes to standard output.
    pub fn stdout() -> Self {
        Self::new(Box::new(std::io::stdout()))
    }

    pub fn new(writer: Box<dyn Write + Send>) -> Self {
        Output {
            sink: Arc::new(Mutex::new(Sink {
                writer,
                transcript: None,
            })),
        }
    }

    /// Writes one protocol line and flushes. A closed pipe is not the engine's failure:
    /// the error is logged, never a panic.
    pub fn line(&self, text: &str) {
        let Ok(mut sink) = self.sink.lock() else {
            return;
        };
        sink.transcribe("<<", text);
        let w = &mut sink.writer;
        if let Err(e) = writeln!(w, "{text}").and_then(|()| w.flush()) {
            log::debug!("cannot write to the GUI: {e}");
        }
    }

    /// Notes a line the GUI sent, in the transcript if one is kept.
    pub fn received(&self, text: &str) {
        if let Ok(mut sink) = self.sink.lock() {
            sink.transcribe(">>", text);
        }
    }

    /// Keeps a transcript of the conversation in `path` from now on, appended to what the
    /// file holds (several engines of one match may share it), or none for `None`.
    pub fn transcribe_to(&self, path: Option<&str>) -> std::io::Result<()> {
        let file = match path {
            Some(path) => Some(File::options().create(true).append(true).open(path)?),
            None => None,
        };
        if let Ok(mut sink) = self.sink.lock() {
            sink.transcript = file;
        }
        Ok(())
    }

    /// `info string ...`: a message the user should see.
    pub fn message(&self, text: &str) {
        self.line(&format!("info string {}", one_line(text)));
    }

    /// `info string error: ...`: a rejected input line.
    pub fn error(&self, text: &str) {
        self.line(&format!("info string error: {}", one_line(text)));
    }
}

impl InfoSink for Output {
    fn info(&self, info: &Info) {
        self.line(&format_info(info));
    }

    fn message(&self, text: &str) {
        Output::message(self, text);
    }

    fn current_move(&self, depth: u32, mv: &UciMove, number: u32) {
        self.line(&format!(
            "info depth {depth} currmove {mv} currmovenumber {number}"
        ));
    }
}

/// A protocol line must be one printable line, whatever input text it quotes: line breaks
/// and tabs become spaces, other control characters (NUL, escape sequences) `?`.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => ' ',
            c if c.is_control() => '?',
            c => c,
        })
        .collect()
}

/// `score cp 35` / `score mate -3`, with `lowerbound`/`upperbound` for window failures.
pub fn format_score(value: Value, bound: Bound) -> String {
    let mut s = match UciScore::from_value(value) {
        UciScore::Cp(cp) => format!("score cp {cp}"),
        UciScore::Mate(n) => format!("score mate {n}"),
    };
    match bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact => {}
    }
    s
}

/// One `info` line.
pub fn format_info(info: &Info) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} {}",
        info.depth,
        info.seldepth.max(info.depth),
        info.multipv.max(1),
        format_score(info.score, info.bound),
    );
    if let Some([w, d, l]) = info.wdl {
        let _ = write!(s, " wdl {w} {d} {l}");
    }
    let _ = write!(s, " nodes {} nps {}", info.nodes, info.nps());
    if let Some(h) = info.hashfull {
        let _ = write!(s, " hashfull {h}");
    }
    if let Some(t) = info.tbhits {
        let _ = write!(s, " tbhits {t}");
    }
    let _ = write!(s, " time {}", info.time.as_millis());
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for m in &info.pv {
            let _ = write!(s, " {m}");
        }
    }
    s
}

/// `bestmove ...`, or `bestmove (none)` when the position has no legal move.
pub fn format_bestmove(best: Option<&UciMove>, ponder: Option<&UciMove>) -> String {
    match (best, ponder) {
        (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
        (Some(b), None) => format!("bestmove {b}"),
        (None, _) => "bestmove (none)".to_string(),
    }
}

/// The `option name ...` line that declares an option to the GUI.
pub fn format_option(decl: &OptionDecl) -> String {
    let name = decl.name;
    match &decl.kind {
        OptionKind::Check { default } => format!("option name {name} type check default {default}"),
        OptionKind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        OptionKind::Combo { default, vars } => {
            let mut s = format!("option name {name} type combo default {default}");
            for v in *vars {
                let _ = write!(s, " var {v}");
            }
            s
        }
        OptionKind::Button => format!("option name {name} type button"),
        OptionKind::String { default } => {
            let shown = if default.is_empty() {
                "<empty>"
            } else {
                default
            };
            format!("option name {name} type string default {shown}")
        }
        OptionKind::Float { default, .. } => {
            format!("option name {name} type string default {default}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::mate_in;
    use std::time::Duration;

    #[test]
    fn info_line_has_every_field_in_order() {
        let info = Info {
            depth: 5,
            multipv: 2,
            seldepth: 9,
            score: 35,
            bound: Bound::Lower,
            nodes: 1000,
            time: Duration::from_millis(500),
            hashfull: Some(12),
            tbhits: Some(3),
            pv: vec!["e2e4".parse().unwrap(), "e7e5".parse().unwrap()],
            wdl: Some([120, 800, 80]),
        };
        assert_eq!(
            format_info(&info),
            "info depth 5 seldepth 9 multipv 2 score cp 35 lowerbound wdl 120 800 80 nodes 1000 nps 2000 hashfull 12 tbhits 3 time 500 pv e2e4 e7e5"
        );
    }

    #[test]
    fn quoted_input_stays_one_printable_line() {
        assert_eq!(
            one_line("bad 'a\nb\tc\u{0}d\u{1b}[2J'"),
            "bad 'a b c?d?[2J'"
        );
    }

    #[test]
    fn mate_scores_and_bestmove() {
        assert_eq!(format_score(mate_in(3), Bound::Exact), "score mate 2");
        assert_eq!(format_bestmove(None, None), "bestmove (none)");
    }
}
