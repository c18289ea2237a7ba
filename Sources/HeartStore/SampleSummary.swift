import Foundation
import HealthModel

/// Everything about a stored sample except its series contents.
public struct SampleSummary: Sendable, Hashable, Codable, Identifiable {
    public var uuid: UUID
    /// A quantity type identifier or `Sample.heartbeatSeriesIdentifier`.
    public var typeIdentifier: String
    public var start: Date
    public var end: Date
    /// Number of points or beats.
    public var count: Int
    /// Empty for heartbeat series.
    public var aggregates: QuantityAggregates
    public var device: DeviceInfo?
    public var metadata: Metadata
    /// The change anchor the sample was saved with.
    public var anchor: Int64

    public init(uuid: UUID, typeIdentifier: String, start: Date, end: Date, count: Int,
                aggregates: QuantityAggregates, device: DeviceInfo?, metadata: Metadata, anchor: Int64) {
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.start = start
        self.end = end
        self.count = count
        self.aggregates = aggregates
        self.device = device
        self.metadata = metadata
        self.anchor = anchor
    }

    /// The summary of `sample` as it is now (an open series the daemon still builds has no anchor yet: 0).
    public init(_ sample: Sample, anchor: Int64 = 0) {
        let (count, aggregates): (Int, QuantityAggregates) = switch sample {
        case .quantity(let q): (q.points.count, q.aggregates)
        case .heartbeatSeries(let h): (h.beats.count, QuantityAggregates())
        }
        self.init(uuid: sample.uuid, typeIdentifier: sample.typeIdentifier, start: sample.start, end: sample.end,
                  count: count, aggregates: aggregates, device: sample.device, metadata: sample.metadata, anchor: anchor)
    }

    public var id: UUID { uuid }
    /// The Bluetooth address of the device.
    public var deviceAddress: String? { device?.localIdentifier }
    public var deviceName: String? { device?.name }
}

/// The result of an anchored change query.
public struct SampleChanges: Sendable, Hashable, Codable {
    /// Samples saved after the anchor and not deleted since, in anchor order.
    public var added: [SampleSummary]
    /// Samples and sessions deleted after the anchor, in anchor order.
    public var deleted: [UUID]
    /// Sessions started or stopped after the anchor (their state now), in anchor order.
    public var sessions: [Session]
    /// Pass this to the next query. Opaque, but it only ever grows.
    public var anchor: Int64

    public init(added: [SampleSummary], deleted: [UUID], sessions: [Session] = [], anchor: Int64) {
        self.added = added
        self.deleted = deleted
        self.sessions = sessions
        self.anchor = anchor
    }
}
