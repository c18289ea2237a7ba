/// The MQTT 3.1.1 control packets this client sends and receives.
public enum MQTTPacket: Sendable, Hashable {
    case connect(Connect)
    case connack(sessionPresent: Bool, returnCode: MQTTConnectReturnCode)
    case publish(Publish)
    case puback(packetID: UInt16)
    case subscribe(packetID: UInt16, filters: [Subscription])
    /// One result per filter: the granted QoS (0–2), or 0x80 for a failure.
    case suback(packetID: UInt16, results: [UInt8])
    case pingreq
    case pingresp
    case disconnect

    public struct Connect: Sendable, Hashable {
        public var clientID: String
        public var cleanSession: Bool
        public var keepAliveSeconds: UInt16
        public var username: String?
        public var password: String?
        public var will: MQTTWill?

        public init(clientID: String, cleanSession: Bool = true, keepAliveSeconds: UInt16, username: String? = nil,
                    password: String? = nil, will: MQTTWill? = nil) {
            self.clientID = clientID
            self.cleanSession = cleanSession
            self.keepAliveSeconds = keepAliveSeconds
            self.username = username
            self.password = password
            self.will = will
        }
    }

    public struct Publish: Sendable, Hashable {
        public var message: MQTTMessage
        /// Present for QoS 1.
        public var packetID: UInt16?
        public var duplicate: Bool

        public init(message: MQTTMessage, packetID: UInt16? = nil, duplicate: Bool = false) {
            self.message = message
            self.packetID = packetID
            self.duplicate = duplicate
        }
    }

    public struct Subscription: Sendable, Hashable {
        public var filter: String
        public var qos: MQTTQoS

        public init(filter: String, qos: MQTTQoS) {
            self.filter = filter
            self.qos = qos
        }
    }

    /// The fixed header's packet type (the high nibble of the first byte).
    public enum Kind: UInt8, Sendable {
        case connect = 1, connack, publish, puback, pubrec, pubrel, pubcomp, subscribe, suback, unsubscribe, unsuback
        case pingreq, pingresp, disconnect
    }

    public var kind: Kind {
        switch self {
        case .connect: .connect
        case .connack: .connack
        case .publish: .publish
        case .puback: .puback
        case .subscribe: .subscribe
        case .suback: .suback
        case .pingreq: .pingreq
        case .pingresp: .pingresp
        case .disconnect: .disconnect
        }
    }
}
