#!/usr/bin/env python3
"""How wrong is a miss? The moves a test-suite run played instead of the key, judged by a
long search of a referee engine.

A suite such as Win At Chess keys each position with the move its author found, and many
positions have more than one way to win (the published corrections list dozens of
additional solutions). `searchlight epd --csv FILE` records the move each engine played;
this tool takes every miss in that file and searches the position twice with the referee
(Stockfish by default), once restricted to the key moves and once to the move played
(`go searchmoves`), for `--time` seconds each, and sorts the miss into one of:

- `as good`: the move played scores at least as well as the best key, less `--margin`
  centipawns; where the key mates, the move played mates as fast or faster;
- `also wins`: both score `--win` centipawns or more (or mate) for the side to move, the
  move played the lesser win;
- `miss`: neither — the key wins and the move played does not, or it lets a win slip.

Each (position, move) pair is searched once, however many engines played it, and in the
same session, so every engine's misses are judged alike. The referee is one of the
contestants when it is Stockfish, and a long search of its own tends to agree with its
short one: read its row with that in mind.

    python3 tools/suite_misses.py --csv run.csv --epd tests/data/wac.epd [--time 20]
"""

import argparse
import csv
import re
import sys
from collections import defaultdict

import chess
import chess.engine


def read_suite(path):
    """The positions of an EPD file by id: the board and its key moves."""
    suite = {}
    for number, line in enumerate(open(path), start=1):
        fields = line.split()
        if len(fields) < 4:
            continue
        board = chess.Board(" ".join(fields[:4]) + " 0 1")
        ident = re.search(r'\bid "([^"]+)"', line)
        keys = re.search(r"\bbm ([^;]+);", line)
        if not ident:
            sys.exit(f"{path}:{number}: no id")
        if not keys:
            continue  # an `am`-only position has no key to judge a move against
        suite[ident.group(1)] = (board, [board.parse_san(m) for m in keys.group(1).split()])
    return suite


def read_misses(path):
    """Per engine, the (id, move played) of every position it did not solve."""
    misses = defaultdict(list)
    counts = defaultdict(lambda: [0, 0])
    for row in csv.DictReader(open(path)):
        counts[row["engine"]][1] += 1
        if row["solved"] == "true":
            counts[row["engine"]][0] += 1
        else:
            misses[row["engine"]].append((row["id"], row["played"]))
    return misses, counts


def pov_value(score, mate_value=100000):
    """A referee score as one number for the side to move: a faster mate is larger."""
    return score.score(mate_score=mate_value)


def verdict(key, played, margin, win):
    """`as good`, `also wins` or `miss` for the move played against the key, both as
    scores for the side to move."""
    key_mate, played_mate = key.mate(), played.mate()
    if key_mate is not None and key_mate > 0:
        # A mate is judged by its length, not by a margin: a mate in 36 is a win but not
        # the key's mate in 6.
        as_good = played_mate is not None and 0 < played_mate <= key_mate
    else:
        as_good = pov_value(played) >= pov_value(key) - margin
    if as_good:
        return "as good"
    if pov_value(played) >= win and pov_value(key) >= win:
        return "also wins"
    return "miss"


def describe(score):
    mate = score.mate()
    return f"#{mate}" if mate is not None else f"{score.score():+d}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csv", required=True, help="the output of `searchlight epd --csv`")
    parser.add_argument("--epd", required=True, help="the suite the run used")
    parser.add_argument("--referee", default="/usr/games/stockfish")
    parser.add_argument("--time", type=float, default=20.0, help="seconds per search")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--hash", type=int, default=256)
    parser.add_argument("--margin", type=int, default=50, help="cp below the key still `as good`")
    parser.add_argument("--win", type=int, default=300, help="cp that count as a win")
    args = parser.parse_args()

    suite = read_suite(args.epd)
    misses, counts = read_misses(args.csv)
    referee = chess.engine.SimpleEngine.popen_uci(args.referee)
    referee.configure({"Threads": args.threads, "Hash": args.hash})
    memo = {}

    def judge(ident, move):
        if (ident, move) not in memo:
            board, _ = suite[ident]
            # A fresh game for each search, so no search inherits another's table.
            info = referee.analyse(board, chess.engine.Limit(time=args.time),
                                   root_moves=[move], game=(ident, move))
            memo[(ident, move)] = info["score"].relative
        return memo[(ident, move)]

    verdicts = defaultdict(lambda: defaultdict(int))
    print("engine,id,key,key_score,played,played_score,verdict")
    for engine in sorted(misses):
        for ident, san in misses[engine]:
            if ident not in suite:
                sys.exit(f"{ident}: not a position with a `bm` in {args.epd}")
            board, keys = suite[ident]
            try:
                played = board.parse_san(san)
            except ValueError:
                sys.exit(f"{ident}: the csv's move {san!r} is not legal here")
            key, key_score = max(((k, judge(ident, k)) for k in keys),
                                 key=lambda pair: pov_value(pair[1]))
            played_score = judge(ident, played)
            judged = verdict(key_score, played_score, args.margin, args.win)
            verdicts[engine][judged] += 1
            print(f"{engine},{ident},{board.san(key)},{describe(key_score)},{san},"
                  f"{describe(played_score)},{judged}", flush=True)
    referee.quit()

    print(f"\nreferee {args.referee}, {args.time:g} s a search, {args.threads} threads; "
          f"as good: within {args.margin} cp of the key (a mate: as fast); "
          f"also wins: both >= {args.win} cp",
          file=sys.stderr)
    for engine in sorted(counts):
        solved, total = counts[engine]
        v = verdicts[engine]
        print(f"{engine}: solved {solved}/{total}; of the {total - solved} misses "
              f"{v['as good']} as good as the key, {v['also wins']} also winning, "
              f"{v['miss']} real misses -> {solved + v['as good']} key-or-better, "
              f"{solved + v['as good'] + v['also wins']} winning", file=sys.stderr)


if __name__ == "__main__":
    main()
