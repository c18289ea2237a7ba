/// A stable error code in a control response (`error.code`).
public struct ControlErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The line is not JSON. The connection stays open.
    public static let parseError = ControlErrorCode("parse-error")
    /// JSON, but not a request object (missing/invalid `id` or `method`).
    public static let invalidRequest = ControlErrorCode("invalid-request")
    /// The method does not exist.
    public static let unknownMethod = ControlErrorCode("unknown-method")
    /// Parameters are missing, of the wrong type or out of range.
    public static let invalidParams = ControlErrorCode("invalid-params")
    /// The peer lacks the group membership the method's access class needs.
    public static let permissionDenied = ControlErrorCode("permission-denied")
    /// A request line exceeded the maximum size; the server closes the connection after this.
    public static let lineTooLong = ControlErrorCode("line-too-long")
    /// The server already has its maximum number of clients; the connection is closed.
    public static let tooManyClients = ControlErrorCode("too-many-clients")
    /// The requested object does not exist.
    public static let notFound = ControlErrorCode("not-found")
    /// The daemon failed while handling the request.
    public static let internalError = ControlErrorCode("internal-error")
    /// The daemon is shutting down.
    public static let unavailable = ControlErrorCode("unavailable")
    /// As many store reads as the daemon runs at once are in progress (`[control] max_reads`); try again.
    public static let busy = ControlErrorCode("busy")
}

/// An error as carried in a response: `{"code": "...", "message": "..."}`.
public struct ControlError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var code: ControlErrorCode
    public var message: String

    public init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// An error of the socket layer itself (binding, connecting, I/O) as opposed to a protocol error.
public struct ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The socket path is empty or longer than `sockaddr_un` allows.
        case invalidPath = "invalid-path"
        /// Another server is accepting connections on the path.
        case addressInUse = "address-in-use"
        /// A non-socket file exists at the path.
        case pathOccupied = "path-occupied"
        /// A configured group does not exist.
        case unknownGroup = "unknown-group"
        /// A system call failed.
        case systemCall = "system-call"
        /// Could not connect (no server listening, no such path).
        case connectFailed = "connect-failed"
        /// The socket, or a directory on its path, refuses this user (`EACCES`/`EPERM`): not a member of its group.
        case permissionDenied = "permission-denied"
        /// The peer closed the connection.
        case closed = "closed"
        /// No response within the timeout.
        case timedOut = "timed-out"
        /// The peer sent something that is not the protocol.
        case protocolViolation = "protocol-violation"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
