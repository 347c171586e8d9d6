//! UCI input as a pure function from a line to a typed [`Command`]. Nothing here touches
//! engine state; a line either parses completely or is rejected with a reason naming the
//! offending token.

use std::time::Duration;

use thiserror::Error;

use crate::search::Limits;

/// Where a `position` command starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// A parsed `go`: the limits, and `searchmoves` as text (legality depends on the position).
/// A `go` is never rejected as a whole — the GUI waits for its `bestmove` — so what could
/// not be read is kept in `errors` and the rest is searched.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Go {
    pub limits: Limits,
    pub searchmoves: Vec<String>,
    pub errors: Vec<UciError>,
}

/// One line of GUI input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    Position {
        start: Start,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    /// `go perft N` (outside the protocol, as in Stockfish): move-path counts.
    Perft(u32),
    /// `d`: the board, its FEN, key and checkers.
    Display,
    /// `eval`: the evaluator's terms for the current position.
    Eval,
    /// `register ...`: the engine needs no registration, so there is nothing to do.
    Register,
    /// A blank line: nothing to do.
    Empty,
}

/// Why a line was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UciError {
    #[error("position: expected 'startpos' or 'fen', found {0}")]
    PositionStart(String),
    #[error("position: unexpected '{0}' (expected 'moves')")]
    PositionTrailing(String),
    #[error("position fen: missing FEN")]
    MissingFen,
    #[error("go: missing value for '{0}'")]
    MissingValue(&'static str),
    #[error("go: invalid value '{value}' for '{token}'")]
    InvalidValue { token: &'static str, value: String },
    #[error("go: unknown token '{0}'")]
    UnknownGoToken(String),
    #[error("setoption: expected 'name'")]
    SetOptionName,
    #[error("debug: expected 'on' or 'off', found {0}")]
    Debug(String),
    /// The line holds none of [`COMMANDS`]; like any other it is then ignored, but said so.
    #[error("unknown command '{0}' (known: {known})", known = COMMANDS.join(", "))]
    UnknownCommand(String),
}

const COMMANDS: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "register",
    "d",
    "eval",
];

/// Parses one input line. Leading unknown tokens are skipped, as the UCI specification
/// asks ("joho debug on" is "debug on").
pub fn parse(line: &str) -> Result<Command, UciError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.is_empty() {
        return Ok(Command::Empty);
    }
    let Some(start) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        return Err(UciError::UnknownCommand(clip(line.trim())));
    };
    let args = &tokens[start + 1..];
    Ok(match tokens[start] {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "register" => Command::Register,
        "debug" => match args.first() {
            Some(&"on") => Command::Debug(true),
            Some(&"off") => Command::Debug(false),
            other => return Err(UciError::Debug(describe(other.copied()))),
        },
        "setoption" => parse_setoption(args)?,
        "position" => parse_position(args)?,
        "go" if args.first() == Some(&"perft") => {
            Command::Perft(number::<u32>(args.get(1), "perft")?.max(1))
        }
        "go" => Command::Go(parse_go(args)),
        "d" => Command::Display,
        "eval" => Command::Eval,
        _ => return Err(UciError::UnknownCommand(clip(line.trim()))),
    })
}

/// The part of an input token an error quotes: its first 40 characters, however long the
/// line (the output makes it printable).
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

fn describe(token: Option<&str>) -> String {
    match token {
        Some(t) => format!("'{}'", clip(t)),
        None => "nothing".to_string(),
    }
}

/// `setoption name <id...> [value <x...>]`: names and values may contain spaces.
fn parse_setoption(args: &[&str]) -> Result<Command, UciError> {
    if args.first() != Some(&"name") || args.len() < 2 {
        return Err(UciError::SetOptionName);
    }
    let rest = &args[1..];
    let (name, value) = match rest.iter().position(|&t| t == "value") {
        Some(i) => (&rest[..i], Some(rest[i + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(UciError::SetOptionName);
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

/// `position startpos|fen <fen> [moves <m>...]`.
fn parse_position(args: &[&str]) -> Result<Command, UciError> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let head = &args[..moves_at.unwrap_or(args.len())];
    let moves = moves_at.map_or_else(Vec::new, |i| {
        args[i + 1..].iter().map(|m| m.to_string()).collect()
    });
    let start = match head.first() {
        Some(&"startpos") => {
            if let Some(extra) = head.get(1) {
                return Err(UciError::PositionTrailing(clip(extra)));
            }
            Start::StartPos
        }
        Some(&"fen") => {
            if head.len() < 2 {
                return Err(UciError::MissingFen);
            }
            Start::Fen(head[1..].join(" "))
        }
        other => return Err(UciError::PositionStart(describe(other.copied()))),
    };
    Ok(Command::Position { start, moves })
}

/// `go` with any combination of limits; a token that cannot be read is recorded and skipped
/// (with its value, if it takes one).
fn parse_go(args: &[&str]) -> Go {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let token = args[i];
        i += 1;
        if let Err(e) = read_go_token(&mut go, token, args, &mut i) {
            go.errors.push(e);
        }
        if VALUED_GO_TOKENS.contains(&token) {
            i += 1;
        }
    }
    go
}

/// Reads one token of `go` (and, for `searchmoves`, the moves after it).
fn read_go_token(go: &mut Go, token: &str, args: &[&str], i: &mut usize) -> Result<(), UciError> {
    let limits = &mut go.limits;
    let value = args.get(*i);
    match token {
        "infinite" => limits.infinite = true,
        "ponder" => limits.ponder = true,
        "searchmoves" => {
            let end = args[*i..]
                .iter()
                .position(|t| GO_TOKENS.contains(t))
                .map_or(args.len(), |p| *i + p);
            go.searchmoves = args[*i..end].iter().map(|m| m.to_string()).collect();
            *i = end;
        }
        "wtime" => limits.wtime = Some(millis(value, "wtime")?),
        "btime" => limits.btime = Some(millis(value, "btime")?),
        "winc" => limits.winc = Some(millis(value, "winc")?),
        "binc" => limits.binc = Some(millis(value, "binc")?),
        "movetime" => limits.movetime = Some(millis(value, "movetime")?),
        "movestogo" => {
            let n: u32 = number(value, "movestogo")?;
            // 0 would mean "this move ends the period": treat as sudden death.
            limits.movestogo = (n > 0).then_some(n);
        }
        "depth" => limits.depth = Some(number::<u32>(value, "depth")?.max(1)),
        "nodes" => limits.nodes = Some(number::<u64>(value, "nodes")?.max(1)),
        "mate" => limits.mate = Some(number::<u32>(value, "mate")?.max(1)),
        other => return Err(UciError::UnknownGoToken(clip(other))),
    }
    Ok(())
}

const VALUED_GO_TOKENS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movetime",
    "movestogo",
    "depth",
    "nodes",
    "mate",
];

const GO_TOKENS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movetime",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

fn number<T: std::str::FromStr>(value: Option<&&str>, token: &'static str) -> Result<T, UciError> {
    let v = value.ok_or(UciError::MissingValue(token))?;
    v.parse().map_err(|_| UciError::InvalidValue {
        token,
        value: clip(v),
    })
}

/// A time in milliseconds. Negative clocks (some GUIs send them once a flag has fallen)
/// count as zero.
fn millis(value: Option<&&str>, token: &'static str) -> Result<Duration, UciError> {
    let ms: i64 = number(value, token)?;
    Ok(Duration::from_millis(ms.max(0) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Ok(Command::Uci));
        assert_eq!(parse("  isready \t"), Ok(Command::IsReady));
        assert_eq!(parse(""), Ok(Command::Empty));
        assert_eq!(parse("joho debug on"), Ok(Command::Debug(true)));
        assert_eq!(
            parse("xyzzy"),
            Err(UciError::UnknownCommand("xyzzy".into()))
        );
        assert_eq!(
            parse(&"x".repeat(100)),
            Err(UciError::UnknownCommand("x".repeat(40)))
        );
        assert_eq!(parse("register later"), Ok(Command::Register));
    }

    #[test]
    fn setoption_names_and_values_with_spaces() {
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(parse("setoption value 3"), Err(UciError::SetOptionName));
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Ok(Command::Position {
                start: Start::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
        let fen = "8/8/8/8/8/8/8/K6k w - - 0 1";
        assert_eq!(
            parse(&format!("position fen {fen}")),
            Ok(Command::Position {
                start: Start::Fen(fen.into()),
                moves: vec![]
            })
        );
        assert_eq!(parse("position fen"), Err(UciError::MissingFen));
        assert!(parse("position banana").is_err());
        assert!(parse("position").is_err());
    }

    #[test]
    fn go_combines_limits() {
        let Ok(Command::Go(go)) =
            parse("go wtime 1000 btime -5 winc 10 binc 10 movestogo 5 depth 7 nodes 99")
        else {
            panic!("go did not parse");
        };
        let l = go.limits;
        assert_eq!(l.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(l.btime, Some(Duration::ZERO));
        assert_eq!(
            (l.depth, l.nodes, l.movestogo),
            (Some(7), Some(99), Some(5))
        );
        let Ok(Command::Go(go)) = parse("go infinite searchmoves e2e4 d2d4 ponder") else {
            panic!("go did not parse");
        };
        assert!(go.limits.infinite && go.limits.ponder);
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn bad_go_values_are_errors() {
        let errors = |line: &str| match parse(line) {
            Ok(Command::Go(go)) => (go.limits, go.errors),
            other => panic!("{line}: {other:?}"),
        };
        let (limits, e) = errors("go depth abc nodes 50");
        assert_eq!(
            e,
            vec![UciError::InvalidValue {
                token: "depth",
                value: "abc".into()
            }]
        );
        assert_eq!((limits.depth, limits.nodes), (None, Some(50)));
        assert_eq!(
            errors("go movetime").1,
            vec![UciError::MissingValue("movetime")]
        );
        let (limits, e) = errors("go sideways depth 3");
        assert_eq!(e, vec![UciError::UnknownGoToken("sideways".into())]);
        assert_eq!(limits.depth, Some(3));
    }

    #[test]
    fn debug_commands() {
        assert_eq!(parse("go perft 5"), Ok(Command::Perft(5)));
        assert_eq!(parse("go perft"), Err(UciError::MissingValue("perft")));
        assert_eq!(parse("d"), Ok(Command::Display));
        assert_eq!(parse("eval"), Ok(Command::Eval));
    }

    #[test]
    fn garbage_never_panics() {
        for line in [
            "\u{0}\u{1}\u{fffd}",
            "go go go",
            "position fen moves",
            "setoption name",
        ] {
            let _ = parse(line);
        }
        let long = "position startpos moves ".to_string() + &"e2e4 ".repeat(200_000);
        assert!(parse(&long).is_ok());
    }
}
