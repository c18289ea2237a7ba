#!/usr/bin/python3
"""heartd's resident memory: idle (no sensor), with 16 sensors connected and silent, with 16 sensors streaming, and
with 16 sensors streaming after their series rotated, spread over 3 adapters of 6 slots (a gateway), for one or
more heartd binaries side by side (e.g. the static build and the dynamic one).

Runs each binary against the project's fake BlueZ on a private bus (scripts/bench/gateway_fixture.py), prints a
markdown table with a column per binary, then where the resident memory of each streaming daemon is
(/proc/PID/smaps grouped by mapping: RSS, of which dirty, i.e. the process's own, and the pages touched during
the stream's last seconds: the steady state's working set). Every figure is read once start-up has settled
(--settle s after heartd's start), the peak beside it is what start-up took. The last row is the long run: a series
rotates after 1000 values (~17 min at 1/s, ~4 min at 4/s), and finishing and saving it runs code the stream
alone does not; there the series hold --settle s of values (series.max_values), so they rotate once start-up has
settled, and the figure is read --seconds after that rotation.
usage: memory.py HEARTD [HEARTD ...] [--rate 4] [--seconds 10] [--settle 75] [--env NAME=VALUE ...]
       a binary may be given as LABEL=PATH; --env applies to every heartd started (e.g. MALLOC_ARENA_MAX=1).
"""
import argparse
import os
import time

import dbus

from gateway_fixture import Gateway, rss_mb

ADDRESSES = ["A0:9E:1A:7C:00:%02X" % i for i in range(1, 17)]


def smaps(pid):
    """RSS, dirty and referenced KB per mapped file (anonymous mappings: [heap], [stack], [anon])."""
    out, name = {}, None
    for line in open("/proc/%d/smaps" % pid):
        head = line.split()
        if "-" in head[0] and not head[0].endswith(":"):
            name = os.path.basename(head[5]) if len(head) > 5 else "[anon]"
        elif head[0] == "Rss:":
            out.setdefault(name, [0, 0, 0])[0] += int(head[1])
        elif head[0] in ("Private_Dirty:", "Shared_Dirty:"):
            out.setdefault(name, [0, 0, 0])[1] += int(head[1])
        elif head[0] == "Referenced:":
            out.setdefault(name, [0, 0, 0])[2] += int(head[1])
    return out


def clear_referenced(pid):
    """Clears the accessed bits of the process's pages (proc(5), clear_refs): smaps' Referenced then counts the
    pages touched since, i.e. the steady state's working set, not what start-up left resident."""
    with open("/proc/%d/clear_refs" % pid, "w") as f:
        f.write("1")


def sleep_until(t):
    time.sleep(max(0.0, t - time.time()))


def measure(heartd, rate, seconds, settle, env):
    """[(row label, RSS MB, peak MB)] and the streaming daemon's mappings. Each row is read `settle` s after heartd
    started (a build older than issue 27's has paged its start-up pages out by then, a minute after its start); the
    peak shows what start-up itself took."""
    def settled_rss(label, allow, subscribe):
        gw = Gateway(heartd, ADDRESSES, "heartd-mem.", allow=allow, env=env)
        try:
            if subscribe:
                gw.wait_subscribed()
            sleep_until(gw.started + settle)
            rows.append((label, *rss_mb(gw.heartd.pid)))
            gw.heartd.terminate()
            gw.heartd.wait(timeout=20)
        finally:
            gw.stop()

    rows = []
    settled_rss("idle, no sensor", [], False)
    settled_rss("16 sensors connected, silent", None, True)
    # As a strap does, each sensor streams from its subscription on: its first values open its series during
    # start-up; the working set is what the last `seconds` touched.
    def streaming(label, rotate):
        values = int(rate * settle)
        extra = ["--set", "series.max_values=%d" % values, "--set", "series.max_beats=%d" % values] if rotate else []
        gw = Gateway(heartd, ADDRESSES, "heartd-mem.", extra, env=env)
        try:
            gw.wait_subscribed()
            # The series rotate `settle` s after the stream starts, past the release; read `seconds` after that.
            end = (time.time() + settle if rotate else gw.started + settle) + seconds
            for a in ADDRESSES:
                gw.ctl.Stream(a, rate, dbus.UInt32(int(rate * (end + 5 - time.time()))))
            sleep_until(end - seconds)
            clear_referenced(gw.heartd.pid)
            time.sleep(seconds)
            rows.append((label, *rss_mb(gw.heartd.pid)))
            mappings[label] = smaps(gw.heartd.pid)
            gw.heartd.terminate()
            gw.heartd.wait(timeout=20)
        finally:
            gw.stop()

    mappings = {}
    streaming("16 sensors streaming %g/s each (the last %gs)" % (rate, seconds), False)
    streaming("16 streaming, after a series rotation (the last %gs)" % seconds, True)
    return rows, mappings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("heartd", nargs="+", help="PATH or LABEL=PATH")
    ap.add_argument("--rate", type=float, default=4.0, help="notifications a second per sensor")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the stream")
    ap.add_argument("--settle", type=float, default=75.0,
                    help="seconds after heartd's start before measuring (builds older than issue 27's paged out what "
                         "start-up left resident a minute after their start: keep 75 to compare with them)")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for heartd's environment")
    args = ap.parse_args()
    env = dict(e.split("=", 1) for e in args.env)
    binaries = [(b.split("=", 1) if "=" in b else (os.path.relpath(b), b)) for b in args.heartd]
    results = [(label, *measure(path, args.rate, args.seconds, args.settle, env)) for label, path in binaries]

    if env:
        print("environment: %s\n" % " ".join("%s=%s" % kv for kv in sorted(env.items())))
    print("| RSS MB (peak) | %s |\n|---|%s" % (" | ".join(label for label, _, _ in results), "---:|" * len(results)))
    for i, (name, _, _) in enumerate(results[0][1]):
        print("| %s | %s |" % (name, " | ".join("%.1f (%.1f)" % (rows[i][1], rows[i][2]) for _, rows, _ in results)))
    for label, _, by_row in results:
        for row, mappings in by_row.items():
            print("\n| %s, %s: mapping | RSS KB | of which dirty KB | touched while streaming KB |"
                  "\n|---|---:|---:|---:|" % (label, row.split(" (")[0]))
            for name, (kb, dirty, touched) in sorted(mappings.items(), key=lambda kv: -kv[1][0]):
                if kb >= 64:
                    print("| %s | %d | %d | %d |" % (name, kb, dirty, touched))
            small = [v for v in mappings.values() if v[0] < 64]
            print("| %d smaller mappings | %d | %d | %d |" % (len(small), *(sum(v[i] for v in small) for i in range(3))))
            print("| **all** | %d | %d | %d |" % tuple(sum(v[i] for v in mappings.values()) for i in range(3)))


main()
