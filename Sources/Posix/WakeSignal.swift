import Glibc

/// Wakes one thread blocked in `wait`: an eventfd-like pipe, for a dedicated thread that sleeps until there is
/// work (and, optionally, at most so long). Costs one `write(2)` to signal and one wake-up of the waiting thread;
/// unlike a libdispatch queue, it starts no worker pool (on Linux libdispatch's pool brings a manager thread that
/// wakes every second for ever to watch it).
///
/// `signal` may be called from any thread; signals before a `wait` are not lost (the byte stays in the pipe), and
/// several coalesce into one wake-up.
public final class WakeSignal: Sendable {
    private let readFD: Int32
    private let writeFD: Int32

    public init() throws(PosixError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw PosixError(call: "pipe", errno: errno) }
        readFD = fds[0]
        writeFD = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A full pipe means a wake-up is already pending: the writer must never block on it.
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// The descriptor that becomes readable when signalled, for a thread that waits in `epoll` with others
    /// (`clear()` takes the signals then).
    public var descriptor: Int32 { readFD }

    /// Takes the pending signals without waiting (after `descriptor` was reported readable).
    public func clear() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        _ = withUnsafeMutableBytes(of: &buffer) { read(readFD, $0.baseAddress, $0.count) }
    }

    /// Wakes the waiting thread (or the next `wait`).
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Blocks until signalled or `timeout` seconds have passed (nil: no limit); returns whether it was signalled.
    /// Takes every pending signal.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Bool {
        var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        let ms = timeout.map { Int32(clamping: Int(($0 * 1000).rounded(.up))) } ?? -1
        while true {
            let n = poll(&p, 1, ms)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            break
        }
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        _ = withUnsafeMutableBytes(of: &buffer) { read(readFD, $0.baseAddress, $0.count) }
        return true
    }
}
