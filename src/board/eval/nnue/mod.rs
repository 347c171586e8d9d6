//! `Eval=nnue`: a small efficiently-updatable neural network, 768 inputs (colour relative
//! to the side to move, role, square from that side) → one hidden layer of [`HIDDEN`]
//! per perspective, squared clipped ReLU → 1, quantised to 16-bit integers, whose output
//! is added to a base evaluation ([`Base`]: the committed net corrects `classical`).
//! Trained by `searchlight tune --nnue` on the project's own `datagen` positions (see the
//! README's "NNUE"); the committed net is built into the binary, `EvalFile` loads another.
//!
//! The search hands an evaluator a position, not a move, so the accumulators are updated
//! from the last position this thread evaluated rather than move by move: the pieces that
//! differ (a handful between neighbouring leaves of a search) are taken out and put in,
//! and a position far from the last one is rebuilt from scratch.

mod kernels;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Board, Chess, Color, Position as _, Role, Square};

use super::{Breakdown, Classical, Evaluator, Material, Term, draws, mates};

/// Inputs: two colours (own, enemy) × six roles × 64 squares.
pub const INPUTS: usize = 768;
/// Neurons of the hidden layer, per perspective.
pub const HIDDEN: usize = 128;
/// Quantisation of the hidden layer (a float 1.0 is 255) and of the output weights (64).
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The network's output is in units of 400 centipawns.
pub const SCALE: i32 = 400;

const MAGIC: &[u8; 4] = b"SLNN";
const VERSION: u32 = 2;
/// Header, first-layer weights and biases, output weights, output bias.
pub const FILE_BYTES: usize = HEADER + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4;

/// The net that ships with the engine (README, "NNUE": the command that trained it).
static BUILT_IN: &[u8] = include_bytes!("../../../../nets/searchlight-768x128.nnue");

/// Magic, version, hidden size, base.
const HEADER: usize = 16;

/// The evaluation the net's output is added to: the net learns a correction to it, and
/// the base carries the lopsided positions a search visits and self-play rarely keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Material,
    Classical,
}

impl Base {
    /// In the order of their codes in a net file (0 material, 1 classical).
    pub const ALL: [Base; 2] = [Base::Material, Base::Classical];

    pub fn name(self) -> &'static str {
        match self {
            Base::Material => "material",
            Base::Classical => "classical",
        }
    }

    #[inline]
    pub fn evaluate(self, pos: &Chess) -> i32 {
        match self {
            Base::Material => Material.evaluate(pos),
            Base::Classical => Classical.evaluate(pos),
        }
    }
}

/// A quantised network.
pub struct Network {
    pub base: Base,
    /// One column of [`HIDDEN`] weights per input, so that a piece adds a contiguous row.
    w1: Box<[[i16; HIDDEN]]>,
    b1: [i16; HIDDEN],
    /// Output weights for the side to move's accumulator, then the other's.
    w2: [[i16; HIDDEN]; 2],
    b2: i32,
    /// Tells this net's accumulators apart from another's in a thread's [`Last`].
    id: u64,
}

/// One perspective's hidden layer before activation.
type Accumulator = [i16; HIDDEN];

/// A board as the net reads it: White's pieces, Black's, then each role's.
type Placement = [Bitboard; 8];

const EMPTY: Placement = [Bitboard::EMPTY; 8];

/// A thread's last evaluated placement and its accumulators from White's and from
/// Black's side.
struct Last {
    net: u64,
    placement: Placement,
    acc: [Accumulator; 2],
}

thread_local! {
    static LAST: RefCell<Last> = const {
        RefCell::new(Last { net: 0, placement: EMPTY, acc: [[0; HIDDEN]; 2] })
    };
}

/// Where the base evaluation says the game is decided, the net's correction fades out:
/// from its full weight at [`FADE_FROM`] centipawns to none at [`FADE_TO`]. The net is
/// fitted through a sigmoid of the score, flat out there, so nothing holds its output to
/// a scale; unfaded it took over 400 cp off a lone queen, and a search that wins material
/// saw less of the win.
pub const FADE_FROM: i32 = 500;
pub const FADE_TO: i32 = 1200;
pub const FADE_SPAN: i32 = FADE_TO - FADE_FROM;

/// The correction's weight at this base evaluation, out of [`FADE_SPAN`] (the trainer
/// weighs its float net the same way).
#[inline]
pub fn fade(base: i32) -> i32 {
    (FADE_TO - base.abs()).clamp(0, FADE_SPAN)
}

/// The net's correction is at most this many centipawns either way. Its large
/// corrections come where it has least seen: a sacrifice, a king hunt, a line a search
/// visits and self-play rarely keeps (fitted through a sigmoid, nothing there held them
/// to a scale). Capped, `classical` keeps the say over material, and the net the
/// positional refinement it was trained for; the trainer caps its float net the same way.
pub const CORRECTION_CAP: i32 = 200;

/// The same cap for the trainer's float net, whose output is in units of [`SCALE`]
/// centipawns.
#[inline]
pub fn cap_output(out: f32) -> f32 {
    let cap = CORRECTION_CAP as f32 / SCALE as f32;
    out.clamp(-cap, cap)
}

/// Beyond this many pieces put in or taken out, a rebuild is cheaper.
const MAX_CHANGES: usize = 16;

/// Why a net file was refused.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("not a Searchlight net (no SLNN header)")]
    Magic,
    #[error("net format version {0}, this build reads {VERSION}")]
    Version(u32),
    #[error("hidden layer of {0}, this build has {HIDDEN}")]
    Hidden(u32),
    #[error("base evaluator {0} unknown (0 material, 1 classical)")]
    Base(u32),
    #[error("{0} bytes, a {HIDDEN}-neuron net has {FILE_BYTES}")]
    Length(usize),
    #[error("an output weight of {0}, beyond the ±{max} this build computes with", max = kernels::MAX_OUTPUT_WEIGHT)]
    OutputWeight(i16),
}

/// The input a piece of `color` and `role` on `sq` feeds, seen from `perspective`: its
/// colour as own or enemy, the square flipped vertically for Black, so that a position and
/// its colour-flipped mirror give the side to move the same inputs.
#[inline]
pub fn feature(perspective: Color, color: Color, role: Role, sq: Square) -> u16 {
    let enemy = u16::from(color != perspective);
    let sq = match perspective {
        Color::White => sq as u16,
        Color::Black => sq as u16 ^ 56,
    };
    enemy * 384 + (role as u16 - 1) * 64 + sq
}

/// The same input seen from the other side.
#[inline]
pub fn flip_feature(f: u16) -> u16 {
    let enemy = f / 384;
    let rest = f % 384;
    (enemy ^ 1) * 384 + (rest & !63) + ((rest & 63) ^ 56)
}

impl Network {
    /// All-zero weights (evaluates every position as its base does), to be filled by
    /// the trainer.
    pub fn zeroed(base: Base) -> Self {
        Network {
            base,
            w1: vec![[0; HIDDEN]; INPUTS].into_boxed_slice(),
            b1: [0; HIDDEN],
            w2: [[0; HIDDEN]; 2],
            b2: 0,
            id: next_id(),
        }
    }

    /// Sets the weights from floats (the trainer's), rounding to the quantisation grid.
    pub fn quantise(base: Base, w1: &[f32], b1: &[f32], w2: &[f32], b2: f32) -> Self {
        let q = |x: f32, scale: i32| (x * scale as f32).round() as i16;
        let mut net = Network::zeroed(base);
        for (f, column) in net.w1.iter_mut().enumerate() {
            for (i, w) in column.iter_mut().enumerate() {
                *w = q(w1[f * HIDDEN + i], QA);
            }
        }
        for i in 0..HIDDEN {
            net.b1[i] = q(b1[i], QA);
            net.w2[0][i] = q(w2[i], QB);
            net.w2[1][i] = q(w2[HIDDEN + i], QB);
        }
        net.b2 = (b2 * (QA * QB) as f32).round() as i32;
        net
    }

    /// The float weights this net was quantised from, to the quantisation's precision
    /// (the arguments of [`Network::quantise`]: w1 by input, b1, w2 for both halves, b2).
    pub fn dequantise(&self) -> (Vec<f32>, Vec<f32>, Vec<f32>, f32) {
        let f = |q: i16, scale: i32| f32::from(q) / scale as f32;
        let w1 = self.w1.iter().flatten().map(|&q| f(q, QA)).collect();
        let b1 = self.b1.iter().map(|&q| f(q, QA)).collect();
        let w2 = self.w2.iter().flatten().map(|&q| f(q, QB)).collect();
        (w1, b1, w2, self.b2 as f32 / (QA * QB) as f32)
    }

    /// Reads a net file: little-endian `SLNN`, version, hidden size, then the weights.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, NetError> {
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(NetError::Magic);
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        if word(4) != VERSION {
            return Err(NetError::Version(word(4)));
        }
        if word(8) as usize != HIDDEN {
            return Err(NetError::Hidden(word(8)));
        }
        let code = word(12);
        let base = *Base::ALL.get(code as usize).ok_or(NetError::Base(code))?;
        if bytes.len() != FILE_BYTES {
            return Err(NetError::Length(bytes.len()));
        }
        let mut halves = bytes[HEADER..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut net = Network::zeroed(base);
        let mut fill =
            |dst: &mut [i16]| dst.iter_mut().for_each(|w| *w = halves.next().unwrap_or(0));
        for column in net.w1.iter_mut() {
            fill(column);
        }
        fill(&mut net.b1);
        fill(&mut net.w2[0]);
        fill(&mut net.w2[1]);
        net.b2 = word(FILE_BYTES - 4) as i32;
        let max = kernels::MAX_OUTPUT_WEIGHT;
        if let Some(&w) = net.w2.iter().flatten().find(|w| !(-max..=max).contains(*w)) {
            return Err(NetError::OutputWeight(w));
        }
        Ok(net)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        let code = Base::ALL.iter().position(|&b| b == self.base).unwrap_or(0) as u32;
        out.extend_from_slice(&code.to_le_bytes());
        let halves = self
            .w1
            .iter()
            .flatten()
            .chain(&self.b1)
            .chain(self.w2.iter().flatten());
        for w in halves {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// Centipawns for the side to move.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        LAST.with_borrow_mut(|last| {
            let now = placement(pos.board());
            if last.net != self.id || !self.update(last, &now) {
                last.acc = self.refresh(&now);
                last.net = self.id;
            }
            last.placement = now;
            let us = side(pos.turn());
            self.finish(pos, &last.acc[us], &last.acc[us ^ 1])
        })
    }

    /// The same without the thread's last position (for tests).
    pub fn evaluate_from_scratch(&self, pos: &Chess) -> i32 {
        let acc = self.refresh(&placement(pos.board()));
        let us = side(pos.turn());
        self.finish(pos, &acc[us], &acc[us ^ 1])
    }

    /// Both accumulators, built from the biases up.
    fn refresh(&self, now: &Placement) -> [Accumulator; 2] {
        // A legal position has at most 32 pieces; an illegal one loses the rest.
        let mut features = ArrayVec::<u16, 32>::new();
        new_pieces(now, &EMPTY, |f| {
            let _ = features.try_push(f);
        });
        let mut acc = [self.b1; 2];
        kernels::apply(&mut acc[0], &self.w1, &[], &features);
        features.iter_mut().for_each(|f| *f = flip_feature(*f));
        kernels::apply(&mut acc[1], &self.w1, &[], &features);
        acc
    }

    /// Moves the last accumulators to `now`; false if too much changed.
    fn update(&self, last: &mut Last, now: &Placement) -> bool {
        let mut gone = ArrayVec::<u16, MAX_CHANGES>::new();
        let mut came = ArrayVec::<u16, MAX_CHANGES>::new();
        let mut fits = true;
        new_pieces(&last.placement, now, |f| fits &= gone.try_push(f).is_ok());
        new_pieces(now, &last.placement, |f| fits &= came.try_push(f).is_ok());
        if !fits || gone.len() + came.len() > MAX_CHANGES {
            return false;
        }
        kernels::apply(&mut last.acc[0], &self.w1, &gone, &came);
        for f in gone.iter_mut().chain(came.iter_mut()) {
            *f = flip_feature(*f);
        }
        kernels::apply(&mut last.acc[1], &self.w1, &gone, &came);
        true
    }

    fn finish(&self, pos: &Chess, ours: &Accumulator, theirs: &Accumulator) -> i32 {
        let base = self.base.evaluate(pos);
        if settled_by_rule(pos.board()) {
            return base;
        }
        self.finish_with(base, ours, theirs)
    }

    /// The base evaluation plus the net's correction, capped, and faded where the base is
    /// lopsided.
    fn finish_with(&self, base: i32, ours: &Accumulator, theirs: &Accumulator) -> i32 {
        let weight = fade(base);
        if weight == 0 {
            return base;
        }
        let sum = kernels::output(ours, &self.w2[0]) + kernels::output(theirs, &self.w2[1]);
        let correction =
            ((sum / QA + self.b2) * SCALE / (QA * QB)).clamp(-CORRECTION_CAP, CORRECTION_CAP);
        base + correction * weight / FADE_SPAN
    }
}

/// A known draw ([`draws`]) or a mate to drive home ([`mates`]): the base's to score, with
/// no correction, since the net never learnt either and would undo it (the trainer leaves
/// these positions to the base the same way).
pub fn settled_by_rule(board: &Board) -> bool {
    draws::known_draw(board) || mates::drive(board).is_some()
}

/// White 0, Black 1: the order of [`Color::ALL`] (shakmaty's discriminants are the
/// other way round).
#[inline]
fn side(color: Color) -> usize {
    usize::from(color == Color::Black)
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn placement(board: &Board) -> Placement {
    let mut p = EMPTY;
    p[0] = board.by_color(Color::White);
    p[1] = board.by_color(Color::Black);
    for role in Role::ALL {
        p[1 + role as usize] = board.by_role(role);
    }
    p
}

/// Calls `f` with the input, from White's side, of each piece on `board` (the trainer
/// reads positions through it, so that it and the engine cannot disagree).
pub fn white_features(board: &Board, f: impl FnMut(u16)) {
    new_pieces(&placement(board), &EMPTY, f);
}

/// Calls `f` with the input, from White's side, of each piece in `now` and not in `then`.
#[inline]
fn new_pieces(now: &Placement, then: &Placement, mut f: impl FnMut(u16)) {
    for color in Color::ALL {
        for role in Role::ALL {
            let of = |p: &Placement| p[side(color)] & p[1 + role as usize];
            for sq in of(now) & !of(then) {
                f(feature(Color::White, color, role, sq));
            }
        }
    }
}

/// The built-in net, parsed once and shared by every search.
pub fn built_in() -> Arc<Network> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    NET.get_or_init(|| {
        // The file is checked by a test; were it broken, `nnue` would be `material`.
        Arc::new(Network::from_bytes(BUILT_IN).unwrap_or_else(|e| {
            log::error!("built-in net: {e}");
            Network::zeroed(Base::Material)
        }))
    })
    .clone()
}

/// The `Eval=nnue` evaluator.
pub struct Nnue(pub Arc<Network>);

impl Evaluator for Nnue {
    #[inline]
    fn evaluate(&self, pos: &Chess) -> i32 {
        self.0.evaluate(pos)
    }

    /// The base evaluation's terms, then the net's correction as one more.
    fn breakdown(&self, pos: &Chess) -> Breakdown {
        let mut b = match self.0.base {
            Base::Classical => Classical.breakdown(pos),
            Base::Material => Material.breakdown(pos),
        };
        let side = if pos.turn() == Color::White { 1 } else { -1 };
        let net = side * (self.0.evaluate(pos) - self.0.base.evaluate(pos));
        b.terms.push(Term {
            name: "network (added after the blend)",
            mg: net,
            eg: net,
        });
        b.white += net;
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use shakmaty::CastlingMode;

    #[test]
    fn the_built_in_net_loads_and_round_trips() {
        let net = Network::from_bytes(BUILT_IN).unwrap();
        assert_eq!(net.to_bytes(), BUILT_IN);
    }

    #[test]
    fn a_damaged_file_is_refused() {
        assert!(matches!(Network::from_bytes(b"nope"), Err(NetError::Magic)));
        let mut bytes = Network::zeroed(Base::Classical).to_bytes();
        bytes.pop();
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetError::Length(_))
        ));
        bytes[8] = 7;
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetError::Hidden(_))
        ));
        // An output weight the 16-bit product cannot hold.
        let mut bytes = Network::zeroed(Base::Classical).to_bytes();
        let w2 = HEADER + 2 * (INPUTS * HIDDEN + HIDDEN);
        bytes[w2..w2 + 2].copy_from_slice(&200i16.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetError::OutputWeight(200))
        ));
    }

    #[test]
    fn flipping_a_feature_twice_is_the_identity_and_matches_the_other_side() {
        for f in 0..INPUTS as u16 {
            assert_eq!(flip_feature(flip_feature(f)), f);
        }
        let f = feature(Color::White, Color::Black, Role::Queen, Square::D8);
        assert_eq!(
            flip_feature(f),
            feature(Color::Black, Color::Black, Role::Queen, Square::D8)
        );
    }

    #[test]
    fn the_updated_accumulators_match_a_rebuild_and_the_correction_its_cap() {
        let net = built_in();
        let mut walk = 7u64;
        let mut below = |n: usize| {
            walk = walk.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (walk >> 33) as usize % n
        };
        for game in 0..20 {
            let mut pos = Chess::default();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[below(moves.len())];
                // Now and then a search's next leaf lies in another part of the tree.
                if below(10) == 0 {
                    net.evaluate(&Chess::default());
                }
                let child = pos.clone().play(m).unwrap();
                let cp = net.evaluate(&child);
                assert_eq!(cp, net.evaluate_from_scratch(&child), "game {game}");
                // Random games reach the lopsided positions where the net pulls hardest.
                let correction = cp - net.base.evaluate(&child);
                assert!(
                    correction.abs() <= CORRECTION_CAP,
                    "game {game}: {correction}"
                );
                pos = child;
            }
        }
    }

    #[test]
    fn the_breakdown_ends_at_the_evaluation() {
        let nnue = Nnue(built_in());
        for fen in [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3",
        ] {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let b = nnue.breakdown(pos.chess());
            let side = if pos.chess().turn() == Color::White {
                1
            } else {
                -1
            };
            assert_eq!(b.white, side * nnue.evaluate(pos.chess()), "{fen}");
            assert!(b.terms.iter().any(|t| t.name.starts_with("network")));
        }
    }

    #[test]
    fn a_decided_position_gets_the_base_score_and_the_fade_is_continuous() {
        let nnue = Nnue(built_in());
        for fen in [
            "4k3/8/8/8/8/8/8/2QQK3 w - - 0 1",
            "4k3/8/8/8/8/8/8/2QQK3 b - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NB1KBN1 w kq - 0 1",
        ] {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let base = Classical.evaluate(pos.chess());
            assert!(base.abs() >= FADE_TO, "{fen}: {base}");
            assert_eq!(nnue.evaluate(pos.chess()), base, "{fen}");
        }
        // The correction falls linearly across the fade: whole at its start, half in
        // its middle, nothing at its end; a score never jumps as the base crosses it.
        let net = &nnue.0;
        let acc = net.refresh(&placement(Position::startpos().chess().board()));
        let correction = |base: i32| net.finish_with(base, &acc[0], &acc[1]) - base;
        let full = correction(0);
        assert!(full != 0);
        assert_eq!(correction(FADE_FROM), full);
        assert_eq!(correction(-FADE_FROM), full);
        let middle = (FADE_FROM + FADE_TO) / 2;
        assert!((correction(middle) - full / 2).abs() <= 1);
        assert!(correction(FADE_TO - 1).abs() <= 1 + full.abs() / FADE_SPAN);
        assert_eq!(correction(FADE_TO), 0);
        assert_eq!(correction(-FADE_TO), 0);
    }

    #[test]
    fn positions_settled_by_rule_get_the_base_score() {
        let nnue = Nnue(built_in());
        let draws = [
            "7k/8/7K/8/6B1/7P/8/8 b - - 0 61",
            "8/8/4b3/8/8/8/p7/K2k4 w - - 0 1",
            "7k/8/6K1/7P/8/8/8/8 b - - 0 76",
        ];
        // Mates to drive home: a bishop and a knight, a queen.
        let mates = [
            "8/8/8/4k3/8/8/8/2BNK3 w - - 0 1",
            "8/8/3k4/8/8/3K4/3Q4/8 b - - 0 1",
        ];
        for fen in draws.into_iter().chain(mates) {
            let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
            let base = Classical.evaluate(pos.chess());
            if draws.contains(&fen) {
                assert!(base.abs() <= 30, "{fen}: {base}");
            }
            assert_eq!(nnue.evaluate(pos.chess()), base, "{fen}");
            assert_eq!(nnue.0.evaluate_from_scratch(pos.chess()), base, "{fen}");
        }
    }

    #[test]
    fn the_built_in_net_likes_an_extra_queen() {
        let nnue = Nnue(built_in());
        // A pawn each, so that no rule settles it and the net has its say (`classical`:
        // +683, into the fade, README "NNUE").
        let up = Position::from_fen("4k3/4p3/8/8/8/8/4P3/3QK3 w - - 0 1", CastlingMode::Standard)
            .unwrap();
        assert!(nnue.evaluate(up.chess()) > 200);
        let down = Position::from_fen("4k3/4p3/8/8/8/8/4P3/3QK3 b - - 0 1", CastlingMode::Standard)
            .unwrap();
        assert!(nnue.evaluate(down.chess()) < -200);
        let start = nnue.evaluate(Position::startpos().chess());
        assert!(start.abs() < 100, "startpos {start}");
    }
}
