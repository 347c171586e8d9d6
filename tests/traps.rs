//! Trap detection checked against a brute-force mate search (no pruning, no table, no
//! move ordering: every move on every ply, short-circuit only), and on hand-made positions
//! with traps at known levels.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use searchlight::board::Position;
use searchlight::traps::analyse;
use searchlight::tree::rng::hash as splitmix;
use shakmaty::CastlingMode;

/// True if the side to move can force mate within `plies` (odd) — the definition, directly.
fn mates_within(pos: &Position, plies: u8) -> bool {
    pos.legal_moves().iter().any(|&m| {
        let after = pos.play(m);
        let replies = after.legal_moves();
        if replies.is_empty() {
            return after.is_check();
        }
        if plies < 3 || after.halfmoves() >= 100 {
            return false;
        }
        replies
            .iter()
            .all(|&r| mates_within(&after.play(r), plies - 2))
    })
}

/// The trap moves (UCI) and their levels by brute force.
fn brute_traps(pos: &Position, max_level: u8) -> Vec<(String, u8)> {
    let mut out = Vec::new();
    for &m in &pos.legal_moves() {
        let after = pos.play(m);
        if after.legal_moves().is_empty() {
            continue;
        }
        if let Some(k) = (1..=max_level)
            .step_by(2)
            .find(|&k| mates_within(&after, k))
        {
            out.push((pos.to_uci(m).to_string(), k));
        }
    }
    out.sort();
    out
}

fn fast_traps(pos: &Position, max_level: u8) -> Vec<(String, u8)> {
    let mut v: Vec<_> = analyse(pos, max_level)
        .traps
        .into_iter()
        .map(|t| (t.uci, t.level))
        .collect();
    v.sort();
    v
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, CastlingMode::Standard).expect("valid FEN")
}

/// 300 positions: WAC positions and a few random plies from each (seeded), tactical enough
/// that many have traps. Identical trap sets at max level 3.
#[test]
fn trap_sets_match_brute_force_on_300_positions() {
    let wac = include_str!("data/wac.epd");
    let starts: Vec<Position> = wac
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().take(4).collect();
            pos(&format!("{} 0 1", f.join(" ")))
        })
        .collect();
    let mut rng = 7u64;
    let (mut checked, mut with_traps, mut level3) = (0, 0, 0);
    'outer: for round in 0.. {
        for start in &starts {
            if checked == 300 {
                break 'outer;
            }
            let mut p = start.clone();
            rng = splitmix(rng);
            for _ in 0..(rng % 5) + round {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                rng = splitmix(rng);
                p = p.play(moves[(rng % moves.len() as u64) as usize]);
            }
            if p.legal_moves().is_empty() {
                continue;
            }
            let fast = fast_traps(&p, 3);
            let brute = brute_traps(&p, 3);
            assert_eq!(fast, brute, "{}", p.fen());
            checked += 1;
            with_traps += usize::from(!fast.is_empty());
            level3 += usize::from(fast.iter().any(|(_, l)| *l == 3));
        }
    }
    eprintln!("{checked} positions, {with_traps} with traps, {level3} with a level-3 trap");
    assert!(with_traps >= 30 && level3 >= 5, "{with_traps} / {level3}");
}

#[test]
fn hand_made_positions_have_traps_at_known_levels() {
    // Level 1: the a1 rook leaving the back rank allows ...Re1#.
    let t = fast_traps(&pos("4r1k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), 7);
    assert!(t.contains(&("a1a2".into(), 1)), "{t:?}");
    // None: king and pawn endgame.
    assert!(fast_traps(&pos("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1"), 7).is_empty());
    assert!(
        fast_traps(
            &pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            5
        )
        .is_empty()
    );
}

/// Traps at levels 3 and 5 (from WAC.025 and WAC.027), each level confirmed by the
/// brute-force definition: a forced mate at that level after the move, none shallower.
#[test]
fn traps_at_levels_3_and_5_are_confirmed_by_brute_force() {
    for (fen, mv, level) in [
        (
            "3R1rk1/8/5Qpp/2p5/2P1p1q1/P3P3/1P2PK2/8 b - - 0 1",
            "g6g5",
            3,
        ),
        (
            "7k/pp4np/2p3p1/3pN1q1/3P4/Q7/1r3rPP/2R2RK1 w - - 0 1",
            "g2g3",
            5,
        ),
    ] {
        let p = pos(fen);
        let traps = fast_traps(&p, 7);
        assert!(traps.contains(&(mv.to_string(), level)), "{fen}: {traps:?}");
        let m = p.parse_uci(mv).expect("legal move");
        let after = p.play(m);
        assert!(mates_within(&after, level), "{fen} {mv}");
        assert!(!mates_within(&after, level - 2), "{fen} {mv}");
    }
}

/// Runs the binary, which must succeed: (stdout, stderr).
fn searchlight(args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn traps_in_the_games_of_a_pgn_file() {
    let base = [
        "traps",
        "--pgn",
        "tests/data/traps-games.pgn",
        "--max-level",
        "1",
    ];
    let run = |extra: &[&str]| searchlight(&[&base[..], extra].concat());
    let (table, stderr) = run(&["--threads", "2"]);
    // The illegal move stops game 3 where it stands, with a message; the game with a bad
    // FEN is skipped and counted.
    assert!(
        stderr.contains("game 3: move 2. Ke3: illegal san; analysed up to there"),
        "{stderr}"
    );
    assert!(
        stderr.contains("game 5: [FEN]") && stderr.contains("; skipped"),
        "{stderr}"
    );
    assert!(table.contains("unreadable games skipped: 1"), "{table}");
    assert!(
        table.contains("game 1 (a - b), ply 3: g4 walks into a level-1 trap (1 of 19 moves are traps); punished: Qh4#"),
        "{table}"
    );
    assert!(
        table.contains("game 2 (c - d), ply 3: g4 walks into a level-1 trap"),
        "{table}"
    );
    assert!(table.contains("not punished"), "{table}");
    // Game 4's Kb8 is forced (the position is lost), so it is no fall.
    assert!(!table.contains("game 4"), "{table}");
    assert!(
        table.contains("4 games, 12 positions; a player walked into a trap in 2 games (50.0%): 2 trap moves played, 1 punished"),
        "{table}"
    );
    let (csv, _) = run(&[
        "--format", "csv", "--skip", "1", "--take", "1", "--plies", "3,4",
    ]);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert!(rows[0].starts_with("game,ply,fen,"));
    assert!(
        rows[1].starts_with("2,3,") && rows[1].contains(",g4,1,false,"),
        "{csv}"
    );
    // An unwritable report stops the run before any analysis.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args([
            "traps",
            "--pgn",
            "tests/data/traps-games.pgn",
            "--html",
            "/nonexistent/dir/r.html",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write /nonexistent/dir/r.html"));
    let (json, _) = run(&["--format", "json", "--take", "1"]);
    let game: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(game["plies"].as_array().unwrap().len(), 4);
    assert_eq!(game["plies"][2]["played_level"], 1);
}

#[test]
fn shards_of_a_pgn_file_merge_into_the_whole_files_summary() {
    let dir = common::Scratch::new("shards");
    let file = |name: &str| dir.file(name).to_string_lossy().into_owned();
    let pgn = "tests/data/traps-games.pgn";
    let base = ["traps", "--pgn", pgn, "--max-level", "3", "--summary"];
    let whole = searchlight(&[&base[..], &[&file("whole.json")]].concat()).0;
    let shards = [
        ("a.json", "0", "2"),
        ("b.json", "2", "2"),
        ("c.json", "4", "9"),
    ];
    for (name, skip, take) in shards {
        searchlight(&[&base[..], &[&file(name), "--skip", skip, "--take", take]].concat());
    }
    let (merged, _) = searchlight(&[
        "traps",
        "merge",
        &file("a.json"),
        &file("b.json"),
        &file("c.json"),
        "--out",
        &file("merged.json"),
    ]);
    // The whole run's table ends with the summary; the merge prints the summary alone.
    let summary = &whole[whole.find("| plies |").unwrap()..];
    assert_eq!(merged, summary);
    assert!(merged.contains("unreadable games skipped: 1"), "{merged}");
    let json = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.file(name)).unwrap()).unwrap()
    };
    assert_eq!(json("merged.json"), json("whole.json"));
}
