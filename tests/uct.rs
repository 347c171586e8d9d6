//! The UCT family end to end: the solver proves short mates (checked against `pvs`), a
//! tiny `TreeMemory` bounds the process's memory (measured from /proc over pipes), `go
//! nodes N` is N iterations, and `stop` is obeyed within milliseconds even with playouts.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use common::{Engine, chess, play};
use searchlight::board::{Game, Position};
use searchlight::engine;
use searchlight::search::Limits;
use searchlight::search::info::Silent;
use searchlight::value::UciScore;
use shakmaty::{CastlingMode, Chess, Move, Position as _};

/// The mate `pvs` proves in `game` within `moves` moves, if any.
fn pvs_mate(game: &Game, moves: u32) -> Option<(i32, Move, Option<Move>)> {
    let mut pvs = engine::Engine::with_options(&[("Search", "pvs"), ("Hash", "8")]).unwrap();
    // No depth limit: pvs's pruning finds a sacrificial mate only at depth 10 or more.
    let limits = Limits {
        mate: Some(moves),
        nodes: Some(50_000_000),
        ..Limits::default()
    };
    let r = pvs.search(game, &limits, &Silent);
    match UciScore::from_value(r.value) {
        UciScore::Mate(n) if n > 0 => Some((n, r.best?, r.ponder)),
        _ => None,
    }
}

/// Mate-in-1 and mate-in-2 positions: the WAC positions `pvs` proves to be mate in 2,
/// and the mate-in-1 positions reached from them after the mating side's first move and
/// the defender's best reply (each checked by `pvs` again).
fn short_mates() -> Vec<(Game, i32)> {
    let text = std::fs::read_to_string("tests/data/wac.epd").unwrap();
    let mut found = Vec::new();
    for line in text.lines().filter(|l| l.contains("dm 2;")) {
        let fen: Vec<&str> = line.split_whitespace().take(4).collect();
        let pos = Position::from_fen(&fen.join(" "), CastlingMode::Standard).unwrap();
        let game = Game::new(pos);
        let Some((2, first, Some(reply))) = pvs_mate(&game, 2) else {
            panic!("pvs does not see mate in 2 with a reply in {line}");
        };
        let mut one = game.clone();
        one.push(first);
        one.push(reply);
        assert!(
            matches!(pvs_mate(&one, 1), Some((1, _, _))),
            "{line} after the first two moves"
        );
        found.push((game, 2));
        found.push((one, 1));
    }
    found
}

/// Each backend with the solver and `settings` proves every mate in one and two of
/// [`short_mates`] with its exact distance, and plays a mating move.
fn proves_every_mate(settings: &[(&str, &str)]) {
    let mates = short_mates();
    assert!(mates.len() >= 20, "only {} positions", mates.len());
    for backend in ["ucth", "uctmaxh", "uct"] {
        let mut options = vec![("Search", backend), ("UCT_Solver", "true")];
        options.extend_from_slice(settings);
        let mut e = engine::Engine::with_options(&options).unwrap();
        for (game, n) in &mates {
            // Plain UCT's playouts make it ~30x slower per iteration: mates in one only.
            if backend == "uct" && *n > 1 {
                continue;
            }
            let r = e.search(game, &Limits::nodes(2_000_000), &Silent);
            let fen = game.position().fen();
            assert_eq!(
                UciScore::from_value(r.value),
                UciScore::Mate(*n),
                "{backend} {settings:?} {fen}"
            );
            // The move played mates in n, by brute force over the defender's replies.
            let mut after = game.position().chess().clone();
            after.play_unchecked(r.best.unwrap());
            assert!(mated_within(&after, *n - 1), "{backend} {settings:?} {fen}");
        }
    }
}

#[test]
fn the_solver_proves_every_mate_in_one_and_two() {
    proves_every_mate(&[]);
}

/// The same proofs, mate distances included, from four threads sharing one tree (and from
/// four trees of their own).
#[test]
fn the_solver_proves_the_same_mates_with_four_threads() {
    proves_every_mate(&[("Threads", "4"), ("UCT_Parallel", "tree")]);
    proves_every_mate(&[("Threads", "4"), ("UCT_Parallel", "root")]);
}

/// The side to move at `pos` is checkmated now or within `moves` more of the opponent's
/// moves whatever it plays (full width, no pruning).
fn mated_within(pos: &Chess, moves: i32) -> bool {
    if pos.is_checkmate() {
        return true;
    }
    let replies = pos.legal_moves();
    moves > 0
        && !replies.is_empty()
        && replies.iter().all(|&r| {
            let mut p = pos.clone();
            p.play_unchecked(r);
            p.legal_moves().iter().any(|&m| {
                let mut q = p.clone();
                q.play_unchecked(m);
                mated_within(&q, moves - 1)
            })
        })
}

fn proc_status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Peak memory growth of a fresh engine during one search (`go`) of `ucth` with this
/// TreeMemory.
fn growth_kb(tree_mb: u32, go: &str) -> (u64, Vec<String>) {
    let mut e = Engine::ready();
    let pid = e.client.pid();
    e.send("setoption name Hash value 1");
    e.send("setoption name Search value ucth");
    e.send(&format!("setoption name TreeMemory value {tree_mb}"));
    e.send("position startpos");
    // Warm up: threads, buffers and the binary's pages are in before the baseline.
    e.go("go nodes 100", &Chess::default());
    e.sync();
    let base = proc_status_kb(pid, "VmRSS:");
    // Reset the peak (VmHWM) to the current RSS: the default 16 MB table was live at start.
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    let (lines, _) = e.go(go, &Chess::default());
    let peak = proc_status_kb(pid, "VmHWM:");
    e.send("quit");
    (peak.saturating_sub(base), lines)
}

#[test]
fn a_tiny_tree_memory_bounds_the_process() {
    let (small, lines) = growth_kb(1, "go movetime 1000");
    assert!(
        lines.iter().any(|l| l.contains("TreeMemory full")),
        "{lines:?}"
    );
    // Counted in iterations, so that a slow machine grows the tree as far: 400,000 nodes
    // of 32 bytes, 12.5 MB.
    let (large, _) = growth_kb(64, "go nodes 400000");
    eprintln!("peak RSS growth: TreeMemory 1 MB: {small} kB, 64 MB: {large} kB");
    // The tree may take its 1 MB; a little more is the allocator's and the stack's.
    assert!(small <= 1024 + 512, "TreeMemory 1: grew {small} kB");
    // The measurement sees a tree that is allowed to grow.
    assert!(large > 4 * 1024, "TreeMemory 64: grew only {large} kB");
}

#[test]
fn go_nodes_is_iterations_and_stop_is_prompt() {
    let mut e = Engine::ready();
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let pos = chess(kiwipete);
    for backend in ["uct", "ucth", "uctmaxh", "uct-hybrid"] {
        e.send(&format!("setoption name Search value {backend}"));
        e.send("ucinewgame");
        e.send(&format!("position fen {kiwipete}"));
        let (lines, _) = e.go("go nodes 3000", &pos);
        let last = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap();
        assert!(last.contains(" nodes 3000 "), "{backend}: {last}");

        let mut latencies = Vec::new();
        for _ in 0..3 {
            e.send("go infinite");
            e.lines_within(Duration::from_millis(100));
            let sent = Instant::now();
            e.send("stop");
            let lines = e.expect_within("bestmove", common::HANG);
            latencies.push(sent.elapsed());
            common::check_search_output(&lines, &pos);
        }
        // A figure, not a test (the machine may be loaded): the hang bound is the wait.
        latencies.sort();
        eprintln!("{backend} stop latencies: {latencies:?}");
    }
    // Tree reuse over UCI: the next position of the game is searched without a hitch.
    e.send("position startpos moves e2e4 e7e5");
    e.go("go nodes 2000", &play(Chess::default(), &["e2e4", "e7e5"]));
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    e.go(
        "go nodes 2000",
        &play(Chess::default(), &["e2e4", "e7e5", "g1f3", "b8c6"]),
    );
    e.send("quit");
}

/// `uct-hybrid` hands over to `pvs` once terminal positions are common, and `pvs` then
/// plays a move of the mating net: after it, the defender is mated next move.
#[test]
fn the_hybrid_hands_over_to_pvs_which_plays_the_mating_move() {
    use searchlight::search::info::Recorder;
    // King and rook against king: many lines end in mate or stalemate; mate in 2.
    let fen = "7k/8/5K2/8/8/8/8/R7 w - - 0 1";
    let game = Game::new(Position::from_fen(fen, CastlingMode::Standard).unwrap());
    let run = |threshold: &str| {
        let settings = [("Search", "uct-hybrid"), ("HybridThreshold", threshold)];
        let mut hybrid = engine::Engine::with_options(&settings).unwrap();
        let sink = Recorder::default();
        let r = hybrid.search(&game, &Limits::nodes(50_000), &sink);
        let messages = sink.messages.lock().unwrap().clone();
        let switched = messages.iter().any(|m| m.contains("switching to pvs"));
        (switched, r.best.unwrap())
    };
    let (switched, best) = run("0.01");
    assert!(switched);
    let mut after = game.clone();
    after.push(best);
    let mut pvs = engine::Engine::with_options(&[("Search", "pvs")]).unwrap();
    let defence = pvs.search(&after, &Limits::depth(6), &Silent);
    assert_eq!(
        UciScore::from_value(defence.value),
        UciScore::Mate(-1),
        "{} does not mate next move",
        game.position().to_uci(best)
    );
    // A threshold no ratio reaches: it never switches.
    assert!(!run("1000").0);
}

#[test]
fn go_depth_bounds_the_iterations_of_every_uct_backend() {
    // WAC.001: random playouts rarely reach depth 12 of this tree, so without the
    // iteration budget `go depth 12` would run for minutes.
    let fen = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1";
    let game = Game::new(Position::from_fen(fen, CastlingMode::Standard).unwrap());
    let depth = 6;
    let budget = searchlight::search::uct::backend::depth_iterations(depth as usize);
    for name in ["uct", "ucth", "uctmaxh"] {
        let mut e = engine::Engine::with_options(&[("Search", name)]).unwrap();
        let r = e.search(&game, &Limits::depth(depth), &Silent);
        assert!(r.best.is_some(), "{name}");
        assert!(
            r.nodes <= budget + 64,
            "{name}: {} iterations, budget {budget}",
            r.nodes
        );
    }
}
