#!/bin/bash
# Runs inside the lab VM (shared/lab, scenario "heartd"): the daemon built on the host, as the central on
# $CENTRAL_ADAPTER, capturing the lab's peripheral at $PERIPH_ADDRESS into $WORK/heartd.sqlite.
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/heartd" --db "$WORK/heartd.sqlite" --socket "$WORK/control.sock" --set 'control.group=""' \
  --adapter "$CENTRAL_ADAPTER" --allow "$PERIPH_ADDRESS" --log-target stderr ${HEARTD_ARGS:-}
