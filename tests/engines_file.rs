//! `engines/engines.json` holds one Cute Chess entry per registered backend, exactly as
//! generated from the registry. To regenerate after adding a backend:
//! `UPDATE_ENGINES_JSON=1 cargo test --test engines_file`.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::matches::engines_file::{parse, registry_entries, render};
use searchlight::search::registry::BACKENDS;

const PATH: &str = "engines/engines.json";

#[test]
fn engines_json_has_an_entry_for_every_backend() {
    let expected = registry_entries();
    if std::env::var_os("UPDATE_ENGINES_JSON").is_some() {
        std::fs::write(PATH, render(&expected)).unwrap();
    }
    let text = std::fs::read_to_string(PATH).expect("engines/engines.json exists");
    let entries = parse(&text).expect("valid engines.json");
    for backend in BACKENDS {
        let entry = entries
            .iter()
            .find(|e| e.name == format!("Searchlight {}", backend.name))
            .unwrap_or_else(|| panic!("no engines.json entry for backend {}", backend.name));
        let search = entry
            .options
            .iter()
            .find(|o| o.name == "Search")
            .expect("Search option");
        assert_eq!(search.value, backend.name);
    }
    let ours: Vec<_> = entries
        .iter()
        .filter(|e| e.command == "searchlight")
        .cloned()
        .collect();
    assert_eq!(ours, expected, "regenerate with UPDATE_ENGINES_JSON=1");
}

#[test]
fn every_entry_is_in_cute_chess_format() {
    let text = std::fs::read_to_string(PATH).unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    for entry in raw.as_array().expect("a JSON array of engines") {
        for key in ["name", "command", "protocol"] {
            assert!(entry[key].is_string(), "{key} missing in {entry}");
        }
        assert_eq!(entry["protocol"], "uci");
        for option in entry["options"].as_array().into_iter().flatten() {
            assert!(
                option["name"].is_string() && !option["value"].is_null(),
                "{option}"
            );
            if option["type"] == "combo" {
                let choices = option["choices"].as_array().expect("combo has choices");
                assert!(choices.contains(&option["value"]), "{option}");
            }
        }
    }
}

/// Cute Chess reads spin bounds as 32-bit integers: a wider one reaches it as 0.
#[test]
fn every_spin_fits_in_32_bits() {
    use searchlight::options::OptionKind;
    let fits = |v: i64| i32::try_from(v).is_ok();
    for decl in searchlight::engine::option_declarations() {
        if let OptionKind::Spin { default, min, max } = decl.kind {
            assert!(
                fits(default) && fits(min) && fits(max),
                "{}: {min}..{max}",
                decl.name
            );
        }
    }
}
