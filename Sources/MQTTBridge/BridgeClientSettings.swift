import MQTT
import MQTTConfig

extension MQTTClientSettings {
    /// The client settings of heartd-mqtt from `[mqtt]`: the password from its file or systemd's credential, the will
    /// `offline` on the availability topic.
    public init(_ settings: MQTTSettings, topics: BridgeTopics, environment: [String: String]) throws(MQTTError) {
        self.init(host: settings.host, port: settings.effectivePort, clientID: settings.effectiveClientID)
        username = settings.username.isEmpty ? nil : settings.username
        do {
            password = try settings.password(environment: environment)
        } catch {
            throw MQTTError(.configuration, error.detail)
        }
        tlsCAFile = settings.caFile.isEmpty ? nil : settings.caFile
        tlsServerName = settings.tlsServerName.isEmpty ? nil : settings.tlsServerName
        keepAlive = .milliseconds(Int64(settings.keepAliveSeconds * 1000))
        will = MQTTWill(topic: topics.availability, string: "offline")
        maxQueuedMessages = settings.queueLimit
        maxBackoff = .milliseconds(Int64(settings.retryMaxSeconds * 1000))
    }
}

extension BridgeTopics {
    public init(_ settings: MQTTSettings) {
        self.init(base: settings.baseTopic, discoveryPrefix: settings.discoveryPrefix.isEmpty ? nil : settings.discoveryPrefix)
    }
}
