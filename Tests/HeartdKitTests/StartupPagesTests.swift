@testable import HeartdKit
import Logging
import Synchronization
import Testing

@Suite struct StartupPagesTests {
    /// A process whose resident size the test sets, and which counts the releases (each leaves `afterRelease`).
    final class Process: Sendable {
        let releases = Atomic<Int>(0)
        let residentBytes = Atomic<UInt64>(20 << 20)
        let afterRelease: UInt64 = 10 << 20
        var count: Int { releases.load(ordering: .relaxed) }

        func pages(settle: Duration = .milliseconds(200), minimumUptime: Duration = .zero) -> StartupPages {
            StartupPages(logger: Logger(label: "test"),
                         timing: .init(settle: settle, minimumUptime: minimumUptime, regrowth: 4 << 20),
                         resident: { self.residentBytes.load(ordering: .relaxed) },
                         release: {
                             self.releases.add(1, ordering: .relaxed)
                             self.residentBytes.store(self.afterRelease, ordering: .relaxed)
                             return self.afterRelease
                         })
        }
    }

    @Test func startupWorkInABurstReleasesOnceAfterTheLast() async throws {
        let process = Process()
        let startup = process.pages()
        // Ready, then 16 sensors connecting: one page-out, after the last, not one per event.
        for _ in 0..<17 { startup.startupWork() }
        try await Task.sleep(for: .seconds(1.2))
        #expect(process.count == 1)
    }

    @Test func startupWorkWhileWaitingPostponesTheRelease() async throws {
        let process = Process()
        let startup = process.pages(settle: .milliseconds(800))
        startup.startupWork()
        try await Task.sleep(for: .milliseconds(300))
        startup.startupWork()  // a sensor connected before start-up settled: its set-up pages are start-up too
        try await Task.sleep(for: .milliseconds(600))
        #expect(process.count == 0, "900 ms after the first work, 600 ms after the second: not settled yet")
        try await Task.sleep(for: .milliseconds(1500))
        #expect(process.count == 1)
    }

    @Test func laterWorkReleasesAgainOnlyWhenTheProcessGrewBack() async throws {
        let process = Process()
        let startup = process.pages()
        startup.startupWork()
        try await Task.sleep(for: .seconds(1))
        #expect(process.count == 1)
        // A reconnection that ran resident code: grown by 1 MB, not worth ~10 ms of reclaim.
        process.residentBytes.store(process.afterRelease + (1 << 20), ordering: .relaxed)
        startup.startupWork()
        try await Task.sleep(for: .seconds(1))
        #expect(process.count == 1)
        // New kinds of work brought 5 MB back: released again.
        process.residentBytes.store(process.afterRelease + (5 << 20), ordering: .relaxed)
        startup.startupWork()
        try await Task.sleep(for: .seconds(1))
        #expect(process.count == 2)
    }

    @Test func nothingIsReleasedBeforeTheMinimumUptime() async throws {
        let process = Process()
        let startup = process.pages(settle: .milliseconds(100), minimumUptime: .milliseconds(1500))
        startup.startupWork()
        try await Task.sleep(for: .milliseconds(700))
        #expect(process.count == 0, "a short run (a test, a restart loop) never pays for a release")
        try await Task.sleep(for: .seconds(2))
        #expect(process.count == 1)
    }
}
