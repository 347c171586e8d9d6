#!/usr/bin/env python3
"""Start positions with unequal pieces, drawn from `datagen` training data.

    python3 tools/unequal_starts.py DATA N > starts.epd

DATA is a `datagen` file (`FEN | score | result` per line). A position qualifies when the
knights, bishops, rooks and queens of the two sides differ by at least two pawns' worth
(N=B=3, R=5, Q=9), there are between 5 and 26 such points on the board and at least three
pawns, and the search score is within 250 cp: material is unequal but the game is open,
the kind of position where a sacrifice decides and the net has seen few examples. Each
board is taken once. Half of the N drawn (as far as there are enough) have a pawn on its
sixth or seventh rank. The draw is seeded, so the same data gives the same file; the
output is EPD with the four position fields, for `datagen --openings`.

The fourteenth and fifteenth rounds of the README's NNUE section used it on `p13.txt`
with N = 6000.
"""

import collections
import random
import sys

PIECE_POINTS = {"n": 3, "b": 3, "r": 5, "q": 9}


def survey(board):
    """Pawns, piece points and advanced pawns of a FEN board field."""
    pawns = [0, 0]  # white, black
    points = [0, 0]
    advanced = 0
    for index, row in enumerate(board.split("/")):
        rank = 8 - index
        for ch in row:
            if ch.isdigit():
                continue
            side = 0 if ch.isupper() else 1
            kind = ch.lower()
            if kind == "p":
                pawns[side] += 1
                if (side == 0 and rank >= 6) or (side == 1 and rank <= 3):
                    advanced += 1
            elif kind in PIECE_POINTS:
                points[side] += PIECE_POINTS[kind]
    return pawns, points, advanced


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: unequal_starts.py DATA N")
    wanted = int(sys.argv[2])
    random.seed(7)
    stats = collections.Counter()
    seen = set()
    found = []
    with open(sys.argv[1], encoding="utf-8") as data:
        for line in data:
            parts = line.split(" | ")
            if len(parts) != 3:
                continue
            fen, score = parts[0], int(parts[1])
            board = fen.split(" ")[0]
            pawns, points, advanced = survey(board)
            stats["all"] += 1
            if abs(score) > 250:
                continue
            unequal = abs(points[0] - points[1]) >= 2
            open_game = 5 <= sum(points) <= 26 and sum(pawns) >= 3
            if not (unequal and open_game) or board in seen:
                continue
            seen.add(board)
            stats["unequal"] += 1
            stats["advanced"] += bool(advanced)
            found.append((advanced, fen))
    print(dict(stats), file=sys.stderr)
    random.shuffle(found)
    with_advanced = [fen for advanced, fen in found if advanced]
    others = [fen for advanced, fen in found if not advanced]
    half = wanted // 2
    picked = with_advanced[:half] + others[: wanted - min(len(with_advanced), half)]
    random.shuffle(picked)
    for fen in picked:
        print(" ".join(fen.split(" ")[:4]))


if __name__ == "__main__":
    main()
