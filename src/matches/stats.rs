//! Match statistics: Elo from a score, its 95% confidence interval, likelihood of
//! superiority, pentanomial counts of game pairs, the generalized SPRT, and Bradley-Terry
//! ratings for more than two players.
//!
//! Model: the logistic Elo curve `E = 1 / (1 + 10^(-d/400))`. The SPRT is the generalized
//! SPRT with the normal approximation of the log-likelihood ratio (as fishtest computes
//! it): `LLR = n (s1 - s0) (2 m - s0 - s1) / (2 v)` with `m`, `v` the sample mean and
//! variance of the score per unit — per game pair (pentanomial) when pairs are complete,
//! per game (trinomial) otherwise — and `s0`, `s1` the expected scores at `elo0`, `elo1`.
//!
//! Normalized Elo (M. Van den Bergh's, as fishtest and fastchess use it) measures the score
//! in standard deviations instead: `t = (m - 1/2) / sigma`, `nElo = t * 800 / ln 10` per game,
//! or `t / sqrt 2 * 800 / ln 10` with `sigma` per game pair, so that both agree when games are
//! independent. Its SPRT, in the same normal approximation, is
//! `LLR = n (t1 - t0) (2 t - t0 - t1) / 2` with `t0`, `t1` the bounds in that unit.

/// The 97.5% quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses from one player's side, and the results of game pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Game pairs (same opening, colours swapped) by the pair's score in half points:
    /// index 0 = 0 points (LL), 1 = ½ (LD), 2 = 1 (WL or DD), 3 = 1½ (WD), 4 = 2 (WW).
    pub penta: [u32; 5],
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game: `points` is 1, 0.5 or 0.
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points > 0.25 {
            self.draws += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Adds a completed pair with the two games' points.
    pub fn add_pair(&mut self, a: f64, b: f64) {
        let half_points = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.penta[half_points] += 1;
    }

    /// The score as a fraction (0.5 with no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    pub fn pairs(&self) -> u32 {
        self.penta.iter().sum()
    }

    /// Elo difference with the half-width of its 95% interval (lower, upper bound in Elo),
    /// from the per-game (trinomial) variance.
    pub fn elo(&self) -> Estimate {
        let n = f64::from(self.games());
        let s = self.score();
        if n == 0.0 {
            return Estimate::default();
        }
        let (w, d, l) = (
            f64::from(self.wins) / n,
            f64::from(self.draws) / n,
            f64::from(self.losses) / n,
        );
        let var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
        let margin = Z95 * (var / n).sqrt();
        Estimate {
            elo: elo_from_score(s),
            low: elo_from_score(s - margin),
            high: elo_from_score(s + margin),
        }
    }

    /// Likelihood of superiority: P(the player is stronger), from wins and losses.
    pub fn los(&self) -> f64 {
        los(self.wins, self.losses)
    }

    /// The GSPRT log-likelihood ratio for H1 (`elo1`) against H0 (`elo0`), in the model's
    /// unit of Elo.
    pub fn llr(&self, model: EloModel, elo0: f64, elo1: f64) -> f64 {
        let Some(u) = self.units() else {
            return 0.0;
        };
        match model {
            EloModel::Logistic => {
                let s0 = score_from_elo(elo0);
                let s1 = score_from_elo(elo1);
                u.n * (s1 - s0) * (2.0 * u.mean - s0 - s1) / (2.0 * u.var)
            }
            EloModel::Normalized => {
                let (t0, t1) = (u.t_of_nelo(elo0), u.t_of_nelo(elo1));
                u.n * (t1 - t0) * (2.0 * u.t() - t0 - t1) / 2.0
            }
        }
    }

    /// Normalized Elo with its 95% interval (zero with no spread in the results).
    pub fn nelo(&self) -> Estimate {
        let Some(u) = self.units() else {
            return Estimate::default();
        };
        let margin = Z95 / u.n.sqrt();
        Estimate {
            elo: u.nelo_of_t(u.t()),
            low: u.nelo_of_t(u.t() - margin),
            high: u.nelo_of_t(u.t() + margin),
        }
    }

    /// The score per unit: per game pair when pairs are complete, per game otherwise;
    /// None without games or without spread.
    fn units(&self) -> Option<Units> {
        let (n, mean, var) = if self.pairs() > 0 {
            let n = f64::from(self.pairs());
            let points = [0.0, 0.25, 0.5, 0.75, 1.0];
            let mean = self
                .penta
                .iter()
                .zip(points)
                .map(|(&c, p)| f64::from(c) * p)
                .sum::<f64>()
                / n;
            let var = self
                .penta
                .iter()
                .zip(points)
                .map(|(&c, p)| f64::from(c) * (p - mean).powi(2))
                .sum::<f64>()
                / n;
            (n, mean, var)
        } else {
            let n = f64::from(self.games());
            if n == 0.0 {
                return None;
            }
            let s = self.score();
            let var = (f64::from(self.wins) * (1.0 - s).powi(2)
                + f64::from(self.draws) * (0.5 - s).powi(2)
                + f64::from(self.losses) * s.powi(2))
                / n;
            (n, s, var)
        };
        (var > 0.0).then_some(Units {
            n,
            mean,
            var,
            pairs: self.pairs() > 0,
        })
    }
}

/// The unit of Elo an SPRT's bounds are given in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: the score's Elo on the logistic curve.
    #[default]
    Logistic,
    /// Normalized Elo: the score's distance from 1/2 in standard deviations.
    Normalized,
}

impl EloModel {
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }
}

/// Sample statistics of the score per unit (game or game pair).
struct Units {
    n: f64,
    mean: f64,
    var: f64,
    pairs: bool,
}

impl Units {
    /// `(m - 1/2) / sigma`.
    fn t(&self) -> f64 {
        (self.mean - 0.5) / self.var.sqrt()
    }

    /// `800 / ln 10` per game; a pair's `t` is `sqrt 2` times a game's.
    fn scale(&self) -> f64 {
        let per_game = 800.0 / std::f64::consts::LN_10;
        if self.pairs {
            per_game / std::f64::consts::SQRT_2
        } else {
            per_game
        }
    }

    fn nelo_of_t(&self, t: f64) -> f64 {
        t * self.scale()
    }

    fn t_of_nelo(&self, nelo: f64) -> f64 {
        nelo / self.scale()
    }
}

/// An Elo estimate with its 95% interval.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Estimate {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    /// Half the interval's width (the `±` figure).
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The Elo difference for an expected score (±inf at 1 and 0 are clamped to ±2000).
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-2000.0, 2000.0)
}

/// The expected score at an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Likelihood of superiority from wins and losses (draws carry no information).
pub fn los(wins: u32, losses: u32) -> f64 {
    let decisive = f64::from(wins + losses);
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((f64::from(wins) - f64::from(losses)) / (2.0 * decisive).sqrt()))
}

/// The error function (Abramowitz–Stegun 7.1.26, absolute error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// The SPRT's decision bounds `(lower, upper)` on the LLR: accept H0 at or below the
/// lower, H1 at or above the upper.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// Bradley–Terry ratings (Elo, mean 0) from a matrix of points: `points[i][j]` is what
/// player `i` scored against `j`, `games[i][j]` how many games they played. Draws count as
/// half a win each. `prior` virtual draws are added to every pairing that played, so that
/// a player who won or lost every game still gets a finite rating (with `prior = 0` such
/// a player is clamped to ±2000).
pub fn bradley_terry(points: &[Vec<f64>], games: &[Vec<u32>], prior: f64) -> Vec<f64> {
    let n = points.len();
    let played = |i: usize, j: usize| i != j && games[i][j] > 0;
    let g = |i: usize, j: usize| f64::from(games[i][j]) + prior;
    let won: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| played(i, j))
                .map(|j| points[i][j] + prior / 2.0)
                .sum()
        })
        .collect();
    let mut gamma = vec![1.0f64; n];
    for _ in 0..5000 {
        let mut next = gamma.clone();
        for i in 0..n {
            let denom: f64 = (0..n)
                .filter(|&j| played(i, j))
                .map(|j| g(i, j) / (gamma[i] + gamma[j]))
                .sum();
            if denom > 0.0 {
                next[i] = (won[i] / denom).max(1e-12);
            }
        }
        // Normalise the geometric mean to 1.
        let log_mean = next.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
        for g in &mut next {
            *g /= log_mean.exp();
        }
        let change = next
            .iter()
            .zip(&gamma)
            .map(|(a, b)| (a.ln() - b.ln()).abs())
            .fold(0.0, f64::max);
        gamma = next;
        if change < 1e-10 {
            break;
        }
    }
    gamma
        .iter()
        .map(|g| (400.0 * g.log10()).clamp(-2000.0, 2000.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
            penta: [0; 5],
        }
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert!((elo_from_score(0.5)).abs() < 1e-9);
        assert!((elo_from_score(0.75) - 190.848).abs() < 1e-3);
        for elo in [-300.0, -50.0, 0.0, 10.0, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-6);
        }
    }

    #[test]
    fn confidence_interval_of_a_known_result() {
        // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16.
        let e = tally(60, 20, 20).elo();
        assert!((e.elo - 147.19).abs() < 0.01, "{e:?}");
        let margin = Z95 * (0.16f64 / 100.0).sqrt();
        assert!((e.low - elo_from_score(0.7 - margin)).abs() < 1e-9);
        assert!(e.low < e.elo && e.elo < e.high);
        assert!(e.margin() > 60.0 && e.margin() < 75.0, "{e:?}");
        assert_eq!(tally(0, 0, 0).elo(), Estimate::default());
    }

    #[test]
    fn los_is_symmetric_and_known() {
        assert!((los(10, 10) - 0.5).abs() < 1e-9);
        assert!((los(0, 0) - 0.5).abs() < 1e-9);
        // (W - L) / sqrt(W + L) = 2 standard deviations: Phi(2) = 0.97725.
        assert!((los(60, 40) - 0.977_25).abs() < 1e-4);
        assert!((los(42, 58) + los(58, 42) - 1.0).abs() < 1e-7);
        assert!((erf(1.0) - 0.842_700_79).abs() < 2e-7);
    }

    #[test]
    fn pentanomial_counts_pairs_by_points() {
        let mut t = Tally::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.5, 0.0), (1.0, 0.5)] {
            t.add(a);
            t.add(b);
            t.add_pair(a, b);
        }
        assert_eq!(t.penta, [0, 1, 2, 1, 1]);
        assert_eq!((t.wins, t.draws, t.losses), (4, 4, 2));
        assert_eq!(t.pairs(), 5);
    }

    #[test]
    fn sprt_bounds_and_llr_sign() {
        const L: EloModel = EloModel::Logistic;
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!((lo + 2.944_438_979).abs() < 1e-6);
        assert!((hi - 2.944_438_979).abs() < 1e-6);
        // A strong result favours H1, a weak one H0; no information gives 0.
        assert!(tally(60, 20, 20).llr(L, 0.0, 5.0) > 0.0);
        assert!(tally(20, 20, 60).llr(L, 0.0, 5.0) < 0.0);
        assert_eq!(tally(0, 10, 0).llr(L, 0.0, 5.0), 0.0);
        // Normal approximation, trinomial: n (s1-s0)(2m-s0-s1) / (2 var).
        let t = tally(60, 20, 20);
        let (s0, s1) = (0.5, score_from_elo(5.0));
        let expected = 100.0 * (s1 - s0) * (1.4 - s0 - s1) / (2.0 * 0.16);
        assert!((t.llr(L, 0.0, 5.0) - expected).abs() < 1e-9);
        // Pairs take over when present.
        let mut p = t;
        p.penta = [0, 0, 10, 10, 10];
        let pm = (0.5 * 10.0 + 0.75 * 10.0 + 10.0) / 30.0;
        let pv = ((0.5f64 - pm).powi(2) + (0.75f64 - pm).powi(2) + (1.0f64 - pm).powi(2)) / 3.0;
        let expected = 30.0 * (s1 - s0) * (2.0 * pm - s0 - s1) / (2.0 * pv);
        assert!((p.llr(L, 0.0, 5.0) - expected).abs() < 1e-9);
    }

    #[test]
    fn normalized_elo_and_its_sprt() {
        const N: EloModel = EloModel::Normalized;
        // 300-450-250: m = 0.525, var = 0.136875 per game; by hand t = 0.0675727, nElo =
        // t * 800 / ln 10 = 23.477, LLR(0, 5) = 1000 (t1 - t0)(2t - t0 - t1) / 2 = 0.8689.
        let t = tally(300, 450, 250);
        assert!((t.nelo().elo - 23.477).abs() < 0.01, "{:?}", t.nelo());
        assert!(
            (t.llr(N, 0.0, 5.0) - 0.8689).abs() < 1e-3,
            "{}",
            t.llr(N, 0.0, 5.0)
        );
        assert!(t.llr(N, 0.0, 5.0) > 0.0 && tally(250, 450, 300).llr(N, 0.0, 5.0) < 0.0);
        // 95% interval: t +- 1.96 / sqrt(n).
        let width = 1.959_964 / 1000f64.sqrt() * 800.0 / std::f64::consts::LN_10;
        assert!((t.nelo().high - t.nelo().elo - width).abs() < 0.01);
        // Pairs of independent games with the same per-game odds: the pentanomial counts
        // are the convolution (l^2, 2ld, 2wl + d^2, 2wd, w^2), and nElo comes out the same.
        let mut p = t;
        p.penta = [625, 2250, 3525, 2700, 900];
        assert!((p.nelo().elo - 23.477).abs() < 0.05, "{:?}", p.nelo());
        assert_eq!(tally(0, 10, 0).llr(N, 0.0, 5.0), 0.0);
        assert_eq!(tally(0, 10, 0).nelo(), Estimate::default());
    }

    #[test]
    fn bradley_terry_recovers_a_two_player_result() {
        // A scores 75% against B: the difference is the Elo of 0.75, split around 0.
        let points = vec![vec![0.0, 75.0], vec![25.0, 0.0]];
        let games = vec![vec![0, 100], vec![100, 0]];
        let r = bradley_terry(&points, &games, 0.0);
        assert!((r[0] - r[1] - elo_from_score(0.75)).abs() < 1e-6, "{r:?}");
        // One virtual draw: 75.5 of 101.
        let r = bradley_terry(&points, &games, 1.0);
        assert!(
            (r[0] - r[1] - elo_from_score(75.5 / 101.0)).abs() < 1e-6,
            "{r:?}"
        );
        assert!((r[0] + r[1]).abs() < 1e-6);
        // Three players in a chain: order is kept.
        let points = vec![
            vec![0.0, 6.0, 8.0],
            vec![4.0, 0.0, 6.0],
            vec![2.0, 4.0, 0.0],
        ];
        let games = vec![vec![0, 10, 10], vec![10, 0, 10], vec![10, 10, 0]];
        let r = bradley_terry(&points, &games, 0.0);
        assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
        // A player who lost everything stays finite with the prior, and the two who
        // split their games stay level.
        let points = vec![
            vec![0.0, 2.0, 4.0],
            vec![2.0, 0.0, 4.0],
            vec![0.0, 0.0, 0.0],
        ];
        let games = vec![vec![0, 4, 4], vec![4, 0, 4], vec![4, 4, 0]];
        let r = bradley_terry(&points, &games, 1.0);
        assert!((r[0] - r[1]).abs() < 1e-6, "{r:?}");
        assert!(r[2] > -1000.0 && r[2] < -200.0, "{r:?}");
    }
}
