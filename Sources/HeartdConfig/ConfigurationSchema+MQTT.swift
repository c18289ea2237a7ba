import MQTTConfig

/// The `[mqtt]` settings of `heartd-mqtt` (docs/CONFIGURATION.md, docs/MQTT.md).
extension ConfigurationSchema {
    static let mqttSettings: [ConfigurationSetting] = [
        string("mqtt", "host", \.mqtt.host) { host in
            host.contains(where: { $0.isWhitespace || $0 == "/" }) ? "a host name or address, no spaces or /" : nil
        },
        integer("mqtt", "port", \.mqtt.port, 0...65535),
        string("mqtt", "ca_file", \.mqtt.caFile) { absoluteOrEmptyPath($0) },
        string("mqtt", "tls_server_name", \.mqtt.tlsServerName) { name in
            name.contains(where: { $0.isWhitespace }) ? "a host name, no spaces" : nil
        },
        string("mqtt", "username", \.mqtt.username) { name in
            name.utf8.count <= 1024 && !name.contains(where: { $0.isNewline }) ? nil : "at most 1024 bytes on one line"
        },
        string("mqtt", "password_file", \.mqtt.passwordFile) { absoluteOrEmptyPath($0) },
        string("mqtt", "client_id", \.mqtt.clientID) { id in
            id.utf8.count <= 128 && !id.contains(where: { $0.isNewline }) ? nil : "at most 128 bytes on one line"
        },
        string("mqtt", "base_topic", \.mqtt.baseTopic) { MQTTSettings.topicProblem($0) },
        string("mqtt", "discovery_prefix", \.mqtt.discoveryPrefix) { $0.isEmpty ? nil : MQTTSettings.topicProblem($0) },
        seconds("mqtt", "keep_alive", \.mqtt.keepAliveSeconds, 1...65535),
        bool("mqtt", "beats", \.mqtt.beats),
        seconds("mqtt", "expire_after", \.mqtt.expireAfterSeconds, 0...86400),
        integer("mqtt", "queue_limit", \.mqtt.queueLimit, 100...1_000_000),
        seconds("mqtt", "retry_max", \.mqtt.retryMaxSeconds, 1...3600),
    ]

    private static func absoluteOrEmptyPath(_ path: String) -> String? {
        path.isEmpty || path.hasPrefix("/") ? nil : "must be an absolute path (or empty)"
    }
}
