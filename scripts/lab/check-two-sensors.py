#!/usr/bin/env python3
"""Checks what heartd left after the lab's two-sensor run (scripts/lab/two-sensors-in-guest.sh): two sensors
captured at once through two adapters, sensor B killed and restarted while sensor A streams on.

usage: check-two-sensors.py HEARTCTL STORE OUTPUT_DIR
  OUTPUT_DIR: the lab run's output (peripheral-a.log, peripheral-b.log, peripheral-b2.log, daemon.log)
Exit 0 when every check passes; prints one line per check.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labcheck import Checker, check_device, peripheral_events, rr_count  # noqa: E402

heartctl, db, out = sys.argv[1:4]
c = Checker(heartctl, db)
check = c.check
HEARTBEAT = "HKDataTypeIdentifierHeartbeatSeries"
HEART_RATE = "HKQuantityTypeIdentifierHeartRate"
_, info_a, addr_a, sent_a = peripheral_events(os.path.join(out, "peripheral-a.log"))
_, info_b, addr_b, sent_b = peripheral_events(os.path.join(out, "peripheral-b.log"))
sent_b2 = peripheral_events(os.path.join(out, "peripheral-b2.log"))[3] if os.path.exists(os.path.join(out, "peripheral-b2.log")) else []
daemon_log = open(os.path.join(out, "daemon.log")).read()
check(addr_a != addr_b and info_a["serial"] != info_b["serial"], f"two distinct sensors: A {addr_a}, B {addr_b}")


def series(address, type_id):
    listed = c.ctl("series", "--from", "2000-01-01", "--to", "2100-01-01", "--limit", "100000", "--device", address)["samples"]
    return sorted((s for s in listed if s["typeIdentifier"] == type_id), key=lambda s: s["start"])


def beats_of(listed):
    return [c.ctl("beats", s["uuid"]) for s in listed]


def seconds(iso):
    from datetime import datetime
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


# Which adapter carried each sensor, from the daemon's log: "device connected HEARTD_ADAPTER=hciN HEARTD_DEVICE=…"
# and "device disconnected HEARTD_DEVICE=…", in order.
links = {addr_a: [], addr_b: []}
for line in daemon_log.splitlines():
    m = re.search(r"device (connected|disconnected) (?:HEARTD_ADAPTER=(\S+) )?HEARTD_DEVICE=(\S+)", line)
    if m and m.group(3) in links:
        links[m.group(3)].append((m.group(1), m.group(2)))
print(f"links: A {links[addr_a]}  B {links[addr_b]}")
for label, address in (("A", addr_a), ("B", addr_b)):
    events = [e for e, _ in links[address]]
    alternating = all(e == ("connected" if i % 2 == 0 else "disconnected") for i, e in enumerate(events))
    check(bool(events) and alternating,
          f"sensor {label}: one link at a time (connected/disconnected alternate: {events})")
adapters_a = {a for e, a in links[addr_a] if e == "connected"}
adapters_b = {a for e, a in links[addr_b] if e == "connected"}
check(len(adapters_a) == 1 and not (adapters_a & adapters_b),
      f"each sensor through its own adapter: A {sorted(adapters_a)}, B {sorted(adapters_b)}")
check([e for e, _ in links[addr_a]] == ["connected"], "sensor A connected once and stayed connected while B died and came back")
check([e for e, _ in links[addr_b]][:3] == ["connected", "disconnected", "connected"],
      "sensor B: connected, lost when it died, connected again after its restart")

# Sensor A: one series over the whole run, no gap but its first beat, every RR it sent.
beat_a, beat_b = series(addr_a, HEARTBEAT), series(addr_b, HEARTBEAT)
beats_a, beats_b = beats_of(beat_a), beats_of(beat_b)
rr_a = sum(rr_count(e["hex"]) for e in sent_a)
rr_b = sum(rr_count(e["hex"]) for e in sent_b + sent_b2)
total_a, gaps_a = sum(len(b) for b in beats_a), sum(1 for b in beats_a for x in b if x["precededByGap"])
total_b, gaps_b = sum(len(b) for b in beats_b), sum(1 for b in beats_b for x in b if x["precededByGap"])
print(f"A: {len(sent_a)} notifications, {rr_a} RR sent; {len(beat_a)} heartbeat series, {total_a} beats, {gaps_a} flagged")
print(f"B: {len(sent_b)}+{len(sent_b2)} notifications, {rr_b} RR sent; {len(beat_b)} heartbeat series, {total_b} beats, "
      f"{gaps_b} flagged")
check(len(beat_a) == 1, f"sensor A: one heartbeat series, undisturbed by B ({len(beat_a)})")


def stalls(sent):
    """Sends that came later than the sensor's own RR chain allows by more than one RR: the emulated peripheral
    stalled (the lab runs under software emulation on a shared host), and to any receiver that is exactly what a lost
    notification looks like, so heartd's timeline model rightly flags it (docs/INGEST.md)."""
    out = []
    for prev, e in zip(sent, sent[1:]):
        rr = sum(e.get("rr_ms") or []) / 1000
        if rr and e["t"] - prev["t"] > 2 * rr:
            out.append((e["seq"], round(e["t"] - prev["t"], 3)))
    return out


stalls_a = stalls(sent_a)
print(f"A: peripheral stalls (seq, interval s): {stalls_a}")
check(1 <= gaps_a <= 1 + len(stalls_a) and bool(beats_a) and beats_a[0][0]["precededByGap"],
      f"sensor A: no gap flag but its first beat and one per stall of its peripheral ({gaps_a} flagged, "
      f"{len(stalls_a)} stalls)")
check([s["metadata"].get("HeartdFinishReason") for s in beat_a] == ["shutdown"], "sensor A's series finished at SIGTERM")
# Each chain adds its anchor beat (the R-peak its first RR starts from): beats = RRs + anchors.
check(0.9 * rr_a <= total_a - gaps_a <= rr_a, f"sensor A: beats stored ({total_a} incl. {gaps_a} anchor) vs RR sent ({rr_a})")

# Sensor B: its series ends when it dies and a new one starts gap-flagged after its restart.
reasons_b = [s["metadata"].get("HeartdFinishReason") for s in beat_b]
check(len(beat_b) >= 2 and "disconnect" in reasons_b and reasons_b[-1] == "shutdown",
      f"sensor B: a series ended by its death, a new one after its restart ({reasons_b})")
check(bool(beats_b) and all(b and b[0]["precededByGap"] for b in beats_b), "sensor B: every series starts gap-flagged")
check(len(beat_b) >= 2 and seconds(beat_b[-1]["start"]) > seconds(beat_b[0]["end"]),
      "sensor B: the series after the restart starts after the first one ended")
# Values sent into the dying link may be lost; none may be doubled.
check(0.8 * rr_b <= total_b - gaps_b <= rr_b, f"sensor B: beats stored ({total_b} incl. {gaps_b} flagged) vs RR sent ({rr_b})")

# At once: A's series spans B's whole first series and its restart.
if beat_a and beat_b:
    a0, a1 = seconds(beat_a[0]["start"]), seconds(beat_a[0]["end"])
    b0, b1 = seconds(beat_b[0]["start"]), seconds(beat_b[0]["end"])
    overlap = min(a1, b1) - max(a0, b0)
    check(overlap >= 10, f"both sensors captured at once: A's and B's first series overlap {overlap:.1f} s")
    check(a0 < b1 and a1 > seconds(beat_b[-1]["start"]), "sensor A's series runs through B's death and restart")

for label, address, bpm in (("A", addr_a, 120), ("B", addr_b, 60)):
    avg = [s["aggregates"].get("average") for s in series(address, HEART_RATE)]
    check(bool(avg) and all(a is not None and bpm - 1 <= a <= bpm + 1 for a in avg),
          f"sensor {label}: heart-rate series averages within {bpm}±1 bpm (its own values only): {avg}")
    own = beat_a if label == "A" else beat_b
    check(bool(own) and all(s.get("device", {}).get("localIdentifier") == address for s in own),
          f"sensor {label}: its series carry its device")
check_device(c, info_a, addr_a, "A: ")
check_device(c, info_b, addr_b, "B: ")
c.integrity()
c.finish()
