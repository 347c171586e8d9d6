#!/usr/bin/env python3
"""Perft speed of Searchlight against Stockfish's own `go perft`, in one run on one machine.

Both count the same trees single-threaded with bulk counting at the last ply. Stockfish is
timed from sending `go perft` (after `isready` has confirmed it is loaded) to its
`Nodes searched` line; Searchlight reports its own time. Each measurement is the best of
--repeat runs.

    python3 tools/perft_vs_stockfish.py [--searchlight target/release/searchlight]
"""
import argparse
import re
import subprocess
import time

from uci_pipe import Engine

CASES = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]


def stockfish_perft(path, fen, depth):
    sf = Engine(path)
    sf.start()
    sf.send(f"position fen {fen}")
    sf.send("isready")
    sf.wait_for("readyok")
    start = time.perf_counter()
    sf.send(f"go perft {depth}")
    nodes = int(sf.wait_for("Nodes searched").split(":")[1])
    elapsed = time.perf_counter() - start
    sf.quit()
    return nodes, elapsed


def searchlight_perft(path, fen, depth):
    out = subprocess.run([path, "perft", "--fen", fen, "--depth", str(depth)],
                         capture_output=True, text=True, check=True).stdout
    nodes = int(re.search(r"nodes (\d+)", out).group(1))
    secs = float(re.search(r"time ([\d.]+) s", out).group(1))
    return nodes, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--searchlight", default="target/release/searchlight")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'case':<10} {'nodes':>11} {'searchlight s':>14} {'stockfish s':>12} {'ratio':>6}")
    for name, fen, depth in CASES:
        ours = min((searchlight_perft(args.searchlight, fen, depth) for _ in range(args.repeat)),
                   key=lambda r: r[1])
        theirs = min((stockfish_perft(args.stockfish, fen, depth) for _ in range(args.repeat)),
                     key=lambda r: r[1])
        assert ours[0] == theirs[0], f"node counts differ: {ours[0]} vs {theirs[0]}"
        ratio = theirs[1] / ours[1]
        print(f"{name + ' d' + str(depth):<10} {ours[0]:>11} {ours[1]:>14.3f} {theirs[1]:>12.3f} {ratio:>5.2f}x")
    print("ratio = Stockfish time / Searchlight time (above 1: Searchlight is faster)")


if __name__ == "__main__":
    main()
