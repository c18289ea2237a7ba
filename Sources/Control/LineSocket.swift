import Glibc
import Posix

/// A connected Unix stream socket with blocking, timeout-bounded line I/O.
///
/// Not thread-safe: its owner confines it to one queue (``ControlClient``) or one test.
final class LineSocket {
    let fd: Int32
    private var buffer: LineBuffer
    private var chunk = [UInt8](repeating: 0, count: 65536)

    /// Connects to `path`.
    init(path: String, maxLineBytes: Int = 16 * 1024 * 1024) throws(ControlSocketError) {
        let fd = try UnixSocket.makeStream()
        if let code = try UnixSocket.connect(fd, to: path) {
            Glibc.close(fd)
            if code == EACCES || code == EPERM { throw SocketAccess.denied(path: path, errno: code) }
            throw ControlSocketError(.connectFailed, "connect \(path): \(errnoText(code))")
        }
        self.fd = fd
        self.buffer = LineBuffer(maxLineBytes: maxLineBytes)
    }

    deinit { Glibc.close(fd) }

    /// Writes all of `bytes` (a `\n` is appended when `newline`).
    func write(_ bytes: [UInt8], newline: Bool = true) throws(ControlSocketError) {
        let data = newline ? bytes + [10] : bytes
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                let code: ControlSocketError.Code = (errno == EPIPE || errno == ECONNRESET) ? .closed : .systemCall
                throw ControlSocketError(code, "send: \(errnoText())")
            }
            offset += sent
        }
    }

    /// The next line; waits at most `timeout` (`nil`: forever). Throws `.closed` at end of stream.
    func readLine(timeout: Duration?) throws(ControlSocketError) -> [UInt8] {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            switch buffer.next() {
            case .line(let line)?: return line
            case .overflow?: throw ControlSocketError(.protocolViolation, "server sent a line longer than \(buffer.maxLineBytes) bytes")
            case nil: break
            }
            // Without a deadline the (blocking) receive itself waits: one system call a read instead of two.
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw ControlSocketError(.timedOut, "no response within \(timeout ?? .zero)") }
                let (seconds, attoseconds) = left.components
                let waitMilliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, waitMilliseconds)
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw ControlSocketError(.systemCall, "poll: \(errnoText())")
                }
                if ready == 0 { continue }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { throw ControlSocketError(.closed, "server closed the connection") }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw ControlSocketError(errno == ECONNRESET ? .closed : .systemCall, "recv: \(errnoText())")
            }
            buffer.append(chunk.prefix(count))
        }
    }

    /// Shuts the socket down in both directions (wakes a blocked reader).
    func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
}
