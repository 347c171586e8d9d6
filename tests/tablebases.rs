//! Syzygy endgame tables through UCI (`SyzygyPath`), against the built binary. The tables
//! in `tests/data/syzygy` (every three- and four-piece table a test needs, and `KRPvK`)
//! were made with the Syzygy generator and match the published checksums of the official
//! tables (see the README, "Endgame tables").

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Engine, chess};

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

/// King and pawn against king, White to move: only Kf5 wins (f7 and the rest draw).
const ONE_WIN: &str = "8/8/5K2/7k/8/8/6P1/8 w - - 0 1";

/// Five pieces, so the root is not in the tables: Rg2+ skewers the king and wins the rook,
/// and the position after the capture (king, rook and pawn against king) is.
const SKEWER: &str = "8/6r1/K7/8/6k1/8/PR6/8 w - - 0 1";

fn last_score(lines: &[String]) -> i32 {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.contains(" score cp "))
        .unwrap_or_else(|| panic!("no score in {lines:?}"));
    let cp = info.split(" score cp ").nth(1).unwrap();
    cp.split(' ').next().unwrap().parse().unwrap()
}

fn last_tbhits(lines: &[String]) -> Option<u64> {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth"))?;
    let after = info.split(" tbhits ").nth(1)?;
    after.split(' ').next()?.parse().ok()
}

#[test]
fn every_backend_plays_the_only_winning_move_the_tables_know() {
    let mut e = Engine::ready();
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string found ")),
        "{lines:?}"
    );
    for backend in searchlight::search::registry::names() {
        e.send(&format!("setoption name Search value {backend}"));
        e.send(&format!("position fen {ONE_WIN}"));
        let (lines, best) = e.go("go nodes 300", &chess(ONE_WIN));
        assert_eq!(best, "f6f5", "{backend}: {lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l == "info string tablebases: win; root moves that keep it: 1"),
            "{backend}: {lines:?}"
        );
    }
    // The root's value is the tables' win, not the evaluation of a pawn up.
    e.send("setoption name Search value pvs");
    let (lines, _) = e.go("go depth 3", &chess(ONE_WIN));
    assert_eq!(last_score(&lines), 20_000, "{lines:?}");
    e.send("quit");
}

#[test]
fn the_search_scores_a_capture_into_the_tables_as_a_win() {
    let mut e = Engine::ready();
    e.send(&format!("position fen {SKEWER}"));
    let (plain, best) = e.go("go depth 6", &chess(SKEWER));
    assert_eq!(best, "b2g2", "{plain:?}");
    assert!(last_score(&plain) < 5_000, "{plain:?}");
    assert_eq!(last_tbhits(&plain), None, "no tables, no tbhits: {plain:?}");

    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    e.send("ucinewgame");
    e.send(&format!("position fen {SKEWER}"));
    let (lines, best) = e.go("go depth 6", &chess(SKEWER));
    assert_eq!(best, "b2g2", "{lines:?}");
    let score = last_score(&lines);
    assert!(
        (19_000..20_000).contains(&score),
        "a table win a few plies away: {lines:?}"
    );
    assert!(last_tbhits(&lines).is_some_and(|n| n > 0), "{lines:?}");
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("info string tablebases")),
        "five pieces: the root is not in the tables: {lines:?}"
    );

    // With the limit below the position after the capture, nothing is probed.
    e.send("setoption name SyzygyProbeLimit value 3");
    e.send("ucinewgame");
    e.send(&format!("position fen {SKEWER}"));
    let (limited, _) = e.go("go depth 6", &chess(SKEWER));
    assert!(last_score(&limited) < 5_000, "{limited:?}");
    assert_eq!(last_tbhits(&limited), Some(0), "{limited:?}");

    // Nor with every node of the search nearer its horizon than the probe depth.
    e.send("setoption name SyzygyProbeLimit value 7");
    e.send("setoption name SyzygyProbeDepth value 7");
    e.send("ucinewgame");
    e.send(&format!("position fen {SKEWER}"));
    let (shallow, _) = e.go("go depth 6", &chess(SKEWER));
    assert_eq!(last_tbhits(&shallow), Some(0), "{shallow:?}");
    e.send("quit");
}

/// Queen against king with 90 plies on the clock: the mate is more than ten plies away,
/// so the fifty-move rule draws the game first.
const CURSED: &str = "8/8/8/3k4/8/8/8/Q3K3 w - - 90 80";

#[test]
fn without_the_fifty_move_rule_a_win_it_would_draw_is_a_win() {
    let mut e = Engine::ready();
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    e.send(&format!("position fen {CURSED}"));
    let (ruled, _) = e.go("go depth 4", &chess(CURSED));
    assert!(
        ruled.iter().any(|l| l.starts_with(
            "info string tablebases: draw by the fifty-move rule (a win without it); "
        )),
        "{ruled:?}"
    );
    assert_eq!(last_score(&ruled), 1, "{ruled:?}");

    e.send("setoption name Syzygy50MoveRule value false");
    e.send(&format!("position fen {CURSED}"));
    let (free, _) = e.go("go depth 4", &chess(CURSED));
    assert!(
        free.iter()
            .any(|l| l.starts_with("info string tablebases: win; ")),
        "{free:?}"
    );
    assert_eq!(last_score(&free), 20_000, "{free:?}");
    e.send("quit");
}

#[test]
fn a_path_that_cannot_be_read_is_refused_and_the_tables_in_use_kept() {
    let mut e = Engine::ready();
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    e.send("setoption name SyzygyPath value /no/such/directory");
    let lines = e.sync();
    let errors: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(
        errors[0].contains("SyzygyPath") && errors[0].contains("/no/such/directory"),
        "{errors:?}"
    );
    e.send(&format!("position fen {ONE_WIN}"));
    let (lines, best) = e.go("go depth 2", &chess(ONE_WIN));
    assert_eq!(best, "f6f5", "the tables are still loaded: {lines:?}");

    // `<empty>` unloads them: the search is on its own again.
    e.send("setoption name SyzygyPath value <empty>");
    let (lines, _) = e.go("go depth 2", &chess(ONE_WIN));
    assert!(!lines.iter().any(|l| l.contains("tablebases")), "{lines:?}");
    e.send("quit");
}
