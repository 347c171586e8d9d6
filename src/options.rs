//! Engine options, declared once beside the code they configure: name, type, default and
//! range. The same declarations produce the `option name ...` lines of `uci`, validate
//! `setoption`, and hold the current values. Code reads a value through the declaration
//! itself — `options.get(&THREADS)` — so a misspelt option is a compile error, and the
//! value always has the declared type.

use std::marker::PhantomData;

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

/// An option declaration typed by the value it holds: `i64` (spin), `bool` (check), `f64`
/// (a real, announced as a string), `&'static str` (combo), `String` (string) or `()`
/// (button).
#[derive(Debug)]
pub struct Declared<T> {
    pub decl: OptionDecl,
    value: PhantomData<fn() -> T>,
}

impl<T> Declared<T> {
    const fn with(name: &'static str, kind: OptionKind, help: &'static str) -> Self {
        Declared {
            decl: OptionDecl { name, kind, help },
            value: PhantomData,
        }
    }

    /// The option's name as the GUI sees it.
    pub const fn name(&self) -> &'static str {
        self.decl.name
    }
}

impl Declared<i64> {
    pub const fn spin(
        name: &'static str,
        default: i64,
        min: i64,
        max: i64,
        help: &'static str,
    ) -> Self {
        // GUIs such as Cute Chess read spin bounds as 32-bit integers; a wider bound would
        // reach them as garbage, so it does not compile.
        assert!(
            min >= i32::MIN as i64 && max <= i32::MAX as i64 && min <= default && default <= max
        );
        Self::with(name, OptionKind::Spin { default, min, max }, help)
    }
}

impl Declared<bool> {
    pub const fn check(name: &'static str, default: bool, help: &'static str) -> Self {
        Self::with(name, OptionKind::Check { default }, help)
    }
}

impl Declared<f64> {
    pub const fn float(
        name: &'static str,
        default: f64,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Self {
        Self::with(name, OptionKind::Float { default, min, max }, help)
    }
}

impl Declared<&'static str> {
    pub const fn combo(
        name: &'static str,
        default: &'static str,
        vars: &'static [&'static str],
        help: &'static str,
    ) -> Self {
        Self::with(name, OptionKind::Combo { default, vars }, help)
    }
}

impl Declared<String> {
    pub const fn string(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::with(name, OptionKind::String { default }, help)
    }
}

impl Declared<()> {
    pub const fn button(name: &'static str, help: &'static str) -> Self {
        Self::with(name, OptionKind::Button, help)
    }
}

/// The value types options hold.
pub trait OptionType: Sized + Default {
    /// The value if `v` is of this type.
    fn read(v: &OptionValue) -> Option<Self>;
}

impl OptionType for i64 {
    fn read(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Spin(n) => Some(*n),
            _ => None,
        }
    }
}

impl OptionType for bool {
    fn read(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Check(b) => Some(*b),
            _ => None,
        }
    }
}

impl OptionType for f64 {
    fn read(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Float(x) => Some(*x),
            _ => None,
        }
    }
}

impl OptionType for &'static str {
    fn read(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::Combo(s) => Some(s),
            _ => None,
        }
    }
}

impl OptionType for String {
    fn read(v: &OptionValue) -> Option<Self> {
        match v {
            OptionValue::String(s) => Some(s.clone()),
            _ => None,
        }
    }
}

impl OptionType for () {
    fn read(_: &OptionValue) -> Option<Self> {
        Some(())
    }
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

    /// The current value of an option, by name.
    pub fn value(&self, name: &str) -> Option<&OptionValue> {
        self.index(name).map(|i| &self.values[i])
    }

    /// The current value of a declared option; its default when this set of options does
    /// not hold it (a backend's option read through another backend's engine).
    pub fn get<T: OptionType>(&self, option: &Declared<T>) -> T {
        // A declaration's default always reads back as its own type (the constructors
        // pair them), so the last fallback is never taken.
        self.value(option.name())
            .and_then(T::read)
            .or_else(|| T::read(&option.decl.default_value()))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static HASH: Declared<i64> = Declared::spin("Hash", 16, 1, 1024, "");
    static SEARCH: Declared<&str> = Declared::combo("Search", "pvs", &["pvs", "alphabeta"], "");
    static PONDER: Declared<bool> = Declared::check("Ponder", false, "");
    static UNLISTED: Declared<f64> = Declared::float("Unlisted", 0.5, 0.0, 1.0, "");

    fn options() -> Options {
        Options::new(vec![
            HASH.decl.clone(),
            SEARCH.decl.clone(),
            PONDER.decl.clone(),
        ])
    }

    #[test]
    fn names_and_combo_values_are_case_insensitive() {
        let mut o = options();
        let (decl, v) = o.validate("search", Some("AlphaBeta")).unwrap();
        assert_eq!(decl.name, "Search");
        o.set("search", v);
        assert_eq!(o.get(&SEARCH), "alphabeta");
        assert!(!o.get(&PONDER));
        // An option this set does not hold reads as its declared default.
        assert_eq!(o.get(&UNLISTED), 0.5);
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
        assert_eq!(o.get(&HASH), 16);
    }
}
