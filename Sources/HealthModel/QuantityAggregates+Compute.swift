import Foundation

extension QuantityAggregates {
    /// Aggregates of points sorted by start, for a type's aggregation style.
    ///
    /// Temporal weighting rule (heart rate): each value weighs its duration in seconds; a value with zero
    /// duration weighs nothing unless every value has zero duration, in which case the plain mean is used.
    /// `mostRecent` is the value of the point with the latest start.
    public init(points: [QuantityPoint], style: AggregationStyle) {
        guard let last = points.last else {
            self.init()
            return
        }
        switch style {
        case .cumulative:
            self.init(sum: points.reduce(0) { $0 + $1.value })
        case .discreteArithmetic, .discreteTemporallyWeighted:
            var minimum = last.value, maximum = last.value, plainSum = 0.0, weighted = 0.0, weights = 0.0
            for p in points {
                minimum = Swift.min(minimum, p.value)
                maximum = Swift.max(maximum, p.value)
                plainSum += p.value
                let w = Swift.max(p.duration, 0)
                weighted += p.value * w
                weights += w
            }
            let average = (style == .discreteTemporallyWeighted && weights > 0)
                ? weighted / weights : plainSum / Double(points.count)
            self.init(average: average, minimum: minimum, maximum: maximum, mostRecent: last.value)
        }
    }
}
