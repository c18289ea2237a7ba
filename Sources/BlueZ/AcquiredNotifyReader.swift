internal import CLinux
import DBus
import Foundation
import Glibc
import Posix
import Synchronization

/// One value read from an `AcquireNotify` socket, with the time the kernel queued it.
public struct NotifyDatagram: Sendable {
    public var bytes: [UInt8]
    public var wall: Date
    public var monotonic: Double

    public init(bytes: [UInt8], wall: Date, monotonic: Double) {
        self.bytes = bytes
        self.wall = wall
        self.monotonic = monotonic
    }
}

/// Reads an `AcquireNotify` socket (SOCK_SEQPACKET: one notification per datagram) on its own thread.
///
/// A thread blocked in `recvmmsg` costs one wake-up per read; a DispatchSource on Linux costs two (the epoll
/// manager thread, then a worker). On a busy socket the thread pauses between reads (`ReadBatching`) and takes
/// what gathered in one call; each datagram keeps its own kernel timestamp (`SO_TIMESTAMPNS`), so batching
/// does not move arrival times.
public final class AcquiredNotifyReader: Sendable {
    private let fd: Int32
    private struct Closing {
        var closing = false
        var closed = false
    }
    private let state = Mutex(Closing())

    /// Datagrams taken per `recvmmsg` call.
    static let batchLimit = 32

    /// Takes ownership of `fd`. `onValues` runs on the reader thread with the datagrams of one read, oldest first;
    /// `onClosed` when BlueZ closed the socket.
    public init(fd: Int32, mtu: Int, batching: ReadBatching,
         onValues: @escaping @Sendable ([NotifyDatagram]) -> Void, onClosed: @escaping @Sendable () -> Void) {
        self.fd = fd
        let stamped = Self.enableTimestamps(fd)
        // bluetoothd creates the pair SOCK_NONBLOCK, and our end keeps the flag: the thread blocks in recvmmsg.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 && flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        let thread = Thread { [self] in
            clinux_set_thread_name("heartd-notify")  // Thread.name does not reach the kernel (top -H, perf)
            var batch = DatagramBatch(count: Self.batchLimit, capacity: max(mtu, 512))
            var lastWake: UInt64 = 0
            let pause = batching.thresholds
            while true {
                let n = batch.receive(fd)
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {  // still non-blocking somehow: wait, then read
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    _ = poll(&p, 1, -1)
                    continue
                }
                guard n > 0 else { break }
                let (count, ended) = batch.dataBeforeEndOfStream(fd, received: n)
                if count > 0 { onValues(batch.datagrams(count, stamped: stamped)) }
                if ended { break }  // the peer closed (or our shutdown)
                let wake = MonotonicClock.nanoseconds()
                if n < Self.batchLimit, pause.shouldPause(wake: wake, lastWake: lastWake, pendingCalls: 0) {
                    var none = pollfd(fd: -1, events: 0, revents: 0)  // a sleep; close() waits at most one interval
                    _ = poll(&none, 1, batching.pauseMilliseconds)
                }
                lastWake = wake
            }
            // Close under the lock so close() never shuts down a reused descriptor number.
            let ours = state.withLock { c -> Bool in
                c.closed = true
                _ = Glibc.close(fd)
                return c.closing
            }
            if !ours { onClosed() }
        }
        thread.name = "heartd.notify-fd"
        thread.start()
    }

    /// Asks the kernel to stamp each datagram as it is queued (`SO_TIMESTAMPNS`). Datagrams queued before
    /// this call get the time they are read.
    public static func enableTimestamps(_ fd: Int32) -> Bool {
        clinux_enable_timestampns(fd) == 0
    }

    /// Stops reading and closes the socket (BlueZ then ends the notify session).
    public func close() {
        state.withLock { c in
            c.closing = true
            if !c.closed { _ = shutdown(fd, Int32(SHUT_RDWR)) }  // wakes the blocked recvmmsg with EOF
        }
    }
}
