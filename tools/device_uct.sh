#!/bin/sh
# Issue 16's measurements for the 16-core machine of the `device` tool. Measured there on
# 2026-11-26: `scaling` about 4 minutes, `matches` about 4 minutes a backend; they ran as
# `scaling` and `BACKENDS=ucth matches` in one call (500 s), then `BACKENDS=uctmaxh
# matches` (207 s), 762 s of one session's 15 minutes with the start-up:
#
#   tools/device_uct.sh scaling   # iterations/s by threads and mode (table, CSV, SVG), and
#                                 # critical-level trees with 1 to 16 threads on one tree
#   tools/device_uct.sh matches   # 8 threads against 1, `tree` and `root`, ucth and uctmaxh
#
# The machine has no Rust: build here, copy the binary into the git-ignored `device/`
# folder and name it in the call's `carry` (`cp target/release/searchlight device/`).
# Results go to $OUT, or ./device-out without it: about 20 files for `scaling`, more than the
# tool brings back from its own $OUT, so point OUT elsewhere and pack them into that.
# GAMES and TC override the matches' 100 games at 1+0.01: at that control a game takes
# about two seconds, and the two modes' matches run side by side, each game with one
# engine thinking at a time, so at most 8 + 8 threads share the 16 cores. MOVETIME (ms a
# position) and HEIGHT (of the critical-level trees) make `scaling` shorter for a trial run
# on a small machine; BACKENDS ("ucth uctmaxh") picks whose matches run, so that the two
# backends can go in separate calls.
set -eu

BIN=${BIN:-device/searchlight}
OUT=${OUT:-device-out}
GAMES=${GAMES:-100}
TC=${TC:-1+0.01}
MOVETIME=${MOVETIME:-1000}
HEIGHT=${HEIGHT:-20}
BACKENDS=${BACKENDS:-ucth uctmaxh}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no engine at $BIN: build, then cp target/release/searchlight device/" >&2; exit 2; }
nproc >"$OUT/cores.txt"

case "${1:-}" in
scaling)
    python3 tools/uct_threads.py --binary "$BIN" --threads 1,2,4,8,16 --modes tree,root \
        --backends ucth,uctmaxh --movetime "$MOVETIME" \
        --csv "$OUT/uct-threads.csv" --svg "$OUT/uct-threads.svg" | tee "$OUT/uct-threads.md"
    # One thread count per process, all at once: 1 + 2 + 4 + 8 threads fit the 16 cores
    # (iterations, not time, are what this counts). 16 threads run after them.
    for t in 1 2 4 8; do
        "$BIN" trees critical --height "$HEIGHT" --first 0 --seeds 10 --max-iterations 300000 \
            --threads "$t" --csv "$OUT/critical-t$t.csv" --svg "$OUT/critical-t$t.svg" \
            >"$OUT/critical-t$t.txt" 2>/dev/null &
    done
    wait
    "$BIN" trees critical --height "$HEIGHT" --first 0 --seeds 10 --max-iterations 300000 \
        --threads 16 --csv "$OUT/critical-t16.csv" --svg "$OUT/critical-t16.svg" \
        >"$OUT/critical-t16.txt" 2>/dev/null
    tail -n 30 "$OUT"/critical-t*.txt
    ;;
matches)
    for backend in $BACKENDS; do
        for mode in tree root; do
            # Both sides keep 30 ms a move back for thread wake-up on a virtualised machine:
            # the time control is what these games share, not what they measure.
            "$BIN" match \
                --engine "$backend Threads=8 UCT_Parallel=$mode Move Overhead=30 name=$backend-t8-$mode" \
                --engine "$backend Threads=1 Move Overhead=30 name=$backend-t1" --games "$GAMES" --tc "$TC" \
                --concurrency 1 --resign 4 1000 --draw movenumber=40 movecount=8 score=10 \
                --openings openings/balanced_8ply.epd --openings-order random --seed 61 \
                --pgnout "$OUT/$backend-t8-$mode.pgn" >"$OUT/$backend-t8-$mode.txt" 2>&1 &
        done
        wait
    done
    tail -n 6 "$OUT"/*-t8-*.txt
    ;;
*)
    echo "usage: tools/device_uct.sh scaling|matches" >&2
    exit 2
    ;;
esac
