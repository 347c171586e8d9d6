//! The commands engine developers type into any engine, outside the protocol as in
//! Stockfish: `go perft N`, `d` and `eval`. Each builds its lines from the session's current
//! position; GUIs never send them, so their plain-text output cannot confuse one.

use shakmaty::{Color, File, Piece, Position as _, Rank, Square};

use crate::board::eval::Breakdown;
use crate::board::perft::divide;
use crate::board::{Evaluator, Position};

/// `go perft N`: each root move's count, a blank line, then the total.
pub fn perft(pos: &Position, depth: u32) -> Vec<String> {
    let counts = divide(pos.chess(), depth);
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    let mut lines: Vec<String> = counts
        .iter()
        .map(|&(m, n)| format!("{}: {n}", pos.to_uci(m)))
        .collect();
    lines.push(String::new());
    lines.push(format!("Nodes searched: {total}"));
    lines
}

/// `d`: the board from White's side, then FEN, key and the pieces giving check.
pub fn display(pos: &Position) -> Vec<String> {
    const RULE: &str = " +---+---+---+---+---+---+---+---+";
    let board = pos.chess().board();
    let mut lines = vec![String::new(), RULE.to_string()];
    for rank in Rank::ALL.into_iter().rev() {
        let row: String = File::ALL
            .into_iter()
            .map(|file| {
                let c = board
                    .piece_at(Square::from_coords(file, rank))
                    .map_or(' ', Piece::char);
                format!(" | {c}")
            })
            .collect();
        lines.push(format!("{row} | {}", rank.char()));
        lines.push(RULE.to_string());
    }
    lines.push("   a   b   c   d   e   f   g   h".to_string());
    lines.push(String::new());
    lines.push(format!("Fen: {}", pos.fen()));
    lines.push(format!("Key: {:016X}", pos.key()));
    let checkers: String = pos
        .chess()
        .checkers()
        .into_iter()
        .map(|sq| format!(" {sq}"))
        .collect();
    lines.push(format!("Checkers:{checkers}"));
    lines
}

/// `eval`: the named evaluator's terms, how they were blended, and the result.
pub fn eval(pos: &Position, name: &str, evaluator: &dyn Evaluator) -> Vec<String> {
    let Breakdown {
        terms,
        taper,
        white,
    } = evaluator.breakdown(pos.chess());
    let width = terms.iter().map(|t| t.name.len()).max().unwrap_or(0).max(4);
    let mut lines = vec![format!("Eval={name}, centipawns from White's side")];
    if taper.is_some() {
        lines.push(format!("{:width$}  {:>7}  {:>7}", "term", "mg", "eg"));
        for t in terms.iter().filter(|t| t.mg != 0 || t.eg != 0) {
            lines.push(format!("{:width$}  {:>+7}  {:>+7}", t.name, t.mg, t.eg));
        }
        let (mg, eg) = terms.iter().fold((0, 0), |(m, e), t| (m + t.mg, e + t.eg));
        lines.push(format!("{:width$}  {mg:>+7}  {eg:>+7}", "sum"));
    }
    if let Some((phase, scale)) = taper {
        lines.push(format!(
            "phase {phase}/{} (middlegame share), endgame scale {scale}/{}",
            crate::board::eval::classical::PHASE_MAX,
            crate::board::eval::classical::SCALE_MAX
        ));
    }
    let us = if pos.turn() == Color::White {
        white
    } else {
        -white
    };
    lines.push(format!(
        "Final evaluation: {white:+} (White's side), {us:+} for the side to move"
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Material;
    use crate::board::eval::Classical;

    #[test]
    fn perft_counts_the_start_position() {
        let lines = perft(&Position::startpos(), 3);
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Nodes searched: 8902")
        );
        assert_eq!(lines.len(), 20 + 2);
    }

    #[test]
    fn display_shows_fen_key_and_checkers() {
        let pos = Position::from_fen_auto("4k3/8/8/8/8/8/8/4K2r w - - 0 1").unwrap();
        let lines = display(&pos);
        assert!(lines.contains(&"Fen: 4k3/8/8/8/8/8/8/4K2r w - - 0 1".to_string()));
        assert!(lines.contains(&"Checkers: h1".to_string()));
        assert!(lines.iter().any(|l| l.starts_with("Key: ")));
        assert!(lines.iter().any(|l| l.ends_with("| k |   |   |   | 8")));
    }

    #[test]
    fn eval_ends_with_the_score_for_both_sides() {
        let pos = Position::from_fen_auto("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1").unwrap();
        let m = eval(&pos, "material", &Material);
        assert_eq!(
            m.last().unwrap(),
            "Final evaluation: +900 (White's side), -900 for the side to move"
        );
        let c = eval(&pos, "classical", &Classical);
        assert!(c.iter().any(|l| l.starts_with("material")));
        assert!(c.iter().any(|l| l.starts_with("phase ")));
    }
}
