#!/usr/bin/env python3
"""Iterations per second of the UCT family by thread count and UCT_Parallel mode, over UCI.

For each backend, mode and thread count a fresh engine searches each position with
`ucinewgame` and `go movetime`; the last `info` line's `nodes` (iterations) and `time` are
summed. The engine process's CPU time is reported beside the wall time, so that a run on
busy cores shows how much CPU the threads actually got. One thread is the same search in
both modes (each thread's own tree), so it is run once.

    python3 tools/uct_threads.py --binary target/release/searchlight \
        --threads 1,2,4,8,16 --modes tree,root --backends ucth,uctmaxh --movetime 3000 \
        --csv uct-threads.csv --svg uct-threads.svg

The table goes to stdout as Markdown; `--csv` writes the same rows, and `--svg` a chart of
the speed-up over one thread against the thread count (both axes doubling), one line per
backend and mode, with the ideal (n threads, n times the iterations) dashed.
"""
import argparse
import csv
import math
import re
import resource

from uci_pipe import Engine

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
    engine = Engine(binary)
    engine.start()
    engine.send(f"setoption name Search value {backend}")
    engine.send(f"setoption name UCT_Parallel value {mode}")
    engine.send(f"setoption name Threads value {threads}")
    iterations = ms = 0
    for fen in POSITIONS:
        engine.new_game()
        engine.send(f"position fen {fen}")
        engine.send(f"go movetime {movetime}")
        last = None
        for line in engine.lines_until("bestmove"):
            if line.startswith("info") and " nodes " in line and " time " in line:
                last = line
        iterations += int(re.search(r" nodes (\d+)", last).group(1))
        ms += int(re.search(r" time (\d+)", last).group(1))
    engine.quit()
    return iterations, ms, children_cpu() - cpu0


def chart(rows, title):
    """An SVG line chart of the speed-up over one thread by thread count, log2 on both axes.

    `rows` are (backend, threads, mode, iterations per second); the one-thread row of a
    backend starts both of its modes' lines."""
    base = {b: ips for b, t, _, ips in rows if t == 1}
    lines = {}
    for backend, threads, mode, ips in rows:
        if threads > 1 and backend in base:
            line = lines.setdefault(f"{backend} {mode}", [(1, 1.0)])
            line.append((threads, ips / base[backend]))
    threads = sorted({t for _, t, _, _ in rows})
    speedups = [y for pts in lines.values() for _, y in pts]
    top = max(speedups + threads)
    # A shared tree can iterate slower with two threads than with one: the axis goes down
    # to the power of two under the slowest line, so that a slow-down shows as one.
    low = 2.0 ** math.floor(math.log2(min(speedups + [1.0])))
    x_max = math.log2(max(threads)) or 1.0
    y_min, y_max = math.log2(low), math.log2(max(top, 2.0))
    w, h, left, bottom, margin = 640, 420, 60, 50, 20

    def x(t):
        return left + (w - left - margin) * math.log2(t) / x_max

    def y(v):
        return h - bottom - (h - bottom - margin) * (math.log2(v) - y_min) / (y_max - y_min)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
        f'<text x="{w / 2}" y="14" text-anchor="middle">{title}</text>',
        f'<line x1="{left}" y1="{h - bottom}" x2="{w - margin}" y2="{h - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{margin}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
        f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">threads</text>',
        f'<text x="14" y="{h / 2}" text-anchor="middle" transform="rotate(-90 14 {h / 2})">iterations/s over one thread</text>',
    ]
    for t in threads:
        out.append(f'<text x="{x(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">{t}</text>')
    v = low
    while v <= top:
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        v *= 2
    ideal = " ".join(f"{x(t):.1f},{y(t):.1f}" for t in threads)
    out.append(f'<polyline points="{ideal}" fill="none" stroke="gray" stroke-dasharray="4 4"/>')
    out.append(f'<text x="{left + 10}" y="{margin + 16}" fill="gray">ideal (dashed)</text>')
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
    for i, (name, pts) in enumerate(sorted(lines.items())):
        c = colours[i % len(colours)]
        pts = sorted(pts)
        out.append(
            f'<polyline points="{" ".join(f"{x(t):.1f},{y(s):.1f}" for t, s in pts)}" fill="none" stroke="{c}" stroke-width="2"/>'
        )
        out.append(f'<text x="{left + 10}" y="{margin + 16 * (i + 2)}" fill="{c}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def title(movetime):
    return f"UCT family: iterations/s by threads ({movetime} ms a position)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="target/release/searchlight")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--modes", default="tree,root")
    ap.add_argument("--backends", default="ucth,uctmaxh")
    ap.add_argument("--movetime", type=int, default=3000)
    ap.add_argument("--csv", help="also write the rows to this CSV file")
    ap.add_argument("--svg", help="also write a chart of the speed-up to this SVG file")
    ap.add_argument(
        "--chart-from",
        metavar="CSV",
        help="measure nothing: draw --svg from a CSV that --csv wrote (title with --movetime)",
    )
    args = ap.parse_args()
    if args.chart_from:
        with open(args.chart_from, newline="") as f:
            rows = [
                (r["backend"], int(r["threads"]), r["mode"], int(r["iterations_per_s"]))
                for r in csv.DictReader(f)
            ]
        with open(args.svg or "uct-threads.svg", "w") as f:
            f.write(chart(rows, title(args.movetime)))
        return
    print("| backend | threads | UCT_Parallel | iterations | ms | iterations/s | CPU s | iterations/CPU-s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    for backend in args.backends.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            modes = ["-"] if threads == 1 else args.modes.split(",")
            for mode in modes:
                n, ms, cpu = measure(
                    args.binary, backend, threads, "root" if mode == "-" else mode, args.movetime
                )
                ips = n * 1000 // max(ms, 1)
                rows.append((backend, threads, mode, n, ms, ips, round(cpu, 2)))
                print(
                    f"| `{backend}` | {threads} | {mode} | {n} | {ms} | {ips} "
                    f"| {cpu:.2f} | {int(n / max(cpu, 1e-9))} |",
                    flush=True,
                )
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["backend", "threads", "mode", "iterations", "ms", "iterations_per_s", "cpu_s"])
            w.writerows(rows)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(chart([(b, t, m, ips) for b, t, m, _, _, ips, _ in rows], title(args.movetime)))


if __name__ == "__main__":
    main()
