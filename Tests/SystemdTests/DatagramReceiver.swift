import Glibc
import Foundation
import Posix
@testable import Systemd

/// A bound Unix datagram socket for tests: receives one datagram (and an optional passed fd).
final class DatagramReceiver {
    let fd: Int32
    let address: String
    private let directory: String?

    /// Binds a fresh socket: a path in a new temp dir, or an abstract name when `abstract` is true.
    init(abstract: Bool = false) throws {
        let unique = UUID().uuidString.prefix(12)
        if abstract {
            directory = nil
            address = "@heartd-test-\(unique)"
        } else {
            let dir = NSTemporaryDirectory() + "sdtest-\(unique)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            directory = dir
            address = dir + "/sock"
        }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var size: Int32 = 8 * 1024 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let result = try UnixSocketAddress(address).withSockaddr { bind(fd, $0, $1) }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
    }

    deinit {
        close(fd)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Receives one datagram; returns its bytes and a passed descriptor, if any.
    func receive() throws -> (bytes: [UInt8], passedFD: Int32?) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var control = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { data -> Int in
            control.withUnsafeMutableBytes { controlBuffer -> Int in
                var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer in
                    var header = msghdr()
                    header.msg_iov = iovPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBuffer.baseAddress
                    header.msg_controllen = controlBuffer.count
                    let n = recvmsg(fd, &header, 0)
                    if n >= 0, header.msg_controllen >= ControlMessage.lengthForOneDescriptor {
                        let cmsg = controlBuffer.baseAddress!.load(as: cmsghdr.self)
                        if cmsg.cmsg_level == SOL_SOCKET, cmsg.cmsg_type == Int32(SCM_RIGHTS) {
                            passed = controlBuffer.baseAddress!.load(fromByteOffset: ControlMessage.align(ControlMessage.headerSize), as: Int32.self)
                        }
                    }
                    return n
                }
            }
        }
        guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return (Array(buffer.prefix(count)), passed)
    }

    private var passed: Int32?
}

/// Reads everything from a descriptor (from offset 0) and closes it.
func readAll(fd: Int32) -> [UInt8] {
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    var offset: off_t = 0
    while true {
        let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
        if n <= 0 { break }
        out.append(contentsOf: chunk.prefix(n))
        offset += off_t(n)
    }
    return out
}
