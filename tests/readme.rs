//! The README's tables list every option the engine declares and every registered backend.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::engine::option_declarations;
use searchlight::search::registry::BACKENDS;

fn readme() -> String {
    std::fs::read_to_string("README.md").expect("README.md")
}

/// The first cells of the rows of the Markdown table whose header row starts with
/// `header`: the rows that follow it without a break, as a Markdown renderer reads them
/// (a blank line or a paragraph ends the table, and rows after it render as text).
fn table_keys(text: &str, header: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with(header));
    assert!(
        lines.next().is_some(),
        "README has no table headed {header}"
    );
    let delimiter = lines.next().unwrap_or_default();
    assert!(delimiter.starts_with("| ---"), "{header}: no delimiter row");
    lines
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let first = row
                .trim_start_matches('|')
                .split('|')
                .next()
                .unwrap_or_default();
            first.trim().trim_matches('`').to_string()
        })
        .collect()
}

#[test]
fn every_option_is_in_the_options_table() {
    let keys = table_keys(&readme(), "| option | type |");
    for decl in option_declarations() {
        assert!(
            keys.iter().any(|k| k == decl.name),
            "README options table lacks a row for {}",
            decl.name
        );
    }
}

#[test]
fn every_backend_is_in_the_backend_table() {
    let keys = table_keys(&readme(), "| name | what it is |");
    let names: Vec<&str> = BACKENDS.iter().map(|b| b.name).collect();
    assert_eq!(
        keys, names,
        "README backend table: one row per backend, registry order"
    );
}

#[test]
fn a_table_ends_at_a_blank_line() {
    let text = "| name | what it is |\n| --- | --- |\n| `a` | x |\n\n| `b` | y |\n";
    assert_eq!(table_keys(text, "| name | what it is |"), ["a"]);
}
