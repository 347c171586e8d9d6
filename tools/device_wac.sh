#!/bin/bash
# WAC at 1 s a position on the 16-core machine of the `device` tool: `pvs` (THREADS
# threads, 2 unless said) and Stockfish (as many) in the same `searchlight epd` run, once
# per evaluator.
#
#   SHARDS=4 THREADS=2 EVALS="nnue classical" tools/device_wac.sh
#
# Needs the release binary at device/sl and Stockfish at device/stockfish (copied from
# /usr/games), both named in the call's `carry`. Nine minutes of one-position-at-a-time
# work do not fit one call, so the suite is cut into SHARDS parts run side by side: each
# part is a plain `epd` run, the engines taking turns on each position, so at most
# THREADS × SHARDS threads search at once (kept under the core count, so no search
# shares a core). The CSVs and logs come back packed in $OUT/wac.tgz; the totals are
# printed.
set -u
cd "$(dirname "$0")/.."
L=/tmp/wac; rm -rf $L; mkdir -p $L
echo "cores: $(nproc)"
lscpu | grep -E '^(Model name|Thread|Core|Socket)' || true
device/sl bench 2>&1 | tail -1
F=${WAC:-tests/data/wac.epd}; MS=${MS:-1000}
N=$(grep -c . "$F")
S=${SHARDS:-4}; T=${THREADS:-2}
split -l $(( (N + S - 1) / S )) -d "$F" $L/part.
for ev in ${EVALS:-nnue classical}; do
  t0=$(date +%s)
  for f in $L/part.*; do
    p=$(basename "$f")
    device/sl epd --file "$f" --movetime "$MS" --engine "pvs Threads=$T Eval=$ev" \
      --engine "cmd=$PWD/device/stockfish option.Threads=$T" --quiet \
      --csv "$L/$ev.$p.csv" > "$L/$ev.$p.log" 2>&1 &
  done
  wait
  echo "== Eval=$ev: $(( $(date +%s) - t0 )) s"
  # Columns: engine,id,expected,played,solved,depth,time_ms.
  cat $L/$ev.part.*.csv | awk -F, '$1 != "engine" { n[$1]++; if ($5 == "true") s[$1]++;
      else miss[$1] = miss[$1] " " $2 }
    END { for (e in n) printf "%s: %d/%d, missing%s\n", e, s[e], n[e], miss[e] }'
done
tar czf ${OUT:-/tmp}/wac.tgz -C $L .
