import Foundation

/// Frequency-domain HRV of NN intervals: Welch's periodogram of the evenly resampled NN series, as NeuroKit2 0.3
/// computes it (`intervals_process` then `signal_power(method="welch")`), with these settings:
/// - resampling at 4 Hz (Kubios's default; NeuroKit2's `interpolation_rate`, whose default is 100 Hz: the bands
///   end at 0.4 Hz, so 4 Hz loses nothing and costs 25 times less) by SciPy's quadratic interpolating spline
///   (`interp1d(kind="quadratic")`, NeuroKit2's default), sites at each interval's end beat;
/// - the mean removed, Hann windows of 256 s (1024 samples) overlapping by half, each zero-padded to twice its
///   length (NeuroKit2's nfft), one-sided density in ms²/Hz, averaged; a segment shorter than 512 s gets one
///   window of half its length (NeuroKit2's rule);
/// - band powers in ms² by the trapezoid rule over the bins with low ≤ f < high: VLF 0.0033–0.04 Hz,
///   LF 0.04–0.15 Hz, HF 0.15–0.4 Hz.
///
/// Relative powers are band / (VLF + LF + HF) × 100; normalised units LF/(LF + HF) × 100 and HF/(LF + HF) × 100 (Task
/// Force 1996, Kubios; NeuroKit2's LFn divides by its total power, which includes ULF and VHF). Peaks: the
/// frequency of the largest density in the band.
///
/// Segments: never across a gap. Segments of at least 512 s (2048 samples) are resampled each on its own and their windows
/// pooled; without one, the longest segment alone is used if it spans at least 120 s (the Task Force's minimum
/// for LF); shorter recordings have no frequency domain.
public struct HRVFrequencyDomain: Codable, Sendable, Hashable {
    public static let resampleHz = 4.0
    public static let windowSeconds = 256.0
    public static let minimumSeconds = 120.0
    public static let bands: [(name: String, low: Double, high: Double)] =
        [("vlf", 0.0033, 0.04), ("lf", 0.04, 0.15), ("hf", 0.15, 0.4)]

    public var vlfMs2: Double
    public var lfMs2: Double
    public var hfMs2: Double
    public var totalMs2: Double
    public var vlfPercent: Double
    public var lfPercent: Double
    public var hfPercent: Double
    public var lfNu: Double
    public var hfNu: Double
    /// nil when HF power is 0.
    public var lfHfRatio: Double?
    public var vlfPeakHz: Double?
    public var lfPeakHz: Double?
    public var hfPeakHz: Double?
    /// Welch windows averaged, and the seconds of NN series they came from.
    public var windows: Int
    public var seconds: Double

    /// `segments`: per gap-free segment, the end times of its intervals (s) and the intervals (ms). nil when no
    /// segment is long enough.
    public init?(segments: [(times: [Double], intervalsMs: [Double])]) {
        let fs = Self.resampleHz
        let spans = segments.map { ($0.times.last ?? 0) - ($0.times.first ?? 0) }
        let samples = spans.map { Self.sampleCount(span: $0) }
        let window = Int(Self.windowSeconds * fs)
        let full = segments.indices.filter { samples[$0] >= 2 * window && segments[$0].times.count >= 3 }
        let chosen: [Int]
        let m: Int
        if !full.isEmpty {
            chosen = full
            m = window
        } else if let longest = segments.indices.max(by: { spans[$0] < spans[$1] }), spans[longest] >= Self.minimumSeconds,
                  segments[longest].times.count >= 3 {
            chosen = [longest]
            m = samples[longest] / 2
        } else {
            return nil
        }
        var sum: [Double] = [], frequencies: [Double] = []
        var windows = 0, seconds = 0.0
        for i in chosen {
            let series = Self.resampled(segments[i])
            let welch = WelchSpectrum(series, sampleRate: fs, segmentLength: m, fftLength: 2 * m)
            guard welch.windows > 0 else { continue }
            if sum.isEmpty { sum = [Double](repeating: 0, count: welch.density.count) }
            for b in sum.indices { sum[b] += welch.density[b] * Double(welch.windows) }
            frequencies = welch.frequencies
            windows += welch.windows
            seconds += spans[i]
        }
        guard windows > 0 else { return nil }
        self.init(frequencies: frequencies, density: sum.map { $0 / Double(windows) }, windows: windows, seconds: seconds)
    }

    /// The band powers (trapezoid rule over the bins with low ≤ f < high), relative and normalised powers, LF/HF and
    /// peaks of a power density in ms²/Hz: what Welch's and the Lomb–Scargle spectrum share.
    init(frequencies: [Double], density: [Double], windows: Int, seconds: Double) {
        var power: [Double] = [], peaks: [Double?] = []
        for band in Self.bands {
            let inBand = frequencies.indices.filter { frequencies[$0] >= band.low && frequencies[$0] < band.high }
            var p = 0.0
            for (a, b) in zip(inBand, inBand.dropFirst()) {
                p += (density[a] + density[b]) / 2 * (frequencies[b] - frequencies[a])
            }
            power.append(p)
            peaks.append(inBand.max { density[$0] < density[$1] }.map { frequencies[$0] })
        }
        vlfMs2 = power[0]
        lfMs2 = power[1]
        hfMs2 = power[2]
        totalMs2 = power.reduce(0, +)
        vlfPercent = totalMs2 > 0 ? vlfMs2 / totalMs2 * 100 : 0
        lfPercent = totalMs2 > 0 ? lfMs2 / totalMs2 * 100 : 0
        hfPercent = totalMs2 > 0 ? hfMs2 / totalMs2 * 100 : 0
        lfNu = lfMs2 + hfMs2 > 0 ? lfMs2 / (lfMs2 + hfMs2) * 100 : 0
        hfNu = lfMs2 + hfMs2 > 0 ? hfMs2 / (lfMs2 + hfMs2) * 100 : 0
        lfHfRatio = hfMs2 > 0 ? lfMs2 / hfMs2 : nil
        vlfPeakHz = peaks[0]
        lfPeakHz = peaks[1]
        hfPeakHz = peaks[2]
        self.windows = windows
        self.seconds = seconds
    }

    /// The NN series at 4 Hz from the first interval's end to past the last (NumPy's arange), ends held.
    static func resampled(_ s: (times: [Double], intervalsMs: [Double])) -> [Double] {
        let spline = QuadraticSpline(x: s.times, y: s.intervalsMs)
        let t0 = s.times[0]
        return spline.values(from: t0, step: 1 / resampleHz, count: sampleCount(span: s.times[s.times.count - 1] - t0))
    }

    /// NumPy's `len(arange(t0, t1 + step, step))` for t1 − t0 = span.
    public static func sampleCount(span: Double) -> Int {
        let step = 1 / resampleHz
        return Int(((span + step) / step).rounded(.up))
    }

    enum CodingKeys: String, CodingKey {
        case vlfMs2 = "vlf_ms2", lfMs2 = "lf_ms2", hfMs2 = "hf_ms2", totalMs2 = "total_ms2", vlfPercent = "vlf_pct",
             lfPercent = "lf_pct", hfPercent = "hf_pct", lfNu = "lf_nu", hfNu = "hf_nu", lfHfRatio = "lf_hf",
             vlfPeakHz = "vlf_peak_hz", lfPeakHz = "lf_peak_hz", hfPeakHz = "hf_peak_hz", windows, seconds
    }
}
