//! What an OpenBench server and client need from Searchlight, checked without either:
//! the engine configuration in the README passes the server's checks (`OpenBench/config.py`
//! of AndyGrant/OpenBench: `verify_engine_basics`, `verify_engine_build` and the preset key
//! lists), and the client's bench parser (`Client/bench.py`, `parse_stream_output`) reads
//! the node count and speed off `searchlight bench`.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use serde_json::Value;

fn readme() -> String {
    std::fs::read_to_string("README.md").expect("README.md")
}

/// The text of the README's `## OpenBench` section.
fn section(readme: &str) -> &str {
    let start = readme
        .find("\n## OpenBench\n")
        .expect("README has ## OpenBench");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The first ```json block of the section, parsed.
fn engine_config(section: &str) -> Value {
    let start = section.find("```json\n").expect("a ```json block") + "```json\n".len();
    let len = section[start..].find("```").expect("the block ends");
    serde_json::from_str(&section[start..start + len]).expect("the block is JSON")
}

/// The keys `config.py` accepts in a test preset.
const TEST_PRESET_KEYS: &[&str] = &[
    "both_branch",
    "both_bench",
    "both_network",
    "both_options",
    "both_time_control",
    "dev_branch",
    "dev_bench",
    "dev_network",
    "dev_options",
    "dev_time_control",
    "base_branch",
    "base_bench",
    "base_network",
    "base_options",
    "base_time_control",
    "test_bounds",
    "test_confidence",
    "test_max_games",
    "book_name",
    "upload_pgns",
    "priority",
    "throughput",
    "workload_size",
    "syzygy_wdl",
    "syzygy_adj",
    "win_adj",
    "draw_adj",
];

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a list of strings"))
        .collect()
}

#[test]
fn the_readme_engine_configuration_passes_the_server_checks() {
    let text = readme();
    let section = section(&text);
    let conf = engine_config(section);
    assert!(conf["private"].is_boolean());
    assert!(conf["source"].is_string());
    let nps = conf["nps"].as_u64().expect("nps is an integer");
    assert!(nps > 0);
    // The figure is the one the section says `searchlight bench` printed, not a guess.
    let printed = format!(" nodes {nps} nps`");
    assert!(
        section.contains(&printed),
        "the section quotes no bench line ending in {printed:?}"
    );

    let build = &conf["build"];
    assert!(build["path"].is_string());
    for key in ["compilers", "cpuflags", "systems"] {
        strings(&build[key]);
    }
    // The client looks for cargo at least as new as the crate's rust-version.
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap();
    let msrv = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("rust-version")
        .trim_matches('"');
    assert_eq!(strings(&build["compilers"]), [format!("cargo>={msrv}")]);

    let presets = conf["test_presets"].as_object().expect("test_presets");
    assert!(presets.contains_key("default"));
    for (name, preset) in presets {
        for key in preset.as_object().expect("a preset").keys() {
            assert!(
                TEST_PRESET_KEYS.contains(&key.as_str()),
                "test preset {name}: OpenBench rejects the key {key}"
            );
        }
    }
}

/// One piece of the client's patterns: `\d+`, `\s+`, or literal text (any case).
#[derive(Clone, Copy)]
enum Part {
    Digits,
    Spaces,
    Text(&'static str),
}

use Part::{Digits, Spaces, Text};

/// `Client/bench.py`, verbatim:
/// `nps_pattern   = r'(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)'`
const NPS_PATTERN: &[&[Part]] = &[
    &[Digits, Spaces, Text("nps")],
    &[Text("nps"), Spaces, Digits],
    &[Text("nodes second"), Spaces, Digits],
];
/// `bench_pattern = r'(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)'`
const BENCH_PATTERN: &[&[Part]] = &[
    &[Digits, Spaces, Text("nodes")],
    &[Text("nodes"), Spaces, Digits],
    &[Text("nodes searched"), Spaces, Digits],
];

/// The lengths at which `parts` can match `s` from its start (greedy first, as a
/// backtracking regex engine tries them).
fn match_lengths(s: &[u8], parts: &[Part]) -> Vec<usize> {
    let Some((first, rest)) = parts.split_first() else {
        return vec![0];
    };
    let heads: Vec<usize> = match first {
        Digits | Spaces => {
            let class = |b: &u8| match first {
                Digits => b.is_ascii_digit(),
                _ => b.is_ascii_whitespace(),
            };
            let run = s.iter().take_while(|b| class(b)).count();
            (1..=run).rev().collect()
        }
        Text(t) => {
            let ok = s.len() >= t.len() && s[..t.len()].eq_ignore_ascii_case(t.as_bytes());
            if ok { vec![t.len()] } else { vec![] }
        }
    };
    heads
        .into_iter()
        .flat_map(|h| match_lengths(&s[h..], rest).into_iter().map(move |r| h + r))
        .collect()
}

/// Python's `re.search(pattern, line, re.IGNORECASE).group()`: the leftmost match, the
/// alternatives tried in order at each position.
fn search(line: &str, pattern: &[&[Part]]) -> Option<String> {
    let bytes = line.as_bytes();
    (0..bytes.len()).find_map(|start| {
        pattern.iter().find_map(|alt| {
            let len = *match_lengths(&bytes[start..], alt).first()?;
            Some(line[start..start + len].to_string())
        })
    })
}

/// `re.sub(r'[^a-zA-Z0-9 ]+', ' ', line)`: each run of other characters, one space.
fn spaced(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_run = false;
    for c in line.chars() {
        let kept = c.is_ascii_alphanumeric() || c == ' ';
        if kept {
            out.push(c);
        } else if !in_run {
            out.push(' ');
        }
        in_run = !kept;
    }
    out
}

/// `parse_stream_output`: from the last line up, the first nps and bench matches in the
/// lines with other characters made spaces; then the first number of each match.
fn parse_stream_output(output: &str) -> (Option<u64>, Option<u64>) {
    let (mut nps, mut bench) = (None, None);
    for line in output.trim().split('\n').rev() {
        let line = spaced(line);
        nps = nps.or_else(|| search(&line, NPS_PATTERN));
        bench = bench.or_else(|| search(&line, BENCH_PATTERN));
    }
    let number = |m: Option<String>| {
        let m = m?;
        let digits: String = m
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    (number(bench), number(nps))
}

#[test]
fn the_bench_parser_behaves_like_the_clients() {
    assert_eq!(
        parse_stream_output("1 nodes 2 nps\n20510656 nodes 782006 nps\n"),
        (Some(20510656), Some(782006))
    );
    // Stockfish's form, and a line with neither.
    assert_eq!(
        parse_stream_output("Nodes searched  : 1234\nNodes/second    : 99\nTotal time: 5"),
        (Some(1234), Some(99))
    );
    assert_eq!(parse_stream_output("bestmove e2e4"), (None, None));
    // A run of punctuation is one space: `nodes second` needs exactly one between.
    assert_eq!(spaced("Nodes/:second: 7"), "Nodes second  7");
    assert_eq!(parse_stream_output("Nodes/:second: 7"), (None, Some(7)));
}

#[test]
fn openbench_reads_the_node_count_and_speed_of_searchlight_bench() {
    let out = Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args(["bench", "5"])
        .output()
        .expect("searchlight runs");
    assert!(out.status.success());
    // The client reads stdout and stderr as one stream; nothing on stderr may match.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(parse_stream_output(&stderr), (None, None), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.trim_end().lines().last().expect("output");
    let fields: Vec<&str> = last.split(' ').collect();
    assert!(
        matches!(fields[..], [_, "nodes", _, "nps"]),
        "last line {last:?}"
    );
    let nodes: u64 = fields[0].parse().unwrap();
    let nps: u64 = fields[2].parse().unwrap();
    assert_eq!(parse_stream_output(&stdout), (Some(nodes), Some(nps)));
    // The total is the sum of the positions' counts printed above it.
    let per_position: u64 = stdout
        .lines()
        .filter(|l| l.contains(" nodes  bestmove "))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(per_position, nodes);
    assert!(nps > 0);
}
