//! Reading PGN: a streaming reader of games (pgn-reader, the shakmaty author's parser) that
//! yields each game's start position, main-line moves and tags in bounded memory.
//! Comments (`{}` and `;`), variations, NAGs, `0-0`, escape lines and byte-order marks
//! are the parser's business; ours is the start position — a `[FEN]` in the castling mode
//! its `[Variant]` asks for — and errors that name the game and the move.

use std::io::Read;
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Move, Position as _};
use thiserror::Error;

use super::Position;

/// One game of a PGN file: where it started and its main line.
#[derive(Debug, Clone)]
pub struct PgnGame {
    /// 1-based number of the game in the file.
    pub number: usize,
    pub start: Position,
    pub moves: Vec<Move>,
    /// The position after the main line.
    pub end: Position,
    /// The tag pairs in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    /// Why the main line stops early: a move that is not legal there (the moves before it
    /// are kept, the rest of the game is not read).
    pub stopped: Option<String>,
}

impl PgnGame {
    /// The game if its every move was read, else the error that stopped it.
    pub fn complete(self) -> Result<Self, PgnError> {
        match self.stopped {
            Some(message) => Err(PgnError::Game {
                game: self.number,
                message,
            }),
            None => Ok(self),
        }
    }

    /// The value of a tag, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why a game (or the file) could not be read.
#[derive(Debug, Error)]
pub enum PgnError {
    #[error("game {game}: {message}")]
    Game { game: usize, message: String },
    #[error("reading PGN: {0}")]
    Io(#[from] std::io::Error),
}

/// Whether a `[Variant]` value names Chess960 (the spellings of cutechess, lichess,
/// python-chess and ChessBase).
pub fn is_chess960_variant(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    matches!(
        n.as_str(),
        "chess960" | "chess 960" | "960" | "fischerandom" | "fischerrandom" | "fischer random"
    )
}

/// Iterates over the games of a PGN stream; after an error the next game is read. A game
/// with an illegal move comes as far as the move before, with [`PgnGame::stopped`] saying
/// why ([`PgnGame::complete`] turns that into an error).
pub struct PgnReader<R: Read> {
    reader: Reader<R>,
    visitor: GameVisitor,
}

impl<R: Read> PgnReader<R> {
    pub fn new(input: R) -> Self {
        Self {
            reader: Reader::new(input),
            visitor: GameVisitor { games: 0 },
        }
    }
}

impl<R: Read> Iterator for PgnReader<R> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.reader.read_game(&mut self.visitor) {
            Ok(Some(game)) => Some(game),
            Ok(None) => None,
            Err(e) => Some(Err(PgnError::Io(e))),
        }
    }
}

/// The games of a PGN text, stopping at the first error (an illegal move included).
pub fn read_games(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    PgnReader::new(text.as_bytes())
        .map(|g| g.and_then(PgnGame::complete))
        .collect()
}

struct GameVisitor {
    games: usize,
}

impl GameVisitor {
    fn error(&self, message: String) -> PgnError {
        PgnError::Game {
            game: self.games,
            message,
        }
    }

    /// The start position the tags describe: the standard one unless a `[FEN]` says
    /// otherwise, in Chess960 castling when `[Variant]` names it (or only Chess960
    /// explains the castling rights).
    fn start(&self, tags: &[(String, String)]) -> Result<Position, PgnError> {
        let tag = |name: &str| {
            tags.iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        let variant = tag("Variant").filter(|v| !v.trim().eq_ignore_ascii_case("standard"));
        let chess960 = match variant {
            None => false,
            Some(v) if is_chess960_variant(v) => true,
            Some(v) => return Err(self.error(format!("unsupported variant '{v}'"))),
        };
        let fen = tag("FEN");
        let result = match (fen, chess960) {
            (Some(fen), true) => Position::from_fen(fen, CastlingMode::Chess960),
            (Some(fen), false) => Position::from_fen_auto(fen),
            (None, true) => Position::from_fen(&Position::startpos().fen(), CastlingMode::Chess960),
            (None, false) => Ok(Position::startpos()),
        };
        result.map_err(|e| self.error(format!("[FEN]: {e}")))
    }
}

/// `12.` or `12...` before a move, as a reader of the file would look for it.
fn move_number(pos: &Position) -> String {
    let number = pos.chess().fullmoves();
    if pos.turn().is_white() {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

impl Visitor for GameVisitor {
    type Tags = Vec<(String, String)>;
    type Movetext = PgnGame;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.games += 1;
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        match self.start(&tags) {
            Ok(start) => ControlFlow::Continue(PgnGame {
                number: self.games,
                end: start.clone(),
                start,
                moves: Vec::new(),
                tags,
                stopped: None,
            }),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        if movetext.stopped.is_some() {
            return ControlFlow::Continue(());
        }
        let pos = &movetext.end;
        match san_plus.san.to_move(pos.chess()) {
            Ok(m) => {
                movetext.end = pos.play(m);
                movetext.moves.push(m);
            }
            Err(e) => {
                movetext.stopped = Some(format!("move {} {san_plus}: {e}", move_number(pos)));
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        Ok(movetext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIXED: &str = include_str!("../../tests/data/openings-mixed.pgn");

    #[test]
    fn zeros_comments_variations_a_bom_and_chess960_are_read() {
        let games = read_games(MIXED).unwrap();
        let ends: Vec<String> = games.iter().map(|g| g.end.fen()).collect();
        // The end positions as python-chess 1.11 reads the same file.
        assert_eq!(
            ends,
            [
                "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 6 5",
                "1b1nrkbr/p1pppppp/1n6/1p6/8/2N2q2/PPPPPBPP/QBN1RRK1 b kq - 3 4",
                "qbnnrkbr/pppppp1p/6p1/8/8/6P1/PPPPPP1P/QBNNRKBR w KQkq - 0 2",
            ]
        );
        assert_eq!(games[0].moves.len(), 8);
        assert_eq!(
            games[0].tag("Event"),
            Some("castling with zeros, comments, variations")
        );
        assert_eq!(games[1].start.mode(), CastlingMode::Chess960);
        assert_eq!(games[2].start.mode(), CastlingMode::Chess960);
        assert_eq!(games[0].start.mode(), CastlingMode::Standard);
        assert_eq!(
            games.iter().map(|g| g.number).collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn errors_name_the_game_and_the_move() {
        let text = "1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Nf3 Ke6 *\n";
        let mut games = PgnReader::new(text.as_bytes());
        assert!(games.next().unwrap().is_ok());
        // The second game stops before its illegal move, saying why.
        let partial = games.next().unwrap().unwrap();
        assert_eq!(partial.moves.len(), 3);
        let e = partial.complete().unwrap_err().to_string();
        assert!(e.starts_with("game 2: move 2... Ke6"), "{e}");
        assert!(games.next().is_none());
        assert!(read_games(text).is_err());
        let bad_fen = "[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *\n";
        let e = read_games(bad_fen).unwrap_err().to_string();
        assert!(e.contains("game 1: [FEN]"), "{e}");
        let variant = "[Variant \"Crazyhouse\"]\n\n1. e4 *\n";
        let e = read_games(variant).unwrap_err().to_string();
        assert!(e.contains("unsupported variant 'Crazyhouse'"), "{e}");
    }

    #[test]
    fn a_chess960_variant_without_a_fen_starts_from_the_standard_array() {
        let games = read_games("[Variant \"fischerandom\"]\n\n1. e4 *\n").unwrap();
        assert_eq!(games[0].start.mode(), CastlingMode::Chess960);
        assert_eq!(games[0].moves.len(), 1);
    }
}
