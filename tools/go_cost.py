#!/usr/bin/env python3
"""The fixed cost of a `go`: wall time from sending `position` + `go` to reading `bestmove`,
for searches so small that the search itself is a sliver of it. What is left is the
engine's per-move overhead (parsing, starting the search, reporting) plus the pipe round
trip, which every move of a game pays on the clock.

    python3 tools/go_cost.py ENGINE [ENGINE ...] [--repeat 500] [--gap MS] [--hash MB]

Each ENGINE is a command line (quote it if it has arguments). Prints one line per engine
and limit: the mean milliseconds per `go`; and the same for the first `go depth 1` of a
game, timed after `ucinewgame` and `isready` (what a new game sets up the GUI waits for,
not the clock).

With --gap, each `go` is sent MS milliseconds after the last `bestmove`, as in a game,
where the opponent's move comes between, and only `position` + `go` to `bestmove` is
timed: work an engine does after its `bestmove` is then off the clock, as in a game.
With --hash, `Hash` is set first (the first move of a game pays for a table cleared
late in proportion to its size).
"""

import argparse
import time

from uci_pipe import Engine

LIMITS = ["depth 1", "nodes 1", "nodes 1000", "movetime 1"]
POSITION = "position startpos moves e2e4 e7e5 g1f3 b8c6"


def measure(command, repeat, gap, hash_mb):
    engine = Engine(command)
    send, wait_for = engine.send, engine.wait_for
    engine.start()
    if hash_mb is not None:
        send(f"setoption name Hash value {hash_mb}")
        engine.new_game()

    def timed_go(limit):
        if gap:
            time.sleep(gap / 1000)
        start = time.perf_counter()
        send(POSITION)
        send("go " + limit)
        wait_for("bestmove")
        return time.perf_counter() - start

    results = []
    for limit in LIMITS:
        # A first round unmeasured: tables and caches are touched once per engine.
        for measured in (False, True):
            total = sum(timed_go(limit) for _ in range(repeat))
            if measured:
                results.append((limit, total / repeat * 1000))
    total, games = 0.0, max(repeat // 10, 1)
    for _ in range(games):
        engine.new_game()
        total += timed_go("depth 1")
    results.append(("depth 1, first of a game", total / games * 1000))
    engine.quit()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engines", nargs="+")
    parser.add_argument("--repeat", type=int, default=500)
    parser.add_argument("--gap", type=float, default=0.0, help="ms between bestmove and go")
    parser.add_argument("--hash", type=int, help="the engine's Hash in MB")
    args = parser.parse_args()
    for command in args.engines:
        for limit, ms in measure(command, args.repeat, args.gap, args.hash):
            print(f"{command}: go {limit}: {ms:.3f} ms")


if __name__ == "__main__":
    main()
