//! `UCI_LimitStrength` + `UCI_Elo`: a weaker `pvs` that still plays like a player rather
//! than a random blunder generator. Two levers, both set from the requested Elo:
//!
//! - a node budget per move, which bounds how deep the engine sees (a weak player misses
//!   tactics beyond a few plies, and misses more of them the weaker they are);
//! - a choice among the best root moves ([`SKILL_LINES`] of them, searched as MultiPV
//!   lines), drawn with probability `exp(-loss / T)` where `loss` is how much worse than
//!   the best the move scored and `T` grows as the level drops. Moves losing more than a
//!   margin (a few `T`) are never chosen, nor is a move that throws away a found mate: the
//!   errors are the plausible inaccuracies of a weaker player, not hung queens.
//!
//! The mapping from Elo to the two levers is calibrated against Stockfish's own `UCI_Elo`
//! levels with `searchlight match` (README, "Playing strength levels").

use crate::options::Declared;
use crate::options::Options;
use crate::tree::rng::Rng;
use crate::value::{Value, is_mate};

pub static LIMIT_STRENGTH: Declared<bool> = Declared::check(
    "UCI_LimitStrength",
    false,
    "play at the strength UCI_Elo asks for (pvs only)",
);
pub static ELO: Declared<i64> = Declared::spin(
    "UCI_Elo",
    ELO_MAX,
    ELO_MIN,
    ELO_MAX,
    "target strength with UCI_LimitStrength, calibrated against Stockfish's UCI_Elo",
);

/// The evaluator the levels were calibrated with. A limited-strength search uses it
/// whatever `Eval` says: a stronger evaluator plays better on the same node budget, and
/// `nnue` plays far better (README, "NNUE"), so the levels would no longer hold.
pub const CALIBRATED_EVAL: &str = "classical";

/// The range `UCI_Elo` accepts.
pub const ELO_MIN: i64 = 1000;
pub const ELO_MAX: i64 = 2000;

/// Root moves the choice is made among.
pub const SKILL_LINES: usize = 4;
/// Fewer nodes than this cannot finish a few plies with the skill's lines.
const MIN_NODES: u64 = 400;
/// Moves scoring more than this many temperatures below the best are never chosen.
const MARGIN_IN_TEMPERATURES: f64 = 3.0;

/// The calibration: (Elo, nodes per move, temperature in centipawns), by rising Elo.
/// Between two rows the node budget is interpolated geometrically and the temperature
/// linearly. The rows come from matches against Stockfish's `UCI_Elo` levels (README,
/// "Playing strength levels"); the first and last rows lie outside what was measured.
/// They hold for the evaluator's weights they were measured with (round 8): a stronger
/// evaluator plays better on the same budget, so new weights call for a new calibration.
const LEVELS: [(f64, f64, f64); 5] = [
    (1000.0, 400.0, 45.0),
    (1400.0, 1_800.0, 26.0),
    (1600.0, 6_000.0, 20.0),
    (1800.0, 10_000.0, 11.0),
    (2000.0, 33_000.0, 5.0),
];

/// How a limited-strength search plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skill {
    /// Nodes per move.
    pub nodes: u64,
    /// Centipawns: the scale of the choice among root moves.
    pub temperature: f64,
}

impl Skill {
    /// The skill the options ask for; `None` at full strength.
    pub fn from_options(options: &Options) -> Option<Skill> {
        options
            .get(&LIMIT_STRENGTH)
            .then(|| Skill::at_elo(options.get(&ELO)))
    }

    /// The levers for a requested Elo (clamped to the accepted range).
    pub fn at_elo(elo: i64) -> Skill {
        let elo = elo.clamp(ELO_MIN, ELO_MAX) as f64;
        let upper = LEVELS
            .iter()
            .position(|l| l.0 >= elo)
            .unwrap_or(LEVELS.len() - 1)
            .max(1);
        let ((e0, n0, t0), (e1, n1, t1)) = (LEVELS[upper - 1], LEVELS[upper]);
        let f = ((elo - e0) / (e1 - e0)).clamp(0.0, 1.0);
        Skill {
            nodes: ((n0.ln() + f * (n1.ln() - n0.ln())).exp() as u64).max(MIN_NODES),
            temperature: t0 + f * (t1 - t0),
        }
    }

    /// Index of the line to play among `values` (the root lines' values, best first).
    pub fn choose(&self, values: &[Value], rng: &mut Rng) -> usize {
        let Some(&best) = values.first() else {
            return 0;
        };
        if is_mate(best) {
            return 0;
        }
        let margin = self.temperature * MARGIN_IN_TEMPERATURES;
        let weights: Vec<f64> = values
            .iter()
            .map(|&v| {
                let loss = f64::from(best - v);
                if is_mate(v) || loss > margin {
                    0.0
                } else {
                    (-loss / self.temperature).exp()
                }
            })
            .collect();
        let mut draw = rng.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if draw < *w {
                return i;
            }
            draw -= w;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weaker_levels_search_less_and_choose_more_loosely() {
        let (weak, strong) = (Skill::at_elo(ELO_MIN), Skill::at_elo(ELO_MAX));
        assert!(weak.nodes < strong.nodes / 8);
        assert!(weak.temperature > strong.temperature * 4.0);
        assert_eq!(Skill::at_elo(ELO_MAX + 500), strong);
    }

    #[test]
    fn the_choice_never_drops_a_mate_or_a_move_far_better() {
        let skill = Skill::at_elo(ELO_MIN);
        let mut rng = Rng::new(1);
        let mate = crate::value::mate_in(3);
        for _ in 0..1000 {
            assert_eq!(skill.choose(&[mate, 50, 40, 30], &mut rng), 0);
            assert_eq!(skill.choose(&[900, 100, 90, 80], &mut rng), 0);
        }
        let mut seen = [0; 4];
        for _ in 0..4000 {
            seen[skill.choose(&[30, 25, 10, -500], &mut rng)] += 1;
        }
        assert_eq!(seen[3], 0, "a move 530 cp worse is never chosen");
        assert!(
            seen[0] > seen[1] && seen[1] > seen[2] && seen[2] > 0,
            "{seen:?}"
        );
    }
}
