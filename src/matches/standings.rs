//! The state of a match as games come in: W-D-L and game pairs per pairing, the points
//! table for the Bradley–Terry ratings, terminations by kind, and the SPRT's decision.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use super::Finished;
use super::spec::SpecError;
use super::stats::{EloModel, Tally, bradley_terry, sprt_bounds};

/// SPRT parameters: the bounds in logistic or normalized Elo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
}

impl Default for Sprt {
    fn default() -> Self {
        Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }
    }
}

/// Which hypothesis the SPRT accepted, and when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// True: H1 (`elo1`) accepted; false: H0.
    pub h1: bool,
    /// The Elo of the accepted hypothesis.
    pub elo: f64,
    /// Games finished when it was decided.
    pub game: usize,
    pub llr: f64,
}

/// An SPRT decides from this many games on (twenty game pairs).
pub const MIN_SPRT_GAMES: u32 = 40;

impl Sprt {
    /// `elo0=0 elo1=5 alpha=0.05 beta=0.05 model=logistic|normalized`, any subset,
    /// defaults for the rest.
    pub fn parse(words: &[String]) -> Result<Self, SpecError> {
        let bad = |what: String| SpecError::Limit(format!("--sprt: {what}"));
        let mut s = Sprt::default();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| bad(format!("'{w}' is not key=value")))?;
            if k == "model" {
                s.model = match v {
                    "logistic" => EloModel::Logistic,
                    "normalized" => EloModel::Normalized,
                    _ => return Err(bad(format!("model '{v}': logistic or normalized"))),
                };
                continue;
            }
            let v: f64 = v.parse().map_err(|_| bad(format!("bad number in '{w}'")))?;
            match k {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                _ => return Err(bad(format!("unknown key '{k}'"))),
            }
        }
        let probability = |p: f64| p > 0.0 && p < 1.0;
        if !(probability(s.alpha) && probability(s.beta)) || s.elo0 >= s.elo1 {
            return Err(bad("need 0 < alpha, beta < 1 and elo0 < elo1".into()));
        }
        Ok(s)
    }

    /// The decision bounds on the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        sprt_bounds(self.alpha, self.beta)
    }

    /// The decision the tally calls for, if it calls for one. None before
    /// [`MIN_SPRT_GAMES`]: the variance in the LLR is the sample's, and over a handful of
    /// pairs that all went one way it is near zero, so the LLR leaps past a bound on no
    /// real evidence (a match once "accepted" +15 Elo after four game pairs, one won 2-0
    /// and three 1½-½).
    pub fn decide(&self, tally: &Tally, game: usize) -> Option<Decision> {
        if tally.games() < MIN_SPRT_GAMES {
            return None;
        }
        let llr = tally.llr(self.model, self.elo0, self.elo1);
        let (lo, hi) = self.bounds();
        (llr >= hi || llr <= lo).then_some(Decision {
            h1: llr >= hi,
            elo: if llr >= hi { self.elo1 } else { self.elo0 },
            game,
            llr,
        })
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (h, bound) = if self.h1 {
            ("H1", "elo1")
        } else {
            ("H0", "elo0")
        };
        write!(
            f,
            "{h} accepted ({bound}={}) at game {} with LLR {:.3}",
            self.elo, self.game, self.llr
        )
    }
}

/// What a match has produced so far.
#[derive(Debug, Clone)]
pub struct Standings {
    pub pairings: Vec<(usize, usize)>,
    /// Per pairing, from its first player's side.
    pub tallies: Vec<Tally>,
    /// First game of each pair: (pairing, pair) → points of the pairing's first player.
    half_pairs: HashMap<(usize, usize), f64>,
    /// `points[i][j]`: what player `i` scored against `j`, in `games[i][j]` games.
    pub points: Vec<Vec<f64>>,
    pub games: Vec<Vec<u32>>,
    pub terminations: BTreeMap<String, u32>,
    pub done: usize,
    /// Set by [`Standings::add`] the first time the SPRT decides (two players).
    pub decision: Option<Decision>,
    sprt: Option<Sprt>,
    /// Games that repeated an earlier game of the same pairing move for move, from the
    /// same start with the same colours: they are not independent results.
    pub repeated: u32,
    /// Fingerprints of the games so far (pairing, White, start, moves).
    seen: HashSet<u64>,
}

impl Standings {
    pub fn new(players: usize, pairings: Vec<(usize, usize)>, sprt: Option<Sprt>) -> Self {
        Standings {
            tallies: vec![Tally::default(); pairings.len()],
            pairings,
            half_pairs: HashMap::new(),
            points: vec![vec![0.0; players]; players],
            games: vec![vec![0; players]; players],
            terminations: BTreeMap::new(),
            done: 0,
            decision: None,
            sprt,
            repeated: 0,
            seen: HashSet::new(),
        }
    }

    /// Counts a finished game. Returns false once the SPRT has decided: no new game
    /// should start (games under way still count).
    pub fn add(&mut self, f: &Finished) -> bool {
        let job = f.job;
        let (a, _) = self.pairings[job.pairing];
        let white_points = f.record.outcome.white_points();
        let first_points = if job.white == a {
            white_points
        } else {
            1.0 - white_points
        };
        let tally = &mut self.tallies[job.pairing];
        tally.add(first_points);
        if let Some(other) = self.half_pairs.remove(&(job.pairing, job.pair)) {
            tally.add_pair(other, first_points);
        } else {
            self.half_pairs
                .insert((job.pairing, job.pair), first_points);
        }
        self.points[job.white][job.black] += white_points;
        self.points[job.black][job.white] += 1.0 - white_points;
        self.games[job.white][job.black] += 1;
        self.games[job.black][job.white] += 1;
        *self
            .terminations
            .entry(f.record.termination.kind())
            .or_default() += 1;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (job.pairing, job.white, f.record.start.key()).hash(&mut h);
        for m in &f.record.moves {
            m.mv.hash(&mut h);
        }
        if !self.seen.insert(h.finish()) {
            self.repeated += 1;
        }
        self.done += 1;
        if self.decision.is_none()
            && let Some(sprt) = self.sprt
        {
            self.decision = sprt.decide(&self.tallies[0], self.done);
        }
        self.decision.is_none()
    }

    /// The SPRT the match runs, if any.
    pub fn sprt(&self) -> Option<Sprt> {
        self.sprt
    }

    /// Per player: games played and points scored.
    pub fn totals(&self, player: usize) -> (u32, f64) {
        (
            self.games[player].iter().sum(),
            self.points[player].iter().sum(),
        )
    }
}

impl Standings {
    /// The table per pairing (Markdown): games, W-D-L, score, Elo, LOS, pentanomial;
    /// then the terminations and, with an SPRT, its state.
    /// The warning for repeated games, if there were any.
    pub fn repeated_warning(&self) -> Option<String> {
        (self.repeated > 0).then(|| {
            format!(
                "warning: {} of {} games repeated an earlier game of the same pairing move for move \
                 (same opening, same colours); the statistics count them as independent — \
                 use more openings (or --openings-order random) or players that vary",
                self.repeated, self.done
            )
        })
    }

    pub fn pairing_table(&self, names: &[String]) -> String {
        let mut s = String::from(
            "| pairing | games | W-D-L | score | Elo ± 95% | nElo ± 95% | LOS | pentanomial 0-½-1-1½-2 |\n|---|---:|---|---:|---|---|---:|---|\n",
        );
        for (i, &(a, b)) in self.pairings.iter().enumerate() {
            let t = self.tallies[i];
            let penta: Vec<String> = t.penta.iter().map(u32::to_string).collect();
            let _ = writeln!(
                s,
                "| {} vs {} | {} | {}-{}-{} | {:.1}% | {} | {} | {:.1}% | {} |",
                names[a],
                names[b],
                t.games(),
                t.wins,
                t.draws,
                t.losses,
                100.0 * t.score(),
                elo_text(&t),
                nelo_text(&t),
                100.0 * t.los(),
                penta.join("-")
            );
        }
        let reasons: Vec<String> = self
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(s, "\nterminations: {}", reasons.join(", "));
        if let Some(sprt) = self.sprt {
            let t = self.tallies[0];
            let (lo, hi) = sprt.bounds();
            let (units, unit) = if t.pairs() > 0 {
                (t.pairs(), "pairs")
            } else {
                (t.games(), "games")
            };
            let verdict = self
                .decision
                .map_or("no decision yet".into(), |d| d.to_string());
            let _ = writeln!(
                s,
                "SPRT elo0={} elo1={} alpha={} beta={} model={}: LLR {:.3} (bounds {lo:.3}, {hi:.3}) over {units} {unit}; {verdict}",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                sprt.model.name(),
                t.llr(sprt.model, sprt.elo0, sprt.elo1),
            );
        }
        s
    }

    /// The Bradley–Terry rating table of all players (Markdown), best first.
    pub fn rating_table(&self, names: &[String]) -> String {
        let elo = bradley_terry(&self.points, &self.games, 1.0);
        let mut rows: Vec<usize> = (0..names.len()).collect();
        rows.sort_by(|&x, &y| elo[y].total_cmp(&elo[x]));
        let mut s =
            String::from("| rank | player | games | score | Elo |\n|---:|---|---:|---:|---:|\n");
        for (rank, &i) in rows.iter().enumerate() {
            let (games, points) = self.totals(i);
            let score = if games > 0 {
                100.0 * points / f64::from(games)
            } else {
                0.0
            };
            let _ = writeln!(
                s,
                "| {} | {} | {games} | {score:.1}% | {} |",
                rank + 1,
                names[i],
                signed(elo[i])
            );
        }
        s.push_str(
            "\nElo: Bradley-Terry maximum likelihood over all games with one virtual draw per pairing, mean 0.\n",
        );
        s
    }

    /// The live progress line after game `f`: `[n/N] white - black: result (termination)
    /// | a vs b: +w =d -l score Elo`.
    pub fn progress_line(&self, f: &Finished, names: &[String], total: usize) -> String {
        let t = self.tallies[f.job.pairing];
        let (a, b) = self.pairings[f.job.pairing];
        format!(
            "[{}/{total}] {} - {}: {} ({})  |  {} vs {}: +{} ={} -{} {:.1}% Elo {}",
            self.done,
            f.record.white,
            f.record.black,
            super::pgn::result_token(f.record.outcome),
            f.record.termination,
            names[a],
            names[b],
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score(),
            elo_text(&t)
        )
    }
}

/// `+12.3`, never `-0.0`.
pub fn signed(x: f64) -> String {
    // Adding 0.0 turns -0.0 into 0.0.
    format!("{:+.1}", x + 0.0)
}

/// `Elo ± margin`, or `+inf`/`-inf` when one side scored everything (no finite estimate).
pub fn elo_text(t: &Tally) -> String {
    let e = t.elo();
    if t.games() > 0 && t.wins == t.games() {
        "+inf".into()
    } else if t.games() > 0 && t.losses == t.games() {
        "-inf".into()
    } else {
        format!("{} ± {:.1}", signed(e.elo), e.margin())
    }
}

/// `nElo ± margin`; `-` where the results have no spread (every game alike).
pub fn nelo_text(t: &Tally) -> String {
    let e = t.nelo();
    if e == Default::default() {
        "-".into()
    } else {
        format!("{} ± {:.1}", signed(e.elo), e.margin())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::matches::game::{GameRecord, Outcome, Termination};
    use crate::matches::{Job, pairings, schedule};

    fn finished(job: Job, outcome: Outcome, termination: Termination) -> Finished {
        Finished {
            job,
            record: GameRecord {
                white: String::new(),
                black: String::new(),
                start: Position::startpos(),
                moves: Vec::new(),
                outcome,
                termination,
                round: String::new(),
                white_tc: String::new(),
                black_tc: String::new(),
            },
        }
    }

    #[test]
    fn a_game_repeated_move_for_move_with_the_same_colours_is_counted() {
        let pairs = pairings(2, false);
        let jobs = schedule(&pairs, 4, &[0]);
        let mut st = Standings::new(2, pairs, None);
        let mate = Termination::Rules(crate::board::Terminal::Checkmate);
        // Jobs 0 and 2 have the same colours, 1 and 3 the other colours.
        for job in &jobs {
            st.add(&finished(*job, Outcome::WhiteWins, mate.clone()));
        }
        assert_eq!(st.repeated, 2);
        assert!(st.repeated_warning().unwrap().contains("2 of 4 games"));
        let mut other = finished(jobs[0], Outcome::WhiteWins, mate);
        other.record.start = Position::from_fen_auto("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
        st.add(&other);
        assert_eq!(st.repeated, 2, "another opening is another game");
    }

    #[test]
    fn pairs_points_and_terminations_are_counted_from_each_side() {
        let pairs = pairings(3, false);
        let jobs = schedule(&pairs, 2, &[0]);
        let mut st = Standings::new(3, pairs, None);
        let mate = Termination::Rules(crate::board::Terminal::Checkmate);
        // Pairing 0 (players 0 and 1): 0 wins with White, then 0 wins with Black.
        st.add(&finished(jobs[0], Outcome::WhiteWins, mate.clone()));
        st.add(&finished(jobs[1], Outcome::BlackWins, mate.clone()));
        // Pairing 1 (0 and 2): a draw.
        let illegal = Termination::Failed(crate::matches::player::ThinkError::Illegal("a".into()));
        st.add(&finished(jobs[2], Outcome::Draw, illegal));
        let t = st.tallies[0];
        assert_eq!((t.wins, t.draws, t.losses), (2, 0, 0));
        assert_eq!(t.penta, [0, 0, 0, 0, 1]);
        assert_eq!(st.tallies[1].draws, 1);
        assert_eq!(st.totals(0), (3, 2.5));
        assert_eq!(st.totals(1), (2, 0.0));
        assert_eq!(st.terminations["checkmate"], 2);
        assert_eq!(st.terminations["illegal move"], 1);
        assert_eq!(st.done, 3);
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let table = st.pairing_table(&names);
        assert!(
            table.contains("| a vs b | 2 | 2-0-0 | 100.0% | +inf |"),
            "{table}"
        );
        assert!(
            table.contains("terminations: checkmate 2, illegal move 1"),
            "{table}"
        );
        let ratings = st.rating_table(&names);
        assert!(ratings.contains("| 1 | a | 3 | 83.3% |"), "{ratings}");
    }

    /// Feeds the jobs until the SPRT stops the match (the game it stopped at): the first
    /// player wins every other pair and draws the rest.
    fn play_lopsided(st: &mut Standings, jobs: &[Job]) -> Option<usize> {
        for (i, job) in jobs.iter().enumerate() {
            let outcome = match (job.pair % 2, job.white == 0) {
                (0, true) => Outcome::WhiteWins,
                (0, false) => Outcome::BlackWins,
                _ => Outcome::Draw,
            };
            let mate = Termination::Rules(crate::board::Terminal::Checkmate);
            if !st.add(&finished(*job, outcome, mate)) {
                return Some(i + 1);
            }
        }
        None
    }

    #[test]
    fn the_sprt_decides_a_lopsided_match_and_stays_decided() {
        let sprt = Sprt::parse(&["elo0=0".into(), "elo1=10".into()]).unwrap();
        let pairs = pairings(2, false);
        let jobs = schedule(&pairs, 400, &[0]);
        let mut st = Standings::new(2, pairs, Some(sprt));
        let stopped_at = play_lopsided(&mut st, &jobs);
        let decision = st.decision.unwrap();
        assert!(decision.h1);
        assert!(decision.game >= MIN_SPRT_GAMES as usize, "{decision}");
        assert_eq!(Some(decision.game), stopped_at);
        assert!(decision.llr >= sprt.bounds().1);
        assert!(
            decision
                .to_string()
                .starts_with("H1 accepted (elo1=10) at game")
        );
        assert!(Sprt::parse(&["elo0=5".into(), "elo1=1".into()]).is_err());
        assert!(Sprt::parse(&["alpha=2".into()]).is_err());
        assert!(Sprt::parse(&["x".into()]).is_err());
        let normalized = Sprt::parse(&["model=normalized".into(), "elo1=10".into()]).unwrap();
        assert_eq!(normalized.model, EloModel::Normalized);
        assert!(Sprt::parse(&["model=bayesian".into()]).is_err());
        // The same lopsided match decides in normalized Elo too, and the table says so.
        let mut st = Standings::new(2, pairings(2, false), Some(normalized));
        play_lopsided(&mut st, &jobs);
        assert!(st.decision.unwrap().h1);
        let table = st.pairing_table(&["a".into(), "b".into()]);
        assert!(table.contains("model=normalized: LLR"), "{table}");
        assert!(table.contains("| nElo ± 95% |"), "{table}");
    }

    #[test]
    fn elo_text_of_sweeps_and_even_scores() {
        let mut t = Tally::default();
        t.add(1.0);
        assert_eq!(elo_text(&t), "+inf");
        t.add(0.0);
        assert!(elo_text(&t).starts_with("+0.0 ± "), "{}", elo_text(&t));
        assert_eq!(signed(-0.0), "+0.0");
    }
}
