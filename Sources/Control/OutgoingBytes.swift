import Glibc
import Posix

/// The bytes queued for one client of a ``ControlConnection``, sent without blocking. What went out is dropped
/// from the front once everything went — or, with more than 64 KiB of it, when the socket is full — not per send.
struct OutgoingBytes {
    private var bytes: [UInt8] = []
    private var start = 0

    /// What `send(to:)` achieved.
    enum Progress {
        /// Everything queued went out.
        case sent
        /// The socket is full: the rest waits until it can take more.
        case wouldBlock
        /// The send failed (errno's text).
        case failed(String)
    }

    /// Bytes queued and not sent yet.
    var count: Int { bytes.count - start }
    var isEmpty: Bool { start >= bytes.count }

    /// Queues `line` and its newline.
    mutating func append(line: [UInt8]) {
        bytes.append(contentsOf: line)
        bytes.append(10)
    }

    /// Sends what is queued until it is all gone, the socket is full or a send fails.
    mutating func send(to fd: Int32) -> Progress {
        while start < bytes.count {
            let sent = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + start, $0.count - start, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent >= 0 {
                start += sent
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                if start > 65536 {
                    bytes.removeFirst(start)
                    start = 0
                }
                return .wouldBlock
            } else {
                return .failed(errnoText())
            }
        }
        bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
        start = 0
        return .sent
    }
}
