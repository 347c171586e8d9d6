//! The layers stay layered: every path into the crate from a module of `src/` points to
//! its own layer or one below. Reads the sources as text (comments dropped) and finds each
//! `crate::x` and each `super::` chain that climbs out of its top-level module.
//!
//! Layers, low to high (a module may use its own and those of a lower rank):
//! `value`, `pool` < `options` < `board` < `tree` < `search` < `engine` < `traps`,
//! `matches` (peers that may not use each other) < `experiments` < `uci` < `cli`.
//! Inside `search`, the families keep apart: `research` uses neither `pvs` nor `uct`,
//! `pvs` uses neither of the others, `uct` may use `pvs` (the hybrid hands over to it),
//! and no family uses the registry that lists them.
//!
//! And no function of `src/` is longer than 120 lines.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// The rank of a top-level module; `None` for the crate root files.
fn rank(layer: &str) -> Option<u32> {
    Some(match layer {
        "value" | "pool" => 0,
        "options" => 1,
        "board" => 2,
        "tree" => 3,
        "search" => 4,
        "engine" => 5,
        "traps" | "matches" => 6,
        "experiments" => 7,
        "uci" => 8,
        "cli" => 9,
        _ => return None,
    })
}

/// The module path of a source file: `src/search/pvs/mod.rs` is `[search, pvs]`,
/// `src/engine/tests.rs` is `[engine, tests]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments (line comments and doc comments), so that prose that
/// names a module is not mistaken for a use of it.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path (from the crate root) that `text`, the code of the module at
/// `module`, refers to: `crate::a::b`, `crate::{a, b::c}` and `super::` chains.
fn references(module: &[String], text: &str) -> Vec<Vec<String>> {
    // `a::b::C;` is `[a, b, C]`: the path ends where a segment has more than a name.
    let ident = |s: &str| -> Vec<String> {
        let mut path = Vec::new();
        for segment in s.split("::") {
            let segment = segment.trim_start();
            let name: String = segment
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let whole = name.len() == segment.len();
            if !name.is_empty() {
                path.push(name);
            }
            if !whole || path.is_empty() {
                break;
            }
        }
        path
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        // `searchlight::crate::` cannot occur; a preceding identifier char means a longer
        // word (`my_crate::`).
        if text[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(inner.split(',').map(ident).filter(|p| !p.is_empty()));
        } else {
            out.push(ident(rest));
        }
    }
    // `super::super::x` from a file climbs one module per `super`.
    let dir_depth = module.len();
    for (i, _) in text.match_indices("super::") {
        if text[..i].ends_with("super::")
            || text[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let mut rest = &text[i..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            ups += 1;
            rest = r;
        }
        if ups > dir_depth {
            continue;
        }
        let mut base: Vec<String> = module[..dir_depth - ups].to_vec();
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let mut p = base.clone();
                p.extend(ident(item));
                out.push(p);
            }
        } else {
            base.extend(ident(rest));
            out.push(base);
        }
    }
    out
}

/// The rule a reference from `module` to `target` breaks, if any.
fn violation(module: &[String], target: &[String]) -> Option<String> {
    let (from, to) = (module.first()?, target.first()?);
    if from == to {
        if from == "search" {
            return family_violation(module, target);
        }
        return None;
    }
    let (Some(a), Some(b)) = (rank(from), rank(to)) else {
        return None;
    };
    (b >= a).then(|| format!("{from} (rank {a}) uses {to} (rank {b})"))
}

/// Inside `search`: the families keep apart and stay below the registry.
fn family_violation(module: &[String], target: &[String]) -> Option<String> {
    let from = module.get(1).map(String::as_str)?;
    let to = target.get(1).map(String::as_str)?;
    let families = ["pvs", "research", "uct"];
    if !families.contains(&from) || from == to {
        return None;
    }
    let allowed = to != "registry" && (!families.contains(&to) || (from, to) == ("uct", "pvs"));
    (!allowed).then(|| format!("search::{from} uses search::{to}"))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every violation in the sources under `src`, as `file: rule (path)`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let module = module_path(src, &file);
        let text = code(&std::fs::read_to_string(&file).unwrap());
        for target in references(&module, &text) {
            if let Some(rule) = violation(&module, &target) {
                found.push(format!(
                    "{}: {rule} (crate::{})",
                    file.display(),
                    target.join("::")
                ));
            }
        }
    }
    found
}

/// Functions longer than `limit` lines, as `file:line name (n lines)`: from the `fn` line to
/// the closing brace at the same indentation (the layout rustfmt gives).
fn long_functions(src: &Path, limit: usize) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let body = line.trim_start();
            let indent = &line[..line.len() - body.len()];
            let signature = body
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ")
                .trim_start_matches("const ");
            let Some(rest) = signature.strip_prefix("fn ") else {
                continue;
            };
            if line.trim_end().ends_with(';') || line.trim_end().ends_with('}') {
                continue;
            }
            let close = format!("{indent}}}");
            let Some(end) = lines[i..].iter().position(|l| *l == close) else {
                continue;
            };
            if end + 1 > limit {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push(format!(
                    "{}:{} {name} ({} lines)",
                    file.display(),
                    i + 1,
                    end + 1
                ));
            }
        }
    }
    found
}

#[test]
fn no_function_is_longer_than_120_lines() {
    let found = long_functions(Path::new("src"), 120);
    assert!(found.is_empty(), "split these:\n{}", found.join("\n"));
    // The measure sees the longest functions (the node search of `pvs` is near 110).
    assert!(!long_functions(Path::new("src"), 60).is_empty());
}

#[test]
fn every_import_points_down() {
    let found = violations(Path::new("src"));
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn the_checker_sees_upward_paths_in_every_form() {
    let board = vec!["board".to_string(), "rules".to_string()];
    let check = |text: &str| {
        references(&board, text)
            .iter()
            .filter_map(|t| violation(&board, t))
            .count()
    };
    assert_eq!(check("use crate::search::Limits;"), 1);
    assert_eq!(check("use crate::{value::DRAW, engine::Engine};"), 1);
    assert_eq!(check("let x = crate::cli::main();"), 1);
    assert_eq!(check("use super::super::uci::Output;"), 1);
    assert_eq!(check("use crate::value::DRAW; use super::game::Game;"), 0);
    assert_eq!(check(&code("// see crate::engine for the thread")), 0);
    let pvs = vec![
        "search".to_string(),
        "pvs".to_string(),
        "search".to_string(),
    ];
    let families = |text: &str| {
        references(&pvs, text)
            .iter()
            .filter_map(|t| violation(&pvs, t))
            .count()
    };
    assert_eq!(families("use crate::search::research::mt::MtSearch;"), 1);
    assert_eq!(families("use crate::search::registry::BACKENDS;"), 1);
    assert_eq!(
        families("use super::tt::Entry; use crate::search::control::Poller;"),
        0
    );
}
