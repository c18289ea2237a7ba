import Foundation
import HeartQueries
import LiveFeed
import NIOCore

/// One JSON message of `/api/live` and `/api/events` (docs/WEB.md). Times are milliseconds since 1970.
public enum LiveMessage: Sendable, Hashable {
    case snapshot(daemonReachable: Bool, devices: [DeviceView], sessions: [SessionView])
    case daemon(reachable: Bool, reason: String?)
    case device(DeviceView)
    case beats(address: String, beats: [BeatView])
    case sessions([SessionView])
    case sessionStarted(SessionView)
    case sessionStopped(uuid: UUID)

    /// The `type` field.
    public enum Kind: String, Codable, Sendable {
        case snapshot, daemon, device, beats, sessions
        case sessionStarted = "session-started", sessionStopped = "session-stopped"
    }

    public var kind: Kind {
        switch self {
        case .snapshot: .snapshot
        case .daemon: .daemon
        case .device: .device
        case .beats: .beats
        case .sessions: .sessions
        case .sessionStarted: .sessionStarted
        case .sessionStopped: .sessionStopped
        }
    }

    /// The message as one line of JSON in a buffer: encoded once, shared by every client (a `ByteBuffer` is
    /// copy-on-write, so no client copies it). A `device` message, one per notification, is written by hand
    /// (`DeviceFrame`: the same JSON as `json()`).
    public func frame() -> ByteBuffer {
        if case .device(let device) = self { return DeviceFrame(device).buffer }
        return ByteBuffer(string: json())
    }

    /// The message as one line of JSON.
    public func json() -> String {
        let body: Body
        switch self {
        case .snapshot(let reachable, let devices, let sessions):
            body = Body(type: kind, reachable: reachable, devices: devices, sessions: sessions)
        case .daemon(let reachable, let reason):
            body = Body(type: kind, reachable: reachable, reason: reason)
        case .device(let device):
            body = Body(type: kind, device: device)
        case .beats(let address, let beats):
            body = Body(type: kind, address: address, beats: beats)
        case .sessions(let sessions):
            body = Body(type: kind, sessions: sessions)
        case .sessionStarted(let session):
            body = Body(type: kind, session: session)
        case .sessionStopped(let uuid):
            body = Body(type: kind, uuid: uuid)
        }
        return WebJSON.string(body)
    }

    private struct Body: Encodable {
        var type: Kind
        var reachable: Bool?
        var reason: String?
        var devices: [DeviceView]?
        var sessions: [SessionView]?
        var device: DeviceView?
        var address: String?
        var beats: [BeatView]?
        var session: SessionView?
        var uuid: UUID?
    }
}

/// A beat as the browser gets it: its time and whether a gap precedes it.
public struct BeatView: Codable, Sendable, Hashable {
    public var t: Int64
    public var gap: Bool

    public init(_ beat: WatchBeat) {
        t = WebJSON.milliseconds(beat.time)
        gap = beat.gap
    }
}

/// An active session as the browser gets it.
public struct SessionView: Codable, Sendable, Hashable {
    public var uuid: UUID
    public var label: String?
    public var start: Int64
    public var devices: [String]
    public var beats: Int
    public var averageBPM: Double?

    public init(_ session: ActiveSessionStatus) {
        uuid = session.uuid
        label = session.label
        start = WebJSON.milliseconds(session.start)
        devices = session.devices
        beats = session.beats
        averageBPM = session.averageBPM
    }
}

/// One JSON encoder configuration for every response and message.
enum WebJSON {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func string(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        // Encoding these plain structs cannot fail; an empty object keeps the stream going if it ever did.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
