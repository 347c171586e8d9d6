//! Engine-vs-engine matches: time controls and per-player limits, the schedule (match,
//! round robin, gauntlet; each opening twice with colours swapped), one game under the
//! rules with clocks kept from wall time and adjudication, and the parallel runner.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod pgn;
pub mod stats;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{Color, Move, Position as _};

use crate::board::{Game, Position};
use crate::cli::player::{Player, ThinkError};
use crate::cli::spec::EngineSpec;
use crate::search::Limits;

/// Set (by the Ctrl-C handler of `searchlight match`) to end a match: no new games start,
/// and games under way stop before their next move and are dropped (not reported).
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// The termination of a game dropped because of [`INTERRUPT`].
const INTERRUPTED: &str = "interrupted";

fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

/// A clock: `moves/base+inc` (seconds), `base+inc`, or `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Moves per period (the clock gets `base` again after each period).
    pub moves: Option<u32>,
    pub base: Duration,
    pub inc: Duration,
}

fn seconds(text: &str) -> Result<Duration, String> {
    let s: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(0.0..1e7).contains(&s) {
        return Err(format!("'{text}' seconds out of range"));
    }
    Ok(Duration::from_secs_f64(s))
}

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (
                Some(
                    m.parse::<u32>()
                        .ok()
                        .filter(|&m| m > 0)
                        .ok_or(format!("bad moves per period in '{text}'"))?,
                ),
                rest,
            ),
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (seconds(b)?, seconds(i)?),
            None => (seconds(rest)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(format!("'{text}': the base time must be positive"));
        }
        Ok(TimeControl { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.inc.is_zero() {
            write!(f, "+{}", self.inc.as_secs_f64())?;
        }
        Ok(())
    }
}

/// What limits a player's moves: a clock, a fixed time per move, nodes, depth (any mix).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerLimits {
    pub tc: Option<TimeControl>,
    pub st: Option<Duration>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
}

impl PlayerLimits {
    /// The limits a spec's `tc=`, `st=`, `nodes=`, `depth=` fields give; without any of
    /// them, the global time control.
    pub fn from_spec(spec: &EngineSpec, global: Option<TimeControl>) -> Result<Self, String> {
        let mut limits = PlayerLimits {
            tc: spec.field("tc").map(str::parse).transpose()?,
            st: spec.field("st").map(seconds).transpose()?,
            nodes: spec
                .field("nodes")
                .map(|v| v.parse().map_err(|_| format!("bad nodes={v}")))
                .transpose()?,
            depth: spec
                .field("depth")
                .map(|v| v.parse().map_err(|_| format!("bad depth={v}")))
                .transpose()?,
        };
        if limits == PlayerLimits::default() {
            limits.tc = global;
        }
        if limits == PlayerLimits::default() {
            return Err(format!(
                "{}: no limit (give --tc, or tc=, st=, nodes=, depth= in the spec)",
                spec.name
            ));
        }
        Ok(limits)
    }

    /// How the PGN's TimeControl tag shows the limits.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(tc.to_string());
        }
        if let Some(st) = self.st {
            parts.push(format!("st={}", st.as_secs_f64()));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        parts.join(" ")
    }
}

/// A player of the match: how to start it, its limits and its display name.
#[derive(Debug, Clone)]
pub struct Participant {
    pub spec: EngineSpec,
    pub limits: PlayerLimits,
    pub name: String,
}

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
    /// Why it ended: "checkmate", "time forfeit", "illegal move e2e5", ...
    pub termination: String,
    pub round: String,
    pub white_tc: String,
    pub black_tc: String,
}

/// Score adjudication.
#[derive(Debug, Clone, Copy, Default)]
pub struct Adjudication {
    /// `(moves, cp)`: both engines see one side at least `cp` behind for `moves` moves each.
    pub resign: Option<(u32, i32)>,
    /// `(moves, cp)`: both engines see the score within `cp` of 0 for `moves` moves each.
    pub draw: Option<(u32, i32)>,
}

/// Settings of a game beyond the players.
#[derive(Debug, Clone, Copy)]
pub struct GameSettings {
    pub adjudication: Adjudication,
    /// How far an external engine may exceed its clock or move time.
    pub grace: Duration,
    /// How long an external engine without a clock may think before it counts as hung.
    pub hang: Duration,
}

/// One game to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// Position in the schedule (the PGN round is `id + 1`).
    pub id: usize,
    /// Index into the pairings.
    pub pairing: usize,
    /// Index of the game pair within the pairing (same opening, colours swapped).
    pub pair: usize,
    pub white: usize,
    pub black: usize,
    /// Index into the openings.
    pub opening: usize,
}

/// The pairings: two players, a gauntlet (the first against each other), or all pairs.
pub fn pairings(players: usize, gauntlet: bool) -> Vec<(usize, usize)> {
    if gauntlet {
        (1..players).map(|j| (0, j)).collect()
    } else {
        (0..players)
            .flat_map(|i| (i + 1..players).map(move |j| (i, j)))
            .collect()
    }
}

/// `games` games per pairing: pair `k` plays opening `order[k % len]` twice, the
/// pairing's first player White in the first game. Pairings are interleaved.
pub fn schedule(pairings: &[(usize, usize)], games: u32, order: &[usize]) -> Vec<Job> {
    let mut jobs = Vec::new();
    let games = games as usize;
    if order.is_empty() {
        return jobs;
    }
    for pair in 0..games.div_ceil(2) {
        for (p, &(a, b)) in pairings.iter().enumerate() {
            for colour in 0..2 {
                if pair * 2 + colour >= games {
                    continue;
                }
                let (white, black) = if colour == 0 { (a, b) } else { (b, a) };
                jobs.push(Job {
                    id: jobs.len(),
                    pairing: p,
                    pair,
                    white,
                    black,
                    opening: order[pair % order.len()],
                });
            }
        }
    }
    jobs
}

/// Opening indices in order: sequential, or shuffled with a seeded generator.
pub fn opening_order(count: usize, random: bool, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    if random {
        let mut state = seed;
        for i in (1..count).rev() {
            let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
    }
    order
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The rules' verdict on the current position, if the game is over.
fn rules_end(game: &Game) -> Option<(Outcome, String)> {
    let pos = game.position();
    if pos.legal_moves().is_empty() {
        return Some(if pos.is_check() {
            (Outcome::win(!pos.turn()), "checkmate".into())
        } else {
            (Outcome::Draw, "stalemate".into())
        });
    }
    if pos.is_insufficient_material() {
        return Some((Outcome::Draw, "insufficient material".into()));
    }
    if game.is_threefold() {
        return Some((Outcome::Draw, "threefold repetition".into()));
    }
    if game.is_fifty_moves() {
        return Some((Outcome::Draw, "fifty-move rule".into()));
    }
    None
}

/// A reported score (`cp N`, `mate N`) in centipawns for adjudication, and as the PGN
/// comment shows it (`+0.35`, `-M3`), from the mover's side.
fn parse_score(score: &str) -> Option<(i32, String)> {
    let (kind, value) = score.split_once(' ')?;
    let v: i32 = value.trim().parse().ok()?;
    match kind {
        "cp" => Some((v, format!("{:+.2}", f64::from(v) / 100.0))),
        "mate" => {
            let sign = if v > 0 { '+' } else { '-' };
            let cp = if v > 0 { 100_000 - v } else { -100_000 - v };
            Some((cp, format!("{sign}M{}", v.unsigned_abs())))
        }
        _ => None,
    }
}

/// True when the last `2 * moves` plies all have a White-view score satisfying `test`.
fn streak(scores: &[Option<i32>], moves: u32, test: impl Fn(i32) -> bool) -> bool {
    let plies = 2 * moves as usize;
    scores.len() >= plies
        && scores[scores.len() - plies..]
            .iter()
            .all(|s| s.is_some_and(&test))
}

/// Plays one game. `players` and `limits` are indexed White, Black. Returns the record
/// and the side whose engine failed (crashed, hung, answered nonsense), if one did.
pub fn play_game(
    players: [&mut Player; 2],
    limits: [&PlayerLimits; 2],
    start: &Position,
    settings: &GameSettings,
    names: [&str; 2],
    round: String,
) -> (GameRecord, Option<Color>) {
    let mut record = GameRecord {
        white: names[0].to_string(),
        black: names[1].to_string(),
        start: start.clone(),
        moves: Vec::new(),
        outcome: Outcome::Draw,
        termination: String::new(),
        round,
        white_tc: limits[0].describe(),
        black_tc: limits[1].describe(),
    };
    let mut failed = None;
    let [white, black] = players;
    let mut players = [white, black];
    for (i, p) in players.iter_mut().enumerate() {
        if let Err(e) = p.new_game() {
            let side = if i == 0 { Color::White } else { Color::Black };
            record.outcome = Outcome::win(!side);
            record.termination = format!("engine failed: {e}");
            return (record, Some(side));
        }
    }
    let mut game = Game::new(start.clone());
    let mut clocks: [Option<Duration>; 2] =
        [limits[0].tc.map(|t| t.base), limits[1].tc.map(|t| t.base)];
    let mut moves_made = [0u32; 2];
    let mut scores: Vec<Option<i32>> = Vec::new();
    let (outcome, termination) = loop {
        if interrupted() {
            break (Outcome::Draw, INTERRUPTED.to_string());
        }
        if let Some(end) = rules_end(&game) {
            break end;
        }
        let side = game.position().turn();
        let me = usize::from(side == Color::Black);
        let lim = limits[me];
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
            if let (Some(left), Some(tc)) = (clocks[i], limits[i].tc) {
                *time = Some(left);
                *inc = (!tc.inc.is_zero()).then_some(tc.inc);
            }
        }
        if let Some(m) = lim.tc.and_then(|t| t.moves) {
            go.movestogo = Some(m - moves_made[me] % m);
        }
        let external = players[me].is_external();
        let grace = if external {
            settings.grace
        } else {
            Duration::ZERO
        };
        let budget = match (clocks[me], lim.st) {
            (Some(c), Some(s)) => Some(c.min(s)),
            (c, s) => c.or(s),
        };
        let deadline = budget.map_or(settings.hang, |b| b + grace);
        let started = Instant::now();
        let thought = players[me].think(&game, &go, deadline);
        let elapsed = started.elapsed();
        let thought = match thought {
            Ok(t) => t,
            Err(e) => {
                failed = Some(side);
                let reason = match e {
                    ThinkError::Timeout if budget.is_some() => "time forfeit (no answer)".into(),
                    ThinkError::Timeout => format!("engine hung (no answer in {deadline:?})"),
                    other => other.to_string(),
                };
                break (Outcome::win(!side), reason);
            }
        };
        if budget.is_some_and(|b| elapsed > b + grace) {
            let opponent_can_mate = !game.position().chess().has_insufficient_material(!side);
            break if opponent_can_mate {
                (Outcome::win(!side), "time forfeit".into())
            } else {
                (Outcome::Draw, "time forfeit, opponent cannot mate".into())
            };
        }
        if let (Some(left), Some(tc)) = (clocks[me], lim.tc) {
            moves_made[me] += 1;
            let mut next = left.saturating_sub(elapsed) + tc.inc;
            if tc.moves.is_some_and(|m| moves_made[me] % m == 0) {
                next += tc.base;
            }
            clocks[me] = Some(next);
        }
        let parsed = thought.score.as_deref().and_then(parse_score);
        let mut comment = String::new();
        if let Some((_, text)) = &parsed {
            comment.push_str(text);
            if let Some(d) = thought.depth {
                comment.push_str(&format!("/{d}"));
            }
            comment.push(' ');
        }
        comment.push_str(&format!("{:.2}s", elapsed.as_secs_f64()));
        scores.push(parsed.map(|(cp, _)| if side == Color::White { cp } else { -cp }));
        record.moves.push(PlayedMove {
            mv: thought.best,
            comment,
        });
        game.push(thought.best);
        let adj = settings.adjudication;
        if let Some((moves, cp)) = adj.resign {
            if streak(&scores, moves, |s| s >= cp) {
                break (Outcome::WhiteWins, "adjudication: resign".into());
            }
            if streak(&scores, moves, |s| s <= -cp) {
                break (Outcome::BlackWins, "adjudication: resign".into());
            }
        }
        if let Some((moves, cp)) = adj.draw
            && streak(&scores, moves, |s| s.abs() <= cp)
        {
            break (Outcome::Draw, "adjudication: draw".into());
        }
    };
    record.outcome = outcome;
    record.termination = termination;
    (record, failed)
}

/// A game the runner finished.
#[derive(Debug, Clone)]
pub struct Finished {
    pub job: Job,
    pub record: GameRecord,
}

/// Starts a participant's player, or takes the running one from the worker's cache.
fn take_player(
    cache: &mut HashMap<usize, Player>,
    index: usize,
    who: &Participant,
) -> Result<Player, String> {
    match cache.remove(&index) {
        Some(p) => Ok(p),
        None => Player::start(&who.spec),
    }
}

/// Plays one scheduled game on a worker's players (started, reused, or restarted after
/// a failure).
fn run_job(
    cache: &mut HashMap<usize, Player>,
    job: Job,
    participants: &[Participant],
    openings: &[Position],
    settings: &GameSettings,
) -> Option<Finished> {
    let (w, b) = (&participants[job.white], &participants[job.black]);
    let start = &openings[job.opening];
    let round = (job.id + 1).to_string();
    let white = take_player(cache, job.white, w);
    let black = take_player(cache, job.black, b);
    let forfeit = |outcome: Outcome, termination: String| GameRecord {
        white: w.name.clone(),
        black: b.name.clone(),
        start: start.clone(),
        moves: Vec::new(),
        outcome,
        termination,
        round: round.clone(),
        white_tc: w.limits.describe(),
        black_tc: b.limits.describe(),
    };
    let record = match (white, black) {
        (Ok(mut white), Ok(mut black)) => {
            let (record, failed) = play_game(
                [&mut white, &mut black],
                [&w.limits, &b.limits],
                start,
                settings,
                [&w.name, &b.name],
                round.clone(),
            );
            // A player that failed is dropped (its process killed and reaped) and
            // started afresh for its next game.
            if failed != Some(Color::White) {
                cache.insert(job.white, white);
            }
            if failed != Some(Color::Black) {
                cache.insert(job.black, black);
            }
            record
        }
        (Err(e), Ok(black)) => {
            cache.insert(job.black, black);
            forfeit(Outcome::BlackWins, format!("engine failed to start: {e}"))
        }
        (Ok(white), Err(e)) => {
            cache.insert(job.white, white);
            forfeit(Outcome::WhiteWins, format!("engine failed to start: {e}"))
        }
        (Err(e), Err(_)) => forfeit(Outcome::Draw, format!("both engines failed to start: {e}")),
    };
    if record.termination == INTERRUPTED || interrupted() {
        return None;
    }
    Some(Finished { job, record })
}

/// Plays the jobs on `concurrency` workers; `on_game` sees each game as it finishes (on
/// the calling thread) and returns false to stop the match (games under way finish).
pub fn run(
    jobs: &[Job],
    participants: &[Participant],
    openings: &[Position],
    settings: &GameSettings,
    concurrency: usize,
    mut on_game: impl FnMut(Finished) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam::channel::unbounded::<Finished>();
    std::thread::scope(|scope| {
        for _ in 0..concurrency.max(1).min(jobs.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut cache: HashMap<usize, Player> = HashMap::new();
                while !stop.load(Ordering::Relaxed) && !interrupted() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&job) = jobs.get(i) else { break };
                    let Some(finished) = run_job(&mut cache, job, participants, openings, settings)
                    else {
                        break;
                    };
                    if tx.send(finished).is_err() {
                        break;
                    }
                }
                // Dropping the cache ends the worker's engines (external ones are told to
                // quit, then killed if need be, and reaped).
            });
        }
        drop(tx);
        for finished in rx {
            if !on_game(finished) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print() {
        let tc: TimeControl = "40/60+0.6".parse().unwrap();
        assert_eq!(tc.moves, Some(40));
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.inc, Duration::from_millis(600));
        assert_eq!(tc.to_string(), "40/60+0.6");
        assert_eq!(
            "5+0.05".parse::<TimeControl>().unwrap().to_string(),
            "5+0.05"
        );
        assert_eq!("10".parse::<TimeControl>().unwrap().to_string(), "10");
        assert!("0+1".parse::<TimeControl>().is_err());
        assert!("x/5".parse::<TimeControl>().is_err());
    }

    #[test]
    fn spec_limits_override_the_global_clock() {
        let global = Some("5+0.05".parse().unwrap());
        let spec = EngineSpec::parse("pvs nodes=2000").unwrap();
        let l = PlayerLimits::from_spec(&spec, global).unwrap();
        assert_eq!((l.tc, l.nodes), (None, Some(2000)));
        let spec = EngineSpec::parse("pvs Hash=8").unwrap();
        assert_eq!(PlayerLimits::from_spec(&spec, global).unwrap().tc, global);
        assert!(PlayerLimits::from_spec(&spec, None).is_err());
        let spec = EngineSpec::parse("pvs st=0.5 depth=3").unwrap();
        let l = PlayerLimits::from_spec(&spec, global).unwrap();
        assert_eq!(l.describe(), "st=0.5 depth=3");
    }

    #[test]
    fn schedule_swaps_colours_per_opening() {
        let jobs = schedule(&pairings(2, false), 5, &[7, 3]);
        let seen: Vec<_> = jobs
            .iter()
            .map(|j| (j.white, j.black, j.opening, j.pair))
            .collect();
        assert_eq!(
            seen,
            vec![
                (0, 1, 7, 0),
                (1, 0, 7, 0),
                (0, 1, 3, 1),
                (1, 0, 3, 1),
                (0, 1, 7, 2)
            ]
        );
        assert_eq!(pairings(3, false), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairings(3, true), vec![(0, 1), (0, 2)]);
        assert_eq!(schedule(&pairings(3, false), 4, &[0]).len(), 12);
    }

    #[test]
    fn random_order_is_a_seeded_permutation() {
        let a = opening_order(50, true, 7);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_eq!(a, opening_order(50, true, 7));
        assert_ne!(a, opening_order(50, true, 8));
        assert_eq!(opening_order(3, false, 7), vec![0, 1, 2]);
    }

    #[test]
    fn scores_and_adjudication_streaks() {
        assert_eq!(parse_score("cp 35").unwrap().1, "+0.35");
        assert_eq!(parse_score("cp -120").unwrap(), (-120, "-1.20".into()));
        assert_eq!(parse_score("mate -3").unwrap().1, "-M3");
        assert!(parse_score("mate 2").unwrap().0 > 90_000);
        let s = [Some(10), Some(-700), Some(-800), Some(-900), Some(-750)];
        assert!(streak(&s, 2, |v| v <= -600));
        assert!(!streak(&s, 3, |v| v <= -600));
        assert!(!streak(&[None, Some(0)], 1, |v| v.abs() <= 5));
    }

    #[test]
    fn two_local_players_finish_a_game() {
        let spec = EngineSpec::parse("pvs").unwrap();
        let mut a = Player::start(&spec).unwrap();
        let mut b = Player::start(&spec).unwrap();
        let limits = PlayerLimits {
            nodes: Some(500),
            ..PlayerLimits::default()
        };
        let settings = GameSettings {
            adjudication: Adjudication {
                resign: Some((3, 500)),
                draw: Some((10, 5)),
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
        );
        assert_eq!(failed, None);
        assert!(!record.termination.is_empty());
        assert!(!record.moves.is_empty());
    }
}
