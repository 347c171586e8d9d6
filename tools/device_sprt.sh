#!/bin/bash
# SPRTs of `pvs` candidates side by side on the 16-core machine of the `device` tool.
#
#   DEADLINE=480 C=4 JOBS=4 tools/device_sprt.sh lmp5:lmp5:123 threat:threat:124 ...
#
# Each argument is `label:name:seed[:games]`: a match of `device/w_<name>.sh` against
# `device/w_base.sh` at 1+0.01 on [-5, 15] (800 games unless said), JOBS of them at a time
# at C games each. The wrappers are two-line scripts that run one build (copied into the
# git-ignored `device/`, named in the call's `carry`) with a candidate on or off, e.g.
#   #!/bin/sh
#   SL_V=lmp5 exec "$(dirname "$0")/sl_v" "$@"
# so that both sides are the same binary and `bench` of the base equals the commit's.
# Every match ends by DEADLINE seconds (Ctrl-C, so the match prints its summary) and the
# logs come back packed in $OUT/logs.tgz. Used on 2026-11-28 (four SPRTs in one 480 s call).
set -u
cd "$(dirname "$0")/.."
L=/tmp/sprt-logs; mkdir -p $L
START=$(date +%s); DEADLINE=${DEADLINE:-480}
echo "cores: $(nproc)"
one() {
  IFS=: read -r label name seed games <<<"$1"
  left=$(( START + DEADLINE - $(date +%s) - 20 ))
  [ $left -gt 30 ] || { echo "$label: no time" > $L/$label.log; return; }
  timeout -s INT -k 20 $left device/sl_v match --engine "cmd=$PWD/device/w_$name.sh name=$name" \
    --engine "cmd=$PWD/device/w_base.sh name=base" --tc 1+0.01 --games ${games:-800} \
    --concurrency ${C:-4} --openings openings/balanced_8ply.epd --openings-order random \
    --seed $seed --sprt elo0=-5 elo1=15 > $L/$label.log 2>&1
  echo "$label done after $(( $(date +%s) - START )) s"
}
export -f one; export START DEADLINE L C
printf '%s\n' "$@" | xargs -P ${JOBS:-4} -I{} bash -c 'one {}'
for f in $L/*.log; do echo "== $f"; grep -E "^SPRT|vs base" $f | tail -2; done
tar czf ${OUT:-/tmp}/logs.tgz -C $L .
