//! Engine options, declared once: name, type, default and range. The same declarations
//! produce the `option name ...` lines of `uci`, validate `setoption`, and hold the
//! current values that the engine and the backends read.

use thiserror::Error;

/// The type of an option with its default and range (the UCI option types).
#[derive(Debug, Clone, PartialEq)]
pub enum OptionKind {
    Check {
        default: bool,
    },
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    Button,
    String {
        default: &'static str,
    },
    /// A real number; UCI has no such type, so it is announced as a `string`.
    Float {
        default: f64,
        min: f64,
        max: f64,
    },
}

/// One declared option.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionDecl {
    pub name: &'static str,
    pub kind: OptionKind,
    /// One line for the README table.
    pub help: &'static str,
}

/// The current value of an option.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Check(bool),
    Spin(i64),
    Combo(&'static str),
    Button,
    String(String),
    Float(f64),
}

impl OptionDecl {
    /// The value the option starts with.
    pub fn default_value(&self) -> OptionValue {
        match &self.kind {
            OptionKind::Check { default } => OptionValue::Check(*default),
            OptionKind::Spin { default, .. } => OptionValue::Spin(*default),
            OptionKind::Combo { default, .. } => OptionValue::Combo(default),
            OptionKind::Button => OptionValue::Button,
            OptionKind::String { default } => OptionValue::String(default.to_string()),
            OptionKind::Float { default, .. } => OptionValue::Float(*default),
        }
    }

    /// Parses and range-checks a `setoption` value for this option.
    pub fn parse(&self, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let name = self.name.to_string();
        let text = value.map(str::trim);
        let need = || OptionError::MissingValue(name.clone());
        let invalid = |v: &str, expected: &str| OptionError::InvalidValue {
            name: name.clone(),
            value: v.to_string(),
            expected: expected.to_string(),
        };
        match &self.kind {
            OptionKind::Button => Ok(OptionValue::Button),
            OptionKind::Check { .. } => {
                let v = text.ok_or_else(need)?;
                match v.to_ascii_lowercase().as_str() {
                    "true" => Ok(OptionValue::Check(true)),
                    "false" => Ok(OptionValue::Check(false)),
                    _ => Err(invalid(v, "true or false")),
                }
            }
            OptionKind::Spin { min, max, .. } => {
                let v = text.ok_or_else(need)?;
                let n: i64 = v.parse().map_err(|_| invalid(v, "an integer"))?;
                if n < *min || n > *max {
                    return Err(OptionError::OutOfRange {
                        name,
                        value: v.to_string(),
                        min: min.to_string(),
                        max: max.to_string(),
                    });
                }
                Ok(OptionValue::Spin(n))
            }
            OptionKind::Float { min, max, .. } => {
                let v = text.ok_or_else(need)?;
                let x: f64 = v.parse().map_err(|_| invalid(v, "a number"))?;
                if !x.is_finite() || x < *min || x > *max {
                    return Err(OptionError::OutOfRange {
                        name,
                        value: v.to_string(),
                        min: min.to_string(),
                        max: max.to_string(),
                    });
                }
                Ok(OptionValue::Float(x))
            }
            OptionKind::Combo { vars, .. } => {
                let v = text.ok_or_else(need)?;
                vars.iter()
                    .find(|var| var.eq_ignore_ascii_case(v))
                    .map(|var| OptionValue::Combo(var))
                    .ok_or_else(|| invalid(v, &format!("one of {}", vars.join(", "))))
            }
            OptionKind::String { .. } => Ok(OptionValue::String(
                value.map(str::to_string).unwrap_or_default(),
            )),
        }
    }
}

/// Why a `setoption` was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("unknown option '{0}'")]
    Unknown(String),
    #[error("option '{0}' needs a value")]
    MissingValue(String),
    #[error("invalid value '{value}' for option '{name}': expected {expected}")]
    InvalidValue {
        name: String,
        value: String,
        expected: String,
    },
    #[error("value '{value}' for option '{name}' is out of range [{min}, {max}]")]
    OutOfRange {
        name: String,
        value: String,
        min: String,
        max: String,
    },
}

/// The declared options with their current values, in declaration order.
#[derive(Debug, Clone)]
pub struct Options {
    decls: Vec<OptionDecl>,
    values: Vec<OptionValue>,
}

impl Options {
    /// Every option at its default. A name declared twice keeps its first declaration.
    pub fn new(decls: Vec<OptionDecl>) -> Self {
        let mut unique: Vec<OptionDecl> = Vec::with_capacity(decls.len());
        for d in decls {
            if !unique.iter().any(|u| u.name.eq_ignore_ascii_case(d.name)) {
                unique.push(d);
            }
        }
        let values = unique.iter().map(OptionDecl::default_value).collect();
        Options {
            decls: unique,
            values,
        }
    }

    /// The declarations, in order.
    pub fn decls(&self) -> &[OptionDecl] {
        &self.decls
    }

    fn index(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        self.decls
            .iter()
            .position(|d| d.name.eq_ignore_ascii_case(name))
    }

    /// Checks a `setoption` without changing anything: the declaration it names (matched
    /// case-insensitively) and the parsed value.
    pub fn validate(
        &self,
        name: &str,
        value: Option<&str>,
    ) -> Result<(&OptionDecl, OptionValue), OptionError> {
        let i = self
            .index(name)
            .ok_or_else(|| OptionError::Unknown(name.trim().to_string()))?;
        let decl = &self.decls[i];
        Ok((decl, decl.parse(value)?))
    }

    /// Sets a value that [`validate`](Self::validate) produced.
    pub fn set(&mut self, name: &str, value: OptionValue) {
        if let Some(i) = self.index(name) {
            self.values[i] = value;
        }
    }

    /// The current value of an option.
    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.index(name).map(|i| &self.values[i])
    }

    /// A spin option's value (0 if there is no such spin option).
    pub fn spin(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(OptionValue::Spin(n)) => *n,
            _ => 0,
        }
    }

    /// A check option's value (false if there is no such check option).
    pub fn check(&self, name: &str) -> bool {
        matches!(self.get(name), Some(OptionValue::Check(true)))
    }

    /// A combo option's value ("" if there is no such combo option).
    pub fn combo(&self, name: &str) -> &'static str {
        match self.get(name) {
            Some(OptionValue::Combo(v)) => v,
            _ => "",
        }
    }

    /// A float option's value (0 if there is no such float option).
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(OptionValue::Float(x)) => *x,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options::new(vec![
            OptionDecl {
                name: "Hash",
                kind: OptionKind::Spin {
                    default: 16,
                    min: 1,
                    max: 1024,
                },
                help: "",
            },
            OptionDecl {
                name: "Search",
                kind: OptionKind::Combo {
                    default: "pvs",
                    vars: &["pvs", "alphabeta"],
                },
                help: "",
            },
            OptionDecl {
                name: "Ponder",
                kind: OptionKind::Check { default: false },
                help: "",
            },
        ])
    }

    #[test]
    fn names_and_combo_values_are_case_insensitive() {
        let mut o = options();
        let (decl, v) = o.validate("search", Some("AlphaBeta")).unwrap();
        assert_eq!(decl.name, "Search");
        o.set("search", v);
        assert_eq!(o.combo("Search"), "alphabeta");
    }

    #[test]
    fn bad_values_are_rejected_and_name_the_token() {
        let o = options();
        let e = o.validate("Hash", Some("0")).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = o.validate("Hash", Some("lots")).unwrap_err();
        assert!(e.to_string().contains("'lots'"), "{e}");
        assert!(matches!(
            o.validate("Nope", Some("1")),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            o.validate("Ponder", None),
            Err(OptionError::MissingValue(_))
        ));
        assert_eq!(o.spin("Hash"), 16);
    }
}
