import Foundation
import Ingest
import SourceEvents

/// The `status` result: built by the daemon, shown by heartctl — one type for both ends of the socket, so the
/// compiler checks the contract (docs/CONTROL.md).
public struct DaemonStatus: Sendable, Codable, Hashable {
    public var version: String
    /// The control protocol's version.
    public var protocolVersion: String
    public var pid: Int
    public var mode: DaemonMode
    public var started: Date
    public var uptimeSeconds: Double
    /// The capture source's own state (BlueZ: per-device link state and fault counters).
    public var capture: CaptureReport
    /// The pipeline's view of every device seen: heart rate, battery, open series, counters.
    public var devices: [DeviceStatus]
    public var store: StoreReport
    /// Clients following `watch` (and `subscribe`).
    public var watchers: Int
    /// Active sessions with their statistics so far.
    public var sessions: [ActiveSessionStatus]

    public init(version: String, protocolVersion: String, pid: Int, mode: DaemonMode, started: Date, uptimeSeconds: Double,
                capture: CaptureReport, devices: [DeviceStatus], store: StoreReport, watchers: Int,
                sessions: [ActiveSessionStatus] = []) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.mode = mode
        self.started = started
        self.uptimeSeconds = uptimeSeconds
        self.capture = capture
        self.devices = devices
        self.store = store
        self.watchers = watchers
        self.sessions = sessions
    }

    enum CodingKeys: String, CodingKey {
        case version, protocolVersion = "protocol", pid, mode, started, uptimeSeconds = "uptime_s", capture, devices,
             store, watchers, sessions
    }
}

/// What the daemon captures from.
public enum DaemonMode: String, Sendable, Codable, Hashable {
    /// Live sensors through bluetoothd.
    case bluez
    /// The built-in simulated sensor.
    case simulate
}

/// `status.store`: the database file and the sink's queue and failures.
public struct StoreReport: Sendable, Codable, Hashable {
    public var path: String?
    public var sizeBytes: Int
    public var sink: SinkStatus
    /// Whether the store takes what capture hands it.
    public var state: StoreState = .writing
    /// While it does not: since when, and why (what is captured meanwhile waits in memory: `sink`).
    public var failingSince: Date?
    public var error: String?

    public init(path: String?, sizeBytes: Int, sink: SinkStatus) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.sink = sink
    }

    enum CodingKeys: String, CodingKey {
        case path, sizeBytes = "size_bytes", sink, state, failingSince = "failing_since", error
    }

    /// A status without `state` (a daemon older than it) reads as writing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decodeIfPresent(String.self, forKey: .path)
        sizeBytes = try c.decode(Int.self, forKey: .sizeBytes)
        sink = try c.decode(SinkStatus.self, forKey: .sink)
        state = try c.decodeIfPresent(StoreState.self, forKey: .state) ?? .writing
        failingSince = try c.decodeIfPresent(Date.self, forKey: .failingSince)
        error = try c.decodeIfPresent(String.self, forKey: .error)
    }
}

/// `status.store.state`.
public enum StoreState: String, Sendable, Codable, Hashable {
    /// Writes succeed.
    case writing
    /// The store is open but writes fail (a full disk, an I/O error): capture goes on into memory, retried each second.
    case failing
    /// The store could not be opened for writing at start (a full disk, a read-only file system, permissions):
    /// capture goes on into memory; reads answer `unavailable`; opening is retried every few seconds.
    case notOpen = "not-open"
}

/// Where the daemon's events come from.
public enum CaptureSourceKind: String, Sendable, Codable, Hashable {
    case bluez, simulator
}

/// `status.capture`: the source, and for BlueZ its allow-list and the client's `CaptureStatus` (whose fields sit
/// beside `source` in the JSON object, as `capture.devices[]`, `capture.mirrorRepairs` …).
public struct CaptureReport: Sendable, Codable, Hashable {
    public var source: CaptureSourceKind
    public var allowList: [String]?
    public var bluez: CaptureStatus?

    public init(source: CaptureSourceKind, allowList: [String]? = nil, bluez: CaptureStatus? = nil) {
        self.source = source
        self.allowList = allowList
        self.bluez = bluez
    }

    enum CodingKeys: String, CodingKey {
        case source, allowList = "allow_list"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        source = try c.decode(CaptureSourceKind.self, forKey: .source)
        allowList = try c.decodeIfPresent([String].self, forKey: .allowList)
        bluez = source == .bluez ? try CaptureStatus(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        try bluez?.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(allowList, forKey: .allowList)
    }
}
