//! `searchlight tune --nnue`: trains the network of `Eval=nnue` on `datagen` positions.
//!
//! The same target as Texel tuning — `λ·result + (1−λ)·sigmoid(K·score/400)`, K fitted to
//! the data's search scores — and the same loss, the squared error against
//! `sigmoid(K·eval/400)`, now over a float copy of the network (squared clipped ReLU,
//! weights clipped to ±1.98 so that the quantised net cannot overflow), minimised by Adam
//! in mini-batches whose gradient is summed over threads. The step size follows a cosine
//! from `rate` down to a twentieth of it. A slice of the data, fixed by the seed, is held
//! out and its loss reported beside the training loss, so that overfitting shows.

use crate::board::eval::nnue::{self, Base, HIDDEN, INPUTS, Network};
use crate::experiments::tune::{DataError, blended, golden_section, parse_line, sigmoid};
use crate::tree::rng::Rng;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position as _};

/// Positions as the net sees them: each one's inputs from White's side (Black's follow by
/// [`nnue::flip_feature`]), the side to move, and the target for the side to move.
pub struct NetData {
    features: Vec<u16>,
    starts: Vec<u32>,
    white_to_move: Vec<bool>,
    /// White's result and White's search score in centipawns, until [`NetData::blend`].
    result: Vec<f32>,
    score: Vec<f32>,
    /// The blended target for the side to move.
    target: Vec<f32>,
    /// The base evaluation for the side to move, in the output's units (400 cp): the net
    /// learns what to add to it.
    base: Vec<f32>,
    /// Whether the evaluation settles the position by rule ([`nnue::settled_by_rule`]),
    /// where the net's output is not added.
    by_rule: Vec<bool>,
}

/// One training position: its target, and the base evaluation and the weight the net's
/// output is added to it with (as at inference).
#[derive(Clone, Copy)]
struct Sample {
    target: f32,
    base: f32,
    fade: f32,
}

/// Offsets of the parameters in the flat vector Adam works on.
const W1: usize = 0;
const B1: usize = W1 + INPUTS * HIDDEN;
const W2: usize = B1 + HIDDEN;
const B2: usize = W2 + 2 * HIDDEN;
pub const PARAMS: usize = B2 + 1;
/// Every weight stays within this bound: 32 pieces and a bias at 1.98·255 fit an i16, and
/// 256 · 255² · 1.98·64 an i32.
const CLIP: f32 = 1.98;

/// Training settings.
pub struct Settings {
    pub epochs: usize,
    pub rate: f32,
    pub batch: usize,
    pub threads: usize,
    pub seed: u64,
    /// Parts per thousand of the data held out for validation.
    pub held_out: usize,
}

impl NetData {
    /// Parses `datagen` lines; the first malformed one is an error. With `mirror`, a
    /// position without castling rights is also added mirrored left to right (the same
    /// value: chess without castling is symmetric between the wings).
    pub fn parse(text: &str, mirror: bool, base: Base) -> Result<NetData, DataError> {
        let mut data = NetData {
            features: Vec::new(),
            starts: vec![0],
            white_to_move: Vec::new(),
            result: Vec::new(),
            score: Vec::new(),
            target: Vec::new(),
            base: Vec::new(),
            by_rule: Vec::new(),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let line = parse_line(line).map_err(|why| DataError { line: i + 1, why })?;
            let pos = line.pos.chess();
            let wings = if mirror { mirrored(pos) } else { None };
            for pos in std::iter::once(pos).chain(wings.as_ref()) {
                nnue::white_features(pos.board(), |f| data.features.push(f));
                data.starts.push(data.features.len() as u32);
                data.white_to_move.push(pos.turn() == Color::White);
                data.base
                    .push(base.evaluate(pos) as f32 / nnue::SCALE as f32);
                data.by_rule.push(nnue::settled_by_rule(pos.board()));
                data.result.push(line.result);
                data.score.push(line.score);
            }
        }
        Ok(data)
    }

    pub fn len(&self) -> usize {
        self.white_to_move.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The K of `sigmoid(K·score/400)` that predicts the results best from the search
    /// scores (golden-section search): the scale the net's output is fitted on.
    pub fn fit_k(&self) -> f32 {
        let loss = |k: f64| {
            let sum: f64 = self
                .score
                .iter()
                .zip(&self.result)
                .map(|(&s, &r)| (sigmoid(k, f64::from(s)) - f64::from(r)).powi(2))
                .sum();
            sum / self.len().max(1) as f64
        };
        golden_section(loss) as f32
    }

    /// Sets the targets: `λ·result + (1−λ)·sigmoid(K·score/400)`, for the side to move.
    pub fn blend(&mut self, lambda: f64, k: f32) {
        self.target = (0..self.len())
            .map(|i| {
                let white = blended(lambda, self.result[i], k, self.score[i]) as f32;
                if self.white_to_move[i] {
                    white
                } else {
                    1.0 - white
                }
            })
            .collect();
    }

    /// The target of position `i`, the base evaluation the net's output is added to and
    /// the output's weight there ([`nnue::fade`] of the base, as at inference; none in a
    /// position settled by rule).
    fn sample(&self, i: usize) -> Sample {
        let base = self.base[i];
        let cp = (base * nnue::SCALE as f32).round() as i32;
        let fade = if self.by_rule[i] { 0 } else { nnue::fade(cp) };
        Sample {
            target: self.target[i],
            base,
            fade: fade as f32 / nnue::FADE_SPAN as f32,
        }
    }

    /// The inputs of position `i` from the side to move's view and from the other's.
    fn inputs(&self, i: usize, ours: &mut Vec<usize>, theirs: &mut Vec<usize>) {
        ours.clear();
        theirs.clear();
        let range = self.starts[i] as usize..self.starts[i + 1] as usize;
        for &f in &self.features[range] {
            let (white, black) = (usize::from(f), usize::from(nnue::flip_feature(f)));
            if self.white_to_move[i] {
                ours.push(white);
                theirs.push(black);
            } else {
                ours.push(black);
                theirs.push(white);
            }
        }
    }
}

/// The position mirrored left to right, if it has no castling rights (castling is the one
/// rule that tells the wings apart).
fn mirrored(pos: &Chess) -> Option<Chess> {
    if !pos.castles().castling_rights().is_empty() {
        return None;
    }
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.flip_horizontal();
    setup.ep_square = setup.ep_square.map(|sq| sq.flip_horizontal());
    setup.position(CastlingMode::Standard).ok()
}

/// The float network, every parameter in one vector (layout: [`W1`] .. [`B2`]).
pub struct FloatNet(pub Vec<f32>);

impl FloatNet {
    /// Small random weights: an accumulator of about 30 pieces starts near ±0.5.
    pub fn random(seed: u64) -> FloatNet {
        let mut rng = Rng::new(seed);
        let mut p = vec![0.0f32; PARAMS];
        let mut uniform = |bound: f32| ((rng.unit() * 2.0 - 1.0) as f32) * bound;
        for w in &mut p[W1..B1] {
            *w = uniform(0.15);
        }
        for w in &mut p[W2..B2] {
            *w = uniform(0.1);
        }
        FloatNet(p)
    }

    /// The weights of a trained net, to fine-tune it on new data.
    pub fn from_network(net: &Network) -> FloatNet {
        let (w1, b1, w2, b2) = net.dequantise();
        let mut p = Vec::with_capacity(PARAMS);
        p.extend(w1);
        p.extend(b1);
        p.extend(w2);
        p.push(b2);
        debug_assert_eq!(p.len(), PARAMS);
        FloatNet(p)
    }

    pub fn quantise(&self, base: Base) -> Network {
        let p = &self.0;
        Network::quantise(base, &p[W1..B1], &p[B1..W2], &p[W2..B2], p[B2])
    }

    /// The accumulators and the output for the side to move, in units of 400 cp.
    fn forward(&self, ours: &[usize], theirs: &[usize]) -> ([[f32; HIDDEN]; 2], f32) {
        let p = &self.0;
        let mut acc = [[0.0f32; HIDDEN]; 2];
        for (side, inputs) in [ours, theirs].into_iter().enumerate() {
            acc[side].copy_from_slice(&p[B1..W2]);
            for &f in inputs {
                let column = &p[W1 + f * HIDDEN..W1 + (f + 1) * HIDDEN];
                acc[side].iter_mut().zip(column).for_each(|(a, w)| *a += w);
            }
        }
        let mut out = p[B2];
        for side in 0..2 {
            let w2 = &p[W2 + side * HIDDEN..W2 + (side + 1) * HIDDEN];
            out += acc[side]
                .iter()
                .zip(w2)
                .map(|(&a, &w)| a.clamp(0.0, 1.0).powi(2) * w)
                .sum::<f32>();
        }
        (acc, out)
    }

    /// Adds the gradient of `(sigmoid(K·out) − target)²` to `grad`, if given; returns the
    /// squared error.
    fn step(
        &self,
        ours: &[usize],
        theirs: &[usize],
        k: f32,
        sample: Sample,
        grad: Option<&mut [f32]>,
    ) -> f32 {
        let p = &self.0;
        let (acc, raw) = self.forward(ours, theirs);
        let capped = nnue::cap_output(raw);
        let out = sample.fade * capped + sample.base;
        let predicted = 1.0 / (1.0 + (-k * out).exp());
        let error = predicted - sample.target;
        // Past the cap the output no longer moves the evaluation, nor the weights.
        if let Some(g) = grad
            && capped == raw
        {
            let g_out = 2.0 * error * predicted * (1.0 - predicted) * k * sample.fade;
            g[B2] += g_out;
            for (side, inputs) in [ours, theirs].into_iter().enumerate() {
                let mut g_acc = [0.0f32; HIDDEN];
                for i in 0..HIDDEN {
                    let a = acc[side][i];
                    let active = a.clamp(0.0, 1.0);
                    g[W2 + side * HIDDEN + i] += g_out * active * active;
                    g_acc[i] = if a > 0.0 && a < 1.0 {
                        g_out * p[W2 + side * HIDDEN + i] * 2.0 * a
                    } else {
                        0.0
                    };
                    g[B1 + i] += g_acc[i];
                }
                for &f in inputs {
                    let column = &mut g[W1 + f * HIDDEN..W1 + (f + 1) * HIDDEN];
                    column.iter_mut().zip(&g_acc).for_each(|(c, d)| *c += d);
                }
            }
        }
        error * error
    }

    /// Mean squared error over the positions `which`.
    pub fn loss(&self, data: &NetData, which: &[u32], k: f32, threads: usize) -> f64 {
        let chunks: Vec<&[u32]> = which
            .chunks(which.len().div_ceil(threads.max(1)).max(1))
            .collect();
        let sums = crate::pool::map(&chunks, threads, |chunk| {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            chunk
                .iter()
                .map(|&i| {
                    data.inputs(i as usize, &mut ours, &mut theirs);
                    f64::from(self.step(&ours, &theirs, k, data.sample(i as usize), None))
                })
                .sum::<f64>()
        });
        sums.iter().sum::<f64>() / which.len().max(1) as f64
    }
}

/// The positions split into training and held-out sets, in a seeded random order.
pub fn split(data: &NetData, settings: &Settings) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..data.len() as u32).collect();
    Rng::new(settings.seed).shuffle(&mut order);
    let held = data.len() * settings.held_out / 1000;
    let train = order.split_off(held);
    (train, order)
}

/// Adam over every parameter on the training set of [`split`]; `report(epoch, training
/// loss, held-out loss)` after each epoch.
pub fn train(
    data: &NetData,
    net: &mut FloatNet,
    k: f32,
    settings: &Settings,
    (mut train, held): (Vec<u32>, Vec<u32>),
    mut report: impl FnMut(usize, f64, f64),
) {
    let mut rng = Rng::new(settings.seed ^ 0x5eed);
    let (mut m, mut v) = (vec![0.0f32; PARAMS], vec![0.0f32; PARAMS]);
    let (beta1, beta2) = (0.9f32, 0.999f32);
    let mut t = 0i32;
    let threads = settings.threads.max(1);
    let mut grads = vec![vec![0.0f32; PARAMS]; threads];
    for epoch in 1..=settings.epochs {
        let progress = (epoch - 1) as f32 / settings.epochs.max(1) as f32;
        let rate =
            settings.rate * (0.05 + 0.95 * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
        rng.shuffle(&mut train);
        let mut sum = 0.0f64;
        for batch in train.chunks(settings.batch.max(1)) {
            let per = batch.len().div_ceil(threads);
            let net_ref = &*net;
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(batch.chunks(per))
                    .map(|(g, part)| {
                        scope.spawn(move || {
                            g.iter_mut().for_each(|x| *x = 0.0);
                            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                            let mut loss = 0.0f64;
                            for &i in part {
                                data.inputs(i as usize, &mut ours, &mut theirs);
                                let sample = data.sample(i as usize);
                                loss += f64::from(net_ref.step(&ours, &theirs, k, sample, Some(g)));
                            }
                            loss
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(0.0))
                    .collect()
            });
            sum += losses.iter().sum::<f64>();
            let used = batch.chunks(per).count();
            let (first, rest) = grads.split_at_mut(1);
            for other in &rest[..used - 1] {
                first[0]
                    .iter_mut()
                    .zip(other.iter())
                    .for_each(|(a, b)| *a += b);
            }
            t += 1;
            let (c1, c2) = (1.0 - beta1.powi(t), 1.0 - beta2.powi(t));
            let scale = 1.0 / batch.len() as f32;
            for (j, w) in net.0.iter_mut().enumerate() {
                let g = first[0][j] * scale;
                m[j] = beta1 * m[j] + (1.0 - beta1) * g;
                v[j] = beta2 * v[j] + (1.0 - beta2) * g * g;
                *w -= rate * (m[j] / c1) / ((v[j] / c2).sqrt() + 1e-8);
                *w = w.clamp(-CLIP, CLIP);
            }
        }
        let held_loss = if held.is_empty() {
            f64::NAN
        } else {
            net.loss(data, &held, k, threads)
        };
        report(epoch, sum / train.len().max(1) as f64, held_loss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = "\
4k3/4p3/8/8/8/8/4P3/3QK3 w - - 0 1 | 900 | 1
4k3/4p3/8/8/8/8/4P3/3QK3 b - - 0 1 | 900 | 1
3qk3/4p3/8/8/8/8/4P3/4K3 w - - 0 1 | -900 | 0
3qk3/4p3/8/8/8/8/4P3/4K3 b - - 0 1 | -900 | 0
4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1 | 0 | 0.5
4k3/4p3/8/8/8/8/4P3/4K3 b - - 0 1 | 0 | 0.5
";

    fn settings(epochs: usize) -> Settings {
        Settings {
            epochs,
            rate: 0.01,
            batch: 4,
            threads: 2,
            seed: 1,
            held_out: 0,
        }
    }

    #[test]
    fn positions_settled_by_rule_get_no_correction_as_in_the_engine() {
        // A queen against a bare king (a mate to drive home) and a rook's pawn held; then
        // the same queen with a pawn each, which the net corrects.
        let text = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1
7k/8/7K/8/6B1/7P/8/8 b - - 0 61 | 0 | 0.5
4k3/4p3/8/8/8/8/4P3/3QK3 w - - 0 1 | 900 | 1
";
        let mut data = NetData::parse(text, false, Base::Classical).unwrap();
        data.blend(0.5, 1.0);
        assert_eq!(data.sample(0).fade, 0.0);
        assert_eq!(data.sample(1).fade, 0.0);
        assert!(data.sample(2).fade > 0.0);
    }

    #[test]
    fn a_malformed_line_is_refused_with_its_number() {
        let text = format!("{LINES}4k3/8/8/8/8/8/8/4K3 w - - 0 1 | x | 0.5\n");
        let e = NetData::parse(&text, false, Base::Material).err().unwrap();
        assert_eq!(e.line, 7);
        assert!(e.why.contains("bad score"), "{}", e.why);
    }

    #[test]
    fn training_lowers_the_loss_and_the_quantised_net_agrees() {
        let mut data = NetData::parse(LINES, false, Base::Material).unwrap();
        assert_eq!(data.len(), 6);
        data.blend(0.5, 1.0);
        let all: Vec<u32> = (0..6).collect();
        let mut net = FloatNet::random(3);
        let before = net.loss(&data, &all, 1.0, 2);
        let sets = split(&data, &settings(300));
        train(&data, &mut net, 1.0, &settings(300), sets, |_, _, _| {});
        let after = net.loss(&data, &all, 1.0, 2);
        // The queen positions' targets lie beyond what the capped correction can add, so
        // the loss falls to that floor, not to zero, and the correction stands at the cap.
        assert!(after < before / 2.0, "{before} -> {after}");
        // The side with the queen is ahead, in float and quantised, and the quantised net
        // gives the float net's value to within rounding.
        let quantised = net.quantise(Base::Material);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for (i, line) in LINES.lines().enumerate() {
            data.inputs(i, &mut ours, &mut theirs);
            let sample = data.sample(i);
            let out = sample.fade * nnue::cap_output(net.forward(&ours, &theirs).1) + sample.base;
            let float = out * nnue::SCALE as f32;
            if sample.base != 0.0 {
                let added = (out - sample.base) * nnue::SCALE as f32;
                let cap = nnue::CORRECTION_CAP as f32 * sample.fade;
                assert!((added.abs() - cap).abs() < 0.5, "{line}: {added} vs {cap}");
            }
            let fen = line.split('|').next().unwrap();
            let pos = crate::board::Position::from_fen_auto(fen).unwrap();
            let cp = quantised.evaluate(pos.chess());
            assert!(
                (cp as f32 - float).abs() < 5.0 + 0.02 * float.abs(),
                "{line}: {cp} vs {float}"
            );
            let expected = if data.target[i] > 0.6 {
                1
            } else if data.target[i] < 0.4 {
                -1
            } else {
                0
            };
            match expected {
                1 => assert!(cp > 50, "{line}: {cp}"),
                -1 => assert!(cp < -50, "{line}: {cp}"),
                _ => assert!(cp.abs() < 100, "{line}: {cp}"),
            }
        }
    }

    #[test]
    fn a_net_read_back_into_floats_quantises_to_itself() {
        let net = nnue::built_in();
        let again = FloatNet::from_network(&net).quantise(net.base);
        assert_eq!(again.to_bytes(), net.to_bytes());
    }
}
