#!/usr/bin/env python3
"""NeuroKit2's time for what `heartbench hrv` measures in heartd (issue #30, item 6), on the same beats.

    pip install neurokit2==0.3.0
    python3 scripts/reference/hrv_neurokit2_timing.py [--beats 100000] [--runs 3]

Beats: Tests/HealthModelTests/Fixtures/pyhrv_SampleNNISeriesLong.txt looped to --beats intervals, on the
1/1024 s grid (beat k at round(sum of RR * 1.024) ticks), as heartbench builds them.
"All measures": signal_fixpeaks(method="kubios", iterative=True), hrv_time, Poincare SD1/SD2 and fractal_dfa
alpha1 (scales 4..16) and alpha2 (16..64) on the corrected peaks (hrv_nonlinear's other indices left out: heartd
does not compute them). "Live update": the same classification and correction plus alpha1 on a 2-minute window.
"""
import argparse
import os
import time

import numpy as np
import neurokit2 as nk
from neurokit2.hrv.hrv_nonlinear import _hrv_nonlinear_poincare

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RR_FILE = os.path.join(ROOT, "Tests", "HealthModelTests", "Fixtures", "pyhrv_SampleNNISeriesLong.txt")
RATE = 1024


def all_measures(peaks, dfa2=True):
    _, clean = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True)
    clean = np.asarray(clean, dtype=np.int64)
    nk.hrv_time(clean, sampling_rate=RATE)
    nn = np.diff(clean) / RATE * 1000
    _hrv_nonlinear_poincare(nn, out={})
    a1, _ = nk.fractal_dfa(nn, scale=np.arange(4, 17), multifractal=False)
    a2 = nk.fractal_dfa(nn, scale=np.arange(16, 65), multifractal=False)[0] if dfa2 else None
    return a1, a2


def median_time(body, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--beats", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rr = np.loadtxt(RR_FILE)
    chain = np.resize(rr, args.beats)
    peaks = np.concatenate([[0], np.round(np.cumsum(chain) * RATE / 1000).astype(np.int64)])
    whole = median_time(lambda: all_measures(peaks), args.runs)
    window = peaks[(peaks >= peaks[-1] - 120 * RATE)]
    live = median_time(lambda: all_measures(window, dfa2=False), 20)
    print(f"| measure | NeuroKit2 {nk.__version__} |")
    print("|---|---:|")
    print(f"| all measures, {args.beats} intervals, median of {args.runs} | {whole * 1000:.1f} ms |")
    print(f"| live DFA alpha1 update ({len(window) - 1} intervals), median of 20 | {live * 1e6:.1f} µs |")


if __name__ == "__main__":
    main()
