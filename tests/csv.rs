//! The `--csv` files of `searchlight epd` and `searchlight trees chess`, read back as a CSV
//! reader would: the header, one row per engine and position (per backend), and fields
//! with commas and spaces quoted.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Output};

use common::temp;

fn searchlight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args(args)
        .output()
        .expect("searchlight runs")
}

/// The records of a CSV text (RFC 4180: quoted fields may hold commas and doubled quotes).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut field) = (Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        !quoted && field.is_empty() && row.is_empty(),
        "unterminated CSV"
    );
    rows
}

#[test]
fn the_test_parser_reads_quoted_fields() {
    let rows = parse_csv("a,\"b, c\",\"say \"\"hi\"\"\",\n");
    assert_eq!(rows, [["a", "b, c", "say \"hi\"", ""]]);
}

const WAC_001: &str =
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";\n";

/// `searchlight epd` at 50 ms a position on a suite of the given text, one `--engine` per
/// spec: its stdout and the rows of its `--csv` file.
fn epd_csv(name: &str, suite_text: &str, engines: &[&str]) -> (String, Vec<Vec<String>>) {
    let suite = temp(&format!("{name}.epd"));
    std::fs::write(&suite, suite_text).unwrap();
    let csv = temp(&format!("{name}.csv"));
    let mut args = vec!["epd", "--file", suite.to_str().unwrap(), "--movetime", "50"];
    for e in engines {
        args.extend(["--engine", e]);
    }
    args.extend(["--csv", csv.to_str().unwrap()]);
    let out = searchlight(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}");
    let rows = parse_csv(&std::fs::read_to_string(&csv).unwrap());
    let _ = std::fs::remove_file(&suite);
    let _ = std::fs::remove_file(&csv);
    (stdout, rows)
}

#[test]
fn epd_csv_has_a_row_per_engine_and_position() {
    let suite = format!(
        "{WAC_001}rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - am f3 g4; id \"start, avoid\";\n"
    );
    let (stdout, rows) = epd_csv("suite", &suite, &["pvs", "alphabeta"]);
    // With two engines, every table line says whose it is.
    let table: Vec<&str> = stdout.lines().filter(|l| l.contains("WAC.001")).collect();
    assert_eq!(table.len(), 2, "{stdout}");
    assert!(table[0].starts_with("pvs ") && table[1].starts_with("alphabeta "));
    // Each player's summary says how long its solutions took.
    let summaries = stdout.lines().filter(|l| l.contains(": solved "));
    assert!(
        summaries
            .map(|l| l.contains("solution time median "))
            .eq([true, true]),
        "{stdout}"
    );

    assert_eq!(
        rows[0],
        [
            "engine",
            "id",
            "expected",
            "played",
            "solved",
            "depth",
            "time_ms",
            "found_ms",
            "found_depth"
        ]
    );
    let body = &rows[1..];
    assert_eq!(body.len(), 4, "{rows:?}");
    let engines: Vec<&str> = body.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(engines, ["pvs", "pvs", "alphabeta", "alphabeta"]);
    for r in body {
        assert_eq!(r.len(), 9, "{r:?}");
        assert!(r[4] == "true" || r[4] == "false", "{r:?}");
        assert!(r[5].is_empty() || r[5].parse::<u32>().is_ok(), "{r:?}");
        let time: u64 = r[6].parse().unwrap();
        // An in-process backend reports its lines, so a solved position says when its
        // solution was found, within the search; an unsolved one says nothing.
        if r[4] == "true" {
            let found: u64 = r[7].parse().unwrap_or_else(|_| panic!("{r:?}"));
            assert!(found <= time, "{r:?}");
            assert!(r[8].parse::<u32>().is_ok(), "{r:?}");
        } else {
            assert!(r[7].is_empty() && r[8].is_empty(), "{r:?}");
        }
    }
    assert_eq!(body[0][1..3], ["WAC.001", "Qg6"]);
    assert_eq!(body[1][1..3], ["start, avoid", "am f3 g4"]);
}

#[test]
fn epd_csv_says_when_an_external_engine_found_the_solution() {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("python3 not found: fake engine test skipped");
        return;
    }
    let engine = "cmd=python3 tests/data/fake_uci.py waver name=fake";
    let (stdout, rows) = epd_csv("waver", WAC_001, &[engine]);
    let row = &rows[1];
    assert_eq!(row[1..5], ["WAC.001", "Qg6", "Qg6", "true"], "{row:?}");
    // The key at depth 1, lost at depth 2 and 3 (the `multipv 2` line does not count),
    // back at depth 4 for good: the solution is the depth-4 line's.
    assert_eq!(row[8], "4", "{row:?}");
    assert!(row[7].parse::<u64>().is_ok(), "{row:?}");
    assert!(stdout.contains("depth 4"), "{stdout}");
}

#[test]
fn trees_chess_csv_has_a_row_per_backend() {
    let csv = temp("chess.csv");
    let out = searchlight(&[
        "trees",
        "chess",
        "--backends",
        "pvs,alphabeta",
        "--depth",
        "1",
        "--hash",
        "1",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = parse_csv(&std::fs::read_to_string(&csv).unwrap());
    assert_eq!(rows[0], ["backend", "depth", "nodes", "leaves", "time_ms"]);
    let backends: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(backends, ["pvs", "alphabeta"]);
    for r in &rows[1..] {
        assert_eq!(r[1], "1");
        assert!(r[2].parse::<u64>().unwrap() > 0, "{r:?}");
        assert!(r[4].parse::<f64>().is_ok(), "{r:?}");
    }
    // pvs does not count leaf evaluations: empty, not zero.
    assert_eq!(rows[1][3], "");
    assert!(rows[2][3].parse::<u64>().unwrap() > 0);
    let _ = std::fs::remove_file(&csv);
}

#[test]
fn epd_with_a_node_budget_plays_the_same_moves_on_every_run_and_at_any_concurrency() {
    let suite = temp("nodes.epd");
    std::fs::write(
        &suite,
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";\n\
         r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - bm Bxc6; id \"WAC.003\";\n\
         8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id \"WAC.002\";\n",
    )
    .unwrap();
    let run = |name: &str, concurrency: &str| {
        let csv = temp(name);
        let out = searchlight(&[
            "epd",
            "--concurrency",
            concurrency,
            "--file",
            suite.to_str().unwrap(),
            "--nodes",
            "30000",
            "--engine",
            "pvs Threads=1",
            "--csv",
            csv.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{stdout}");
        assert!(stdout.contains("at 30000 nodes per position"), "{stdout}");
        let rows = parse_csv(&std::fs::read_to_string(&csv).unwrap());
        let _ = std::fs::remove_file(&csv);
        // The move and the depth reached; the time is the clock's.
        rows[1..]
            .iter()
            .map(|r| (r[1].clone(), r[3].clone(), r[5].clone()))
            .collect::<Vec<_>>()
    };
    let first = run("nodes1.csv", "1");
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(first, run("nodes2.csv", "1"));
    // Three workers, each with its own engine, finish in any order; the rows keep the
    // suite's.
    assert_eq!(first, run("nodes3.csv", "3"));
    let _ = std::fs::remove_file(&suite);
}
