//! Opening positions for a match: an EPD/FEN file (the shared position-line reader) or a
//! PGN file (each game's end position), keeping only positions with a move to play.

use thiserror::Error;

use super::pgn;
use crate::board::{Position, epd};

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

/// The openings and where they came from: `path`, the start position for `startpos`, or
/// the built-in set.
pub fn load(path: Option<&str>) -> Result<(Vec<Position>, String), OpeningsError> {
    let (path, text) = match path {
        Some(STARTPOS) => return Ok((vec![Position::startpos()], "the start position".into())),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| OpeningsError::Read {
                path: p.to_string(),
                source,
            })?;
            (p.to_string(), text)
        }
        None => (
            DEFAULT_OPENINGS_NAME.to_string(),
            DEFAULT_OPENINGS.to_string(),
        ),
    };
    let parse_error = |message: String| OpeningsError::Parse {
        path: path.clone(),
        message,
    };
    let positions = if path.to_ascii_lowercase().ends_with(".pgn") {
        pgn::read_openings(&text).map_err(parse_error)?
    } else {
        epd::read_positions(&text).map_err(|e| parse_error(e.to_string()))?
    };
    let playable: Vec<Position> = positions
        .into_iter()
        .filter(|p| !p.legal_moves().is_empty())
        .collect();
    if playable.is_empty() {
        return Err(OpeningsError::Empty(path));
    }
    Ok((playable, path))
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
        let (positions, source) = load(epd_path.to_str()).unwrap();
        assert_eq!(positions.len(), 1);
        assert!(source.ends_with("a.epd"));
        let pgn_path = dir.join("b.pgn");
        std::fs::write(&pgn_path, "1. e4 e5 *\n").unwrap();
        assert_eq!(load(pgn_path.to_str()).unwrap().0.len(), 1);
        let bad = dir.join("c.epd");
        std::fs::write(&bad, "4k3/8/8/8/8/8/4P3/4K3 w - -\nnonsense\n").unwrap();
        let e = load(bad.to_str()).unwrap_err().to_string();
        assert!(e.contains("c.epd") && e.contains("line 2"), "{e}");
        assert!(load(dir.join("missing.epd").to_str()).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_default_set_is_built_in_and_startpos_is_a_choice() {
        let (positions, source) = load(None).unwrap();
        assert_eq!(positions.len(), 500, "{source}");
        assert!(source.contains("built-in"));
        let (start, _) = load(Some(STARTPOS)).unwrap();
        assert_eq!(start, vec![Position::startpos()]);
    }
}
