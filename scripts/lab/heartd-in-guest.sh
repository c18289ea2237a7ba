#!/bin/bash
# Runs inside the lab VM (shared/lab, scenario "heartd"): the daemon built on the host, as the central on
# $CENTRAL_ADAPTER, capturing the lab's peripheral at $PERIPH_ADDRESS into $WORK/heartd.sqlite.
# Beside it, adapter-watch.sh records the central adapter's power in $OUT/adapter-state.txt, and powers it if nobody
# did within ADAPTER_WAIT_S (default 15) seconds: heartd never powers an adapter (scripts/lab/adapter-watch.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/adapter-watch.sh" "$CENTRAL_ADAPTER" "${ADAPTER_WAIT_S:-15}" > "$OUT/adapter-state.txt" 2>&1 < /dev/null &
exec "$HERE/heartd" --db "$WORK/heartd.sqlite" --socket "$WORK/control.sock" --set 'control.group=""' \
  --adapter "$CENTRAL_ADAPTER" --allow "$PERIPH_ADDRESS" --log-target stderr ${HEARTD_ARGS:-}
