import Control
import Foundation
import Posix
import Synchronization

/// Where the control socket's store reads run: each on a thread of its own at a lower CPU priority (nice 10,
/// `SCHED_BATCH`), at most `limit` at once (`[control] max_reads`); one more is refused with `busy` rather than
/// queued. So a heavy read (a year's `report`, seconds of CPU) never holds one of the task pool's threads, and on a
/// busy 2-core gateway the scheduler gives capture — D-Bus, the pipeline, `watch` — the CPU first
/// (`heartbench scale`, the notification-latency row; docs/BENCHMARKS.md).
final class StoreReadThreads: Sendable {
    /// The nice value of a read's thread (Linux: a per-thread attribute; raising it needs no privilege).
    static let niceness: Int32 = 10

    let limit: Int
    private let running = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` on a new low-priority thread and returns its answer; `busy` when `limit` reads already run.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws(ControlError) -> T) async throws(ControlError) -> T {
        guard running.add(1, ordering: .acquiringAndReleasing).newValue <= limit else {
            running.subtract(1, ordering: .acquiringAndReleasing)
            throw ControlError(.busy, "\(limit) store read(s) already in progress ([control] max_reads = \(limit)); try again")
        }
        let result: Result<T, ControlError> = await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                CurrentThread.setName("heartd-read")
                CurrentThread.setBatchScheduling()
                CurrentThread.setNice(Self.niceness)
                let answer = Result { () throws(ControlError) -> T in try body() }
                running.subtract(1, ordering: .acquiringAndReleasing)
                continuation.resume(returning: answer)
            }
            thread.start()
        }
        return try result.get()
    }
}
