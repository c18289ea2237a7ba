import Foundation

/// Frequency-domain HRV from the Lomb–Scargle periodogram of the NN intervals at their own times (no resampling,
/// `LombScargleSpectrum`), beside Welch's (`HRVFrequencyDomain(segments:)`), with the same bands, relative and
/// normalised powers, LF/HF and peaks:
/// - every gap-free segment spanning at least 120 s (the Task Force's minimum for LF) is cut into ⌊span / 300 s⌋
///   equal windows (one window below 600 s): short-term windows of about 5 minutes (Task Force 1996), never across a
///   gap. A whole day is thus ~290 periodograms of ~375 intervals, not one of 100,000 (whose direct evaluation is
///   O(N²));
/// - each window's periodogram at f_k = k / 1500 Hz, k = 1 … 600 (0.4 Hz): astropy's 5 samples per peak of a
///   300-s window, one grid for every window so their densities average bin by bin;
/// - the densities averaged, weighted by each window's span (first to last interval end); band powers, peaks and
///   ratios of that mean density.
///
/// `windows` counts the periodograms averaged and `seconds` their spans. nil without a segment of 120 s.
extension HRVFrequencyDomain {
    public static let lombScargleWindowSeconds = 300.0
    public static let lombScargleStepHz = 1 / 600.0
    public static let lombScargleBins = 240

    public init?(lombScargleSegments segments: [(times: [Double], intervalsMs: [Double])]) {
        var sum = [Double](repeating: 0, count: Self.lombScargleBins)
        var frequencies: [Double] = []
        var windows = 0, seconds = 0.0
        for segment in segments {
            for window in Self.lombScargleWindows(segment.times) {
                let times = Array(segment.times[window]), values = Array(segment.intervalsMs[window])
                let span = times[times.count - 1] - times[0]
                let spectrum = LombScargleSpectrum(times: times, values: values, step: Self.lombScargleStepHz,
                                                   count: Self.lombScargleBins)
                for b in sum.indices { sum[b] += spectrum.density[b] * span }
                frequencies = spectrum.frequencies
                windows += 1
                seconds += span
            }
        }
        guard windows > 0, seconds > 0 else { return nil }
        self.init(frequencies: frequencies, density: sum.map { $0 / seconds }, windows: windows, seconds: seconds)
    }

    /// The index ranges of a segment's windows (times increasing): none below 120 s or 3 intervals, else
    /// max(1, ⌊span / 300⌋) of equal length, a time on a boundary starting the later window.
    static func lombScargleWindows(_ times: [Double]) -> [Range<Int>] {
        guard times.count >= 3, let first = times.first, let last = times.last, last - first >= minimumSeconds
        else { return [] }
        let count = max(1, Int((last - first) / lombScargleWindowSeconds))
        let length = (last - first) / Double(count)
        var ranges: [Range<Int>] = [], start = 0
        for w in 1 ... count {
            var end = start
            if w == count {
                end = times.count
            } else {
                let boundary = first + Double(w) * length
                while end < times.count && times[end] < boundary { end += 1 }
            }
            if end - start >= 3 { ranges.append(start ..< end) }
            start = end
        }
        return ranges
    }
}
