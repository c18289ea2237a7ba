import Control
import Foundation
import HealthModel

/// A `stats` request parsed once — type, range, buckets, `by_device` — and the answer assembled from the builders
/// its reader fills: the store's streamed points (`StoreQueries.stats`) or PostgreSQL's per-bucket totals
/// (`heartctl --central`), so both answer with the same buckets by the same rules.
public struct StatsPlan: Sendable {
    /// One entry's statistics: over the range, or per bucket with `interval`.
    public typealias Entry = (statistics: QuantityStatistics?, buckets: [QuantityStatistics]?)

    public let type: QuantityType
    /// The scope with its range resolved (a session's span when asked by session).
    public let scope: QueryScope
    public let from: Date
    public let to: Date
    /// Bucket width in seconds; nil: one statistics over [from, to).
    public let interval: Double?
    /// Buckets are aligned to it (default: midnight UTC of `from`).
    public let anchor: Date
    public let byDevice: Bool

    /// `scope` is `StoreQueries.scope(of: .stats, …)` with its range resolved.
    public init(_ params: [String: JSONValue], scope: QueryScope, now: Date = Date()) throws(ControlError) {
        let p = QueryParameters(params, now: now)
        type = try p.quantityType(default: .heartRate)
        self.scope = scope
        guard let from = scope.from, let to = scope.to else { throw ControlError(.internalError, "a range method without a range") }
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        self.from = from
        self.to = to
        let interval = try p.double("interval")
        if let interval, interval <= 0 { throw ControlError(.invalidParams, "'interval' must be positive seconds") }
        self.interval = interval
        anchor = try p.date("anchor") ?? Calendar.utc.startOfDay(for: from)
        byDevice = try p.bool("by_device") == true
    }

    /// An empty builder for one entry: the buckets, or one bucket over the range.
    public func builder() throws(StatisticsError) -> QuantityStatisticsBuilder {
        if let interval {
            return try QuantityStatisticsBuilder(style: type.aggregation, anchor: anchor, interval: interval, from: from, to: to)
        }
        return try QuantityStatisticsBuilder.single(style: type.aggregation, from: from, to: to)
    }

    /// Whether the store's hourly heart-rate roll-up answers (`HeartDatabase.heartRateRollup`): heart rate without a
    /// metadata filter, in one bucket or in buckets of whole hours on an anchor on the hour (UTC), so every bucket is
    /// a union of whole hours.
    public var readsHourlyRollup: Bool {
        guard type == .heartRate, scope.metadata.isEmpty else { return false }
        guard let interval else { return true }
        let hour = 3600.0
        return interval.truncatingRemainder(dividingBy: hour) == 0
            && anchor.timeIntervalSinceReferenceDate.truncatingRemainder(dividingBy: hour) == 0
    }

    /// The grid index (`k` of `anchor + k·interval`) of the bucket holding the instant `date` (0 for one bucket).
    public func bucketIndex(of date: Date) -> Int {
        guard let interval else { return 0 }
        return Int((date.timeIntervalSince(anchor) / interval).rounded(.down))
    }

    public func entry(_ builder: QuantityStatisticsBuilder) -> Entry {
        interval == nil ? (builder.statistics(), nil) : (nil, builder.collection().buckets)
    }

    /// The answer with the entry over every device in scope (nil: no points) and, with `by_device`, one per device.
    public func result(_ all: Entry?, devices: [StatsCall.Device]? = nil) -> StatsCall.Result {
        var result = StatsCall.Result(type: type.shortName, unit: type.unit.rawValue, statistics: all?.statistics,
                                      buckets: all?.buckets, anchor: interval == nil ? nil : anchor, interval: interval)
        if byDevice { result.devices = devices ?? [] }
        return result
    }
}
