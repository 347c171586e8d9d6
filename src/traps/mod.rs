//! Search-trap analysis (Understanding Sampling-Based Adversarial Search Methods (2012)
//! ch. 4): which moves of the side to move let the opponent
//! force checkmate within k plies, proven exactly.

pub mod analysis;
pub mod games;
pub mod mate;
pub mod report;
pub mod soft;

pub use analysis::{Analysis, TrapMove, analyse, analyse_all, analyse_with_soft, csv, table};
pub use mate::MateProver;
