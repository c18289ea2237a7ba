import Foundation

/// A session (HKWorkout for a capture daemon): a labelled stretch of time the heart data of some devices belongs to
/// (a game round, an experiment block, a class, a night). One type for the store, the daemon and heartctl.
///
/// Active while `end` is nil; `statistics` are computed when it ends. `devices` are Bluetooth addresses; empty
/// means every sensor. Metadata are string keys and values; `MetadataKey.syncIdentifier` and
/// `MetadataKey.syncVersion` work as for samples.
public struct Session: Codable, Sendable, Hashable, Identifiable {
    public var uuid: UUID
    public var label: String?
    public var start: Date
    public var end: Date?
    public var devices: [String]
    public var metadata: Metadata
    public var statistics: SessionStatistics?
    /// The change anchor of the session's latest save (start or stop); nil before it is stored.
    public var anchor: Int64?

    public init(uuid: UUID = UUID(), label: String? = nil, start: Date, end: Date? = nil, devices: [String] = [],
                metadata: Metadata = [:], statistics: SessionStatistics? = nil, anchor: Int64? = nil) {
        self.uuid = uuid
        self.label = label
        self.start = start
        self.end = end
        self.devices = devices
        self.metadata = metadata
        self.statistics = statistics
        self.anchor = anchor
    }

    public var id: UUID { uuid }
    public var isActive: Bool { end == nil }

    /// Whether the session covers a device (every device when `devices` is empty).
    public func covers(device address: String?) -> Bool {
        devices.isEmpty || address.map { a in devices.contains { $0.caseInsensitiveCompare(a) == .orderedSame } } == true
    }

    /// The type identifier of sessions in tombstones and change lists.
    public static let typeIdentifier = "HeartdSession"
}

extension MetadataKey {
    /// On a series recorded inside a session: the session's UUID.
    public static let session = "HeartdSession"
    /// On a series recorded inside a session: the session's label.
    public static let sessionLabel = "HeartdSessionLabel"

    /// Whether a key is HealthKit's (`HKMetadataKey…`) or heartd's own (`Heartd…`): a session's metadata is copied
    /// onto its series except these, which the series sets itself (its sync identifier, finish reason, session tags).
    public static func isReserved(_ key: String) -> Bool {
        key.hasPrefix("HKMetadataKey") || key.hasPrefix("Heartd")
    }
}
