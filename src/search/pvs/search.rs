//! One search thread of `pvs`: iterative deepening with aspiration windows at the root,
//! principal variation search below it. Only the main thread reports and decides when to
//! stop; helpers search the same tree and share what they find through the table.

use shakmaty::uci::UciMove;
use shakmaty::{Move, Square};

use super::ordering::{Context, Heuristics, MovePicker, NO_PIECE_TO, PieceTo, piece_to};
use super::params::*;
use super::threads::{Finished, Threads};
use super::tt::{Entry, PackedMove, TranspositionTable};
use crate::board::exchange::{is_tactical, see_ge};
use crate::board::game::is_search_repetition;
use crate::board::tablebase::{Outcome, Tablebases};
use crate::board::{Evaluator, Position, rules};
use crate::search::control::Poller;
use crate::search::deepening::one_ply_choice;
use crate::search::info::{Info, InfoSink};
use crate::search::{SearchRequest, SearchResult};
use crate::value::{
    Bound, INFINITY, MATE_BOUND, MAX_PLY, Value, from_table, is_mate, mate_in, mated_in, to_table,
};

/// Late-move reductions by depth and move number, `LMR_BASE + ln d · ln n / LMR_DIVISOR`
/// plies: worked out once per process, not per search (4,096 logarithms were a tenth of
/// a shallow search's fixed cost).
static LMR: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
    let mut lmr = [[0i32; 64]; 64];
    for (d, row) in lmr.iter_mut().enumerate().skip(1) {
        for (n, r) in row.iter_mut().enumerate().skip(1) {
            *r = (LMR_BASE + (d as f64).ln() * (n as f64).ln() / LMR_DIVISOR) as i32;
        }
    }
    lmr
});

/// How much deeper than the node an entry settled by the endgame tables is stored: no
/// search below it can do better, so nearly every later visit takes it.
const TABLEBASE_DEPTH: i32 = 6;

/// Deepest iteration the driver starts.
const MAX_DEPTH: i32 = (MAX_PLY as i32) - 8;

/// Show which root move is searched once an iteration has run this long.
const CURRMOVE_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// One root move's line at the last completed depth.
#[derive(Debug, Clone)]
pub(super) struct RootLine {
    pub value: Value,
    /// Principal variation; its first move is the root move.
    pub pv: Vec<Move>,
}

/// One search thread.
pub(super) struct Worker<'a> {
    id: usize,
    pub(super) tt: &'a TranspositionTable,
    threads: &'a Threads,
    eval: &'a dyn Evaluator,
    tablebases: Option<&'a Tablebases>,
    poller: Poller<'a>,
    sink: &'a dyn InfoSink,
    pub(super) heuristics: &'a mut Heuristics,
    root: Position,
    root_moves: Vec<Move>,
    /// Root lines per iteration (`MultiPV`, or the skill's), at most the root moves.
    multipv: usize,
    /// Root moves already taken by an earlier line of this iteration.
    excluded: Vec<Move>,
    lines: Vec<RootLine>,
    /// The best root line the running iteration has proven so far (line 1 only): a root
    /// move whose search completed above alpha. Played when the clock stops the
    /// iteration, since it beat the moves searched before it, the last best among them.
    unfinished: Option<RootLine>,
    /// Nodes this thread may search (a limited-strength search's budget).
    node_cap: u64,
    depth_limit: i32,
    limits: &'a crate::search::Limits,
    nodes: u64,
    seldepth: usize,
    pub(super) stopped: bool,
    /// Keys of the game so far, then of the current search path.
    keys: Vec<u64>,
    root_len: usize,
    /// Per ply: plies since the last null move (repetitions cannot cross one).
    since_null: [u32; MAX_PLY + 2],
    /// Static evaluation per ply (for "is the position improving?").
    evals: [Value; MAX_PLY + 2],
    /// Per ply: the move being searched from it, as the continuation histories index it.
    moved: [PieceTo; MAX_PLY + 2],
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// [`LMR`], dereferenced once here so the move loop reads a plain table.
    lmr: &'static [[i32; 64]; 64],
    /// Per ply: the table move a singular search leaves out (`NONE` outside one).
    singular_skip: [PackedMove; MAX_PLY + 2],
    /// Per ply: how many nodes of this ply failed high under the current parent. Many
    /// children refuting their moves mark the parent as a node likely to fail low, where
    /// its late moves deserve less depth.
    cutoffs: [u32; MAX_PLY + 2],
    /// The running iteration's depth, which bounds how far extensions may reach.
    root_depth: i32,
    /// Per ply: the square the opponent's best answer to a failed null move lands on —
    /// the threat that kept the pass from failing high — if the null search found one.
    threat: [Option<Square>; MAX_PLY + 2],
}

impl<'a> Worker<'a> {
    /// Thread `id` (0 is the main thread) searching `lines` root lines, each iteration
    /// stopping after `node_cap` nodes of its own.
    pub(super) fn new(
        req: &'a SearchRequest<'a>,
        tt: &'a TranspositionTable,
        threads: &'a Threads,
        heuristics: &'a mut Heuristics,
        id: usize,
        lines: usize,
        node_cap: u64,
    ) -> Self {
        let root = req.game.position();
        let legal: Vec<Move> = root.legal_moves().to_vec();
        let restricted: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| req.limits.searchmoves.contains(m))
            .collect();
        let root_moves = if restricted.is_empty() {
            legal
        } else {
            restricted
        };
        let mut keys = Vec::with_capacity(req.game.keys().len() + MAX_PLY + 2);
        keys.extend_from_slice(req.game.keys());
        let filler = Move::Put {
            role: shakmaty::Role::Pawn,
            to: shakmaty::Square::A1,
        };
        Worker {
            id,
            tt,
            threads,
            eval: req.eval,
            tablebases: req.tablebases,
            poller: Poller::new(req.control, id == 0),
            sink: req.sink,
            heuristics,
            root: root.clone(),
            multipv: lines.clamp(1, root_moves.len().max(1)),
            excluded: Vec::new(),
            lines: Vec::new(),
            unfinished: None,
            node_cap,
            root_moves,
            depth_limit: req
                .limits
                .depth
                .map_or(MAX_DEPTH, |d| (d as i32).clamp(1, MAX_DEPTH)),
            limits: req.limits,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_len: keys.len(),
            keys,
            since_null: [u32::MAX; MAX_PLY + 2],
            evals: [-INFINITY; MAX_PLY + 2],
            moved: [NO_PIECE_TO; MAX_PLY + 2],
            pv: Box::new([[filler; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lmr: &LMR,
            singular_skip: [PackedMove::NONE; MAX_PLY + 2],
            cutoffs: [0; MAX_PLY + 2],
            root_depth: 1,
            threat: [None; MAX_PLY + 2],
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Iterative deepening with aspiration windows, one root line per `MultiPV` at each
    /// depth (line k searches the root moves the first k lines did not take). Only the
    /// main thread reports and decides when to stop; the result is that of the last
    /// completed iteration, and [`lines`](Self::lines) holds its lines, best first.
    pub(super) fn iterate(&mut self) -> SearchResult {
        let root = self.root.clone();
        let mut result = SearchResult::default();
        let mut stability = Stability::default();
        // Helpers start one ply deeper on odd ids so the threads spread over depths.
        let first = 1 + (self.id % 2) as i32;
        for depth in first..=self.depth_limit {
            self.excluded.clear();
            self.unfinished = None;
            self.root_depth = depth;
            let mut lines = Vec::with_capacity(self.multipv);
            for k in 0..self.multipv {
                let guess = self.lines.get(k).map(|l| l.value);
                let Some(value) = self.aspirate(&root, depth, guess, k) else {
                    break;
                };
                let pv = self.pv[0][..self.pv_len[0]].to_vec();
                let Some(&first_move) = pv.first() else {
                    break;
                };
                self.excluded.push(first_move);
                lines.push(RootLine { value, pv });
            }
            if self.stopped || lines.is_empty() {
                self.play_unfinished(depth, &mut result);
                break;
            }
            // A later line can come out above an earlier one (the window and the table
            // differ between them); the report and the move follow the values.
            lines.sort_by_key(|l| std::cmp::Reverse(l.value));
            self.lines = lines;
            let best = &self.lines[0];
            result.value = best.value;
            result.depth = depth as u32;
            result.best = best.pv.first().copied();
            result.ponder = best.pv.get(1).copied();
            if !self.is_main() {
                // A helper (always one line) posts what it completed; the main thread's
                // own result is already in hand.
                let line = best.clone();
                let seldepth = self.seldepth as u32;
                self.threads.post(
                    self.id,
                    Finished {
                        depth,
                        seldepth,
                        line,
                    },
                );
                continue;
            }
            for k in 0..self.lines.len() {
                let line = &self.lines[k];
                let (value, pv) = (line.value, self.root.uci_line(&line.pv));
                self.report(depth, k, value, Bound::Exact, pv);
            }
            let mate_found = self.limits.mate_found(result.value);
            let control = self.poller.control();
            let forced = self.limits.answers_at_once(self.root_moves.len());
            let percent = stability.time_percent(result.best, result.value);
            if mate_found || forced || control.scaled_soft_limit_reached(percent) {
                break;
            }
        }
        self.poller.flush(self.nodes);
        if result.best.is_none() && self.is_main() {
            result.best = one_ply_choice(&root, &self.root_moves, &[], self.eval);
        }
        result
    }

    /// A stopped iteration's line 1, where one root move was proven better than the
    /// moves searched before it (the last iteration's best first among them): it becomes
    /// the result, reported as a lower bound on the root's value.
    fn play_unfinished(&mut self, depth: i32, result: &mut SearchResult) {
        if self.multipv != 1 {
            return;
        }
        let Some(line) = self.unfinished.take() else {
            return;
        };
        result.best = line.pv.first().copied();
        result.ponder = line.pv.get(1).copied();
        result.value = line.value;
        if self.is_main() {
            let pv = self.root.uci_line(&line.pv);
            self.report(depth, 0, line.value, Bound::Lower, pv);
        }
    }

    /// A root move of line 1 just raised alpha with `value`: it is the running iteration's
    /// best so far, kept in case the clock stops the iteration.
    fn keep_unfinished(&mut self, value: Value) {
        if self.excluded.is_empty() {
            self.unfinished = Some(RootLine {
                value,
                pv: self.pv[0][..self.pv_len[0]].to_vec(),
            });
        }
    }

    /// Root line `k` at `depth`, in windows around `guess` (the line's value at the last
    /// depth) that widen until the value falls inside, a ply shallower for each fail high
    /// in a row; `None` once stopped.
    fn aspirate(
        &mut self,
        root: &Position,
        depth: i32,
        guess: Option<Value>,
        k: usize,
    ) -> Option<Value> {
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = match guess {
            Some(g) if depth >= ASPIRATION_DEPTH && !is_mate(g) => {
                ((g - delta).max(-INFINITY), (g + delta).min(INFINITY))
            }
            _ => (-INFINITY, INFINITY),
        };
        self.seldepth = 0;
        // Fail highs in a row: each re-search after one goes a ply shallower. A move that
        // beats the window is usually confirmed, not refuted, by the wider window, and
        // the iteration reaches its value sooner; a fail low restores the full depth.
        let mut fail_highs = 0;
        loop {
            let v = self.search(root, (depth - fail_highs).max(1), alpha, beta, 0, true);
            if self.stopped {
                return None;
            }
            let bound = Bound::of(v, alpha, beta);
            if bound == Bound::Exact {
                return Some(v);
            }
            if self.is_main() {
                let pv = self.root.uci_line(&self.pv[0][..self.pv_len[0]]);
                self.report(depth, k, v, bound, pv);
            }
            if bound == Bound::Upper {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-INFINITY);
                fail_highs = 0;
            } else {
                beta = (v + delta).min(INFINITY);
                fail_highs += 1;
            }
            delta += delta / 2 + ASPIRATION_GROWTH;
        }
    }

    /// The lines of the last completed iteration, best first.
    pub(super) fn lines(&self) -> &[RootLine] {
        &self.lines
    }

    fn report(&mut self, depth: i32, k: usize, value: Value, bound: Bound, pv: Vec<UciMove>) {
        self.poller.flush(self.nodes);
        let control = self.poller.control();
        self.sink.info(&Info {
            depth: depth as u32,
            multipv: k as u32 + 1,
            seldepth: self.seldepth as u32,
            score: value,
            bound,
            nodes: control.nodes(),
            time: control.elapsed(),
            hashfull: Some(self.tt.hashfull()),
            tbhits: self.tablebases.map(|_| control.tb_hits()),
            pv,
            wdl: None,
        });
    }

    /// Counts a node; true when the search must stop.
    #[inline]
    pub(super) fn visit(&mut self, ply: usize) -> bool {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if !self.stopped && (self.poller.poll(self.nodes) || self.nodes >= self.node_cap) {
            self.stopped = true;
        }
        self.stopped
    }

    fn push_key(&mut self, key: u64, ply: usize, null: bool) {
        self.keys.push(key);
        self.since_null[ply + 1] = if null {
            0
        } else {
            self.since_null[ply].saturating_add(1)
        };
    }

    fn pop_key(&mut self) {
        self.keys.pop();
    }

    /// The position repeats one on the path (or, before the root, twice in the game);
    /// repetitions cannot reach across a null move.
    fn is_repetition(&self, pos: &Position, ply: usize) -> bool {
        let reversible = pos.halfmoves().min(self.since_null[ply]) as usize;
        reversible >= 4 && is_search_repetition(&self.keys, reversible, self.root_len - 1)
    }

    /// The moves that led to the node at `ply`, as far back as the search goes, and the
    /// squares the opponent attacks there.
    fn context(&self, pos: &Position, ply: usize) -> Context {
        let back = |n: usize| ply.checked_sub(n).map_or(NO_PIECE_TO, |p| self.moved[p]);
        Context {
            before: [back(1), back(2)],
            threats: pos.threats().0,
            escape: self.threat[ply],
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Principal variation search. Fail-soft: the value may lie outside `(alpha, beta)`.
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: Value,
        mut beta: Value,
        ply: usize,
        pv_node: bool,
    ) -> Value {
        self.pv_len[ply] = ply;
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, self.since_null[ply] == 0);
        }
        if self.visit(ply) {
            return 0;
        }
        if ply > 0 {
            (alpha, beta) = match self.ends_early(pos, alpha, beta, ply) {
                Ok(window) => window,
                Err(v) => return v,
            };
        }

        // Step 2. Transposition table: a deep enough bound that settles the window ends
        // the node, except on the principal variation, where the line must be searched,
        // and in a singular search, which asks about the node less its table move.
        let key = pos.key();
        let singular_search = self.singular_skip[ply] != PackedMove::NONE;
        let entry = self.tt.probe(key);
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.mv);
        if let Some(e) = entry {
            let v = from_table(e.value, ply);
            if !pv_node && !singular_search && e.depth >= depth && cuts(e.bound, v, alpha, beta) {
                return v;
            }
        }

        // Step 2b. Endgame tables (see `probe_tablebases`).
        let tablebase = match self.probe_tablebases(pos, depth, alpha, beta, ply, tt_move) {
            Ok(bound) => bound,
            Err(settled) => return settled,
        };

        let in_check = pos.is_check();
        let static_eval = if in_check {
            -INFINITY
        } else {
            entry.map_or_else(|| self.evaluate(pos), |e| e.eval)
        };
        self.evals[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.evals[ply - 2];

        self.threat[ply] = None;
        // Step 3. Static pruning away from the principal variation, and never in reply to
        // a root move: a sacrifice there (a quiet queen offer that mates) would be judged
        // by the material it gives before the threat it makes is seen.
        if !pv_node
            && ply > 1
            && !singular_search
            && !in_check
            && !is_mate(beta)
            && let Some(v) = self.prune_statically(pos, depth, beta, ply, static_eval, improving)
        {
            return v;
        }

        // Internal iterative reduction: with no table move to try first, ordering is poor
        // and a full-depth search wasteful; the next iteration will have the move.
        let depth = if depth >= IIR_DEPTH && tt_move == PackedMove::NONE {
            depth - 1
        } else {
            depth
        };
        let singular = match self.singular(pos, entry, depth, beta, ply) {
            Singular::Cut(v) => return v,
            Singular::Extend(n) => n,
        };
        let node = Node {
            depth,
            ply,
            pv_node,
            in_check,
            improving,
            static_eval,
            tt_move,
            singular,
        };
        // Step 4. Moves; without one, or on the hundredth reversible ply, the node is over.
        let mut moves = if ply == 0 {
            self.root_move_list()
        } else {
            pos.legal_moves()
        };
        match rules::end_after_moves(pos.chess(), !moves.is_empty()) {
            Some(t) if moves.is_empty() || ply > 0 => return t.value(ply),
            _ => {}
        }
        self.cutoffs[ply + 1] = 0;
        let Some((best, best_move)) = self.search_moves(pos, &mut moves, &node, alpha, beta) else {
            return 0;
        };
        // The node less one move is not the node: nothing of it goes to the table.
        if singular_search {
            return best;
        }
        let (best, bound) = within_tablebase_bound(best, alpha, beta, tablebase);
        self.tt.store(
            key,
            Entry {
                mv: best_move.map_or(tt_move, PackedMove::new),
                value: to_table(best, ply),
                eval: if in_check { 0 } else { static_eval },
                depth,
                bound,
            },
        );
        best
    }

    /// Step 1, below the root: draws, the ply cap, and mate-distance pruning. The node's
    /// value where they end it, else the window they leave.
    fn ends_early(
        &self,
        pos: &Position,
        alpha: Value,
        beta: Value,
        ply: usize,
    ) -> Result<(Value, Value), Value> {
        let repeated = self.is_repetition(pos, ply);
        if let Some(t) = rules::draw_before_moves(pos.chess(), repeated) {
            // A repetition is worth a draw give or take a centipawn, by the node count:
            // with the root's alpha at an exact 0 (one move already holds the draw), a
            // line the opponent could steer into a repetition would otherwise settle the
            // null window at once, and the search never looks past it (Stockfish's
            // `value_draw`, against threefold blindness).
            return Err(if repeated {
                t.value(ply) - 1 + (self.nodes & 2) as Value
            } else {
                t.value(ply)
            });
        }
        if ply >= MAX_PLY - 4 {
            return Err(self.evaluate(pos));
        }
        let alpha = alpha.max(mated_in(ply));
        let beta = beta.min(mate_in(ply + 1));
        if alpha >= beta {
            return Err(alpha);
        }
        Ok((alpha, beta))
    }

    /// Endgame tables, below the root and outside a singular search: a position they
    /// hold, just reached by a capture or a pawn move, has their value — a win at least
    /// the win's (the search could only find a faster mate), a loss at most the loss's, a
    /// draw exactly. Where that settles the window the node ends (`Err`), stored as a deep
    /// entry, since no search can improve on it; where it does not (a win below beta, a
    /// loss above alpha: a window as wide as the principal variation's), the node is
    /// searched and its value kept on the right side of the bound returned.
    fn probe_tablebases(
        &mut self,
        pos: &Position,
        depth: i32,
        alpha: Value,
        beta: Value,
        ply: usize,
        tt_move: PackedMove,
    ) -> Result<Option<(Value, Bound)>, Value> {
        let Some(tables) = self.tablebases else {
            return Ok(None);
        };
        if ply == 0 || depth < tables.probe_depth() || self.singular_skip[ply] != PackedMove::NONE {
            return Ok(None);
        }
        let Some(wdl) = tables.probe(pos) else {
            return Ok(None);
        };
        self.poller.control().add_tb_hit();
        let outcome = Outcome::from(wdl);
        let value = outcome.value(ply);
        let bound = match outcome {
            Outcome::Win => Bound::Lower,
            Outcome::Loss => Bound::Upper,
            _ => Bound::Exact,
        };
        if bound != Bound::Exact && !cuts(bound, value, alpha, beta) {
            return Ok(Some((value, bound)));
        }
        let eval = if pos.is_check() {
            0
        } else {
            self.evaluate(pos)
        };
        self.tt.store(
            pos.key(),
            Entry {
                mv: tt_move,
                value: to_table(value, ply),
                eval,
                depth: (depth + TABLEBASE_DEPTH).min(MAX_DEPTH),
                bound,
            },
        );
        Err(value)
    }

    /// Singular extensions: is the table move the only good one? The node is searched
    /// without it at half depth, on a null window a margin below the move's stored value.
    /// If every other move fails low, the move is forced and gets a ply more; if another
    /// move reaches beta as well, the node has two ways to fail high and is cut at once
    /// (multi-cut); if the stored value alone is at or above beta, the move is not alone
    /// in being good enough and is searched a ply shallower. Extensions stop at twice
    /// the iteration's depth, so that a chain of forced moves cannot run away.
    fn singular(
        &mut self,
        pos: &Position,
        entry: Option<Entry>,
        depth: i32,
        beta: Value,
        ply: usize,
    ) -> Singular {
        let Some(e) = entry else {
            return Singular::Extend(0);
        };
        let value = from_table(e.value, ply);
        if ply == 0
            || self.singular_skip[ply] != PackedMove::NONE
            || depth < SE_DEPTH
            || e.mv == PackedMove::NONE
            || e.depth < depth - SE_TT_DEPTH
            || e.bound == Bound::Upper
            || is_mate(value)
            || ply as i32 >= 2 * self.root_depth
        {
            return Singular::Extend(0);
        }
        let singular_beta = value - SE_MARGIN * depth;
        self.singular_skip[ply] = e.mv;
        let v = self.search(
            pos,
            (depth - 1) / 2,
            singular_beta - 1,
            singular_beta,
            ply,
            false,
        );
        self.singular_skip[ply] = PackedMove::NONE;
        // The search without the move wrote this ply's line; the node's own starts empty.
        self.pv_len[ply] = ply;
        if self.stopped {
            Singular::Cut(0)
        } else if v < singular_beta {
            Singular::Extend(1)
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else if value >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// Step 3: the value that ends a node without trying its moves, if one does — reverse
    /// futility, then the null move. `0` once the search is stopped.
    #[inline]
    fn prune_statically(
        &mut self,
        pos: &Position,
        depth: i32,
        beta: Value,
        ply: usize,
        static_eval: Value,
        improving: bool,
    ) -> Option<Value> {
        // Reverse futility: far enough above beta that a few plies won't bring it back;
        // a position getting better needs a ply's margin less. Not with enemy pieces
        // gathered around the king: a quiet mating threat (a knight sacrificed to open the
        // king, then a piece brought up) leaves the material, and so the evaluation, far
        // ahead, and the null move below is what looks at the threat.
        let margin = RFP_MARGIN * (depth - i32::from(improving));
        if depth <= RFP_DEPTH && static_eval - margin >= beta && pos.king_danger() < KING_DANGER {
            return Some(static_eval);
        }
        // Razoring: so far below alpha that only a capture could help; if quiescence
        // agrees, the node fails low without trying its quiet moves. Not for a side with
        // its pieces gathered around the enemy king: there a quiet move is what helps (the
        // side that sacrificed its way in is far behind in material, and the mating move
        // it has ready is quiet), and quiescence does not try one.
        let alpha = beta - 1;
        if depth <= RAZOR_DEPTH
            && static_eval + RAZOR_BASE + RAZOR_PER_PLY2 * depth * depth <= alpha
            && pos.king_pressure(!pos.turn()) < KING_DANGER
        {
            let v = self.quiesce(pos, alpha, beta, ply, false);
            if self.stopped {
                return Some(0);
            }
            if v <= alpha {
                return Some(v);
            }
        }
        // Null move: if passing still fails high, a real move will too — unless zugzwang,
        // which the pawn-ending guard and the depth limit make unlikely.
        if depth >= NMP_DEPTH
            && static_eval >= beta
            && self.since_null[ply] > 0
            && pos.has_non_pawn_material()
            && let Some(child) = pos.null_move()
        {
            let r = NMP_BASE
                + depth / NMP_DEPTH_DIVISOR
                + ((static_eval - beta) / NMP_EVAL_DIVISOR).min(NMP_EVAL_CAP);
            self.push_key(child.key(), ply, true);
            self.moved[ply] = NO_PIECE_TO;
            let v = -self.search(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
            self.pop_key();
            if self.stopped {
                return Some(0);
            }
            if v >= beta {
                return Some(if is_mate(v) { beta } else { v });
            }
            // Passing failed low: the reply that refuted it names the piece in danger.
            self.threat[ply] =
                (self.pv_len[ply + 1] > ply + 1).then(|| self.pv[ply + 1][ply + 1].to());
        }
        None
    }

    /// Steps 5 and 6: the moves of a node, best first, with shallow pruning and late-move
    /// reductions. The best value and the move that raised alpha; `None` once stopped.
    #[inline]
    fn search_moves(
        &mut self,
        pos: &Position,
        moves: &mut shakmaty::MoveList,
        node: &Node,
        mut alpha: Value,
        beta: Value,
    ) -> Option<(Value, Option<Move>)> {
        let Node {
            depth,
            ply,
            pv_node,
            in_check,
            improving,
            static_eval,
            tt_move,
            ..
        } = *node;
        let root = ply == 0;
        let check_squares = pos.check_squares();
        let ctx = self.context(pos, ply);
        let mut picker = MovePicker::new(moves, tt_move, ply, ctx);
        let mut quiets_tried: shakmaty::MoveList = shakmaty::MoveList::new();
        let mut best = -INFINITY;
        let mut best_move = None;
        let quiet_limit = (LMP_BASE + depth * depth) / (2 - i32::from(improving));
        let mut quiets_seen = 0;
        let mut index = 0;
        // A capture from the table is likely the node's best move, and the quiet moves
        // after it unlikely to beat it: they are reduced a ply more.
        let mut tt_capture = false;
        while let Some(m) = picker.next(pos, self.heuristics) {
            // A singular search asks about the node without its table move.
            if self.singular_skip[ply].matches(m) {
                continue;
            }
            let quiet = !is_tactical(m);
            if index == 0 && tt_move.matches(m) {
                tt_capture = !quiet;
            }
            if root && self.is_main() {
                self.show_current_move(depth, m, index);
            }
            let gives_check = check_squares.gives_check(pos, m);
            // Step 5. Shallow pruning, once a move has saved the node from being mated:
            // late quiet moves (move-count and futility pruning), and quiet moves and
            // captures that lose material (see `shallow_pruned`).
            if !root && best > -MATE_BOUND && !gives_check {
                quiets_seen += i32::from(quiet);
                // Not `skip_quiets`: the moves after may give check (a quiet mate).
                let late = depth <= LMP_DEPTH && quiets_seen > quiet_limit;
                let futile = depth <= FUTILITY_DEPTH
                    && !in_check
                    && static_eval + FUTILITY_BASE + FUTILITY_PER_PLY * depth <= alpha;
                let hopeless = (late || futile) && !ctx.escapes(m);
                if shallow_pruned(pos, m, quiet, depth, hopeless) {
                    continue;
                }
            }
            self.tt.prefetch(pos.key_after(m));
            let child = pos.play(m);
            // A check that loses material in the exchange on its square is mostly a spite
            // check; extending it buys depth for lines that throw pieces away. At the root
            // every check is extended: there the extra ply is paid once.
            let check = gives_check && (root || see_ge(pos.chess(), m, 0));
            let singular = if tt_move.matches(m) { node.singular } else { 0 };
            let new_depth = depth - 1 + extension(check, singular);
            self.push_key(child.key(), ply, false);
            self.moved[ply] = piece_to(pos, m);
            let v = if index == 0 {
                -self.search(&child, new_depth, -beta, -alpha, ply + 1, pv_node)
            } else {
                // Step 6. Late moves: reduced null-window search first, widened only if
                // it beats alpha.
                let reducible = quiet && !in_check && !gives_check;
                let r = if reducible && depth >= LMR_DEPTH && index >= LMR_INDEX {
                    self.reduction(pos, m, node, index, &ctx, tt_capture)
                        .clamp(0, new_depth - 1)
                } else {
                    0
                };
                let mut v = -self.search(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, false);
                if v > alpha && r > 0 {
                    v = -self.search(&child, new_depth, -alpha - 1, -alpha, ply + 1, false);
                }
                if v > alpha && v < beta && pv_node {
                    v = -self.search(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
                v
            };
            self.pop_key();
            if self.stopped {
                return None;
            }
            index += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    self.update_pv(ply, m);
                    if root {
                        self.keep_unfinished(v);
                    }
                    if v >= beta {
                        self.cutoffs[ply] += 1;
                        if quiet {
                            self.heuristics
                                .reward(pos, ply, depth, &ctx, m, &quiets_tried);
                        }
                        break;
                    }
                    alpha = v;
                }
            }
            if quiet {
                quiets_tried.push(m);
            }
        }
        Some((best, best_move))
    }

    /// Late-move reduction of a quiet move that does not check: the table's plies for its
    /// depth and place in the list, fewer on the principal variation, for a killer and for
    /// a move with a good history and for one that takes the threatened piece away, more
    /// after a table capture and at a node whose children keep failing high (it is likely
    /// to fail low).
    fn reduction(
        &self,
        pos: &Position,
        m: Move,
        node: &Node,
        index: usize,
        ctx: &Context,
        tt_capture: bool,
    ) -> i32 {
        let (depth, ply) = (node.depth, node.ply);
        let mut r = self.lmr[depth.min(63) as usize][index.min(63)];
        r -= i32::from(node.pv_node) + i32::from(self.heuristics.is_killer(ply, m));
        r += i32::from(tt_capture);
        r += i32::from(self.cutoffs[ply + 1] > CUTOFF_COUNT);
        r -= i32::from(ctx.escapes(m));
        r - self.heuristics.quiet_score(pos, m, ctx) / LMR_HISTORY
    }

    /// The root moves this line may play: those `searchmoves` allows, less the moves the
    /// earlier lines of this iteration took.
    fn root_move_list(&self) -> shakmaty::MoveList {
        let mut list = shakmaty::MoveList::new();
        let excluded = &self.excluded;
        list.extend(
            self.root_moves
                .iter()
                .copied()
                .filter(|m| !excluded.contains(m)),
        );
        list
    }

    /// `info currmove` for the root move about to be searched, once the search has run
    /// long enough for a user to wonder what it is doing.
    fn show_current_move(&self, depth: i32, m: Move, index: usize) {
        let control = self.poller.control();
        if control.elapsed() >= CURRMOVE_AFTER {
            let number = self.excluded.len() + index + 1;
            self.sink
                .current_move(depth as u32, &self.root.to_uci(m), number as u32);
        }
    }

    #[inline]
    pub(super) fn evaluate(&self, pos: &Position) -> Value {
        self.eval.evaluate(pos.chess())
    }
}

/// How the iterations are going, for the time use: iterations in a row that kept the
/// best move, and the last iteration's move and value.
#[derive(Default)]
struct Stability {
    kept: u32,
    last: Option<(Option<Move>, Value)>,
}

impl Stability {
    /// Records an iteration; the share of the clock's soft target (percent) to spend. A
    /// best move that has held for several iterations needs less time, one that just
    /// changed or a value that just fell needs more.
    fn time_percent(&mut self, best: Option<Move>, value: Value) -> u32 {
        let (changed, fell) = match self.last {
            Some((b, v)) => (b != best, value + TIME_FALL <= v),
            None => (false, false),
        };
        self.kept = if changed { 0 } else { self.kept + 1 };
        self.last = Some((best, value));
        let by_stability = TIME_STABILITY[(self.kept as usize).min(TIME_STABILITY.len() - 1)];
        by_stability + if fell { TIME_FALL_EXTRA } else { 0 }
    }
}

/// What the move loop needs to know about its node.
#[derive(Clone, Copy)]
struct Node {
    depth: i32,
    ply: usize,
    pv_node: bool,
    in_check: bool,
    improving: bool,
    static_eval: Value,
    tt_move: PackedMove,
    /// The table move's extension from the singular search: 1, 0 or -1.
    singular: i32,
}

/// What a singular search decided.
enum Singular {
    /// The table move's extension (negative: a reduction).
    Extend(i32),
    /// The node's value: another move fails high too (or the search was stopped).
    Cut(Value),
}

/// A searched node's value and bound, held to the endgame tables' bound on it (see
/// `Worker::probe_tablebases`).
fn within_tablebase_bound(
    best: Value,
    alpha: Value,
    beta: Value,
    tablebase: Option<(Value, Bound)>,
) -> (Value, Bound) {
    match tablebase {
        Some((v, Bound::Lower)) if best < v => (v, Bound::Lower),
        Some((v, Bound::Upper)) if best > v => (v, Bound::Upper),
        _ => (best, Bound::of(best, alpha, beta)),
    }
}

/// A move's extension: a check's ply (`check`), or the table move's singular verdict
/// (1: it gets one ply however it checks; -1: it is not alone in failing high and loses
/// a ply against what it would have had).
fn extension(check: bool, singular: i32) -> i32 {
    match singular {
        0 => i32::from(check),
        1 => 1,
        _ => i32::from(check) - 1,
    }
}

/// A stored bound settles the window.
#[inline]
pub(super) fn cuts(bound: Bound, v: Value, alpha: Value, beta: Value) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => v >= beta,
        Bound::Upper => v <= alpha,
    }
}

/// Step 5's verdict on a move that does not give check: a quiet move is skipped when it
/// comes late or the node is futile (`hopeless`), or when it loses too much in the
/// exchange on its square; a capture when it loses too much in the exchange.
fn shallow_pruned(pos: &Position, m: Move, quiet: bool, depth: i32, hopeless: bool) -> bool {
    if !quiet {
        return depth <= SEE_PRUNE_DEPTH && !see_ge(pos.chess(), m, -SEE_PRUNE_PER_PLY * depth);
    }
    // A quiet move onto a square where it is lost for nothing: at low depth the sacrifice
    // has too few plies left to pay for itself.
    hopeless
        || (depth <= QUIET_SEE_DEPTH
            && !see_ge(pos.chess(), m, -QUIET_SEE_PER_PLY2 * depth * depth))
}
