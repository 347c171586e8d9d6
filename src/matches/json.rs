//! The match as JSON for scripts (`searchlight match --json FILE`): the same numbers the
//! tables print — per pairing W-D-L, score, Elo and normalized Elo with their 95%
//! intervals, LOS, pentanomial counts — plus the players, the SPRT's state, the
//! terminations, the ratings of a round robin and one entry per finished game.

use serde_json::{Value, json};

use super::stats::{Estimate, Tally, bradley_terry};
use super::{Finished, pgn, standings::Standings};

/// What the match was, beside its results.
pub struct MatchInfo<'a> {
    pub event: &'a str,
    pub variant: &'a str,
    pub openings: &'a str,
    pub players: Vec<(String, String)>,
    pub scheduled: usize,
    pub seconds: f64,
    pub interrupted: bool,
}

/// One finished game, as the JSON lists it.
#[derive(Debug, Clone)]
pub struct GameEntry {
    pub round: String,
    pub white: String,
    pub black: String,
    pub result: &'static str,
    pub termination: &'static str,
    pub detail: String,
    pub plies: usize,
    pub opening: String,
}

impl GameEntry {
    pub fn of(f: &Finished) -> Self {
        let r = &f.record;
        GameEntry {
            round: r.round.clone(),
            white: r.white.clone(),
            black: r.black.clone(),
            result: pgn::result_token(r.outcome),
            termination: r.termination.pgn_value(),
            detail: r.termination.to_string(),
            plies: r.moves.len(),
            opening: r.start.fen(),
        }
    }
}

/// An estimate as `{elo, low, high, margin}`; null where the table prints ±inf (a sweep
/// has no finite estimate).
fn estimate(e: Estimate, finite: bool) -> Value {
    if finite {
        json!({"elo": e.elo, "low": e.low, "high": e.high, "margin": e.margin()})
    } else {
        Value::Null
    }
}

fn pairing(t: &Tally, first: &str, second: &str) -> Value {
    let sweep = t.games() > 0 && (t.wins == t.games() || t.losses == t.games());
    let nelo = t.nelo();
    json!({
        "first": first,
        "second": second,
        "games": t.games(),
        "wins": t.wins,
        "draws": t.draws,
        "losses": t.losses,
        "score": t.score(),
        "elo": estimate(t.elo(), !sweep),
        "nelo": estimate(nelo, nelo != Estimate::default()),
        "los": t.los(),
        "pentanomial": t.penta,
    })
}

/// The whole match.
pub fn render(info: &MatchInfo, st: &Standings, names: &[String], games: &[GameEntry]) -> Value {
    let pairings: Vec<Value> = st
        .pairings
        .iter()
        .zip(&st.tallies)
        .map(|(&(a, b), t)| pairing(t, &names[a], &names[b]))
        .collect();
    let sprt = st.sprt().map(|s| {
        let (lower, upper) = s.bounds();
        json!({
            "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
            "model": s.model.name(),
            "llr": st.tallies[0].llr(s.model, s.elo0, s.elo1),
            "lower": lower, "upper": upper,
            "decision": st.decision.map(|d| json!({
                "accepted": if d.h1 { "H1" } else { "H0" },
                "elo": d.elo, "game": d.game, "llr": d.llr,
            })),
        })
    });
    let ratings = (names.len() > 2).then(|| {
        let elo = bradley_terry(&st.points, &st.games, 1.0);
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let (games, points) = st.totals(i);
                json!({"player": name, "games": games, "points": points, "elo": elo[i]})
            })
            .collect::<Vec<_>>()
    });
    json!({
        "event": info.event,
        "variant": info.variant,
        "openings": info.openings,
        "players": info.players.iter().map(|(name, limits)| json!({"name": name, "limits": limits})).collect::<Vec<_>>(),
        "scheduled": info.scheduled,
        "finished": st.done,
        "interrupted": info.interrupted,
        "seconds": info.seconds,
        "pairings": pairings,
        "terminations": st.terminations,
        "repeated_games": st.repeated,
        "sprt": sprt,
        "ratings": ratings,
        "games": games.iter().map(|g| json!({
            "round": g.round, "white": g.white, "black": g.black, "result": g.result,
            "termination": g.termination, "detail": g.detail, "plies": g.plies,
            "opening": g.opening,
        })).collect::<Vec<_>>(),
    })
}

/// Writes the JSON to `path` whole or not at all (a temporary file renamed over it), so a
/// reader never sees half a file, even after a second Ctrl-C.
pub fn write(path: &str, value: &Value) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, text + "\n")?;
    std::fs::rename(&tmp, path)
}
