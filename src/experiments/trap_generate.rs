//! The traps measurement of Understanding Sampling-Based Adversarial Search Methods (2012)
//! §4.2: semi-random games (each move uniformly random with probability `random_prob`,
//! otherwise the move of an engine: `pvs` at a fixed depth on `Eval=material`, or any
//! player a `match` SPEC describes — GNU Chess at depth 8 as in the thesis), the positions
//! at chosen plies analysed for traps, and the share of positions at risk at each level
//! per ply with its 95% interval.

use crate::board::eval::RESEARCH_EVAL;
use std::fmt::Write as _;

use super::plot::{Series, bar_chart};
use std::time::Duration;

use shakmaty::Move;

use crate::board::{Game, Position};
use crate::engine::Engine;
use crate::matches::limits::PlayerLimits;
use crate::matches::player::Player;
use crate::matches::spec::EngineSpec;
use crate::search::Limits;
use crate::search::info::Silent;
use crate::traps::{Analysis, analyse};
use crate::tree::Rng;
use crate::tree::rng::hash;

/// The games to play and what to analyse in them.
#[derive(Debug, Clone)]
pub struct GenerateSpec {
    pub games: usize,
    /// Plies at which the position is analysed.
    pub plies: Vec<usize>,
    pub random_prob: f64,
    /// Depth of the `pvs` moves.
    pub depth: u32,
    pub max_level: u8,
    pub seed: u64,
    pub threads: usize,
    /// A `match` player SPEC for the engine's moves (`"cmd=/usr/games/gnuchess -u
    /// depth=8"`); none: `pvs` at `depth` on `Eval=material`.
    pub engine: Option<String>,
}

/// One analysed position.
#[derive(Debug, Clone)]
pub struct Sample {
    pub game: usize,
    pub ply: usize,
    pub analysis: Analysis,
}

/// Who plays the engine's moves.
enum Mover {
    Research(Box<Engine>),
    Player(Box<Player>, Limits),
}

impl Mover {
    fn start(spec: &GenerateSpec) -> Result<Self, String> {
        let Some(text) = &spec.engine else {
            return Engine::with_options(&[
                ("Search", "pvs"),
                ("Hash", "16"),
                ("Eval", RESEARCH_EVAL),
            ])
            .map(|e| Mover::Research(Box::new(e)))
            .map_err(|e| e.to_string());
        };
        let player_spec = EngineSpec::parse(text).map_err(|e| e.to_string())?;
        let limits = PlayerLimits::from_spec(&player_spec, None).map_err(|e| e.to_string())?;
        if limits.tc.is_some() {
            return Err(format!("{text}: give depth=, nodes= or st=, not a clock"));
        }
        let go = Limits {
            depth: limits.depth,
            nodes: limits.nodes,
            movetime: limits.st,
            ..Limits::default()
        };
        let player = Player::start(&player_spec).map_err(|e| e.to_string())?;
        Ok(Mover::Player(Box::new(player), go))
    }

    fn new_game(&mut self) {
        match self {
            Mover::Research(engine) => engine.new_game(),
            Mover::Player(player, _) => {
                let _ = player.new_game();
            }
        }
    }

    /// The engine's move, if it gives one (a failed external engine gives none, and the
    /// game goes on with a random move).
    fn choose(&mut self, game: &Game, depth: u32) -> Option<Move> {
        match self {
            Mover::Research(engine) => engine.search(game, &Limits::depth(depth), &Silent).best,
            Mover::Player(player, go) => {
                let deadline = go.movetime.unwrap_or_default() + Duration::from_secs(60);
                player.think(game, go, deadline).ok().map(|t| t.best)
            }
        }
    }
}

/// The analysed positions of game `index`.
fn play_game(index: usize, spec: &GenerateSpec, engine: &mut Mover) -> Vec<Sample> {
    engine.new_game();
    let mut rng = Rng::new(hash(spec.seed ^ hash(index as u64)));
    let mut game = Game::new(Position::startpos());
    let last = spec.plies.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    for ply in 0..=last {
        if game.end().is_some() {
            break;
        }
        let pos = game.position().clone();
        if spec.plies.contains(&ply) {
            out.push(Sample {
                game: index,
                ply,
                analysis: analyse(&pos, spec.max_level),
            });
        }
        if ply == last {
            break;
        }
        let moves = pos.legal_moves();
        let random = moves[rng.below(moves.len())];
        let m = if rng.unit() <= spec.random_prob {
            random
        } else {
            engine.choose(&game, spec.depth).unwrap_or(random)
        };
        game.push(m);
    }
    out
}

/// Plays the games on `spec.threads` workers; `on_game` is called as each finishes.
pub fn generate(spec: &GenerateSpec, mut on_game: impl FnMut()) -> Result<Vec<Sample>, String> {
    // Checked once here, so that a bad SPEC fails before any game.
    drop(Mover::start(spec)?);
    let mut samples = Vec::new();
    crate::pool::run(
        spec.games,
        spec.threads,
        || Mover::start(spec).ok(),
        |engine, i| {
            engine
                .as_mut()
                .map(|e| play_game(i, spec, e))
                .unwrap_or_default()
        },
        |_, found| {
            samples.extend(found);
            on_game();
            true
        },
    );
    samples.sort_by_key(|s| (s.game, s.ply));
    Ok(samples)
}

/// The trap levels reported, up to the maximum analysed.
pub fn levels(max_level: u8) -> Vec<u8> {
    [1, 3, 5, 7]
        .into_iter()
        .filter(|&k| k <= max_level)
        .collect()
}

/// At one ply: the positions analysed, and per level how many were at risk at or below it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlyShare {
    pub ply: usize,
    pub positions: usize,
    pub at_risk: Vec<(u8, usize)>,
}

impl PlyShare {
    fn count(&self, level: u8) -> usize {
        self.at_risk
            .iter()
            .find(|(k, _)| *k == level)
            .map_or(0, |(_, n)| *n)
    }

    /// Percent of the positions at risk at `level` or below.
    pub fn percent(&self, level: u8) -> f64 {
        100.0 * self.count(level) as f64 / self.positions.max(1) as f64
    }

    /// The 95% Wilson score interval of that percentage (sound for the small counts and
    /// shares near 0 these are).
    pub fn interval(&self, level: u8) -> (f64, f64) {
        let n = self.positions as f64;
        if n == 0.0 {
            return (0.0, 100.0);
        }
        let p = self.count(level) as f64 / n;
        let z = 1.959_964_f64;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        (
            100.0 * (centre - half).max(0.0),
            100.0 * (centre + half).min(1.0),
        )
    }
}

/// The share at risk per ply and level.
pub fn shares(samples: &[Sample], plies: &[usize], levels: &[u8]) -> Vec<PlyShare> {
    plies
        .iter()
        .map(|&ply| {
            let at: Vec<&Analysis> = samples
                .iter()
                .filter(|s| s.ply == ply)
                .map(|s| &s.analysis)
                .collect();
            PlyShare {
                ply,
                positions: at.len(),
                at_risk: levels
                    .iter()
                    .map(|&k| (k, at.iter().filter(|a| a.at_risk_within(k)).count()))
                    .collect(),
            }
        })
        .collect()
}

/// One CSV row per analysed position.
pub fn samples_csv(samples: &[Sample]) -> String {
    let mut csv = String::from("game,ply,fen,shallowest_level,trap_moves,legal_moves,time_ms\n");
    for s in samples {
        let a = &s.analysis;
        let _ = writeln!(
            csv,
            "{},{},\"{}\",{},{},{},{:.1}",
            s.game,
            s.ply,
            a.fen,
            a.shallowest.map_or(String::new(), |l| l.to_string()),
            a.traps.len(),
            a.legal_moves,
            a.time.as_secs_f64() * 1000.0
        );
    }
    csv
}

/// The shares as an SVG bar chart: one group per ply, one bar per level.
pub fn chart(shares: &[PlyShare], levels: &[u8]) -> String {
    let categories: Vec<String> = shares.iter().map(|s| format!("ply {}", s.ply)).collect();
    let series: Vec<Series> = levels
        .iter()
        .map(|&k| Series {
            name: format!("level <= {k}"),
            points: shares
                .iter()
                .map(|s| (s.ply as f64, s.percent(k)))
                .collect(),
        })
        .collect();
    bar_chart(
        "Positions at risk in semi-random games, by ply and trap level",
        "% of positions",
        &categories,
        &series,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_reproducible_from_the_seed_and_shares_count_them() {
        let spec = GenerateSpec {
            games: 3,
            plies: vec![3, 7],
            random_prob: 0.5,
            depth: 2,
            max_level: 3,
            seed: 5,
            threads: 2,
            engine: None,
        };
        let mut finished = 0;
        let a = generate(&spec, || finished += 1).unwrap();
        assert_eq!(finished, 3);
        let b = generate(&spec, || {}).unwrap();
        let fens = |s: &[Sample]| s.iter().map(|x| x.analysis.fen.clone()).collect::<Vec<_>>();
        assert_eq!(fens(&a), fens(&b));
        assert_eq!(a.len(), 6, "every game reaches ply 7");
        let levels = levels(spec.max_level);
        assert_eq!(levels, [1, 3]);
        let shares = shares(&a, &spec.plies, &levels);
        assert_eq!(shares[0].positions, 3);
        assert!(shares.iter().all(|s| s.at_risk.len() == 2));
        assert_eq!(samples_csv(&a).lines().count(), 7);
        assert!(chart(&shares, &levels).starts_with("<svg"));
        // Wilson: 1 of 10 is 1.8%–40.4%; 0 of 100 is 0–3.7%.
        let one_in_ten = PlyShare {
            ply: 1,
            positions: 10,
            at_risk: vec![(1, 1), (3, 0)],
        };
        let (lo, hi) = one_in_ten.interval(1);
        assert!(
            (lo - 1.79).abs() < 0.05 && (hi - 40.4).abs() < 0.1,
            "{lo} {hi}"
        );
        let (lo, hi) = PlyShare {
            positions: 100,
            ..one_in_ten
        }
        .interval(3);
        assert!(lo == 0.0 && (hi - 3.70).abs() < 0.05, "{hi}");
    }

    #[test]
    fn the_engine_moves_can_come_from_a_match_spec() {
        let spec = GenerateSpec {
            games: 2,
            plies: vec![4],
            random_prob: 0.33,
            depth: 1,
            max_level: 1,
            seed: 1,
            threads: 1,
            engine: Some("pvs Eval=classical depth=2".into()),
        };
        assert_eq!(generate(&spec, || {}).unwrap().len(), 2);
        let no_limit = GenerateSpec {
            engine: Some("pvs".into()),
            ..spec.clone()
        };
        assert!(generate(&no_limit, || {}).is_err());
        let clock = GenerateSpec {
            engine: Some("pvs tc=1+0".into()),
            ..spec
        };
        assert!(generate(&clock, || {}).unwrap_err().contains("not a clock"));
    }
}
