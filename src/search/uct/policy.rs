//! UCB1 selection in negamax form (Understanding Sampling-Based Adversarial Search Methods (2012) §2.4): at a node, pick the child maximising
//! `Q + c * sqrt(ln n(s) / n(s,a))`, where `Q` is the child's value from the side to move
//! at the node, in [-1, 1]. The thesis found `c = 0.4` best for chess on that scale.
//!
//! Also the one mapping between engine centipawns and UCT values:
//! `v = tanh(cp / 400)` and back `cp = 400 * atanh(v)`. 400 cp (about a rook minus a
//! pawn) maps to 0.76; a queen up (900 cp) to 0.98. Checkmate is exactly ±1, draws 0.

use super::arena::{Arena, Node, Proof};

/// Centipawns for which the squashed value is tanh(1).
pub const CP_SCALE: f32 = 400.0;

/// An evaluation in centipawns as a UCT value in (-1, 1).
#[inline]
pub fn from_cp(cp: i32) -> f32 {
    (cp as f32 / CP_SCALE).tanh()
}

/// A UCT value as centipawns for `info score cp` (the inverse of [`from_cp`], clamped so
/// that an unproven ±1 stays a finite, non-mate score).
pub fn to_cp(v: f32) -> i32 {
    let v = v.clamp(-0.9999, 0.9999);
    (v.atanh() * CP_SCALE).round() as i32
}

/// What selection and the final choice know of a child: its value from the side to move
/// at the parent, its visits, and what is proven about it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChildStats {
    pub value: f32,
    pub visits: u32,
    pub proof: Proof,
    pub plies: u8,
}

impl ChildStats {
    /// The child of an arena.
    #[inline]
    pub fn of<M>(node: &Node<M>) -> Self {
        ChildStats {
            value: node.value,
            visits: node.visits,
            proof: node.proof,
            plies: node.plies,
        }
    }
}

/// The child of `node` to descend into, among its expanded children, by UCB1. With
/// `avoid_lost`, children proven lost for the side to move are skipped while another
/// choice exists (the solver's pruning). `None` only if the node has no children.
#[inline]
pub fn select<M: Copy>(arena: &Arena<M>, node: u32, c: f32, avoid_lost: bool) -> Option<u32> {
    let children = arena
        .children(node)
        .map(|id| (id, ChildStats::of(&arena[id])));
    select_among(arena[node].visits, children, c, avoid_lost)
}

/// [`select`] over children given as (id, statistics), newest first, under a parent with
/// `visits` visits: the one rule for a thread's own tree and for the shared tree.
#[inline]
pub fn select_among(
    visits: u32,
    children: impl Iterator<Item = (u32, ChildStats)>,
    c: f32,
    avoid_lost: bool,
) -> Option<u32> {
    let n = visits.max(1) as f32;
    let log_n = n.ln();
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    let mut fallback = None;
    for (child, ch) in children {
        if avoid_lost && ch.proof == Proof::Loss {
            fallback = Some(child);
            continue;
        }
        let visits = ch.visits.max(1) as f32;
        let score = ch.value + c * (log_n / visits).sqrt();
        // `>=` over a newest-first list: among equals, the oldest child wins.
        if score >= best_score {
            best_score = score;
            best = Some(child);
        }
    }
    best.or(fallback)
}

/// The root child to play: the most visited, ties broken by value (UCTMAX-H can give two
/// children the same visits and different minimax values). A child proven won is played
/// at once (the shortest mate); children proven lost only when nothing else is left.
pub fn final_choice<M: Copy>(arena: &Arena<M>, root: u32) -> Option<u32> {
    final_choice_among(arena.children(root).map(|c| (c, ChildStats::of(&arena[c]))))
}

/// [`final_choice`] over children given as (id, statistics).
pub fn final_choice_among(children: impl Iterator<Item = (u32, ChildStats)>) -> Option<u32> {
    let mut won: Option<(u32, u8)> = None;
    let mut best: Option<(u32, (bool, u32, f32))> = None;
    for (c, n) in children {
        if n.proof == Proof::Win && won.is_none_or(|(_, plies)| n.plies < plies) {
            won = Some((c, n.plies));
        }
        let key = (n.proof != Proof::Loss, n.visits, n.value);
        match best {
            Some((_, b)) if !better(key, b) => {}
            _ => best = Some((c, key)),
        }
    }
    won.map(|(c, _)| c).or(best.map(|(c, _)| c))
}

fn better(a: (bool, u32, f32), b: (bool, u32, f32)) -> bool {
    (a.0, a.1) > (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && a.2 > b.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_round_trips_and_is_odd() {
        for cp in [-1500, -400, -35, 0, 35, 400, 1500] {
            assert!((to_cp(from_cp(cp)) - cp).abs() <= 1, "{cp}");
            assert_eq!(from_cp(-cp), -from_cp(cp));
        }
        assert!((from_cp(400) - 0.7616).abs() < 1e-3);
        assert!(to_cp(1.0) < 4000);
    }

    #[test]
    fn unvisited_exploration_and_ties() {
        let mut arena = Arena::with_memory(1 << 16);
        let root = arena.set_root(Node::new(0u32));
        arena[root].visits = 100;
        for (m, visits, value) in [(1, 50, 0.1), (2, 45, 0.1), (3, 5, 0.0)] {
            let id = arena.add_child(root, Node::new(m)).unwrap();
            arena[id].visits = visits;
            arena[id].value = value;
        }
        // Little exploration: the best value, the less visited of two equals.
        let pick = select(&arena, root, 0.01, false).unwrap();
        assert_eq!(arena[pick].mv, 2);
        // Strong exploration: the rarely visited child.
        let pick = select(&arena, root, 5.0, false).unwrap();
        assert_eq!(arena[pick].mv, 3);
        let best = final_choice(&arena, root).unwrap();
        assert_eq!(arena[best].mv, 1);
    }
}
