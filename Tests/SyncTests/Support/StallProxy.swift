import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a real server, for the network-stall fault: it forwards bytes both ways
/// until `stall()`, then forwards nothing and closes nothing — as behind a router that went dark — and takes up
/// again at `resume()` (bytes held meanwhile are delivered then, as TCP retransmission would). New connections
/// are accepted during a stall (the kernel completes the handshake) but their bytes wait too, so a connect
/// through a stalled proxy hangs in the login exchange.
final class StallProxy: @unchecked Sendable {  // mutable state guarded by `lock`
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stalled = false
    private var stopped = false
    private var sockets: Set<Int32> = []
    /// Connections accepted so far (a test can tell that a reconnect went through the proxy).
    private(set) var accepted = 0

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    func stall() { lock.withLock { stalled = true } }
    func resume() { lock.withLock { stalled = false } }

    /// Closes the listener and every forwarded connection.
    func stop() {
        let open: Set<Int32> = lock.withLock {
            stopped = true
            return sockets
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var isStalled: Bool { lock.withLock { stalled } }
    private var isStopped: Bool { lock.withLock { stopped } }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                break
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(upstream)
                close(client)
                continue
            }
            lock.withLock {
                sockets.formUnion([client, upstream])
                accepted += 1
            }
            Thread { [self] in pump(client, upstream) }.start()
        }
        close(listener)
    }

    /// Copies bytes both ways until either side closes; while stalled, reads nothing (so nothing is lost or closed).
    private func pump(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        loop: while !isStopped {
            if isStalled {
                usleep(20_000)
                continue
            }
            guard poll(&fds, 2, 50) >= 0 || errno == EINTR else { break }
            for index in 0..<2 where fds[index].revents != 0 {
                let from = fds[index].fd, to = fds[1 - index].fd
                let count = read(from, &buffer, buffer.count)
                guard count > 0 else { break loop }
                var sent = 0
                while sent < count {
                    let n = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                    guard n > 0 else { break loop }
                    sent += n
                }
            }
        }
        lock.withLock { _ = sockets.remove(a); _ = sockets.remove(b) }
        close(a)
        close(b)
    }
}
