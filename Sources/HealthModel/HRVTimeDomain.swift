/// Time-domain HRV of NN intervals: `HRVMetrics` (SDNN, RMSSD, pNN50, mean HR) with pNN20 and the mean and
/// median NN. pNN20 follows pNN50's convention: count(|difference| > 20 ms) / number of differences × 100
/// (hrv-analysis and pyhrv; NeuroKit2 divides by differences + 1). Differences never cross a gap.
/// On the wire one flat object: `count`, `differences`, `mean_nn_ms`, `median_nn_ms`, `sdnn_ms`, `rmssd_ms`,
/// `pnn50_pct`, `pnn20_pct`, `mean_hr_bpm` (`rmssd_ms`, `pnn50_pct`, `pnn20_pct` null without a difference).
public struct HRVTimeDomain: Codable, Sendable, Hashable {
    public var metrics: HRVMetrics
    public var meanNNMs: Double
    /// The median of all intervals (the mean of the middle two for an even count).
    public var medianNNMs: Double
    /// nil without a successive difference.
    public var pnn20Percent: Double?

    /// Throws as `HRVMetrics(segments:)` does.
    public init(segments: [[Double]]) throws(HRVError) {
        metrics = try HRVMetrics(segments: segments)
        var all = segments.flatMap { $0 }
        meanNNMs = all.reduce(0, +) / Double(all.count)
        medianNNMs = Self.median(&all)
        var over20 = 0, differences = 0
        for s in segments where s.count >= 2 {
            for k in 1 ..< s.count {
                differences += 1
                if abs(s[k] - s[k - 1]) > 20 { over20 += 1 }
            }
        }
        pnn20Percent = differences > 0 ? Double(over20) / Double(differences) * 100 : nil
    }

    /// The median of `values` (not empty; reordered): the middle value, or the mean of the middle two, found by
    /// quickselect (three-way partitions around a median of three: ties end the search) instead of a sort.
    static func median(_ values: inout [Double]) -> Double {
        let n = values.count, k = (n - 1) / 2
        var lo = 0, hi = n // the k-th smallest is in values[lo ..< hi]; those before are not larger, those after not smaller
        var kth = 0.0
        while true {
            if hi - lo <= 16 {
                values[lo ..< hi].sort()
                kth = values[k]
                break
            }
            let a = values[lo], b = values[(lo + hi) / 2], c = values[hi - 1]
            let pivot = max(min(a, b), min(max(a, b), c))
            let less = values[lo ..< hi].partition { $0 >= pivot }
            let equal = values[less ..< hi].partition { $0 > pivot }
            if k < less {
                hi = less
            } else if k < equal {
                kth = pivot
                break
            } else {
                lo = equal
            }
        }
        guard n % 2 == 0 else { return kth }
        // The next order statistic: the smallest of those after the k-th, none of which is smaller than it.
        var next = Double.infinity
        for v in values[(k + 1)...] where v < next { next = v }
        return (kth + next) / 2
    }

    enum CodingKeys: String, CodingKey {
        case count, differences, meanNNMs = "mean_nn_ms", medianNNMs = "median_nn_ms", sdnnMs = "sdnn_ms",
             rmssdMs = "rmssd_ms", pnn50Percent = "pnn50_pct", pnn20Percent = "pnn20_pct", meanHeartRateBpm = "mean_hr_bpm"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metrics = HRVMetrics(
            count: try c.decode(Int.self, forKey: .count), sdnnMs: try c.decode(Double.self, forKey: .sdnnMs),
            rmssdMs: try c.decodeIfPresent(Double.self, forKey: .rmssdMs),
            pnn50Percent: try c.decodeIfPresent(Double.self, forKey: .pnn50Percent),
            meanHeartRateBpm: try c.decode(Double.self, forKey: .meanHeartRateBpm),
            differenceCount: try c.decode(Int.self, forKey: .differences))
        meanNNMs = try c.decode(Double.self, forKey: .meanNNMs)
        medianNNMs = try c.decode(Double.self, forKey: .medianNNMs)
        pnn20Percent = try c.decodeIfPresent(Double.self, forKey: .pnn20Percent)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(metrics.count, forKey: .count)
        try c.encode(metrics.differenceCount, forKey: .differences)
        try c.encode(meanNNMs, forKey: .meanNNMs)
        try c.encode(medianNNMs, forKey: .medianNNMs)
        try c.encode(metrics.sdnnMs, forKey: .sdnnMs)
        try c.encode(metrics.rmssdMs, forKey: .rmssdMs)
        try c.encode(metrics.pnn50Percent, forKey: .pnn50Percent)
        try c.encode(pnn20Percent, forKey: .pnn20Percent)
        try c.encode(metrics.meanHeartRateBpm, forKey: .meanHeartRateBpm)
    }
}
