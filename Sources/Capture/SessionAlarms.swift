import Synchronization
import Timers

/// The device sessions' deadlines on one timer thread: a session's own wake-up (a wait's timeout, the end of a
/// pause or back-off) and its silent-stop deadline, which the notify path pushes back with every value. While
/// values flow nothing wakes but the thread that reads them (a pushed-back deadline is a syscall at most);
/// the timer only fires when a sensor falls silent or a wait ends. A fired key becomes a `.tick` in the
/// session's inbox.
final class SessionAlarms: Sendable {
    final class Inboxes: Sendable {
        let byID = Mutex<[Int: AsyncStream<SessionSignal>.Continuation]>([:])
    }

    private let inboxes = Inboxes()
    private let timer: DeadlineTimer

    init() throws(DeadlineTimerError) {
        let inboxes = self.inboxes
        timer = try DeadlineTimer(name: "heartd-alarms", tolerance: 0.05) { _, _, keys in
            let due = inboxes.byID.withLock { all in keys.compactMap { all[$0 / 2] } }
            for inbox in due { inbox.yield(.tick) }
        }
    }

    deinit { timer.stop() }

    func register(session id: Int, inbox: AsyncStream<SessionSignal>.Continuation) {
        inboxes.byID.withLock { $0[id] = inbox }
    }

    func unregister(session id: Int) {
        inboxes.byID.withLock { $0[id] = nil }
        timer.set(2 * id, nil)
        timer.set(2 * id + 1, nil)
    }

    /// The session's own wake-up (replaces the previous one).
    func wake(session id: Int, at deadline: Double?) {
        timer.set(2 * id, deadline)
    }

    /// The session's silent-stop deadline (replaces the previous one).
    func silence(session id: Int, at deadline: Double?) {
        timer.set(2 * id + 1, deadline)
    }

    func stop() { timer.stop() }
}
