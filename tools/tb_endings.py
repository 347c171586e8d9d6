#!/usr/bin/env python3
"""Won endings for measuring what the Syzygy tables are worth in play.

Random positions of three materials (king, bishop and knight against king; queen against
rook; rook against pawn), each legal, not in check, won for the side to move by the
tables, and at least some plies from the next capture or pawn move (DTZ), so that the
win must be worked for. One EPD line each, shuffled, to stdout.

    python3 tools/tb_endings.py --tables DIR [--seed 11] > endings.epd
    python3 tools/tb_endings.py --tally games.pgn

The second form reads the games a match played from them and counts, per player and
material, how often the player with the won side won. DIR holds the tables of those materials (the three- and four-piece set; see the README,
"Endgame tables"). Needs python-chess.
"""
import argparse
import collections
import random

import chess
import chess.pgn
import chess.syzygy

W, B = chess.WHITE, chess.BLACK
# (pieces, how many positions, the least DTZ in plies)
MATERIALS = [
    ([(chess.KING, W), (chess.BISHOP, W), (chess.KNIGHT, W), (chess.KING, B)], 12, 40),
    ([(chess.KING, W), (chess.QUEEN, W), (chess.KING, B), (chess.ROOK, B)], 12, 30),
    ([(chess.KING, W), (chess.ROOK, W), (chess.KING, B), (chess.PAWN, B)], 8, 20),
]


def won_positions(tables, rng, pieces, count, least_dtz):
    found = []
    while len(found) < count:
        board = chess.Board(None)
        squares = rng.sample(list(chess.SQUARES), len(pieces))
        if any(p == chess.PAWN and chess.square_rank(s) in (0, 7)
               for s, (p, _) in zip(squares, pieces)):
            continue
        for s, (p, colour) in zip(squares, pieces):
            board.set_piece_at(s, chess.Piece(p, colour))
        board.turn = rng.choice([W, B])
        if not board.is_valid() or board.is_check():
            continue
        if tables.probe_wdl(board) != 2 or abs(tables.probe_dtz(board)) < least_dtz:
            continue
        found.append(board.epd())
    return found


def material(board):
    return "".join(chess.piece_symbol(p).upper() for p in (chess.QUEEN, chess.ROOK,
                   chess.BISHOP, chess.KNIGHT) if board.pieces(p, W)) + "vK" + "".join(
        chess.piece_symbol(p).upper() for p in (chess.ROOK, chess.PAWN) if board.pieces(p, B))


def tally(path):
    counts = collections.defaultdict(collections.Counter)
    with open(path) as pgn:
        while (game := chess.pgn.read_game(pgn)) is not None:
            board = chess.Board(game.headers["FEN"])
            winner = game.headers["White" if board.turn == W else "Black"]
            result = game.headers["Result"]
            won = result == ("1-0" if board.turn == W else "0-1")
            counts[(winner, "K" + material(board))]["won" if won else "not won"] += 1
    print("| player with the won side | material | won | not won |")
    print("| --- | --- | ---: | ---: |")
    for (player, mat), c in sorted(counts.items()):
        print(f"| {player} | {mat} | {c['won']} | {c['not won']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tally")
    args = parser.parse_args()
    if args.tally:
        return tally(args.tally)
    if not args.tables:
        parser.error("--tables DIR (or --tally PGN)")
    rng = random.Random(args.seed)
    with chess.syzygy.open_tablebase(args.tables) as tables:
        lines = [line for pieces, count, least in MATERIALS
                 for line in won_positions(tables, rng, pieces, count, least)]
    rng.shuffle(lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
