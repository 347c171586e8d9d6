#!/usr/bin/env python3
"""Two builds, the same single-threaded UCT search: is it the same, and how long does it take?

For a change that should alter only the speed of a UCT-family backend (a new tree layout,
say), each build searches the same positions to the same number of iterations
(`go nodes`, one thread). A one-thread search is deterministic, so the last `info` line
before `bestmove` (without its time, nps and hashfull) and the `bestmove` line must agree
between the builds; the wall time of each search is summed per build. Builds alternate
position by position, so that a machine whose speed drifts treats them alike.

    python3 tools/uct_same_search.py --binaries OLD,NEW --search ucth --nodes 2000000

Prints one row per build (total seconds, and the ratio to the first), and exits non-zero
if any search differs.
"""
import argparse
import re
import sys
import time

from uci_pipe import Engine

POSITIONS = [
    "startpos",
    "startpos moves e2e4 e7e5 g1f3 b8c6 f1c4",
    "fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9",
    "fen 8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
]


def search(binary, backend, position, nodes):
    """(seconds from `go` to `bestmove`, the last info line without timings, bestmove)."""
    engine = Engine(binary)
    engine.send(f"setoption name Search value {backend}")
    engine.send(f"position {position}")
    engine.send("isready")
    engine.wait_for("readyok")
    start = time.monotonic()
    engine.send(f"go nodes {nodes}")
    last, best = "", ""
    for line in engine.lines_until("bestmove"):
        if line.startswith("bestmove"):
            best = line.strip()
        elif line.startswith("info") and " pv " in line:
            last = line.strip()
    seconds = time.monotonic() - start
    engine.quit()
    return seconds, re.sub(r" (time|nps|hashfull) \d+", "", last), best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binaries", required=True, help="comma-separated builds")
    parser.add_argument("--search", default="ucth")
    parser.add_argument("--nodes", type=int, default=1000000)
    args = parser.parse_args()
    binaries = args.binaries.split(",")
    totals = [0.0] * len(binaries)
    same = True
    for position in POSITIONS:
        results = []
        for i, binary in enumerate(binaries):
            seconds, last, best = search(binary, args.search, position, args.nodes)
            totals[i] += seconds
            results.append((last, best))
        if any(r != results[0] for r in results):
            same = False
            print(f"differs on {position}: {results}", file=sys.stderr)
    print(f"| build | {args.search}, {len(POSITIONS)} positions x {args.nodes} iterations, s | speed over the first |")
    print("| --- | ---: | ---: |")
    for binary, total in zip(binaries, totals):
        print(f"| `{binary}` | {total:.2f} | {totals[0] / total:.2f}x |")
    print("same searches" if same else "SEARCHES DIFFER")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
