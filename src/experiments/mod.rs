//! The experiments as library functions that return data; the CLI prints them:
//! the bench, the synthetic-tree experiments ([`trees`], [`critical`]), the research
//! algorithms as one-shot solvers ([`solve`]), a UCT move's trace ([`uct_trace`]), the
//! traps measurements ([`trap_generate`], [`trap_check`]), the SVG charts ([`plot`]) and
//! CSV quoting ([`csv`]).

pub mod bench;
pub mod critical;
pub mod csv;
pub mod datagen;
pub mod plot;
pub mod solve;
pub mod train;
pub mod trap_check;
pub mod trap_generate;
pub mod trees;
pub mod tune;
pub mod uct_trace;
pub mod wdl;

pub use trees::ExperimentError;
