import Foundation

/// Errors a series builder raises. `code` is stable for logs and the control socket.
public struct SeriesBuilderError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case beforeSeriesStart = "before-series-start"
        case invalidInterval = "invalid-interval"
        case outOfOrder = "out-of-order"
        case full
        case finished
        case notFinite = "not-finite"
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

/// Builds one quantity series sample from (quantity, dateInterval) pairs, with HealthKit's rules:
/// an insert at a start date already used replaces that value; an insert before the series start is an error;
/// points are sorted by start on finish; the finished sample carries the aggregates of its type's style.
public struct QuantitySeriesBuilder: Sendable {
    public let type: QuantityType
    public let start: Date
    public var device: DeviceInfo?
    public var metadata: Metadata
    public let uuid: UUID
    /// Points sorted by start, one per start date (a second insert at the same start replaces the first).
    /// Live values arrive in order, so an insert is almost always an append; checkpoints read the array as is.
    private var points: [QuantityPoint] = []
    private var isFinished = false
    /// The latest end of a point (what `finish` gives as the end), kept as points arrive.
    public private(set) var latestEnd: Date?
    /// The lowest index whose point was replaced or moved since `clearRewrites()` (`Int.max`: only appends):
    /// a checkpoint keeps the points before it and sends the rest.
    public private(set) var rewrittenFrom = Int.max

    public init(type: QuantityType, start: Date, device: DeviceInfo?, metadata: Metadata = [:], uuid: UUID = UUID()) {
        self.type = type
        self.start = start
        self.device = device
        self.metadata = metadata
        self.uuid = uuid
    }

    public var count: Int { points.count }

    /// Adds a value over [start, end]. `end` may equal `start` (an instantaneous value).
    public mutating func insert(_ value: Double, start pointStart: Date, end pointEnd: Date) throws(SeriesBuilderError) {
        guard !isFinished else { throw SeriesBuilderError(.finished, "the series is finished") }
        guard value.isFinite else { throw SeriesBuilderError(.notFinite, "value \(value) is not finite") }
        guard pointStart >= start else {
            throw SeriesBuilderError(.beforeSeriesStart, "point at \(pointStart) is before the series start \(start)")
        }
        guard pointEnd >= pointStart else {
            throw SeriesBuilderError(.invalidInterval, "point ends at \(pointEnd) before it starts at \(pointStart)")
        }
        let point = QuantityPoint(value: value, start: pointStart, end: pointEnd)
        guard let last = points.last, pointStart <= last.start else {
            points.append(point)
            if pointEnd > latestEnd ?? .distantPast { latestEnd = pointEnd }
            return
        }
        // Out of order or a replacement: binary search for the first point starting at or after `pointStart`.
        var lo = 0, hi = points.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid].start < pointStart { lo = mid + 1 } else { hi = mid }
        }
        if lo < points.count, points[lo].start == pointStart { points[lo] = point } else { points.insert(point, at: lo) }
        rewrittenFrom = min(rewrittenFrom, lo)
        latestEnd = points.map(\.end).max()  // a replaced point may have held the latest end
    }

    /// Starts counting rewrites afresh (a checkpoint has sent every point).
    public mutating func clearRewrites() { rewrittenFrom = .max }

    /// The points so far, sorted by start (what a checkpoint stores).
    public var sortedPoints: [QuantityPoint] { points }

    /// Finishes the series. Returns nil when it holds no point: an empty series is not saved.
    public mutating func finish(metadata extra: Metadata = [:]) -> QuantitySample? {
        isFinished = true
        guard let first = points.first else { return nil }
        let end = latestEnd ?? first.end
        return QuantitySample(
            uuid: uuid, type: type, start: min(start, first.start), end: end, points: points,
            aggregates: QuantityAggregates(points: points, style: type.aggregation),
            device: device, metadata: metadata.merging(extra) { _, new in new })
    }
}
