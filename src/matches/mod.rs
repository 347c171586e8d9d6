//! Engine-vs-engine matches: players given as specifications (in-process backends or
//! external UCI engines), the schedule (match, round robin, gauntlet; each opening twice
//! with colours swapped), one game under the rules with clocks and adjudication
//! ([`game`]), the parallel runner, the standings with their statistics and SPRT, and PGN.

pub mod engines_file;
pub mod game;
pub mod json;
pub mod limits;
pub mod openings;
pub mod pgn;
pub mod player;
pub mod spec;
pub mod standings;
pub mod stats;
pub mod uci_client;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::Color;

pub use game::{
    Adjudication, Draw, GameRecord, GameSettings, Outcome, PlayedMove, Resign, Termination,
};
pub use limits::{PlayerLimits, TimeControl};
use player::Player;
use spec::EngineSpec;

use crate::board::Position;
use crate::tree::Rng;

/// Set (by the Ctrl-C handler of `searchlight match`) to end a match: no new games start,
/// and games under way stop before their next move and are dropped (not reported).
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPT.load(Ordering::Relaxed)
}

/// A player of the match: how to start it, its limits and its display name.
#[derive(Debug, Clone)]
pub struct Participant {
    pub spec: EngineSpec,
    pub limits: PlayerLimits,
    pub name: String,
}

impl Participant {
    /// Plays the same move in the same position every time, as far as the match can tell:
    /// nodes or depth only (no clock, whose timing varies), one thread, no random levels.
    pub fn is_deterministic(&self) -> bool {
        let option = |name: &str| {
            self.spec
                .options
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        self.limits.tc.is_none()
            && self.limits.st.is_none()
            && option("Threads").is_none_or(|v| v.trim() == "1")
            && option("UCI_LimitStrength").is_none_or(|v| !v.trim().eq_ignore_ascii_case("true"))
    }
}

/// The players of a match from their specifications (`conf=` resolved against the
/// engines-file `entries`). A name already taken gets the options appended
/// (`pvs Hash=1`), then a number.
pub fn participants(
    specs: &[String],
    global_tc: Option<TimeControl>,
    entries: &[engines_file::EngineConfig],
) -> Result<Vec<Participant>, spec::SpecError> {
    let mut participants: Vec<Participant> = Vec::new();
    for text in specs {
        let spec = EngineSpec::parse(text)?.resolve_conf(entries)?;
        let limits = PlayerLimits::from_spec(&spec, global_tc)?;
        let mut name = spec.name.clone();
        if participants.iter().any(|p| p.name == name) {
            for (k, v) in &spec.options {
                name = format!("{name} {k}={v}");
            }
        }
        let base = name.clone();
        let mut n = 2;
        while participants.iter().any(|p| p.name == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        participants.push(Participant { spec, limits, name });
    }
    Ok(participants)
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

/// Opening indices in order: sequential, or shuffled by a seeded generator.
pub fn opening_order(count: usize, random: bool, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    if random {
        Rng::new(seed).shuffle(&mut order);
    }
    order
}

/// A game the runner finished.
#[derive(Debug, Clone)]
pub struct Finished {
    pub job: Job,
    pub record: GameRecord,
}

/// Plays one scheduled game on a worker's players (started, reused, or restarted after a
/// failure). `None` when the match was interrupted during it.
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
    let mut take = |index: usize, who: &Participant| match cache.remove(&index) {
        Some(p) => Ok(p),
        None => Player::start(&who.spec),
    };
    let (white, black) = (take(job.white, w), take(job.black, b));
    let forfeit = |outcome: Outcome, termination: Termination| GameRecord {
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
            let (record, failed) = game::play_game(
                [&mut white, &mut black],
                [&w.limits, &b.limits],
                start,
                settings,
                [&w.name, &b.name],
                round.clone(),
                &interrupted,
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
            forfeit(Outcome::BlackWins, Termination::StartFailed(e.to_string()))
        }
        (Ok(white), Err(e)) => {
            cache.insert(job.white, white);
            forfeit(Outcome::WhiteWins, Termination::StartFailed(e.to_string()))
        }
        (Err(e), Err(_)) => forfeit(Outcome::Draw, Termination::BothFailedToStart(e.to_string())),
    };
    if record.termination == Termination::Interrupted || interrupted() {
        return None;
    }
    Some(Finished { job, record })
}

/// Plays the jobs on `concurrency` workers; `on_game` sees each game as it finishes (on
/// the calling thread) and returns false to stop the match (games under way finish).
/// Each worker keeps its own players between games; when it ends, dropping them ends the
/// engines (external ones are told to quit, killed if need be, and reaped).
pub fn run(
    jobs: &[Job],
    participants: &[Participant],
    openings: &[Position],
    settings: &GameSettings,
    concurrency: usize,
    mut on_game: impl FnMut(Finished) -> bool,
) {
    crate::pool::run(
        jobs.len(),
        concurrency,
        HashMap::<usize, Player>::new,
        |cache, i| run_job(cache, jobs[i], participants, openings, settings),
        |_, finished| match finished {
            Some(f) => on_game(f) && !interrupted(),
            None => false,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn duplicate_names_get_their_options_then_a_number() {
        let specs: Vec<String> = ["pvs nodes=10", "pvs Hash=1 nodes=10", "pvs Hash=1 nodes=10"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names: Vec<String> = participants(&specs, None, &[])
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["pvs", "pvs Hash=1", "pvs Hash=1-2"]);
        assert!(
            participants(&["pvs".to_string()], None, &[]).is_err(),
            "no limit"
        );
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
}
