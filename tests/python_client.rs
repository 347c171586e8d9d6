//! A real UCI client against the binary: python-chess plays two short games through
//! `tools/uci_match.py`, checking every move's legality and the clocks, and
//! `tools/gui_check.py` asks for what analysis GUIs use (MultiPV, WDL, a weaker level). Skipped with a
//! message where python-chess is not installed, unless `SEARCHLIGHT_REQUIRE_PYTHON` is set
//! (CI sets it after installing the package).

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::sync::Mutex;

/// The two tests run one at a time: the clock test plays 1+0.01 games, and on two cores a
/// second engine process searching beside it would make its time losses the machine's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// True when python-chess can be imported; otherwise says the test is skipped (and fails
/// it where `SEARCHLIGHT_REQUIRE_PYTHON` is set).
fn python_chess_available() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("SEARCHLIGHT_REQUIRE_PYTHON").is_none(),
            "python-chess is required here: pip install chess"
        );
        eprintln!("SKIPPED: python-chess not installed (pip install chess)");
    }
    available
}

#[test]
fn python_chess_plays_legal_games_on_the_clock() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !python_chess_available() {
        return;
    }
    let out = Command::new("python3")
        .args([
            "tools/uci_match.py",
            "--binary",
            env!("CARGO_BIN_EXE_searchlight"),
            "--pair",
            // python-chess's own latency, a thread hop and a pipe each way, is about 2 ms
            // a move: most of the 2.5 ms a move that the default `Move Overhead` (10 ms)
            // expects. With so little to spare, the clock of a backend that spends its
            // budget settles near 30 ms at 1+0.01 (a 40-game run: 17.6 ms at the lowest),
            // and a 20 ms hiccup of a loaded machine once flagged `alphabeta` in CI. A
            // client with that latency sets a larger overhead, as the README advises; 30 ms
            // keeps the lowest clock above 40 ms. (A reserve built into the budget instead
            // lost an SPRT at 1+0.01, see the README.)
            "pvs/Move Overhead=30:alphabeta/Move Overhead=30",
            "--tc",
            "1+0.01",
            "--games",
            "2",
            "--concurrency",
            "1",
        ])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "match reported problems:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("illegal moves, time losses and crashes: 0"),
        "{stdout}"
    );
}

#[test]
fn python_chess_gets_multipv_lines_wdl_and_a_limited_strength_game() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !python_chess_available() {
        return;
    }
    let out = Command::new("python3")
        .args([
            "tools/gui_check.py",
            "--binary",
            env!("CARGO_BIN_EXE_searchlight"),
        ])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("gui checks: all passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
