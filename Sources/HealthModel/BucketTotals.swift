import Foundation

/// The running totals of one bucket as a store that aggregates where the data is (PostgreSQL's `GROUP BY` over
/// time buckets for `heartctl --central`) hands them back: the same quantities `QuantityStatisticsBuilder` keeps
/// per bucket, so the statistics are made by the one rule (`QuantityStatistics`) whoever summed the points.
public struct BucketTotals: Sendable, Hashable {
    /// Points counted in the bucket.
    public var count: Int
    public var minimum: Double
    public var maximum: Double
    /// Σ value (the arithmetic mean's numerator).
    public var plainSum: Double
    /// Σ value · overlap seconds, and Σ overlap seconds (the temporally weighted mean).
    public var weightedSum: Double
    public var weights: Double
    /// Σ value · overlap / duration (a zero-duration point: its whole value): the cumulative sum.
    public var sum: Double
    /// Σ overlap seconds (`QuantityStatistics.duration`).
    public var duration: Double
    /// The value of the point with the latest start, and that start.
    public var mostRecent: Double
    public var mostRecentStart: Date

    public init(count: Int, minimum: Double, maximum: Double, plainSum: Double, weightedSum: Double, weights: Double,
                sum: Double, duration: Double, mostRecent: Double, mostRecentStart: Date) {
        self.count = count
        self.minimum = minimum
        self.maximum = maximum
        self.plainSum = plainSum
        self.weightedSum = weightedSum
        self.weights = weights
        self.sum = sum
        self.duration = duration
        self.mostRecent = mostRecent
        self.mostRecentStart = mostRecentStart
    }
}

extension QuantityStatisticsBuilder {
    /// The grid index (`k` of `anchor + k·interval`) of the first bucket, whose start is clipped to `from`.
    public var firstBucketIndex: Int { firstIndex }

    /// The number of buckets covering [from, to).
    public var bucketCount: Int { accumulators.count }

    /// Adds totals summed elsewhere to the bucket with grid index `gridIndex` (ignored outside the range).
    public mutating func merge(_ t: BucketTotals, intoBucket gridIndex: Int) {
        let k = gridIndex - firstIndex
        guard accumulators.indices.contains(k), t.count > 0 else { return }
        accumulators[k].merge(t)
    }
}

extension StatisticsAccumulator {
    mutating func merge(_ t: BucketTotals) {
        count += t.count
        minimum = Swift.min(minimum, t.minimum)
        maximum = Swift.max(maximum, t.maximum)
        plainSum += t.plainSum
        weightedSum += t.weightedSum
        weights += t.weights
        sum += t.sum
        duration += t.duration
        let start = t.mostRecentStart.timeIntervalSinceReferenceDate
        if start >= mostRecentStart {
            mostRecentStart = start
            mostRecent = t.mostRecent
        }
    }
}
