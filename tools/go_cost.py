#!/usr/bin/env python3
"""The fixed cost of a `go`: wall time from sending `position` + `go` to reading `bestmove`,
for searches so small that the search itself is a sliver of it. What is left is the
engine's per-move overhead (parsing, starting the search, reporting) plus the pipe round
trip, which every move of a game pays on the clock.

    python3 tools/go_cost.py ENGINE [ENGINE ...] [--repeat 500]

Each ENGINE is a command line (quote it if it has arguments). Prints one line per engine
and limit: the mean milliseconds per `go`; and the same for the first `go depth 1` of a
game, timed after `ucinewgame` and `isready` (what a new game sets up the GUI waits for,
not the clock).
"""

import argparse
import shlex
import subprocess
import time

LIMITS = ["depth 1", "nodes 1", "nodes 1000", "movetime 1"]
POSITION = "position startpos moves e2e4 e7e5 g1f3 b8c6"


def measure(command, repeat):
    engine = subprocess.Popen(
        shlex.split(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def wait_for(prefix):
        while True:
            line = engine.stdout.readline()
            if not line:
                raise RuntimeError(f"{command}: ended before {prefix!r}")
            if line.startswith(prefix):
                return

    send("uci")
    wait_for("uciok")
    send("isready")
    wait_for("readyok")
    results = []
    for limit in LIMITS:
        # A first round unmeasured: tables and caches are touched once per engine.
        for measured in (False, True):
            start = time.perf_counter()
            for _ in range(repeat):
                send(POSITION)
                send("go " + limit)
                wait_for("bestmove")
            if measured:
                results.append((limit, (time.perf_counter() - start) / repeat * 1000))
    total, games = 0.0, max(repeat // 10, 1)
    for _ in range(games):
        send("ucinewgame")
        send("isready")
        wait_for("readyok")
        start = time.perf_counter()
        send(POSITION)
        send("go depth 1")
        wait_for("bestmove")
        total += time.perf_counter() - start
    results.append(("depth 1, first of a game", total / games * 1000))
    send("quit")
    engine.wait(timeout=10)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engines", nargs="+")
    parser.add_argument("--repeat", type=int, default=500)
    args = parser.parse_args()
    for command in args.engines:
        for limit, ms in measure(command, args.repeat):
            print(f"{command}: go {limit}: {ms:.3f} ms")


if __name__ == "__main__":
    main()
