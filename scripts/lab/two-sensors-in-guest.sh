#!/bin/bash
# Lab scenario (../shared/lab/run.sh -e CONTROLLERS=4 …; started by scripts/lab-test.sh two-sensors): two heart-rate
# sensors at once against real bluetoothd 5.66. btvirt carries one link per central, so heartd gets two centrals:
#   hci0, hci1  heartd (--adapter hci0 --adapter hci1, both sensors allowed)
#   hci2        sensor A (peripheral.py $PERIPH_A_OPTS -> peripheral-a.log)
#   hci3        sensor B (peripheral.py $PERIPH_B_OPTS -> peripheral-b.log, after its restart peripheral-b2.log)
# Schedule: once both sensors have a notify session, both stream BOTH_S seconds; then sensor B dies (SIGKILL of its
# peripheral.py, and the link dropped from B's side, as a strap whose battery dies: btvirt has no supervision
# timeout, see the lab README's hci-down pitfall); BACK_S seconds later B starts again (same adapter, same options)
# and streams AFTER_S seconds; then heartd gets SIGTERM. Its store and log go to $OUT/work and $OUT/daemon.log.
# Exit: the daemon's exit code (0 = clean exit on SIGTERM; a sensor that never streamed is left to the store check),
# 2 = lab misuse, 3 = a controller never came up, 1 = heartd exited before the schedule.
# The lab's own heartd.sh cannot do this: guest-init.sh fixes PERIPH_ADAPTER=hci1 and PERIPH2_ADAPTER=hci2.
set -u
BOTH_S=${BOTH_S:-15} BACK_S=${BACK_S:-6} AFTER_S=${AFTER_S:-20} TERM_GRACE=${TERM_GRACE:-10}
WORK=${WORK:-/var/lib/hrlab-work}
for h in hci0 hci1 hci2 hci3; do
  [ -e "/sys/class/bluetooth/$h" ] || { echo "two-sensors: no $h: run with -e CONTROLLERS=4"; exit 2; }
done
up() { cut -d' ' -f1 /proc/uptime; }
# guest-init.sh waits for the last controller only. With four, btvirt's hci0 (created first) did not complete its
# HCI init in 3 runs of 4 (btmon: "New Index 00:00:..", no "Open Index", no mgmt Index Added; an `hciconfig hci0 up`
# then hung on an unanswered HCI Reset), so bluetoothd never had it. Wait for all four and fail as the lab's
# failure (exit 3), not heartd's, when one never comes.
adapters() { dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null |
               grep -o 'object path "/org/bluez/hci[0-9]*"' | sed 's/.*bluez.//; s/"//' | sort -u | tr '\n' ' '; }
for _ in $(seq 1 150); do [ "$(adapters)" = "hci0 hci1 hci2 hci3 " ] && break; sleep 0.2; done
echo "adapters on D-Bus: $(adapters)"
[ "$(adapters)" = "hci0 hci1 hci2 hci3 " ] || { echo "two-sensors: the lab did not bring up all four controllers"; exit 3; }
. "$LAB/periph-lib.sh"
# shellcheck disable=SC2086  # options are word-split on purpose (the lab's convention: no spaces in values)
start_peripheral hci2 "$OUT/peripheral-a.log" $PERIPH_A_OPTS || exit 1
PA=$PERIPH_PID ADDR_A=$PERIPH_ADDRESS
# shellcheck disable=SC2086
start_peripheral hci3 "$OUT/peripheral-b.log" $PERIPH_B_OPTS || exit 1
PB=$PERIPH_PID ADDR_B=$PERIPH_ADDRESS
echo "sensor A: hci2 $ADDR_A   sensor B: hci3 $ADDR_B"
echo "TIMING peripherals-advertising uptime=$(up)"

mkdir -p "$WORK" && cd "$WORK" || exit 1
echo "TIMING daemon-start uptime=$(up)"
# shellcheck disable=SC2086
setsid "$HOST/heartd" --db "$WORK/heartd.sqlite" --socket "$WORK/control.sock" --set 'control.group=""' \
  --adapter hci0 --adapter hci1 --allow "$ADDR_A" --allow "$ADDR_B" --log-target stderr ${HEARTD_ARGS:-} \
  > "$OUT/daemon.log" 2>&1 &
DP=$!
notifying() { grep '"StartNotify"\|"AcquireNotify"' "$1" 2>/dev/null | grep -vq '2a19'; }
for _ in $(seq 1 300); do   # up to 60 s for both notify sessions
  notifying "$OUT/peripheral-a.log" && notifying "$OUT/peripheral-b.log" && break
  kill -0 "$DP" 2>/dev/null || break
  sleep 0.2
done
kill -0 "$DP" 2>/dev/null || { echo "two-sensors: heartd exited"; tail -30 "$OUT/daemon.log"; kill "$PA" "$PB"; exit 1; }
if ! notifying "$OUT/peripheral-a.log" || ! notifying "$OUT/peripheral-b.log"; then
  # Go on with the schedule: the store check then says what is missing (which sensor, which adapter).
  echo "two-sensors: not both sensors subscribed within 60 s; going on"
fi
echo "TIMING both-notifying uptime=$(up)"
echo "both-notifying $(up)" >> "$OUT/marks.txt"
sleep "$BOTH_S"

echo "TIMING sensor-b-killed uptime=$(up)"
echo "sensor-b-killed $(up)" >> "$OUT/marks.txt"
kill -KILL "$PB"
# Drop B's links from its own side: every Device1 under hci3 that is connected (a central's adapter).
for dev in $(dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects \
               | grep -o 'object path "/org/bluez/hci3/dev_[0-9A-F_]*"' | sed 's/.*"\(.*\)"/\1/' | sort -u); do
  dbus-send --system --print-reply --dest=org.bluez "$dev" org.bluez.Device1.Disconnect >/dev/null 2>&1 &&
    echo "dropped sensor B's link $dev"
done
sleep "$BACK_S"
# shellcheck disable=SC2086
start_peripheral hci3 "$OUT/peripheral-b2.log" $PERIPH_B_OPTS || { kill -TERM "$DP"; exit 1; }
PB=$PERIPH_PID
echo "TIMING sensor-b-restarted uptime=$(up)"
echo "sensor-b-restarted $(up)" >> "$OUT/marks.txt"
sleep "$AFTER_S"

echo "TIMING daemon-sigterm uptime=$(up)"
kill -TERM "$DP"
for _ in $(seq 1 $((TERM_GRACE * 10))); do kill -0 "$DP" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DP" 2>/dev/null && { echo "still running ${TERM_GRACE} s after SIGTERM: SIGKILL"; kill -KILL -- "-$DP"; }
wait "$DP"; rc=$?
echo "TIMING daemon-exit uptime=$(up)"
echo "daemon exit code $rc"
cd / && kill "$PA" "$PB" 2>/dev/null; wait "$PA" "$PB" 2>/dev/null
mkdir -p "$OUT/work" && cp -a "$WORK/." "$OUT/work/"
for f in peripheral-a.log peripheral-b.log peripheral-b2.log; do
  echo "$f: $(grep -c '"notify"' "$OUT/$f") notifications sent"
done
echo "--- daemon.log (last 15 lines):"; tail -15 "$OUT/daemon.log"
exit "$rc"
