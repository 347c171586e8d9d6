//! `engines/engines.json`: engine definitions in Cute Chess's format (read by the Cute Chess
//! GUI, by `cutechess-cli -engine conf=NAME`, and by `searchlight match`). The Searchlight
//! entries — one per backend — are generated from the backend registry, so the file and
//! the registry cannot drift apart (a test compares them).

use serde::{Deserialize, Serialize};

use crate::engine::SEARCH;
use crate::search::registry::{self, BACKENDS};

/// One option setting in an engine definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigOption {
    pub name: String,
    #[serde(rename = "type", default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    pub value: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// One engine definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineConfig {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub working_directory: String,
    #[serde(default = "uci")]
    pub protocol: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ConfigOption>,
}

fn uci() -> String {
    "uci".to_string()
}

/// The name of the Searchlight entry for a backend.
pub fn entry_name(backend: &str) -> String {
    format!("Searchlight {backend}")
}

/// The Searchlight entries, one per registered backend, in registry order.
pub fn registry_entries() -> Vec<EngineConfig> {
    BACKENDS
        .iter()
        .map(|b| EngineConfig {
            name: entry_name(b.name),
            command: "searchlight".to_string(),
            working_directory: String::new(),
            protocol: uci(),
            variants: vec!["standard".into(), "fischerandom".into()],
            options: vec![ConfigOption {
                name: SEARCH.name().to_string(),
                kind: "combo".to_string(),
                value: b.name.into(),
                default: Some(registry::DEFAULT_BACKEND.into()),
                choices: registry::names().iter().map(|s| s.to_string()).collect(),
            }],
        })
        .collect()
}

/// Parses an engines file.
pub fn parse(text: &str) -> Result<Vec<EngineConfig>, serde_json::Error> {
    serde_json::from_str(text)
}

/// The engines file as Searchlight writes it.
pub fn render(entries: &[EngineConfig]) -> String {
    let mut text = serde_json::to_string_pretty(entries).unwrap_or_default();
    text.push('\n');
    text
}
