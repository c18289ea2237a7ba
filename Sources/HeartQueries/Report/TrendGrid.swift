import Foundation
import HealthModel

/// One trend bucket of a long report: heart rate (minimum, time-weighted average, maximum), HRV and beats of every
/// device in [start, end).
public struct TrendBucket: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var heartRate: QuantityStatistics
    /// HRV of the RR intervals ending in the bucket (segments split at its bounds); nil with fewer than 2.
    public var hrv: HRVMetrics?
    public var beats: Int
    /// For a day: the resting heart rate (`ReportTrend.restingDefinition`); nil without such an hour.
    public var restingHeartRate: Double?
}

/// Running totals per bucket of `interval` seconds aligned to `anchor`, fed one point or beat at a time: heart
/// rate in a `QuantityStatisticsBuilder`, HRV in one `HRVAccumulator` per bucket, beats counted.
struct TrendGrid: Sendable {
    let anchor: Double
    let interval: Double
    let t0: Double, t1: Double
    var heartRate: QuantityStatisticsBuilder
    var hrv: [HRVAccumulator]
    var beats: [Int]
    /// The RR segment being built and its bucket (flushed when the bucket changes or a gap breaks it).
    private var segment: [Double] = []
    private var segmentBucket = -1

    init(from: Date, to: Date, anchor: Date, interval: TimeInterval) throws(StatisticsError) {
        heartRate = try QuantityStatisticsBuilder(style: QuantityType.heartRate.aggregation, anchor: anchor,
                                                  interval: interval, from: from, to: to)
        self.anchor = anchor.timeIntervalSinceReferenceDate
        self.interval = interval
        t0 = from.timeIntervalSinceReferenceDate
        t1 = to.timeIntervalSinceReferenceDate
        let count = heartRate.collection().buckets.count
        hrv = Array(repeating: HRVAccumulator(), count: count)
        beats = Array(repeating: 0, count: count)
    }

    /// The bucket of a time inside [t0, t1).
    func bucket(_ t: Double) -> Int {
        let first = ((t0 - anchor) / interval).rounded(.down)
        return min(max(Int(((t - anchor) / interval).rounded(.down) - first), 0), beats.count - 1)
    }

    /// A beat at `t` inside the range; `rr` (ms) when it closes an uninterrupted interval, else it starts a segment.
    mutating func beat(at t: Double, rr: Double?) {
        let k = bucket(t)
        beats[k] += 1
        if rr == nil || k != segmentBucket { flush() }
        segmentBucket = k
        if let rr { segment.append(rr) }
    }

    /// Ends the current segment (a gap, a beat outside the range, the series' end).
    mutating func flush() {
        if !segment.isEmpty, hrv.indices.contains(segmentBucket) { hrv[segmentBucket].add(segment: segment) }
        segment.removeAll(keepingCapacity: true)
        segmentBucket = -1
    }

    func buckets() -> [TrendBucket] {
        heartRate.collection().buckets.enumerated().map { k, s in
            TrendBucket(start: s.start, end: s.end, heartRate: s, hrv: try? hrv[k].metrics(), beats: beats[k])
        }
    }
}
