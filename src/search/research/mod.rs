//! The research backends, written against the game-tree interface so that the papers'
//! claims about which leaves are evaluated can be checked on synthetic trees and the same
//! code plays chess: plain alpha-beta ([`alphabeta`]), the MT drivers on memory-enhanced
//! tests ([`mt`]), the rollout family ([`rollout`]) and FSSS-Minimax ([`fsss`]), with their
//! bound storage ([`bounds`]) and the iterative-deepening shell of the table backends
//! ([`stored`]). Each module declares its own options.

pub mod alphabeta;
pub mod bounds;
pub mod fsss;
pub mod mt;
pub mod rollout;
pub mod stored;
