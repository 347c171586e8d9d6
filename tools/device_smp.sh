#!/bin/sh
# Lazy SMP of `pvs` on the 16-core machine of the `device` tool: nodes per second by thread
# count, then games between thread counts at equal time.
#
#   cp target/release/searchlight device/
#   tools/device_smp.sh                                               # 4 and 8 threads against 1
#   SPEED=0 SEED=42 MATCHES="2:1:280:4 8:4:70:1" tools/device_smp.sh  # 2 against 1, 8 against 4
#
# Measured there on 2026-11-30 as these two calls (304 s and 230 s). The machine has no
# Rust: build here, copy the binary into the git-ignored `device/` folder and name it in
# the call's `carry`. MATCHES lists `THREADS:THREADS:GAMES:CONCURRENCY` per match, all
# played side by side; a game has one engine thinking at a time, so a match takes at most
# its larger thread count times its concurrency of the cores (the defaults: 4 × 2 + 8 × 1
# = 16). Both sides keep 30 ms a move back for thread wake-up on a virtualised machine, as
# the UCT family's matches there do. The JSON files are rewritten after every game, so a
# run cut short still has its results. TC, MOVETIME (ms a position for the speed table),
# THREADS (its thread counts) and SPEED=0 (no speed table) shorten a trial run.
set -eu

BIN=${BIN:-device/searchlight}
OUT=${OUT:-device-out}
MATCHES=${MATCHES:-4:1:160:2 8:1:80:1}
SEED=${SEED:-41}
TC=${TC:-1+0.01}
MOVETIME=${MOVETIME:-2000}
THREADS=${THREADS:-1,2,4,8,16}
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no engine at $BIN: build, then cp target/release/searchlight device/" >&2; exit 2; }
echo "cores: $(nproc)"
"$BIN" bench 2>&1 | tail -n 1

if [ "${SPEED:-1}" != 0 ]; then
    # `UCT_Parallel` is set by the script for every backend and means nothing to `pvs`.
    python3 tools/uct_threads.py --binary "$BIN" --threads "$THREADS" --modes tree \
        --backends pvs --movetime "$MOVETIME" | tee "$OUT/smp-nps.md"
fi

# `a:b:games:concurrency` into $a $b $games $conc.
split() {
    old_ifs=$IFS
    IFS=:
    # shellcheck disable=SC2086 # the split is the point
    set -- $1
    IFS=$old_ifs
    a=$1 b=$2 games=$3 conc=$4
}

for m in $MATCHES; do
    split "$m"
    "$BIN" match \
        --engine "pvs Threads=$a Move Overhead=30 name=pvs-t$a" \
        --engine "pvs Threads=$b Move Overhead=30 name=pvs-t$b" \
        --games "$games" --tc "$TC" --concurrency "$conc" \
        --openings openings/balanced_8ply.epd --openings-order random --seed "$SEED" \
        --json "$OUT/smp-t$a-t$b.json" >"$OUT/smp-t$a-t$b.txt" 2>/dev/null &
done
wait
for m in $MATCHES; do
    split "$m"
    tail -n 6 "$OUT/smp-t$a-t$b.txt"
done
