import MQTT

/// The topic layout of heartd-mqtt (docs/MQTT.md): everything under `base`, one level per sensor named by its
/// address (lower case, no colons: stable across names and renames), Home Assistant's discovery under `prefix`.
public struct BridgeTopics: Sendable, Hashable {
    public let base: String
    /// Home Assistant's discovery prefix; nil: no discovery.
    public let discoveryPrefix: String?

    public init(base: String, discoveryPrefix: String?) {
        self.base = base
        self.discoveryPrefix = discoveryPrefix
    }

    /// `online` while heartd-mqtt is connected and heartd answers, `offline` otherwise (also the last will).
    public var availability: String { base + "/status" }

    /// Home Assistant's birth and will (`online` when it (re)starts: discovery is announced again).
    public var homeAssistantStatus: String? { discoveryPrefix.map { $0 + "/status" } }

    /// A sensor's id in topics and unique ids: its address, lower case, without separators (`a09e1a123456`).
    public static func sensorID(_ address: String) -> String {
        MQTTTopic.level(String(address.lowercased().filter { $0.isLetter || $0.isNumber }))
    }

    public func sensor(_ address: String) -> String { base + "/" + Self.sensorID(address) }

    public func topic(_ value: SensorValue, of address: String) -> String { sensor(address) + "/" + value.rawValue }

    /// The retained device-discovery config of one sensor.
    public func discovery(of address: String) -> String? {
        discoveryPrefix.map { $0 + "/device/" + DiscoveryConfig.deviceID(address) + "/config" }
    }
}

/// The values published per sensor, each on `<base>/<sensor>/<raw value>`.
public enum SensorValue: String, Sendable, CaseIterable {
    /// Heart rate (bpm, an integer), each notification; not retained.
    case bpm
    /// RMSSD over the rolling window (ms, one decimal); not retained.
    case rmssd
    /// Skin contact: `ON`/`OFF`; retained. Not published for sensors that do not report contact.
    case contact
    /// `streaming`, `no-contact`, `no-signal` or `disconnected`; retained.
    case state
    /// Connected to heartd's adapter: `ON`/`OFF`; retained.
    case connected
    /// Battery level (%); retained.
    case battery
    /// The label of the active session covering this sensor (empty: none); retained.
    case session
    /// Each notification's beats (JSON, QoS 1, every message kept); only with `[mqtt] beats = true`.
    case beats
    /// Live DFA α1 of heartd's rolling 2-minute window (two decimals); not retained; absent while withheld (above 5 %
    /// artifacts) or before the window holds enough intervals.
    case dfaAlpha1 = "dfa_alpha1"

    /// Retained: the value is a state a new subscriber should see at once; live values (bpm, RMSSD) expire instead.
    public var isRetained: Bool {
        switch self {
        case .contact, .state, .connected, .battery, .session: true
        case .bpm, .rmssd, .beats, .dfaAlpha1: false
        }
    }
}
