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
    }

    private let state = Mutex(State())

    public init() {}

    /// One more value handled (called on the pipeline, under its lock). Reads the clock (a system call) at each
    /// of the first 64 values and then at every 64th, so that measuring costs next to nothing at high rates.
    public func value() {
        state.withLock { s in
            s.seen += 1
            guard s.seen <= 64 || s.seen % 64 == 0 else { return }
            let cpu = Self.processCPUSeconds()
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

    static func processCPUSeconds() -> Double { ProcessCPUClock.now() }
}
