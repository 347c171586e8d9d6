//! The shell shared by the backends that keep bounds in a table (MT drivers, rollouts,
//! FSSS): a table sized by `Hash`, iterative deepening on the chess view, the root's
//! children pinned so the move to play survives a full table, a one-time warning when
//! the table overflows, and the principal variation read back from the stored bounds.

use shakmaty::Move;

use super::bounds::{BoundStore, BoundTable, Bounds, load, load_key};
use crate::search::deepening::{Iteration, deepen};
use crate::search::{SearchRequest, SearchResult};
use crate::tree::{ChessNode, ChessTree, Expansion, GameTree};
use crate::value::Value;

/// What one completed fixed-depth solve found.
pub struct Solved {
    pub value: Value,
    /// The root move that proved the value, if the algorithm knows it; otherwise the
    /// table is asked.
    pub best: Option<Move>,
}

/// A table backend's table: made at the size `Hash` asks for, and empty at the start of
/// every search (a new root makes old entries of little use, and a clean table keeps runs
/// reproducible). Emptying it is a pass over megabytes (about a millisecond for 16 MB
/// here, more than such a search's move at depth 1), so it is done after the search's
/// `bestmove`, off the clock ([`TableSlot::tidy`], from the backend's
/// `between_searches`); a search that finds it not done does it first.
#[derive(Default)]
pub struct TableSlot {
    table: Option<BoundTable>,
    /// Nothing was stored since the table was made or last emptied.
    clean: bool,
}

impl TableSlot {
    /// The table for the next search: the size `Hash` asks for, and empty.
    fn for_search(&mut self, req: &SearchRequest<'_>) -> &mut BoundTable {
        let mb = crate::search::hash_mb(req.options);
        if self.table.as_ref().is_some_and(|t| t.megabytes() != mb) {
            // Gone before its successor is made: the two need not fit in memory at once.
            self.table = None;
        }
        self.tidy();
        self.clean = false;
        self.table.get_or_insert_with(|| BoundTable::new(mb))
    }

    /// Empties the table if a search has written to it since it was last emptied.
    pub fn tidy(&mut self) {
        if !self.clean
            && let Some(t) = &mut self.table
        {
            t.clear();
        }
        self.clean = true;
    }
}

/// Iterative deepening for a table backend: `solve` gets the table, the tree, the root at
/// the iteration's depth and the poll function, and returns `None` when stopped.
pub fn deepen_with_table<F>(
    slot: &mut TableSlot,
    req: &SearchRequest<'_>,
    mut solve: F,
) -> SearchResult
where
    F: FnMut(
        &mut BoundTable,
        &mut ChessTree<'_>,
        &ChessNode,
        &mut dyn FnMut(u64) -> bool,
    ) -> Option<Solved>,
{
    let table = slot.for_search(req);
    let mut warned = false;
    deepen(req, |tree, depth, poll| {
        let root = tree.root(depth);
        pin_root_children(table, tree, &root);
        let solved = solve(table, tree, &root, poll);
        // Said even when the iteration was cut short: a full table may be why.
        warn_if_full(table, req, &mut warned);
        let solved = solved?;
        let best = solved
            .best
            .or_else(|| best_root_child(table, tree, &root))?;
        Some(Iteration {
            value: solved.value,
            pv: stored_pv(tree, table, &root, best, depth as usize),
            hashfull: Some(table.permille()),
        })
    })
}

/// Pins the bounds of the root's children, so the move to play survives a full table.
fn pin_root_children(table: &mut BoundTable, tree: &mut ChessTree<'_>, root: &ChessNode) {
    let keys: Vec<u64> = root
        .pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let child = tree.play(root, m);
            tree.key(&child)
        })
        .collect();
    table.pin(&keys);
}

/// The root move with the best proven value in the table (leftmost in the tree's order).
fn best_root_child(
    table: &BoundTable,
    tree: &mut ChessTree<'_>,
    root: &ChessNode,
) -> Option<shakmaty::Move> {
    let mut moves = Vec::new();
    if !matches!(tree.expand(root, &mut moves), Expansion::Inner) {
        return None;
    }
    let mut best: Option<(Value, shakmaty::Move)> = None;
    for m in moves {
        let child = tree.play(root, m);
        let lo = load(table, tree, &child).negate().lo;
        if best.is_none_or(|(b, _)| lo > b) {
            best = Some((lo, m));
        }
    }
    best.map(|(_, m)| m)
}

/// Says once per search that the table overflows enough to matter: a share
/// (`OVERWRITTEN_PERCENT`) of the entries in use lost to overwriting. A four-way bucket
/// fills by chance long before the table does (at 3% in use, `rollout-uct` loses its
/// first entry), and there a lost entry costs one subtree's repeat, which no larger
/// `Hash` would save.
fn warn_if_full(table: &BoundTable, req: &SearchRequest<'_>, warned: &mut bool) {
    if !*warned && overflowing(table.overwritten(), table.used()) {
        *warned = true;
        req.sink.message(&format!(
            "bound storage full ({} MB, {}% in use, {} entries overwritten): values stay exact but work is repeated; raise Hash",
            table.megabytes().max(1),
            table.permille() / 10,
            table.overwritten()
        ));
    }
}

/// Entries lost, as a percentage of those in use, from which the table is reported full.
const OVERWRITTEN_PERCENT: u64 = 1;

fn overflowing(overwritten: u64, used: usize) -> bool {
    overwritten > 0 && overwritten * 100 >= OVERWRITTEN_PERCENT * used as u64
}

/// A principal variation read from stored bounds: from `first`, at each node the child whose
/// stored bounds prove the most for the side to move (largest lower bound, then largest
/// upper bound), leftmost on ties; ends where nothing is stored or at `len` moves.
pub fn stored_pv<T: GameTree, S: BoundStore + ?Sized>(
    tree: &mut T,
    store: &S,
    root: &T::Node,
    first: T::Move,
    len: usize,
) -> Vec<T::Move> {
    let mut pv = vec![first];
    let mut node = tree.play(root, first);
    let mut children = Vec::new();
    while pv.len() < len {
        if !matches!(tree.expand(&node, &mut children), Expansion::Inner) {
            break;
        }
        let ply = tree.ply(&node) + 1;
        let mut best: Option<(Bounds, T::Move)> = None;
        for &m in &children {
            let child = tree.play(&node, m);
            let Some(_) = store.get(tree.key(&child)) else {
                continue;
            };
            let b = load_key(store, tree.key(&child), ply).negate();
            if best.is_none_or(|(x, _)| (b.lo, b.hi) > (x.lo, x.hi)) {
                best = Some((b, m));
            }
        }
        let Some((_, m)) = best else { break };
        pv.push(m);
        node = tree.play(&node, m);
    }
    pv
}

#[cfg(test)]
mod tests {
    use shakmaty::CastlingMode;

    use super::overflowing;
    use crate::board::{Game, Position};
    use crate::search::research::fsss::FsssBackend;
    use crate::search::research::mt::{DriverKind, MtBackend};
    use crate::search::research::rollout::{Policy, RolloutBackend};
    use crate::search::testing::quick;
    use crate::search::{Backend, Limits};

    /// Every table backend starts each search from an empty table, whether the engine
    /// emptied it after the last search (`between_searches`) or not: the same root
    /// searched again repeats the first search node for node.
    #[test]
    fn every_search_starts_from_an_empty_table() {
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
        let game = Game::new(Position::from_fen(fen, CastlingMode::Standard).unwrap());
        let limits = Limits::depth(3);
        let mut backends: Vec<Box<dyn Backend>> = vec![Box::new(FsssBackend::default())];
        for kind in [
            DriverKind::F,
            DriverKind::Sss,
            DriverKind::Dual,
            DriverKind::Step,
        ] {
            backends.push(Box::new(MtBackend::new(kind)));
        }
        for policy in [Policy::Left, Policy::Sss, Policy::Random, Policy::Uct] {
            backends.push(Box::new(RolloutBackend::new(policy)));
        }
        let outcome = |backend: &mut Box<dyn Backend>| {
            let r = quick(backend.as_mut(), &game, &limits);
            (r.best, r.value, r.nodes, r.leaves)
        };
        for (i, backend) in backends.iter_mut().enumerate() {
            let first = outcome(backend);
            assert!(first.2 > 0, "backend {i}");
            assert_eq!(outcome(backend), first, "backend {i}: straight after");
            backend.between_searches();
            assert_eq!(outcome(backend), first, "backend {i}: after tidying");
        }
    }

    #[test]
    fn a_table_is_full_once_a_percent_of_its_entries_are_lost() {
        assert!(!overflowing(0, 0));
        assert!(!overflowing(0, 1000));
        // A bucket overflowing by chance in a table 3% in use (rollout-uct, depth 4).
        assert!(!overflowing(1, 27_000));
        assert!(!overflowing(269, 27_000));
        assert!(overflowing(270, 27_000));
        assert!(overflowing(1, 0));
    }
}
