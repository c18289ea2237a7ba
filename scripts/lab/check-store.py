#!/usr/bin/env python3
"""Checks the store heartd left in the lab against what the lab's peripheral sent and exposes.

usage: check-store.py [--scenario disconnect|faults|adapter|adapter-off] [--subscribe MODE] [--adapter-state FILE]
                      HEARTCTL STORE PERIPHERAL_LOG [DAEMON_LOG]
  disconnect: the sensor drops the link once (scripts/lab-test.sh)
  faults:     bluetoothd is killed and restarted, later the sensor goes silent for 14 s (lab-test.sh faults)
  adapter:    the central's adapter is powered off and on, later taken down and up (lab-test.sh adapter)
  adapter-off: the central's adapter is off when heartd starts; the harness powers it 15 s later (lab-test.sh
               adapter-off): heartd's adapter-off notice once, then capture
  --subscribe: every subscription the daemon logged used MODE (real bluetoothd 5.66 gives AcquireNotify, so a
               fallback to StartNotify is a failure here)
  --adapter-state: scripts/lab/adapter-watch.sh's output; whenever the harness had to power the adapter, heartd
               must have said it was off (in any scenario)
Exit 0 when every check passes; prints one line per check.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labcheck import Checker, check_device, peripheral_events, rr_count  # noqa: E402

args = sys.argv[1:]
opts = {"--scenario": "disconnect", "--subscribe": None, "--adapter-state": None}
while args[:1] and args[0] in opts:
    opts[args[0]] = args[1]
    args = args[2:]
scenario, subscribe = opts["--scenario"], opts["--subscribe"]
adapter_state = open(opts["--adapter-state"]).read() if opts["--adapter-state"] and os.path.exists(opts["--adapter-state"]) else ""
heartctl, db, plog = args[:3]
daemon_log = open(args[3]).read() if len(args) > 3 else ""
c = Checker(heartctl, db)
check, ctl = c.check, c.ctl
events, info, address, notified = peripheral_events(plog)
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
elif scenario == "adapter-off":
    check(len(beat_series) >= 1, f"at least one heartbeat series: {len(beat_series)}")
    check(0.9 * rr_sent <= total - gaps <= rr_sent, f"beats stored ({total} incl. {gaps} anchors) match RR sent ({rr_sent})")
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

if subscribe and daemon_log:
    modes = [line.split("subscribe=")[1].split()[0] for line in daemon_log.splitlines()
             if ">subscribed " in line and "subscribe=" in line]
    check(modes and all(m == subscribe for m in modes), f"every subscription used {subscribe}: {modes}")
    check("AcquireNotify refused" not in daemon_log, "bluetoothd never refused AcquireNotify")
# The adapter's power (scripts/lab/adapter-watch.sh): heartd never powers it; when the harness had to, heartd must have
# said so once, before it captured through the adapter.
lines = daemon_log.splitlines()
notices = [i for i, line in enumerate(lines) if "adapter is powered off" in line or "adapter is blocked" in line]
powered_on = [i for i, line in enumerate(lines) if "adapter powered on" in line]
sessions = [i for i, line in enumerate(lines) if "device session started" in line]
if scenario == "adapter-off":
    check("HARNESS-POWERED" in adapter_state, "the adapter was off at heartd's start and only the harness powered it")
if "HARNESS-POWERED" in adapter_state:
    check(len(notices) == 1, f"heartd said once that the adapter was off: {len(notices)} line(s)")
    check(bool(notices) and "MESSAGE_ID=" in lines[notices[0]] and "WAITED_SECONDS=" in lines[notices[0]].upper(),
          "the notice carries its MESSAGE_ID and how long the adapter was off")
    check(bool(notices and sessions) and notices[0] < sessions[0] and bool(powered_on),
          "the notice came before the capture session, and 'adapter powered on' when the harness powered it")
check_device(c, info, address)
check(bool(beat_series) and beat_series[0].get("device", {}).get("localIdentifier") == address,
      "samples carry the device")
c.integrity()
c.finish()
