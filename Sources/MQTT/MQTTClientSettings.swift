/// Where the broker is and how to talk to it.
public struct MQTTClientSettings: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var clientID: String
    public var username: String?
    public var password: String?
    /// PEM file of the CA that signed the broker's certificate: TLS, the certificate and host name verified.
    /// Nil: plain TCP.
    public var tlsCAFile: String?
    /// The host name the broker's certificate must carry; nil: `host`.
    public var tlsServerName: String?
    /// The keep-alive sent in CONNECT: a PINGREQ goes out when nothing else was sent for this long, and the broker
    /// publishes the will when it hears nothing for 1.5 times this.
    public var keepAlive: Duration = .seconds(30)
    public var will: MQTTWill?
    /// Longest the TCP connect, the TLS handshake and the CONNACK may take together.
    public var connectTimeout: Duration = .seconds(10)
    /// A packet from the broker larger than this drops the connection (it is re-made).
    public var maxIncomingPacketSize = 256 * 1024
    /// Messages waiting to be sent, at most (state topics and events together); beyond it the oldest event goes.
    public var maxQueuedMessages = 10_000
    /// QoS 1 messages sent and not yet acknowledged, at most.
    public var maxInFlight = 64
    /// Reconnect back-off: doubles from `minBackoff` up to `maxBackoff` after each failed attempt.
    public var minBackoff: Duration = .milliseconds(250)
    public var maxBackoff: Duration = .seconds(30)

    public init(host: String, port: Int = 1883, clientID: String) {
        self.host = host
        self.port = port
        self.clientID = clientID
    }

    /// Checks what can be checked without a network.
    public func validate() throws(MQTTError) {
        guard !host.isEmpty else { throw MQTTError(.configuration, "no broker host") }
        guard (1...65535).contains(port) else { throw MQTTError(.configuration, "port \(port) is not 1–65535") }
        guard !clientID.isEmpty, clientID.utf8.count <= 65535 else { throw MQTTError(.configuration, "a bad client id") }
        guard keepAlive >= .seconds(1), keepAlive <= .seconds(65535) else {
            throw MQTTError(.configuration, "the keep-alive must be 1–65535 s")
        }
        guard maxIncomingPacketSize >= 16, maxQueuedMessages >= 1, maxInFlight >= 1 else {
            throw MQTTError(.configuration, "the packet size and queue bounds must be positive")
        }
        if password != nil && username == nil {
            throw MQTTError(.configuration, "a password needs a user name (MQTT 3.1.1)")
        }
    }

    var keepAliveSeconds: UInt16 { UInt16(clamping: keepAlive.components.seconds) }
}
