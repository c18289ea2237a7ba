import Foundation
import HealthModel
import HeartQueries

/// What a screen shows of a device's link: it streams, reports no skin contact, has gone silent while connected,
/// or is not connected (heartd reconnects it by itself).
public enum LiveDeviceState: String, Codable, Sendable, Hashable, CaseIterable {
    case streaming
    case noContact = "no-contact"
    case noSignal = "no-signal"
    case disconnected
}

/// One device as the network services show it, from heartd's status and live events.
public struct LiveDevice: Codable, Sendable, Hashable {
    public var address: String
    /// Name, manufacturer, model, versions (from the device's information service).
    public var info: DeviceInfo?
    public var state: LiveDeviceState
    public var connected: Bool
    /// The latest heart rate (nil without contact, when silent or disconnected).
    public var bpm: Int?
    /// Skin contact as the sensor last reported it (nil: it cannot tell, or has not said).
    public var contact: Bool?
    public var batteryPercent: Int?
    public var lastNotification: Date?
    /// RMSSD of the rolling window (`LiveFeedSettings.rmssdWindow`), nil until it holds 5 successive differences.
    public var rmssdMs: Double?
    /// Live DFA α1 of heartd's rolling 2-minute window (`dfa-alpha1` events, every 5 s); nil while withheld (above 5 %
    /// artifacts), before the window holds enough intervals, and when not streaming.
    public var dfaAlpha1: Double?
    /// The share of that window's RR intervals corrected as artifacts (%), with the latest reading.
    public var dfaArtifactPercent: Double?

    /// The person wearing the strap (`person.assign`): their name, HRmax, age and weight; nil when nobody does.
    public var person: Person?

    public init(address: String, info: DeviceInfo? = nil, state: LiveDeviceState = .disconnected, connected: Bool = false,
                bpm: Int? = nil, contact: Bool? = nil, batteryPercent: Int? = nil, lastNotification: Date? = nil,
                rmssdMs: Double? = nil, dfaAlpha1: Double? = nil, dfaArtifactPercent: Double? = nil,
                person: Person? = nil) {
        self.address = address
        self.info = info
        self.state = state
        self.connected = connected
        self.bpm = bpm
        self.contact = contact
        self.batteryPercent = batteryPercent
        self.lastNotification = lastNotification
        self.rmssdMs = rmssdMs
        self.dfaAlpha1 = dfaAlpha1
        self.dfaArtifactPercent = dfaArtifactPercent
        self.person = person
    }

    /// The name of the person wearing the strap, else the device's name, else its address.
    public var displayName: String { person?.name ?? info?.name.flatMap { $0.isEmpty ? nil : $0 } ?? address }

    /// The wearer's HRmax (their own, or estimated from their age), nil when nobody wears it or it is not known.
    public var personHeartRateMaximum: Int? { person?.effectiveHeartRateMaximum }
}

/// The live picture at one moment.
public struct LiveSnapshot: Sendable, Hashable {
    /// Whether the control socket answers (false before the first connection and while reconnecting).
    public var daemonReachable: Bool
    /// Sorted by address.
    public var devices: [LiveDevice]
    public var activeSessions: [ActiveSessionStatus]
    /// The latest `status` (nil until the first).
    public var status: DaemonStatus?

    public init(daemonReachable: Bool = false, devices: [LiveDevice] = [], activeSessions: [ActiveSessionStatus] = [],
                status: DaemonStatus? = nil) {
        self.daemonReachable = daemonReachable
        self.devices = devices
        self.activeSessions = activeSessions
        self.status = status
    }
}

/// A change of the live picture, in the order it happened.
public enum LiveUpdate: Sendable, Hashable {
    /// heartd's control socket answers again, or stopped answering (`reason`); the feed reconnects by itself.
    case daemon(reachable: Bool, reason: String?)
    /// Any change of one device: heart rate, state, battery, contact, RMSSD, DFA α1.
    case device(LiveDevice)
    /// One notification's beats, each with its time and whether beats may be missing before it.
    case beats(address: String, beats: [WatchPayload.Beat])
    /// The active sessions changed (one started or stopped).
    case sessions([ActiveSessionStatus])
}

/// `WatchPayload.Beat` under the name the network services use.
public typealias WatchBeat = WatchPayload.Beat
