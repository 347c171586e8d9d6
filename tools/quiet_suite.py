#!/usr/bin/env python3
"""Builds an EPD suite of quiet positions whose best move is a quiet one, keyed by Stockfish.

Win At Chess asks for tactics; this suite asks for judgement. Positions are drawn (seeded)
from `searchlight datagen` output, which holds only quiet positions (not in check, the move
played not a capture), and kept when a fixed-depth Stockfish search with two lines finds:

- a best move that is quiet: no capture, no promotion, no check;
- a best line no more than `--max-score` centipawns from equality (a won position's best
  move is rarely the only good one);
- a second line at least `--gap` centipawns worse (one move clearly best).

Each line carries `bm`, an `id`, and in `c0` the two lines' scores. Stockfish runs with one
thread at a fixed depth after `ucinewgame`, one process per `--jobs`, and the positions are
kept in the sampled order, so the same command writes the same file.

    python3 tools/quiet_suite.py --data d10.txt --count 100 --seed 1 --jobs 2 --out tests/data/quiet.epd
"""
import argparse
import concurrent.futures
import random
import threading

import chess
import chess.engine


def sample(path, seed, skip_plies):
    """The data file's FENs in a seeded random order, past the opening."""
    fens = []
    with open(path) as f:
        for line in f:
            fen = line.split("|")[0].strip()
            fullmove = int(fen.split()[5])
            if fullmove * 2 >= skip_plies:
                fens.append(fen)
    random.Random(seed).shuffle(fens)
    return fens


def quiet(board, move):
    return not (board.is_capture(move) or move.promotion or board.gives_check(move))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a file written by `searchlight datagen`")
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--depth", type=int, default=18)
    ap.add_argument("--gap", type=int, default=60, help="centipawns between the two lines")
    ap.add_argument("--max-score", type=int, default=200)
    ap.add_argument("--skip-plies", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2, help="Stockfish processes")
    args = ap.parse_args()

    local = threading.local()
    engines = []

    def analyse(fen):
        """The EPD line for `fen` if it belongs in the suite, else None."""
        if not hasattr(local, "engine"):
            local.engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
            local.engine.configure({"Threads": 1, "Hash": 64})
            engines.append(local.engine)
        board = chess.Board(fen)
        if board.is_check() or board.legal_moves.count() < 2:
            return None
        local.engine.protocol.send_line("ucinewgame")
        lines = local.engine.analyse(board, chess.engine.Limit(depth=args.depth), multipv=2)
        if len(lines) < 2 or "pv" not in lines[0]:
            return None
        best = lines[0]["pv"][0]
        first = lines[0]["score"].pov(board.turn).score()
        second = lines[1]["score"].pov(board.turn).score()
        if first is None or second is None:  # a mate: not a judgement position
            return None
        if not quiet(board, best) or abs(first) > args.max_score or first - second < args.gap:
            return None
        return board, best, first, second

    kept, seen = [], 0
    fens = sample(args.data, args.seed, args.skip_plies)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # Analysed a batch at a time and read in order: the file does not depend on which
        # process finished first.
        for start in range(0, len(fens), 8 * args.jobs):
            if len(kept) >= args.count:
                break
            for found in pool.map(analyse, fens[start : start + 8 * args.jobs]):
                seen += 1
                if found is None or len(kept) >= args.count:
                    continue
                board, best, first, second = found
                n = len(kept) + 1
                epd = board.epd(
                    bm=[best],
                    id=f"QUIET.{n:03}",
                    c0=f"Stockfish depth {args.depth}: {first:+d} cp, second line {second:+d} cp",
                )
                kept.append(epd)
                print(f"{n:3} of {seen:4} analysed: {epd}", flush=True)
    for engine in engines:
        engine.quit()
    with open(args.out, "w") as f:
        f.write("\n".join(kept) + "\n")
    print(f"{len(kept)} positions kept of {seen} analysed; wrote {args.out}")


if __name__ == "__main__":
    main()
