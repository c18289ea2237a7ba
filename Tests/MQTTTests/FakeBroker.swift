import Foundation
import TestBus
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on a free loopback port that misbehaves as a broker: each accepted connection is given to
/// `behaviour` (on a thread of its own) with its socket; the socket is closed when `behaviour` returns.
final class FakeBroker: @unchecked Sendable {  // `listener` is set once; `accepted` under `lock`
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0

    init(behaviour: @escaping @Sendable (Int32) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound, listen(listener, 8) == 0 else { throw TestFailure("the fake broker cannot listen") }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [weak self] in
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                self?.lock.withLock { self?.accepted += 1 }
                Thread.detachNewThread {
                    behaviour(fd)
                    close(fd)
                }
            }
        }
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    /// Reads one packet's bytes (fixed header, length, body), or nil at EOF.
    static func readPacket(_ fd: Int32) -> [UInt8]? {
        var header: [UInt8] = []
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1 else { return nil }
        header.append(byte)
        var length = 0
        var multiplier = 1
        repeat {
            guard read(fd, &byte, 1) == 1 else { return nil }
            header.append(byte)
            length += Int(byte & 0x7f) * multiplier
            multiplier *= 128
        } while byte & 0x80 != 0
        var body = [UInt8](repeating: 0, count: length)
        var got = 0
        while got < length {
            let n = body.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, length - got) }
            guard n > 0 else { return nil }
            got += n
        }
        return header + body
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, bytes.count) }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
