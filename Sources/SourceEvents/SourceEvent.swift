import HealthModel

/// What a source of heart-rate data reports. Live BlueZ capture, a replay file and the simulator all emit these
/// directly (no translation layer), so the same pipeline ingests all three.
public enum SourceEvent: Sendable, Hashable {
    /// The device connected (or, for a replay, its recording starts). `device` carries what is known about it.
    case connected(address: String, device: DeviceInfo?, at: Timestamp)
    /// One Heart Rate Measurement (0x2A37) notification payload, as received.
    case notification(address: String, bytes: [UInt8], at: Timestamp)
    /// The device disconnected (or the source let it go).
    case disconnected(address: String, reason: DisconnectReason, at: Timestamp)
    /// A Battery Level (0x2A19) reading.
    case battery(address: String, percent: Int, at: Timestamp)

    /// The Bluetooth address the event is about.
    public var address: String {
        switch self {
        case .connected(let a, _, _), .notification(let a, _, _), .disconnected(let a, _, _), .battery(let a, _, _): a
        }
    }

    /// When the event happened.
    public var at: Timestamp {
        switch self {
        case .connected(_, _, let t), .notification(_, _, let t), .disconnected(_, _, let t), .battery(_, _, let t): t
        }
    }
}

/// Anything that produces source events: the BlueZ client, `ReplaySource`, `SimulatedSensor`.
public protocol Source: Sendable {
    /// The events, in the order they happened. The stream ends when the source has nothing more to say.
    func events() -> AsyncStream<SourceEvent>
}
