import DBus

/// An `org.bluez.Error.*` reply (or a D-Bus failure while talking to BlueZ), classified.
public struct BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable classification; `other` keeps the name in `name`.
    public enum Kind: String, Sendable, Hashable {
        case inProgress, notPermitted, notReady, failed, doesNotExist, notConnected, alreadyConnected
        /// `org.bluez.Error.Failed: le-connection-abort-by-local` (the usual transient LE connect failure).
        case leConnectionAbortByLocal
        /// The controller has no room for another connection. BlueZ 5.66 answers `org.bluez.Error.Failed` with
        /// `le-connection-concurrent-connection-limit` (errno EMLINK, which the kernel gives for HCI 0x09
        /// *Connection Limit Exceeded*) or `le-connection-memory-alloc` (ENOMEM: HCI 0x07 *Memory Capacity
        /// Exceeded*); older versions put strerror text there ("Too many links"). HCI 0x0d *Limited Resources*
        /// becomes ECONNREFUSED, `le-connection-refused`, which a remote refusal gives too: not counted here.
        case connectionLimit
        case notSupported, notAvailable, invalidArguments, alreadyExists
        case authenticationFailed, authenticationCanceled, authenticationRejected, authenticationTimeout
        case connectionAttemptFailed
        /// No reply in time (D-Bus NoReply).
        case timeout
        /// org.bluez has no owner (bluetoothd is not running) or the bus connection is gone.
        case unavailable
        /// BlueZ has no such method (`org.freedesktop.DBus.Error.UnknownMethod`): an older version, or one that
        /// offers it only with `--experimental`.
        case unknownMethod
        /// A reply BlueZ should not have sent (wrong types).
        case unexpectedReply
        /// The call was cancelled (capture stopping).
        case cancelled
        case other
    }

    public var kind: Kind
    public var name: String
    public var message: String

    public init(kind: Kind, name: String, message: String) {
        self.kind = kind
        self.name = name
        self.message = message
    }

    /// Classifies a D-Bus error from a BlueZ call.
    public init(_ error: DBusError) {
        name = error.name
        message = error.message
        switch error.code {
        case .noReply: kind = .timeout; return
        case .serviceUnknown, .disconnected: kind = .unavailable; return
        case .unexpectedReply: kind = .unexpectedReply; return
        case .cancelled: kind = .cancelled; return
        default: break
        }
        kind = Self.classify(name: error.name, message: error.message)
    }

    static func classify(name: String, message: String) -> Kind {
        guard name.hasPrefix("org.bluez.Error.") else {
            switch name {
            case "org.freedesktop.DBus.Error.UnknownObject": return .doesNotExist
            case "org.freedesktop.DBus.Error.UnknownMethod": return .unknownMethod
            default: return .other
            }
        }
        switch name.dropFirst("org.bluez.Error.".count) {
        case "InProgress": return .inProgress
        case "NotPermitted": return .notPermitted
        case "NotReady": return .notReady
        case "Failed":
            if message.contains("le-connection-abort-by-local") { return .leConnectionAbortByLocal }
            return connectionLimitTexts.contains { message.contains($0) } ? .connectionLimit : .failed
        case "DoesNotExist": return .doesNotExist
        case "NotConnected": return .notConnected
        case "AlreadyConnected": return .alreadyConnected
        case "NotSupported": return .notSupported
        case "NotAvailable": return .notAvailable
        case "InvalidArguments": return .invalidArguments
        case "AlreadyExists": return .alreadyExists
        case "AuthenticationFailed": return .authenticationFailed
        case "AuthenticationCanceled": return .authenticationCanceled
        case "AuthenticationRejected": return .authenticationRejected
        case "AuthenticationTimeout": return .authenticationTimeout
        case "ConnectionAttemptFailed": return .connectionAttemptFailed
        default: return .other
        }
    }

    /// Texts of `org.bluez.Error.Failed` that mean the controller is out of connections (see `Kind.connectionLimit`).
    static let connectionLimitTexts = ["le-connection-concurrent-connection-limit", "le-connection-memory-alloc",
                                       "Too many links", "Connection Limit Exceeded", "Limited Resources"]

    public var description: String { "\(name): \(message) [\(kind.rawValue)]" }

    static func wrap(_ error: any Error) -> BlueZError {
        if let e = error as? BlueZError { return e }
        if let e = error as? DBusError { return BlueZError(e) }
        return BlueZError(kind: .other, name: "heartd.BlueZ.Error", message: "\(error)")
    }
}
