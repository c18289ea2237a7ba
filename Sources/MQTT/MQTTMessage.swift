/// MQTT's quality of service levels this client speaks (QoS 2 is not used).
public enum MQTTQoS: UInt8, Sendable, Hashable, Codable {
    /// Fire and forget: lost when the connection breaks before the broker reads it.
    case atMostOnce = 0
    /// Kept until the broker's PUBACK; sent again (DUP) after a reconnect, so a subscriber may see it twice.
    case atLeastOnce = 1
}

/// How the outgoing queue holds a message until it is sent.
public enum MQTTQueuing: Sendable, Hashable {
    /// A state topic: a newer message for the same topic replaces a queued older one (the latest value wins).
    case latestPerTopic
    /// An event: every message is kept in order (up to the queue's bound, the oldest dropped first).
    case every
}

/// An application message: what is published and what a subscription delivers.
public struct MQTTMessage: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, string: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// The payload as UTF-8 text (invalid sequences repaired).
    public var string: String { String(decoding: payload, as: UTF8.self) }

    public var description: String {
        "\(topic) qos=\(qos.rawValue)\(retain ? " retained" : "") (\(payload.count) bytes)"
    }
}

/// The last will: what the broker publishes for this client when its connection ends without a DISCONNECT
/// (a crash, kill -9, a network cut, or no packet within 1.5 × the keep-alive).
public struct MQTTWill: Sendable, Hashable {
    public var message: MQTTMessage

    public init(topic: String, string: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        message = MQTTMessage(topic: topic, string: string, qos: qos, retain: retain)
    }
}

/// CONNACK's return codes (MQTT 3.1.1, 3.2.2.3).
public enum MQTTConnectReturnCode: UInt8, Sendable, Hashable, CaseIterable {
    case accepted = 0
    case unacceptableProtocolVersion = 1
    case identifierRejected = 2
    case serverUnavailable = 3
    case badUserNameOrPassword = 4
    case notAuthorized = 5
}

/// Topic filters and topic names (MQTT 3.1.1, 4.7).
public enum MQTTTopic {
    /// Whether `topic` (a name, no wildcards) matches `filter` (`+` one level, `#` the rest).
    public static func matches(filter: String, topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in f.enumerated() {
            if level == "#" { return true }
            guard index < t.count else { return false }
            if level != "+" && level != t[index] { return false }
        }
        return f.count == t.count
    }

    /// `text` as one topic level: `/`, `+`, `#`, NUL and control characters become `_` (a device name or
    /// address never spills into another level or a wildcard).
    public static func level(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "/", "+", "#", " ": return "_"
            default: return scalar.value < 0x20 || scalar.value == 0x7f ? "_" : Character(scalar)
            }
        })
    }
}
