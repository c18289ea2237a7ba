internal import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One thread asleep on a timerfd until the earliest of a few deadlines (CLOCK_MONOTONIC seconds), instead of
/// periodic ticks: on this class of machine a thread wake-up costs ~150 µs of CPU, which at one notification a
/// second was most of what the daemon spent.
///
/// Each user owns a slot and replaces its deadline whenever it changes (`set`). Moving a deadline costs one
/// `timerfd_settime` (a syscall, no wake-up); a later deadline within `tolerance` of the armed one is not even
/// that: the timer then fires a little early and `fire` finds nothing due, which is harmless. It never fires
/// late. Each deadline fires once: slots whose time has come are cleared before `fire` runs on the timer's
/// thread, and `fire` sets them again as needed.
final class DeadlineTimer: Sendable {
    struct State {
        var slots: [Double?]
        var armed = Double.infinity
        var stopped = false
    }

    private let fd: Int32
    private let tolerance: Double
    private let state: Mutex<State>

    /// - Parameters:
    ///   - slots: how many independent deadlines.
    ///   - fire: called on the timer thread when the armed time has come, with the timer and CLOCK_MONOTONIC now.
    init(name: String, slots: Int, tolerance: Double = 0.25, fire: @escaping @Sendable (DeadlineTimer, Double) -> Void) throws {
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw DaemonError(.capture, "timerfd_create: \(String(cString: strerror(errno)))") }
        self.fd = fd
        self.tolerance = tolerance
        state = Mutex(State(slots: Array(repeating: nil, count: slots)))
        let thread = Thread { [self] in
            clinux_set_thread_name(name)
            var expirations: UInt64 = 0
            while true {
                let n = read(fd, &expirations, 8)
                if n < 0 && errno == EINTR { continue }
                let now = Self.now()
                let stop = state.withLock { s in
                    s.armed = .infinity
                    for i in s.slots.indices where (s.slots[i] ?? .infinity) <= now { s.slots[i] = nil }  // fired
                    return s.stopped
                }
                if stop || n < 0 { break }
                fire(self, now)
                rearm()
            }
            _ = close(fd)
        }
        thread.name = name
        thread.start()
    }

    /// Replaces the deadline of `slot` (`nil`: none).
    func set(_ slot: Int, _ deadline: Double?) {
        state.withLock { s in
            s.slots[slot] = deadline
            arm(&s)
        }
    }

    /// The time the timer is armed for (`infinity`: not armed). For tests.
    var armedDeadline: Double { state.withLock { $0.armed } }

    /// Stops the thread (it closes the descriptor). Idempotent.
    func stop() {
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            _ = clinux_timerfd_arm(fd, 0)
        }
    }

    private func rearm() {
        state.withLock { s in
            // A slot set in the past by `fire` would fire again at once, forever: hold it back a little.
            let floor = Self.now() + min(tolerance, 0.05)
            for i in s.slots.indices { if let d = s.slots[i], d < floor { s.slots[i] = floor } }
            arm(&s)
        }
    }

    private func arm(_ s: inout State) {
        guard !s.stopped else { return }
        let target = s.slots.reduce(Double.infinity) { min($0, $1 ?? .infinity) }
        guard target < s.armed || (target > s.armed + tolerance) else { return }
        guard target.isFinite else { return }  // nothing to wait for; an earlier arming firing early is harmless
        if clinux_timerfd_arm(fd, target) == 0 { s.armed = target }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
