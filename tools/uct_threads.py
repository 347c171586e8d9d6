#!/usr/bin/env python3
"""Iterations per second of the UCT family by thread count and UCT_Parallel mode, over UCI.

For each backend, mode and thread count a fresh engine searches each position with
`ucinewgame` and `go movetime`; the last `info` line's `nodes` (iterations) and `time` are
summed. The engine process's CPU time is reported beside the wall time, so that a run on
busy cores shows how much CPU the threads actually got. One thread is the same search in
both modes (each thread's own tree), so it is run once.

    python3 tools/uct_threads.py --binary target/release/searchlight \
        --threads 1,2,4,8,16 --modes tree,root --backends ucth,uctmaxh --movetime 3000
"""
import argparse
import re
import resource
import subprocess

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(binary, backend, threads, mode, movetime):
    """(iterations, wall ms, CPU s) over every position."""
    cpu0 = children_cpu()
    p = subprocess.Popen(
        [binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    send("uci")
    send(f"setoption name Search value {backend}")
    send(f"setoption name UCT_Parallel value {mode}")
    send(f"setoption name Threads value {threads}")
    iterations = ms = 0
    for fen in POSITIONS:
        send("ucinewgame")
        send(f"position fen {fen}")
        send(f"go movetime {movetime}")
        last = None
        for line in p.stdout:
            if line.startswith("info") and " nodes " in line and " time " in line:
                last = line
            if line.startswith("bestmove"):
                break
        iterations += int(re.search(r" nodes (\d+)", last).group(1))
        ms += int(re.search(r" time (\d+)", last).group(1))
    send("quit")
    p.wait()
    return iterations, ms, children_cpu() - cpu0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="target/release/searchlight")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--modes", default="tree,root")
    ap.add_argument("--backends", default="ucth,uctmaxh")
    ap.add_argument("--movetime", type=int, default=3000)
    args = ap.parse_args()
    print("| backend | threads | UCT_Parallel | iterations | ms | iterations/s | CPU s | iterations/CPU-s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for backend in args.backends.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            modes = ["-"] if threads == 1 else args.modes.split(",")
            for mode in modes:
                n, ms, cpu = measure(
                    args.binary, backend, threads, "root" if mode == "-" else mode, args.movetime
                )
                print(
                    f"| `{backend}` | {threads} | {mode} | {n} | {ms} | {n * 1000 // max(ms, 1)} "
                    f"| {cpu:.2f} | {int(n / max(cpu, 1e-9))} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
