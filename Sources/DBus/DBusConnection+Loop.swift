internal import CDBus
internal import CLinux
import Dispatch
import Foundation
import Glibc
import Posix

/// Wires libdbus into Dispatch. Everything here runs on `queue`.
extension DBusConnection {
    func startLoop() {
        guard let raw else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let filter: DBusHandleMessageFunction = { _, msg, user in
            guard let msg, let user else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().handleIncoming(msg)
        }
        _ = dbus_connection_add_filter(raw, filter, me, nil)
        installTimeouts(raw, me)
        installWatches(raw, me)
        let status: DBusDispatchStatusFunction = { _, newStatus, user in
            guard newStatus == DBUS_DISPATCH_DATA_REMAINS, let user else { return }
            Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().scheduleDrain()
        }
        dbus_connection_set_dispatch_status_function(raw, status, me, nil)

        var fd: Int32 = -1
        guard dbus_connection_get_unix_fd(raw, &fd) != 0 else {
            shutdown(reason: "no socket")
            return
        }
        startReader(fd: fd)
        drain()  // messages buffered during connect (e.g. NameAcquired)
    }

    /// Waits for the bus socket on a thread of its own and reads and dispatches *on that thread* through
    /// `queue.sync` (which runs the block on the calling thread when the queue is free), so every libdbus call
    /// still happens on the connection's serial queue. A DispatchSource would cost two thread wake-ups per
    /// message on Linux (the epoll manager thread, then a worker) plus re-arming the fd: measured 4 context
    /// switches and ~240 µs of CPU per notification signal, against about one switch this way.
    private func startReader(fd: Int32) {
        var wake: [Int32] = [-1, -1]
        // A socket pair, not a pipe: waking a reader that already left must not raise SIGPIPE (MSG_NOSIGNAL).
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &wake) == 0 else {
            shutdown(reason: "cannot create the reader's wake-up socket pair: errno \(errno)")
            return
        }
        readerWakeFD = wake[1]
        let wakeRead = wake[0]
        // Strong on purpose: the reader keeps the connection alive until close() or loss (shutdown wakes it).
        let thread = Thread { [self] in
            clinux_set_thread_name("heartd-dbus")  // Thread.name does not reach the kernel (top -H, perf)
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var lastWake: UInt64 = 0
            let pause = batching.thresholds
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                // A safety timeout: a message libdbus read during another call on the queue is dispatched through
                // the dispatch-status callback; should one ever be left behind, it waits at most this long. Long,
                // because every wake-up costs (≥ 25 µs here), and nothing has ever been found left behind.
                let n = poll(&fds, 2, 30_000)
                if n < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if fds[1].revents != 0 || fds[0].revents & Int16(POLLNVAL) != 0 { break }
                let wake = MonotonicClock.nanoseconds()
                // The non-generic `sync` (a Void block): the generic one costs a few thunks more per wake-up.
                var alive = false
                queue.sync {
                    guard raw != nil else { return }
                    readAndDispatch(fd: fd)
                    alive = raw != nil
                }
                if !alive { break }
                guard n > 0 else { continue }  // the safety timeout says nothing about how busy the bus is
                wakeups.add(1, ordering: .relaxed)
                if pause.shouldPause(wake: wake, lastWake: lastWake, pendingCalls: pendingCalls.load(ordering: .relaxed)) {
                    // Busy: let messages gather in the socket for one interval and take them in one wake-up.
                    var w = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
                    if poll(&w, 1, batching.pauseMilliseconds) > 0 { break }
                }
                lastWake = wake
            }
            _ = Glibc.close(wakeRead)
        }
        thread.name = "heartd.dbus-reader"
        thread.start()
    }

    private func readAndDispatch(fd: Int32) {
        guard let raw else { return }
        // libdbus reads at most 2 KiB per call (about ten notification signals): keep reading and dispatching
        // while the socket has more, or a reader that pauses between wake-ups would fall behind a busy bus.
        // Bounded, so that calls queued behind this block still get their turn.
        for _ in 0..<256 {
            // The drain below handles what this read brings: no separate drain block (another thread wake-up).
            readingInline = true
            let (alive, drained) = readSocket(raw)
            readingInline = false
            drain()
            if !alive || dbus_connection_get_is_connected(raw) == 0 {
                shutdown(reason: "connection lost")
                return
            }
            // Emptied: what arrives from now on wakes the reader's poll (no poll(0) per message here).
            if drained { return }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0, p.revents & Int16(POLLIN) != 0 else { return }
        }
    }

    func scheduleDrain() {
        // Called from inside libdbus (possibly during dispatch): never dispatch re-entrantly.
        guard !drainScheduled, !readingInline else { return }
        drainScheduled = true
        queue.async { [self] in
            drainScheduled = false
            drain()
        }
    }

    func drain() {
        guard let raw else { return }
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    /// Stops the loop, fails what waits, finishes every signal stream. Idempotent.
    func shutdown(reason: String) {
        guard let raw else { return }
        if readerWakeFD >= 0 {
            var byte: UInt8 = 1
            _ = send(readerWakeFD, &byte, 1, Int32(MSG_NOSIGNAL))  // the reader leaves its poll, then closes its end
            _ = Glibc.close(readerWakeFD)
            readerWakeFD = -1
        }
        if dbus_connection_get_is_connected(raw) != 0 { dbus_connection_close(raw) }
        // Deliver what libdbus queued on close: error replies for pending calls, the Local.Disconnected signal.
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        self.raw = nil
        dbus_connection_unref(raw)
        let (subs, waiters) = shared.withLock { s -> ([SignalSubscriber], [CheckedContinuation<Void, Never>]) in
            s.connected = false
            defer { s.subscriptions = [:]; s.disconnectWaiters = [] }
            return (Array(s.subscriptions.values), s.disconnectWaiters)
        }
        logger.debug("dbus connection ended", metadata: ["reason": .string(reason)])
        for s in subs { s.finish() }
        for w in waiters { w.resume() }
    }

    /// The filter: every incoming message passes here once.
    func handleIncoming(_ msg: OpaquePointer) -> DBusHandlerResult {
        guard dbus_message_get_type(msg) == CDBUS_MESSAGE_TYPE_SIGNAL else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        if let tap = shared.withLock({ $0.propertyTap }), tap.consume(msg) { return DBUS_HANDLER_RESULT_HANDLED }
        guard let pathP = dbus_message_get_path(msg),
              let ifaceP = dbus_message_get_interface(msg),
              let memberP = dbus_message_get_member(msg) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let path = String(cString: pathP)
        let interface = String(cString: ifaceP)
        let member = String(cString: memberP)
        if interface == "org.freedesktop.DBus.Local" && member == "Disconnected" {
            // Shut down after this dispatch round returns (we are inside dbus_connection_dispatch).
            queue.async { [self] in shutdown(reason: "disconnected") }
            return DBUS_HANDLER_RESULT_HANDLED
        }
        let sender = dbus_message_get_sender(msg).map { String(cString: $0) }
        let subs = shared.withLock { $0.subscriberList }
        var arguments: [DBusValue]? = nil
        for sub in subs {
            var hit = false
            for rule in sub.rules where rule.matchesHeader(sender: sender, path: path, interface: interface, member: member) {
                if rule.needsArguments {
                    if arguments == nil { arguments = MessageDecoder.decodeBody(msg) }
                    if let arguments, !rule.matchesArguments(arguments) { continue }
                }
                hit = true
                break
            }
            guard hit else { continue }
            if arguments == nil { arguments = MessageDecoder.decodeBody(msg) }
            sub.deliver(DBusSignal(sender: sender, path: path, interface: interface, member: member,
                                   arguments: arguments ?? []))
        }
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    // MARK: - libdbus timeouts → DispatchSourceTimer

    private func installTimeouts(_ raw: OpaquePointer, _ me: UnsafeMutableRawPointer) {
        let add: DBusAddTimeoutFunction = { t, user in
            guard let t, let user else { return 0 }
            Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().armTimeout(t)
            return 1
        }
        let remove: DBusRemoveTimeoutFunction = { t, _ in
            guard let t, let d = dbus_timeout_get_data(t) else { return }
            Unmanaged<TimeoutTimer>.fromOpaque(d).takeUnretainedValue().cancel()
        }
        let toggled: DBusTimeoutToggledFunction = { t, user in
            guard let t, let user else { return }
            Unmanaged<DBusConnection>.fromOpaque(user).takeUnretainedValue().armTimeout(t)
        }
        _ = dbus_connection_set_timeout_functions(raw, add, remove, toggled, me, nil)
    }

    /// (Re)arms the timer of a libdbus timeout according to its enabled flag and interval.
    private func armTimeout(_ t: OpaquePointer) {
        if let d = dbus_timeout_get_data(t) {
            Unmanaged<TimeoutTimer>.fromOpaque(d).takeUnretainedValue().cancel()
        }
        guard dbus_timeout_get_enabled(t) != 0 else { return }
        let ms = Int(max(1, dbus_timeout_get_interval(t)))
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(ms), repeating: .milliseconds(ms), leeway: .milliseconds(1))
        let handle = TimeoutHandle(t)
        timer.setEventHandler { [self] in  // cancelled by libdbus (remove/free) before the connection ends
            _ = dbus_timeout_handle(handle.raw)
            drain()
        }
        timer.resume()
        // set_data frees the previous box (its free function cancels that timer too).
        dbus_timeout_set_data(t, Unmanaged.passRetained(TimeoutTimer(timer)).toOpaque()) { d in
            guard let d else { return }
            let box = Unmanaged<TimeoutTimer>.fromOpaque(d)
            box.takeUnretainedValue().cancel()
            box.release()
        }
    }
}

/// A libdbus timeout pointer captured by a timer handler; only dereferenced on the queue,
/// and the timer is cancelled (on the queue) before libdbus frees the timeout.
struct TimeoutHandle: @unchecked Sendable {
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
}

final class TimeoutTimer {
    let timer: DispatchSourceTimer
    init(_ timer: DispatchSourceTimer) { self.timer = timer }
    func cancel() { if !timer.isCancelled { timer.cancel() } }
}
