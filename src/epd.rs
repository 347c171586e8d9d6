//! EPD test-suite records: a position (the first four FEN fields) and operations such as
//! `bm` (best moves, SAN), `am` (moves to avoid) and `id`.

use shakmaty::san::San;
use shakmaty::{CastlingMode, Move};

use crate::board::{Position, PositionError};

/// One EPD line.
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
    /// Parses a line; unknown operations are ignored, an unresolvable `bm`/`am` is an error.
    pub fn parse(line: &str) -> Result<Self, PositionError> {
        let line = line.trim();
        let mut fields = line.splitn(5, char::is_whitespace);
        let fen: Vec<&str> = fields.by_ref().take(4).collect();
        let ops = fields.next().unwrap_or("");
        let mut fen = fen.join(" ");
        let mut id = None;
        let (mut best_text, mut avoid_text) = (String::new(), String::new());
        for op in ops.split(';') {
            let op = op.trim();
            let (code, operands) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
            let operands = operands.trim();
            match code {
                "bm" => best_text = operands.to_string(),
                "am" => avoid_text = operands.to_string(),
                "id" => id = Some(operands.trim_matches('"').to_string()),
                "hmvc" => fen = format!("{fen} {operands}"),
                _ => {}
            }
        }
        let position = Position::from_fen(&fen, CastlingMode::Standard)?;
        let best = resolve_san(&position, &best_text)?;
        let avoid = resolve_san(&position, &avoid_text)?;
        Ok(EpdRecord {
            id,
            position,
            best,
            avoid,
            best_text,
            avoid_text,
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

/// Parses every non-blank line; a bad line is reported with its 1-based line number.
pub fn parse_file(text: &str) -> Vec<Result<EpdRecord, (usize, PositionError)>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| EpdRecord::parse(l).map_err(|e| (i + 1, e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wac_line_parses() {
        let line =
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#;
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
}
