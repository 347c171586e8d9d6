//! Texel tuning of `Eval=classical`: the weights that best predict the games' results.
//!
//! Each `datagen` position is first made quiet (a material quiescence search; the leaf of
//! its principal variation is what is scored), then traced: the classical evaluator's
//! feature counts, the game phase and the endgame scale. The evaluation is linear in the
//! weights, `eval = Σ count·(mg·ρ + eg·(1-ρ)·scale)`, so the mean squared error between
//! the result and `sigmoid(K·eval/400)` has an exact gradient; Adam follows it over every
//! weight at once. K is fitted first, on the starting weights, and then held.

use std::fmt::Write as _;

use shakmaty::{Chess, Position as _};

use crate::board::Position;
use crate::board::eval::classical::{self, PHASE_MAX, SCALE_MAX, Sink};
use crate::board::eval::features::{self, COUNT};
use crate::board::eval::wdl::sigmoid as logistic;
use crate::board::exchange::{is_tactical, see};
use crate::board::{Evaluator, Material};

/// A malformed data line: which and why.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct DataError {
    pub line: usize,
    pub why: String,
}

/// One traced position.
#[derive(Clone, Copy)]
struct Sample {
    /// Range of this sample's features in [`Data::features`].
    start: u32,
    len: u32,
    /// Multipliers of the middlegame and endgame weights: ρ and (1-ρ)·scale.
    mg: f32,
    eg: f32,
    /// What the evaluation is fitted to: the game's result for White, or a blend of it
    /// with the search score (see [`Data::blend`]).
    result: f32,
    /// The search score of the `datagen` line, centipawns from White's side.
    score: f32,
}

/// Every position, traced; features stored flat as (index, count).
pub struct Data {
    samples: Vec<Sample>,
    features: Vec<(u16, i16)>,
    /// Features whose weights Adam leaves at their starting values (`tune --keep`).
    kept: Vec<bool>,
}

/// A feature seen in fewer positions than this keeps its starting weight: Adam's steps do
/// not shrink with the gradient, so a weight the data barely constrains would drift.
pub const MIN_POSITIONS: usize = 500;

/// Decoupled weight decay per step (AdamW), material excepted: of two collinear features
/// (material and a piece's mobility, say) the smaller weights are preferred.
const DECAY: f64 = 0.002;

impl Data {
    /// Fits to `lambda·result + (1−lambda)·sigmoid(K·score/400)` from now on. A game's
    /// result says little about a position 100 plies before its end, and games played by
    /// a weak evaluator end in results the position did not decide; the search score is
    /// a less noisy, if biased, witness of who stands better.
    pub fn blend(&mut self, lambda: f64, k: f64) {
        for s in &mut self.samples {
            s.result = blended(lambda, s.result, k, s.score) as f32;
        }
    }

    /// Holds the weights of the named feature blocks (see `features::BLOCKS`) at their
    /// starting values; an unknown name is an error that lists the blocks.
    pub fn keep(&mut self, block: &str) -> Result<(), String> {
        let Some(b) = features::BLOCKS.iter().find(|b| b.name == block) else {
            let names: Vec<&str> = features::BLOCKS.iter().map(|b| b.name).collect();
            return Err(format!(
                "unknown feature block '{block}'; the blocks: {}",
                names.join("; ")
            ));
        };
        self.kept[b.start..b.start + b.len].fill(true);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// Weights as the tuner holds them: (middlegame, endgame) per feature.
pub type Weights = Vec<[f64; 2]>;

/// The weights the binary was built with.
pub fn current() -> Weights {
    (0..COUNT)
        .map(|i| {
            let [mg, eg] = classical::weight(i);
            [f64::from(mg), f64::from(eg)]
        })
        .collect()
}

/// Dense counts for one position.
struct Counts([i32; COUNT]);

impl Sink for Counts {
    fn add(&mut self, feature: usize, n: i32) {
        self.0[feature] += n;
    }
}

/// One data line: the position, White's result and the search score.
pub(crate) struct Line {
    pub pos: Position,
    pub result: f32,
    pub score: f32,
}

/// Parses one data line: `<FEN> | <score> | <result>`.
pub(crate) fn parse_line(line: &str) -> Result<Line, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(format!(
            "expected `FEN | score | result`, found {} field(s)",
            fields.len()
        ));
    };
    let pos = Position::from_fen_auto(fen).map_err(|e| format!("bad FEN: {e}"))?;
    let score = score
        .parse::<i32>()
        .map_err(|_| format!("bad score `{score}`"))?;
    let result = match result {
        "1" | "1.0" => 1.0,
        "0.5" => 0.5,
        "0" | "0.0" => 0.0,
        _ => return Err(format!("bad result `{result}` (1, 0.5 or 0)")),
    };
    Ok(Line {
        pos,
        result,
        score: score as f32,
    })
}

/// Every data line; blank lines skipped, the first malformed line an error.
pub(crate) fn parse_lines(text: &str) -> Result<Vec<Line>, DataError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| parse_line(line).map_err(|why| DataError { line: i + 1, why }))
        .collect()
}

/// Reads and traces the data; the first malformed line is an error. `weights` choose the
/// endgame scale (which side counts as ahead).
pub fn load(text: &str, weights: &Weights, threads: usize) -> Result<Data, DataError> {
    let parsed = parse_lines(text)?;
    let traced = crate::pool::map(&parsed, threads, |line| {
        let leaf = quiet_leaf(line.pos.chess());
        let mut counts = Counts([0; COUNT]);
        classical::walk(&leaf, &mut counts);
        let eg: f64 = counts
            .0
            .iter()
            .zip(weights)
            .map(|(&c, w)| f64::from(c) * w[1])
            .sum();
        let board = leaf.board();
        let rho = f64::from(classical::phase(board)) / f64::from(PHASE_MAX);
        let scale = f64::from(classical::scale(board, eg >= 0.0)) / f64::from(SCALE_MAX);
        let sparse: Vec<(u16, i16)> = counts
            .0
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(i, &c)| (i as u16, c.clamp(-32768, 32767) as i16))
            .collect();
        let (mg, eg) = (rho as f32, ((1.0 - rho) * scale) as f32);
        (sparse, mg, eg, line.result, line.score)
    });
    let mut data = Data {
        samples: Vec::with_capacity(traced.len()),
        features: Vec::new(),
        kept: vec![false; COUNT],
    };
    for (sparse, mg, eg, result, score) in traced {
        data.samples.push(Sample {
            start: data.features.len() as u32,
            len: sparse.len() as u32,
            mg,
            eg,
            result,
            score,
        });
        data.features.extend(sparse);
    }
    Ok(data)
}

/// The end of the material quiescence search's principal variation.
pub(crate) fn quiet_leaf(pos: &Chess) -> Chess {
    fn search(pos: &Chess, mut alpha: i32, beta: i32, depth: u32) -> (i32, Chess) {
        let stand = Material.evaluate(pos);
        if stand >= beta || depth == 0 || pos.is_check() {
            return (stand, pos.clone());
        }
        let mut best = (stand, pos.clone());
        alpha = alpha.max(stand);
        for m in pos.legal_moves() {
            if !is_tactical(m) || see(pos, m) < 0 {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (v, leaf) = search(&child, -beta, -alpha, depth - 1);
            if -v > best.0 {
                best = (-v, leaf);
                if -v >= beta {
                    break;
                }
                alpha = alpha.max(-v);
            }
        }
        best
    }
    search(pos, -30_000, 30_000, 12).1
}

impl Data {
    fn evals(&self, w: &Weights) -> impl Iterator<Item = (&Sample, f64)> {
        self.samples.iter().map(move |s| {
            let (mut mg, mut eg) = (0.0, 0.0);
            for &(i, c) in self.slice(s) {
                mg += f64::from(c) * w[usize::from(i)][0];
                eg += f64::from(c) * w[usize::from(i)][1];
            }
            (s, mg * f64::from(s.mg) + eg * f64::from(s.eg))
        })
    }

    fn slice(&self, s: &Sample) -> &[(u16, i16)] {
        &self.features[s.start as usize..(s.start + s.len) as usize]
    }

    /// Mean squared error of the predicted results.
    pub fn loss(&self, w: &Weights, k: f64) -> f64 {
        let total: f64 = self
            .evals(w)
            .map(|(s, e)| (f64::from(s.result) - sigmoid(k, e)).powi(2))
            .sum();
        total / self.len().max(1) as f64
    }

    /// The gradient of [`Data::loss`] over the weights.
    /// `total` is the size of the whole data set this part belongs to.
    fn gradient(&self, w: &Weights, k: f64, total: usize) -> Weights {
        let mut g = vec![[0.0; 2]; COUNT];
        let n = total.max(1) as f64;
        for (s, e) in self.evals(w) {
            let p = sigmoid(k, e);
            let d = 2.0 * (p - f64::from(s.result)) * p * (1.0 - p) * k / 400.0 / n;
            let (dm, de) = (d * f64::from(s.mg), d * f64::from(s.eg));
            for &(i, c) in self.slice(s) {
                g[usize::from(i)][0] += dm * f64::from(c);
                g[usize::from(i)][1] += de * f64::from(c);
            }
        }
        g
    }
}

#[inline]
pub(crate) fn sigmoid(k: f64, eval: f64) -> f64 {
    logistic(k * eval / 400.0)
}

/// The target `lambda·result + (1−lambda)·sigmoid(K·score/400)` (see [`Data::blend`]).
pub(crate) fn blended(lambda: f64, result: f32, k: impl Into<f64>, score: f32) -> f64 {
    lambda * f64::from(result) + (1.0 - lambda) * sigmoid(k.into(), f64::from(score))
}

/// The K that makes the weights predict the results best (golden-section search).
pub fn fit_k(data: &Data, w: &Weights) -> f64 {
    golden_section(|k| data.loss(w, k))
}

/// The K in [0.05, 10] where `loss` is least (golden-section search; the losses here have
/// one minimum).
pub(crate) fn golden_section(loss: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.05f64, 10.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if loss(a) < loss(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Adam over every weight; `report(epoch, loss)` every `every` epochs.
pub fn adam(
    data: &Data,
    start: &Weights,
    k: f64,
    epochs: usize,
    rate: f64,
    threads: usize,
    mut report: impl FnMut(usize, f64),
) -> Weights {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut w = start.clone();
    let mut m = vec![[0.0; 2]; COUNT];
    let mut v = vec![[0.0; 2]; COUNT];
    let parts = split(data, threads.max(1));
    let mut seen = vec![0usize; COUNT];
    for &(i, _) in &data.features {
        seen[usize::from(i)] += 1;
    }
    for epoch in 1..=epochs {
        let grads = crate::pool::map(&parts, threads, |part| part.gradient(&w, k, data.len()));
        for i in (0..COUNT).filter(|&i| seen[i] >= MIN_POSITIONS && !data.kept[i]) {
            let decay = if i < features::MATERIAL + 5 {
                0.0
            } else {
                DECAY
            };
            for p in 0..2 {
                let g: f64 = grads.iter().map(|gr| gr[i][p]).sum::<f64>();
                m[i][p] = b1 * m[i][p] + (1.0 - b1) * g;
                v[i][p] = b2 * v[i][p] + (1.0 - b2) * g * g;
                let mh = m[i][p] / (1.0 - b1.powi(epoch as i32));
                let vh = v[i][p] / (1.0 - b2.powi(epoch as i32));
                w[i][p] -= rate * (mh / (vh.sqrt() + eps) + decay * w[i][p]);
            }
        }
        if epoch % 50 == 0 || epoch == epochs {
            report(epoch, data.loss(&w, k));
        }
    }
    w
}

/// The data in `n` parts of about the same size, one per thread.
fn split(data: &Data, n: usize) -> Vec<Data> {
    let total = data.len().max(1);
    let chunk = total.div_ceil(n);
    data.samples
        .chunks(chunk.max(1))
        .map(|samples| {
            let mut part = Data {
                samples: Vec::with_capacity(samples.len()),
                features: Vec::new(),
                kept: data.kept.clone(),
            };
            for s in samples {
                part.samples.push(Sample {
                    start: part.features.len() as u32,
                    ..*s
                });
                part.features.extend_from_slice(data.slice(s));
            }
            part
        })
        .collect()
}

/// The generated Rust source of `weights` (src/board/eval/weights.rs).
pub fn source(w: &Weights, provenance: &str) -> String {
    let mut out = String::from(
        "//! Generated by `searchlight tune` (see the README's \"Tuning\"): the weights of\n\
         //! `Eval=classical`, one (middlegame, endgame) pair per feature, in centipawns. Do not\n\
         //! edit by hand; regenerate.\n",
    );
    for line in provenance.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    out.push_str("\nuse super::features::COUNT;\n\n#[rustfmt::skip]\npub const WEIGHTS: [[i16; 2]; COUNT] = [\n");
    for (i, [mg, eg]) in w.iter().enumerate() {
        let round = |x: f64| x.round().clamp(-32000.0, 32000.0) as i16;
        let _ = writeln!(
            out,
            "    [{}, {}], // {}",
            round(*mg),
            round(*eg),
            features::name(i)
        );
    }
    out.push_str("];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Level material in both kinds of position: White's passed pawn on the sixth rank
    /// wins, pawns on their second ranks draw. Material alone cannot tell them apart.
    fn sample_text() -> String {
        let lines = [
            ("4k3/p7/6P1/8/8/8/8/4K3 w - - 0 1", 250, "1"),
            ("4k3/6p1/8/8/8/8/P7/4K3 w - - 0 1", 0, "0.5"),
        ];
        let mut text = String::new();
        for _ in 0..600 {
            for (fen, score, result) in lines {
                let _ = writeln!(text, "{fen} | {score} | {result}");
            }
        }
        text
    }

    #[test]
    fn a_malformed_line_is_named_with_its_number() {
        let text =
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 0.5\n\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 | x | 1\n";
        let Err(e) = load(text, &current(), 1) else {
            panic!("a bad score was accepted");
        };
        assert_eq!(e.line, 3);
        assert!(e.why.contains("bad score"), "{e}");
        let Err(e) = load("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 2\n", &current(), 1) else {
            panic!("a bad result was accepted");
        };
        assert!(e.why.contains("bad result"), "{e}");
    }

    #[test]
    fn adam_lowers_the_loss_from_material_alone() {
        let start = features::initial();
        let data = load(&sample_text(), &start, 2).unwrap();
        assert_eq!(data.len(), 1200);
        let k = fit_k(&data, &start);
        let before = data.loss(&start, k);
        let tuned = adam(&data, &start, k, 200, 2.0, 2, |_, _| {});
        let after = data.loss(&tuned, k);
        assert!(after < 0.5 * before, "loss {before} -> {after}");
    }

    #[test]
    fn kept_blocks_stay_at_their_start() {
        let start = features::initial();
        let mut data = load(&sample_text(), &start, 1).unwrap();
        data.keep("passed pawn by rank").unwrap();
        assert!(
            data.keep("no such block")
                .unwrap_err()
                .contains("bishop pair")
        );
        let k = fit_k(&data, &start);
        let tuned = adam(&data, &start, k, 50, 2.0, 1, |_, _| {});
        let block = features::PASSED..features::PASSED + 8;
        assert_eq!(tuned[block.clone()], start[block]);
        assert_ne!(tuned, start, "the other weights still move");
    }

    #[test]
    fn blending_moves_the_target_toward_the_search_score() {
        let start = features::initial();
        let mut data = load(&sample_text(), &start, 1).unwrap();
        let k = fit_k(&data, &start);
        data.blend(0.0, k);
        for s in &data.samples {
            let expected = sigmoid(k, f64::from(s.score));
            assert!((f64::from(s.result) - expected).abs() < 1e-6);
        }
        // Halfway: a won position scored +250 gets a target between the two.
        let mut data = load(&sample_text(), &start, 1).unwrap();
        data.blend(0.5, k);
        let first = f64::from(data.samples[0].result);
        assert!((first - (0.5 + 0.5 * sigmoid(k, 250.0))).abs() < 1e-6);
        assert!(first < 1.0 && first > sigmoid(k, 250.0));
    }
}
