#!/usr/bin/env python3
"""Would more time find the key? Each named position of a suite searched alone for a
long time, and the moment its key was found for good.

A suite run at a fixed time says only solved or not. This tool searches each position
given by `--ids` (or every one) for `--time` seconds with one UCI engine and reports when
the principal variation's first move last turned to a key move and stayed one until the
search ended, with the depth it turned at, or the move the engine ended on. A fresh game
(`ucinewgame`) before each position, so no search inherits another's table.

    python3 tools/time_to_solve.py --engine target/release/searchlight \\
        --option Eval=classical --ids WAC.002,WAC.081 [--time 15]
"""

import argparse
import sys

import chess
import chess.engine

from suite_misses import read_suite


def option_value(text):
    """A UCI option's value as python-chess wants it: a number where it is one."""
    try:
        return int(text)
    except ValueError:
        return text


def time_to_key(engine, board, keys, seconds, game):
    """(seconds, depth) at which the key came to stay, or None; and the last first move."""
    found, last = None, None
    with engine.analysis(board, chess.engine.Limit(time=seconds), game=game) as search:
        for info in search:
            pv = info.get("pv")
            if not pv:
                continue
            last = pv[0]
            if last in keys:
                if found is None:
                    found = (info.get("time", 0.0), info.get("depth"))
            else:
                found = None
    return found, last


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True, help="a UCI engine's path")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option, repeatable (Threads is 1 unless given)")
    parser.add_argument("--epd", default="tests/data/wac.epd")
    parser.add_argument("--ids", help="comma-separated ids; every position if left out")
    parser.add_argument("--time", type=float, default=15.0, help="seconds per position")
    args = parser.parse_args()

    suite = read_suite(args.epd)
    ids = args.ids.split(",") if args.ids else list(suite)
    unknown = [i for i in ids if i not in suite]
    if unknown:
        sys.exit(f"not a position with a `bm` in {args.epd}: {', '.join(unknown)}")
    options = {"Threads": 1}
    for pair in args.option:
        name, sep, value = pair.partition("=")
        if not sep:
            sys.exit(f"--option {pair!r}: expected NAME=VALUE")
        options[name] = option_value(value)

    engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    engine.configure(options)
    print("id,key,found_s,depth,final")
    for ident in ids:
        board, keys = suite[ident]
        found, last = time_to_key(engine, board, keys, args.time, game=ident)
        key = " ".join(board.san(k) for k in keys)
        final = board.san(last) if last else ""
        seconds, depth = found if found else ("", "")
        print(f"{ident},{key},{seconds},{depth if depth is not None else ''},{final}",
              flush=True)
    engine.quit()


if __name__ == "__main__":
    main()
