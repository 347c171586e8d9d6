//! One game between two players under the rules: clocks kept from wall time around each
//! move, forfeits for players that fail, score adjudication, and the record of it all.

use std::fmt;
use std::time::{Duration, Instant};

use shakmaty::{Color, Move, Position as _};
use shakmaty_syzygy::Wdl;

use super::limits::PlayerLimits;
use super::player::{Player, ThinkError};
use crate::board::tablebase::Tablebases;
use crate::board::{Game, Position, Terminal};
use crate::search::Limits;
use crate::value::UciScore;

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

impl Outcome {
    /// The win for a colour.
    pub fn win(color: Color) -> Self {
        match color {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }

    /// White's points.
    pub fn white_points(self) -> f64 {
        match self {
            Outcome::WhiteWins => 1.0,
            Outcome::BlackWins => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// Checkmate, stalemate, threefold repetition, the fifty-move rule, dead material.
    Rules(Terminal),
    /// Both engines saw one side lost for long enough.
    AdjudicatedWin,
    /// Both engines saw a level position for long enough.
    AdjudicatedDraw,
    /// The endgame tables know the result (`--tb`).
    AdjudicatedByTablebase,
    /// The game reached `--maxmoves` moves undecided: a draw.
    AdjudicatedLength,
    /// The mover overstepped its time; a draw when the opponent cannot mate.
    TimeForfeit {
        opponent_can_mate: bool,
    },
    /// No answer before the deadline: with a clock a time forfeit, without one a hang.
    NoAnswer {
        clock: bool,
        waited: Duration,
    },
    /// The engine crashed, answered an illegal move or nonsense.
    Failed(ThinkError),
    /// `ucinewgame` went unanswered.
    NewGameFailed(String),
    /// The engine could not be started.
    StartFailed(String),
    BothFailedToStart(String),
    /// The match was interrupted (Ctrl-C) during the game; it is not reported.
    Interrupted,
}

impl Termination {
    /// The kind of end, for the match summary ("illegal move e2e5" is "illegal move").
    pub fn kind(&self) -> String {
        match self {
            Termination::TimeForfeit {
                opponent_can_mate: true,
            }
            | Termination::NoAnswer { clock: true, .. } => "time forfeit".into(),
            Termination::NoAnswer { clock: false, .. } => "engine hung".into(),
            Termination::Failed(ThinkError::Illegal(_)) => "illegal move".into(),
            Termination::NewGameFailed(_) | Termination::StartFailed(_) => "engine failed".into(),
            Termination::BothFailedToStart(_) => "both engines failed".into(),
            other => other.to_string(),
        }
    }
}

impl Termination {
    /// The PGN standard's `Termination` value (the detail goes in a comment).
    pub fn pgn_value(&self) -> &'static str {
        match self {
            Termination::Rules(_) => "normal",
            Termination::AdjudicatedWin
            | Termination::AdjudicatedDraw
            | Termination::AdjudicatedByTablebase
            | Termination::AdjudicatedLength => "adjudication",
            Termination::TimeForfeit { .. } | Termination::NoAnswer { clock: true, .. } => {
                "time forfeit"
            }
            Termination::Failed(ThinkError::Illegal(_)) => "rules infraction",
            Termination::NoAnswer { clock: false, .. }
            | Termination::Failed(_)
            | Termination::NewGameFailed(_)
            | Termination::StartFailed(_)
            | Termination::BothFailedToStart(_) => "abandoned",
            Termination::Interrupted => "unterminated",
        }
    }
}

impl fmt::Display for Termination {
    /// The detail, as the PGN comment after the last move and the summary show it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules(t) => f.write_str(match t {
                Terminal::Checkmate => "checkmate",
                Terminal::Stalemate => "stalemate",
                Terminal::InsufficientMaterial => "insufficient material",
                Terminal::Repetition => "threefold repetition",
                Terminal::FiftyMoves => "fifty-move rule",
            }),
            Termination::AdjudicatedWin => f.write_str("adjudication: resign"),
            Termination::AdjudicatedDraw => f.write_str("adjudication: draw"),
            Termination::AdjudicatedByTablebase => f.write_str("adjudication: tablebase"),
            Termination::AdjudicatedLength => f.write_str("adjudication: maximal game length"),
            Termination::TimeForfeit {
                opponent_can_mate: true,
            } => f.write_str("time forfeit"),
            Termination::TimeForfeit {
                opponent_can_mate: false,
            } => f.write_str("time forfeit, opponent cannot mate"),
            Termination::NoAnswer { clock: true, .. } => f.write_str("time forfeit (no answer)"),
            Termination::NoAnswer { waited, .. } => {
                write!(f, "engine hung (no answer in {waited:?})")
            }
            Termination::Failed(e) => write!(f, "{e}"),
            Termination::NewGameFailed(e) => write!(f, "engine failed: {e}"),
            Termination::StartFailed(e) => write!(f, "engine failed to start: {e}"),
            Termination::BothFailedToStart(e) => write!(f, "both engines failed to start: {e}"),
            Termination::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// A move and its PGN comment.
#[derive(Debug, Clone)]
pub struct PlayedMove {
    pub mv: Move,
    pub comment: String,
}

/// A finished game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub white: String,
    pub black: String,
    pub start: Position,
    pub moves: Vec<PlayedMove>,
    pub outcome: Outcome,
    pub termination: Termination,
    pub round: String,
    pub white_tc: String,
    pub black_tc: String,
}

/// Resign adjudication (cutechess-cli's and fastchess's `-resign`): a side loses when its
/// engine has seen itself at least `cp` behind for `moves` of its moves in a row — and,
/// `two_sided`, the opponent's engine has seen it as far ahead for as long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resign {
    pub moves: u32,
    pub cp: i32,
    pub two_sided: bool,
}

/// Draw adjudication (`-draw`): both engines have seen the score within `cp` of 0 for
/// `moves` moves each, and the game has lasted at least `after` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    pub after: u32,
    pub moves: u32,
    pub cp: i32,
}

/// Score adjudication, and adjudication by the endgame tables.
#[derive(Debug, Clone, Default)]
pub struct Adjudication {
    pub resign: Option<Resign>,
    pub draw: Option<Draw>,
    /// cutechess-cli's `-tb`: a position the tables hold ends the game with their result.
    pub tablebases: Option<Tablebases>,
    /// cutechess-cli's `-maxmoves`: a game still going after this many moves of each side
    /// (from its start position) is a draw.
    pub max_moves: Option<u32>,
}

impl Resign {
    /// `movecount=N score=CP [twosided=true|false]` (the cutechess-cli form, one-sided
    /// unless told) or `N CP` (the short form: two-sided).
    pub fn parse(words: &[String]) -> Result<Self, String> {
        if let Some((moves, cp)) = short_form(words) {
            return Ok(Resign {
                moves,
                cp,
                two_sided: true,
            });
        }
        let mut r = Resign {
            moves: 0,
            cp: 0,
            two_sided: false,
        };
        for (key, value) in key_values(words, "--resign")? {
            match key {
                "movecount" => r.moves = number(key, value)?,
                "score" => r.cp = number(key, value)?,
                "twosided" => r.two_sided = boolean(key, value)?,
                _ => {
                    return Err(format!(
                        "--resign: unknown key '{key}' (movecount, score, twosided)"
                    ));
                }
            }
        }
        if r.moves == 0 || r.cp <= 0 {
            return Err("--resign needs movecount=N and score=CP, both above 0".into());
        }
        Ok(r)
    }
}

impl Draw {
    /// `movenumber=N movecount=N score=CP` (the cutechess-cli form) or `N CP` (the short
    /// form: from the first move).
    pub fn parse(words: &[String]) -> Result<Self, String> {
        if let Some((moves, cp)) = short_form(words) {
            return Ok(Draw {
                after: 0,
                moves,
                cp,
            });
        }
        let mut d = Draw {
            after: 0,
            moves: 0,
            cp: -1,
        };
        for (key, value) in key_values(words, "--draw")? {
            match key {
                "movenumber" => d.after = number(key, value)?,
                "movecount" => d.moves = number(key, value)?,
                "score" => d.cp = number(key, value)?,
                _ => {
                    return Err(format!(
                        "--draw: unknown key '{key}' (movenumber, movecount, score)"
                    ));
                }
            }
        }
        if d.moves == 0 || d.cp < 0 {
            return Err("--draw needs movecount=N (above 0) and score=CP".into());
        }
        Ok(d)
    }
}

/// `MOVES CP`, two plain numbers (moves at least 1), if that is what the words are.
fn short_form(words: &[String]) -> Option<(u32, i32)> {
    match words {
        [moves, cp] => {
            let moves: i64 = moves.trim().parse().ok()?;
            let cp: i32 = cp.trim().parse().ok()?;
            Some((moves.clamp(1, i64::from(u32::MAX)) as u32, cp))
        }
        _ => None,
    }
}

fn key_values<'a>(words: &'a [String], flag: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
    words
        .iter()
        .map(|w| {
            w.split_once('=').ok_or_else(|| {
                format!("{flag}: '{w}' is neither KEY=VALUE nor the short form MOVES CP")
            })
        })
        .collect()
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{key}={value}: not a number"))
}

fn boolean(key: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{key}={value}: true or false")),
    }
}

impl Adjudication {
    /// The tables' verdict on the position the game has reached, if they hold it: the
    /// result with best play under the fifty-move rule, as cutechess-cli adjudicates it.
    fn tablebase_verdict(&self, game: &Game) -> Option<(Outcome, Termination)> {
        let pos = game.position();
        let wdl = self.tablebases.as_ref()?.outcome(pos)?;
        let outcome = match wdl {
            Wdl::Win => Outcome::win(pos.turn()),
            Wdl::Loss => Outcome::win(!pos.turn()),
            Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => Outcome::Draw,
        };
        Some((outcome, Termination::AdjudicatedByTablebase))
    }

    /// The verdict on the White-view scores of the plies so far (the last one played by
    /// `last_mover`), if any.
    fn verdict(&self, scores: &[Option<i32>], last_mover: Color) -> Option<(Outcome, Termination)> {
        if let Some(r) = self.resign {
            for loser in [Color::White, Color::Black] {
                // The loser's own plies: the last ply's, or the one before.
                let own = usize::from(loser != last_mover);
                let behind = |s: i32| {
                    if loser == Color::White {
                        s <= -r.cp
                    } else {
                        s >= r.cp
                    }
                };
                if every_other(scores, own, r.moves, behind)
                    && (!r.two_sided || every_other(scores, 1 - own, r.moves, behind))
                {
                    return Some((Outcome::win(!loser), Termination::AdjudicatedWin));
                }
            }
        }
        match self.draw {
            Some(d)
                if scores.len() / 2 >= d.after as usize
                    && every_other(scores, 0, d.moves, |s| s.abs() <= d.cp)
                    && every_other(scores, 1, d.moves, |s| s.abs() <= d.cp) =>
            {
                Some((Outcome::Draw, Termination::AdjudicatedDraw))
            }
            _ => self
                .max_moves
                .filter(|&n| scores.len() >= 2 * n as usize)
                .map(|_| (Outcome::Draw, Termination::AdjudicatedLength)),
        }
    }
}

/// True when the last `moves` plies of one side — counting back from `skip` plies before
/// the end, every other ply — all have a White-view score satisfying `test`.
fn every_other(
    scores: &[Option<i32>],
    skip: usize,
    moves: u32,
    test: impl Fn(i32) -> bool,
) -> bool {
    (0..moves as usize).all(|k| {
        let back = skip + 2 * k;
        back < scores.len() && scores[scores.len() - 1 - back].is_some_and(&test)
    })
}

/// Settings of a game beyond the players.
#[derive(Debug, Clone)]
pub struct GameSettings {
    pub adjudication: Adjudication,
    /// How far an external engine may exceed its clock or move time.
    pub grace: Duration,
    /// How long an external engine without a clock may think before it counts as hung.
    pub hang: Duration,
}

/// A score as the PGN comment shows it, from the mover's side: `+0.35`, `-M3`.
pub fn score_text(score: UciScore) -> String {
    match score {
        UciScore::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        UciScore::Mate(n) => {
            let sign = if n > 0 { '+' } else { '-' };
            format!("{sign}M{}", n.unsigned_abs())
        }
    }
}

/// Both players' clocks and limits, indexed White, Black.
struct Clocks<'a> {
    limits: [&'a PlayerLimits; 2],
    left: [Option<Duration>; 2],
    moves_made: [u32; 2],
}

impl<'a> Clocks<'a> {
    fn new(limits: [&'a PlayerLimits; 2]) -> Self {
        Clocks {
            left: [limits[0].tc.map(|t| t.base), limits[1].tc.map(|t| t.base)],
            limits,
            moves_made: [0; 2],
        }
    }

    /// The `go` limits for the side `me`: its own budget and both clocks.
    fn go(&self, me: usize) -> Limits {
        let lim = self.limits[me];
        let mut go = Limits {
            depth: lim.depth,
            nodes: lim.nodes,
            movetime: lim.st,
            ..Limits::default()
        };
        for (i, (time, inc)) in [(&mut go.wtime, &mut go.winc), (&mut go.btime, &mut go.binc)]
            .into_iter()
            .enumerate()
        {
            if let (Some(left), Some(tc)) = (self.left[i], self.limits[i].tc) {
                *time = Some(left);
                *inc = (!tc.inc.is_zero()).then_some(tc.inc);
            }
        }
        if let Some(m) = lim.tc.and_then(|t| t.moves) {
            go.movestogo = Some(m - self.moves_made[me] % m);
        }
        go
    }

    /// The time `me` may use for this move, if anything limits it by time.
    fn budget(&self, me: usize) -> Option<Duration> {
        match (self.left[me], self.limits[me].st) {
            (Some(c), Some(s)) => Some(c.min(s)),
            (c, s) => c.or(s),
        }
    }

    /// Takes `elapsed` off `me`'s clock and adds what the time control gives back.
    fn charge(&mut self, me: usize, elapsed: Duration) {
        if let (Some(left), Some(tc)) = (self.left[me], self.limits[me].tc) {
            self.moves_made[me] += 1;
            let mut next = left.saturating_sub(elapsed) + tc.inc;
            if tc
                .moves
                .is_some_and(|m| self.moves_made[me].is_multiple_of(m))
            {
                next += tc.base;
            }
            self.left[me] = Some(next);
        }
    }
}

/// Whether the match is being interrupted (checked before every move).
pub type Interrupted<'a> = &'a dyn Fn() -> bool;

/// Plays one game. `players` and `limits` are indexed White, Black. Returns the record
/// and the side whose engine failed (crashed, hung, answered nonsense), if one did.
pub fn play_game(
    players: [&mut Player; 2],
    limits: [&PlayerLimits; 2],
    start: &Position,
    settings: &GameSettings,
    names: [&str; 2],
    round: String,
    interrupted: Interrupted<'_>,
) -> (GameRecord, Option<Color>) {
    let mut record = GameRecord {
        white: names[0].to_string(),
        black: names[1].to_string(),
        start: start.clone(),
        moves: Vec::new(),
        outcome: Outcome::Draw,
        termination: Termination::Interrupted,
        round,
        white_tc: limits[0].describe(),
        black_tc: limits[1].describe(),
    };
    let mut players = players;
    for (i, p) in players.iter_mut().enumerate() {
        if let Err(e) = p.new_game() {
            let side = if i == 0 { Color::White } else { Color::Black };
            record.outcome = Outcome::win(!side);
            record.termination = Termination::NewGameFailed(e.to_string());
            return (record, Some(side));
        }
    }
    let mut game = Game::new(start.clone());
    let mut clocks = Clocks::new(limits);
    let mut scores: Vec<Option<i32>> = Vec::new();
    let mut failed = None;
    let (outcome, termination) = loop {
        if interrupted() {
            break (Outcome::Draw, Termination::Interrupted);
        }
        if let Some(t) = game.end() {
            let outcome = match t {
                Terminal::Checkmate => Outcome::win(!game.position().turn()),
                _ => Outcome::Draw,
            };
            break (outcome, Termination::Rules(t));
        }
        if let Some(verdict) = settings.adjudication.tablebase_verdict(&game) {
            break verdict;
        }
        let side = game.position().turn();
        let me = usize::from(side == Color::Black);
        let grace = if players[me].is_external() {
            settings.grace
        } else {
            Duration::ZERO
        };
        let budget = clocks.budget(me);
        let deadline = budget.map_or(settings.hang, |b| b + grace);
        let started = Instant::now();
        let thought = players[me].think(&game, &clocks.go(me), deadline);
        let elapsed = started.elapsed();
        let thought = match thought {
            Ok(t) => t,
            Err(e) => {
                failed = Some(side);
                let termination = match e {
                    ThinkError::Timeout => Termination::NoAnswer {
                        clock: budget.is_some(),
                        waited: deadline,
                    },
                    other => Termination::Failed(other),
                };
                break (Outcome::win(!side), termination);
            }
        };
        if budget.is_some_and(|b| elapsed > b + grace) {
            let opponent_can_mate = !game.position().chess().has_insufficient_material(!side);
            let outcome = if opponent_can_mate {
                Outcome::win(!side)
            } else {
                Outcome::Draw
            };
            break (outcome, Termination::TimeForfeit { opponent_can_mate });
        }
        clocks.charge(me, elapsed);
        let mut comment = String::new();
        if let Some(score) = thought.score {
            comment.push_str(&score_text(score));
            if let Some(d) = thought.depth {
                comment.push_str(&format!("/{d}"));
            }
            comment.push(' ');
        }
        comment.push_str(&format!("{:.2}s", elapsed.as_secs_f64()));
        let white_view = |cp: i32| if side == Color::White { cp } else { -cp };
        scores.push(thought.score.map(|s| white_view(s.centipawns())));
        record.moves.push(PlayedMove {
            mv: thought.best,
            comment,
        });
        game.push(thought.best);
        if let Some(verdict) = settings.adjudication.verdict(&scores, side) {
            break verdict;
        }
    };
    record.outcome = outcome;
    record.termination = termination;
    (record, failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::spec::EngineSpec;

    #[test]
    fn scores_and_adjudication_streaks() {
        assert_eq!(score_text(UciScore::Cp(35)), "+0.35");
        assert_eq!(score_text(UciScore::Cp(-120)), "-1.20");
        assert_eq!(score_text(UciScore::Mate(-3)), "-M3");
        // White-view scores; the last ply was White's.
        let s = [Some(10), Some(-700), Some(-800), Some(-900), Some(-750)];
        assert!(every_other(&s, 0, 2, |v| v <= -600));
        assert!(every_other(&s, 1, 2, |v| v <= -600));
        assert!(!every_other(&s, 0, 3, |v| v <= -600));
        assert!(!every_other(&[None, Some(0)], 1, 1, |v| v.abs() <= 5));
        let words = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        let adj = Adjudication {
            resign: Some(Resign::parse(&words("2 600")).unwrap()),
            draw: Some(Draw::parse(&words("1 5")).unwrap()),
            ..Adjudication::default()
        };
        assert_eq!(
            adj.verdict(&s, Color::White),
            Some((Outcome::BlackWins, Termination::AdjudicatedWin))
        );
        assert_eq!(
            adj.verdict(&[Some(3), Some(-2)], Color::Black),
            Some((Outcome::Draw, Termination::AdjudicatedDraw))
        );
        assert_eq!(adj.verdict(&[Some(3), Some(-200)], Color::Black), None);
        // One-sided: White's own engine gave up; Black's engine (-100) did not agree.
        let one_sided = Adjudication {
            resign: Some(Resign::parse(&words("movecount=2 score=600")).unwrap()),
            draw: None,
            ..Adjudication::default()
        };
        let t = [Some(-700), Some(-100), Some(-650)];
        assert_eq!(
            one_sided.verdict(&t, Color::White),
            Some((Outcome::BlackWins, Termination::AdjudicatedWin))
        );
        assert_eq!(adj.verdict(&t, Color::White), None);
        // Draws wait for `movenumber`.
        let late = Adjudication {
            resign: None,
            draw: Some(Draw::parse(&words("movenumber=2 movecount=1 score=5")).unwrap()),
            ..Adjudication::default()
        };
        assert_eq!(late.verdict(&[Some(0), Some(0)], Color::Black), None);
        assert!(late.verdict(&[Some(0); 4], Color::Black).is_some());
        // `--maxmoves 2`: undecided after two moves a side, scores or not, it is a draw;
        // a resignation on the same ply comes first, as in cutechess-cli.
        let short = Adjudication {
            max_moves: Some(2),
            ..one_sided
        };
        assert_eq!(short.verdict(&[None; 3], Color::White), None);
        assert_eq!(
            short.verdict(&[None; 4], Color::Black),
            Some((Outcome::Draw, Termination::AdjudicatedLength))
        );
        assert_eq!(
            short.verdict(
                &[Some(-700), Some(-100), Some(-650), Some(-90)],
                Color::Black
            ),
            Some((Outcome::BlackWins, Termination::AdjudicatedWin))
        );
    }

    #[test]
    fn the_cutechess_forms_and_the_short_forms_agree() {
        let words = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            Resign::parse(&words("movecount=3 score=400 twosided=true")),
            Resign::parse(&words("3 400"))
        );
        assert_eq!(
            Draw::parse(&words("movenumber=0 movecount=8 score=10")),
            Draw::parse(&words("8 10"))
        );
        assert!(
            !Resign::parse(&words("movecount=3 score=400"))
                .unwrap()
                .two_sided
        );
        for bad in [
            "movecount=3",
            "movecount=x score=4",
            "3",
            "foo=1 score=3 movecount=2",
            "3 400 5",
        ] {
            assert!(Resign::parse(&words(bad)).is_err(), "{bad}");
        }
        assert!(Draw::parse(&words("movenumber=40 score=10")).is_err());
    }

    #[test]
    fn terminations_print_as_the_pgn_shows_them_and_group_by_kind() {
        let illegal = Termination::Failed(ThinkError::Illegal("e2e5".into()));
        assert_eq!(illegal.to_string(), "illegal move e2e5");
        assert_eq!(illegal.kind(), "illegal move");
        assert_eq!(illegal.pgn_value(), "rules infraction");
        assert_eq!(
            Termination::Rules(Terminal::Stalemate).pgn_value(),
            "normal"
        );
        assert_eq!(Termination::AdjudicatedDraw.pgn_value(), "adjudication");
        assert_eq!(
            Termination::Failed(ThinkError::Crashed).pgn_value(),
            "abandoned"
        );
        let silent = Termination::NoAnswer {
            clock: true,
            waited: Duration::from_secs(1),
        };
        assert_eq!(silent.to_string(), "time forfeit (no answer)");
        assert_eq!(silent.kind(), "time forfeit");
        assert_eq!(silent.pgn_value(), "time forfeit");
        let start = Termination::StartFailed("cannot start 'x'".into());
        assert_eq!(start.kind(), "engine failed");
        assert_eq!(
            Termination::Rules(Terminal::Repetition).to_string(),
            "threefold repetition"
        );
    }

    /// A game between two local players ends by a rule or an adjudication that holds on
    /// its record: the moves replay legally, and the result is the one the end implies.
    #[test]
    fn two_local_players_finish_a_game_by_the_rules() {
        let spec = EngineSpec::parse("pvs").unwrap();
        let mut a = Player::start(&spec).unwrap();
        let mut b = Player::start(&spec).unwrap();
        let limits = PlayerLimits {
            nodes: Some(500),
            ..PlayerLimits::default()
        };
        let settings = GameSettings {
            adjudication: Adjudication {
                resign: Some(Resign {
                    moves: 3,
                    cp: 500,
                    two_sided: true,
                }),
                draw: Some(Draw {
                    after: 0,
                    moves: 10,
                    cp: 5,
                }),
                ..Adjudication::default()
            },
            grace: Duration::from_millis(100),
            hang: Duration::from_secs(10),
        };
        let (record, failed) = play_game(
            [&mut a, &mut b],
            [&limits, &limits],
            &Position::startpos(),
            &settings,
            ["a", "b"],
            "1".into(),
            &|| false,
        );
        assert_eq!(failed, None);
        assert!(record.moves.len() >= 2, "{:?}", record.termination);
        let mut game = Game::new(Position::startpos());
        for m in &record.moves {
            assert!(game.position().legal_moves().contains(&m.mv));
            game.push(m.mv);
        }
        match &record.termination {
            Termination::Rules(t) => {
                assert_eq!(game.end(), Some(*t));
                let expected = match t {
                    Terminal::Checkmate => Outcome::win(!game.position().turn()),
                    _ => Outcome::Draw,
                };
                assert_eq!(record.outcome, expected);
            }
            Termination::AdjudicatedWin => assert_ne!(record.outcome, Outcome::Draw),
            Termination::AdjudicatedDraw => assert_eq!(record.outcome, Outcome::Draw),
            other => panic!("unexpected end: {other}"),
        }
    }
}
