//! Searchlight: a UCI chess engine whose search is a plug-in.
//!
//! Layers, each depending only on those below it:
//! - [`uci`] and [`cli`]: the protocol and the subcommands (translate, validate, print);
//! - [`search`]: the [`search::Backend`] interface, the registry, and the algorithms;
//! - [`tree`]: the game-tree interface the research algorithms are written against;
//! - [`board`]: the position over shakmaty, the game record, evaluation.

pub mod board;
pub mod cli;
pub mod engine;
pub mod engines_file;
pub mod epd;
pub mod matches;
pub mod options;
pub mod perft;
pub mod plot;
pub mod search;
pub mod traps;
pub mod tree;
pub mod uci;

/// The engine's name and version as `id name` reports it.
pub const ENGINE_NAME: &str = concat!("Searchlight ", env!("CARGO_PKG_VERSION"));
/// The `id author` line.
pub const ENGINE_AUTHOR: &str = "the Searchlight developers";
