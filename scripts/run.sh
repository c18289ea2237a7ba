#!/usr/bin/env bash
# Sets up the machine, builds heartd in release mode and captures heart rate:
# from BlueZ when a Bluetooth adapter is on the system bus, otherwise from the built-in simulated sensor
# (a real RR recording played back in real time). Data goes to ./out/heartd.sqlite; live values are shown
# with `heartctl watch` and in a browser: heartd-web serves the room page on loopback (its address is printed;
# WEB_PORT, default 8380). Stop with Ctrl-C (or after RUN_SECONDS, if set).
#   scripts/run.sh                 # auto: BlueZ if there is an adapter, else simulator
#   HEARTD_MODE=simulate scripts/run.sh
#   RUN_SECONDS=20 scripts/run.sh  # stop by itself after 20 s
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BIN=$(scripts/build-release.sh)
mkdir -p out
mode=${HEARTD_MODE:-auto}
if [ "$mode" = auto ]; then
  mode=simulate
  if ls /sys/class/bluetooth/hci* >/dev/null 2>&1 && command -v busctl >/dev/null \
     && busctl --system tree org.bluez 2>/dev/null | grep -q '/org/bluez/hci'; then
    mode=bluez
  fi
fi
args=(--db out/heartd.sqlite --socket out/control.sock --log-target stderr --set "control.group=\"\"")
if [ "$mode" = simulate ]; then
  echo "run: no Bluetooth adapter on the system bus: using the built-in simulated sensor" >&2
  args+=(--simulate)
else
  echo "run: capturing from BlueZ (any device advertising the Heart Rate service)" >&2
  args+=(--auto-heart-rate)
fi
"$BIN/heartd" "${args[@]}" 2> out/heartd.log &
DAEMON=$!
trap 'kill -TERM $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; echo; "$BIN/heartctl" --db out/heartd.sqlite series; echo "log: out/heartd.log"' EXIT
for _ in $(seq 100); do [ -S out/control.sock ] && break; kill -0 $DAEMON 2>/dev/null || break; sleep 0.1; done
if ! [ -S out/control.sock ]; then
  echo "run: heartd did not start; its log (out/heartd.log):" >&2
  cat out/heartd.log >&2
  trap - EXIT
  exit 1
fi
"$BIN/heartd-web" --socket out/control.sock --log-target stderr --set "web.port=${WEB_PORT:-8380}" \
  > out/heartd-web.out 2> out/heartd-web.log &
WEB=$!
trap 'kill -TERM $WEB $DAEMON 2>/dev/null; wait $WEB $DAEMON 2>/dev/null; echo; "$BIN/heartctl" --db out/heartd.sqlite series; echo "logs: out/heartd.log out/heartd-web.log"' EXIT
for _ in $(seq 100); do grep -q "room page at" out/heartd-web.out 2>/dev/null && break; kill -0 $WEB 2>/dev/null || break; sleep 0.1; done
if grep -q "room page at" out/heartd-web.out 2>/dev/null; then
  echo "run: $(sed -n 's/^heartd-web: //p' out/heartd-web.out) — open it in a browser" >&2
else
  echo "run: heartd-web did not start (out/heartd-web.log); capture goes on" >&2
fi
"$BIN/heartctl" --socket out/control.sock status
if [ -n "${RUN_SECONDS:-}" ]; then
  timeout "$RUN_SECONDS" "$BIN/heartctl" --socket out/control.sock watch || true
else
  "$BIN/heartctl" --socket out/control.sock watch || true
fi
