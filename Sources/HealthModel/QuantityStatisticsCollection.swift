import Foundation

/// Statistics per fixed-length bucket, like HealthKit's statistics collection but with a plain interval
/// in seconds instead of calendar components.
///
/// Bucket `k` covers `[anchor + k·interval, anchor + (k+1)·interval)`. The collection holds every bucket that
/// intersects [from, to), in order, each clipped to [from, to) (so the first and last bucket may be shorter
/// than `interval`, and their `start`/`end` say so). A point spanning several buckets counts in each one it
/// overlaps, with its overlap there (see `QuantityStatistics` for the per-range rules). Empty buckets are
/// present with `count == 0`.
///
/// Cost: one pass over the points (any order: every bucket keeps running totals, so no sort is needed), plus
/// the number of buckets; a point adds work per bucket it spans. 30 days of 1 Hz points (2.6M) in hourly
/// buckets take about 0.1 s in a release build.
public struct QuantityStatisticsCollection: Sendable, Hashable {
    /// More buckets than this is refused (`too-many-buckets`), so a tiny interval cannot exhaust memory.
    public static let maximumBucketCount = 1_000_000
    /// Shorter intervals are refused (`invalid-interval`): 1 ms, well above the resolution of `Date`.
    public static let minimumInterval: TimeInterval = 0.001

    public let style: AggregationStyle
    public let anchor: Date
    public let interval: TimeInterval
    public let from: Date
    public let to: Date
    /// One entry per bucket intersecting [from, to), oldest first.
    public let buckets: [QuantityStatistics]

    /// Buckets of `points` (any order) aligned to `anchor`, covering [from, to).
    public init(points: [QuantityPoint], style: AggregationStyle, anchor: Date, interval: TimeInterval,
                from: Date, to: Date) throws(StatisticsError) {
        var builder = try QuantityStatisticsBuilder(style: style, anchor: anchor, interval: interval, from: from, to: to)
        for p in points { builder.add(p) }
        self = builder.collection()
    }

    init(style: AggregationStyle, anchor: Date, interval: TimeInterval, from: Date, to: Date,
         buckets: [QuantityStatistics]) {
        self.style = style
        self.anchor = anchor
        self.interval = interval
        self.from = from
        self.to = to
        self.buckets = buckets
    }

    /// The bucket whose range contains `date`, or nil outside [from, to).
    public func statistics(for date: Date) -> QuantityStatistics? {
        let t = date.timeIntervalSinceReferenceDate
        guard let first = buckets.first else { return nil }
        let lo = first.start.timeIntervalSinceReferenceDate
        guard t >= lo, t < to.timeIntervalSinceReferenceDate else { return nil }
        let grid = BucketGrid(anchor: anchor.timeIntervalSinceReferenceDate, interval: interval)
        let k = grid.index(containing: t) - grid.index(containing: lo)
        guard buckets.indices.contains(k) else { return nil }
        return buckets[k]
    }
}

/// Bucket arithmetic on reference-date seconds. Indices are checked against the actual bucket bounds
/// so floating-point rounding in the division never puts an instant into a neighbouring bucket.
struct BucketGrid {
    let anchor: Double
    let interval: Double

    func start(of k: Int) -> Double { anchor + Double(k) * interval }

    /// The bucket with `start(k) <= t < start(k + 1)`.
    func index(containing t: Double) -> Int {
        let q = ((t - anchor) / interval).rounded(.down)
        // Absurd inputs: clamp without adjusting, so nothing traps or loops; callers bound the bucket count.
        guard q > -4e15, q < 4e15 else { return q < 0 ? -4_000_000_000_000_000 : 4_000_000_000_000_000 }
        var k = Int(q)
        // Rounding moves the quotient by at most one bucket; the step limit guards degenerate grids
        // (an interval below the resolution of the dates) against looping.
        var steps = 0
        while start(of: k) > t, steps < 4 { k -= 1; steps += 1 }
        while start(of: k + 1) <= t, steps < 8 { k += 1; steps += 1 }
        return k
    }

    /// The bucket holding the instants just before `t`: `start(k) < t <= start(k + 1)`.
    func index(endingAt t: Double) -> Int {
        let k = index(containing: t)
        return start(of: k) == t ? k - 1 : k
    }
}
