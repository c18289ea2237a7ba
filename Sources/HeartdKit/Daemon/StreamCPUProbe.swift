import Foundation
import Synchronization
import Glibc
import Posix

/// For benchmarks (`heartd --print-received`): the process's CPU time between its first and its last heart-rate
/// value, read from CLOCK_PROCESS_CPUTIME_ID, which counts every thread, also those that have exited.
///
/// Why not only shared/bench's figure: it sums `/proc/PID/task/*/schedstat` of the threads alive at the two ends
/// of its window, so the CPU of a thread that exits inside the window is subtracted. libdispatch's idle worker
/// threads exit a few seconds after heartd's start-up work, inside the stream: at one notification a second the
/// harness then reports ~0 or even negative CPU for heartd.
public final class StreamCPUProbe: Sendable {
    struct State {
        var first: Double?
        var last: Double?
        var seen = 0
        var values = 0  // after the first, up to `last`
        var readAt = -Double.infinity  // CLOCK_MONOTONIC of the last reading
    }

    private let state = Mutex(State())
    /// Seconds between readings at low rates.
    let interval: Double
    private let cpuClock: @Sendable () -> Double

    /// - Parameters:
    ///   - interval: seconds between two readings of the CPU clock (at least; every 64th value is read too).
    ///   - cpuClock: the process's CPU seconds (tests inject one).
    public init(interval: Double = 4, cpuClock: @escaping @Sendable () -> Double = { ProcessCPUClock.now() }) {
        self.interval = interval
        self.cpuClock = cpuClock
    }

    /// One more value handled (called on the pipeline, under its lock) at CLOCK_MONOTONIC `now`. Reads the CPU
    /// clock (a system call, measured with the rest) at the first value, then only once `interval` has passed
    /// since the last reading or at every 64th value: at one value a second a reading every few values, not one
    /// per value, and next to nothing at high rates. The values after the last reading are left out of the
    /// summary, with their CPU.
    public func value(now: Double = MonotonicClock.now()) {
        state.withLock { s in
            s.seen += 1
            guard s.seen == 1 || s.seen % 64 == 0 || now - s.readAt >= interval else { return }
            s.readAt = now
            let cpu = cpuClock()
            if s.first == nil { s.first = cpu } else { s.last = cpu; s.values = s.seen - 1 }
        }
    }

    /// `stream_cpu_us=… stream_values=…` (CPU from the first value to the last one sampled, and the values after
    /// the first up to that one), or nil before two values.
    public var summary: String? {
        state.withLock { s in
            guard let first = s.first, let last = s.last, s.values > 0 else { return nil }
            return String(format: "stream_cpu_us=%.0f stream_values=%d", (last - first) * 1e6, s.values)
        }
    }
}
