//! `searchlight tune --nnue` end to end: a malformed line stops it before a net is written;
//! a good file trains a net the engine can load; `--init` fine-tunes a net of the same base
//! and refuses one of another.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::Scratch;

const LINES: &str = "\
4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1
3qk3/8/8/8/8/8/8/4K3 b - - 0 1 | -900 | 0
4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 0.5
r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 | 10 | 0.5
";

fn tune(data: &PathBuf, out: &PathBuf, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_searchlight"))
        .args([
            "tune",
            "--nnue",
            "--mirror",
            "--epochs",
            "3",
            "--batch",
            "2",
            "--threads",
            "2",
        ])
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_malformed_line_stops_the_training_and_writes_no_net() {
    let dir = Scratch::new("tune-malformed");
    let scratch = |name| dir.file(name);
    let data = scratch("bad.txt");
    std::fs::write(
        &data,
        format!("{LINES}4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 2\n"),
    )
    .unwrap();
    let out = scratch("bad.nnue");
    let run = tune(&data, &out, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("line 5") && stderr.contains("bad result"),
        "{stderr}"
    );
    assert!(stderr.contains("no net written"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn a_trained_net_loads_into_the_evaluator() {
    let dir = Scratch::new("tune-trained");
    let scratch = |name| dir.file(name);
    let data = scratch("good.txt");
    std::fs::write(&data, LINES).unwrap();
    let out = scratch("good.nnue");
    let run = tune(&data, &out, &[]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("tune --nnue: loss") && stdout.contains("wrote"),
        "{stdout}"
    );
    let bytes = std::fs::read(&out).unwrap();
    let net = searchlight::board::eval::nnue::Network::from_bytes(&bytes).unwrap();
    assert_eq!(net.base, searchlight::board::eval::nnue::Base::Classical);
}

#[test]
fn init_fine_tunes_a_net_of_the_same_base_and_refuses_another() {
    let dir = Scratch::new("tune-init");
    let scratch = |name| dir.file(name);
    let data = scratch("init.txt");
    std::fs::write(&data, LINES).unwrap();
    let built_in = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/searchlight-768x128.nnue");

    let out = scratch("other-base.nnue");
    let run = tune(&data, &out, &["--init", built_in, "--base", "material"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("corrects classical, not the --base material")
            && stderr.contains("no net written"),
        "{stderr}"
    );
    assert!(!out.exists());

    let out = scratch("fine-tuned.nnue");
    let run = tune(&data, &out, &["--init", built_in, "--rate", "0.0001"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // A few small steps from the built-in net: a different file, close to the original.
    let tuned = std::fs::read(&out).unwrap();
    let original = std::fs::read(built_in).unwrap();
    assert_eq!(tuned.len(), original.len());
    assert_ne!(tuned, original);
    let changed = tuned
        .chunks_exact(2)
        .zip(original.chunks_exact(2))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed < tuned.len() / 2 / 2, "{changed} weights changed");
}
