@testable import BlueZ
import LogFields
import Logging
import Testing

/// Every line the capture client writes about a sensor carries HEARTD_DEVICE (and HEARTD_ADAPTER), so that
/// `journalctl HEARTD_DEVICE=…` finds all of them — not only the few the daemon writes with a MESSAGE_ID.
@Suite struct CaptureLogFieldTests {
    @Test func everyLineAboutTheSensorCarriesItsAddressAndAdapter() async throws {
        let lines = LineRecorder()
        let h = try await Harness(policy: fastPolicy(), lines: lines)
        h.start()
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        try await h.ctl("NotifyWrongType", [.string(addrA)])
        try await h.notify(addrA, [0x00, 70])
        try await h.log.wait("first value") { $0.notifications(addrA).count == 1 }
        try await h.ctl("DropLink", [.string(addrA)])
        try await h.log.wait("reconnect") { $0.connected(addrA).count == 2 }
        await h.stop()

        let devicePath = "dev_" + addrA.replacingOccurrences(of: ":", with: "_")
        let about = lines.lines.filter { line in
            line.metadata.contains { key, value in
                key != "args" && ("\(value)".contains(addrA) || "\(value)".contains(devicePath))
            }
        }
        #expect(about.count >= 3, "session start, the wrong-typed value, the reconnect: \(lines.lines.map(\.message))")
        for line in about {
            #expect(line.metadata[LogField.device.key] == .string(addrA), "\(line.message) \(line.metadata)")
        }
        let session = about.filter { $0.message == "device session started" }
        #expect(!session.isEmpty && session.allSatisfy { $0.metadata[LogField.adapter.key] == "hci0" })
        #expect(!lines.lines.contains { $0.metadata.keys.contains { ["address", "device", "adapter"].contains($0) } },
                "no ad-hoc keys for what LogField names")
    }
}
