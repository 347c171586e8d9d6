//! The README's tables list every option the engine declares and every registered backend,
//! and every link to one of its sections, or between it and the logs in `docs/`, names a
//! file and a heading that exist.

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

/// The anchors a Markdown renderer such as GitHub's gives the headings of `text`: the
/// title lower-cased, punctuation dropped, spaces turned into hyphens, and `-1`, `-2`
/// after a repeated one. Lines inside fenced code blocks are not headings.
fn anchors(text: &str) -> Vec<String> {
    let mut anchors = Vec::new();
    // How often each slug has been seen so far.
    let mut seen = std::collections::HashMap::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let title = line.trim_start_matches('#');
        let level = line.len() - title.len();
        if fenced || !(1..=6).contains(&level) || !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        anchors.push(if *count == 0 {
            slug
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    anchors
}

/// The Markdown files that link to each other: the README and the logs in `docs/`.
fn markdown_files() -> Vec<std::path::PathBuf> {
    let mut files = vec![std::path::PathBuf::from("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir("docs")
        .expect("docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The targets of the relative links of `text`, `[text](path#anchor)`, `(path)` or
/// `(#anchor)`: everything but the web addresses.
fn relative_links(text: &str) -> Vec<&str> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
        .filter(|target| !target.contains("://") && !target.starts_with("mailto:"))
        .collect()
}

#[test]
fn every_link_between_the_readme_and_docs_resolves() {
    let files = markdown_files();
    assert!(files.len() > 3, "{files:?}");
    // Each file's headings, worked out once however many links point into it.
    let mut headings = std::collections::HashMap::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap_or(std::path::Path::new(""));
        for link in relative_links(&text) {
            let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            assert!(
                target.exists(),
                "{} links to {link}: no such file",
                file.display()
            );
            if !anchor.is_empty() {
                let target_anchors = headings
                    .entry(target.clone())
                    .or_insert_with(|| anchors(&std::fs::read_to_string(&target).unwrap()));
                assert!(
                    target_anchors.iter().any(|a| a == anchor),
                    "{} links to {link}, which no heading of {} has",
                    file.display(),
                    target.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} links");
}

#[test]
fn anchors_follow_the_renderer() {
    let text =
        "# Set up\n## `go depth` and time\n```sh\n# a comment\n```\n### Win/draw/loss\n## Set up\n";
    assert_eq!(
        anchors(text),
        ["set-up", "go-depth-and-time", "windrawloss", "set-up-1"]
    );
    assert_eq!(
        relative_links("see [a](#set-up), [b](docs/x.md#windrawloss) and [c](https://x.org/#y)."),
        ["#set-up", "docs/x.md#windrawloss"]
    );
}
