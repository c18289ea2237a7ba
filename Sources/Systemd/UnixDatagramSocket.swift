import Glibc
import Posix

extension UnixSocketAddress {
    /// The address, or a `SystemdError` saying why it cannot be one.
    static func checked(_ string: String) throws(SystemdError) -> UnixSocketAddress {
        do {
            return try UnixSocketAddress(string)
        } catch {
            throw SystemdError(.invalidSocketPath, error.description)
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
