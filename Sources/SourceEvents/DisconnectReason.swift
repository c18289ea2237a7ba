/// Why a device's stream ended: what capture reports with `SourceEvent.disconnected`, what `watch` shows and the
/// journal logs. Written as a short code (`link-lost`); a failed connection attempt carries the error's text.
public enum DisconnectReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// BlueZ reported `Connected=false`.
    case linkLost
    /// Still silent after re-subscribing (see `bluetooth.silent_stop_seconds`).
    case silentStop
    /// The device object left BlueZ's tree.
    case deviceRemoved
    /// The Heart Rate Measurement characteristic left BlueZ's tree while connected.
    case characteristicRemoved
    /// BlueZ closed the AcquireNotify socket.
    case notifySocketClosed
    /// The device is no longer on the allow-list (`heartctl forget`).
    case notAllowed
    /// Its adapter was removed, or powered off.
    case adapterRemoved
    case adapterPoweredOff
    /// The device was given to another adapter (its adapter refused it: connection limit).
    case adapterReassigned
    /// bluetoothd left the bus.
    case bluetoothdExited
    /// The daemon lost its D-Bus connection.
    case busConnectionLost
    /// Capture is stopping (daemon shutdown).
    case captureStopped
    /// The source has nothing more (the simulator's recording ended).
    case sourceEnded
    /// A connection attempt failed; the error's text.
    case attemptFailed(String)
    /// A reason recorded in a replay file that is none of the above, kept as written.
    case recorded(String)

    /// The codes of the cases without text, as written in logs, `watch` and replay files.
    static let codes: [(String, DisconnectReason)] = [
        ("link-lost", .linkLost), ("silent-stop", .silentStop), ("device-removed", .deviceRemoved),
        ("characteristic-removed", .characteristicRemoved), ("notify-socket-closed", .notifySocketClosed),
        ("not-allowed", .notAllowed), ("adapter-removed", .adapterRemoved), ("adapter-powered-off", .adapterPoweredOff),
        ("adapter-reassigned", .adapterReassigned),
        ("bluetoothd-exited", .bluetoothdExited), ("bus-connection-lost", .busConnectionLost),
        ("capture-stopped", .captureStopped), ("source-ended", .sourceEnded),
    ]

    /// A code back to its case; any other text is `.recorded(text)`.
    public init(code: String) {
        self = Self.codes.first { $0.0 == code }?.1 ?? .recorded(code)
    }

    public var description: String {
        switch self {
        case .attemptFailed(let text), .recorded(let text): text
        default: Self.codes.first { $0.1 == self }?.0 ?? "unknown"
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(code: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
