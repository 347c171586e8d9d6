//! The README's tables list every option the engine declares and every registered backend.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::engine::option_declarations;
use searchlight::search::registry::BACKENDS;

fn readme() -> String {
    std::fs::read_to_string("README.md").expect("README.md")
}

#[test]
fn every_option_is_in_the_options_table() {
    let text = readme();
    for decl in option_declarations() {
        assert!(
            text.contains(&format!("| `{}` |", decl.name)),
            "README options table lacks {}",
            decl.name
        );
    }
}

#[test]
fn every_backend_is_in_the_backend_table() {
    let text = readme();
    for backend in BACKENDS {
        assert!(
            text.contains(&format!("| `{}` |", backend.name)),
            "README backend table lacks {}",
            backend.name
        );
    }
}
