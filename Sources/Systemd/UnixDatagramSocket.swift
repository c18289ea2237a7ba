#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A Unix datagram socket address: a filesystem path or a Linux abstract name (written "@name").
public struct UnixSocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as given, e.g. "/run/systemd/notify" or "@/org/freedesktop/systemd1/notify".
    public let string: String

    /// Validates `string`: non-empty and short enough for `sockaddr_un.sun_path` (108 bytes).
    public init(_ string: String) throws(SystemdError) {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty, bytes != [UInt8(ascii: "@")] else {
            throw SystemdError(.invalidSocketPath, "empty socket address")
        }
        // Abstract names use every byte of their length; paths need a terminating NUL.
        let limit = bytes.first == UInt8(ascii: "@") ? 108 : 107
        guard bytes.count <= limit else {
            throw SystemdError(.invalidSocketPath, "socket address longer than \(limit) bytes: \(string)")
        }
        guard !bytes.contains(0) else {
            throw SystemdError(.invalidSocketPath, "socket address contains NUL")
        }
        self.string = string
    }

    /// Whether this is an abstract-namespace address (leading "@").
    public var isAbstract: Bool { string.utf8.first == UInt8(ascii: "@") }

    public var description: String { string }

    /// Calls `body` with a filled `sockaddr_un` and the length to pass to the kernel.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(string.utf8)
        if isAbstract { bytes[0] = 0 }  // Linux abstract namespace: leading NUL, no terminator.
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// An unconnected, close-on-exec `AF_UNIX`/`SOCK_DGRAM` socket used to send to one address.
///
/// `sendmsg(2)` on one descriptor is thread-safe, and the descriptor never changes after `init`,
/// so the class is `Sendable` without locks.
final class UnixDatagramSender: Sendable {
    let fd: Int32
    let address: UnixSocketAddress

    init(address: UnixSocketAddress) throws(SystemdError) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw SystemdError(.socketFailed, "socket(AF_UNIX, SOCK_DGRAM): \(errnoText())")
        }
        self.fd = fd
        self.address = address
    }

    deinit { close(fd) }

    /// Sends `payload` as one datagram; optionally passes one file descriptor with `SCM_RIGHTS`.
    /// Returns the `errno` on failure so callers can react to `EMSGSIZE`.
    func send(_ payload: [UInt8], passing descriptor: Int32? = nil) -> Int32? {
        address.withSockaddr { sockaddrPointer, length in
            var payload = payload
            return payload.withUnsafeMutableBytes { buffer -> Int32? in
                var iov = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                var header = msghdr()
                header.msg_name = UnsafeMutableRawPointer(mutating: sockaddrPointer)
                header.msg_namelen = length
                // A zero-length datagram must still carry one iovec entry or nothing; use none.
                var control = [UInt8](repeating: 0, count: descriptor == nil ? 0 : ControlMessage.spaceForOneDescriptor)
                return withUnsafeMutablePointer(to: &iov) { iovPointer -> Int32? in
                    if buffer.count > 0 {
                        header.msg_iov = iovPointer
                        header.msg_iovlen = 1
                    }
                    return control.withUnsafeMutableBytes { controlBuffer -> Int32? in
                        if let descriptor {
                            ControlMessage.fillRights(controlBuffer, descriptor: descriptor)
                            header.msg_control = controlBuffer.baseAddress
                            header.msg_controllen = controlBuffer.count
                        }
                        while true {
                            let sent = sendmsg(fd, &header, Int32(MSG_NOSIGNAL))
                            if sent >= 0 { return nil }
                            if errno == EINTR { continue }
                            return errno
                        }
                    }
                }
            }
        }
    }
}

/// `cmsghdr` layout for one `SCM_RIGHTS` descriptor (the CMSG_* macros are not importable).
enum ControlMessage {
    static let headerSize = MemoryLayout<cmsghdr>.size
    static let alignment = MemoryLayout<Int>.size
    static func align(_ n: Int) -> Int { (n + alignment - 1) & ~(alignment - 1) }
    static var spaceForOneDescriptor: Int { align(headerSize) + align(MemoryLayout<Int32>.size) }
    static var lengthForOneDescriptor: Int { align(headerSize) + MemoryLayout<Int32>.size }

    static func fillRights(_ buffer: UnsafeMutableRawBufferPointer, descriptor: Int32) {
        guard let base = buffer.baseAddress else { return }
        let header = base.bindMemory(to: cmsghdr.self, capacity: 1)
        header.pointee.cmsg_len = lengthForOneDescriptor
        header.pointee.cmsg_level = SOL_SOCKET
        header.pointee.cmsg_type = Int32(SCM_RIGHTS)
        base.advanced(by: align(headerSize)).storeBytes(of: descriptor, as: Int32.self)
    }
}

/// `strerror(errno)` plus the number, for error details.
func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
