#!/usr/bin/env bash
# End-to-end test against real BlueZ: boots ../shared/lab (Debian 12, bluetoothd 5.66, two virtual LE controllers
# under qemu), runs heartd built here on hci0 against the lab's heart-rate peripheral on hci1, with a scripted
# disconnect, stops it with SIGTERM, and checks the store it leaves behind: series, beats, the gap after the
# reconnect, and device metadata equal to what the peripheral exposes.
#   scripts/lab-test.sh                     # ~3-6 min the first time (VM image; the static release build, scripts/build-release.sh, longer), then ~1.5 min
#   scripts/lab-test.sh faults              # bluetoothd killed and restarted, then the sensor silent for 14 s (~2 min)
#   scripts/lab-test.sh adapter             # the central's adapter powered off/on (D-Bus), then hci down/up (~2 min)
#   scripts/lab-test.sh adapter-off         # the central's adapter off before heartd starts, powered 15 s later by
#                                           # the harness (scripts/lab/adapter-watch.sh): heartd's notice, then capture
#   scripts/lab-test.sh two-sensors         # five controllers (btvirt's first often fails to come up with four or more):
#                                           # heartd on the first two that do, sensors on the next two, both at once;
#                                           # sensor B killed and restarted while A streams on (~4 min)
#   LAB=/path/to/shared/lab scripts/lab-test.sh
#   SUBSCRIBE=start-notify scripts/lab-test.sh   # or acquire-notify; unset or "default": heartd's default
#                                                # (acquire-notify), which the store check then expects in use
#   HEARTD_EXTRA_ARGS="--log-level debug" scripts/lab-test.sh two-sensors   # more arguments for heartd in the guest
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LAB=${LAB:-$ROOT/../shared/lab}
[ -x "$LAB/run.sh" ] || { echo "lab-test: no lab at $LAB (set LAB=)" >&2; exit 2; }
export HRLAB_DIR=${HRLAB_DIR:-$HOME/.cache/hrlab}
scripts/setup.sh
command -v mmdebstrap >/dev/null && command -v qemu-system-x86_64 >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends mmdebstrap e2fsprogs qemu-system-x86 >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends mmdebstrap e2fsprogs qemu-system-x86 >/dev/null; }
}
"$LAB/build-image.sh" >&2

# The shipped static build (the guest has Debian 12's libraries, libdbus and libsqlite3, but no Swift runtime), and
# the shipped heartctl to read the store back on the host (shared with scripts/sdlab-test.sh; a debug heartctl would
# be another build: the tests' own is built with other flags).
RELEASE=$(scripts/build-release.sh heartd heartctl)
HEARTCTL=$RELEASE/heartctl
BIN=$(mktemp -d /tmp/heartd-lab-bin.XXXXXX)
cp "$RELEASE/heartd" scripts/lab/heartd-in-guest.sh scripts/lab/adapter-watch.sh "$BIN/"
OUT=$(mktemp -d /tmp/heartd-lab-out.XXXXXX)
SCENARIO=${1:-disconnect}
# The subscription: --subscribe MODE, or nothing for heartd's default; the check expects it in use (no fallback).
case "${SUBSCRIBE:-default}" in
  default) SUBSCRIBE_ARGS="" EXPECT_SUBSCRIBE=acquire-notify ;;
  start-notify|acquire-notify) SUBSCRIBE_ARGS="--subscribe $SUBSCRIBE" EXPECT_SUBSCRIBE=$SUBSCRIBE ;;
  *) echo "lab-test: SUBSCRIBE=$SUBSCRIBE is none of start-notify, acquire-notify, default" >&2; exit 2 ;;
esac
# 2 notifications/s with one RR each at 120 bpm (RR 0.5 s: the RR chain keeps pace with the clock, as a real
# sensor's does).
PERIPH="--rate 2 --rr 1 --energy 100 --bpm 120 --battery 77"
FAULTS=""
case "$SCENARIO" in
  disconnect)  # the sensor drops the link 12 s after the first StartNotify
    SECONDS_UP=${DAEMON_SECONDS:-40}
    PERIPH="$PERIPH --events 12:disconnect" ;;
  faults)  # clock: scenario start; the daemon starts ~3 s later and streams from ~8 s
    SECONDS_UP=${DAEMON_SECONDS:-62}
    FAULTS="20:restart-bluetoothd=1;38:silent=14" ;;
  adapter)  # clock: scenario start; the central's adapter powered off and on over D-Bus, then taken down and up
    SECONDS_UP=${DAEMON_SECONDS:-62}
    FAULTS="20:power-off=hci0;26:power-on=hci0;38:hci-down=hci0;44:hci-up=hci0" ;;
  adapter-off)  # clock: scenario start; hci0 off before heartd starts, and nobody but the harness powers it
    SECONDS_UP=${DAEMON_SECONDS:-45}
    FAULTS="0:power-off=hci0" ;;
  two-sensors)  # btvirt carries one link per central: two centrals for two sensors (scripts/lab/two-sensors-in-guest.sh)
    ;;
  *) echo "lab-test: unknown scenario $SCENARIO (disconnect, faults, adapter, adapter-off, two-sensors)" >&2; exit 2 ;;
esac
set +e
if [ "$SCENARIO" = two-sensors ]; then
  # A: the lab's usual stream (2/s, RR 0.5 s at 120 bpm); B: a strap's 1/s at 60 bpm (RR 1 s). Each its own
  # Device Information strings, so a mix-up of device metadata shows.
  "$LAB/run.sh" -o "$OUT" -H "$BIN" -t 300 -e CONTROLLERS=5 \
    -e PERIPH_A_OPTS="$PERIPH --serial HRL1-00000A --name HRLab-Sensor-A --alias HRLab-A --model HRL-1A --firmware 1.4.2" \
    -e PERIPH_B_OPTS="--rate 1 --rr 1 --energy 50 --bpm 60 --battery 55 --serial HRL1-00000B --name HRLab-Sensor-B --alias HRLab-B --model HRL-1B --firmware 2.0.1 --manufacturer HRLab-B-Works --location 2" \
    -e HEARTD_ARGS="$SUBSCRIBE_ARGS ${HEARTD_EXTRA_ARGS:-}" \
    "$ROOT/scripts/lab/two-sensors-in-guest.sh" > "$OUT/run.log" 2>&1
else
  "$LAB/run.sh" -o "$OUT" -H "$BIN" -t $((SECONDS_UP + 90)) -e DAEMON_SECONDS="$SECONDS_UP" \
    -e PERIPH_OPTS="$PERIPH" -e FAULTS="$FAULTS" -e HEARTD_ARGS="$SUBSCRIBE_ARGS ${HEARTD_EXTRA_ARGS:-}" \
    heartd -- heartd-in-guest.sh > "$OUT/run.log" 2>&1
fi
rc=$?
set -e
tail -25 "$OUT/run.log"
# The central adapter's power: what adapter-watch.sh saw in the guest, who sent MGMT Set Powered (btmon), and what
# heartd said. Printed on every run (three lines when all is well) and first on a failure.
adapters() {
  SHOWN=1
  [ -f "$OUT/adapter-state.txt" ] && sed 's/^/lab-test: /' "$OUT/adapter-state.txt"
  if [ -f "$OUT/btmon.txt" ]; then  # -T titles are cut ("@ MGMT Command: S.. (0x0005)"): match the opcode
    local hci line=""
    for hci in $(grep -o 'New Index: .*(.*hci[0-9]*)' "$OUT/btmon.txt" | grep -o 'hci[0-9]*' | sort -u); do
      line+=" $hci: $(grep -c "Open Index: .*\[$hci\]" "$OUT/btmon.txt" || true) Open Index,"
      line+=" $(grep -A1 "@ MGMT Command: .* (0x0005) plen 1 .*\[$hci\]" "$OUT/btmon.txt" | grep -c 'Powered: Enabled' || true) Set Powered (on);"
    done
    echo "lab-test: btmon:${line:- no controller}"
  fi
  grep -h -E 'adapter (is powered off|is blocked|not present|powered on|appeared)' "$OUT/daemon.log" 2>/dev/null |
    cut -c1-220 | sed 's/^/lab-test: heartd: /' || true
  return 0
}
failed() {  # exit 3: the lab's own failure (the VM never booted, or btvirt's controller never came up): retry the run
  echo "lab-test: $1"; [ -n "${SHOWN:-}" ] || adapters; tail -40 "$OUT/daemon.log" 2>/dev/null
  if [ -f "$OUT/console.log" ] && ! grep -q 'MARK init-start' "$OUT/console.log"; then
    echo "lab-test: LAB FAILURE, not heartd's: the VM never reached the guest's init (qemu under TCG hung in boot" \
         "until the hard limit; nothing of heartd ran). Run again."
    exit 3
  fi
  if grep -q ADAPTER-ABSENT "$OUT/adapter-state.txt" 2>/dev/null; then
    echo "lab-test: LAB FAILURE, not heartd's: the central's controller never finished its HCI init (btvirt), so" \
         "bluetoothd never had it; heartd said so (adapter not present). Run again."
    exit 3
  fi
  exit 1
}
[ "$rc" = 0 ] || failed "the lab run failed (rc $rc); adapter and daemon log:"
DB="$OUT/work/heartd.sqlite"
[ -f "$DB" ] || failed "no store at $DB"
echo "lab-test: output in $OUT"
adapters
set +e
if [ "$SCENARIO" = two-sensors ]; then
  python3 "$ROOT/scripts/lab/check-two-sensors.py" "$HEARTCTL" "$DB" "$OUT"
else
  python3 "$ROOT/scripts/lab/check-store.py" --scenario "$SCENARIO" --subscribe "$EXPECT_SUBSCRIBE" \
    --adapter-state "$OUT/adapter-state.txt" "$HEARTCTL" "$DB" "$OUT/peripheral.log" "$OUT/daemon.log"
fi
rc=$?
set -e
[ "$rc" = 0 ] || failed "the store check failed; daemon log:"

