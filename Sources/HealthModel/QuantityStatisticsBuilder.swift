import Foundation

/// A `QuantityStatisticsCollection` built one point at a time, so a reader can stream a range's points from the
/// store (a cursor, one sample decoded at a time) and hold only the buckets' running totals — a year of 1 Hz heart
/// rate in daily buckets is 365 accumulators, not 31 M points. Points may come in any order; the result is the
/// collection `QuantityStatisticsCollection(points:…)` makes of the same points (that initialiser is this builder).
public struct QuantityStatisticsBuilder: Sendable {
    public let style: AggregationStyle
    public let anchor: Date
    public let interval: TimeInterval
    public let from: Date
    public let to: Date
    let grid: BucketGrid
    let lo: Double, hi: Double
    let firstIndex: Int
    /// Clipped bucket bounds, in reference-date seconds.
    let starts: [Double], ends: [Double]
    var accumulators: [StatisticsAccumulator]

    /// Buckets aligned to `anchor` covering [from, to). Throws as `QuantityStatisticsCollection` does: an interval
    /// that is not finite or below `minimumInterval`, a range that is not finite or reversed, too many buckets.
    public init(style: AggregationStyle, anchor: Date, interval: TimeInterval, from: Date, to: Date) throws(StatisticsError) {
        guard interval.isFinite, interval >= QuantityStatisticsCollection.minimumInterval else {
            throw StatisticsError(.invalidInterval, "bucket interval \(interval) s is not a finite number of seconds ≥ \(QuantityStatisticsCollection.minimumInterval)")
        }
        let lo = from.timeIntervalSinceReferenceDate, hi = to.timeIntervalSinceReferenceDate
        let a = anchor.timeIntervalSinceReferenceDate
        guard lo.isFinite, hi.isFinite, a.isFinite else {
            throw StatisticsError(.invalidRange, "range \(from) – \(to) or anchor \(anchor) is not finite")
        }
        guard lo <= hi else { throw StatisticsError(.invalidRange, "range ends at \(to) before it starts at \(from)") }
        self.style = style
        self.anchor = anchor
        self.interval = interval
        self.from = from
        self.to = to
        self.lo = lo
        self.hi = hi
        let grid = BucketGrid(anchor: a, interval: interval)
        self.grid = grid
        firstIndex = grid.index(containing: lo)
        // The last bucket holds the instant just before `hi`; none when the range is empty.
        let span = lo < hi ? Double(grid.index(endingAt: hi) - firstIndex + 1) : 0
        guard span <= Double(QuantityStatisticsCollection.maximumBucketCount) else {
            throw StatisticsError(.tooManyBuckets, "\(span) buckets of \(interval) s exceed \(QuantityStatisticsCollection.maximumBucketCount)")
        }
        let bucketCount = Int(span)
        var starts = [Double](repeating: 0, count: bucketCount)
        var ends = [Double](repeating: 0, count: bucketCount)
        for k in 0..<bucketCount {
            starts[k] = max(grid.start(of: firstIndex + k), lo)
            ends[k] = min(grid.start(of: firstIndex + k + 1), hi)
        }
        self.starts = starts
        self.ends = ends
        accumulators = [StatisticsAccumulator](repeating: StatisticsAccumulator(), count: bucketCount)
    }

    /// Counts `p` in every bucket it overlaps (an instantaneous point in the bucket holding its start, whole).
    public mutating func add(_ p: QuantityPoint) {
        let bucketCount = accumulators.count
        guard bucketCount > 0 else { return }
        let ps = p.start.timeIntervalSinceReferenceDate
        let pe = Swift.max(p.end.timeIntervalSinceReferenceDate, ps)
        if pe == ps {
            guard ps >= lo, ps < hi else { return }
            let k = Swift.min(Swift.max(grid.index(containing: ps) - firstIndex, 0), bucketCount - 1)
            accumulators[k].add(value: p.value, overlap: 0, fraction: 1, start: ps)
            return
        }
        guard ps < hi, pe > lo else { return }
        let cs = Swift.max(ps, lo), ce = Swift.min(pe, hi)
        let kFirst = Swift.max(grid.index(containing: cs) - firstIndex, 0)
        let kLast = Swift.min(grid.index(endingAt: ce) - firstIndex, bucketCount - 1)
        guard kFirst <= kLast else { return }
        let length = pe - ps
        for k in kFirst...kLast {
            let overlap = Swift.min(ce, ends[k]) - Swift.max(cs, starts[k])
            guard overlap > 0 else { continue }
            accumulators[k].add(value: p.value, overlap: overlap, fraction: overlap / length, start: ps)
        }
    }

    /// The buckets so far.
    public func collection() -> QuantityStatisticsCollection {
        var result: [QuantityStatistics] = []
        result.reserveCapacity(accumulators.count)
        for k in accumulators.indices {
            result.append(accumulators[k].statistics(
                start: Date(timeIntervalSinceReferenceDate: starts[k]),
                end: Date(timeIntervalSinceReferenceDate: ends[k]), style: style))
        }
        return QuantityStatisticsCollection(style: style, anchor: anchor, interval: interval, from: from, to: to,
                                            buckets: result)
    }

    /// The one bucket of a builder made by `single(style:from:to:)`: statistics over the whole range.
    public func statistics() -> QuantityStatistics {
        collection().buckets.first ?? QuantityStatistics(start: from, end: to)
    }

    /// One bucket anchored at `from` and wider than the range, so rounding can never split it in two: statistics
    /// over [from, to) (`QuantityStatistics(points:…)`).
    public static func single(style: AggregationStyle, from: Date, to: Date) throws(StatisticsError) -> QuantityStatisticsBuilder {
        let width = to.timeIntervalSince(from)
        let interval = width.isFinite ? Swift.max(width * 2 + 1, 1) : .greatestFiniteMagnitude
        return try QuantityStatisticsBuilder(style: style, anchor: from, interval: interval, from: from, to: to)
    }
}
