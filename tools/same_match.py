#!/usr/bin/env python3
"""Whether two runs of `searchlight match` played the same games: PGNs equal game for
game (ordered by Round; the per-move thinking time in the comments, the one thing that
varies between runs, masked) and JSON reports equal but for the elapsed seconds.

    python3 tools/same_match.py A.pgn A.json B.pgn B.json
"""
import json
import re
import sys


def games(path):
    text = open(path, encoding="utf-8").read()
    chunks = ["[Event " + g for g in text.split("[Event ")[1:]]
    by_round = {}
    for g in chunks:
        round_ = re.search(r'\[Round "(\d+)"\]', g).group(1)
        by_round[int(round_)] = re.sub(r"\d+\.\d+s\}", "Ts}", g)
    return by_round


def report(path):
    data = json.load(open(path, encoding="utf-8"))
    data.pop("seconds")
    data["games"] = sorted(data["games"], key=lambda g: int(g["round"]))
    return data


def main():
    a_pgn, a_json, b_pgn, b_json = sys.argv[1:5]
    a, b = games(a_pgn), games(b_pgn)
    differ = [r for r in sorted(set(a) | set(b)) if a.get(r) != b.get(r)]
    same_json = report(a_json) == report(b_json)
    print(f"{len(a)} and {len(b)} games; games that differ: {len(differ)}; "
          f"JSON reports equal: {same_json}")
    sys.exit(0 if not differ and same_json and len(a) == len(b) else 1)


main()
