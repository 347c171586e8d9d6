#!/usr/bin/env python3
"""How many moves an engine's clock lasts at sudden death, with no opponent in the way.

The engine is asked for a move again and again from one position (`position fen`, then
`go wtime T btime T`), and each move's wall time, from sending `go` to reading `bestmove`,
is taken off T, as a GUI's clock would. It stops when T runs out (the flag) or after
--max-moves, and prints the move count and the clock at a few milestones. Nothing but the
engine's time management and its fixed cost per move is measured: no pondering, no
opponent sharing the cores. With --gap, each `go` comes that many milliseconds after the
last `bestmove`, off the clock, as the opponent's move would in a game.

    python3 tools/sudden_death.py target/release/searchlight --clock 1000
    python3 tools/sudden_death.py /usr/games/stockfish --clock 1000
"""

import argparse
import time

from uci_pipe import Engine

MILESTONES = (50, 100, 200, 400, 800, 1600)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", help="a UCI engine's command line")
    parser.add_argument("--clock", type=float, default=1000.0, help="starting clock in ms")
    parser.add_argument(
        "--fen",
        default="8/5k2/8/3K4/8/8/5P2/8 w - - 0 1",
        help="the position searched at every move (a pawn ending by default)",
    )
    parser.add_argument("--max-moves", type=int, default=2000)
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        help="ms to wait after each bestmove, off the clock, as an opponent's move would",
    )
    args = parser.parse_args()

    engine = Engine(args.engine)
    send, wait_for = engine.send, engine.wait_for
    engine.start()
    engine.new_game()

    clock = args.clock
    moves = 0
    seen = {}
    # A clock under a millisecond is sent as 0, which some engines read as no clock at all
    # (and search forever): it counts as the flag.
    while clock >= 1 and moves < args.max_moves:
        if args.gap:
            time.sleep(args.gap / 1000)
        send(f"position fen {args.fen}")
        start = time.perf_counter()
        send(f"go wtime {int(clock)} btime {int(clock)}")
        wait_for("bestmove")
        clock -= (time.perf_counter() - start) * 1000
        moves += 1
        if moves in MILESTONES:
            seen[moves] = clock
    engine.quit()

    verdict = f"flag after {moves} moves" if clock < 1 else f"more than {moves} moves"
    marks = ", ".join(f"{n}: {ms:.1f} ms" for n, ms in seen.items())
    print(f"{args.engine}: {verdict} from {args.clock:.0f} ms (clock after {marks})")


if __name__ == "__main__":
    main()
