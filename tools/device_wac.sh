#!/bin/bash
# WAC at 1 s a position on the 16-core machine of the `device` tool: `pvs` (THREADS
# threads, 2 unless said) and Stockfish (as many) in the same `searchlight epd` run, once
# per evaluator.
#
#   SHARDS=4 THREADS=2 EVALS="nnue classical" tools/device_wac.sh
#
# Needs the release binary at device/sl and Stockfish at device/stockfish (copied from
# /usr/games), both named in the call's `carry`. Nine minutes of one-position-at-a-time
# work do not fit one call, so `epd --concurrency SHARDS` searches SHARDS positions at
# once, each worker with its own engines: at most THREADS × SHARDS threads search at
# once (kept under the core count, so no search shares a core). The CSVs and logs come
# back packed in $OUT/wac.tgz; the totals are printed.
set -u
cd "$(dirname "$0")/.."
L=/tmp/wac; rm -rf $L; mkdir -p $L
echo "cores: $(nproc)"
lscpu | grep -E '^(Model name|Thread|Core|Socket)' || true
device/sl bench 2>&1 | tail -1
F=${WAC:-tests/data/wac.epd}; MS=${MS:-1000}
S=${SHARDS:-4}; T=${THREADS:-2}
for ev in ${EVALS:-nnue classical}; do
  t0=$(date +%s)
  device/sl epd --file "$F" --movetime "$MS" --concurrency "$S" --quiet \
    --engine "pvs Threads=$T Eval=$ev name=pvs" \
    --engine "cmd=$PWD/device/stockfish option.Threads=$T name=stockfish" \
    --csv "$L/$ev.csv" > "$L/$ev.log" 2>&1
  echo "== Eval=$ev: $(( $(date +%s) - t0 )) s"
  cat "$L/$ev.log"
  # Columns: engine,id,expected,played,solved,...
  awk -F, '$1 != "engine" && $5 != "true" { miss[$1] = miss[$1] " " $2 }
    END { for (e in miss) printf "%s missing%s\n", e, miss[e] }' "$L/$ev.csv"
done
tar czf ${OUT:-/tmp}/wac.tgz -C $L .
