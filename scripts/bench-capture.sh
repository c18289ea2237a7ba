#!/usr/bin/env bash
# Capture benchmark, side by side in one run (release build):
#  1. CPU per notification through D-Bus: heartd (StartNotify, AcquireNotify) and bleak (the usual Python
#     choice, both paths) against the fake BlueZ of ../shared/bench on a private bus, same rates, interleaved;
#  2. heartd's resident memory idle and with 8 sensors (scripts/bench/memory.py).
#   scripts/bench-capture.sh                               # rates 1,100,1000, 10 s, 3 repeats (~11 min)
#   RATES=1 DURATION=30 REPEATS=1 scripts/bench-capture.sh # the real rate of one sensor, longer
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BENCH=${BENCH:-$ROOT/../shared/bench}
[ -x "$BENCH/run_bench.sh" ] || { echo "bench-capture: no ../shared/bench (set BENCH=)" >&2; exit 2; }
scripts/setup.sh
"$BENCH/run_bench.sh" --setup >&2
swift build -c release --product heartd >&2
HEARTD=$ROOT/.build/release/heartd
SUB=$ROOT/scripts/bench/heartd-subscriber.sh
PY=${BLEAK_PY:-/tmp/bleakvenv/bin/python}
OUT=$(mktemp -d /tmp/heartd-bench-capture.XXXXXX)
echo "## shared/bench's table (median of ${REPEATS:-3}; its us/notif is wrong for heartd, see below)"
"$BENCH/run_bench.sh" --out "$OUT" --rates "${RATES:-1,100,1000}" --duration "${DURATION:-10}" --repeats "${REPEATS:-3}" \
  --cmd "bleak-StartNotify=$PY $BENCH/bleak_sub.py" \
  --cmd "bleak-AcquireNotify=$PY $BENCH/bleak_sub.py --acquire" \
  --cmd "heartd-StartNotify=$SUB $HEARTD start-notify" \
  --cmd "heartd-AcquireNotify=$SUB $HEARTD acquire-notify" | sed -n '/## median/,$p'
echo
echo "## CPU per notification (bleak: shared/bench's figure; heartd: its own process CPU clock, stream-cpu.py)"
/usr/bin/python3 scripts/bench/stream-cpu.py "$OUT"
echo
echo "## heartd memory"
/usr/bin/python3 scripts/bench/memory.py "$HEARTD"
