import Posix

/// One thread of the pool: what it parks on, whether it is one of the threads kept for good, and when the job it
/// runs started.
final class Worker: @unchecked Sendable {
    let parker = ThreadParker()
    let kept: Bool
    /// CLOCK_MONOTONIC nanoseconds; read and written only under the pool's mutex (hence `@unchecked`).
    var jobStarted: UInt64 = 0

    init(kept: Bool) { self.kept = kept }
}
