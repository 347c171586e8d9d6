//! Bad input gets a clear error and loses nothing: each case from the issue, against the
//! built binary. After every bad line the engine must still answer, and the last good
//! position and options must still be in force.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{Engine, chess};

/// A position with exactly one legal move (Kh1-g1... only Kxg2 escapes): lets a test see
/// which position the engine holds by asking it to move.
const ONE_MOVE: &str = "7k/8/8/8/8/8/6q1/7K w - - 0 1";
const ONE_MOVE_BEST: &str = "h1g2";

fn errors(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error: "))
        .collect()
}

/// Sends a bad line; expects exactly one `info string error` naming `needle`, then checks
/// that the engine still holds the one-move position.
fn rejected(e: &mut Engine, line: &str, needle: &str) {
    e.send(line);
    let lines = e.sync();
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{line}: {lines:?}");
    assert!(
        errs[0].contains(needle),
        "{line}: {errs:?} should mention {needle}"
    );
    still_holds_one_move_position(e);
}

fn still_holds_one_move_position(e: &mut Engine) {
    let (_, best) = e.go("go depth 2", &chess(ONE_MOVE));
    assert_eq!(best, ONE_MOVE_BEST, "position was lost");
}

fn engine_with_one_move_position() -> Engine {
    let mut e = Engine::ready();
    e.send(&format!("position fen {ONE_MOVE}"));
    e
}

#[test]
fn invalid_fen_is_rejected_and_position_kept() {
    let mut e = engine_with_one_move_position();
    rejected(&mut e, "position fen not/a/fen w - - 0 1", "invalid fen");
    rejected(
        &mut e,
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "illegal position",
    );
    rejected(&mut e, "position fen", "missing FEN");
    rejected(&mut e, "position sideways", "expected 'startpos' or 'fen'");
}

#[test]
fn illegal_or_malformed_move_is_rejected_and_position_kept() {
    let mut e = engine_with_one_move_position();
    rejected(
        &mut e,
        "position startpos moves e2e4 e7e5 e1e3",
        "illegal move 'e1e3'",
    );
    rejected(
        &mut e,
        "position startpos moves e2e4 zz9",
        "malformed move 'zz9'",
    );
    rejected(
        &mut e,
        &format!("position fen {ONE_MOVE} moves h1h2"),
        "illegal move 'h1h2'",
    );
}

#[test]
fn unknown_option_and_bad_values_are_rejected() {
    let mut e = engine_with_one_move_position();
    rejected(
        &mut e,
        "setoption name Hashish value 3",
        "unknown option 'Hashish'",
    );
    rejected(&mut e, "setoption name Hash value 0", "out of range");
    rejected(&mut e, "setoption name Threads value many", "'many'");
    rejected(&mut e, "setoption name Search value nonsense", "'nonsense'");
    rejected(
        &mut e,
        "setoption name UCI_Chess960 value maybe",
        "true or false",
    );
    rejected(
        &mut e,
        "setoption name Hash value 99999999999",
        "out of range",
    );
}

/// The GUI waits for a `bestmove` after every `go`: a malformed one is answered with the
/// error and then searched with what could be read (a short default if nothing could).
#[test]
fn malformed_go_reports_the_error_and_still_answers_bestmove() {
    let mut e = engine_with_one_move_position();
    for (line, needle) in [
        ("go depth abc", "invalid value 'abc' for 'depth'"),
        ("go movetime", "missing value for 'movetime'"),
        ("go wtime 1000 sideways", "unknown token 'sideways'"),
        ("go searchmoves e2e4", "illegal move 'e2e4'"),
        ("go depth 2 nodes -3", "invalid value '-3' for 'nodes'"),
    ] {
        e.send(line);
        let lines = e.expect_within("bestmove", Duration::from_secs(5));
        let errs = errors(&lines);
        assert_eq!(errs.len(), 1, "{line}: {lines:?}");
        assert!(errs[0].contains(needle), "{line}: {errs:?}");
        let best = lines.last().unwrap();
        assert!(
            best.starts_with(&format!("bestmove {ONE_MOVE_BEST}")),
            "{line}: {lines:?}"
        );
    }
    still_holds_one_move_position(&mut e);
}

#[test]
fn empty_lines_and_register_are_ignored_silently() {
    let mut e = engine_with_one_move_position();
    for line in ["", "   ", "\t", "register later", "register name x code y"] {
        e.send(line);
        let lines = e.sync();
        assert_eq!(lines, vec!["readyok".to_string()], "{line:?}");
    }
    still_holds_one_move_position(&mut e);
}

/// A line with no command in it does nothing, as UCI asks, but says so: a person at a
/// terminal who typed `gp depth 5` learns why nothing happened.
#[test]
fn an_unknown_command_is_ignored_with_an_error() {
    let mut e = engine_with_one_move_position();
    rejected(&mut e, "gp depth 5", "unknown command 'gp depth 5'");
    rejected(&mut e, "hello engine", "known: uci, debug, isready");
}

#[test]
fn megabyte_line_is_survived() {
    let mut e = engine_with_one_move_position();
    let huge = "x".repeat(1 << 20);
    rejected(
        &mut e,
        &huge,
        &format!("unknown command '{}'", "x".repeat(40)),
    );
    let huge_fen = format!("position fen {}", "p".repeat(1 << 20));
    rejected(&mut e, &huge_fen, "invalid fen");
    let long_game = format!(
        "position startpos moves {}",
        "g1f3 g8f6 f3g1 f6g8 ".repeat(50_000)
    );
    e.send(&long_game);
    let lines = e.sync();
    assert!(
        errors(&lines).is_empty(),
        "a legal 200k-ply game is accepted: {lines:?}"
    );
}

#[test]
fn binary_garbage_is_survived() {
    let mut e = engine_with_one_move_position();
    // Bytes that are not UTF-8, control characters, NULs.
    let garbage: String = (0u8..=255)
        .filter(|&b| b != b'\n')
        .map(char::from)
        .collect();
    e.send(&garbage);
    e.send("\u{0}\u{1}\u{7f}go\u{0}");
    e.sync();
    still_holds_one_move_position(&mut e);
}

#[test]
fn raw_invalid_utf8_bytes_are_survived() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"\xff\xfe\xfd\x80garbage\n\xc3\x28\nisready\nquit\n")
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    // Each garbage line is refused in an error line that is itself valid UTF-8.
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[..2]
            .iter()
            .all(|l| l.starts_with("info string error: unknown command")),
        "{lines:?}"
    );
    assert_eq!(lines[2], "readyok");
}

#[test]
fn go_while_searching_is_rejected_and_search_continues() {
    let mut e = engine_with_one_move_position();
    e.send("position startpos");
    e.send("go infinite");
    e.send("go depth 1");
    let lines = e.sync();
    assert_eq!(errors(&lines).len(), 1, "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    e.send("stop");
    let lines = e.expect("bestmove");
    common::check_search_output(
        &lines
            .into_iter()
            .filter(|l| !l.starts_with("info string"))
            .collect::<Vec<_>>(),
        &shakmaty::Chess::default(),
    );
}

/// The UCT family refuses a `TreeMemory` too small for its threads, whichever of the two
/// is set last, and names the minimum; the options in force stay as they were.
#[test]
fn a_tree_memory_too_small_for_the_threads_is_refused_with_the_minimum() {
    let mut e = engine_with_one_move_position();
    for line in [
        "setoption name Search value ucth",
        "setoption name UCT_Parallel value root",
        "setoption name Threads value 200",
    ] {
        e.send(line);
    }
    assert!(errors(&e.sync()).is_empty());
    // 200 threads of 474 slots of 32 bytes: 2.9 MB.
    let needle =
        "TreeMemory 1 MB is too small for 200 threads with UCT_Parallel root: the minimum is 3 MB";
    e.send("setoption name TreeMemory value 1");
    let errs = e.sync();
    assert_eq!(errors(&errs).len(), 1, "{errs:?}");
    assert!(errs[0].contains(needle), "{errs:?}");
    // The other order: Threads is refused, with the same reason.
    e.send("setoption name Threads value 1");
    e.send("setoption name TreeMemory value 1");
    e.send("setoption name Threads value 200");
    let errs = e.sync();
    assert_eq!(errors(&errs).len(), 1, "{errs:?}");
    assert!(errs[0].contains(needle), "{errs:?}");
    // One shared tree needs far less: 200 threads fit in 1 MB.
    e.send("setoption name UCT_Parallel value tree");
    e.send("setoption name Threads value 200");
    assert!(errors(&e.sync()).is_empty());
    e.send("setoption name Threads value 1");
    e.send("setoption name Search value pvs");
    still_holds_one_move_position(&mut e);
}

/// An option the backend refuses is reported where the GUI sees it, whether it comes right
/// after a `bestmove` (the search thread may still be ending) or during a search, where it
/// waits for the search to end and is then put back.
#[test]
fn an_option_refused_around_a_search_is_reported_and_undone() {
    let mut e = engine_with_one_move_position();
    for line in [
        "setoption name Search value ucth",
        "setoption name UCT_Parallel value root",
        "setoption name TreeMemory value 1",
    ] {
        e.send(line);
    }
    assert!(errors(&e.sync()).is_empty());
    let needle = "TreeMemory 1 MB is too small for 200 threads";
    for _ in 0..5 {
        e.go("go nodes 300", &chess(ONE_MOVE));
        e.send("setoption name Threads value 200");
        let errs = e.sync();
        assert_eq!(errors(&errs).len(), 1, "{errs:?}");
        assert!(errs[0].contains(needle), "{errs:?}");
    }
    e.send("go infinite");
    e.send("setoption name Threads value 200");
    e.send("stop");
    let lines = e.sync();
    let errs = errors(&lines);
    assert_eq!(errs.len(), 1, "{lines:?}");
    assert!(
        errs[0].contains(needle) && errs[0].contains("keep their values from before it"),
        "{errs:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("bestmove")), "{lines:?}");
    // One thread again: the next search runs, with no error.
    let (lines, _) = e.go("go nodes 300", &chess(ONE_MOVE));
    assert!(errors(&lines).is_empty(), "{lines:?}");
    e.send("setoption name Search value pvs");
    still_holds_one_move_position(&mut e);
}

/// More threads than cores is allowed, and said once per change of the setting.
#[test]
fn threads_beyond_the_cores_are_allowed_and_noted_once() {
    let mut e = engine_with_one_move_position();
    let notes = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| l.starts_with("info string Threads 256 is more than the"))
            .count()
    };
    e.send("setoption name Threads value 256");
    let lines = e.sync();
    assert_eq!(notes(&lines), 1, "{lines:?}");
    assert!(errors(&lines).is_empty(), "{lines:?}");
    e.send("setoption name Threads value 256");
    assert_eq!(notes(&e.sync()), 0, "no change, no note");
    e.send("setoption name Threads value 1");
    let lines = e.sync();
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "{lines:?}"
    );
    e.send("setoption name Threads value 256");
    assert_eq!(notes(&e.sync()), 1, "a new change, a new note");
    e.send("setoption name Threads value 1");
    still_holds_one_move_position(&mut e);
}

#[test]
fn option_values_are_kept_after_a_rejected_setoption() {
    let mut engine = searchlight::engine::Engine::new();
    engine.set_option("Hash", Some("32")).unwrap();
    engine.set_option("Search", Some("alphabeta")).unwrap();
    assert!(engine.set_option("Hash", Some("0")).is_err());
    assert!(engine.set_option("Search", Some("bogus")).is_err());
    assert!(engine.set_option("Hash", None).is_err());
    assert_eq!(engine.options().get(&searchlight::search::HASH), 32);
    assert_eq!(
        engine.options().get(&searchlight::engine::SEARCH),
        "alphabeta"
    );
}

#[test]
fn a_reader_that_goes_away_ends_a_tool_quietly() {
    use std::process::{Command, Stdio};
    // Enough games that the CSV outgrows a pipe's buffer, so the writer must meet the
    // closed pipe (as `searchlight traps ... | head` does).
    let path = common::temp("pipe.pgn");
    std::fs::write(&path, "1. f3 e5 2. g4 Qh4# 0-1\n\n".repeat(600)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args([
            "traps",
            "--pgn",
            path.to_str().unwrap(),
            "--max-level",
            "1",
            "--format",
            "csv",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    let _ = std::fs::remove_file(&path);
}

/// `EvalFile`: a missing or damaged file is refused and the net in use kept; a good one
/// is what `Eval=nnue` then evaluates with.
#[test]
fn an_eval_file_that_is_not_a_net_is_refused_and_a_good_one_is_used() {
    use searchlight::board::eval::nnue::{Base, Network};
    use searchlight::engine::EVAL_FILE;
    let dir = common::Scratch::new("evalfile");
    let garbage = dir.file("garbage.nnue");
    std::fs::write(&garbage, b"not a net").unwrap();
    let zero = dir.file("zero.nnue");
    std::fs::write(&zero, Network::zeroed(Base::Material).to_bytes()).unwrap();

    let mut e = engine_with_one_move_position();
    rejected(
        &mut e,
        "setoption name EvalFile value /no/such/file.nnue",
        "cannot read",
    );
    rejected(
        &mut e,
        &format!("setoption name EvalFile value {}", garbage.display()),
        "not a Searchlight net",
    );

    let mut engine = searchlight::engine::Engine::new();
    engine.set_option("Eval", Some("nnue")).unwrap();
    let pos =
        searchlight::board::Position::from_fen_auto("4k3/8/8/8/8/8/8/R3K3 b - - 0 1").unwrap();
    let built_in = engine.evaluator().1.evaluate(pos.chess());
    assert!(
        engine
            .set_option("EvalFile", Some("/no/such/file.nnue"))
            .is_err()
    );
    assert_eq!(engine.options().get(&EVAL_FILE), "<built-in>");
    assert_eq!(engine.evaluator().1.evaluate(pos.chess()), built_in);
    // A net of zeros on `material` evaluates as `material` does: Black is a rook down.
    engine.set_option("EvalFile", zero.to_str()).unwrap();
    assert_eq!(engine.evaluator().1.evaluate(pos.chess()), -500);
    engine.set_option("EvalFile", Some("<built-in>")).unwrap();
    assert_eq!(engine.evaluator().1.evaluate(pos.chess()), built_in);
}

/// Random sessions, as a confused GUI or a person at a terminal might send them: options
/// (good and bad values, every backend and evaluator), positions with random legal moves
/// or a broken one, every kind of `go`, `stop`, `ponderhit`, `ucinewgame`, and lines whose
/// tail is mangled. After each few lines `isready` must be answered; every line on stdout
/// must be protocol; every `go` the engine accepted must end in exactly one legal-looking
/// `bestmove`; and at the end the engine still plays. `SEARCHLIGHT_FUZZ_SESSIONS` sets how
/// many sessions (3 here; the ignored test below runs 100).
fn random_sessions(sessions: u64) {
    for seed in 1..=sessions {
        random_session(seed);
    }
}

#[test]
fn random_sessions_keep_the_engine_answering() {
    let n = std::env::var("SEARCHLIGHT_FUZZ_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    random_sessions(n);
}

/// A hundred sessions of 150 lines, some minutes: `cargo test --test bad_input -- --ignored`.
#[test]
#[ignore]
fn many_random_sessions_keep_the_engine_answering() {
    random_sessions(100);
}

const OPTION_VALUES: &[(&str, &[&str])] = &[
    ("Threads", &["1", "2", "3", "0", "999", "x"]),
    ("Hash", &["1", "4", "16", "0", "abc"]),
    ("Clear Hash", &[]),
    ("Ponder", &["true", "false", "maybe"]),
    ("Move Overhead", &["0", "10", "5000", "-5"]),
    ("UCI_Chess960", &["true", "false"]),
    ("UCI_ShowWDL", &["true", "false"]),
    ("Eval", &["nnue", "classical", "material", "bogus"]),
    ("EvalFile", &["<built-in>", "/no/such/file.nnue"]),
    ("SyzygyPath", &["<empty>", "/no/such/dir"]),
    ("MultiPV", &["1", "2", "4", "0", "300"]),
    ("UCI_LimitStrength", &["true", "false"]),
    ("UCI_Elo", &["1000", "1500", "2000", "999"]),
    ("MT_AlphaBeta", &["alphabeta2", "classic", "other"]),
    ("MtdStep", &["1", "20", "0"]),
    ("UCT_C", &["0.4", "0", "-1", "nan", "abc"]),
    ("PlayoutCap", &["1", "200", "0"]),
    ("TreeMemory", &["1", "2", "256", "0"]),
    ("UCT_Solver", &["true", "false"]),
    ("UCT_Parallel", &["tree", "root", "leaf"]),
    ("UCT_Quiescence", &["true", "false"]),
    ("HybridThreshold", &["0.003", "-1", "x"]),
    ("NoSuchOption", &["1"]),
];

const START_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1",
    "8/8/8/8/8/8/8/K6k w - - 0 1",
    "k7/8/1Q6/8/8/8/8/K7 b - - 0 1",
    "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
];

const GOS: &[&str] = &[
    "go depth 1",
    "go depth 3",
    "go depth 0",
    "go nodes 1",
    "go nodes 5000",
    "go movetime 0",
    "go movetime 20",
    "go wtime 100 btime 100 winc 10 binc 10",
    "go wtime 1 btime 1",
    "go wtime -50 btime -50",
    "go mate 1",
    "go mate 0",
    "go infinite",
    "go ponder movetime 20",
    "go depth 2 searchmoves e2e4 d2d4 a7a8q",
    "go",
];

const OTHERS: &[&str] = &[
    "stop",
    "ponderhit",
    "ucinewgame",
    "debug off",
    "uci",
    "",
    "position",
    "setoption",
    "setoption name",
    "xyzzy",
    "\u{0}\u{1}",
];

/// A random legal game of up to 12 plies from `fen`, as UCI moves; sometimes one broken.
fn random_moves(rng: &mut searchlight::tree::rng::Rng, fen: &str) -> Vec<String> {
    use shakmaty::Position as _;
    let mut pos = chess(fen);
    let mut moves = Vec::new();
    for _ in 0..rng.below(13) {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        moves.push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    }
    if !moves.is_empty() && rng.below(6) == 0 {
        let at = rng.below(moves.len());
        moves[at] = ["e2e5", "a1a1", "e7e8q", "zzzz", "0000"][rng.below(5)].to_string();
    }
    moves
}

/// The line's first word stays (so the test knows a `go` from the rest); its tail may be
/// cut, shuffled, doubled or given a stray token.
fn mangle_tail(rng: &mut searchlight::tree::rng::Rng, line: &str) -> String {
    let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if words.len() < 2 {
        return line.to_string();
    }
    let mut tail = words.split_off(1);
    match rng.below(4) {
        0 => tail.truncate(rng.below(tail.len())),
        1 => rng.shuffle(&mut tail),
        2 => tail.extend(tail.clone()),
        _ => tail.insert(
            rng.below(tail.len() + 1),
            ["extra", "-1", "9999999999999999999999", "depth", "ÿ"][rng.below(5)].to_string(),
        ),
    }
    words.extend(tail);
    words.join(" ")
}

fn random_line(rng: &mut searchlight::tree::rng::Rng) -> String {
    let line = match rng.below(10) {
        0 => {
            // Every backend the registry has, and one it has not.
            let names = searchlight::search::registry::names();
            let pick = rng.below(names.len() + 1);
            let name = names.get(pick).copied().unwrap_or("nosuch");
            format!("setoption name Search value {name}")
        }
        1 => {
            let (name, values) = OPTION_VALUES[rng.below(OPTION_VALUES.len())];
            if values.is_empty() {
                format!("setoption name {name}")
            } else {
                format!(
                    "setoption name {name} value {}",
                    values[rng.below(values.len())]
                )
            }
        }
        2 | 3 => {
            let fen = START_FENS[rng.below(START_FENS.len())];
            let moves = random_moves(rng, fen);
            let head = format!("position fen {fen}");
            if moves.is_empty() {
                head
            } else {
                format!("{head} moves {}", moves.join(" "))
            }
        }
        4..=7 => GOS[rng.below(GOS.len())].to_string(),
        _ => OTHERS[rng.below(OTHERS.len())].to_string(),
    };
    if rng.below(7) == 0 {
        mangle_tail(rng, &line)
    } else {
        line
    }
}

const PROTOCOL: &[&str] = &[
    "id ",
    "uciok",
    "readyok",
    "option ",
    "info ",
    "bestmove ",
    "copyprotection",
    "registration",
];

/// What the engine wrote, line by line: each checked to be protocol, the `bestmove`s and
/// the `go`s the engine refused counted.
#[derive(Default)]
struct Tally {
    bestmoves: usize,
    refused: usize,
}

impl Tally {
    /// The `go`s answered: by a `bestmove`, or refused.
    fn answered(&self) -> usize {
        self.bestmoves + self.refused
    }

    fn take(&mut self, lines: &[String], session: u64) {
        for l in lines {
            assert!(
                PROTOCOL.iter().any(|p| l.starts_with(p)),
                "session {session}: not a protocol line: {l:?}"
            );
            if let Some(m) = l.strip_prefix("bestmove ") {
                let mv = m.split_whitespace().next().unwrap_or("");
                assert!(
                    mv == "(none)" || mv.parse::<shakmaty::uci::UciMove>().is_ok(),
                    "session {session}: {l}"
                );
                self.bestmoves += 1;
            }
            // A `go` whose errors were only partial still searches ("searching with the
            // rest"); one the engine could not start at all is answered by this alone.
            if l.starts_with("info string error: go: ") && !l.ends_with("searching with the rest") {
                self.refused += 1;
            }
        }
    }
}

/// How long a search may run before `answered` stops it: long enough for most of the
/// finite ones to end by themselves.
const PATIENCE: Duration = Duration::from_millis(300);

/// Reads until every `go` so far is answered (a `bestmove`, or refused); a search still
/// running after a while is one without a limit, and is stopped.
fn answered(e: &mut Engine, tally: &mut Tally, gos: usize, seed: u64, sent: &[String]) {
    let start = std::time::Instant::now();
    let mut stopped = false;
    while tally.answered() < gos {
        let waited = start.elapsed();
        if !stopped && waited > PATIENCE {
            e.send("stop");
            stopped = true;
        }
        let limit = if stopped { common::WAIT } else { PATIENCE };
        match e.client.next_line(limit.saturating_sub(waited)) {
            Ok(l) => tally.take(&[l], seed),
            Err(_) if !stopped => {}
            Err(err) => panic!(
                "session {seed}: {gos} go, {} bestmove, {} refused: {err}; last lines sent {:?}",
                tally.bestmoves,
                tally.refused,
                &sent[sent.len().saturating_sub(20)..]
            ),
        }
    }
}

fn random_session(seed: u64) {
    let mut rng = searchlight::tree::rng::Rng::new(seed);
    let mut e = Engine::ready();
    let mut tally = Tally::default();
    let mut gos = 0;
    let mut sent = Vec::new();
    for _ in 0..150 {
        let line = random_line(&mut rng);
        let go = line.split_whitespace().next() == Some("go");
        gos += usize::from(go);
        e.send(&line);
        sent.push(line);
        if go && rng.below(2) == 0 {
            // Let this one run its course (or be stopped if it has none), so that the
            // next `go` starts a search instead of being refused.
            answered(&mut e, &mut tally, gos, seed, &sent);
        } else if rng.below(3) == 0 {
            // Infinite, ponder and `mate 0` searches end only on `stop`.
            e.send("stop");
            let lines = e.sync();
            tally.take(&lines, seed);
        }
    }
    // The last search of the session, after everything before it: once its `bestmove`
    // is in, every earlier one is too.
    e.send("stop");
    e.send("setoption name Search value pvs");
    e.send("setoption name MultiPV value 1");
    e.send("position startpos");
    e.send("go depth 1");
    gos += 1;
    answered(&mut e, &mut tally, gos, seed, &sent);
    let lines = e.sync();
    tally.take(&lines, seed);
    assert_eq!(
        tally.answered(),
        gos,
        "session {seed}: a bestmove too many; {lines:?}"
    );
    eprintln!(
        "session {seed}: {gos} go, {} bestmove, {} refused",
        tally.bestmoves, tally.refused
    );
}
