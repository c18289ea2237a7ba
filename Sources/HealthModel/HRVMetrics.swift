import Foundation

/// Why HRV metrics could not be computed.
public struct HRVError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Fewer than 2 RR intervals: SDNN is undefined.
        case tooFewIntervals = "too-few-intervals"
        /// An RR interval is not a positive finite number of milliseconds.
        case invalidInterval = "invalid-interval"
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

/// Time-domain heart rate variability of RR (NN) intervals in milliseconds, with the conventions of
/// hrv-analysis and pyhrv (no artefact filtering):
/// - `sdnnMs`: sample standard deviation (n − 1 denominator) of all RR intervals;
/// - `rmssdMs`: √(mean of the squared successive differences);
/// - `pnn50Percent`: count(|difference| > 50 ms, strictly) / number of differences × 100;
/// - `meanHeartRateBpm`: mean of the instantaneous rates 60000 / RR (not 60000 / mean RR).
///
/// Segments: RR intervals may come in segments (runs of beats without a gap between them). Successive
/// differences are taken only inside a segment and pooled over all segments (a segment of k intervals gives
/// k − 1 differences; none crosses a gap); SDNN and mean heart rate use all intervals of all segments.
/// For one segment this is the plain definition above.
public struct HRVMetrics: Codable, Sendable, Hashable {
    /// Number of RR intervals used.
    public var count: Int
    public var sdnnMs: Double
    /// nil when there is no successive difference (every segment holds a single interval).
    public var rmssdMs: Double?
    /// nil when there is no successive difference.
    public var pnn50Percent: Double?
    public var meanHeartRateBpm: Double
    /// Number of successive differences behind `rmssdMs` and `pnn50Percent`.
    public var differenceCount: Int

    public init(count: Int, sdnnMs: Double, rmssdMs: Double?, pnn50Percent: Double?, meanHeartRateBpm: Double,
                differenceCount: Int) {
        self.count = count
        self.sdnnMs = sdnnMs
        self.rmssdMs = rmssdMs
        self.pnn50Percent = pnn50Percent
        self.meanHeartRateBpm = meanHeartRateBpm
        self.differenceCount = differenceCount
    }

    /// Metrics of one uninterrupted run of RR intervals (ms).
    public init(rrIntervalsMs: [Double]) throws(HRVError) {
        try self.init(segments: [rrIntervalsMs])
    }

    /// Metrics of RR intervals (ms) in segments; differences never cross a segment boundary.
    /// Throws `too-few-intervals` with fewer than 2 intervals in all, `invalid-interval` for a value that is
    /// not positive and finite.
    public init(segments: [[Double]]) throws(HRVError) {
        var n = 0, total = 0.0, rateSum = 0.0
        for segment in segments {
            for rr in segment {
                guard rr.isFinite, rr > 0 else {
                    throw HRVError(.invalidInterval, "RR interval \(rr) ms is not a positive finite number")
                }
                n += 1
                total += rr
                rateSum += 60_000 / rr
            }
        }
        guard n >= 2 else { throw HRVError(.tooFewIntervals, "\(n) RR interval(s); SDNN needs at least 2") }
        let mean = total / Double(n)
        // Two passes (mean first) keep the variance accurate for long recordings.
        var squaredDeviations = 0.0, squaredDifferences = 0.0, differences = 0, over50 = 0
        for segment in segments {
            var previous: Double?
            for rr in segment {
                squaredDeviations += (rr - mean) * (rr - mean)
                if let p = previous {
                    let d = rr - p
                    squaredDifferences += d * d
                    differences += 1
                    if abs(d) > 50 { over50 += 1 }
                }
                previous = rr
            }
        }
        self.init(
            count: n,
            sdnnMs: (squaredDeviations / Double(n - 1)).squareRoot(),
            rmssdMs: differences > 0 ? (squaredDifferences / Double(differences)).squareRoot() : nil,
            pnn50Percent: differences > 0 ? Double(over50) / Double(differences) * 100 : nil,
            meanHeartRateBpm: rateSum / Double(n),
            differenceCount: differences)
    }

    /// Metrics of a heartbeat series' beats, segmented by `segments(of:)`.
    public init(beats: [Beat]) throws(HRVError) {
        try self.init(segments: HRVMetrics.segments(of: beats))
    }

    /// RR intervals in ms between consecutive beats, split into segments. An interval is formed between
    /// beat i−1 and beat i only when beat i is not `precededByGap` and its offset is later than beat i−1's
    /// (non-increasing or non-finite offsets, which a builder never produces, also break the segment).
    /// A beat with `precededByGap` starts a new segment. Segments without an interval are left out.
    public static func segments(of beats: [Beat]) -> [[Double]] {
        beatSegments(of: beats).map { range in
            (range.lowerBound + 1 ..< range.upperBound).map { (beats[$0].offset - beats[$0 - 1].offset) * 1000 }
        }
    }

    /// The gap-free runs of `beats` behind `segments(of:)`: index ranges of at least 2 beats, each giving
    /// `count − 1` RR intervals, split where a beat is `precededByGap` or its offset is not later than the
    /// previous beat's.
    public static func beatSegments(of beats: [Beat]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for i in beats.indices.dropFirst() {
            let rr = (beats[i].offset - beats[i - 1].offset) * 1000
            if beats[i].precededByGap || !rr.isFinite || rr <= 0 {
                if i - start >= 2 { result.append(start ..< i) }
                start = i
            }
        }
        if beats.count - start >= 2 { result.append(start ..< beats.count) }
        return result
    }
}
