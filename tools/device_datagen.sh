#!/bin/bash
# Self-play training data on the 16-core machine of the `device` tool: `searchlight
# datagen` on every core until SECS seconds have passed, then stopped with Ctrl-C (the
# finished games are kept, no half line is written) and packed for the trip back.
#
#   SECS=440 NODES=10000 SEED=132 PARTS=3 tools/device_datagen.sh
#
# Needs the release binary at device/sl (copied from target/release, named in the call's
# `carry`). The `device` tool brings back files of at most 16 MiB each, so the positions
# are split into PARTS gzipped pieces under $OUT; `zcat $R/*.gz > data.txt` joins them
# here, in any order. Used on 2026-12-05 for the nineteenth net round (docs/nnue.md).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/datagen-out}; mkdir -p "$OUT"
echo "cores: $(nproc)"
device/sl bench 2>&1 | tail -1
D=/tmp/datagen.txt; rm -f $D /tmp/datagen_part*
timeout -s INT "${SECS:-440}" device/sl datagen --out $D --games 1000000 \
  --nodes "${NODES:-10000}" --threads "$(nproc)" --seed "${SEED:-132}" --eval "${EVAL:-nnue}" \
  2>&1 | tr '\r' '\n' | grep -v '^ *$' | tail -2
split -n "l/${PARTS:-3}" -d $D /tmp/datagen_part
for f in /tmp/datagen_part*; do gzip -c "$f" > "$OUT/$(basename "$f").gz"; done
ls -l "$OUT"
