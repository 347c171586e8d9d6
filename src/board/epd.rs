//! Position files, read one way everywhere (`perft --suite`, `epd`, `traps --epd`, match
//! openings): one position per line, as EPD (four fields) or FEN (six), then operations
//! separated by `;` — `bm Qg6; id "WAC.001";` in a test suite, `;D1 20 ;D2 400` in a perft
//! suite. Blank lines and `#` comments are skipped, a UTF-8 byte-order mark is dropped,
//! the castling mode is read off the castling rights (Chess960 when only Chess960 explains
//! them), and an error names its line.
//!
//! Also the test-suite record: the moves `bm` and `am` name, resolved in the position.

use shakmaty::Move;
use shakmaty::san::San;
use thiserror::Error;

use super::position::{Position, PositionError};

/// One operation: an opcode and its operands as written (quotes kept off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub code: String,
    pub operands: String,
}

/// One position of a file.
#[derive(Debug, Clone)]
pub struct PositionLine {
    /// 1-based line number in the file.
    pub line: usize,
    pub position: Position,
    pub operations: Vec<Operation>,
}

impl PositionLine {
    /// The operands of the first operation with this opcode.
    pub fn operation(&self, code: &str) -> Option<&str> {
        self.operations
            .iter()
            .find(|o| o.code == code)
            .map(|o| o.operands.as_str())
    }
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    pub line: usize,
    pub error: PositionError,
}

/// Every position line of a file, in order; each unreadable line is an error naming it.
pub fn read(text: &str) -> impl Iterator<Item = Result<PositionLine, LineError>> + '_ {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().filter_map(|(i, raw)| {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return None;
        }
        let line = i + 1;
        Some(
            parse_line(trimmed)
                .map(|(position, operations)| PositionLine {
                    line,
                    position,
                    operations,
                })
                .map_err(|error| LineError { line, error }),
        )
    })
}

/// The positions of a file, failing at the first unreadable line.
pub fn read_positions(text: &str) -> Result<Vec<Position>, LineError> {
    read(text).map(|l| l.map(|l| l.position)).collect()
}

/// One line: the position and its operations.
pub fn parse_line(text: &str) -> Result<(Position, Vec<Operation>), PositionError> {
    let mut rest = text.trim();
    let mut fields = Vec::with_capacity(6);
    for _ in 0..4 {
        let (token, after) = next_token(rest);
        fields.push(token);
        rest = after;
    }
    // FEN's two counters, when the line has them.
    let (halfmoves, after_half) = next_token(rest);
    let (fullmoves, after_full) = next_token(after_half);
    let counters = halfmoves.parse::<u32>().is_ok() && fullmoves.parse::<u32>().is_ok();
    if counters {
        rest = after_full;
    }
    let operations = split_operations(rest);
    let op = |code: &str| {
        operations
            .iter()
            .find(|o| o.code == code)
            .map(|o| o.operands.as_str())
    };
    let (half, full) = if counters {
        (halfmoves, fullmoves)
    } else {
        (op("hmvc").unwrap_or("0"), op("fmvn").unwrap_or("1"))
    };
    let fen = format!("{} {half} {full}", fields.join(" "));
    Ok((Position::from_fen_auto(&fen)?, operations))
}

/// The next token (up to white space or `;`) and what follows it.
fn next_token(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// `code operands; code operands;` split at the semicolons outside double quotes.
fn split_operations(text: &str) -> Vec<Operation> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    let mut push = |piece: &str| {
        let piece = piece.trim();
        if piece.is_empty() {
            return;
        }
        let (code, operands) = piece.split_once(char::is_whitespace).unwrap_or((piece, ""));
        out.push(Operation {
            code: code.to_string(),
            operands: operands.trim().trim_matches('"').to_string(),
        });
    };
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&text[start..]);
    out
}

/// A test-suite position: the moves to find (`bm`) and to avoid (`am`).
#[derive(Debug, Clone)]
pub struct EpdRecord {
    pub id: Option<String>,
    pub position: Position,
    /// The moves `bm` names, resolved in the position.
    pub best: Vec<Move>,
    /// The moves `am` names, resolved in the position.
    pub avoid: Vec<Move>,
    /// The `bm`/`am` text as written, for reports.
    pub best_text: String,
    pub avoid_text: String,
}

impl EpdRecord {
    /// The record of a line; an unresolvable `bm`/`am` is an error.
    pub fn from_line(line: &PositionLine) -> Result<Self, LineError> {
        let fail = |error| LineError {
            line: line.line,
            error,
        };
        let best_text = line.operation("bm").unwrap_or("").to_string();
        let avoid_text = line.operation("am").unwrap_or("").to_string();
        Ok(EpdRecord {
            id: line.operation("id").map(str::to_string),
            best: resolve_san(&line.position, &best_text).map_err(fail)?,
            avoid: resolve_san(&line.position, &avoid_text).map_err(fail)?,
            position: line.position.clone(),
            best_text,
            avoid_text,
        })
    }

    /// Parses one line of a suite.
    pub fn parse(text: &str) -> Result<Self, LineError> {
        let (position, operations) =
            parse_line(text).map_err(|error| LineError { line: 1, error })?;
        Self::from_line(&PositionLine {
            line: 1,
            position,
            operations,
        })
    }

    /// True if `m` is one of the best moves (when any are given) and none of the avoided.
    pub fn solved_by(&self, m: Move) -> bool {
        (self.best.is_empty() || self.best.contains(&m)) && !self.avoid.contains(&m)
    }
}

fn resolve_san(pos: &Position, text: &str) -> Result<Vec<Move>, PositionError> {
    text.split_whitespace()
        .map(|san| {
            let trimmed = san.trim_end_matches(['!', '?']);
            trimmed
                .parse::<San>()
                .map_err(|_| PositionError::MalformedMove(san.to_string()))?
                .to_move(pos.chess())
                .map_err(|_| PositionError::IllegalMove(san.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    #[test]
    fn wac_line_parses() {
        let line = r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - acd 5; bm Qg6; id "WAC.001";"#;
        let r = EpdRecord::parse(line).unwrap();
        assert_eq!(r.id.as_deref(), Some("WAC.001"));
        assert_eq!(r.best.len(), 1);
        let qg6 = r.position.parse_uci("g3g6").unwrap();
        assert!(r.solved_by(qg6));
        assert!(!r.solved_by(r.position.parse_uci("f1e1").unwrap()));
    }

    #[test]
    fn avoid_moves_and_bad_san() {
        let r = EpdRecord::parse("4k3/8/8/8/8/8/4P3/4K3 w - - am e4; id \"x\";").unwrap();
        assert!(!r.solved_by(r.position.parse_uci("e2e4").unwrap()));
        assert!(r.solved_by(r.position.parse_uci("e2e3").unwrap()));
        assert!(EpdRecord::parse("4k3/8/8/8/8/8/4P3/4K3 w - - bm Qh8;").is_err());
    }

    #[test]
    fn fen_and_epd_lines_bom_comments_and_line_numbers() {
        let text = "\u{feff}# a comment\n\
                    4k3/8/8/8/8/8/8/4K2R w K - 7 40 ;D1 15 ;D2 66\n\
                    \n\
                    4k3/8/8/8/8/8/8/4K2R w K - hmvc 3; id \"a;b\";\n\
                    not a position\n";
        let lines: Vec<_> = read(text).collect();
        assert_eq!(lines.len(), 3);
        let first = lines[0].as_ref().unwrap();
        assert_eq!(first.line, 2);
        assert_eq!(first.position.halfmoves(), 7);
        assert_eq!(first.operation("D2"), Some("66"));
        let second = lines[1].as_ref().unwrap();
        assert_eq!(second.position.halfmoves(), 3);
        assert_eq!(second.operation("id"), Some("a;b"));
        assert_eq!(lines[2].as_ref().unwrap_err().line, 5);
        assert!(read_positions(text).is_err());
    }

    #[test]
    fn chess960_castling_rights_are_recognised() {
        let (pos, _) = parse_line("r4k1r/8/8/8/8/8/8/R4K1R w HAha - 0 1").unwrap();
        assert_eq!(pos.mode(), CastlingMode::Chess960);
        let (pos, _) = parse_line("r3k2r/8/8/8/8/8/8/R3K2R w KQkq -").unwrap();
        assert_eq!(pos.mode(), CastlingMode::Standard);
    }

    /// The quiet suite asks for judgement, not tactics: one best move per position, and
    /// neither that move nor the position a capture, a promotion or a check.
    #[test]
    fn the_quiet_suite_holds_quiet_moves_only() {
        let text = include_str!("../../tests/data/quiet.epd");
        let mut ids = std::collections::HashSet::new();
        for line in read(text) {
            let line = line.expect("the quiet suite parses");
            let record = EpdRecord::from_line(&line).expect("its bm is legal");
            assert!(
                ids.insert(record.id.clone()),
                "a duplicate id {:?}",
                record.id
            );
            let [m] = record.best[..] else {
                panic!("{:?}: one best move", record.id);
            };
            let pos = &record.position;
            assert!(!pos.is_check(), "{:?} is in check", record.id);
            assert!(
                !crate::board::exchange::is_tactical(m) && !pos.gives_check(m),
                "{:?}: {} is not quiet",
                record.id,
                record.best_text
            );
        }
        assert!(ids.len() >= 100, "{} positions", ids.len());
    }
}
