internal import CLinux
import Foundation
import Synchronization
import Glibc
import Posix

/// One thread asleep on a timerfd until the earliest of any number of keyed deadlines (CLOCK_MONOTONIC
/// seconds), instead of periodic ticks: a bare thread wake-up costs this VM ~25 µs of CPU and a wake-up that runs
/// Swift code cold several times that, which at one notification a second was most of what the daemon spent.
///
/// Each user owns keys and replaces a key's deadline whenever it changes (`set`). Moving a deadline earlier costs
/// one `timerfd_settime` (a syscall, no wake-up). Moving it later mostly costs nothing: the armed time is kept
/// while the new deadline is within `tolerance` of it, or within half the time the armed time still has to run
/// (`laterSlack`). A deadline pushed back by every value (a silent-stop or idle timeout, seconds ahead) is thus
/// re-armed every few values instead of at each one, and the armed time stays well ahead of the next value, so
/// a steady stream wakes nothing. When it does fire early, `fire` gets no key for it and the timer is armed
/// again for the real deadline. It never fires late. Each deadline fires once: due keys are cleared before
/// `fire` runs (on the timer's thread) with them.
public final class DeadlineTimer: Sendable {
    struct State {
        var deadlines: [Int: Double] = [:]
        var armed = Double.infinity
        var stopped = false
    }

    private let fd: Int32
    private let tolerance: Double
    private let state = Mutex(State())

    /// - Parameters:
    ///   - name: the thread's name (top -H, perf).
    ///   - tolerance: how much later than the armed time a deadline may always move without re-arming (see
    ///     `laterSlack` for the part relative to the time remaining).
    ///   - fire: called on the timer thread with the timer, CLOCK_MONOTONIC now and the keys that came due
    ///     (possibly none: an early wake-up).
    public init(name: String, tolerance: Double = 0.25,
                fire: @escaping @Sendable (DeadlineTimer, Double, [Int]) -> Void) throws(DeadlineTimerError) {
        let fd = clinux_timerfd_create()
        guard fd >= 0 else { throw DeadlineTimerError(errno: errno) }
        self.fd = fd
        self.tolerance = tolerance
        let thread = Thread { [self] in
            clinux_set_thread_name(name)
            var expirations: UInt64 = 0
            while true {
                let n = read(fd, &expirations, 8)
                if n < 0 && errno == EINTR { continue }
                let now = Self.now()
                let (stop, due) = state.withLock { s -> (Bool, [Int]) in
                    s.armed = .infinity
                    let due = s.deadlines.filter { $0.value <= now }.map(\.key).sorted()
                    for key in due { s.deadlines[key] = nil }
                    return (s.stopped, due)
                }
                if stop || n < 0 { break }
                fire(self, now, due)
                rearm()
            }
            _ = close(fd)
        }
        thread.name = name
        thread.start()
    }

    /// Replaces the deadline of `key` (`nil`: none).
    public func set(_ key: Int, _ deadline: Double?) {
        state.withLock { s in
            s.deadlines[key] = deadline
            arm(&s)
        }
    }

    /// The time the timer is armed for (`infinity`: not armed).
    public var armedDeadline: Double { state.withLock { $0.armed } }

    /// Stops the thread (it closes the descriptor). Idempotent.
    public func stop() {
        state.withLock { s in
            guard !s.stopped else { return }
            s.stopped = true
            _ = clinux_timerfd_arm(fd, 0)
        }
    }

    private func rearm() {
        state.withLock { s in
            // A deadline set in the past by `fire` would fire again at once, forever: hold it back a little.
            let floor = Self.now() + min(tolerance, 0.05)
            for (key, d) in s.deadlines where d < floor { s.deadlines[key] = floor }
            arm(&s)
        }
    }

    private func arm(_ s: inout State) {
        guard !s.stopped else { return }
        let target = s.deadlines.values.min() ?? .infinity
        guard target.isFinite else { return }  // nothing to wait for; an earlier arming firing early is harmless
        if target >= s.armed {
            guard target > s.armed + tolerance else { return }
            guard target > s.armed + Self.laterSlack(armed: s.armed, now: Self.now()) else { return }
        }
        if clinux_timerfd_arm(fd, target) == 0 { s.armed = target }
    }

    /// How much later than the armed time a deadline may move, besides `tolerance`, without re-arming: half the
    /// time the armed time still has to run. Keeping it then costs at most one early wake-up (which re-arms) if
    /// the values stop, and none while the next value comes before twice the last move has passed.
    static func laterSlack(armed: Double, now: Double) -> Double {
        max(0, armed - now) / 2
    }

    /// CLOCK_MONOTONIC in seconds (the clock deadlines are given in).
    public static func now() -> Double { MonotonicClock.now() }
}

/// The timer could not be created.
public struct DeadlineTimerError: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "timerfd_create: \(errnoText(errno))" }
}
