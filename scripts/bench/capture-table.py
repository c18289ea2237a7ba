#!/usr/bin/python3
"""capture-table.py RESULTS_DIR - floor, bleak and heartd side by side from one shared/bench run.

Labels are `<subscriber>-<mode>` (floor-StartNotify, bleak-AcquireNotify, heartd-StartNotify …). The CPU figure for
every subscriber is the harness's own (`us_per_notif`: each process's CPU clock, threads that exited included, from
stream_start to stream_end + 0.5 s). For heartd the table also shows its self-report (`stream_cpu_us` from
`--print-received`: CLOCK_PROCESS_CPUTIME_ID from its first value to its last): it leaves out the first value and
the half second after the stream, so it is a little lower; the harness's figure is the one compared.
Prints medians per mode and rate, the ratios heartd / floor and heartd / bleak, and whether heartd is below bleak
(the bound at every rate, docs/BENCHMARKS.md). A `before-<mode>` subscriber (an older heartd build, `HEARTD_BEFORE` in
bench-capture.sh) gets a column of its own.
"""
import json, os, re, statistics, sys

rows = [json.loads(l) for l in open(os.path.join(sys.argv[1], "results.jsonl"))]
harness, selfreport, rss_idle, rss_peak, idle = {}, {}, {}, {}, {}
for r in rows:
    if not r.get("ok"):
        continue
    key = (r["label"], r["rate"])
    harness.setdefault(key, []).append(r["us_per_notif"])
    rss_idle.setdefault(key, []).append(r["rss_idle_mb"])
    rss_peak.setdefault(key, []).append(r["rss_peak_mb"])
    idle.setdefault(key, []).append(r["idle_ms_per_s"])
    if r["label"].startswith("heartd") or r["label"].startswith("before"):
        cpu = re.findall(r"stream_cpu_us=(\d+) stream_values=(\d+)", open(os.path.join(r["tmp"], "sub.out")).read())
        if cpu:
            selfreport.setdefault(key, []).append(int(cpu[-1][0]) / int(cpu[-1][1]))


def med(d, key):
    v = [x for x in d.get(key, []) if x is not None]
    return statistics.median(v) if v else None


def f(v, spec="%.1f"):
    return "-" if v is None else spec % v


def ratio(a, b):
    return "%.2f×" % (a / b) if a is not None and b else "-"


rates = sorted({rate for _, rate in harness})
print("### µs of CPU per notification (median of %d; harness figure for all)" % max(len(v) for v in harness.values()))
print()
before = any(label.startswith("before-") for label, _ in harness)
print("| mode | rate/s | floor | bleak |%s heartd | heartd self-report | heartd / floor | heartd / bleak | below bleak? |"
      % (" heartd before |" if before else ""))
print("|---|---:|---:|---:|%s---:|---:|---:|---:|---|" % ("---:|" if before else ""))
for mode in ("StartNotify", "AcquireNotify"):
    for rate in rates:
        fl, bl, hd, bf = (med(harness, ("%s-%s" % (s, mode), rate)) for s in ("floor", "bleak", "heartd", "before"))
        sr = med(selfreport, ("heartd-" + mode, rate))
        ok = "-" if hd is None or bl is None else ("yes" if hd < bl else "NO")
        print("| %s | %g | %s | %s |%s **%s** | %s | %s | %s | %s |"
              % (mode, rate, f(fl), f(bl), (" %s |" % f(bf)) if before else "", f(hd), f(sr), ratio(hd, fl), ratio(hd, bl), ok))
print()
print("### memory and idle cost (median over rates and repeats)")
print()
print("| subscriber | RSS subscribed, before the stream MB | RSS peak MB | idle ms/s (connected, silent) |")
print("|---|---:|---:|---:|")
for label in sorted({l for l, _ in harness}):
    keys = [(label, rate) for rate in rates]
    cat = lambda d: statistics.median([x for k in keys for x in d.get(k, []) if x is not None] or [float("nan")])
    print("| %s | %.1f | %.1f | %.2f |" % (label, cat(rss_idle), cat(rss_peak), cat(idle)))
