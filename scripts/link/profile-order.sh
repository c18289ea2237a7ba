#!/usr/bin/env bash
# Regenerates scripts/link/heartd.order, the hot-first function order scripts/build-release.sh links heartd with
# (docs/BENCHMARKS.md, "Hot code first"): profiles the static release build under callgrind in its steady state
# (scripts/link/callgrind-heartd.sh) — one sensor at 1/s with StartNotify and with AcquireNotify through
# ../shared/bench, and a gateway of 16 sensors at 1/s (scripts/bench/gateway-cpu.py) — and lists the functions of
# heartd that ran, hottest first (scripts/link/order-from-callgrind.py); then, after them, the functions of the
# periodic work those windows miss: 16 sensors at 4/s whose series rotate every 25 s (series.max_values=100), so the
# window holds the first rotation and save after start-up and several more. That work runs once a minute or so on
# a gateway (a series rotates after 1000 values), cold, and each page it touches stays resident with its 64 KB
# fault-around window: listed, it lies together after the steady state's code (docs/BENCHMARKS.md, "Memory").
# ~10 min. A stale list only costs speed and memory: symbols it names that no longer exist are skipped at link time.
#   scripts/link/profile-order.sh && scripts/build-release.sh heartd
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BENCH=${BENCH:-$ROOT/../shared/bench}
[ -x "$BENCH/run_bench.sh" ] || { echo "profile-order: no ../shared/bench (set BENCH=)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "profile-order: needs valgrind (callgrind)" >&2; exit 2; }
HEARTD=${HEARTD:-$(scripts/build-release.sh heartd)/heartd}
TMP=$(mktemp -d /tmp/heartd-order.XXXXXX)
objcopy --strip-debug "$HEARTD" "$TMP/heartd"
CG=$ROOT/scripts/link/callgrind-heartd.sh
"$BENCH/run_bench.sh" --setup >&2
for mode in start-notify acquire-notify; do
  "$BENCH/run_bench.sh" --out "$TMP/bench-$mode" --rates 1 --duration 90 --repeats 1 \
    --cmd "cg=env CG_HEARTD=$TMP/heartd CG_OUT=$TMP/cg.$mode CG_T0=30 CG_W=40 $ROOT/scripts/bench/heartd-subscriber.sh $CG $mode" >&2
done
CG_HEARTD=$TMP/heartd CG_OUT=$TMP/cg.gateway CG_T0=30 CG_W=20 \
  /usr/bin/python3 scripts/bench/gateway-cpu.py "$CG" --sensors 16 --rate 1 --seconds 55 >&2
# The first rotation comes ~25 s into the stream, inside the window (start-up is over by 30 s under callgrind).
CG_HEARTD=$TMP/heartd CG_OUT=$TMP/rotation CG_T0=30 CG_W=150 \
  /usr/bin/python3 scripts/bench/gateway-cpu.py "$CG" --sensors 16 --rate 4 --seconds 200 \
  --set series.max_values=100 --set series.max_beats=100 >&2
dumps=("$TMP"/cg.*.2)
rotation=("$TMP"/rotation.*.2)
[ ${#dumps[@]} -eq 3 ] && [ -s "${dumps[0]}" ] && [ -s "${rotation[0]}" ] ||
  { echo "profile-order: expected 3 steady-window dumps and a rotation dump in $TMP" >&2; exit 1; }
scripts/link/order-from-callgrind.py "$TMP/heartd" "${dumps[@]}" --then "${rotation[0]}" > scripts/link/heartd.order.new
mv scripts/link/heartd.order.new scripts/link/heartd.order
echo "profile-order: $(wc -l < scripts/link/heartd.order) functions in scripts/link/heartd.order (profiles in $TMP)" >&2
