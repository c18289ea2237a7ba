import Foundation
import HealthModel
import HeartStore

/// One trend bucket of a long report: heart rate (minimum, time-weighted average, maximum), HRV and beats of every
/// device in [start, end).
public struct TrendBucket: Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var heartRate: QuantityStatistics
    /// HRV of the RR intervals ending in the bucket and of their successive differences (a difference belongs to the
    /// bucket of its later interval's second beat, as in the store's `hrv_hourly`); nil with fewer than 2.
    public var hrv: HRVMetrics?
    public var beats: Int
    /// For a day: the resting heart rate (`ReportTrend.restingDefinition`); nil without such an hour.
    public var restingHeartRate: Double?
}

/// Running totals per bucket of `interval` seconds aligned to `anchor`, fed one point or beat at a time: heart
/// rate in a `QuantityStatisticsBuilder`, HRV in one `HRVAccumulator` per bucket, beats counted; or, for whole hours,
/// the store's hourly roll-ups merged in (`BucketTotals`, `HeartbeatHourSums`).
struct TrendGrid: Sendable {
    let anchor: Double
    let interval: Double
    let t0: Double, t1: Double
    var heartRate: QuantityStatisticsBuilder
    var hrv: [HRVAccumulator]
    var beats: [Int]
    /// The last RR interval (ms) of the run being read: the next interval's successive difference is taken from it.
    private var previousRR: Double?

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

    /// A beat at `t` inside the range; `rr` (ms) when it closes an uninterrupted interval, else it starts a run.
    /// `rolledUp`: the beat lies in an hour whose HRV sums were merged from the roll-up (`merge(_:hour:)`), so only
    /// its count and its interval (for the next difference) are taken.
    mutating func beat(at t: Double, rr: Double?, rolledUp: Bool = false) {
        let k = bucket(t)
        beats[k] += 1
        if let rr, !rolledUp { hrv[k].add(rr: rr, previous: previousRR) }
        previousRR = rr
    }

    /// Ends the current run (a beat outside the range, the series' end).
    mutating func flush() { previousRR = nil }

    /// One series' HRV sums of the UTC hour starting at `hour` (inside the range), from `hrv_hourly`.
    mutating func merge(_ sums: HeartbeatHourSums, hour: Double) { hrv[bucket(hour)].merge(sums) }

    /// Heart-rate totals of the UTC hour starting at `hour` (inside the range): every bucket is a union of whole hours.
    mutating func merge(_ totals: BucketTotals, hour: Double) {
        heartRate.merge(totals, intoBucket: Int(((hour - anchor) / interval).rounded(.down)))
    }

    func buckets() -> [TrendBucket] {
        heartRate.collection().buckets.enumerated().map { k, s in
            TrendBucket(start: s.start, end: s.end, heartRate: s, hrv: try? hrv[k].metrics(), beats: beats[k])
        }
    }
}
