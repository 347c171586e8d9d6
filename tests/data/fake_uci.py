#!/usr/bin/env python3
"""A misbehaving UCI engine for the match tests.

Usage: fake_uci.py MODE [TAG]. It speaks UCI until the first `go`, then:
  crash    exits at once (no bestmove);
  hang     says nothing and ignores `stop` (only a kill ends it);
  illegal  answers `bestmove e2e5` (illegal from the start position for either side);
  garbage  answers `bestmove xyzzy`;
  waver    changes its mind between `g3g6` and `e5f7` (with a second line, `multipv 2`,
           that is not its main line), then answers `bestmove g3g6` — for WAC.001's
           solution time, which is the depth-4 line's.
TAG is ignored; tests use it to find their own processes.
"""
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "crash"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    cmd = line.strip()
    if cmd == "uci":
        say("id name fake-" + mode)
        say("uciok")
    elif cmd == "isready":
        say("readyok")
    elif cmd == "quit":
        sys.exit(0)
    elif cmd.startswith("go"):
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            while True:
                time.sleep(3600)
        if mode == "waver":
            say("info depth 1 score cp 10 pv g3g6 g7f6")
            say("info depth 2 score cp 5 pv e5f7 d6f8")
            say("info depth 3 multipv 1 score cp 5 pv e5f7 d6f8")
            say("info depth 3 multipv 2 score cp 0 pv g3g6 g7f6")
            say("info depth 4 score mate 2 pv g3g6 g7f6 g6h7")
            say("info depth 5 score mate 2 pv g3g6 g7f6 g6h7")
            say("bestmove g3g6")
            continue
        say("info depth 1 score cp 0")
        say("bestmove " + ("e2e5" if mode == "illegal" else "xyzzy"))
