//! The engine under a real tournament manager: cutechess-cli plays it at a short time
//! control, with its strict clock (no time margin), both as `-engine cmd=...` and through
//! the entries of `engines/engines.json`. cutechess-cli is not packaged and cannot be
//! built on CI, so these tests run where `CUTECHESS_CLI` names the binary or
//! `cutechess-cli` is on `PATH`, and skip elsewhere (see the README, "Using it in Cute
//! Chess and cutechess-cli").

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::temp;

fn cutechess() -> Option<PathBuf> {
    let candidate = std::env::var_os("CUTECHESS_CLI")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cutechess-cli"));
    let runs = Command::new(&candidate)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    runs.then_some(candidate)
}

/// Runs cutechess-cli in `dir` and checks that it played `games` games to a result of the
/// board: none lost on time, by a disconnection, a stall or an illegal move. `tag` names
/// the PGN, apart from the other tests' running at the same time.
fn play(tag: &str, cli: &Path, dir: &Path, path_extra: Option<&Path>, args: &[&str], games: usize) {
    let pgn = temp(&format!("cutechess-{tag}.pgn"));
    let mut command = Command::new(cli);
    command.current_dir(dir).args(args).args([
        "-each",
        "tc=2+0.02",
        "-games",
        &games.to_string(),
        "-repeat",
        "-pgnout",
        pgn.to_str().unwrap(),
    ]);
    if let Some(extra) = path_extra {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![extra.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(dirs).unwrap());
    }
    let out = command.output().expect("cutechess-cli runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let errors = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}{errors}");
    assert!(text.contains("Finished match"), "{text}");
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(pgn_text.matches("[Event ").count(), games, "{pgn_text}");
    for bad in ["on time", "disconnects", "stalls", "illegal", "crash"] {
        assert!(!text.contains(bad), "{bad}: {text}");
        assert!(!pgn_text.contains(bad), "{bad}: {pgn_text}");
    }
    let _ = std::fs::remove_file(&pgn);
}

#[test]
fn cutechess_cli_plays_two_backends_given_by_command() {
    let Some(cli) = cutechess() else {
        println!("cutechess-cli not found: test skipped");
        return;
    };
    let engine = env!("CARGO_BIN_EXE_searchlight");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    play(
        "command",
        &cli,
        root,
        None,
        &[
            "-engine",
            &format!("cmd={engine}"),
            "name=pvs",
            "option.Search=pvs",
            "proto=uci",
            "-engine",
            &format!("cmd={engine}"),
            "name=uctmaxh",
            "option.Search=uctmaxh",
            "proto=uci",
            "-openings",
            "file=openings/balanced_8ply.epd",
            "format=epd",
            "order=random",
        ],
        2,
    );
}

#[test]
fn cutechess_cli_reads_the_engines_file() {
    let Some(cli) = cutechess() else {
        println!("cutechess-cli not found: test skipped");
        return;
    };
    let engine = Path::new(env!("CARGO_BIN_EXE_searchlight"));
    let engines = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines");
    play(
        "engines-file",
        &cli,
        &engines,
        engine.parent(),
        &[
            "-engine",
            "conf=Searchlight pvs",
            "-engine",
            "conf=Searchlight alphabeta",
        ],
        2,
    );
}
