import Foundation

/// The `[mqtt]` settings (docs/CONFIGURATION.md, docs/MQTT.md): which broker `heartd-mqtt` publishes to and how.
/// Without NIO, so that heartd.toml's validation (HeartdConfig) links no network code.
public struct MQTTSettings: Sendable, Equatable {
    /// The broker's host name or address; empty means MQTT is not configured.
    public var host = ""
    /// 1883, or 8883 with `ca_file` (TLS).
    public var port = 0
    /// PEM file of the CA that signed the broker's certificate: when set, the connection is TLS, certificate and host
    /// name verified. Empty: plain TCP (a broker on this machine or a trusted LAN).
    public var caFile = ""
    /// The host name the broker's certificate must carry; empty: `host`.
    public var tlsServerName = ""
    /// The user name; empty: none (an anonymous broker).
    public var username = ""
    /// File whose first line is the password; empty: `$CREDENTIALS_DIRECTORY/mqtt-password` when systemd passed that
    /// credential (`LoadCredential=`), else no password.
    public var passwordFile = ""
    /// MQTT client id; empty: `heartd-<host name>`.
    public var clientID = ""
    /// The topic everything of heartd-mqtt is under.
    public var baseTopic = "heartd"
    /// Home Assistant's discovery prefix; empty: no discovery.
    public var discoveryPrefix = "homeassistant"
    public var keepAliveSeconds: Double = 30
    /// Publish each notification's beats (`<base>/<sensor>/beats`, QoS 1).
    public var beats = false
    /// Home Assistant marks a value unavailable when no new one came for this long (`expire_after`).
    public var expireAfterSeconds: Double = 30
    /// Messages waiting for the broker, at most (state topics keep only their latest value).
    public var queueLimit = 10_000
    /// Longest pause between reconnect attempts.
    public var retryMaxSeconds: Double = 30

    public init() {}

    public var isConfigured: Bool { !host.isEmpty }

    /// The port to use: `port`, or 8883 with TLS and 1883 without.
    public var effectivePort: Int { port != 0 ? port : (caFile.isEmpty ? 1883 : 8883) }

    public var effectiveClientID: String {
        clientID.isEmpty ? "heartd-" + ProcessInfo.processInfo.hostName : clientID
    }

    /// The password file to read, if any (see `passwordFile`).
    public func passwordPath(environment: [String: String]) -> String? {
        if !passwordFile.isEmpty { return passwordFile }
        guard let directory = environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/mqtt-password"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The password: the first line of the password file, or nil when there is none.
    public func password(environment: [String: String]) throws(MQTTSettingsError) -> String? {
        guard let path = passwordPath(environment: environment) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw MQTTSettingsError(detail: "cannot read the password file \(path)")
        }
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }

    /// Why `topic` cannot be a base topic or discovery prefix, or nil: a topic name without wildcards, NUL, or a
    /// leading or trailing `/`.
    public static func topicProblem(_ topic: String) -> String? {
        if topic.isEmpty { return "must not be empty" }
        if topic.contains(where: { "+#\u{0}".contains($0) }) { return "must not contain +, # or NUL" }
        if topic.hasPrefix("/") || topic.hasSuffix("/") { return "must not start or end with /" }
        if topic.utf8.count > 1024 { return "at most 1024 bytes" }
        return nil
    }
}

/// The password file of `[mqtt]` cannot be read.
public struct MQTTSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let detail: String
    public var description: String { detail }
}
