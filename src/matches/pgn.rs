//! PGN export of finished games: the seven-tag roster, time control, the opening as
//! `SetUp`/`FEN`, the standard `Termination` value with the detail in a comment after the
//! last move, SAN moves with `{score/depth time}` comments.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use shakmaty::CastlingMode;
use shakmaty::Position as _;
use shakmaty::san::SanPlus;

use super::{GameRecord, Outcome};

/// The PGN result token.
pub fn result_token(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::WhiteWins => "1-0",
        Outcome::BlackWins => "0-1",
        Outcome::Draw => "1/2-1/2",
    }
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a calendar date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One game as PGN text, ending with a blank line.
pub fn render(game: &GameRecord, event: &str, date: &str) -> String {
    let result = result_token(game.outcome);
    let mut s = String::new();
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(s, "[{name} \"{}\"]", escape(value));
    };
    tag("Event", event);
    tag("Site", "searchlight match");
    tag("Date", date);
    tag("Round", &game.round);
    tag("White", &game.white);
    tag("Black", &game.black);
    tag("Result", result);
    if game.white_tc == game.black_tc {
        tag("TimeControl", &game.white_tc);
    } else {
        tag("WhiteTimeControl", &game.white_tc);
        tag("BlackTimeControl", &game.black_tc);
    }
    let chess960 = game.start.mode() == CastlingMode::Chess960;
    if chess960 {
        // cutechess-cli's spelling, the one it reads back; python-chess reads it too
        // (lichess's "Chess960" is unknown to cutechess).
        tag("Variant", "fischerandom");
    }
    let fen = game.start.fen();
    if chess960 || fen != shakmaty::fen::Fen::default().to_string() {
        tag("SetUp", "1");
        tag("FEN", &fen);
    }
    tag("Termination", game.termination.pgn_value());
    tag("PlyCount", &game.moves.len().to_string());
    s.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let mut pos = game.start.chess().clone();
    for (i, played) in game.moves.iter().enumerate() {
        let number = pos.fullmoves().get();
        if pos.turn().is_white() {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, played.mv).to_string());
        if !played.comment.is_empty() {
            tokens.push(format!("{{{}}}", played.comment));
        }
    }
    // The standard tag says what kind of end; the comment says which.
    tokens.push(format!("{{{}}}", game.termination));
    tokens.push(result.to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    s.push_str(&line);
    s.push_str("\n\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::matches::PlayedMove;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn a_game_from_a_black_to_move_fen() {
        let start = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            shakmaty::CastlingMode::Standard,
        )
        .unwrap();
        let mut moves = Vec::new();
        let mut pos = start.clone();
        for uci in ["e7e5", "g1f3"] {
            let m = pos.parse_uci(uci).unwrap();
            moves.push(PlayedMove {
                mv: m,
                comment: "+0.10/5 0.01s".into(),
            });
            pos = pos.play(m);
        }
        let game = GameRecord {
            white: "a".into(),
            black: "b \"q\"".into(),
            start,
            moves,
            outcome: Outcome::Draw,
            termination: crate::matches::Termination::AdjudicatedDraw,
            round: "1".into(),
            white_tc: "5+0.05".into(),
            black_tc: "5+0.05".into(),
        };
        let text = render(&game, "test", "2026.01.01");
        assert!(text.contains("[Black \"b \\\"q\\\"\"]"), "{text}");
        assert!(text.contains("[SetUp \"1\"]"));
        assert!(text.contains("[PlyCount \"2\"]"));
        assert!(text.contains("[Termination \"adjudication\"]"));
        assert!(
            text.contains(
                "1... e5 {+0.10/5 0.01s} 2. Nf3 {+0.10/5 0.01s} {adjudication: draw} 1/2-1/2"
            ),
            "{text}"
        );
    }
}
