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
