//! Traps in real games: the positions of a game analysed ply by ply — which moves were
//! traps, whether the move played was one, and whether the opponent then found the mate —
//! and the summary over many games (positions at risk by ply and level, games in which a
//! player walked into a trap, how often the trap was punished).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;

use super::analysis::{Analysis, TrapMove, analyse};
use crate::board::pgn::PgnGame;
use crate::board::{Game, Position};

/// One analysed position of a game: the one before the game's `ply`-th move.
#[derive(Debug, Clone, Serialize)]
pub struct PlyReport {
    /// 1-based: the position before the game's `ply`-th move.
    pub ply: usize,
    /// The position analysed, in its game's castling mode.
    #[serde(skip)]
    pub position: Position,
    pub analysis: Analysis,
    pub played_san: String,
    /// The trap level of the move played, if it was a trap.
    pub played_level: Option<u8>,
    /// For a trap move played: whether the opponent mated within its level.
    pub punished: Option<bool>,
}

impl PlyReport {
    /// The trap move played here, if the move played was one (its refutation, not that of
    /// another trap move of the same level).
    pub fn played_trap(&self) -> Option<&TrapMove> {
        self.analysis
            .traps
            .iter()
            .find(|t| t.san == self.played_san)
    }
}

/// A game's analysed positions.
#[derive(Debug, Clone, Serialize)]
pub struct GameReport {
    pub number: usize,
    pub white: String,
    pub black: String,
    pub result: String,
    pub plies: Vec<PlyReport>,
}

impl GameReport {
    /// The positions where the move played walked into a trap while a safe move existed
    /// (in a lost position every move is a trap, and playing one is no mistake).
    pub fn falls(&self) -> impl Iterator<Item = &PlyReport> {
        self.plies
            .iter()
            .filter(|p| p.played_level.is_some() && !p.analysis.lost)
    }
}

/// Analyses the positions of `game` before the moves whose (1-based) ply `wanted` accepts.
pub fn analyse_game(game: &PgnGame, max_level: u8, wanted: impl Fn(usize) -> bool) -> GameReport {
    let mut history = Game::new(game.start.clone());
    let mut plies = Vec::new();
    for (i, &mv) in game.moves.iter().enumerate() {
        let ply = i + 1;
        if wanted(ply) {
            let pos: &Position = history.position();
            let analysis = analyse(pos, max_level);
            let uci = pos.to_uci(mv).to_string();
            let played_level = analysis
                .traps
                .iter()
                .find(|t| t.uci == uci)
                .map(|t| t.level);
            plies.push(PlyReport {
                ply,
                position: pos.clone(),
                played_san: SanPlus::from_move(pos.chess().clone(), mv).to_string(),
                punished: played_level.map(|k| mated_within(game, ply, k)),
                played_level,
                analysis,
            });
        }
        history.push(mv);
    }
    let tag = |name: &str| game.tag(name).unwrap_or("?").to_string();
    GameReport {
        number: game.number,
        white: tag("White"),
        black: tag("Black"),
        result: tag("Result"),
        plies,
    }
}

/// Whether the game ends in checkmate of the side that played move `ply` within `level`
/// plies after it.
fn mated_within(game: &PgnGame, ply: usize, level: u8) -> bool {
    let moves_after = game.moves.len() - ply;
    moves_after <= usize::from(level)
        && moves_after % 2 == 1
        && game.end.legal_moves().is_empty()
        && game.end.is_check()
}

/// The summary over games: per ply range and level the share of positions at risk (and
/// lost), the games with a fall, and the falls punished.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub games: usize,
    /// Games that could not be read at all (a bad `[FEN]`, an unknown variant).
    pub skipped: usize,
    pub positions: usize,
    /// Per bucket of `BUCKET` plies: positions, then per level (at risk, lost).
    pub buckets: Vec<Bucket>,
    pub games_with_a_fall: usize,
    pub falls: usize,
    pub punished: usize,
}

/// Positions of one ply range.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Bucket {
    pub first_ply: usize,
    pub last_ply: usize,
    pub positions: usize,
    /// `(level, at risk, lost)` for each level 1, 3, ...
    pub levels: Vec<(u8, usize, usize)>,
}

impl Bucket {
    /// Per level: `12.5% (3, 1 lost)` — the share at risk, the count, the lost ones.
    pub fn cells(&self) -> impl Iterator<Item = String> + '_ {
        self.levels.iter().map(|&(_, at, lost)| {
            format!(
                "{:.1}% ({at}, {lost} lost)",
                100.0 * at as f64 / self.positions.max(1) as f64
            )
        })
    }
}

/// Plies per row of the summary.
pub const BUCKET: usize = 10;

impl Summary {
    pub fn add(&mut self, game: &GameReport, max_level: u8) {
        self.games += 1;
        self.positions += game.plies.len();
        let falls = game.falls().count();
        self.games_with_a_fall += usize::from(falls > 0);
        self.falls += falls;
        self.punished += game.falls().filter(|p| p.punished == Some(true)).count();
        let levels: Vec<u8> = (1..=max_level).step_by(2).collect();
        for p in &game.plies {
            let bucket = self.bucket((p.ply - 1) / BUCKET, &levels);
            bucket.positions += 1;
            for (k, at_risk, lost) in &mut bucket.levels {
                *at_risk += usize::from(p.analysis.at_risk_within(*k));
                *lost += usize::from(p.analysis.lost_within(*k));
            }
        }
    }

    /// The bucket at `index`, with the empty ones before it added as needed.
    fn bucket(&mut self, index: usize, levels: &[u8]) -> &mut Bucket {
        while self.buckets.len() <= index {
            let first = self.buckets.len() * BUCKET + 1;
            self.buckets.push(Bucket {
                first_ply: first,
                last_ply: first + BUCKET - 1,
                positions: 0,
                levels: levels.iter().map(|&k| (k, 0, 0)).collect(),
            });
        }
        &mut self.buckets[index]
    }

    /// Adds the summary of another shard of games (`--skip`/`--take`): the counts add up,
    /// so the merged summary is the one a single run over all the games would print. The
    /// shards must have been analysed to the same levels.
    pub fn merge(&mut self, other: &Summary) -> Result<(), String> {
        let (mine, theirs) = (self.levels(), other.levels());
        if !self.buckets.is_empty() && !other.buckets.is_empty() && mine != theirs {
            return Err(format!("analysed to other levels: {mine:?} and {theirs:?}"));
        }
        self.games += other.games;
        self.skipped += other.skipped;
        self.positions += other.positions;
        self.games_with_a_fall += other.games_with_a_fall;
        self.falls += other.falls;
        self.punished += other.punished;
        for (index, b) in other.buckets.iter().enumerate() {
            let bucket = self.bucket(index, &theirs);
            bucket.positions += b.positions;
            for (m, o) in bucket.levels.iter_mut().zip(&b.levels) {
                m.1 += o.1;
                m.2 += o.2;
            }
        }
        Ok(())
    }

    /// The levels the buckets count (1, 3, ... up to the maximum analysed).
    pub fn levels(&self) -> Vec<u8> {
        self.buckets
            .first()
            .map(|b| b.levels.iter().map(|l| l.0).collect())
            .unwrap_or_default()
    }

    /// The summary as Markdown.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let levels = self.levels();
        let head: String = levels.iter().map(|k| format!(" level ≤ {k} |")).collect();
        let _ = writeln!(s, "| plies | positions |{head}");
        let _ = writeln!(s, "|---|---:|{}", "---:|".repeat(levels.len()));
        for b in self.buckets.iter().filter(|b| b.positions > 0) {
            let cells: String = b.cells().map(|c| format!(" {c} |")).collect();
            let _ = writeln!(
                s,
                "| {}–{} | {} |{cells}",
                b.first_ply, b.last_ply, b.positions
            );
        }
        let percent = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        if self.skipped > 0 {
            let _ = writeln!(s, "\nunreadable games skipped: {}", self.skipped);
        }
        let _ = writeln!(
            s,
            "\n{} games, {} positions; a player walked into a trap in {} games ({:.1}%): {} trap \
             moves played, {} punished by mate within their level ({:.1}%)",
            self.games,
            self.positions,
            self.games_with_a_fall,
            percent(self.games_with_a_fall, self.games),
            self.falls,
            self.punished,
            percent(self.punished, self.falls)
        );
        s
    }
}

/// One line per fall of a game, for the table format.
pub fn falls_text(game: &GameReport) -> String {
    let mut s = String::new();
    for p in game.falls() {
        let a = &p.analysis;
        let refutation = p
            .played_trap()
            .map(|t| t.line.join(" "))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "game {} ({} - {}), ply {}: {} walks into a level-{} trap ({} of {} moves are traps); {}: {refutation}",
            game.number,
            game.white,
            game.black,
            p.ply,
            p.played_san,
            p.played_level.unwrap_or(0),
            a.traps.len(),
            a.legal_moves,
            if p.punished == Some(true) {
                "punished"
            } else {
                "not punished"
            },
        );
    }
    s
}

/// One CSV row per analysed position.
pub fn csv_rows(game: &GameReport) -> String {
    let mut s = String::new();
    for p in &game.plies {
        let a = &p.analysis;
        let traps: Vec<String> = a
            .traps
            .iter()
            .map(|t| format!("{}:{}", t.uci, t.level))
            .collect();
        let _ = writeln!(
            s,
            "{},{},\"{}\",{},{},{},{},{},{},{}",
            game.number,
            p.ply,
            a.fen,
            a.legal_moves,
            traps.join(" "),
            a.lost,
            p.played_san,
            p.played_level.map_or(String::new(), |l| l.to_string()),
            p.punished.map_or(String::new(), |b| b.to_string()),
            a.nodes
        );
    }
    s
}

/// The header of [`csv_rows`].
pub const CSV_HEADER: &str =
    "game,ply,fen,legal_moves,traps,lost,played,played_level,punished,nodes";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::pgn::read_games;

    #[test]
    fn a_blunder_into_mate_is_found_and_counted_as_punished() {
        // Fool's mate: 2. g4?? walks into 2... Qh4# (level 1), and Black plays it.
        let games = read_games(
            "[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n",
        )
        .unwrap();
        let report = analyse_game(&games[0], 1, |_| true);
        assert_eq!(report.plies.len(), 4);
        let falls: Vec<&PlyReport> = report.falls().collect();
        assert_eq!(falls.len(), 1);
        assert_eq!(falls[0].ply, 3);
        assert_eq!(falls[0].played_san, "g4");
        assert_eq!(falls[0].played_level, Some(1));
        assert_eq!(falls[0].punished, Some(true));
        let mut summary = Summary::default();
        summary.add(&report, 1);
        assert_eq!(
            (summary.games_with_a_fall, summary.falls, summary.punished),
            (1, 1, 1)
        );
        assert_eq!(summary.buckets[0].positions, 4);
        // Only the position before 2. g4 is at risk at level 1 (only g4 allows Qh4#).
        assert_eq!(summary.buckets[0].levels[0].1, 1);
        assert!(summary.table().contains("in 1 games (100.0%)"));
        assert!(falls_text(&report).contains("ply 3: g4 walks into a level-1 trap"));
        assert_eq!(csv_rows(&report).lines().count(), 4);
    }

    #[test]
    fn a_trap_played_in_a_lost_position_is_no_fall() {
        // After 1. f3 e5 2. g4 Qh4# there is nothing left; take a game that ends in a lost
        // position instead: Black's only move Kb8 allows Rh8#, and White plays it.
        let games = read_games("[FEN \"k7/8/1K6/8/8/8/8/7R b - - 0 1\"]\n\n1... Kb8 2. Rh8# 1-0\n")
            .unwrap();
        let report = analyse_game(&games[0], 1, |_| true);
        assert!(report.plies[0].analysis.lost);
        assert_eq!(report.plies[0].played_level, Some(1));
        assert_eq!(report.falls().count(), 0);
        let mut summary = Summary::default();
        summary.add(&report, 1);
        assert_eq!(summary.buckets[0].levels[0], (1, 1, 1));
        assert_eq!(summary.falls, 0);
    }

    #[test]
    fn shards_merge_into_the_summary_of_the_whole() {
        let text = "1. f3 e5 2. g4 Qh4# 0-1\n\n1. f3 e5 2. g4 d6 3. e4 Qh4# 0-1\n\n\
                    1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 0-1\n";
        let games = read_games(text).unwrap();
        let reports: Vec<GameReport> = games.iter().map(|g| analyse_game(g, 3, |_| true)).collect();
        let mut whole = Summary::default();
        reports.iter().for_each(|r| whole.add(r, 3));
        let mut first = Summary::default();
        first.add(&reports[0], 3);
        let mut rest = Summary::default();
        rest.add(&reports[1], 3);
        rest.add(&reports[2], 3);
        // Through JSON, as `traps merge` reads the shards' files.
        let rest: Summary = serde_json::from_str(&serde_json::to_string(&rest).unwrap()).unwrap();
        let mut merged = Summary::default();
        merged.merge(&first).unwrap();
        merged.merge(&rest).unwrap();
        assert_eq!(merged.table(), whole.table());
        assert_eq!(merged.buckets.len(), 2);
        let mut shallow = Summary::default();
        shallow.add(&reports[0], 1);
        assert!(merged.merge(&shallow).unwrap_err().contains("other levels"));
    }

    #[test]
    fn a_fall_is_shown_with_the_refutation_of_the_move_played() {
        // From a round robin at 1,000 nodes: 22 of 26 moves are traps here, and the first
        // level-3 trap (h3: ...Qxe2+ Kg1 Qxg2#) is refuted otherwise than Bxe4 (...Qxe2+
        // Kg1 Rd1#), the move played; the table once showed the first one's line.
        let pgn = "[FEN \"5r2/pp2b1kp/7N/2P4n/1Pq1bP2/P5P1/3rPKBP/7R w - - 5 21\"]\n\n\
                   21. Bxe4 Qxe2+ 22. Kg1 Rd1# 0-1\n";
        let games = read_games(pgn).unwrap();
        let report = analyse_game(&games[0], 3, |ply| ply == 1);
        let ply = &report.plies[0];
        assert_eq!(ply.played_trap().map(|t| t.uci.as_str()), Some("g2e4"));
        let text = falls_text(&report);
        assert!(
            text.contains("Bxe4 walks into a level-3 trap")
                && text.ends_with("punished: Qxe2+ Kg1 Rd1#\n"),
            "{text}"
        );
    }

    #[test]
    fn an_unpunished_trap_and_a_ply_selection() {
        // 2. g4?? allows Qh4#, but Black plays 2... d6 instead.
        let games = read_games("1. f3 e5 2. g4 d6 *\n").unwrap();
        let report = analyse_game(&games[0], 1, |p| p == 3);
        assert_eq!(report.plies.len(), 1);
        assert_eq!(report.plies[0].punished, Some(false));
    }
}
