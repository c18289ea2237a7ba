import Foundation

/// Why statistics could not be computed. `code` is stable for logs and the control socket.
public struct StatisticsError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// `to` is before `from`, or a date is not finite.
        case invalidRange = "invalid-range"
        /// The bucket interval is not finite or shorter than `QuantityStatisticsCollection.minimumInterval`.
        case invalidInterval = "invalid-interval"
        /// The range would need more buckets than `QuantityStatisticsCollection.maximumBucketCount`.
        case tooManyBuckets = "too-many-buckets"
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

/// Statistics of the points of one quantity type over the half-open range [start, end).
///
/// Which points count: a point with positive duration counts when it overlaps the range
/// (`point.start < end && point.end > start`); a zero-duration point counts when `start <= point.start < end`.
/// Only the overlap of a point with the range is used for weights, sums and `duration`.
///
/// Per aggregation style (like `QuantityAggregates`): discrete styles fill `average`, `minimum`, `maximum`,
/// `mostRecent` and `mostRecentDate`; the cumulative style fills `sum`. All of them are nil when `count == 0`.
///
/// - Temporally weighted average (`discreteTemporallyWeighted`, heart rate): each counted point weighs the
///   seconds of its overlap with the range; `average = Σ value·overlap / Σ overlap`. Zero-duration points weigh
///   nothing, unless no counted point has a positive overlap, in which case the plain mean of the counted values
///   is used. (This is the `QuantityAggregates` rule restricted to the range.)
/// - Arithmetic average (`discreteArithmetic`): plain mean of the counted values.
/// - Sum (`cumulative`): a point contributes `value · overlap / duration` (pro rata by duration); a
///   zero-duration point contributes its whole value.
/// - `minimum`/`maximum`: over the counted values (a partly overlapping point counts with its full value).
/// - `mostRecent`: the value of the counted point with the latest start (on a tie, the later one in the input
///   order, matching `QuantityAggregates` on sorted points); `mostRecentDate` is that point's start.
/// - `duration`: the summed overlap of the counted points with the range, in seconds (overlapping points are
///   not merged, so it can exceed `end - start`).
public struct QuantityStatistics: Codable, Sendable, Hashable {
    public var start: Date
    public var end: Date
    public var count: Int
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var mostRecent: Double?
    public var mostRecentDate: Date?
    public var sum: Double?
    public var duration: TimeInterval

    public init(start: Date, end: Date, count: Int = 0, average: Double? = nil, minimum: Double? = nil,
                maximum: Double? = nil, mostRecent: Double? = nil, mostRecentDate: Date? = nil,
                sum: Double? = nil, duration: TimeInterval = 0) {
        self.start = start
        self.end = end
        self.count = count
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentDate = mostRecentDate
        self.sum = sum
        self.duration = duration
    }

    /// Statistics of `points` (any order) over [from, to) for a type's aggregation style.
    /// Throws `invalid-range` when `to < from` or a date is not finite. `from == to` gives empty statistics.
    public init(points: [QuantityPoint], style: AggregationStyle, from: Date, to: Date) throws(StatisticsError) {
        var builder = try QuantityStatisticsBuilder.single(style: style, from: from, to: to)
        for p in points { builder.add(p) }
        self = builder.statistics()
    }

    /// Whether no point counted.
    public var isEmpty: Bool { count == 0 }
}
