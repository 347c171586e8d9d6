//! What limits a player's moves in a match: a clock (`moves/base+inc`), a fixed time per
//! move, a node or depth budget, in any mix.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::spec::{EngineSpec, SpecError};

/// A clock: `moves/base+inc` (seconds), `base+inc`, or `base`; the base may be written
/// `minutes:seconds` as cutechess-cli allows (`40/2:30+1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Moves per period (the clock gets `base` again after each period).
    pub moves: Option<u32>,
    pub base: Duration,
    pub inc: Duration,
}

/// Seconds as written in a time control or `st=`.
pub fn seconds(text: &str) -> Result<Duration, SpecError> {
    let s: f64 = text
        .parse()
        .map_err(|_| SpecError::Limit(format!("'{text}' is not a number of seconds")))?;
    if !(0.0..1e7).contains(&s) {
        return Err(SpecError::Limit(format!("'{text}' seconds out of range")));
    }
    Ok(Duration::from_secs_f64(s))
}

/// A clock's base time: seconds, or `minutes:seconds`.
fn base_time(text: &str) -> Result<Duration, SpecError> {
    let Some((minutes, secs)) = text.split_once(':') else {
        return seconds(text);
    };
    let minutes: u32 = minutes.parse().map_err(|_| {
        SpecError::Limit(format!("'{text}': '{minutes}' is not a number of minutes"))
    })?;
    seconds(secs)?
        .checked_add(Duration::from_secs(u64::from(minutes) * 60))
        .filter(|d| d.as_secs_f64() < 1e7)
        .ok_or_else(|| SpecError::Limit(format!("'{text}' out of range")))
}

impl FromStr for TimeControl {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, SpecError> {
        let bad = |what: &str| SpecError::Limit(format!("{what} in '{text}'"));
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (
                Some(
                    m.parse::<u32>()
                        .ok()
                        .filter(|&m| m > 0)
                        .ok_or_else(|| bad("bad moves per period"))?,
                ),
                rest,
            ),
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (base_time(b)?, seconds(i)?),
            None => (base_time(rest)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(SpecError::Limit(format!(
                "'{text}': the base time must be positive"
            )));
        }
        Ok(TimeControl { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.inc.is_zero() {
            write!(f, "+{}", self.inc.as_secs_f64())?;
        }
        Ok(())
    }
}

/// What limits a player's moves: a clock, a fixed time per move, nodes, depth (any mix).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerLimits {
    pub tc: Option<TimeControl>,
    pub st: Option<Duration>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
}

impl PlayerLimits {
    /// The limits a spec's `tc=`, `st=`, `nodes=`, `depth=` fields give; without any of
    /// them, the global time control.
    pub fn from_spec(spec: &EngineSpec, global: Option<TimeControl>) -> Result<Self, SpecError> {
        let mut limits = PlayerLimits {
            tc: spec.field("tc").map(str::parse).transpose()?,
            st: spec.field("st").map(seconds).transpose()?,
            nodes: number(spec, "nodes")?,
            depth: number(spec, "depth")?,
        };
        if limits == PlayerLimits::default() {
            limits.tc = global;
        }
        if limits == PlayerLimits::default() {
            return Err(SpecError::Limit(format!(
                "{}: no limit (give --tc, or tc=, st=, nodes=, depth= in the spec)",
                spec.name
            )));
        }
        Ok(limits)
    }

    /// How the PGN's TimeControl tag shows the limits.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(tc.to_string());
        }
        if let Some(st) = self.st {
            parts.push(format!("st={}", st.as_secs_f64()));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        parts.join(" ")
    }
}

/// A `key=N` field of a spec.
fn number<T: FromStr>(spec: &EngineSpec, key: &str) -> Result<Option<T>, SpecError> {
    spec.field(key)
        .map(|v| {
            v.parse()
                .map_err(|_| SpecError::Limit(format!("bad {key}={v}")))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print() {
        let tc: TimeControl = "40/60+0.6".parse().unwrap();
        assert_eq!(tc.moves, Some(40));
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.inc, Duration::from_millis(600));
        assert_eq!(tc.to_string(), "40/60+0.6");
        assert_eq!(
            "5+0.05".parse::<TimeControl>().unwrap().to_string(),
            "5+0.05"
        );
        assert_eq!("10".parse::<TimeControl>().unwrap().to_string(), "10");
        assert!("0+1".parse::<TimeControl>().is_err());
        assert!("x/5".parse::<TimeControl>().is_err());
        // cutechess-cli's minutes:seconds.
        let tc: TimeControl = "40/2:30+1".parse().unwrap();
        assert_eq!((tc.moves, tc.base), (Some(40), Duration::from_secs(150)));
        assert_eq!(tc.to_string(), "40/150+1");
        assert_eq!(
            "0:05".parse::<TimeControl>().unwrap().base,
            Duration::from_secs(5)
        );
        assert!("0:00+1".parse::<TimeControl>().is_err());
        assert!("m:30".parse::<TimeControl>().is_err());
        assert!("1:x".parse::<TimeControl>().is_err());
    }

    #[test]
    fn spec_limits_override_the_global_clock() {
        let global = Some("5+0.05".parse().unwrap());
        let spec = EngineSpec::parse("pvs nodes=2000").unwrap();
        let l = PlayerLimits::from_spec(&spec, global).unwrap();
        assert_eq!((l.tc, l.nodes), (None, Some(2000)));
        let spec = EngineSpec::parse("pvs Hash=8").unwrap();
        assert_eq!(PlayerLimits::from_spec(&spec, global).unwrap().tc, global);
        assert!(PlayerLimits::from_spec(&spec, None).is_err());
        let spec = EngineSpec::parse("pvs st=0.5 depth=3").unwrap();
        let l = PlayerLimits::from_spec(&spec, global).unwrap();
        assert_eq!(l.describe(), "st=0.5 depth=3");
        let spec = EngineSpec::parse("pvs nodes=many").unwrap();
        assert!(PlayerLimits::from_spec(&spec, global).is_err());
    }
}
