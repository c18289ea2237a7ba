/// An error of the MQTT client: a stable `code` plus a human-readable detail (never the password).
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The settings cannot be used (no host, a bad port, an unreadable password file).
        case configuration
        /// The broker cannot be reached (refused, no route, name not resolved), or the connection broke.
        case connection
        /// The TLS handshake failed: the broker's certificate is not signed by the CA, or names another host.
        case tls
        /// The broker refused the user name or password (CONNACK 4, or 5: not authorised).
        case authentication
        /// The broker refused this client for another reason (CONNACK 1, 2 or 3).
        case refused
        /// The broker sent bytes that are not MQTT 3.1.1, or a packet the client did not expect.
        case protocolViolation
        /// The broker sent a packet larger than the client's `maxIncomingPacketSize`.
        case packetTooLarge
        /// No CONNACK within the connect timeout, or no PINGRESP within the keep-alive.
        case timeout
    }

    public let code: Code
    public let detail: String
    /// The CONNACK return code, when the broker refused the connection.
    public let returnCode: MQTTConnectReturnCode?

    public init(_ code: Code, _ detail: String, returnCode: MQTTConnectReturnCode? = nil) {
        self.code = code
        self.detail = detail
        self.returnCode = returnCode
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    /// Errors after which reconnecting cannot help until someone changes the settings or the broker.
    public var isPermanent: Bool {
        switch code {
        case .configuration, .authentication, .refused, .tls: return true
        case .connection, .protocolViolation, .packetTooLarge, .timeout: return false
        }
    }

    /// The error for a refusing CONNACK.
    static func refusal(_ code: MQTTConnectReturnCode) -> MQTTError {
        switch code {
        case .badUserNameOrPassword:
            return MQTTError(.authentication, "the broker refused the user name or password", returnCode: code)
        case .notAuthorized:
            // What mosquitto answers a wrong password with over MQTT 3.1.1.
            return MQTTError(.authentication, "the broker did not authorise this client (user name or password)",
                             returnCode: code)
        case .unacceptableProtocolVersion:
            return MQTTError(.refused, "the broker does not speak MQTT 3.1.1", returnCode: code)
        case .identifierRejected:
            return MQTTError(.refused, "the broker rejected the client identifier", returnCode: code)
        case .serverUnavailable:
            return MQTTError(.refused, "the broker is unavailable", returnCode: code)
        case .accepted:
            return MQTTError(.protocolViolation, "accepted is no refusal", returnCode: code)
        }
    }
}
