import CLinux
import Glibc

/// Parks one thread until another unparks it or a CLOCK_MONOTONIC deadline passes: a POSIX semaphore (a futex
/// underneath: an `unpark` of a thread that is not waiting is a few atomic instructions, one of a parked thread one
/// `futex` wake, and the parked thread costs nothing while it waits — no timeout unless asked, no periodic wake).
/// For pools of threads that sleep until there is work; unlike `WakeSignal` it holds no file descriptor.
///
/// Unparks are counted: one given before `park` makes that `park` return at once (none is lost), and two given
/// before it make the next two return at once — users re-check their own state after every wake-up anyway.
public final class ThreadParker: @unchecked Sendable {
    // sem_post and sem_wait are safe from any thread; the semaphore needs a stable address, so it is allocated.
    private let semaphore: UnsafeMutablePointer<sem_t>

    public init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes the parked thread (or lets the next `park` return at once).
    public func unpark() {
        sem_post(semaphore)
    }

    /// Blocks until unparked or until `deadline` (CLOCK_MONOTONIC nanoseconds, `MonotonicClock.nanoseconds()`;
    /// nil: no limit). Returns whether it was unparked.
    @discardableResult
    public func park(until deadline: UInt64? = nil) -> Bool {
        let limit = deadline.map { Int64(clamping: $0) } ?? -1
        return clinux_sem_wait_until(semaphore, limit) == 1
    }
}
