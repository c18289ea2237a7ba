/// An error from the bus, a remote peer, or this binding.
///
/// `name` is the D-Bus error name (e.g. `org.bluez.Error.InProgress`, or
/// `org.freedesktop.DBus.Error.NoReply`); `code` classifies the common ones.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable classification of an error name.
    public enum Code: String, Sendable, Hashable {
        /// No reply within the call's timeout (`org.freedesktop.DBus.Error.NoReply`, `Timeout`, `TimedOut`).
        case noReply
        /// The destination name has no owner (`ServiceUnknown`, `NameHasNoOwner`).
        case serviceUnknown
        /// The connection is closed or was lost (`Disconnected`, or a local send failure).
        case disconnected
        case unknownMethod
        case unknownObject
        case unknownInterface
        case unknownProperty
        case invalidArgs
        case accessDenied
        case notSupported
        case noMemory
        /// Could not connect or authenticate (bad address, no server, auth failed).
        case connectFailed
        /// A reply whose arguments did not have the expected types.
        case unexpectedReply
        /// The awaiting task was cancelled before the reply came.
        case cancelled
        /// Any other error name (see `name`), e.g. the `org.bluez.Error.*` family.
        case other
    }

    public var name: String
    public var message: String
    public var code: Code

    public init(name: String, message: String) {
        self.name = name
        self.message = message
        self.code = Self.classify(name)
    }

    public init(code: Code, name: String, message: String) {
        self.name = name
        self.message = message
        self.code = code
    }

    public var description: String { "\(name): \(message)" }

    static func classify(_ name: String) -> Code {
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
             "org.freedesktop.DBus.Error.TimedOut":
            return .noReply
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .serviceUnknown
        case "org.freedesktop.DBus.Error.Disconnected": return .disconnected
        case "org.freedesktop.DBus.Error.UnknownMethod": return .unknownMethod
        case "org.freedesktop.DBus.Error.UnknownObject": return .unknownObject
        case "org.freedesktop.DBus.Error.UnknownInterface": return .unknownInterface
        case "org.freedesktop.DBus.Error.UnknownProperty": return .unknownProperty
        case "org.freedesktop.DBus.Error.InvalidArgs": return .invalidArgs
        case "org.freedesktop.DBus.Error.AccessDenied": return .accessDenied
        case "org.freedesktop.DBus.Error.NotSupported": return .notSupported
        case "org.freedesktop.DBus.Error.NoMemory": return .noMemory
        case "org.freedesktop.DBus.Error.BadAddress", "org.freedesktop.DBus.Error.NoServer",
             "org.freedesktop.DBus.Error.AuthFailed", "org.freedesktop.DBus.Error.FileNotFound",
             "org.freedesktop.DBus.Error.NoNetwork":
            return .connectFailed
        default: return .other
        }
    }

    static let localDisconnected = DBusError(
        code: .disconnected, name: "org.freedesktop.DBus.Error.Disconnected", message: "connection is closed")

    static let cancelled = DBusError(code: .cancelled, name: "heartd.DBus.Cancelled", message: "call cancelled")

    static func unexpectedReply(_ detail: String) -> DBusError {
        DBusError(code: .unexpectedReply, name: "heartd.DBus.UnexpectedReply", message: detail)
    }
}
