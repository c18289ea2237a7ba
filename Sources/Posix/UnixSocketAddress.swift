import Glibc

/// An `AF_UNIX` socket address: a filesystem path or a Linux abstract name (written "@name"). The one place that
/// fills a `sockaddr_un`: the control socket, sd_notify and journald all go through it.
public struct UnixSocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as given, e.g. "/run/heartd/control.sock" or "@/org/freedesktop/systemd1/notify".
    public let string: String

    /// Why an address was refused.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Validates `string`: non-empty, no NUL, short enough for `sockaddr_un.sun_path` (108 bytes; a path needs
    /// a terminating NUL, so 107). `abstract: false` refuses "@name" (the name would be taken as a path).
    public init(_ string: String, allowAbstract: Bool = true) throws(Invalid) {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty, bytes != [UInt8(ascii: "@")] else { throw Invalid(description: "empty socket address") }
        let abstract = allowAbstract && bytes.first == UInt8(ascii: "@")
        // Abstract names use every byte of their length; paths need a terminating NUL.
        let limit = abstract ? 108 : 107
        guard bytes.count <= limit else {
            throw Invalid(description: "socket address longer than \(limit) bytes: \(string)")
        }
        guard !bytes.contains(0) else { throw Invalid(description: "socket address contains NUL") }
        self.string = string
        self.isAbstract = abstract
    }

    /// Whether this is an abstract-namespace address (leading "@").
    public let isAbstract: Bool

    public var description: String { string }

    /// Calls `body` with a filled `sockaddr_un` and the length to pass to the kernel.
    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(string.utf8)
        if isAbstract { bytes[0] = 0 }  // Linux abstract namespace: leading NUL, no terminator.
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1))
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
