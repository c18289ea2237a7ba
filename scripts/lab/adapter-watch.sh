#!/bin/bash
# Runs inside the lab VM beside heartd (scripts/lab/heartd-in-guest.sh): the central's adapter's power, and the
# harness's answer to an adapter nobody powered.
#   adapter-watch.sh ADAPTER WAIT_S > $OUT/adapter-state.txt
# Who powers the lab's adapters: only bluetoothd, once, when it finds them (AutoEnable=true in Debian 12's
# /etc/bluetooth/main.conf: the policy plugin's MGMT Set Powered); peripheral.py powers its own adapter (hci1),
# central-check.py powers hci0 before it scans, guest-init.sh and heartd.sh power nothing, and heartd never powers an
# adapter (docs/CONFIGURATION.md). One lab run (session 20) had hci0 never powered: heartd waited silently for 40 s.
# This prints the adapter's state when heartd starts; if the adapter is still off WAIT_S seconds later, it prints
# why it might be (PowerState, rfkill, the kernel's settings) and powers it through D-Bus, as central-check.py and a
# user would — long enough after heartd's start for heartd's own adapter-off notice (after 10 s) to be in its log.
A=${1:?adapter} WAIT_S=${2:-15}
up() { cut -d' ' -f1 /proc/uptime; }
prop() {  # an Adapter1 property, or "-" when bluetoothd has no such adapter or property
  local out
  out=$(timeout 5 dbus-send --system --print-reply=literal --dest=org.bluez "/org/bluez/$A" \
        org.freedesktop.DBus.Properties.Get string:org.bluez.Adapter1 "string:$1" 2>/dev/null) && echo "${out##* }" || echo -
}
rfkill_state() {  # soft/hard block of the adapter's rfkill switch (sysfs: no rfkill tool in the image)
  local r
  for r in /sys/class/rfkill/rfkill*; do
    [ "$(cat "$r/name" 2>/dev/null)" = "$A" ] && { echo "soft=$(cat "$r/soft") hard=$(cat "$r/hard")"; return; }
  done
  echo none
}
state() {
  echo "Powered=$(prop Powered) PowerState=$(prop PowerState) rfkill=$(rfkill_state)" \
       "kernel: $(timeout 5 btmgmt --index "${A#hci}" info 2>/dev/null | sed -n 's/^[[:space:]]*current settings: //p' | head -1)"
}
start=$(up)
echo "adapter $A at heartd start (uptime $start): $(state)"
[ "$(prop Powered)" = true ] && exit 0
end=$(awk -v s="$start" -v w="$WAIT_S" 'BEGIN { print s + w }')
while awk -v n="$(up)" -v e="$end" 'BEGIN { exit !(n < e) }'; do
  sleep 0.5
  if [ "$(prop Powered)" = true ]; then
    echo "adapter $A powered by someone else at uptime $(up): $(state)"
    exit 0
  fi
done
if [ "$(prop Powered)" = - ] && [ -e "/sys/class/bluetooth/$A" ]; then
  # Seen in the lab (btvirt): the kernel registered the controller, but its HCI init never finished (btmon: "New
  # Index: 00:00:.." and no "Open Index"), so the management interface never added it ("Invalid Index") and
  # bluetoothd never exported it. Nothing in the guest powers such a controller; the run is the lab's failure.
  echo "ADAPTER-ABSENT $A is in the kernel but not in bluetoothd ${WAIT_S} s after heartd started: its HCI init never" \
       "finished (btmon: $(grep -c "New Index: .*$A)" /out/btmon.txt 2>/dev/null) New Index, $(grep -c "Open Index: .*\[$A\]" /out/btmon.txt 2>/dev/null) Open Index;" \
       "btmgmt: $(timeout 5 btmgmt --index "${A#hci}" info 2>&1 | grep -o 'Invalid Index' | head -1))"
  exit 0
fi
echo "ADAPTER-OFF $A still off ${WAIT_S} s after heartd started (uptime $(up)): $(state)"
echo "ADAPTER-OFF btmon so far: $(grep -A1 "@ MGMT Command: .* (0x0005) plen 1 .*\[$A\]" /out/btmon.txt 2>/dev/null | grep -c 'Powered: Enabled')" \
     "MGMT Set Powered (on) for $A (btmon starts beside bluetoothd and may miss its first commands)"
if timeout 5 dbus-send --system --print-reply --dest=org.bluez "/org/bluez/$A" org.freedesktop.DBus.Properties.Set \
     string:org.bluez.Adapter1 string:Powered variant:boolean:true > /dev/null 2>&1; then
  echo "HARNESS-POWERED $A at uptime $(up): $(state)"
else
  echo "ADAPTER-OFF powering $A failed: $(state)"
fi
