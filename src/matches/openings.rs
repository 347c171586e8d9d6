//! Opening positions for a match: an EPD/FEN file (the shared position-line reader) or a
//! PGN file (each game's end position, or its position after so many plies, through the
//! shared PGN reader), keeping only positions with a move to play.

use thiserror::Error;

use shakmaty::CastlingMode;

use crate::board::pgn::PgnReader;
use crate::board::{Position, chess960, epd};

/// The opening set used when none is given: built into the binary, so that a match run
/// from any directory plays the same games (a relative path would silently fall back to
/// one start position, and deterministic players would repeat their games).
pub const DEFAULT_OPENINGS: &str = include_str!("../../openings/balanced_8ply.epd");
/// How the built-in set is named in reports.
pub const DEFAULT_OPENINGS_NAME: &str = "the built-in openings/balanced_8ply.epd";
/// The `--openings` value that asks for the start position only.
pub const STARTPOS: &str = "startpos";

/// Why an opening file could not be used.
#[derive(Debug, Error)]
pub enum OpeningsError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("{0}: no playable positions")]
    Empty(String),
}

/// The opening positions of a match.
#[derive(Debug, Clone)]
pub struct Openings {
    pub positions: Vec<Position>,
    /// Where they came from: the path, the start position, or the built-in set.
    pub source: String,
    /// Played as Chess960: asked for, or needed by a position whose castling rights only
    /// Chess960 explains. Every position is then in Chess960 castling mode.
    pub chess960: bool,
}

/// The openings at `path` (or the built-in set, or `startpos`); with `chess960` and no
/// file, the 960 start positions in their numbered order. From a PGN file each game's
/// position after its first `plies` plies (cutechess-cli's `plies=`), or at its end.
pub fn load(
    path: Option<&str>,
    chess960: bool,
    plies: Option<usize>,
) -> Result<Openings, OpeningsError> {
    let (source, positions) = match path {
        Some(STARTPOS) => ("the start position".to_string(), vec![Position::startpos()]),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| OpeningsError::Read {
                path: p.to_string(),
                source,
            })?;
            (p.to_string(), parse(p, &text, plies)?)
        }
        None if chess960 => (
            "the 960 Chess960 start positions".to_string(),
            (0..chess960::COUNT)
                .filter_map(|n| chess960::start_position(n).ok())
                .collect(),
        ),
        None => (
            DEFAULT_OPENINGS_NAME.to_string(),
            parse(DEFAULT_OPENINGS_NAME, DEFAULT_OPENINGS, None)?,
        ),
    };
    let playable: Vec<Position> = positions
        .into_iter()
        .filter(|p| !p.legal_moves().is_empty())
        .collect();
    if playable.is_empty() {
        return Err(OpeningsError::Empty(source));
    }
    let chess960 = chess960 || playable.iter().any(|p| p.mode() == CastlingMode::Chess960);
    let positions = if chess960 {
        playable
            .iter()
            .map(|p| in_chess960_mode(p, &source))
            .collect::<Result<_, _>>()?
    } else {
        playable
    };
    Ok(Openings {
        positions,
        source,
        chess960,
    })
}

/// Whether `path` names a PGN file (read as games) rather than EPD/FEN lines.
pub fn is_pgn(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".pgn")
}

/// The positions of an EPD/FEN or PGN text; errors name the file.
fn parse(path: &str, text: &str, plies: Option<usize>) -> Result<Vec<Position>, OpeningsError> {
    let parse_error = |message: String| OpeningsError::Parse {
        path: path.to_string(),
        message,
    };
    if is_pgn(path) {
        PgnReader::new(text.as_bytes())
            .map(|game| {
                game.and_then(|g| g.complete()).map(|g| match plies {
                    Some(n) if n < g.moves.len() => {
                        g.moves[..n].iter().fold(g.start, |pos, &m| pos.play(m))
                    }
                    _ => g.end,
                })
            })
            .collect::<Result<_, _>>()
            .map_err(|e| parse_error(e.to_string()))
    } else {
        epd::read_positions(text).map_err(|e| parse_error(e.to_string()))
    }
}

/// A standard-chess position as Chess960 sees it: the same castling rights, castling
/// written king-takes-rook.
fn in_chess960_mode(pos: &Position, source: &str) -> Result<Position, OpeningsError> {
    if pos.mode() == CastlingMode::Chess960 {
        return Ok(pos.clone());
    }
    Position::from_fen(&pos.fen(), CastlingMode::Chess960).map_err(|e| OpeningsError::Parse {
        path: source.to_string(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_either_kind_and_errors_name_the_file() {
        let dir = std::env::temp_dir().join(format!("openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let epd_path = dir.join("a.epd");
        // The second line is checkmate: nothing to play.
        std::fs::write(
            &epd_path,
            "4k3/8/8/8/8/8/4P3/4K3 w - -\nrnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n",
        )
        .unwrap();
        let openings = load(epd_path.to_str(), false, None).unwrap();
        assert_eq!(openings.positions.len(), 1);
        assert!(openings.source.ends_with("a.epd"));
        assert!(!openings.chess960);
        let pgn_path = dir.join("b.pgn");
        std::fs::write(&pgn_path, "1. e4 e5 *\n").unwrap();
        assert_eq!(
            load(pgn_path.to_str(), false, None)
                .unwrap()
                .positions
                .len(),
            1
        );
        let bad = dir.join("c.epd");
        std::fs::write(&bad, "4k3/8/8/8/8/8/4P3/4K3 w - -\nnonsense\n").unwrap();
        let e = load(bad.to_str(), false, None).unwrap_err().to_string();
        assert!(e.contains("c.epd") && e.contains("line 2"), "{e}");
        assert!(load(dir.join("missing.epd").to_str(), false, None).is_err());
        let bad_pgn = dir.join("d.pgn");
        std::fs::write(&bad_pgn, "1. e4 e5 *\n\n1. d4 Nf3 *\n").unwrap();
        let e = load(bad_pgn.to_str(), false, None).unwrap_err().to_string();
        assert!(e.contains("d.pgn: game 2: move 1... Nf3"), "{e}");
        // `plies`: each game cut after so many plies; a shorter game is taken whole.
        let games = dir.join("e.pgn");
        std::fs::write(&games, "1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 *\n").unwrap();
        let cut = load(games.to_str(), false, Some(2)).unwrap();
        let after = |moves: &[&str]| {
            moves
                .iter()
                .fold(Position::startpos(), |p, m| p.play(p.parse_uci(m).unwrap()))
        };
        assert_eq!(cut.positions, [after(&["e2e4", "e7e5"]), after(&["d2d4"])]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_default_set_is_built_in_and_startpos_is_a_choice() {
        let openings = load(None, false, None).unwrap();
        assert_eq!(openings.positions.len(), 500, "{}", openings.source);
        assert!(openings.source.contains("built-in"));
        let start = load(Some(STARTPOS), false, None).unwrap();
        assert_eq!(start.positions, vec![Position::startpos()]);
    }

    #[test]
    fn chess960_is_the_960_start_positions_or_any_file_in_chess960_castling() {
        let all = load(None, true, None).unwrap();
        assert_eq!(all.positions.len(), 960);
        assert!(all.chess960);
        let built_in = load(None, false, None).unwrap();
        let mut files = std::collections::HashSet::new();
        for p in &all.positions {
            assert_eq!(p.mode(), CastlingMode::Chess960);
            files.insert(p.fen());
        }
        assert_eq!(files.len(), 960);
        let start = load(Some(STARTPOS), true, None).unwrap();
        assert_eq!(start.positions[0].mode(), CastlingMode::Chess960);
        assert_eq!(
            start.positions[0].fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        assert!(
            built_in
                .positions
                .iter()
                .all(|p| p.mode() == CastlingMode::Standard)
        );
    }

    #[test]
    fn a_file_with_a_chess960_game_makes_the_match_chess960() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-mixed.pgn");
        let openings = load(Some(path), false, None).unwrap();
        assert_eq!(openings.positions.len(), 3);
        assert!(openings.chess960);
        assert!(
            openings
                .positions
                .iter()
                .all(|p| p.mode() == CastlingMode::Chess960)
        );
    }
}
