#!/usr/bin/python3
"""gateway-cpu.py HEARTD [--sensors 16] [--rate 1] [--seconds 30] [--subscribe start-notify|acquire-notify]
                [--set KEY=VALUE ...] [--watch HEARTCTL] [--perf FILE]
(without --subscribe: heartd's default, AcquireNotify; --set passes heartd a setting, e.g. series.max_values=50;
--watch runs `HEARTCTL watch` against heartd throughout, as a live service would; --perf records heartd's call graph
over the measured seconds with `perf record -g` into FILE)

heartd's whole CPU (its process CPU clock: every thread, exited ones too; the store included) while N sensors
(default 16, on 3 adapters of 6 slots) stream R notifications a second each (default 1) from the project's fake
BlueZ (Tests/BlueZTests/Fixtures/fake_bluez.py) on a private bus, and where it goes per thread
(/proc/PID/task/*/schedstat). Issue 14's target: 16 sensors at 1/s ≤ 0.5 ms of CPU per second in all.
"""
import argparse, os, subprocess, sys, time

import dbus

from gateway_fixture import Gateway


def process_cpu_ns(pid):
    return time.clock_gettime_ns(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the thread group: exited threads included


def threads(pid):
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            run_ns, _, slices = (int(x) for x in open("/proc/%d/task/%s/schedstat" % (pid, tid)).read().split())
            # Slices count every time the thread got a CPU: its own wake-ups, and its returns after a preemption
            # (involuntary switches, e.g. by a thread it has just woken).
            status = dict(l.split(":", 1) for l in open("/proc/%d/task/%s/status" % (pid, tid)) if ":" in l)
            preempted = int(status.get("nonvoluntary_ctxt_switches", "0"))
            out[tid] = (open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip(), run_ns, slices, preempted)
        except OSError:
            pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("heartd")
    ap.add_argument("--sensors", type=int, default=16)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--subscribe", default=None, help="default: heartd's own (acquire-notify)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting for heartd")
    ap.add_argument("--watch", metavar="HEARTCTL", help="a `watch` client throughout")
    ap.add_argument("--perf", metavar="FILE", help="perf record -g of heartd over the measured seconds")
    args = ap.parse_args()
    addresses = ["A0:9E:1A:7C:02:%02X" % i for i in range(1, args.sensors + 1)]
    extra = (["--subscribe", args.subscribe] if args.subscribe else []) + [a for s in args.set for a in ("--set", s)]
    gw = Gateway(args.heartd, addresses, "heartd-gw.", extra)
    heartd, ctl = gw.heartd, gw.ctl
    watcher = perf = None
    try:
        if not gw.wait_subscribed({"acquire-notify": "fd_open", "start-notify": "subscribed"}.get(args.subscribe)):
            sys.exit(1)
        if args.watch:
            watcher = subprocess.Popen([args.watch, "--socket", gw.socket, "watch"], stdout=subprocess.DEVNULL)
        time.sleep(2.0)  # start-up work settles
        count = int(args.rate * (args.seconds + 5))
        for a in addresses:
            ctl.Stream(a, args.rate, dbus.UInt32(count))
        time.sleep(2.5)  # the first values open the series; measure the steady state
        if args.perf:
            perf = subprocess.Popen(["perf", "record", "-g", "-q", "-o", args.perf, "-p", str(heartd.pid)])
        c0, t0, th0 = process_cpu_ns(heartd.pid), time.time(), threads(heartd.pid)
        time.sleep(args.seconds)
        c1, t1, th1 = process_cpu_ns(heartd.pid), time.time(), threads(heartd.pid)
        if perf:
            perf.send_signal(2)
            perf.wait(timeout=60)
        dt = t1 - t0
        notifs = args.sensors * args.rate * dt
        print("| heartd, %d sensor(s) × %g/s, %s%s, %.0f s | CPU ms/s | µs per notification |"
              % (args.sensors, args.rate, args.subscribe or "default", ", a watch client" if watcher else "", dt))
        print("|---|---:|---:|")
        print("| whole process (CPU clock) | **%.3f** | %.1f |" % ((c1 - c0) / 1e6 / dt, (c1 - c0) / 1e3 / notifs))
        rows = []
        for tid in set(th0) | set(th1):
            name, r0, s0, p0 = th0.get(tid, (th1.get(tid, ("?",))[0], 0, 0, 0))
            _, r1, s1, p1 = th1.get(tid, (name, r0, s0, p0))
            if r1 - r0 > 0:
                rows.append(("%s%s" % (name, "" if tid in th0 and tid in th1 else " (started/exited)"), (r1 - r0) / 1e6 / dt,
                             (s1 - s0) / dt, (p1 - p0) / dt))
        for name, ms, slices, preempted in sorted(rows, key=lambda r: -r[1]):
            print("| thread %s (%.1f slices/s, of which %.1f after a preemption) | %.3f | %.1f |"
                  % (name, slices, preempted, ms, ms * 1e3 / (notifs / dt)))
    finally:
        if watcher:
            watcher.terminate()
        heartd.terminate()
        heartd.wait(timeout=20)
        gw.stop()


main()
