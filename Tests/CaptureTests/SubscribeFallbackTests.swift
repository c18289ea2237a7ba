@testable import Capture
import DBus
import LogFields
import SourceEvents
import Systemd
import Testing

/// AcquireNotify refused by BlueZ (fake_bluez.py `RefuseAcquire`/`SetAcquireBusy`): the connection is captured
/// with StartNotify — no error, no back-off —, the fallback is logged once per connection with its reason and
/// counted, status shows the subscription in use, and the next connection asks for AcquireNotify again.
@Suite struct SubscribeFallbackTests {
    struct Refusal: Sendable, CustomStringConvertible {
        let name: String
        let message: String
        let reason: SubscribeFallbackReason
        var description: String { name }
    }

    /// What bluetoothd 5.66 answers AcquireNotify with (src/gatt-client.c), and a BlueZ without the method.
    static let refusals = [
        Refusal(name: "org.bluez.Error.NotPermitted", message: "Notify acquired", reason: .notifyAcquired),
        Refusal(name: "org.bluez.Error.InProgress", message: "In Progress", reason: .inProgress),
        Refusal(name: "org.bluez.Error.NotSupported", message: "Operation is not supported", reason: .notSupported),
        Refusal(name: "org.bluez.Error.Failed", message: "Failed to subscribe", reason: .failed),
        Refusal(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "Method \"AcquireNotify\" doesn't exist",
                reason: .unknownMethod),
    ]

    static func fallbackLines(_ lines: LineRecorder) -> [LineRecorder.Line] {
        lines.lines.filter { $0.metadata[LogField.messageID.key] == .string(MessageID.subscribeFallback.hex) }
    }

    @Test(arguments: refusals)
    func aRefusedSensorIsCapturedWithStartNotify(_ refusal: Refusal) async throws {
        let lines = LineRecorder()
        let h = try await Harness(policy: fastPolicy(mode: .acquireNotify), lines: lines)
        try await h.ctl("RefuseAcquire", [.string(addrA), .string(refusal.name), .string(refusal.message)])
        h.start()
        _ = try await h.waitStats(addrA, "StartNotify") { $0["subscribed"] == 1 }
        for i in 0..<5 { try await h.notify(addrA, [0x00, UInt8(60 + i)]) }
        try await h.log.wait("values") { $0.notifications(addrA).count == 5 }
        #expect(h.log.all.notifications(addrA) == (0..<5).map { [0x00, UInt8(60 + $0)] })
        let stats = try await h.stats(addrA)
        #expect(stats["acquire_refused"] == 1 && stats["acquire_notify"] == 0 && stats["fd_open"] == 0)
        let dev = try #require(h.capture.status().devices.first)
        #expect(dev.state == .streaming)
        #expect(dev.subscribeMode == .startNotify)
        #expect(dev.subscribeFallback == refusal.reason)
        #expect(dev.subscribeFallbacks == 1)
        // a refusal is no fault of the sensor: no failed attempt, no back-off, no error
        #expect(dev.reconnects == 0 && dev.lastError == nil)
        #expect(h.log.all.disconnects(addrA).isEmpty)
        let logged = Self.fallbackLines(lines)
        #expect(logged.count == 1)
        #expect(logged.first?.metadata["reason"] == .string(refusal.reason.rawValue))
        #expect(logged.first?.metadata[LogField.device.key] == .string(addrA))
        #expect(logged.first?.metadata[LogField.adapter.key] == "hci0")
        #expect(logged.first.map { "\($0.metadata["error"] ?? "")".contains(refusal.name) } == true)
        await h.stop()
    }

    /// Each connection asks for AcquireNotify again, falls back and logs at most once (a re-subscribe after a silent
    /// stop asks again without a second line), and uses the socket as soon as BlueZ gives it.
    @Test func everyConnectionAsksAgainAndLogsOnce() async throws {
        let lines = LineRecorder()
        let h = try await Harness(policy: fastPolicy(mode: .acquireNotify, silent: 2), lines: lines)
        try await h.ctl("RefuseAcquire", [.string(addrA), .string("org.bluez.Error.NotPermitted"), .string("Notify acquired")])
        h.start()
        _ = try await h.waitStats(addrA, "StartNotify") { $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 60])
        try await h.log.wait("value") { $0.notifications(addrA).count == 1 }
        // silent past the timeout: re-subscribed on the same connection, refused again, one line still
        _ = try await h.waitStats(addrA, "re-subscribe", timeout: 8) { $0["acquire_refused"] == 2 && $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 61])
        try await h.log.wait("value after re-subscribe") { $0.notifications(addrA).count == 2 }
        var dev = try #require(h.capture.status().devices.first)
        #expect(dev.silentStopRecoveries == 1 && dev.subscribeFallbacks == 1 && dev.subscribeMode == .startNotify)
        #expect(Self.fallbackLines(lines).count == 1)
        // the next connection: refused again, logged and counted again
        try await h.ctl("DropLink", [.string(addrA)])
        _ = try await h.waitStats(addrA, "second connection") { $0["acquire_refused"] == 3 && $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 62])
        try await h.log.wait("value on the second connection") { $0.notifications(addrA).count == 3 }
        dev = try #require(h.capture.status().devices.first)
        #expect(dev.subscribeFallbacks == 2 && dev.subscribeFallback == .notifyAcquired)
        #expect(Self.fallbackLines(lines).count == 2)
        // BlueZ gives the socket now: the third connection uses it
        try await h.ctl("RefuseAcquire", [.string(addrA), .string(""), .string("")])
        try await h.ctl("DropLink", [.string(addrA)])
        _ = try await h.waitStats(addrA, "AcquireNotify") { $0["acquire_notify"] == 1 && $0["fd_open"] == 1 }
        try await h.notify(addrA, [0x00, 63])
        try await h.log.wait("value through the socket") { $0.notifications(addrA).count == 4 }
        dev = try #require(h.capture.status().devices.first)
        #expect(dev.subscribeMode == .acquireNotify && dev.subscribeFallback == nil && dev.subscribeFallbacks == 2)
        #expect(dev.reconnects == 2, "the two dropped links, nothing else: \(dev)")
        #expect(Self.fallbackLines(lines).count == 2)
        #expect(h.log.all.notifications(addrA) == (60...63).map { [0x00, UInt8($0)] })
        await h.stop()
    }

    /// A connection fell back, then its link was lost (no StopNotify then) while bluetoothd kept its StartNotify
    /// session (a bonded device): the next connection's AcquireNotify finds that session of ours in the way
    /// (InProgress), ends it and acquires, instead of falling back on its own leftover for good.
    @Test func ourOwnLeftoverSessionDoesNotKeepUsOnStartNotify() async throws {
        let h = try await Harness(policy: fastPolicy(mode: .acquireNotify))
        try await h.ctl("KeepSessions", [.string(addrA), .bool(true)])
        try await h.ctl("RefuseAcquire", [.string(addrA), .string("org.bluez.Error.NotPermitted"), .string("Notify acquired")])
        h.start()
        _ = try await h.waitStats(addrA, "StartNotify") { $0["subscribed"] == 1 }
        try await h.ctl("RefuseAcquire", [.string(addrA), .string(""), .string("")])  // the other client is gone
        try await h.ctl("DropLink", [.string(addrA)])
        _ = try await h.waitStats(addrA, "AcquireNotify") { $0["acquire_notify"] == 1 && $0["fd_open"] == 1 }
        let stats = try await h.stats(addrA)
        #expect(stats["subscribed"] == 0 && stats["stop_notify"] == 1, "our leftover session ended: \(stats)")
        try await h.notify(addrA, [0x00, 68])
        try await h.log.wait("value through the socket") { $0.notifications(addrA) == [[0x00, 68]] }
        let dev = try #require(h.capture.status().devices.first)
        #expect(dev.subscribeMode == .acquireNotify && dev.subscribeFallback == nil && dev.subscribeFallbacks == 1)
        await h.stop()
    }

    /// Another client's StartNotify session on the characteristic (bluetoothd answers InProgress).
    @Test func anotherClientsStartNotifySessionMeansStartNotify() async throws {
        let h = try await Harness(policy: fastPolicy(mode: .acquireNotify))
        try await h.ctl("SetAcquireBusy", [.string(addrA), .bool(true)])
        h.start()
        _ = try await h.waitStats(addrA, "StartNotify") { $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 66])
        try await h.log.wait("value") { $0.notifications(addrA) == [[0x00, 66]] }
        let dev = try #require(h.capture.status().devices.first)
        #expect(dev.subscribeMode == .startNotify && dev.subscribeFallback == .inProgress && dev.subscribeFallbacks == 1)
        await h.stop()
    }

    /// `start-notify` means StartNotify only: AcquireNotify is never asked for, and nothing counts as a fallback.
    @Test func startNotifyModeNeverAcquires() async throws {
        let h = try await Harness(policy: fastPolicy(mode: .startNotify))
        h.start()
        _ = try await h.waitStats(addrA, "StartNotify") { $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 67])
        try await h.log.wait("value") { $0.notifications(addrA) == [[0x00, 67]] }
        let stats = try await h.stats(addrA)
        #expect(stats["acquire_notify"] == 0 && stats["acquire_refused"] == 0)
        let dev = try #require(h.capture.status().devices.first)
        #expect(dev.subscribeMode == .startNotify && dev.subscribeFallback == nil && dev.subscribeFallbacks == 0)
        await h.stop()
    }

    @Test func theDefaultPolicyAcquires() {
        #expect(CapturePolicy().subscribeMode == .acquireNotify)
    }
}
