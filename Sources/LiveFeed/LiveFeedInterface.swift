import Foundation
import HealthModel
import HeartQueries
import Logging
import ServiceLifecycle

// STAND-IN, not an implementation: the declarations of the `LiveFeed` API the lead is writing on main
// (docs in /work/briefs/common.md), so that the web service builds and its tests run against stub snapshots and
// update streams until main's LiveFeed is merged. This file is deleted by that merge; `LiveFeed.run()` here follows
// nothing.

public struct LiveFeedSettings: Sendable {
    public var socketPath: String
    public var rmssdWindow: Duration = .seconds(60)
    public var silenceAfter: Duration = .seconds(5)
    public var minBackoff: Duration = .milliseconds(200)
    public var maxBackoff: Duration = .seconds(5)
    public init(socketPath: String) { self.socketPath = socketPath }
}

public enum LiveDeviceState: String, Codable, Sendable {
    case streaming, noContact = "no-contact", noSignal = "no-signal", disconnected
}

public struct LiveDevice: Codable, Sendable, Hashable {
    public var address: String
    public var info: DeviceInfo?
    public var state: LiveDeviceState
    public var connected: Bool
    public var bpm: Int?
    public var contact: Bool?
    public var batteryPercent: Int?
    public var lastNotification: Date?
    public var rmssdMs: Double?
    public var displayName: String { info?.name ?? address }

    public init(address: String, info: DeviceInfo? = nil, state: LiveDeviceState, connected: Bool, bpm: Int? = nil,
                contact: Bool? = nil, batteryPercent: Int? = nil, lastNotification: Date? = nil, rmssdMs: Double? = nil) {
        self.address = address
        self.info = info
        self.state = state
        self.connected = connected
        self.bpm = bpm
        self.contact = contact
        self.batteryPercent = batteryPercent
        self.lastNotification = lastNotification
        self.rmssdMs = rmssdMs
    }
}

public struct WatchBeat: Codable, Sendable, Hashable {
    public var time: Date
    public var gap: Bool
    public init(time: Date, gap: Bool) { self.time = time; self.gap = gap }
}

public struct LiveSnapshot: Sendable, Hashable {
    public var daemonReachable: Bool
    public var devices: [LiveDevice]
    public var activeSessions: [ActiveSessionStatus]
    public var status: DaemonStatus?
    public init(daemonReachable: Bool, devices: [LiveDevice], activeSessions: [ActiveSessionStatus], status: DaemonStatus?) {
        self.daemonReachable = daemonReachable
        self.devices = devices
        self.activeSessions = activeSessions
        self.status = status
    }
}

public enum LiveUpdate: Sendable, Hashable {
    case daemon(reachable: Bool, reason: String?)
    case device(LiveDevice)
    case beats(address: String, beats: [WatchBeat])
    case sessions([ActiveSessionStatus])
}

public final class LiveFeed: Service, Sendable {
    public init(settings: LiveFeedSettings, logger: Logger) {}
    public func run() async throws { try? await gracefulShutdown() }
    public func snapshot() -> LiveSnapshot { LiveSnapshot(daemonReachable: false, devices: [], activeSessions: [], status: nil) }
    public func updates(buffer: Int = 1024) -> AsyncStream<LiveUpdate> { AsyncStream { _ in } }
}
