#!/usr/bin/env python3
"""What an analysis GUI or a python-chess script expects of the engine, checked through
python-chess itself: MultiPV analysis, WDL reports, and a limited-strength level that
plays a whole game. Exit status 1 on any failure.

    python3 tools/gui_check.py --binary target/release/searchlight
"""

import argparse
import sys

import chess
import chess.engine


def check_multipv(engine, failures):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = engine.analyse(board, chess.engine.Limit(depth=10), multipv=3)
    moves = [info["pv"][0] for info in infos]
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    print(f"multipv=3: {len(infos)} lines: " + ", ".join(
        f"{board.san(m)} {s:+d}" for m, s in zip(moves, scores)))
    if len(infos) != 3 or len(set(moves)) != 3:
        failures.append(f"multipv=3 gave {len(infos)} lines, moves {moves}")
    if scores != sorted(scores, reverse=True):
        failures.append(f"multipv lines not best first: {scores}")


def check_wdl(engine, failures):
    engine.configure({"UCI_ShowWDL": True})
    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=8))
    engine.configure({"UCI_ShowWDL": False})
    wdl = info.get("wdl")
    print(f"UCI_ShowWDL: info['wdl'] = {wdl}")
    if wdl is None:
        failures.append("no wdl with UCI_ShowWDL")
    elif wdl.relative.total() != 1000:
        failures.append(f"wdl does not sum to 1000: {wdl}")


def check_limited_game(binary, failures):
    weak = chess.engine.SimpleEngine.popen_uci(binary)
    strong = chess.engine.SimpleEngine.popen_uci(binary)
    try:
        weak.configure({"UCI_LimitStrength": True, "UCI_Elo": 1500})
        board = chess.Board()
        players = {chess.WHITE: weak, chess.BLACK: strong}
        while not board.is_game_over(claim_draw=True) and board.ply() < 600:
            limit = chess.engine.Limit(time=0.05) if board.turn == chess.WHITE \
                else chess.engine.Limit(nodes=20000)
            result = players[board.turn].play(board, limit)
            if result.move is None or result.move not in board.legal_moves:
                failures.append(f"illegal or no move {result.move} at ply {board.ply()}")
                return
            board.push(result.move)
        outcome = board.outcome(claim_draw=True)
        print(f"UCI_LimitStrength + UCI_Elo 1500 (White) against full strength at 20000 "
              f"nodes: {board.ply()} plies, {board.result(claim_draw=True)} "
              f"({outcome.termination.name.lower() if outcome else 'unfinished'})")
        if outcome is None:
            failures.append("the limited-strength game did not end")
    finally:
        weak.quit()
        strong.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/searchlight")
    args = parser.parse_args()
    failures = []
    engine = chess.engine.SimpleEngine.popen_uci(args.binary)
    try:
        check_multipv(engine, failures)
        check_wdl(engine, failures)
    finally:
        engine.quit()
    check_limited_game(args.binary, failures)
    for f in failures:
        print(f"FAIL: {f}")
    print("gui checks: " + ("all passed" if not failures else f"{len(failures)} failed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
