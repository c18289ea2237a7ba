@testable import Capture
import BlueZ
import DBus
import Foundation
import SourceEvents
import Testing

/// CPU of this process per notification while the fake streams (set HEARTD_BENCH=1 to run; prints the numbers).
/// Includes the test's own event collector; the fake and the bus run in other processes.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HEARTD_BENCH"] == "1"), .serialized)
struct CPUBenchTests {
    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }

    @Test(arguments: [SubscribeMode.startNotify, .acquireNotify], [false, true])
    func cpuPerNotification(mode: SubscribeMode, handler: Bool) async throws {
        try await measure(mode: mode, handler: handler, rate: 100, count: 1000)
        try await measure(mode: mode, handler: handler, rate: 1000, count: 10000)
    }

    func measure(mode: SubscribeMode, handler: Bool, rate: Double, count: Int) async throws {
        var onEvent: (@Sendable (SourceEvent) -> Void)? = nil
        if handler { onEvent = { _ in } }
        let h = try await Harness(policy: fastPolicy(mode: mode), onEvent: onEvent)
        h.start(keepEvents: false)
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 || $0["fd_open"] == 1 }
        try await Task.sleep(for: .milliseconds(300))
        let cpu0 = Self.cpuSeconds()
        try await h.ctl("Stream", [.string(addrA), .double(rate), .uint32(UInt32(count))])
        let deadline = Date().addingTimeInterval(Double(count) / rate + 10)
        while h.capture.status().devices.first?.notifications ?? 0 < count && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let cpu = Self.cpuSeconds() - cpu0
        print("BENCH mode=\(mode.rawValue) handler=\(handler) rate=\(Int(rate)) n=\(count) cpu_ms=\(String(format: "%.1f", cpu * 1000)) us_per_notif=\(String(format: "%.1f", cpu / Double(count) * 1e6))")
        #expect(h.capture.status().devices.first?.notifications == count)
        await h.stop()
    }
}

extension CPUBenchTests {
    /// Idle cost while connected and subscribed (timers, polling): should be ~0.
    @Test func idleCPUWhileConnected() async throws {
        let h = try await Harness(policy: fastPolicy(silent: 10))
        h.start(keepEvents: false)
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        let cpu0 = Self.cpuSeconds()
        try await Task.sleep(for: .seconds(5))
        let cpu = Self.cpuSeconds() - cpu0
        print("BENCH idle cpu_ms_per_s=\(String(format: "%.2f", cpu * 1000 / 5))")
        await h.stop()
    }
}
