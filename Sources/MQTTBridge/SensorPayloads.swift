import Foundation
import HeartQueries
import LiveFeed

/// What heartd-mqtt publishes about one sensor, as (value, payload) pairs: the text on each topic (docs/MQTT.md).
enum SensorPayloads {
    /// The state topics of `device` (nil payload: nothing known, nothing published), `session` the label of the active
    /// session covering it.
    static func values(of device: LiveDevice, session: String?) -> [(SensorValue, String?)] {
        [
            (.bpm, device.bpm.map(String.init)),
            (.rmssd, device.rmssdMs.map { String(format: "%.1f", $0) }),
            (.contact, device.contact.map { $0 ? "ON" : "OFF" }),
            (.state, device.state.rawValue),
            (.connected, device.connected ? "ON" : "OFF"),
            (.battery, device.batteryPercent.map(String.init)),
            (.session, session ?? ""),
            (.dfaAlpha1, device.dfaAlpha1.map { String(format: "%.2f", $0) }),
        ]
    }

    /// The label of the active session covering `address` (a session with no devices covers every sensor); "" for a
    /// session without a label, nil when none is active.
    static func sessionLabel(for address: String, in sessions: [ActiveSessionStatus]) -> String? {
        let session = sessions.first { $0.devices.isEmpty || $0.devices.contains { $0.caseInsensitiveCompare(address) == .orderedSame } }
        return session.map { $0.label ?? "" }
    }

    struct BeatsPayload: Encodable {
        struct Beat: Encodable {
            /// Seconds since 1970 (UTC), millisecond resolution.
            var t: Double
            /// A gap before this beat: beats were lost (a missed notification, a reconnect).
            var gap: Bool
        }
        var address: String
        var beats: [Beat]
    }

    /// One notification's beats as JSON: `{"address":"…","beats":[{"gap":false,"t":1764355200.123},…]}`.
    static func beats(_ beats: [WatchBeat], address: String) -> String {
        let payload = BeatsPayload(address: address, beats: beats.map {
            BeatsPayload.Beat(t: ($0.time.timeIntervalSince1970 * 1000).rounded() / 1000, gap: $0.gap)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(payload)) ?? Data(), as: UTF8.self)
    }
}
