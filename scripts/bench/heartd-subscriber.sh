#!/bin/bash
# heartd as a "measured command" of shared/bench (run_bench.sh): captures $BENCH_ADDRESS from the fake BlueZ on
# $DBUS_SYSTEM_BUS_ADDRESS into a throwaway store and prints received=N when the harness stops it.
#   heartd-subscriber.sh HEARTD_BINARY start-notify|acquire-notify
# exec keeps the measured process tree to heartd alone.
TMP=$(mktemp -d /tmp/heartd-bench.XXXXXX)
exec "$1" --db "$TMP/heartd.sqlite" --socket "$TMP/control.sock" --set 'control.group=""' \
  --allow "${BENCH_ADDRESS:?}" --subscribe "${2:-start-notify}" --log-level warning --log-target stderr --print-received
