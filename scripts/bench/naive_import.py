#!/usr/bin/env python3
"""The naive importer `heartbench data` compares `heartd replay` with: a heartd replay file (docs/REPLAY.md) into
SQLite, one row per beat and one per heart-rate value. Usage: naive_import.py REPLAY.jsonl OUT.sqlite"""
import json, sqlite3, sys

beats, rates, last = [], [], {}
with open(sys.argv[1]) as f:
    for line in f:
        if not line.strip() or line.startswith("#"): continue
        d = json.loads(line); dev = d["device"].upper()
        if d.get("event") == "disconnected": last.pop(dev, None)
        if "hex" not in d: continue
        b = bytes.fromhex(d["hex"].replace(" ", "").replace(":", "")); flags = b[0]
        bpm, i = (b[1] | b[2] << 8, 3) if flags & 1 else (b[1], 2)
        if flags & 8: i += 2
        rr = [b[k] | b[k + 1] << 8 for k in range(i, len(b) - 1, 2)] if flags & 16 else []
        if rr and dev not in last:  # the implied predecessor of the first RR, gap-flagged
            last[dev] = d["t"] - sum(rr) / 1024; beats.append((dev, last[dev], 1))
        for v in rr:
            last[dev] += v / 1024; beats.append((dev, last[dev], 0))
        rates.append((dev, d["t"], bpm))
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE beat(device TEXT, t REAL, gap INTEGER)")
db.execute("CREATE TABLE hr(device TEXT, t REAL, bpm INTEGER)")
db.executemany("INSERT INTO beat VALUES (?, ?, ?)", beats)
db.executemany("INSERT INTO hr VALUES (?, ?, ?)", rates)
db.commit()
print(f"beats={len(beats)} hr={len(rates)}")
