import HealthModel

/// Statistics of one UTC hour of heart-rate values.
struct HourlyBucket: Sendable, Equatable {
    /// Hours since 1970-01-01T00:00Z.
    var hour: Int
    var count: Int
    /// Temporally weighted mean (HealthModel's rule for heart rate).
    var average: Double
    var minimum: Double
    var maximum: Double
}

/// Hourly heart-rate statistics from points sorted by start: each point belongs to the hour its start falls in,
/// and each hour's figures are HealthModel's `QuantityAggregates(points:style:)` for heart rate. This grouping is
/// the one a SQL `GROUP BY hour` makes, so both sides can be checked value for value; the daemon's own
/// `QuantityStatisticsCollection` (timed beside it) also weights values that straddle an hour boundary.
enum HourlyStatistics {
    static func compute(_ points: [QuantityPoint]) -> [HourlyBucket] {
        var buckets: [HourlyBucket] = []
        var index = points.startIndex
        while index < points.endIndex {
            let hour = hourIndex(points[index])
            var end = index + 1
            while end < points.endIndex, hourIndex(points[end]) == hour { end += 1 }
            let slice = Array(points[index..<end])
            let aggregates = QuantityAggregates(points: slice, style: .discreteTemporallyWeighted)
            buckets.append(HourlyBucket(
                hour: hour, count: slice.count, average: aggregates.average ?? .nan,
                minimum: aggregates.minimum ?? .nan, maximum: aggregates.maximum ?? .nan))
            index = end
        }
        return buckets
    }

    private static func hourIndex(_ point: QuantityPoint) -> Int {
        Int((point.start.timeIntervalSince1970 / 3600).rounded(.down))
    }
}
