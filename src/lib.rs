//! Searchlight: a UCI chess engine whose search is a plug-in.
//!
//! Layers, each depending only on those below it (`tests/architecture.rs` keeps it so):
//! - [`cli`]: the subcommands' arguments and printing;
//! - [`uci`]: the protocol server, thin over [`engine::Engine`];
//! - [`matches`], [`experiments`], [`traps`]: the domain tools, as libraries;
//! - [`engine`]: position, options and backend, and the search thread's lifecycle;
//! - [`search`]: the [`search::Backend`] contract, the registry, and the backends;
//! - [`tree`]: the game-tree interface the research backends are written against;
//! - [`board`]: the position over shakmaty, the rules, evaluation, position files;
//! - [`value`], [`options`], [`pool`]: search values, option declarations, worker threads.

pub mod board;
pub mod cli;
pub mod engine;
pub mod experiments;
pub mod matches;
pub mod options;
pub mod pool;
pub mod search;
pub mod traps;
pub mod tree;
pub mod uci;
pub mod value;

/// The engine's name and version as `id name` reports it.
pub const ENGINE_NAME: &str = concat!("Searchlight ", env!("CARGO_PKG_VERSION"));
/// The `id author` line.
pub const ENGINE_AUTHOR: &str = "the Searchlight developers";
