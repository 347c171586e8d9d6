//! `searchlight match` end to end: in-process backends at a node budget write a readable
//! PGN; a player that cannot start at all refuses the match; a misbehaving external engine
//! forfeits each game with the right reason, is restarted, the match finishes, and none of
//! its processes is left behind. Played out from set endings, games also show what the
//! engine knows: tablebases adjudicate, and a bishop and a knight mate a bare king.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Output};

use common::temp;

fn searchlight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .arg("match")
        .args(args)
        .output()
        .expect("searchlight runs")
}

fn has_python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Per game in file order: the PGN `Termination` tag and the detail, the comment just
/// before the result.
fn terminations(pgn: &str) -> Vec<(String, String)> {
    pgn.split("[Event ")
        .skip(1)
        .map(|game| {
            let tag = game
                .lines()
                .find_map(|l| l.strip_prefix("[Termination \""))
                .unwrap()
                .trim_end_matches("\"]")
                .to_string();
            let end = game.rfind('}').unwrap();
            let start = game[..end].rfind('{').unwrap();
            (tag, game[start + 1..end].to_string())
        })
        .collect()
}

#[test]
fn in_process_match_writes_a_pgn_python_chess_reads() {
    let pgn = temp("local.pgn");
    let out = searchlight(&[
        "--engine",
        "pvs nodes=2000",
        "--engine",
        "alphabeta nodes=2000",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--openings",
        "openings/balanced_8ply.epd",
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("| pvs vs alphabeta | 4 |"), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
    assert_eq!(terminations(&text).len(), 4);
    if let Some(games) = python_read_back(&pgn, false) {
        assert_eq!(games, 4);
    }
    let _ = std::fs::remove_file(&pgn);
}

/// Reads a PGN back with python-chess, replaying every game and checking `PlyCount` (and,
/// with `chess960`, that python-chess sees a Chess960 game); the number of games, or None
/// where python-chess is not installed.
fn python_read_back(pgn: &std::path::Path, chess960: bool) -> Option<usize> {
    let script = format!(
        "import chess.pgn\nf = open({:?})\nn = 0\nwhile True:\n    g = chess.pgn.read_game(f)\n    if g is None: break\n    assert not g.errors, g.errors\n    b = g.board()\n    assert b.chess960 == {}, g.headers\n    for m in g.mainline_moves(): b.push(m)\n    assert int(g.headers['PlyCount']) == b.ply() - g.board().ply()\n    n += 1\nprint(n)\n",
        pgn.to_str().unwrap(),
        if chess960 { "True" } else { "False" }
    );
    match Command::new("python3").args(["-c", &script]).output() {
        Ok(o) if o.status.success() => {
            Some(String::from_utf8_lossy(&o.stdout).trim().parse().unwrap())
        }
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named") => {
            println!("python-chess not installed: PGN read-back skipped");
            None
        }
        Ok(o) => panic!(
            "python-chess rejected the PGN: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => {
            println!("python3 not found: PGN read-back skipped");
            None
        }
    }
}

#[test]
fn a_pgn_with_zeros_comments_a_bom_and_a_chess960_game_opens_a_match() {
    let pgn = temp("mixed.pgn");
    let out = searchlight(&[
        "--engine",
        "pvs nodes=500",
        "--engine",
        "alphabeta nodes=500",
        "--games",
        "6",
        "--openings",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-mixed.pgn"),
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("3 positions"), "{stderr}");
    assert!(
        stderr.contains("the match is played as Chess960"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Variant \"fischerandom\"]").count(), 6);
    // Each end position of the file opens two games (FEN tags as shakmaty writes them).
    for fen in [
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 6 5",
        "1b1nrkbr/p1pppppp/1n6/1p6/8/2N2q2/PPPPPBPP/QBN1RRK1 b kq - 3 4",
        "qbnnrkbr/pppppp1p/6p1/8/8/6P1/PPPPPP1P/QBNNRKBR w KQkq - 0 2",
    ] {
        assert_eq!(
            text.matches(&format!("[FEN \"{fen}\"]")).count(),
            2,
            "{fen}"
        );
    }
    if let Some(games) = python_read_back(&pgn, true) {
        assert_eq!(games, 6);
    }
    let _ = std::fs::remove_file(&pgn);
}

#[test]
fn a_chess960_match_is_read_back_by_python_chess_as_chess960() {
    let pgn = temp("960.pgn");
    let out = searchlight(&[
        "--variant",
        "fischerandom",
        "--engine",
        "pvs nodes=1000",
        "--engine",
        "alphabeta depth=2",
        "--games",
        "10",
        "--openings-order",
        "random",
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("10 Chess960 games"), "{stderr}");
    assert!(
        stderr.contains("the 960 Chess960 start positions"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Variant \"fischerandom\"]").count(), 10);
    if let Some(games) = python_read_back(&pgn, true) {
        assert_eq!(games, 10);
    }
    let _ = std::fs::remove_file(&pgn);
}

/// Plays `games` games of the fake engine in `mode` against pvs and checks every game
/// ends with `reason`.
fn fake_forfeits(mode: &str, reason: (&str, &str), games: &str, fake_limit: &str) {
    if !has_python() {
        println!("python3 not found: fake engine test skipped");
        return;
    }
    let tag = format!("tag{}{mode}", std::process::id());
    let pgn = temp(&format!("{mode}.pgn"));
    let fake = format!("cmd=python3 tests/data/fake_uci.py {mode} {tag} name=fake {fake_limit}");
    let out = searchlight(&[
        "--engine",
        &fake,
        "--engine",
        "pvs nodes=500",
        "--games",
        games,
        "--concurrency",
        "2",
        "--openings",
        "tests/data/startpos.epd",
        "--timemargin",
        "100",
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let reasons = terminations(&text);
    assert_eq!(reasons.len(), games.parse::<usize>().unwrap(), "{text}");
    for (tag, detail) in &reasons {
        assert_eq!((tag.as_str(), detail.as_str()), reason, "{text}");
    }
    // The fake lost every game.
    assert!(stdout.contains(&format!("0-0-{games}")), "{stdout}");
    // No process of this test's fake engine is left (running or zombie).
    let ps = Command::new("ps").args(["-eo", "pid,stat,args"]).output();
    if let Ok(ps) = ps {
        let list = String::from_utf8_lossy(&ps.stdout);
        let left: Vec<&str> = list.lines().filter(|l| l.contains(&tag)).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
    let _ = std::fs::remove_file(&pgn);
}

#[test]
fn a_player_that_cannot_start_at_all_refuses_the_match() {
    for (spec, reason) in [
        ("pvs Hashh=64 nodes=500", "pvs: unknown option 'Hashh'"),
        (
            "pvs Threads=two nodes=500",
            "pvs: invalid value 'two' for option 'Threads'",
        ),
        (
            "cmd=/nonexistent/engine name=ghost nodes=500",
            "ghost: cannot start '/nonexistent/engine'",
        ),
    ] {
        let pgn = temp("refused.pgn");
        let out = searchlight(&[
            "--engine",
            spec,
            "--engine",
            "alphabeta nodes=500",
            "--games",
            "2",
            "--pgnout",
            pgn.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {stderr}");
        assert!(stderr.contains(reason), "{spec}: {stderr}");
        // Not a game was played, so not a forfeit was recorded.
        assert!(out.stdout.is_empty(), "{spec}");
        assert!(!pgn.exists(), "{spec}");
    }
}

#[test]
fn a_crashing_engine_forfeits_every_game() {
    fake_forfeits("crash", ("abandoned", "engine crashed"), "4", "nodes=100");
}

#[test]
fn a_hanging_engine_loses_on_time() {
    fake_forfeits(
        "hang",
        ("time forfeit", "time forfeit (no answer)"),
        "2",
        "tc=0.5+0",
    );
}

#[test]
fn an_illegal_move_forfeits() {
    fake_forfeits(
        "illegal",
        ("rules infraction", "illegal move e2e5"),
        "4",
        "nodes=100",
    );
}

#[test]
fn garbage_forfeits() {
    fake_forfeits(
        "garbage",
        ("rules infraction", "illegal move xyzzy"),
        "2",
        "nodes=100",
    );
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let out = searchlight(&[
        "--engine",
        "pvs nodes=1000",
        "--engine",
        "alphabeta nodes=1000",
        "--games",
        "400",
        "--concurrency",
        "2",
        "--openings",
        "openings/balanced_8ply.epd",
        "--sprt",
        "elo0=0",
        "elo1=5",
        "alpha=0.05",
        "beta=0.05",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert!(stdout.contains("bounds -2.944, 2.944"), "{stdout}");
    let games: usize = stdout
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .expect("games count first");
    assert!(games < 400, "{stdout}");
}

#[test]
fn gauntlet_plays_the_first_against_each_other_with_an_elo_table() {
    let out = searchlight(&[
        "--engine",
        "pvs nodes=300",
        "--engine",
        "alphabeta nodes=300",
        "--engine",
        "mtdf nodes=300",
        "--gauntlet",
        "--games",
        "2",
        "--openings",
        "openings/balanced_8ply.epd",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("| pvs vs alphabeta | 2 |"), "{stdout}");
    assert!(stdout.contains("| pvs vs mtdf | 2 |"), "{stdout}");
    assert!(!stdout.contains("alphabeta vs mtdf"), "{stdout}");
    assert!(stdout.contains("| rank | player |"), "{stdout}");
}

#[test]
fn repeated_games_are_reported_and_a_deterministic_sprt_on_one_opening_is_refused() {
    let out = searchlight(&[
        "--engine",
        "pvs nodes=300",
        "--engine",
        "alphabeta nodes=300",
        "--games",
        "4",
        "--openings",
        "startpos",
        "--concurrency",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("repeated games: 2 of 4"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: 2 of 4 games repeated"));
    let out = searchlight(&[
        "--engine",
        "pvs nodes=300",
        "--engine",
        "alphabeta nodes=300",
        "--openings",
        "startpos",
        "--sprt",
        "elo0=0",
        "elo1=5",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--sprt with one opening"));
}

#[test]
fn the_json_report_holds_what_the_table_prints() {
    let path = temp("match.json");
    let out = searchlight(&[
        "--engine",
        "pvs nodes=400",
        "--engine",
        "alphabeta nodes=400",
        "--games",
        "8",
        "--sprt",
        "elo0=0",
        "elo1=20",
        "model=normalized",
        "--json",
        path.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for key in [
        "event",
        "variant",
        "openings",
        "players",
        "scheduled",
        "finished",
        "interrupted",
        "seconds",
        "pairings",
        "terminations",
        "repeated_games",
        "sprt",
        "ratings",
        "games",
    ] {
        assert!(v.get(key).is_some(), "no {key} in {v}");
    }
    assert_eq!(v["variant"], "standard");
    assert_eq!(v["players"][0]["name"], "pvs");
    assert_eq!(v["players"][1]["limits"], "nodes=400");
    let finished = v["finished"].as_u64().unwrap();
    assert_eq!(v["games"].as_array().unwrap().len() as u64, finished);
    let terminations: u64 = v["terminations"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(terminations, finished);
    // The pairing row of the table, number for number.
    let p = &v["pairings"][0];
    let row = format!(
        "| pvs vs alphabeta | {} | {}-{}-{} | {:.1}% |",
        p["games"],
        p["wins"],
        p["draws"],
        p["losses"],
        100.0 * p["score"].as_f64().unwrap()
    );
    assert!(stdout.contains(&row), "{row} not in\n{stdout}");
    let penta: Vec<String> = p["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert!(
        stdout.contains(&format!("| {} |", penta.join("-"))),
        "{stdout}"
    );
    let sprt = &v["sprt"];
    assert_eq!(sprt["model"], "normalized");
    let llr = format!("LLR {:.3} (bounds", sprt["llr"].as_f64().unwrap());
    assert!(stdout.contains(&llr), "{llr} not in\n{stdout}");
    for g in v["games"].as_array().unwrap() {
        assert!(["1-0", "0-1", "1/2-1/2"].contains(&g["result"].as_str().unwrap()));
        assert!(g["plies"].as_u64().unwrap() > 0);
    }
    let _ = std::fs::remove_file(&path);
}

/// The games of a PGN by round, comments (which hold thinking times) removed.
fn games_by_round(pgn: &str) -> std::collections::BTreeMap<u32, String> {
    pgn.split("[Event ")
        .skip(1)
        .map(|game| {
            let round = game
                .lines()
                .find_map(|l| l.strip_prefix("[Round \""))
                .unwrap()
                .trim_end_matches("\"]")
                .parse()
                .unwrap();
            let mut text = String::new();
            let mut depth = 0;
            for c in game.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ if depth == 0 => text.push(c),
                    _ => {}
                }
            }
            (round, text)
        })
        .collect()
}

#[test]
fn cutechess_adjudication_flags_and_the_short_forms_play_the_same_match() {
    let run = |flags: &[&str], name: &str| {
        let (pgn, json) = (temp(&format!("{name}.pgn")), temp(&format!("{name}.json")));
        let mut args = vec![
            "--engine",
            "pvs nodes=1000",
            "--engine",
            "mtdf nodes=1000",
            "--games",
            "20",
            "--concurrency",
            "2",
            "--pgnout",
            pgn.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        let out = searchlight(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        report.as_object_mut().unwrap().remove("seconds");
        let games = report["games"].as_array_mut().unwrap();
        games.sort_by_key(|g| g["round"].as_str().unwrap().parse::<u32>().unwrap());
        let pgn_text = std::fs::read_to_string(&pgn).unwrap();
        let _ = std::fs::remove_file(&pgn);
        let _ = std::fs::remove_file(&json);
        (games_by_round(&pgn_text), report)
    };
    let cutechess = run(
        &[
            "--resign",
            "movecount=3",
            "score=400",
            "twosided=true",
            "--draw",
            "movenumber=0",
            "movecount=6",
            "score=10",
        ],
        "cute",
    );
    let short = run(&["--resign", "3", "400", "--draw", "6", "10"], "short");
    assert_eq!(cutechess.0.len(), 20);
    assert!(
        cutechess.1["terminations"]
            .as_object()
            .unwrap()
            .contains_key("adjudication: resign"),
        "{}",
        cutechess.1
    );
    assert_eq!(cutechess, short);
}

/// `--tb` (cutechess-cli's `-tb`): a game in a position the endgame tables hold ends with
/// their result. One opening is in the tables from the start (king and pawn against king,
/// won for White); the other has five pieces and reaches them when the rook skewer wins
/// the rook.
#[test]
fn tablebase_adjudication_ends_games_the_tables_know() {
    let dir = common::Scratch::new("tb-openings");
    let openings = dir.file("endings.epd");
    std::fs::write(
        &openings,
        "8/8/5K2/7k/8/8/6P1/8 w - -\n8/6r1/K7/8/6k1/8/PR6/8 w - -\n",
    )
    .unwrap();
    let pgn = dir.file("tb.pgn");
    let out = searchlight(&[
        "--engine",
        "pvs nodes=3000",
        "--engine",
        "pvs nodes=3000 name=other",
        "--games",
        "4",
        "--openings",
        openings.to_str().unwrap(),
        "--tb",
        "tests/data/syzygy",
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("terminations: adjudication: tablebase 4"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Result \"1-0\"]").count(), 4, "{text}");
    let plies: Vec<u32> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[PlyCount \""))
        .map(|n| n.trim_end_matches("\"]").parse().unwrap())
        .collect();
    assert_eq!(plies.iter().filter(|&&n| n == 0).count(), 2, "{plies:?}");
    assert_eq!(plies.iter().filter(|&&n| n >= 3).count(), 2, "{plies:?}");

    let missing = searchlight(&[
        "--engine",
        "pvs",
        "--engine",
        "alphabeta",
        "--tb",
        "/no/such/dir",
    ]);
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("--tb: cannot read the directory /no/such/dir"),
        "{stderr}"
    );
}

/// A bishop and a knight mate a bare king only in a corner the bishop covers, up to 33
/// moves away: past any horizon, so the evaluation has to show the way
/// (`src/board/eval/mates.rs`). Without it `pvs` shuffled its pieces until the fifty-move
/// rule drew. One opening has the lone king in the centre, the other in the wrong corner;
/// each is played with both engines on the strong side, and every game must end in mate.
#[test]
fn a_bishop_and_a_knight_mate_a_bare_king_before_the_fifty_move_rule() {
    let dir = common::Scratch::new("kbnk-openings");
    let openings = dir.file("kbnk.epd");
    std::fs::write(
        &openings,
        "8/8/8/4k3/8/8/8/2BNK3 w - -\n7k/8/8/6KN/6B1/8/8/8 b - -\n",
    )
    .unwrap();
    let pgn = dir.file("kbnk.pgn");
    let out = searchlight(&[
        "--engine",
        "pvs nodes=10000",
        "--engine",
        "pvs nodes=10000 name=other",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--openings",
        openings.to_str().unwrap(),
        "--pgnout",
        pgn.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("terminations: checkmate 4"), "{stdout}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Result \"1-0\"]").count(), 4, "{text}");
}

#[test]
fn the_trace_log_shows_the_conversation_with_an_external_engine() {
    let engine = format!(
        "cmd={} name=outside nodes=200",
        env!("CARGO_BIN_EXE_searchlight")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args(["match", "--engine", &engine, "--engine", "pvs nodes=200"])
        .args(["--games", "2", "--maxmoves", "5"])
        .env("RUST_LOG", "uci=trace")
        .output()
        .expect("searchlight runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let traffic: Vec<&str> = stderr.lines().filter(|l| l.contains(" uci] ")).collect();
    let says = |dir: char, text: &str| {
        traffic.iter().any(|l| {
            l.split("] ")
                .nth(1)
                .is_some_and(|m| m.starts_with(dir) && m.ends_with(text))
        })
    };
    assert!(says('>', ": uci") && says('<', ": uciok"), "{traffic:?}");
    assert!(says('>', ": go nodes 200"), "{traffic:?}");
    assert!(
        traffic.iter().any(|l| l.contains(": bestmove ")),
        "{traffic:?}"
    );
    // Both games were drawn at the length limit, five moves a side from the opening.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("adjudication: maximal game length 2"),
        "{stdout}"
    );
}
