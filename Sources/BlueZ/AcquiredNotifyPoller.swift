internal import CLinux
import DBus
import Foundation
import Glibc
import Posix
import Synchronization

/// The one thread (`heartd-notify`) that reads every `AcquireNotify` socket of a capture client, from an epoll set.
/// The client owns it: the thread runs from `start()` to `stop()` (`CaptureManager.run`).
///
/// A thread per socket costs one wake-up per notification: 16 sensors at 1/s, 16 wake-ups a second. Here a
/// wake-up that found data may pause for the batching interval (`ReadBatching`, the D-Bus reader's rule) before
/// the next `epoll_wait`, so the sensors that ticked meanwhile are read together. Each ready socket is read with
/// `recvmmsg` until EAGAIN; each datagram keeps its kernel timestamp, so batching does not move arrival times.
///
/// Locks: `delivery` is held while one socket is read and its callbacks run (so `close()` can wait out a callback
/// in progress); `state` guards the registrations and is held around every read and close of a descriptor (so a
/// descriptor number is never read or closed after it was reused). Order: delivery, then state.
public final class AcquiredNotifyPoller: Sendable {

    final class Registration: Sendable {
        let token: UInt64
        let fd: Int32
        let mtu: Int
        let stamped: Bool
        let batching: ReadBatching
        let onValues: @Sendable ([NotifyDatagram]) -> Void
        let onClosed: @Sendable () -> Void

        init(token: UInt64, fd: Int32, mtu: Int, stamped: Bool, batching: ReadBatching,
             onValues: @escaping @Sendable ([NotifyDatagram]) -> Void, onClosed: @escaping @Sendable () -> Void) {
            (self.token, self.fd, self.mtu, self.stamped, self.batching) = (token, fd, mtu, stamped, batching)
            (self.onValues, self.onClosed) = (onValues, onClosed)
        }
    }

    private struct State {
        var open: [UInt64: Registration] = [:]
        var nextToken: UInt64 = 1  // 0 is `stopToken`
        var started = false
        var stopping = false
        /// The longest pause any open socket asked for (they all share the thread).
        var batching = ReadBatching.off
    }
    private let state = Mutex(State())
    private let delivery = Mutex(())
    private let epfd: Int32
    private let runningThread = Atomic<Int32>(0)
    /// Readable when `stop()` was called: ends the thread's wait.
    private let stopSignal: WakeSignal
    private static let stopToken: UInt64 = 0

    /// Datagrams taken per `recvmmsg` call, and calls per socket per wake-up (a flooding socket then waits for the
    /// next round instead of starving the others).
    static let batchLimit = 32
    static let readsPerWake = 8

    public init() {
        epfd = clinux_epoll_create()
        precondition(epfd >= 0, "epoll_create1 failed: errno \(errno)")
        // A pipe and an epoll registration fail only when the process is out of descriptors.
        guard let stop = try? WakeSignal(), clinux_epoll_add(epfd, stop.descriptor, Self.stopToken) == 0 else {
            fatalError("the notify poller cannot create its stop signal: errno \(errno)")
        }
        stopSignal = stop
    }

    deinit { _ = Glibc.close(epfd) }

    /// Starts the thread (once); sockets registered before are read from then on.
    public func start() {
        let first = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        if first { startThread() }
    }

    /// The kernel id of the thread while it runs (nil before `start()` took effect and after `stop()` did).
    public var threadID: Int32? {
        let id = runningThread.load(ordering: .acquiring)
        return id == 0 ? nil : id
    }

    /// Ends the thread after the round it is in. Sockets still registered stay open until their owners close them.
    public func stop() {
        state.withLock { $0.stopping = true }
        stopSignal.signal()
    }

    /// Takes ownership of `fd` (made non-blocking) and starts reading it (once the thread runs: `start()`).
    func register(fd: Int32, mtu: Int, stamped: Bool, batching: ReadBatching,
                  onValues: @escaping @Sendable ([NotifyDatagram]) -> Void,
                  onClosed: @escaping @Sendable () -> Void) -> UInt64 {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 && flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // a child process holding it would keep BlueZ's session open
        let (token, failed) = state.withLock { s -> (UInt64, Bool) in
            let token = s.nextToken
            s.nextToken += 1
            let r = Registration(token: token, fd: fd, mtu: mtu, stamped: stamped, batching: batching,
                                 onValues: onValues, onClosed: onClosed)
            s.open[token] = r
            if batching.interval > s.batching.interval { s.batching = batching }
            if clinux_epoll_add(epfd, fd, token) != 0 {
                // Cannot watch it (not a socket?): end it as if BlueZ had closed it.
                s.open[token] = nil
                _ = Glibc.close(fd)
                return (token, true)
            }
            return (token, false)
        }
        if failed { onClosed() }
        return token
    }

    /// Stops reading `token`'s socket and closes it. After this returns no callback of it runs, unless called
    /// from one of its own callbacks (on the poller thread), where the callback in progress finishes.
    func close(_ token: UInt64) {
        state.withLock { s in
            guard let r = s.open.removeValue(forKey: token) else { return }
            _ = clinux_epoll_remove(epfd, r.fd)
            _ = Glibc.close(r.fd)
            s.batching = s.open.values.map(\.batching).max { $0.interval < $1.interval } ?? .off
        }
        if clinux_gettid() != runningThread.load(ordering: .acquiring) {
            delivery.withLock { _ in }  // waits out a callback in progress
        }
    }

    private func startThread() {
        let thread = Thread { [self] in
            clinux_set_thread_name("heartd-notify")  // Thread.name does not reach the kernel (top -H, perf)
            runningThread.store(clinux_gettid(), ordering: .releasing)
            run()
            runningThread.store(0, ordering: .releasing)
        }
        thread.name = "heartd.notify"
        thread.start()
    }

    private func run() {
        var batch = DatagramBatch(count: Self.batchLimit, capacity: 512)
        var tokens = [UInt64](repeating: 0, count: 64)
        var hangups = [Int32](repeating: 0, count: 64)
        var lastWake: UInt64 = 0
        while true {
            let n = Int(clinux_epoll_wait(epfd, &tokens, &hangups, 64, -1))
            if n < 0 { continue }  // EINTR
            var found = false
            for i in 0..<n {
                if tokens[i] == Self.stopToken {
                    stopSignal.clear()
                    if state.withLock({ $0.stopping }) { return }
                    continue
                }
                found = read(tokens[i], hangup: hangups[i] != 0, into: &batch) || found
            }
            guard found else { continue }
            let wake = MonotonicClock.nanoseconds()
            let batching = state.withLock { $0.batching }
            if batching.thresholds.shouldPause(wake: wake, lastWake: lastWake, pendingCalls: 0) {
                var none = pollfd(fd: -1, events: 0, revents: 0)  // a sleep: what arrives meanwhile is read together
                _ = poll(&none, 1, batching.pauseMilliseconds)
            }
            lastWake = wake
        }
    }

    /// Reads one ready socket until EAGAIN and delivers what it held; on EOF, HUP or an error it closes the socket
    /// and calls its `onClosed` after the last values. Whether data was found.
    private func read(_ token: UInt64, hangup: Bool, into batch: inout DatagramBatch) -> Bool {
        delivery.withLock { _ in
            let taken = state.withLock { s -> (Registration, [NotifyDatagram], Bool)? in
                guard let r = s.open[token] else { return nil }  // closed by its owner since epoll_wait
                if r.mtu > batch.capacity { batch = DatagramBatch(count: Self.batchLimit, capacity: r.mtu) }
                let (values, ended) = Self.drain(r, hangup: hangup, batch: &batch)
                if ended {
                    s.open[token] = nil
                    _ = clinux_epoll_remove(epfd, r.fd)
                    _ = Glibc.close(r.fd)
                }
                return (r, values, ended)
            }
            guard let (r, values, ended) = taken else { return false }
            if !values.isEmpty { r.onValues(values) }
            if ended { r.onClosed() }
            return !values.isEmpty
        }
    }

    /// The datagrams queued on `r`'s socket, oldest first, and whether the stream ended.
    private static func drain(_ r: Registration, hangup: Bool,
                              batch: inout DatagramBatch) -> ([NotifyDatagram], Bool) {
        var values: [NotifyDatagram] = []
        for _ in 0..<readsPerWake {
            let n = batch.receive(r.fd)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Empty. A hang-up with nothing left to read is the end (level-triggered epoll would repeat it).
                return (values, hangup && clinux_peer_closed(r.fd) != 0)
            }
            guard n > 0 else { return (values, true) }  // an error: this socket ends, the poller goes on
            let (count, ended) = batch.dataBeforeEndOfStream(r.fd, received: n)
            if count > 0 { values += batch.datagrams(count, stamped: r.stamped) }
            if ended { return (values, true) }
            // Fewer than asked for: the queue was empty when the call returned, so another call would only say
            // EAGAIN (a system call per wake-up); epoll is level-triggered and reports what arrives meanwhile.
            if n < batchLimit && !hangup { return (values, false) }
        }
        return (values, false)  // more may be queued: the next epoll_wait reports it again
    }
}
