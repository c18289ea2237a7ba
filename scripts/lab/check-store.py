#!/usr/bin/env python3
"""Checks the store heartd left in the lab against what the lab's peripheral sent and exposes.

usage: check-store.py [--scenario disconnect|faults|adapter] HEARTCTL STORE PERIPHERAL_LOG [DAEMON_LOG]
  disconnect: the sensor drops the link once (scripts/lab-test.sh)
  faults:     bluetoothd is killed and restarted, later the sensor goes silent for 14 s (lab-test.sh faults)
  adapter:    the central's adapter is powered off and on, later taken down and up (lab-test.sh adapter)
Exit 0 when every check passes; prints one line per check.
"""
import json
import subprocess
import sys

args = sys.argv[1:]
scenario = "disconnect"
if args[:1] == ["--scenario"]:
    scenario, args = args[1], args[2:]
heartctl, db, plog = args[:3]
daemon_log = open(args[3]).read() if len(args) > 3 else ""
failures = []
passed = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    (passed if ok else failures).append(what)


def ctl(*args):
    out = subprocess.run([heartctl, "--db", db, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


events = [json.loads(line) for line in open(plog) if line.startswith("{")]
info = next(e for e in events if e.get("ev") == "device-info")
address = next(e for e in events if e.get("ev") == "adapter")["address"]
notified = [e for e in events if e.get("ev") == "notify"]


def rr_count(payload):
    b = bytes.fromhex(payload)
    if not b or not b[0] & 0x10:
        return 0
    start = 1 + (2 if b[0] & 0x01 else 1) + (2 if b[0] & 0x08 else 0)
    return max(0, (len(b) - start) // 2)


rr_sent = sum(rr_count(e["hex"]) for e in notified)

samples = ctl("series", "--from", "2000-01-01", "--to", "2100-01-01", "--limit", "100000")["samples"]
beat_series = [s for s in samples if s["typeIdentifier"] == "HKDataTypeIdentifierHeartbeatSeries"]
hr_series = [s for s in samples if s["typeIdentifier"] == "HKQuantityTypeIdentifierHeartRate"]
print(f"peripheral: {len(notified)} notifications, {rr_sent} RR intervals; store: {len(samples)} samples, "
      f"{len(beat_series)} heartbeat series, {sum(s['count'] for s in beat_series)} beats")

beats = [ctl("beats", s["uuid"]) for s in sorted(beat_series, key=lambda s: s["start"])]
total = sum(len(b) for b in beats)
gaps = sum(1 for b in beats for x in b if x["precededByGap"])
reasons = {s["metadata"].get("HeartdFinishReason") for s in beat_series}
check("shutdown" in reasons, "the open series was finished at SIGTERM (reason shutdown)")
check(all(b and b[0]["precededByGap"] for b in beats),
      "every series starts with a beat flagged precededByGap (first connection, and every reconnect)")
if scenario == "disconnect":
    check(len(beat_series) >= 2, "at least two heartbeat series (the scripted disconnect rotates the series)")
    check("disconnect" in reasons, f"a series finished by the disconnect (reasons: {sorted(reasons)})")
    # Each chain adds its anchor beat (the R-peak the first RR starts from), so beats = RRs + anchors.
    check(0.9 * rr_sent <= total - gaps <= rr_sent, f"beats stored ({total} incl. {gaps} anchors) match RR sent ({rr_sent})")
elif scenario == "adapter":
    check(len(beat_series) >= 3, f"at least three heartbeat series (each adapter outage ends one): {len(beat_series)}")
    # The reason is whichever signal comes first: Powered=false (adapter-powered-off), Connected=false
    # (link-lost) or, with AcquireNotify, the notify socket's hang-up (notify-socket-closed).
    reasons_logged = [line.split("reason=")[1].split()[0] for line in daemon_log.splitlines()
                      if "device disconnected" in line and "reason=" in line]
    check(len(reasons_logged) >= 2, f"the daemon ended the session at both outages: {reasons_logged}")
    # Two outages of ~6 s each, plus reconnecting, out of ~55 s of values.
    check(0.6 * rr_sent <= total - gaps <= rr_sent, f"beats stored ({total} incl. {gaps} gap-flagged) vs RR sent ({rr_sent})")
    check(any(s["end"] > beat_series[0]["end"] for s in beat_series[2:]) if len(beat_series) >= 3 else False,
          "values were captured again after the second outage")
else:
    check(len(beat_series) >= 2, "at least two heartbeat series (the bluetoothd restart drops the link)")
    check("disconnect" in reasons, f"a series finished by the link loss after the restart (reasons: {sorted(reasons)})")
    check("restart=true" in daemon_log, "the daemon saw bluetoothd return (NameOwnerChanged; log: restart=true)")
    check("silent-stop timeout; re-subscribing" in daemon_log, "the silent sensor was noticed and re-subscribed")
    check(gaps > len(beats) or "idle" in reasons,
          f"the 14 s silence is marked: a flagged beat inside a series or an idle finish ({gaps} flagged, {len(beats)} series)")
    # Values sent into the link bluetoothd's death broke are lost; everything else must be there.
    check(0.7 * rr_sent <= total - gaps <= rr_sent, f"beats stored ({total} incl. {gaps} gap-flagged) vs RR sent ({rr_sent})")
offsets_ok = all(all(b[i]["offset"] < b[i + 1]["offset"] for i in range(len(b) - 1)) for b in beats)
check(offsets_ok, "beat offsets strictly increase in every series")
avg = [s["aggregates"].get("average") for s in hr_series]
check(hr_series and all(a is not None and 119 <= a <= 121 for a in avg), f"heart-rate series averages within 119-121 bpm: {avg}")

device = next((d for d in ctl("devices")["devices"] if d["address"] == address), None)
check(device is not None, f"device {address} stored")
if device:
    i = device["info"]
    expected = {"manufacturer": info["manufacturer"], "model": info["model"], "hardwareVersion": info["hardware"],
                "firmwareVersion": info["firmware"], "softwareVersion": info["software"], "localIdentifier": address}
    for key, value in expected.items():
        check(i.get(key) == value, f"device {key} = {value!r} (stored {i.get(key)!r})")
    check(i.get("metadata", {}).get("HKMetadataKeyDeviceSerialNumber") == info["serial"], f"serial number {info['serial']}")
    check(i.get("metadata", {}).get("HKMetadataKeyHeartRateSensorLocation") == str(info["location"]),
          f"body sensor location {info['location']}")
    check(bool(i.get("name")), f"device name {i.get('name')!r}")
check(bool(beat_series) and beat_series[0].get("device", {}).get("localIdentifier") == address,
      "samples carry the device")
integrity = subprocess.run(["sqlite3", db, "PRAGMA integrity_check"], capture_output=True, text=True).stdout.strip()
check(integrity == "ok", f"integrity_check: {integrity}")
print(f"lab: {len(passed)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
