/// An error from the systemd integration (notify socket or journal socket).
///
/// Follows the project's error shape: a stable `code` plus a human-readable `detail`.
public struct SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error codes.
    public enum Code: String, Sendable, Equatable {
        /// A socket path is empty, too long for `sockaddr_un`, or otherwise unusable.
        case invalidSocketPath = "invalid-socket-path"
        /// `socket(2)` failed.
        case socketFailed = "socket-failed"
        /// `sendmsg(2)`/`sendto(2)` failed.
        case sendFailed = "send-failed"
        /// Creating or sealing the memfd used for oversized journal entries failed.
        case memfdFailed = "memfd-failed"
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// Details for humans (includes `errno` text when there is one).
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
