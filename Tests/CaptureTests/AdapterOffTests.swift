@testable import Capture
import BlueZ
import DBus
import Foundation
import LogFields
import SourceEvents
import Systemd
import Testing

/// An adapter heartd may use that is present but powered off (the lab once had hci0 never powered, and heartd
/// waited 40 s without a word): one journal line after `adapterOffNotice`, `status` shows it at once, and capture
/// starts when someone powers it on — heartd never powers it itself.
@Suite struct AdapterOffTests {
    static func isNotice(_ line: LineRecorder.Line) -> Bool {
        line.metadata[LogField.messageID.key] == .string(MessageID.adapterOff.hex)
    }

    @Test func anAdapterLeftOffIsToldOnceAndCaptureStartsWhenItIsPoweredOn() async throws {
        let lines = LineRecorder()
        var policy = fastPolicy()
        policy.adapterOffNotice = 0.4
        let h = try await Harness(policy: policy, lines: lines)
        try await h.ctl("SetPowered", [.bool(false)])
        let started = Date()
        h.start()
        let off = try await eventually("status shows the adapter off") {
            h.capture.status().adapters.first { $0.name == "hci0" && $0.offSince != nil }
        }
        #expect(!off.powered && off.powerState == .off && off.assigned == 0)
        let notice = try #require(try await lines.wait("the notice", Self.isNotice).first)
        #expect(Date().timeIntervalSince(started) >= 0.4, "not before the delay")
        #expect(notice.level == .warning)  // the only allowed adapter: nothing can be captured
        #expect(notice.metadata[LogField.adapter.key] == "hci0")
        #expect(notice.metadata["power_state"] == "off")
        #expect(notice.metadata["waited_seconds"] != nil && notice.metadata["powered_adapters"] == "0")
        #expect(notice.message.contains("does not power adapters itself"))
        // A check that nothing happens: three more delays with reconciles on the way (each allow-list update is
        // one), and still one line — and nothing powered the adapter or connected.
        for _ in 0..<6 {
            await h.capture.setAllowList([addrA])
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(lines.lines.filter(Self.isNotice).count == 1)
        #expect(h.log.all.connected(addrA).isEmpty)
        #expect(h.capture.status().adapters.first?.powered == false)

        try await h.ctl("SetPowered", [.bool(true)])
        try await h.log.wait("captured once powered") { $0.connected(addrA).count == 1 }
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 71])
        try await h.log.wait("value") { $0.notifications(addrA) == [[0x00, 71]] }
        try await lines.wait("powered on") { $0.message.hasPrefix("adapter powered on") }
        let on = try #require(h.capture.status().adapters.first)
        #expect(on.powered && on.offSince == nil && on.powerState == .on && on.assigned == 1)
        #expect(lines.lines.filter(Self.isNotice).count == 1)
        await h.stop()
    }

    @Test func anAdapterBlockedByRfkillSaysSo() async throws {
        let lines = LineRecorder()
        var policy = fastPolicy()
        policy.adapterOffNotice = 0.2
        let h = try await Harness(policy: policy, lines: lines)
        try await h.ctl("SetBlocked", [.bool(true)])
        h.start()
        let notice = try #require(try await lines.wait("the notice", Self.isNotice).first)
        #expect(notice.metadata["power_state"] == "off-blocked")
        #expect(notice.message.contains("rfkill"))
        let off = try #require(h.capture.status().adapters.first)
        #expect(!off.powered && off.powerState == .offBlocked && off.offSince != nil)
        try await h.ctl("SetBlocked", [.bool(false)])
        try await h.log.wait("captured once unblocked") { $0.connected(addrA).count == 1 }
        await h.stop()
    }

    /// The adapter heartd was told to use is not in BlueZ (the lab's hci0 once never reached bluetoothd): said once,
    /// and captured through as soon as it appears.
    @Test func anAdapterNamedInTheConfigurationButAbsentIsToldAndUsedWhenItAppears() async throws {
        let lines = LineRecorder()
        var policy = fastPolicy()
        policy.adapterOffNotice = 0.2
        policy.adapters = ["hci1"]
        let h = try await Harness(policy: policy, lines: lines, fakeArguments: ["--adapters", "hci0,hci1"])
        try await h.ctl("SetNamedAdapterPresent", [.string("hci1"), .bool(false)])
        h.start()
        let notice = try #require(try await lines.wait("the notice", Self.isNotice).first)
        #expect(notice.level == .warning && notice.metadata[LogField.adapter.key] == "hci1")
        #expect(notice.metadata["power_state"] == "absent" && notice.message.contains("not present"))
        #expect(h.capture.status().adapters.isEmpty)  // hci0 is not allowed; hci1 is not there
        try await h.ctl("SetNamedAdapterPresent", [.string("hci1"), .bool(true)])
        try await h.log.wait("captured through hci1") { $0.connected(addrA).count == 1 }
        try await lines.wait("appeared") { $0.message.hasPrefix("adapter appeared") }
        #expect(lines.lines.filter(Self.isNotice).count == 1)
        await h.stop()
    }

    /// One adapter of two off: worth knowing (notice level), not a warning, and the other captures meanwhile.
    @Test func oneAdapterOfTwoOffIsANoticeAndTheOtherCaptures() async throws {
        let lines = LineRecorder()
        var policy = fastPolicy()
        policy.adapterOffNotice = 0.2
        let h = try await Harness(policy: policy, lines: lines, fakeArguments: ["--adapters", "hci0,hci1"])
        try await h.ctl("SetPowered", [.bool(false)])  // the fake's first adapter
        h.start()
        let notice = try #require(try await lines.wait("the notice", Self.isNotice).first)
        #expect(notice.level == .notice && notice.metadata[LogField.adapter.key] == "hci0")
        #expect(notice.metadata["powered_adapters"] == "1")
        try await h.log.wait("captured through hci1") { $0.connected(addrA).count == 1 }
        #expect(h.capture.status().devices.first?.adapter == "hci1")
        await h.stop()
    }
}
