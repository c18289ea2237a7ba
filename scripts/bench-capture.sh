#!/usr/bin/env bash
# Capture benchmark, side by side in one run (release build):
#  1. CPU per notification through D-Bus for the floor (../shared/bench/floor_sub.c: C on libdbus, blocks, counts,
#     nothing else), bleak (the usual Python choice) and heartd as it ships (the static build of
#     scripts/build-release.sh), each with StartNotify and AcquireNotify, against
#     the fake BlueZ of ../shared/bench on a private bus, same rates, interleaved; the harness's CPU figure for all
#     (scripts/bench/capture-table.py prints the medians, the ratios, heartd's self-report and whether heartd is
#     below bleak, the bound at every rate: docs/BENCHMARKS.md);
#  2. heartd's resident memory idle and with 16 sensors on 3 adapters (scripts/bench/memory.py), beside the older
#     build when HEARTD_BEFORE is given;
#  3. a gateway: heartd's whole CPU with 16 sensors at 1/s on 3 adapters, per thread (scripts/bench/gateway-cpu.py),
#     beside the target (0.5 ms/s) and the floor's 1/s StartNotify figure × 16 from step 1.
#   scripts/bench-capture.sh                                # rates 1,100, 20 s, 3 repeats (~20 min)
#   RATES=1 DURATION=30 REPEATS=1 scripts/bench-capture.sh  # the real rate of one sensor, longer
#   ONLY=floor,heartd scripts/bench-capture.sh              # leave bleak out (quicker)
#   HEARTD_BEFORE=/tmp/heartd-old scripts/bench-capture.sh  # also an older heartd build, interleaved (before/after)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BENCH=${BENCH:-$ROOT/../shared/bench}
[ -x "$BENCH/run_bench.sh" ] || { echo "bench-capture: no ../shared/bench (set BENCH=)" >&2; exit 2; }
scripts/setup.sh
"$BENCH/run_bench.sh" --setup >&2
HEARTD=${HEARTD:-$(scripts/build-release.sh heartd)/heartd}
# The floor is built here, never committed.
mkdir -p .build/bench
FLOOR=$ROOT/.build/bench/floor_sub
[ "$FLOOR" -nt "$BENCH/floor_sub.c" ] || cc -O2 -o "$FLOOR" "$BENCH/floor_sub.c" $(pkg-config --cflags --libs dbus-1)
SUB=$ROOT/scripts/bench/heartd-subscriber.sh
PY=${BLEAK_PY:-/tmp/bleakvenv/bin/python}
ONLY=${ONLY:-floor,bleak,heartd}
CMDS=()
for who in ${ONLY//,/ }; do
  case $who in
    floor) CMDS+=(--cmd "floor-StartNotify=$FLOOR" --cmd "floor-AcquireNotify=$FLOOR --acquire") ;;
    bleak) CMDS+=(--cmd "bleak-StartNotify=$PY $BENCH/bleak_sub.py" --cmd "bleak-AcquireNotify=$PY $BENCH/bleak_sub.py --acquire") ;;
    heartd) CMDS+=(--cmd "heartd-StartNotify=$SUB $HEARTD start-notify" --cmd "heartd-AcquireNotify=$SUB $HEARTD acquire-notify") ;;
    *) echo "bench-capture: ONLY takes floor, bleak, heartd" >&2; exit 2 ;;
  esac
done
if [ -n "${HEARTD_BEFORE:-}" ]; then
  CMDS+=(--cmd "before-StartNotify=$SUB $HEARTD_BEFORE start-notify" --cmd "before-AcquireNotify=$SUB $HEARTD_BEFORE acquire-notify")
fi
OUT=${OUT:-$(mktemp -d /tmp/heartd-bench-capture.XXXXXX)}
echo "## shared/bench, rates ${RATES:-1,100}/s, ${DURATION:-20} s, median of ${REPEATS:-3} (results in $OUT)"
"$BENCH/run_bench.sh" --out "$OUT" --rates "${RATES:-1,100}" --duration "${DURATION:-20}" --repeats "${REPEATS:-3}" \
  "${CMDS[@]}" | sed -n '/## median/,$p'
echo
/usr/bin/python3 scripts/bench/capture-table.py "$OUT"
echo
echo "## heartd memory"
/usr/bin/python3 scripts/bench/memory.py "heartd=$HEARTD" ${HEARTD_BEFORE:+"before=$HEARTD_BEFORE"}
echo
echo "## a gateway: 16 sensors at 1/s (target: 0.5 ms of CPU a second in all; the floor's 1/s StartNotify figure above × 16 for scale)"
/usr/bin/python3 scripts/bench/gateway-cpu.py "$HEARTD" --sensors 16 --rate 1 --seconds 30
if [ -n "${HEARTD_BEFORE:-}" ]; then
  echo
  echo "## the same gateway, the heartd before ($HEARTD_BEFORE)"
  /usr/bin/python3 scripts/bench/gateway-cpu.py "$HEARTD_BEFORE" --sensors 16 --rate 1 --seconds 30
fi
