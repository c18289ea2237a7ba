import Foundation

/// Metadata as HealthKit keeps it, restricted to string values (numbers are written in decimal).
public typealias Metadata = [String: String]

/// Well-known metadata keys.
public enum MetadataKey {
    /// HKMetadataKeySyncIdentifier: saves with the same identifier replace each other (see `syncVersion`).
    public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
    /// HKMetadataKeySyncVersion: an integer; a save replaces an existing sample only with a higher version.
    public static let syncVersion = "HKMetadataKeySyncVersion"
    /// The UUID of the heartbeat series an HRV sample was derived from.
    public static let derivedFromSeries = "HeartdDerivedFromSeries"
    /// "true" when a series was finished by crash recovery rather than normally.
    public static let recovered = "HeartdRecovered"
    /// Why a series was finished: disconnect, idle, max-duration, max-beats, max-values, session, shutdown,
    /// recovery.
    public static let finishReason = "HeartdFinishReason"
    /// Serial number (0x2A25) and body sensor location (0x2A38) of the device.
    public static let serialNumber = "HKMetadataKeyDeviceSerialNumber"
    public static let bodySensorLocation = "HKMetadataKeyHeartRateSensorLocation"
}

/// The device that produced a sample (HealthKit's HKDevice). `localIdentifier` is the Bluetooth address.
public struct DeviceInfo: Codable, Sendable, Hashable {
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var hardwareVersion: String?
    public var firmwareVersion: String?
    public var softwareVersion: String?
    public var localIdentifier: String?
    public var udiDeviceIdentifier: String?
    /// Everything else known about the device: serial number, body sensor location, appearance class, adapter.
    public var metadata: Metadata

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil,
                hardwareVersion: String? = nil, firmwareVersion: String? = nil, softwareVersion: String? = nil,
                localIdentifier: String? = nil, udiDeviceIdentifier: String? = nil, metadata: Metadata = [:]) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
        self.metadata = metadata
    }
}

extension DeviceInfo {
    /// This description, with what it leaves out taken from `earlier` (a reconnect whose Device Information reads
    /// failed must not erase the manufacturer and model known from before). Metadata merges key by key.
    public func filling(from earlier: DeviceInfo) -> DeviceInfo {
        var d = self
        d.name = name ?? earlier.name
        d.manufacturer = manufacturer ?? earlier.manufacturer
        d.model = model ?? earlier.model
        d.hardwareVersion = hardwareVersion ?? earlier.hardwareVersion
        d.firmwareVersion = firmwareVersion ?? earlier.firmwareVersion
        d.softwareVersion = softwareVersion ?? earlier.softwareVersion
        d.localIdentifier = localIdentifier ?? earlier.localIdentifier
        d.udiDeviceIdentifier = udiDeviceIdentifier ?? earlier.udiDeviceIdentifier
        d.metadata = earlier.metadata.merging(metadata) { _, new in new }
        return d
    }
}

/// One (quantity, dateInterval) pair inside a quantity series.
public struct QuantityPoint: Codable, Sendable, Hashable {
    public var value: Double
    public var start: Date
    public var end: Date

    public init(value: Double, start: Date, end: Date) {
        self.value = value
        self.start = start
        self.end = end
    }

    public var duration: TimeInterval { end.timeIntervalSince(start) }
}

/// One beat of a heartbeat series: time since the series start and whether beats may be missing before it.
public struct Beat: Codable, Sendable, Hashable {
    public var offset: TimeInterval
    public var precededByGap: Bool

    public init(offset: TimeInterval, precededByGap: Bool) {
        self.offset = offset
        self.precededByGap = precededByGap
    }
}

/// Aggregates a finished quantity sample carries. Discrete types fill average/minimum/maximum/mostRecent;
/// cumulative types fill sum. `duration` is the summed duration of the points.
public struct QuantityAggregates: Codable, Sendable, Hashable {
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var mostRecent: Double?
    public var sum: Double?

    public init(average: Double? = nil, minimum: Double? = nil, maximum: Double? = nil,
                mostRecent: Double? = nil, sum: Double? = nil) {
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.sum = sum
    }
}

/// A finished quantity sample: one sample spanning the series, backed by `points` sorted by start.
/// A single-value sample (such as a derived HRV sample) has one point equal to its own interval.
public struct QuantitySample: Codable, Sendable, Hashable, Identifiable {
    public var uuid: UUID
    public var type: QuantityType
    public var start: Date
    public var end: Date
    public var points: [QuantityPoint]
    public var aggregates: QuantityAggregates
    public var device: DeviceInfo?
    public var metadata: Metadata

    public init(uuid: UUID = UUID(), type: QuantityType, start: Date, end: Date, points: [QuantityPoint],
                aggregates: QuantityAggregates, device: DeviceInfo?, metadata: Metadata = [:]) {
        self.uuid = uuid
        self.type = type
        self.start = start
        self.end = end
        self.points = points
        self.aggregates = aggregates
        self.device = device
        self.metadata = metadata
    }

    public var id: UUID { uuid }
    public var count: Int { points.count }
}

/// A finished heartbeat series. `end == start + last beat offset`.
public struct HeartbeatSeriesSample: Codable, Sendable, Hashable, Identifiable {
    public var uuid: UUID
    public var start: Date
    public var end: Date
    public var beats: [Beat]
    public var device: DeviceInfo?
    public var metadata: Metadata

    public init(uuid: UUID = UUID(), start: Date, end: Date, beats: [Beat], device: DeviceInfo?, metadata: Metadata = [:]) {
        self.uuid = uuid
        self.start = start
        self.end = end
        self.beats = beats
        self.device = device
        self.metadata = metadata
    }

    public var id: UUID { uuid }
    public var count: Int { beats.count }
}

/// Any sample the store keeps.
public enum Sample: Codable, Sendable, Hashable {
    case quantity(QuantitySample)
    case heartbeatSeries(HeartbeatSeriesSample)

    public var uuid: UUID {
        switch self {
        case .quantity(let s): s.uuid
        case .heartbeatSeries(let s): s.uuid
        }
    }
    public var start: Date {
        switch self {
        case .quantity(let s): s.start
        case .heartbeatSeries(let s): s.start
        }
    }
    public var end: Date {
        switch self {
        case .quantity(let s): s.end
        case .heartbeatSeries(let s): s.end
        }
    }
    public var metadata: Metadata {
        switch self {
        case .quantity(let s): s.metadata
        case .heartbeatSeries(let s): s.metadata
        }
    }
    public var device: DeviceInfo? {
        switch self {
        case .quantity(let s): s.device
        case .heartbeatSeries(let s): s.device
        }
    }
    /// The type identifier: a quantity type identifier, or `HKDataTypeIdentifierHeartbeatSeries`.
    public var typeIdentifier: String {
        switch self {
        case .quantity(let s): s.type.identifier
        case .heartbeatSeries: Sample.heartbeatSeriesIdentifier
        }
    }
    public static let heartbeatSeriesIdentifier = "HKDataTypeIdentifierHeartbeatSeries"
}
