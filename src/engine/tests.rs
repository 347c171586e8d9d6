//! The search thread's lifecycle with a scripted backend: what is answered when, and what
//! reaches the backend while it is away.

use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use shakmaty::CastlingMode;

use super::*;
use crate::board::Position;
use crate::search::info::Silent;

/// Plays the first legal move at once and writes down what the engine asked of it.
struct Scripted {
    log: Arc<Mutex<Vec<String>>>,
}

impl Scripted {
    fn engine() -> (Engine, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let backend = Scripted {
            log: Arc::clone(&log),
        };
        let engine = Engine::with_backend(Box::new(backend));
        log.lock().unwrap().clear();
        (engine, log)
    }

    fn note(&self, what: String) {
        self.log.lock().unwrap().push(what);
    }
}

impl Backend for Scripted {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        self.note("search".into());
        SearchResult {
            best: req.game.position().legal_moves().first().copied(),
            depth: 1,
            ..SearchResult::default()
        }
    }

    fn new_game(&mut self) {
        self.note("new_game".into());
    }

    fn between_searches(&mut self) {
        self.note("between_searches".into());
    }

    fn configure(&mut self, options: &Options) -> Result<(), ConfigError> {
        let hash = options.get(&HASH);
        self.note(format!("configure Hash={hash}"));
        // A value the backend cannot take, as a table too large for the memory.
        if hash == REFUSED_HASH {
            return Err(ConfigError(format!("Hash {hash} refused")));
        }
        Ok(())
    }
}

const REFUSED_HASH: i64 = 7;

const WAIT: Duration = Duration::from_secs(10);
const QUIET: Duration = Duration::from_millis(150);

/// Starts a search whose result arrives on the returned channel.
fn go(engine: &mut Engine, limits: Limits) -> Receiver<SearchResult> {
    let (tx, rx) = channel();
    let game = Game::new(Position::startpos());
    engine
        .go(game, limits, Box::new(Silent), move |_, result| {
            let _ = tx.send(result);
        })
        .unwrap();
    rx
}

fn infinite() -> Limits {
    Limits {
        infinite: true,
        ..Limits::default()
    }
}

#[test]
fn a_plain_go_answers_by_itself_and_the_next_go_is_taken_at_once() {
    let (mut engine, log) = Scripted::engine();
    for _ in 0..50 {
        let rx = go(&mut engine, Limits::depth(1));
        assert!(rx.recv_timeout(WAIT).unwrap().best.is_some());
        // The result was handed over: the engine is free, with no join needed first.
        assert!(!engine.is_searching());
    }
    engine.wait();
    let searches = log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| *l == "search")
        .count();
    assert_eq!(searches, 50);
}

#[test]
fn infinite_mode_holds_the_answer_until_stop_and_refuses_a_second_go() {
    let (mut engine, _) = Scripted::engine();
    let rx = go(&mut engine, infinite());
    assert!(rx.recv_timeout(QUIET).is_err(), "answered before stop");
    assert!(engine.is_searching());
    let game = Game::new(Position::startpos());
    let second = engine.go(game, Limits::depth(1), Box::new(Silent), |_, _| {});
    assert!(matches!(second, Err(EngineError::Busy)));
    engine.stop();
    assert!(rx.recv_timeout(WAIT).is_ok());
    engine.wait();
    assert!(!engine.is_searching());
}

/// Searches until told to stop, then takes a while to wind down, as a deep search does.
struct Lingering;

impl Backend for Lingering {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        if req.limits.infinite {
            while !req.control.stopped() {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        SearchResult {
            best: req.game.position().legal_moves().first().copied(),
            depth: 1,
            ..SearchResult::default()
        }
    }
}

#[test]
fn a_go_right_after_stop_waits_for_the_stopped_search() {
    let mut engine = Engine::with_backend(Box::new(Lingering));
    let first = go(&mut engine, infinite());
    engine.stop();
    // The stopped search is still winding down; the new one starts after it answered.
    let second = go(&mut engine, Limits::depth(1));
    assert!(
        first.try_recv().is_ok(),
        "the stopped search did not answer first"
    );
    assert!(second.recv_timeout(WAIT).is_ok());
    engine.wait();
    assert!(!engine.is_searching());
}

#[test]
fn pondering_holds_the_answer_until_ponderhit() {
    let (mut engine, _) = Scripted::engine();
    let limits = Limits {
        ponder: true,
        wtime: Some(Duration::from_secs(60)),
        ..Limits::default()
    };
    let rx = go(&mut engine, limits);
    assert!(rx.recv_timeout(QUIET).is_err(), "answered while pondering");
    engine.ponderhit();
    assert!(rx.recv_timeout(WAIT).is_ok());
}

#[test]
fn new_game_and_options_sent_during_a_search_reach_the_backend_after_it() {
    let (mut engine, log) = Scripted::engine();
    let rx = go(&mut engine, infinite());
    engine.new_game();
    engine.set_option("Hash", Some("2")).unwrap();
    assert_eq!(engine.options().get(&HASH), 2);
    let seen = log.lock().unwrap().clone();
    assert!(seen.iter().all(|l| l == "search"), "{seen:?}");
    engine.stop();
    rx.recv_timeout(WAIT).unwrap();
    engine.wait();
    assert_eq!(
        *log.lock().unwrap(),
        ["search", "between_searches", "configure Hash=2", "new_game"]
    );
    // With the backend home, an option reaches it at once.
    engine.set_option("Hash", Some("3")).unwrap();
    assert_eq!(log.lock().unwrap().last().unwrap(), "configure Hash=3");
}

#[test]
fn a_new_game_after_the_answer_reaches_the_backend_at_once() {
    let (mut engine, log) = Scripted::engine();
    for _ in 0..20 {
        let rx = go(&mut engine, Limits::depth(1));
        rx.recv_timeout(WAIT).unwrap();
        // Its thread may still hold the backend (`between_searches`), but the search has
        // answered: the backend forgets the game now, not at the next `go`.
        engine.new_game();
        assert_eq!(log.lock().unwrap().last().unwrap(), "new_game");
    }
}

#[test]
fn the_backend_hears_between_searches_after_the_answer() {
    let (mut engine, log) = Scripted::engine();
    let rx = go(&mut engine, Limits::depth(1));
    rx.recv_timeout(WAIT).unwrap();
    engine.wait();
    assert_eq!(*log.lock().unwrap(), ["search", "between_searches"]);
}

#[test]
fn an_option_set_after_the_answer_reaches_the_backend_at_once() {
    let (mut engine, log) = Scripted::engine();
    for hash in [3, 4] {
        let rx = go(&mut engine, Limits::depth(1));
        rx.recv_timeout(WAIT).unwrap();
        // The search thread may not have ended yet, but it has answered: the option is
        // applied now, and a value the backend refuses is refused to the caller.
        assert!(engine.set_option("Hash", Some("7")).is_err());
        engine.set_option("Hash", Some(&hash.to_string())).unwrap();
        assert_eq!(
            log.lock().unwrap().last().unwrap(),
            &format!("configure Hash={hash}")
        );
    }
    assert_eq!(engine.options().get(&HASH), 4);
    assert_eq!(engine.take_deferred_error(), None);
}

#[test]
fn options_the_backend_refuses_after_a_search_are_put_back_and_reported_once() {
    let (mut engine, log) = Scripted::engine();
    let rx = go(&mut engine, infinite());
    engine.set_option("Hash", Some("7")).unwrap();
    engine.set_option("Threads", Some("2")).unwrap();
    engine.set_option("Hash", Some("7")).unwrap();
    engine.stop();
    rx.recv_timeout(WAIT).unwrap();
    engine.wait();
    // Both options return to the values the search started with, which the backend holds.
    assert_eq!(engine.options().get(&HASH), 16);
    assert_eq!(engine.options().get(&THREADS), 1);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "search",
            "between_searches",
            "configure Hash=7",
            "configure Hash=16"
        ]
    );
    let error = engine
        .take_deferred_error()
        .expect("the refusal is reported");
    assert!(
        error.contains("Hash 7 refused") && error.contains("(Hash, Threads)"),
        "{error}"
    );
    assert_eq!(engine.take_deferred_error(), None);
}

#[test]
fn a_root_without_a_legal_move_is_answered_by_the_rules_not_the_backend() {
    let (mut engine, log) = Scripted::engine();
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let game = Game::new(Position::from_fen(mated, CastlingMode::Standard).unwrap());
    let result = engine.search(&game, &Limits::depth(3), &Silent);
    assert_eq!(result.best, None);
    assert_eq!(result.value, crate::value::mated_in(0));
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    let game = Game::new(Position::from_fen(stalemate, CastlingMode::Standard).unwrap());
    assert_eq!(engine.search(&game, &Limits::depth(3), &Silent).value, 0);
    assert!(log.lock().unwrap().is_empty());
}

#[test]
fn a_bad_option_changes_nothing() {
    let (mut engine, log) = Scripted::engine();
    assert!(engine.set_option("Hash", Some("0")).is_err());
    assert!(engine.set_option("Nope", Some("1")).is_err());
    assert_eq!(engine.options().get(&HASH), 16);
    assert!(log.lock().unwrap().is_empty());
    engine.set_option("Search", Some("alphabeta")).unwrap();
    assert_eq!(engine.options().get(&SEARCH), "alphabeta");
}

#[test]
fn the_strength_levels_search_with_the_evaluator_they_were_calibrated_with() {
    let (mut engine, _) = Scripted::engine();
    // A position where `nnue` and `classical` disagree (the net corrects the latter).
    let pos = Position::from_fen(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        CastlingMode::Standard,
    )
    .unwrap();
    let classical = crate::board::eval::Classical.evaluate(pos.chess());
    let played = |engine: &Engine| engine.search_eval().evaluate(pos.chess());
    assert_eq!(engine.options().get(&EVAL), "nnue");
    assert_ne!(played(&engine), classical, "nnue is the default");
    engine
        .set_option("UCI_LimitStrength", Some("true"))
        .unwrap();
    assert_eq!(played(&engine), classical);
    engine
        .set_option("UCI_LimitStrength", Some("false"))
        .unwrap();
    assert_ne!(played(&engine), classical);
}

#[test]
fn a_search_that_panics_still_answers_and_the_next_go_gets_a_fresh_backend() {
    use crate::search::testing::Broken;
    let mut engine = Engine::with_backend(Box::new(Broken));
    let answer = go(&mut engine, Limits::depth(1))
        .recv_timeout(WAIT)
        .expect("a panicking search left the GUI without a bestmove");
    let start = Position::startpos();
    assert!(
        answer
            .best
            .is_some_and(|m| start.legal_moves().contains(&m))
    );
    engine.wait();
    assert!(!engine.is_searching());
    // The broken backend went down with its thread; the selected one (pvs) replaces it.
    let next = go(&mut engine, Limits::depth(2))
        .recv_timeout(WAIT)
        .unwrap();
    assert_eq!(next.depth, 2);
}
