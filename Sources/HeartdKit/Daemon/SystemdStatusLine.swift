import Ingest
import Synchronization

/// The `STATUS=` line `systemctl status heartd` shows, kept true by the pipeline's live events: it is sent when a
/// sensor connects, starts streaming or is lost — the moment the text changes, and only then (no periodic
/// refresh, no wake-up of its own). It names states, not the heart rate, which would be stale between sends.
public final class SystemdStatusLine: Sendable {
    /// What systemd is told about one sensor.
    enum SensorState: String, Sendable {
        case connected, streaming
    }

    struct State: Sendable {
        var sensors: [String: (name: String?, state: SensorState)] = [:]
        var lost: [String: String] = [:]
        var sent: String?
        /// A sensor known to be streaming: its next value (most of them) needs no lookup. Cleared by any event
        /// that changes a sensor's state.
        var streaming: String?
    }

    private let state = Mutex(State())
    private let send: @Sendable (String) -> Void

    /// `send` delivers a changed line (to `SystemdNotifier.status`); it is called on the pipeline's thread.
    public init(send: @escaping @Sendable (String) -> Void) {
        self.send = send
    }

    /// The line before any sensor connected (sent with READY=1).
    public static let waiting = "waiting for sensors"

    /// Updates the line from one live event; sends it when the text changed.
    public func observe(_ event: LiveEvent) {
        let changed: String? = state.withLock { s in
            switch event {
            case .connected(let address, let device, _):
                s.sensors[address] = (device?.name, .connected)
                s.lost[address] = nil
                s.streaming = nil
            case .heartRate(let address, _, _), .beats(let address, _):
                if address == s.streaming { return nil }
                guard let sensor = s.sensors[address] else { return nil }
                s.streaming = address
                guard sensor.state != .streaming else { return nil }
                s.sensors[address] = (sensor.name, .streaming)
            case .disconnected(let address, let reason, _):
                s.streaming = nil
                guard s.sensors.removeValue(forKey: address) != nil else { return nil }
                s.lost[address] = reason.description
            case .battery, .contact, .seriesFinished:
                return nil
            }
            let text = Self.text(sensors: s.sensors, lost: s.lost)
            guard text != s.sent else { return nil }
            s.sent = text
            return text
        }
        if let changed { send(changed) }
    }

    /// "capturing 1 sensor: Polar H10 A0:9E:1A:12:34:56 streaming; lost: A0:…:57 (link-lost)".
    static func text(sensors: [String: (name: String?, state: SensorState)], lost: [String: String]) -> String {
        let live = sensors.keys.sorted().map { address in
            let sensor = sensors[address]!
            return [sensor.name, address, sensor.state.rawValue].compactMap { $0 }.joined(separator: " ")
        }
        var text = live.isEmpty ? waiting
            : "capturing \(live.count) sensor\(live.count == 1 ? "" : "s"): " + live.joined(separator: ", ")
        if !lost.isEmpty {
            text += "; lost: " + lost.keys.sorted().map { "\($0) (\(lost[$0]!))" }.joined(separator: ", ")
        }
        return text
    }
}
