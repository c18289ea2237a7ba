import Glibc
import Logging
import Posix
import Synchronization

/// Hands back the executable pages start-up left resident, once start-up has settled.
///
/// Start-up (the Swift runtime, argument parsing, the store's migrations and recovery, the D-Bus client, and each
/// sensor's connection: GATT discovery, the Device Information reads, the subscription, the first series) touches
/// pages all over the 70 MB static executable, each with up to 15 cached neighbours (the kernel's fault-around),
/// and almost none of them is read again while heartd captures: ~15 MB of a ~27 MB process. They are clean pages
/// of the file, which the kernel takes back on its own only under memory pressure; meanwhile `ps`, `top` and an
/// operator see a daemon twice its size. Once start-up has settled they are paged out (`ExecutableImage`): what
/// the steady state reads comes back on first use, once; nothing is lost.
///
/// A release costs ~10 ms of CPU (the kernel reclaiming ~4,000 pages) plus a few ms faulting the working set back,
/// so it happens only when it pays: when heartd has run `minimumUptime` and no start-up work (ready, a sensor
/// connected) came for `settle`, and, after the first, only if the process has grown by `regrowth` since the last
/// (a sensor reconnecting runs code already resident and triggers none). Measured in docs/BENCHMARKS.md ("Memory").
final class StartupPages: Sendable {
    struct Timing: Sendable {
        var settle: Duration = .seconds(10)
        var minimumUptime: Duration = .seconds(60)
        var regrowth: UInt64 = 4 << 20
    }

    private struct State {
        var work = 0
        /// The resident size the last release left; nil before the first.
        var lastAfter: UInt64?
    }

    private let timing: Timing
    private let started = ContinuousClock.now
    private let resident: @Sendable () -> UInt64?
    private let release: @Sendable () -> UInt64?
    private let state = Mutex(State())

    /// `resident` and `release` (returning the resident size after it) replace the process's own (tests).
    init(logger: Logger, timing: Timing = Timing(), resident: (@Sendable () -> UInt64?)? = nil,
         release: (@Sendable () -> UInt64?)? = nil) {
        self.timing = timing
        self.resident = resident ?? { ResidentMemory.bytes() }
        self.release = release ?? { Self.pageOut(logger: logger) }
    }

    /// Start-up work happened (heartd became ready, a sensor connected): consider a release `settle` after the last.
    func startupWork() {
        let mark = state.withLock { s in
            s.work += 1
            return s.work
        }
        let delay = max(timing.settle, timing.minimumUptime - (ContinuousClock.now - started))
        Task { [self] in
            try? await Task.sleep(for: delay)
            settled(mark)
        }
    }

    private func settled(_ mark: Int) {
        let due = state.withLock { s in
            guard s.work == mark else { return false }
            guard let last = s.lastAfter else { return true }
            return (resident() ?? 0) >= last + timing.regrowth
        }
        guard due, let after = release() else { return }
        state.withLock { $0.lastAfter = after }
    }

    private static func pageOut(logger: Logger) -> UInt64? {
        let before = ResidentMemory.bytes()
        do {
            let advised = try ExecutableImage.pageOutStartupPages()
            let after = ResidentMemory.bytes()
            logger.info("start-up pages paged out", metadata: [
                "advised_mb": "\(megabytes(advised))",
                "rss_before_mb": "\(before.map(megabytes) ?? "?")", "rss_after_mb": "\(after.map(megabytes) ?? "?")",
            ])
            return after
        } catch where error.errno == EINVAL {
            logger.debug("start-up pages kept: the kernel has no MADV_PAGEOUT (Linux < 5.4)")
        } catch {
            logger.notice("start-up pages kept", metadata: ["error": "\(error)"])
        }
        return nil
    }

    private static func megabytes(_ bytes: UInt64) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10)"
    }
}
