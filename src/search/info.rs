//! Progress reports. Backends describe what they found as [`Info`] values and hand them to
//! an [`InfoSink`]; only the UCI layer turns them into text.

use std::sync::Mutex;
use std::time::Duration;

use shakmaty::uci::UciMove;

use crate::value::{Bound, Value};

/// One progress report, normally sent after each completed iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    pub depth: u32,
    /// Which root line this is, from 1 (best) to `MultiPV`.
    pub multipv: u32,
    pub seldepth: u32,
    pub score: Value,
    pub bound: Bound,
    pub nodes: u64,
    pub time: Duration,
    /// Permille of the table in use, for backends that have one.
    pub hashfull: Option<u32>,
    /// Positions the endgame tables settled, when tables are loaded.
    pub tbhits: Option<u64>,
    pub pv: Vec<UciMove>,
    /// Win/draw/loss permille for the side to move, when `UCI_ShowWDL` asks for it.
    pub wdl: Option<[u32; 3]>,
}

impl Info {
    /// Nodes per second over the whole search so far.
    pub fn nps(&self) -> u64 {
        let micros = self.time.as_micros().max(1);
        (self.nodes as u128 * 1_000_000 / micros) as u64
    }
}

/// Where a search sends its reports.
pub trait InfoSink: Sync {
    /// A search report.
    fn info(&self, info: &Info);
    /// A message for the user (`info string ...` in UCI).
    fn message(&self, text: &str);
    /// The root move now being searched (`number` from 1), for searches long enough that
    /// the user wants to see progress inside an iteration.
    fn current_move(&self, _depth: u32, _mv: &UciMove, _number: u32) {}
}

/// Drops every report: bench, tests and experiments that only want the result.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl InfoSink for Silent {
    fn info(&self, _: &Info) {}
    fn message(&self, _: &str) {}
}

/// Keeps every report: tests that inspect what a search said.
#[derive(Debug, Default)]
pub struct Recorder {
    pub infos: Mutex<Vec<Info>>,
    pub messages: Mutex<Vec<String>>,
}

impl InfoSink for Recorder {
    fn info(&self, info: &Info) {
        if let Ok(mut v) = self.infos.lock() {
            v.push(info.clone());
        }
    }
    fn message(&self, text: &str) {
        if let Ok(mut v) = self.messages.lock() {
            v.push(text.to_string());
        }
    }
}
