//! Player specifications on the command line: an in-process backend with options
//! (`"pvs"`, `"mtdf Hash=64"`) or an external UCI engine
//! (`"cmd=/usr/games/stockfish option.Skill Level=3 name=sf3"`).
//!
//! Words are split on spaces; a word without `=` continues something: after `option.` it
//! is part of an option name (names may contain spaces), otherwise part of the previous
//! value (so `cmd=/usr/games/gnuchess -u` keeps its argument).

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

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
    pub fn parse(text: &str) -> Result<Self, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some(&first) = words.first() else {
            return Err("empty engine specification".into());
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
                    let program = parts.next().ok_or("cmd= needs a program")?;
                    spec.name = program.rsplit('/').next().unwrap_or(&program).to_string();
                    spec.kind = EngineKind::External {
                        program,
                        args: parts.collect(),
                    };
                }
                "name" => spec.name = value,
                _ => match key.strip_prefix("option.") {
                    Some(option) => spec.options.push((option.to_string(), value)),
                    None if local && !KEYS.contains(&key.as_str()) => {
                        spec.options.push((key, value))
                    }
                    None => spec.fields.push((key, value)),
                },
            }
        }
        if !local && !matches!(spec.kind, EngineKind::External { .. }) && !spec.has_field("conf") {
            return Err(format!("'{text}': expected a backend name, cmd= or conf="));
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

fn continue_last(fields: &mut [(String, String)], words: &[&str]) -> Result<(), String> {
    let (_, value) = fields
        .last_mut()
        .ok_or_else(|| format!("'{}' is not key=value", words.join(" ")))?;
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
    fn nonsense_is_an_error() {
        assert!(EngineSpec::parse("").is_err());
        assert!(EngineSpec::parse("name=x").is_err());
    }
}
