import Glibc

/// Settings of a ``ControlServer``.
public struct ControlServerConfiguration: Sendable, Hashable {
    /// Socket path, e.g. `/run/heartd/control.sock`. The parent directory is created if missing.
    public var path: String
    /// Group owning the socket; its members may call `read` methods. `nil`: keep our own group, no check.
    public var group: String?
    /// Group whose members may call `admin` methods (besides root). `nil`: root only.
    public var adminGroup: String?
    /// Group whose members may start and stop sessions (besides root and admins). `nil`: the read group.
    public var sessionGroup: String?
    /// Socket file mode (default 0660: owner and group only).
    public var mode: UInt32
    /// Maximum concurrently connected clients; further clients get `too-many-clients` and are closed.
    public var maxClients: Int
    /// Maximum request line length in bytes; longer lines get `line-too-long`, then the connection closes.
    public var maxLineBytes: Int
    /// Maximum bytes queued for one client that is not reading; beyond it the client is dropped.
    public var maxOutgoingBytes: Int
    /// Maximum requests queued behind one in progress on a connection (pipelining bound).
    public var maxPendingRequests: Int

    public init(
        path: String,
        group: String? = nil,
        adminGroup: String? = nil,
        sessionGroup: String? = nil,
        mode: UInt32 = 0o660,
        maxClients: Int = 64,
        maxLineBytes: Int = 64 * 1024,
        maxOutgoingBytes: Int = 4 * 1024 * 1024,
        maxPendingRequests: Int = 64
    ) {
        self.path = path
        self.group = group
        self.adminGroup = adminGroup
        self.sessionGroup = sessionGroup
        self.mode = mode
        self.maxClients = maxClients
        self.maxLineBytes = maxLineBytes
        self.maxOutgoingBytes = maxOutgoingBytes
        self.maxPendingRequests = maxPendingRequests
    }
}
