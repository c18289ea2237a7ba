#!/usr/bin/env python3
"""Reference HRV values from NeuroKit2 for heartd's agreement tests (issue #30, item 5).

Writes Tests/HealthModelTests/Fixtures/hrv_neurokit2.json, which `swift test --filter HRVAgreementTests`
reads (no Python needed there). Rerun after changing a recording or the settings below:

    pip install neurokit2==0.3.0        # the version the committed fixture was made with
    python3 scripts/reference/hrv_neurokit2.py

Recordings (real RR intervals in ms, one per line, in Tests/HealthModelTests/Fixtures/):
  pyhrv_SampleNNISeriesShort.txt  337 intervals, pyhrv 0.5.0 (BSD-3-Clause), no ectopic beat
  pyhrv_SampleNNISeriesLong.txt   4684 intervals, pyhrv 0.5.0 (BSD-3-Clause), ectopic and missed beats
NeuroKit2's own example data (nk.data) is downloaded at run time and cannot be fetched here.

Each recording is put on heartd's 1/1024 s grid as the daemon stores beats: beat k at
round(sum of the first k RR * 1.024) ticks; NeuroKit2 gets those peaks with sampling_rate=1024.
Settings: signal_fixpeaks(method="kubios") with its defaults (first pass: iterative=False, for the classes;
correction: iterative=True); hrv_time on the corrected peaks; Poincare SD1/SD2 and DFA (fractal_dfa,
overlapping windows, linear detrending) with scales 4..16 (alpha1) and 16..64 (alpha2), the functions
hrv_nonlinear(dfa_windows=[(4, 16), (16, 64)]) calls (its other, slow indices left out);
frequency domain: intervals_process(interpolate=True, interpolation_rate=4) (NeuroKit2's quadratic spline), then
signal_power / signal_psd(method="welch", window=256, min_frequency=0.001, normalize=False) over the bands
VLF 0.0033-0.04, LF 0.04-0.15, HF 0.15-0.4 Hz (hrv_frequency passes its keyword arguments on to the interpolation
as well, so it cannot be given a window; these are the calls it makes).
Lomb-Scargle ("lomb_scargle"): NeuroKit2's hrv_frequency(psd_method="lombscargle", interpolation_rate=None) hands the
NN intervals at their own times to signal_psd, which calls astropy's LombScargle(t, y, normalization="psd")
.autopower(...) on the whole recording and then, by default, divides the spectrum by its maximum. heartd computes
the same periodogram (astropy's "psd" normalisation, floating mean) in 5-minute windows on its own grid and scales it
to a density (docs/HRV.md), so the reference here makes astropy's calls on heartd's windows and grid
(lomb_scargle_windows below, the rule of HRVFrequencyDomain(lombScargleSegments:)): astropy's default method
(method="auto", here the fast O(N log N) one, as NeuroKit2 gets it) and the exact one (method="cython") both.
"lomb_scargle_neurokit2" is NeuroKit2's own hrv_frequency(psd_method="lombscargle", interpolation_rate=None,
normalize=False) on the whole recording, with the mean spacing of the interval times (its band powers times
2 x that spacing are ms^2 on heartd's scale); where the recording is one 5-minute window (the short one) it is
heartd's computation on astropy's autopower grid (df = 1 / (5 x span), starting at NeuroKit2's 4 x median RR / N,
which cuts VLF short).
Needs astropy (pip install astropy; 8.0.2 made the committed fixture).
"""
import json
import os
import sys

import numpy as np
import neurokit2 as nk
from neurokit2.hrv.hrv_nonlinear import _hrv_nonlinear_poincare

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "HealthModelTests", "Fixtures")
RECORDINGS = ["pyhrv_SampleNNISeriesShort.txt", "pyhrv_SampleNNISeriesLong.txt"]
RATE = 1024


def peaks_of(rr_ms):
    return np.concatenate([[0], np.round(np.cumsum(rr_ms) * RATE / 1000).astype(np.int64)])


def classes_of(info, n_intervals):
    """One class per interval (interval k ends at peak k + 1); NeuroKit2's longshort stays one class."""
    classes = ["normal"] * n_intervals
    for name in ["ectopic", "missed", "extra", "longshort"]:
        for i in info[name]:
            if 1 <= i <= n_intervals:
                classes[i - 1] = name
    return classes


def reference(name):
    rr = np.loadtxt(os.path.join(FIXTURES, name))
    peaks = peaks_of(rr)
    first, _ = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=False)
    _, clean = nk.signal_fixpeaks(peaks, sampling_rate=RATE, method="kubios", iterative=True)
    clean = np.asarray(clean, dtype=np.int64)
    t = nk.hrv_time(clean, sampling_rate=RATE)
    nn = np.diff(clean) / RATE * 1000
    poincare = _hrv_nonlinear_poincare(nn, out={})
    nl = {
        "SD1": poincare["SD1"], "SD2": poincare["SD2"], "SD1SD2": poincare["SD1SD2"],
        "DFA_alpha1": nk.fractal_dfa(nn, scale=np.arange(4, 17), multifractal=False)[0],
        "DFA_alpha2": nk.fractal_dfa(nn, scale=np.arange(16, 65), multifractal=False)[0],
    }
    value = lambda frame, key: float(frame["HRV_" + key].iloc[0])
    return {
        "name": name,
        "peaks": peaks.tolist(),
        "classes": classes_of(first, len(peaks) - 1),
        "corrected_peaks": clean.tolist(),
        "time": {k: value(t, k) for k in ["MeanNN", "MedianNN", "SDNN", "RMSSD", "pNN50", "pNN20"]},
        "differences": int(len(nn) - 1),
        "nonlinear": {k: float(v) for k, v in nl.items()},
        "frequency": frequency(clean),
        "lomb_scargle": lomb_scargle(clean, "auto"),
        "lomb_scargle_exact": lomb_scargle(clean, "cython"),
        "lomb_scargle_neurokit2": lomb_scargle_neurokit2(clean),
    }


BANDS = {"VLF": (0.0033, 0.04), "LF": (0.04, 0.15), "HF": (0.15, 0.4)}


def frequency(clean):
    rri = np.diff(clean) / RATE * 1000
    rri_time = clean[1:] / RATE
    series, _, fs = nk.intervals_process(rri, intervals_time=rri_time, interpolate=True, interpolation_rate=4)
    settings = dict(sampling_rate=fs, method="welch", window=256, min_frequency=0.001, normalize=False)
    power = nk.signal_power(series, frequency_band=list(BANDS.values()), max_frequency=0.5, **settings)
    out = dict(zip(BANDS, (float(v) for v in power.iloc[0].values)))
    psd = nk.signal_psd(series, max_frequency=0.5, **settings)
    for name, (low, high) in BANDS.items():
        band = psd[(psd["Frequency"] >= low) & (psd["Frequency"] < high)]
        out[name + "_peak_hz"] = float(band["Frequency"].values[np.argmax(band["Power"].values)])
    out["samples"] = int(len(series))
    return out


LS_WINDOW, LS_STEP, LS_BINS, LS_MINIMUM = 300.0, 1 / 600.0, 240, 120.0


def lomb_scargle_windows(times):
    """HRVFrequencyDomain.lombScargleWindows: max(1, floor(span / 300 s)) equal windows of a segment of >= 120 s."""
    span = times[-1] - times[0]
    if len(times) < 3 or span < LS_MINIMUM:
        return []
    count = max(1, int(span / LS_WINDOW))
    length = span / count
    ranges, start = [], 0
    for w in range(1, count + 1):
        end = len(times) if w == count else int(np.searchsorted(times, times[0] + w * length, side="left"))
        if end - start >= 3:
            ranges.append((start, end))
        start = end
    return ranges


def lomb_scargle(clean, method):
    from astropy.timeseries import LombScargle

    nn = np.diff(clean) / RATE * 1000
    times = clean[1:] / RATE
    freq = LS_STEP * np.arange(1, LS_BINS + 1)
    total, seconds, windows = np.zeros(LS_BINS), 0.0, 0
    for a, b in lomb_scargle_windows(times):
        t, y = times[a:b], nn[a:b]
        span = t[-1] - t[0]
        p = LombScargle(t, y - y.mean(), normalization="psd").power(freq, method=method, assume_regular_frequency=True)
        total += 2 * p * span / (len(t) - 1) * span  # density 2 P mean-spacing, weighted by the window's span
        seconds += span
        windows += 1
    density = total / seconds
    out = {"windows": windows, "seconds": seconds}
    for name, (low, high) in BANDS.items():
        band = (freq >= low) & (freq < high)
        out[name] = float(np.trapezoid(density[band], freq[band]))
        out[name + "_peak_hz"] = float(freq[band][np.argmax(density[band])])
    return out


def lomb_scargle_neurokit2(clean):
    out = nk.hrv_frequency(clean, sampling_rate=RATE, psd_method="lombscargle", interpolation_rate=None,
                           normalize=False, silent=True)
    times = clean[1:] / RATE
    result = {k: float(out["HRV_" + k].iloc[0]) for k in ["VLF", "LF", "HF", "LFHF"]}
    result["mean_spacing_s"] = float((times[-1] - times[0]) / (len(times) - 1))
    return result


def main():
    out = {
        "generator": "scripts/reference/hrv_neurokit2.py",
        "neurokit2": nk.__version__,
        "numpy": np.__version__,
        "ticks_per_second": RATE,
        "recordings": [reference(name) for name in RECORDINGS],
    }
    path = os.path.join(FIXTURES, "hrv_neurokit2.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
