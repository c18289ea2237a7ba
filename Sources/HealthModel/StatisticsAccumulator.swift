import Foundation

/// Running totals for one statistics range; `add` takes a point's overlap with the range (see
/// `QuantityStatistics` for the rules). Internal: the collection feeds it in one pass.
struct StatisticsAccumulator {
    var count = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var plainSum = 0.0
    var weightedSum = 0.0
    var weights = 0.0
    var sum = 0.0
    var duration = 0.0
    var mostRecent = 0.0
    var mostRecentStart = -Double.infinity

    /// - Parameters:
    ///   - overlap: seconds of the point inside the range (0 for a zero-duration point).
    ///   - fraction: share of the point's value a cumulative sum takes (overlap / duration, or 1).
    ///   - start: the point's start (reference-date seconds), for `mostRecent`.
    @inline(__always)
    mutating func add(value: Double, overlap: Double, fraction: Double, start: Double) {
        count += 1
        if value < minimum { minimum = value }
        if value > maximum { maximum = value }
        plainSum += value
        weightedSum += value * overlap
        weights += overlap
        sum += value * fraction
        duration += overlap
        // `>=`: of equal starts the later in input order wins, as in a stable sort by start.
        if start >= mostRecentStart {
            mostRecentStart = start
            mostRecent = value
        }
    }

    func statistics(start: Date, end: Date, style: AggregationStyle) -> QuantityStatistics {
        var s = QuantityStatistics(start: start, end: end, count: count, duration: duration)
        guard count > 0 else { return s }
        switch style {
        case .cumulative:
            s.sum = sum
        case .discreteArithmetic, .discreteTemporallyWeighted:
            s.average = (style == .discreteTemporallyWeighted && weights > 0)
                ? weightedSum / weights : plainSum / Double(count)
            s.minimum = minimum
            s.maximum = maximum
            s.mostRecent = mostRecent
            s.mostRecentDate = Date(timeIntervalSinceReferenceDate: mostRecentStart)
        }
        return s
    }
}
