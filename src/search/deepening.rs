//! Iterative deepening for the backends written against the game-tree interface: search
//! the chess view to depth 1, 2, 3, ... until a limit is reached, report after each
//! completed iteration, and keep the best move of the last completed one when stopped.

use std::time::Duration;

use shakmaty::Move;

use super::control::Poller;
use super::info::Info;
use super::{SearchRequest, SearchResult};
use crate::board::Position;
use crate::board::eval::Evaluator;
use crate::tree::{ChessTree, GameTree};
use crate::value::{Bound, MAX_PLY, Value};

/// Deepest iteration started.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 - 8;

/// What one completed fixed-depth search found.
pub struct Iteration {
    pub value: Value,
    /// Principal variation from the root; its first move is the move to play.
    pub pv: Vec<Move>,
    /// Permille of the backend's bound storage in use, if it has one.
    pub hashfull: Option<u32>,
}

/// The least an iteration is expected to grow on the one before it: a ratio measured on
/// two iterations too quick for the clock's resolution says little.
const MIN_GROWTH: u32 = 2;
/// The most: plain alpha-beta grows about six- to thirteen-fold a ply in the middlegame.
const MAX_GROWTH: u32 = 16;

/// Runs `search_depth` for depth 1, 2, ... on the chess view of the request's root. The
/// closure gets the tree, the depth, and a poll function to call with the tree's node
/// count (true means stop); it returns `None` when it stopped before finishing, and that
/// iteration is thrown away — so on the clock no iteration starts that the last two
/// iterations' growth says the hard limit would cut.
pub fn deepen<F>(req: &SearchRequest<'_>, mut search_depth: F) -> SearchResult
where
    F: FnMut(&mut ChessTree<'_>, i32, &mut dyn FnMut(u64) -> bool) -> Option<Iteration>,
{
    let root = req.game.position();
    let legal = root.legal_moves();
    let mut result = SearchResult::default();
    let mut tree = ChessTree::new(req.game, req.eval);
    tree.restrict_root(&req.limits.searchmoves);
    let mut poller = Poller::new(req.control, true);
    let max_depth = req
        .limits
        .depth
        .map_or(MAX_DEPTH, |d| d.clamp(1, MAX_DEPTH));
    let control = req.control;
    // How long the last two completed iterations took, the latest first.
    let mut took = [Duration::ZERO; 2];
    for depth in 1..=max_depth {
        let started = control.elapsed();
        let mut poll = |nodes: u64| poller.poll(nodes);
        let Some(iteration) = search_depth(&mut tree, depth as i32, &mut poll) else {
            break;
        };
        if iteration.pv.is_empty() {
            break;
        }
        poller.flush(tree.nodes());
        result.value = iteration.value;
        result.depth = depth;
        result.best = iteration.pv.first().copied();
        result.ponder = iteration.pv.get(1).copied();
        took = [control.elapsed().saturating_sub(started), took[0]];
        req.sink.info(&Info {
            depth,
            multipv: 1,
            seldepth: depth.max(iteration.pv.len() as u32),
            score: iteration.value,
            bound: Bound::Exact,
            nodes: control.nodes(),
            time: control.elapsed(),
            hashfull: iteration.hashfull,
            tbhits: None,
            pv: root.uci_line(&iteration.pv),
            wdl: None,
        });
        let mate_found = req.limits.mate_found(iteration.value);
        let forced = req.limits.answers_at_once(legal.len());
        if mate_found
            || forced
            || control.soft_limit_reached()
            || control.stopped()
            || control.next_iteration_would_be_cut(expected_next(took))
        {
            break;
        }
    }
    poller.flush(tree.nodes());
    if result.best.is_none() {
        result.best = one_ply_choice(root, &legal, &req.limits.searchmoves, req.eval);
    }
    result.nodes = req.control.nodes();
    result.leaves = tree.leaves().count();
    result
}

/// The time the next iteration is expected to take, from the last two: the last one's
/// time grown by their ratio, within [`MIN_GROWTH`, `MAX_GROWTH`].
fn expected_next([last, before]: [Duration; 2]) -> Duration {
    let growth = match before.as_nanos() {
        0 => MIN_GROWTH,
        b => (last.as_nanos() / b).clamp(MIN_GROWTH.into(), MAX_GROWTH.into()) as u32,
    };
    last * growth
}

/// The move played when not even the first iteration completes (a budget of a few hundred
/// nodes where quiescence alone costs thousands): a move that mates at once, otherwise the
/// one the static evaluation likes best after it — never simply the first legal move,
/// which at `nodes=1000` once had a backend miss a mate in one five times in a game.
/// `pvs` falls back on it too, where a budget spent by other threads left its main thread
/// nothing.
pub fn one_ply_choice(
    root: &Position,
    legal: &[Move],
    searchmoves: &[Move],
    eval: &dyn Evaluator,
) -> Option<Move> {
    legal
        .iter()
        .copied()
        .filter(|m| searchmoves.is_empty() || searchmoves.contains(m))
        .max_by_key(|&m| {
            let after = root.play(m);
            match after.legal_moves().is_empty() {
                true if after.is_check() => i32::MAX,
                true => 0,
                false => -eval.evaluate(after.chess()),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_next_iteration_grows_as_the_last_two_did_within_bounds() {
        assert_eq!(expected_next([ms(60), ms(10)]), ms(360));
        // Too little to go on, or a shrinking tree: at least twice the last.
        assert_eq!(expected_next([ms(10), Duration::ZERO]), ms(20));
        assert_eq!(expected_next([ms(10), ms(10)]), ms(20));
        // A jump out of the clock's noise: at most sixteenfold.
        assert_eq!(expected_next([ms(1000), ms(1)]), ms(16_000));
    }
}
