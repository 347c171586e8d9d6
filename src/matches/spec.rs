//! Player specifications on the command line: an in-process backend with options
//! (`"pvs"`, `"mtdf Hash=64"`) or an external UCI engine
//! (`"cmd=/usr/games/stockfish option.Skill Level=3 name=sf3"`).
//!
//! Words are split on spaces; a word without `=` continues something: after `option.` it
//! is part of an option name (names may contain spaces), otherwise part of the previous
//! value (so `cmd=/usr/games/gnuchess -u` keeps its argument).

use thiserror::Error;

use super::engines_file::EngineConfig;
use crate::engine::SEARCH;
use crate::search::registry::DEFAULT_BACKEND;

/// Why a player specification was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecError {
    #[error("empty engine specification")]
    Empty,
    #[error("'{0}' is not key=value")]
    NotKeyValue(String),
    #[error("cmd= needs a program")]
    NoProgram,
    #[error("name= needs a name: the tables and the PGN tell the players apart by it")]
    NoName,
    #[error("'{0}': expected a backend name, cmd= or conf=")]
    NoEngine(String),
    #[error("no engine named '{0}' in the engines file")]
    UnknownConf(String),
    #[error("engine entry '{0}' has no command")]
    NoCommand(String),
    #[error("unknown key '{0}': an option of an engine given by cmd= or conf= is written option.{0}=VALUE; the other keys are {keys}", keys = KEYS.join(", "))]
    UnknownKey(String),
    #[error("{0}")]
    Limit(String),
}

/// Who plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineKind {
    /// A Searchlight backend run in this process.
    Local { backend: String },
    /// An external UCI engine: program and arguments.
    External { program: String, args: Vec<String> },
}

/// A parsed player specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    pub kind: EngineKind,
    /// Display name (`name=`; default: the backend name or the program's file name).
    pub name: String,
    /// Options to set, in order.
    pub options: Vec<(String, String)>,
    /// Other `key=value` fields (limits and the like), for the caller to interpret.
    pub fields: Vec<(String, String)>,
}

/// Keys with a meaning of their own; any other key names an option of a local engine.
const KEYS: &[&str] = &["cmd", "name", "conf", "tc", "st", "nodes", "depth", "proto"];

impl EngineSpec {
    pub fn parse(text: &str) -> Result<Self, SpecError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some(&first) = words.first() else {
            return Err(SpecError::Empty);
        };
        let local = !first.contains('=');
        let mut fields: Vec<(String, String)> = Vec::new();
        let mut pending: Vec<&str> = Vec::new();
        for &word in &words[usize::from(local)..] {
            let Some((k, v)) = word.split_once('=') else {
                pending.push(word);
                continue;
            };
            // Where the key starts: at an `option.` word, or (for a local engine, whose
            // option names need no prefix) at the first pending word; earlier pending
            // words continue the previous value.
            let key_start = pending
                .iter()
                .position(|w| w.starts_with("option."))
                .unwrap_or(if local { 0 } else { pending.len() });
            let mut key_words: Vec<&str> = pending[key_start..].to_vec();
            key_words.push(k);
            let key = key_words.join(" ");
            if key_start > 0 {
                continue_last(&mut fields, &pending[..key_start])?;
            }
            pending.clear();
            fields.push((key, v.to_string()));
        }
        if !pending.is_empty() {
            continue_last(&mut fields, &pending)?;
        }
        let mut spec = EngineSpec {
            kind: EngineKind::Local {
                backend: first.to_string(),
            },
            name: first.to_string(),
            options: Vec::new(),
            fields: Vec::new(),
        };
        for (key, value) in fields {
            match key.as_str() {
                "cmd" => {
                    let mut parts = value.split_whitespace().map(str::to_string);
                    let program = parts.next().ok_or(SpecError::NoProgram)?;
                    spec.name = program.rsplit('/').next().unwrap_or(&program).to_string();
                    spec.kind = EngineKind::External {
                        program,
                        args: parts.collect(),
                    };
                }
                "name" if value.trim().is_empty() => return Err(SpecError::NoName),
                "name" => spec.name = value.trim().to_string(),
                _ => match key.strip_prefix("option.") {
                    Some(option) => spec.options.push((option.to_string(), value)),
                    None if KEYS.contains(&key.as_str()) => spec.fields.push((key, value)),
                    None if local => spec.options.push((key, value)),
                    // An external engine's option needs its prefix: dropping a bare key
                    // would let a match run without the setting it was meant to test.
                    None => return Err(SpecError::UnknownKey(key)),
                },
            }
        }
        if !local && !matches!(spec.kind, EngineKind::External { .. }) && !spec.has_field("conf") {
            return Err(SpecError::NoEngine(text.to_string()));
        }
        Ok(spec)
    }

    /// The value of a `key=value` field.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn has_field(&self, key: &str) -> bool {
        self.field(key).is_some()
    }
}

impl EngineSpec {
    /// Replaces a `conf=NAME` spec by the engines-file entry of that name: an entry whose
    /// command is `searchlight` becomes an in-process backend (its `Search` option names
    /// it), any other an external engine. The spec's own options, limits and `name=` are
    /// kept and win over the entry's. Specs without `conf=` are returned unchanged.
    pub fn resolve_conf(self, entries: &[EngineConfig]) -> Result<Self, SpecError> {
        let Some(conf) = self.field("conf").map(str::to_string) else {
            return Ok(self);
        };
        let entry = entries
            .iter()
            .find(|e| e.name == conf)
            .ok_or_else(|| SpecError::UnknownConf(conf.clone()))?;
        let value_text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut options: Vec<(String, String)> = Vec::new();
        let mut kind = None;
        let mut words = entry.command.split_whitespace().map(str::to_string);
        let program = words
            .next()
            .ok_or_else(|| SpecError::NoCommand(entry.name.clone()))?;
        let local = program == "searchlight";
        for o in &entry.options {
            if local && o.name == SEARCH.name() {
                kind = Some(EngineKind::Local {
                    backend: value_text(&o.value),
                });
            } else {
                options.push((o.name.clone(), value_text(&o.value)));
            }
        }
        let kind = kind.unwrap_or(if local {
            EngineKind::Local {
                backend: DEFAULT_BACKEND.to_string(),
            }
        } else {
            EngineKind::External {
                program,
                args: words.collect(),
            }
        });
        options.extend(self.options.iter().cloned());
        Ok(EngineSpec {
            kind,
            // Without `name=`, the name parsing gave is the first word (`conf=...`).
            name: if self.name.starts_with("conf=") {
                entry.name.clone()
            } else {
                self.name
            },
            options,
            fields: self.fields,
        })
    }
}

fn continue_last(fields: &mut [(String, String)], words: &[&str]) -> Result<(), SpecError> {
    let (_, value) = fields
        .last_mut()
        .ok_or_else(|| SpecError::NotKeyValue(words.join(" ")))?;
    for w in words {
        value.push(' ');
        value.push_str(w);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_backend_with_options() {
        let s = EngineSpec::parse("uctmaxh UCT_C=0.4 Move Overhead=20").unwrap();
        assert_eq!(
            s.kind,
            EngineKind::Local {
                backend: "uctmaxh".into()
            }
        );
        assert_eq!(
            s.options,
            vec![
                ("UCT_C".into(), "0.4".into()),
                ("Move Overhead".into(), "20".into())
            ]
        );
    }

    #[test]
    fn external_engine_with_args_spaced_options_and_name() {
        let s = EngineSpec::parse("cmd=/usr/games/gnuchess -u option.Skill Level=3 name=gnu st=1")
            .unwrap();
        assert_eq!(
            s.kind,
            EngineKind::External {
                program: "/usr/games/gnuchess".into(),
                args: vec!["-u".into()]
            }
        );
        assert_eq!(s.options, vec![("Skill Level".into(), "3".into())]);
        assert_eq!(s.name, "gnu");
        assert_eq!(s.field("st"), Some("1"));
        let s = EngineSpec::parse("cmd=/usr/games/stockfish").unwrap();
        assert_eq!(s.name, "stockfish");
    }

    #[test]
    fn conf_names_an_engines_file_entry() {
        let entries = crate::matches::engines_file::registry_entries();
        let s = EngineSpec::parse("conf=Searchlight mtdf nodes=100")
            .unwrap()
            .resolve_conf(&entries)
            .unwrap();
        assert_eq!(
            s.kind,
            EngineKind::Local {
                backend: "mtdf".into()
            }
        );
        assert_eq!(s.name, "Searchlight mtdf");
        assert_eq!(s.field("nodes"), Some("100"));
        assert!(
            EngineSpec::parse("conf=nothing")
                .unwrap()
                .resolve_conf(&entries)
                .is_err()
        );
    }

    #[test]
    fn nonsense_is_an_error() {
        assert!(EngineSpec::parse("").is_err());
        assert!(EngineSpec::parse("name=x").is_err());
        // An external engine's option needs its prefix; without it the spec is refused
        // rather than played without the option.
        let err = EngineSpec::parse("cmd=/tmp/sl name=x Search=ucth").unwrap_err();
        assert_eq!(err, SpecError::UnknownKey("Search".into()));
        assert!(err.to_string().contains("option.Search=VALUE"), "{err}");
        assert!(EngineSpec::parse("conf=sf Hash=64").is_err());
        assert!(EngineSpec::parse("conf=sf option.Hash=64 tc=1+0.01").is_ok());
        // A player without a name could not be told apart in the tables and the PGN.
        assert_eq!(EngineSpec::parse("pvs name="), Err(SpecError::NoName));
        assert_eq!(EngineSpec::parse("pvs name=   "), Err(SpecError::NoName));
    }
}
