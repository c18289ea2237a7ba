#!/usr/bin/env python3
"""NeuroKit2's time for what `heartbench hrv` measures in heartd (issue #30, item 6), on the same beats.

    pip install neurokit2==0.3.0
    python3 scripts/reference/hrv_neurokit2_timing.py [--beats 100000] [--runs 3]

Beats: Tests/HealthModelTests/Fixtures/pyhrv_SampleNNISeriesLong.txt looped to --beats intervals, on the
1/1024 s grid (beat k at round(sum of RR * 1.024) ticks), as heartbench builds them.
"All measures": signal_fixpeaks(method="kubios", iterative=True), hrv_time, Poincare SD1/SD2 and fractal_dfa
alpha1 (scales 4..16) and alpha2 (16..64) on the corrected peaks (hrv_nonlinear's other indices left out: heartd
does not compute them), Welch's frequency domain as hrv_neurokit2.py computes it (intervals_process at 4 Hz,
signal_power welch, 256-s windows) and Lomb-Scargle as heartd does it (astropy's LombScargle on 5-minute windows,
hrv_neurokit2.py's lomb_scargle). "Live update": the same classification and correction plus alpha1 on a 2-minute
window. --json prints each stage's median seconds (fixpeaks_s, time_s, poincare_s, dfa1_s, dfa2_s, welch_s, lomb_s),
all_s and live_s as one JSON object, for `heartbench hrv --neurokit2`.
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import neurokit2 as nk
from neurokit2.hrv.hrv_nonlinear import _hrv_nonlinear_poincare

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RR_FILE = os.path.join(ROOT, "Tests", "HealthModelTests", "Fixtures", "pyhrv_SampleNNISeriesLong.txt")
RATE = 1024

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hrv_neurokit2 import frequency, lomb_scargle  # noqa: E402


def all_measures(peaks, dfa2=True):
    _, clean = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True)
    clean = np.asarray(clean, dtype=np.int64)
    nk.hrv_time(clean, sampling_rate=RATE)
    nn = np.diff(clean) / RATE * 1000
    _hrv_nonlinear_poincare(nn, out={})
    a1, _ = nk.fractal_dfa(nn, scale=np.arange(4, 17), multifractal=False)
    a2 = nk.fractal_dfa(nn, scale=np.arange(16, 65), multifractal=False)[0] if dfa2 else None
    return a1, a2


def all_measures_with_frequency(peaks):
    _, clean = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True)
    clean = np.asarray(clean, dtype=np.int64)
    nk.hrv_time(clean, sampling_rate=RATE)
    nn = np.diff(clean) / RATE * 1000
    _hrv_nonlinear_poincare(nn, out={})
    nk.fractal_dfa(nn, scale=np.arange(4, 17), multifractal=False)
    nk.fractal_dfa(nn, scale=np.arange(16, 65), multifractal=False)
    frequency(clean)
    lomb_scargle(clean, "auto")


def stages(peaks, runs):
    _, clean = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True)
    clean = np.asarray(clean, dtype=np.int64)
    nn = np.diff(clean) / RATE * 1000
    return {
        "fixpeaks_s": median_time(lambda: nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True), runs),
        "time_s": median_time(lambda: nk.hrv_time(clean, sampling_rate=RATE), runs),
        "poincare_s": median_time(lambda: _hrv_nonlinear_poincare(nn, out={}), runs),
        "dfa1_s": median_time(lambda: nk.fractal_dfa(nn, scale=np.arange(4, 17), multifractal=False), runs),
        "dfa2_s": median_time(lambda: nk.fractal_dfa(nn, scale=np.arange(16, 65), multifractal=False), runs),
        "welch_s": median_time(lambda: frequency(clean), runs),
        "lomb_s": median_time(lambda: lomb_scargle(clean, "auto"), runs),
    }


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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rr = np.loadtxt(RR_FILE)
    chain = np.resize(rr, args.beats)
    peaks = np.concatenate([[0], np.round(np.cumsum(chain) * RATE / 1000).astype(np.int64)])
    window = peaks[(peaks >= peaks[-1] - 120 * RATE)]
    live = median_time(lambda: all_measures(window, dfa2=False), 20)
    if args.json:
        out = {"neurokit2": nk.__version__, "all_s": median_time(lambda: all_measures_with_frequency(peaks), args.runs),
               "live_s": live}
        out.update(stages(peaks, args.runs))
        print(json.dumps(out))
        return
    whole = median_time(lambda: all_measures(peaks), args.runs)
    print(f"| measure | NeuroKit2 {nk.__version__} |")
    print("|---|---:|")
    print(f"| all measures, {args.beats} intervals, median of {args.runs} | {whole * 1000:.1f} ms |")
    print(f"| live DFA alpha1 update ({len(window) - 1} intervals), median of 20 | {live * 1e6:.1f} µs |")


if __name__ == "__main__":
    main()
