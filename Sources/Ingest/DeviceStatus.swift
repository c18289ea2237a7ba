import Foundation
import HealthModel
import SourceEvents

/// Per-device counters, cumulative over the daemon's life (they survive reconnections).
public struct IngestCounters: Sendable, Hashable, Codable {
    /// Notifications received (decoded or not).
    public var notifications = 0
    /// Notifications that could not be decoded, by `DecodeError.Code` raw value.
    public var malformedByCode: [String: Int] = [:]
    /// RR values dropped as implausible (0, < rrMinMs, > rrMaxMs).
    public var droppedRR = 0
    /// RR values ignored because skin contact was "not detected".
    public var skippedRRNoContact = 0
    /// Beats dropped because they would not come after the previous beat (clock going back, re-anchoring).
    public var droppedBeatsOutOfOrder = 0
    /// Beats flagged `precededByGap`, by `GapReason` raw value.
    public var gapsByRule: [String: Int] = [:]
    /// Heart-rate values skipped because skin contact was "not detected".
    public var skippedHRNoContact = 0
    /// Heart-rate values of 0 bpm skipped.
    public var skippedHRZero = 0
    /// Beats added to series.
    public var beats = 0
    /// Values a series builder refused (should stay 0; logged).
    public var builderErrors = 0

    public init() {}

    /// Total malformed notifications.
    public var malformed: Int { malformedByCode.values.reduce(0, +) }
}

/// What `heartctl status` shows for one device.
public struct DeviceStatus: Sendable, Hashable, Codable {
    public var address: String
    public var connected: Bool
    public var device: DeviceInfo?
    /// Wall-clock time of the last notification.
    public var lastNotification: Date?
    /// The latest heart-rate value (nil without contact or before the first).
    public var currentBPM: Int?
    public var batteryPercent: Int?
    /// Skin contact as the last notification reported it (nil: not reported, or the sensor cannot tell).
    public var contact: Bool?
    /// Beats in the open heartbeat series.
    public var beatsInOpenSeries: Int
    /// Series finished: heartbeat, heart-rate and energy series each count one (derived HRV samples do not).
    public var seriesFinished: Int
    public var counters: IngestCounters
    /// The person wearing the strap now (`person.assign`), or nil.
    public var person: Person?

    public init(address: String, connected: Bool, device: DeviceInfo?, lastNotification: Date?, currentBPM: Int?,
                batteryPercent: Int?, beatsInOpenSeries: Int, seriesFinished: Int, counters: IngestCounters,
                contact: Bool? = nil, person: Person? = nil) {
        self.address = address
        self.connected = connected
        self.device = device
        self.lastNotification = lastNotification
        self.currentBPM = currentBPM
        self.batteryPercent = batteryPercent
        self.contact = contact
        self.beatsInOpenSeries = beatsInOpenSeries
        self.seriesFinished = seriesFinished
        self.counters = counters
        self.person = person
    }
}

/// A beat as `watch` shows it: absolute time.
public struct LiveBeat: Sendable, Hashable, Codable {
    public var time: Date
    public var precededByGap: Bool

    public init(time: Date, precededByGap: Bool) {
        self.time = time
        self.precededByGap = precededByGap
    }
}

/// Live events for `heartctl watch`, delivered through the pipeline's callback as they happen.
public enum LiveEvent: Sendable, Hashable, Codable {
    case connected(address: String, device: DeviceInfo?, at: Date)
    case disconnected(address: String, reason: DisconnectReason, at: Date)
    case heartRate(address: String, bpm: Int, at: Date)
    case beats(address: String, beats: [LiveBeat])
    case battery(address: String, percent: Int, at: Date)
    /// The sensor's skin contact changed (or was first reported): `detected` false means no contact.
    case contact(address: String, detected: Bool, at: Date)
    /// A finished sample was handed to the sink (`typeIdentifier` as in `Sample.typeIdentifier`).
    case seriesFinished(address: String, uuid: UUID, typeIdentifier: String, reason: FinishReason)
}
