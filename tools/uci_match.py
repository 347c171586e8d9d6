#!/usr/bin/env python3
"""Plays Searchlight backends against each other through python-chess, a real UCI client.

Every move is checked for legality, every clock is kept by this script from the wall time
of each `go` (so a slow engine really loses on time), and an engine that dies or answers
nonsense is recorded as such. Openings come from an EPD file, each played twice with the
colours swapped. The exit status is 1 if any game ended by an illegal move, a time loss or
a crash.

    pip install chess
    python3 tools/uci_match.py --pair pvs:alphabeta --pair pvs:pvs --tc 1+0.01 --tc 5+0.05 --games 20

A player is a backend name, optionally with UCI options after slashes:
"pvs/Threads=2/Hash=64". W-D-L is counted for the first player of each pair.
"""
import argparse
import collections
import concurrent.futures
import logging
import os
import random
import re
import signal
import sys
import threading
import time

import chess
import chess.engine

ENGINE_TIMEOUT = 30.0  # seconds python-chess waits for a reply before declaring a hang
HANG_GRACE = 5.0  # seconds past an engine's clock before the watchdog kills it


class Transcript(logging.Handler):
    """Keeps the last UCI lines of every engine process, to show what led to a problem.

    python-chess logs each line it sends and receives as "<Protocol (pid=N)>: >> line"."""

    def __init__(self, keep=40):
        super().__init__(logging.DEBUG)
        self.lines = collections.defaultdict(lambda: collections.deque(maxlen=keep))
        self.guard = threading.Lock()

    def emit(self, record):
        text = record.getMessage()
        found = re.search(r"pid=(\d+)", text)
        if found:
            with self.guard:
                self.lines[int(found.group(1))].append(text.split(": ", 1)[-1])

    def tail(self, pid):
        with self.guard:
            return list(self.lines.get(pid, ()))


TRANSCRIPT = Transcript()


def parse_player(text):
    """'pvs/Threads=2/Hash=32' -> ('pvs', {'Threads': '2', 'Hash': '32'})"""
    name, *opts = text.split("/")
    options = {}
    for opt in opts:
        key, _, value = opt.partition("=")
        options[key] = value
    return name, options


def parse_tc(text):
    base, _, inc = text.partition("+")
    return float(base), float(inc or 0)


def load_openings(path):
    fens = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4:
                fens.append(" ".join(fields[:4]) + " 0 1")
    return fens


class Outcome:
    def __init__(self, result, reason, plies, white, black, problem=None):
        self.result = result  # "1-0", "0-1", "1/2-1/2"
        self.reason = reason
        self.plies = plies
        self.white = white
        self.black = black
        self.problem = problem  # None, "illegal", "time", "crash", "hang"


def play_game(binary, white, black, fen, tc):
    base, inc = tc
    board = chess.Board(fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    engines = {}
    clocks = {chess.WHITE: base, chess.BLACK: base}
    try:
        for color, (name, options) in players.items():
            eng = chess.engine.SimpleEngine.popen_uci(binary, timeout=ENGINE_TIMEOUT)
            eng.configure({"Search": name, **options})
            eng.ping()
            engines[color] = eng
        while not board.is_game_over(claim_draw=True):
            side = board.turn
            limit = chess.engine.Limit(
                white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                white_inc=inc, black_inc=inc)
            start = time.perf_counter()
            # python-chess has no timeout of its own for clock-limited searches: a watchdog
            # kills an engine that overstays its clock, so a hang is a recorded loss.
            pid = engines[side].protocol.transport.get_pid()
            hung = threading.Event()

            def kill(pid=pid, hung=hung):
                hung.set()
                os.kill(pid, signal.SIGKILL)

            watchdog = threading.Timer(clocks[side] + HANG_GRACE, kill)
            watchdog.start()
            try:
                result = engines[side].play(board, limit)
            except chess.engine.EngineTerminatedError:
                problem = "hang" if hung.is_set() else "crash"
                print(f"{problem} of {players[side][0]} (pid {pid}) in {board.fen()}; last UCI lines:\n  "
                      + "\n  ".join(TRANSCRIPT.tail(pid)), file=sys.stderr, flush=True)
                return loss(side, problem, board, players)
            except (chess.engine.EngineError, chess.IllegalMoveError, ValueError):
                return loss(side, "illegal", board, players)
            except TimeoutError:
                return loss(side, "time", board, players)
            finally:
                watchdog.cancel()
            elapsed = time.perf_counter() - start
            clocks[side] -= elapsed
            if clocks[side] < 0:
                return loss(side, "time", board, players)
            clocks[side] += inc
            if result.move is None or result.move not in board.legal_moves:
                return loss(side, "illegal", board, players)
            board.push(result.move)
        outcome = board.outcome(claim_draw=True)
        return Outcome(outcome.result(), outcome.termination.name.lower(), board.ply(),
                       white[0], black[0])
    finally:
        for eng in engines.values():
            try:
                eng.quit()
            except Exception:  # an engine that already died
                pass


def loss(side, problem, board, players):
    result = "0-1" if side == chess.WHITE else "1-0"
    return Outcome(result, problem, board.ply(), players[chess.WHITE][0], players[chess.BLACK][0],
                   problem=problem)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="target/release/searchlight")
    ap.add_argument("--pair", action="append", required=True,
                    help="A:B, each a backend name with optional /Option=value parts")
    ap.add_argument("--tc", action="append", required=True, help="base+increment in seconds")
    ap.add_argument("--games", type=int, default=20, help="games per pair and time control")
    ap.add_argument("--openings", default="openings/balanced_8ply.epd")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=2)
    args = ap.parse_args()
    engine_log = logging.getLogger("chess.engine")
    engine_log.setLevel(logging.DEBUG)
    engine_log.addHandler(TRANSCRIPT)
    engine_log.propagate = False

    openings = load_openings(args.openings)
    rng = random.Random(args.seed)
    jobs = []
    for pair in args.pair:
        a, b = (parse_player(p) for p in pair.split(":"))
        for tc_text in args.tc:
            tc = parse_tc(tc_text)
            chosen = rng.sample(openings, (args.games + 1) // 2)
            for i in range(args.games):
                fen = chosen[i // 2]
                a_white = i % 2 == 0
                white, black = (a, b) if a_white else (b, a)
                jobs.append((pair, tc_text, white, black, fen, tc, a_white))

    lock = threading.Lock()
    tally = {}
    problems = 0

    def run(job):
        pair, tc_text, white, black, fen, tc, a_white = job
        out = play_game(args.binary, white, black, fen, tc)
        return pair, tc_text, a_white, out

    print(f"{len(jobs)} games, {args.concurrency} at a time", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        for n, (pair, tc_text, a_white, out) in enumerate(pool.map(run, jobs), 1):
            with lock:
                t = tally.setdefault((pair, tc_text), {"w": 0, "d": 0, "l": 0, "problems": 0, "plies": 0})
                t["plies"] += out.plies
                if out.result == "1/2-1/2":
                    t["d"] += 1
                elif (out.result == "1-0") == a_white:
                    t["w"] += 1
                else:
                    t["l"] += 1
                if out.problem:
                    t["problems"] += 1
                    problems += 1
                print(f"{n:>3}/{len(jobs)} {tc_text:>8} {out.white} - {out.black}: {out.result} "
                      f"({out.reason}, {out.plies} plies)" + (f"  PROBLEM: {out.problem}" if out.problem else ""),
                      flush=True)

    print()
    print(f"{'pair':<22} {'tc':>8} {'W-D-L (first player)':>22} {'avg plies':>10} {'problems':>9}")
    for (pair, tc_text), t in tally.items():
        games = t["w"] + t["d"] + t["l"]
        print(f"{pair:<22} {tc_text:>8} {t['w']:>8}-{t['d']}-{t['l']:<11} {t['plies'] / max(games, 1):>10.0f} "
              f"{t['problems']:>9}")
    print(f"\nillegal moves, time losses and crashes: {problems}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
