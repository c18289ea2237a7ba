#!/usr/bin/python3
"""RSS soak of a gateway: heartd capturing N sensors (default 16) at R notifications a second each (default 4)
through 3 adapters of 6 slots on the project's fake BlueZ, for a set time (1 hour for the record).

Asserts (exit 1 otherwise):
  - RSS is flat after the warm-up: the median of the last quarter of the samples is at most --max-growth-mb above
    the median of the first quarter after the warm-up;
  - every notification the fake sent is stored: after a SIGTERM (which saves every open series) the heart-rate
    values in the store (`heartctl --db … series --type heart-rate`) equal the fake's count, per sensor;
  - every beat is stored and only the first is flagged: the fake sends the RR of a beat a second in the
    notification after it (fake_bluez.py's Stream), so each sensor's heartbeat series hold floor((count-1)/rate)+1
    beats (the first notification with an RR places two: its beat and the one before), and the daemon's counters
    (`heartctl status` just before the SIGTERM) show one gap per sensor (the connection) and no beat dropped.
Not part of the default test suite (an hour); CI does not run it.
usage: soak.py HEARTD HEARTCTL [--seconds 3600] [--sensors 16] [--rate 4] [--warmup 300] [--every 10]
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import dbus

from gateway_fixture import Gateway, rss_mb


def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def stored_counts(heartctl, db, kind="heart-rate"):
    """Values (heart rate) or beats (heartbeat) in the store per sensor address."""
    out = subprocess.run([heartctl, "--db", db, "--json", "series", "--type", kind, "--from", "0",
                          "--to", "now", "--limit", "10000000"], capture_output=True, text=True, check=True).stdout
    counts = {}
    for s in json.loads(out)["samples"]:
        address = (s.get("device") or {}).get("localIdentifier", "?")
        counts[address] = counts.get(address, 0) + int(s["count"])
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("heartd")
    ap.add_argument("heartctl")
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--sensors", type=int, default=16)
    ap.add_argument("--rate", type=float, default=4.0)
    ap.add_argument("--warmup", type=float, default=None, help="seconds (default: 300, or a tenth of a shorter run)")
    ap.add_argument("--every", type=float, default=10, help="seconds between RSS samples")
    ap.add_argument("--max-growth-mb", type=float, default=1.0)
    args = ap.parse_args()
    warmup = args.warmup if args.warmup is not None else min(300.0, args.seconds / 10)
    addresses = ["A0:9E:1A:7C:01:%02X" % i for i in range(1, args.sensors + 1)]
    count = int(args.rate * args.seconds)

    gw = Gateway(args.heartd, addresses, "heartd-soak.", keep_files=True)
    heartd, ctl, tmp, db = gw.heartd, gw.ctl, gw.tmp, gw.db
    ok = True
    try:
        gw.wait_subscribed()
        print("soak: %d sensors × %g/s for %gs (warm-up %gs), heartd pid %d, files in %s"
              % (args.sensors, args.rate, args.seconds, warmup, heartd.pid, tmp), flush=True)
        for a in addresses:
            ctl.Stream(a, args.rate, dbus.UInt32(count))
        t0 = time.time()
        cpu0 = cpu_s(heartd.pid)
        samples = []  # (seconds since start, RSS MB)
        next_print = 0.0
        while time.time() - t0 < args.seconds + 2:
            time.sleep(args.every)
            t, r = time.time() - t0, rss_mb(heartd.pid)[0]
            samples.append((t, r))
            if t >= next_print:
                print("t=%6.0fs rss=%.2f MB cpu=%.1f s" % (t, r, cpu_s(heartd.pid) - cpu0), flush=True)
                next_print += max(60.0, args.seconds / 60)
        cpu = cpu_s(heartd.pid) - cpu0
        sent = {a: int(ctl.Stats(a)["sent"]) for a in addresses}
        status = json.loads(subprocess.run([args.heartctl, "--socket", gw.socket, "--json", "status"],
                                           capture_output=True, text=True, check=True).stdout)
        heartd.send_signal(signal.SIGTERM)
        heartd.wait(timeout=30)
        print("heartd exit status %d" % heartd.returncode)
        ok &= heartd.returncode == 0

        after = [r for t, r in samples if t >= warmup]
        q = max(1, len(after) // 4)
        first, last = statistics.median(after[:q]), statistics.median(after[-q:])
        growth = last - first
        flat = growth <= args.max_growth_mb
        ok &= flat
        print("RSS after warm-up: first quarter median %.2f MB, last quarter median %.2f MB, growth %+.2f MB "
              "(allowed %.2f), min %.2f, max %.2f: %s" % (first, last, growth, args.max_growth_mb, min(after),
                                                         max(after), "flat" if flat else "GROWING"))
        print("CPU: %.1f s over %.0f s = %.2f ms/s (%.1f µs per notification)"
              % (cpu, args.seconds, cpu * 1000 / args.seconds, cpu * 1e6 / max(1, sum(sent.values()))))
        stored = stored_counts(args.heartctl, db)
        missing = {a: (sent[a], stored.get(a, 0)) for a in addresses if stored.get(a, 0) != sent[a] or sent[a] != count}
        print("notifications: %d sent, %d stored (%d per sensor expected)"
              % (sum(sent.values()), sum(stored.get(a, 0) for a in addresses), count))
        for a, (s, st) in sorted(missing.items()):
            print("  %s: sent %d, stored %d" % (a, s, st))
        ok &= not missing
        beats_expected = int((count - 1) / args.rate + 1e-9) + 1
        beats = stored_counts(args.heartctl, db, "heartbeat")
        wrong = {a: beats.get(a, 0) for a in addresses if beats.get(a, 0) != beats_expected}
        counters = [d["counters"] for d in status["devices"]]
        gaps = {}
        for c in counters:
            for rule, n in c.get("gapsByRule", {}).items():
                gaps[rule] = gaps.get(rule, 0) + n
        dropped = sum(c.get("droppedBeatsOutOfOrder", 0) for c in counters)
        finished = sum(d.get("seriesFinished", 0) for d in status["devices"])
        print("beats: %d stored (%d per sensor expected), gaps by rule %s, %d dropped out of order, "
              "%d series finished before the SIGTERM" % (sum(beats.values()), beats_expected, gaps, dropped, finished))
        for a, n in sorted(wrong.items()):
            print("  %s: %d beats stored" % (a, n))
        ok &= not wrong and dropped == 0 and gaps == {"connection": len(addresses)}
        print("SOAK %s" % ("PASS" if ok else "FAIL"))
    finally:
        gw.stop()
    sys.exit(0 if ok else 1)


main()
