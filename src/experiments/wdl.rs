//! Fitting a [`WdlModel`] to games: each `datagen` position is made quiet (as `tune` does),
//! scored by the evaluator from the side to move, and paired with the game's outcome for
//! that side; the model's four numbers are those of maximum likelihood (the mean of
//! `−ln p(outcome)` is minimised by Adam on its exact gradient).

use shakmaty::Position as _;

use super::tune::{DataError, parse_lines, quiet_leaf};
use crate::board::Evaluator;
use crate::board::eval::WdlModel;
use crate::board::eval::classical::{PHASE_MAX, phase};
use crate::board::eval::wdl::sigmoid;

/// One position: score from the side to move, phase fraction, and how the game ended for
/// the side to move (1 win, 0 draw, −1 loss).
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub score: f64,
    pub rho: f64,
    pub outcome: i8,
}

/// Reads `datagen` lines and scores their quiet leaves with `eval`.
pub fn samples(text: &str, eval: &dyn Evaluator, threads: usize) -> Result<Vec<Sample>, DataError> {
    let parsed = parse_lines(text)?;
    Ok(crate::pool::map(&parsed, threads, |line| {
        let leaf = quiet_leaf(line.pos.chess());
        let result = if leaf.turn().is_white() {
            line.result
        } else {
            1.0 - line.result
        };
        Sample {
            score: f64::from(eval.evaluate(&leaf)),
            rho: f64::from(phase(leaf.board())) / f64::from(PHASE_MAX),
            outcome: if result > 0.75 {
                1
            } else if result < 0.25 {
                -1
            } else {
                0
            },
        }
    }))
}

/// The mean negative log-likelihood of the outcomes under `model`.
pub fn loss(samples: &[Sample], model: &WdlModel) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = model.chances(s.score, s.rho);
            -p[(1 - s.outcome) as usize].max(1e-9).ln()
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The parameters as one vector: a at phase 0 and 1, b at phase 0 and 1.
fn pack(m: &WdlModel) -> [f64; 4] {
    [m.a[0], m.a[1], m.b[0], m.b[1]]
}

fn unpack(p: [f64; 4]) -> WdlModel {
    WdlModel {
        a: [p[0], p[1]],
        b: [p[2].max(1.0), p[3].max(1.0)],
    }
}

/// Maximum-likelihood fit from `start`; `progress` gets each hundredth step and its loss.
pub fn fit(
    samples: &[Sample],
    start: &WdlModel,
    steps: usize,
    mut progress: impl FnMut(usize, f64),
) -> WdlModel {
    let (mut p, mut m, mut v) = (pack(start), [0.0; 4], [0.0; 4]);
    let (rate, beta1, beta2) = (2.0, 0.9, 0.999);
    for step in 1..=steps {
        let g = gradient(samples, &unpack(p));
        for i in 0..4 {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i];
            let m_hat = m[i] / (1.0 - beta1.powi(step as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(step as i32));
            p[i] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
        }
        if step % 100 == 0 {
            progress(step, loss(samples, &unpack(p)));
        }
    }
    unpack(p)
}

/// The exact gradient of [`loss`] with respect to the packed parameters.
fn gradient(samples: &[Sample], model: &WdlModel) -> [f64; 4] {
    let mut g = [0.0; 4];
    for s in samples {
        let (a, b) = model.at_phase(s.rho);
        let (u, w) = ((s.score - a) / b, (-s.score - a) / b);
        let (pw, pl) = (sigmoid(u), sigmoid(w));
        // d(pw)/da = -pw(1-pw)/b, d(pw)/db = -u·pw(1-pw)/b; the same for pl with w.
        let (dw, dl) = (pw * (1.0 - pw) / b, pl * (1.0 - pl) / b);
        let (dpw_da, dpw_db, dpl_da, dpl_db) = (-dw, -u * dw, -dl, -w * dl);
        let (da, db) = match s.outcome {
            1 => (-dpw_da / pw.max(1e-9), -dpw_db / pw.max(1e-9)),
            -1 => (-dpl_da / pl.max(1e-9), -dpl_db / pl.max(1e-9)),
            _ => {
                let pd = (1.0 - pw - pl).max(1e-9);
                ((dpw_da + dpl_da) / pd, (dpw_db + dpl_db) / pd)
            }
        };
        g[0] += da * (1.0 - s.rho);
        g[1] += da * s.rho;
        g[2] += db * (1.0 - s.rho);
        g[3] += db * s.rho;
    }
    let n = samples.len().max(1) as f64;
    g.map(|x| x / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::rng::Rng;

    #[test]
    fn the_fit_recovers_the_model_that_drew_the_outcomes() {
        let truth = WdlModel {
            a: [120.0, 220.0],
            b: [60.0, 110.0],
        };
        let mut rng = Rng::new(7);
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let (score, rho) = (rng.unit() * 1200.0 - 600.0, rng.unit());
                let [w, d, _] = truth.chances(score, rho);
                let x = rng.unit();
                let outcome = if x < w {
                    1
                } else if x < w + d {
                    0
                } else {
                    -1
                };
                Sample {
                    score,
                    rho,
                    outcome,
                }
            })
            .collect();
        let start = WdlModel {
            a: [150.0, 150.0],
            b: [80.0, 80.0],
        };
        let fitted = fit(&samples, &start, 1500, |_, _| {});
        for (got, want) in pack(&fitted).iter().zip(pack(&truth)) {
            assert!((got - want).abs() < want * 0.15, "{fitted:?} vs {truth:?}");
        }
        assert!(loss(&samples, &fitted) < loss(&samples, &start));
    }
}
