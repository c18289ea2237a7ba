#!/usr/bin/python3
"""stream-cpu.py RESULTS_DIR - CPU per notification from shared/bench's results, corrected for heartd.

shared/bench sums /proc/PID/task/*/schedstat over the threads alive at the two ends of its window, so the CPU
of a thread that exits inside the window is subtracted from it. bleak runs on one thread: its figure stands.
heartd's libdispatch workers exit a few seconds after start-up, inside the stream, so for heartd this script
uses what heartd itself measured with CLOCK_PROCESS_CPUTIME_ID (all threads, exited ones too) between its
first and last value (`stream_cpu_us`, `stream_values` in the run's sub.out; see StreamCPUProbe).
Prints the medians per label and rate, then the ratios bleak / heartd.
"""
import json, os, re, statistics, sys

rows = [json.loads(l) for l in open(os.path.join(sys.argv[1], "results.jsonl"))]
figures = {}  # (label, rate) -> [(harness, corrected)]
for r in rows:
    if not r.get("ok"):
        continue
    harness = r.get("us_per_notif")
    corrected = harness
    if r["label"].startswith("heartd"):
        out = open(os.path.join(r["tmp"], "sub.out")).read()
        cpu = re.findall(r"stream_cpu_us=(\d+) stream_values=(\d+)", out)
        corrected = int(cpu[-1][0]) / int(cpu[-1][1]) if cpu else None
    figures.setdefault((r["label"], r["rate"]), []).append((harness, corrected))

def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

def fmt(v):
    return "-" if v is None else "%.1f" % v

print("| command | rate/s | runs | harness µs/notif | µs CPU per notification (used) |")
print("|---|---:|---:|---:|---:|")
table = {}
for (label, rate), runs in sorted(figures.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    h, c = med([x for x, _ in runs]), med([y for _, y in runs])
    table[(label, rate)] = c
    print("| %s | %g | %d | %s | **%s** |" % (label, rate, len(runs), fmt(h), fmt(c)))
print()
print("| ratio bleak / heartd (µs per notification) | " + " | ".join("%g/s" % r for r in sorted({r for _, r in table})) + " |")
print("|---|" + "---:|" * len({r for _, r in table}))
for name, b, h in [("StartNotify vs StartNotify", "bleak-StartNotify", "heartd-StartNotify"),
                   ("AcquireNotify vs AcquireNotify", "bleak-AcquireNotify", "heartd-AcquireNotify"),
                   ("bleak's default (StartNotify) vs heartd AcquireNotify", "bleak-StartNotify", "heartd-AcquireNotify")]:
    cells = []
    for rate in sorted({r for _, r in table}):
        bv, hv = table.get((b, rate)), table.get((h, rate))
        cells.append("%.1f×" % (bv / hv) if bv and hv else "-")
    print("| %s | %s |" % (name, " | ".join(cells)))
