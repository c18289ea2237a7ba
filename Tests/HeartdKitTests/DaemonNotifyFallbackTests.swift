import DBus
import Foundation
import Glibc
import TestBus
import Testing

/// The daemon with its default configuration subscribes with AcquireNotify; a sensor whose AcquireNotify BlueZ
/// refuses is captured with StartNotify, every beat stored, and `status` (JSON and heartctl's table) shows it.
@Suite(.serialized) struct DaemonNotifyFallbackTests {
    static let refused = "A0:9E:1A:7C:00:01"
    static let acquired = "A0:9E:1A:7C:00:02"

    @Test(.timeLimit(.minutes(2))) func theDefaultAcquiresAndARefusalFallsBackToStartNotify() async throws {
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: DaemonBlueZTests.fakeScript, encoding: .utf8),
                              name: "fake_bluez.py", in: bus.dir,
                              arguments: ["--address", bus.address, "--devices", "\(Self.refused),\(Self.acquired)", "--known"])
        defer { kill(fake.process.processIdentifier, SIGKILL) }
        let control = try await DBusConnection.connect(address: bus.address, logger: .init(label: "test"))
        defer { control.close() }
        let fakeControl = FakeBlueZControl(connection: control)
        let deadline = Date().addingTimeInterval(20)
        while (try? await control.nameOwner("org.bluez")) ?? nil == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // another client holds the first sensor's socket (what bluetoothd 5.66 answers then)
        _ = try await fakeControl.call("RefuseAcquire", [.string(Self.refused), .string("org.bluez.Error.NotPermitted"),
                                                          .string("Notify acquired")])
        let dir = try TestDirectory("bluez-subscribe")
        defer { dir.remove() }
        // No bluetooth.subscribe: the default.
        let daemon = try DaemonProcess(dir: dir, settings: ["bluetooth.allow=[\"\(Self.refused)\", \"\(Self.acquired)\"]"],
                                       mode: .bluez, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer { daemon.stop() }
        func ready() async -> Bool {
            let r = await fakeControl.stats(Self.refused), a = await fakeControl.stats(Self.acquired)
            return r["subscribed"] == 1 && a["fd_open"] == 1
        }
        while !(await ready()), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await ready(), "heartd did not subscribe both:\n\(daemon.log())")
        let refusedStats = await fakeControl.stats(Self.refused), acquiredStats = await fakeControl.stats(Self.acquired)
        #expect(refusedStats["acquire_refused"] == 1 && refusedStats["start_notify"] == 1, "\(refusedStats)")
        #expect(acquiredStats["acquire_notify"] == 1 && acquiredStats["start_notify"] == 0, "\(acquiredStats)")

        // 8 notifications each at a strap's pace, one RR of 0.5 s in each: 9 beats (the first RR's start too)
        let notifications = 8
        for _ in 0..<notifications {
            for address in [Self.refused, Self.acquired] {
                _ = try await fakeControl.call("Notify", [.string(address), .bytes([0x10, 120, 0x00, 0x02])])
            }
            try await Task.sleep(for: .milliseconds(500))
        }

        let client = try daemon.client()
        var links: [String: [String: Any]] = [:]
        while Date() < deadline {
            let capture = try client.callObject("status")["capture"] as? [String: Any] ?? [:]
            links = (capture["devices"] as? [[String: Any]] ?? []).reduce(into: [:]) { $0[$1["address"] as? String ?? "?"] = $1 }
            if links.values.allSatisfy({ $0["notifications"] as? Int == notifications }) && links.count == 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let r = links[Self.refused] ?? [:], a = links[Self.acquired] ?? [:]
        #expect(r["subscribeMode"] as? String == "start-notify" && r["subscribeFallback"] as? String == "notify-acquired", "\(r)")
        #expect(r["subscribeFallbacks"] as? Int == 1 && r["reconnects"] as? Int == 0 && r["lastError"] == nil, "\(r)")
        #expect(a["subscribeMode"] as? String == "acquire-notify" && a["subscribeFallback"] == nil, "\(a)")
        #expect(a["subscribeFallbacks"] as? Int == 0, "\(a)")
        #expect(r["notifications"] as? Int == notifications && a["notifications"] as? Int == notifications)

        // heartctl's table shows the subscription each sensor uses
        let table = try runTool(try BuiltProducts.path("heartctl"), ["--socket", daemon.socket, "status"])
        #expect(table.status == 0, "\(table)")
        let rows = table.out.split(separator: "\n")
        #expect(rows.contains { $0.contains(Self.refused) && $0.contains("start-notify (AcquireNotify refused: notify-acquired), 1 fallback(s)") },
                "\(table.out)")
        #expect(rows.contains { $0.contains(Self.acquired) && $0.hasSuffix("acquire-notify") }, "\(table.out)")
        // the journal line, once, with its fields (stderr here: the same fields journald stores)
        let fallbackLines = daemon.log().split(separator: "\n").filter { $0.contains("AcquireNotify refused") }
        #expect(fallbackLines.count == 1, "\(daemon.log())")
        #expect(fallbackLines.first.map {
            $0.contains("reason=notify-acquired") && $0.contains("HEARTD_DEVICE=\(Self.refused)")
                && $0.contains("MESSAGE_ID=6ea63dbb8c464732b278095a76600319")
        } == true, "\(fallbackLines)")

        // every beat of both sensors stored
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10))
        let beats = try sqliteLines(daemon.db, """
            SELECT d.address || ' ' || sum(s.count) FROM samples s JOIN devices d ON d.id = s.deviceId
            WHERE s.type = 'HKDataTypeIdentifierHeartbeatSeries' GROUP BY d.address ORDER BY d.address
            """)
        #expect(beats == ["\(Self.refused) \(notifications + 1)", "\(Self.acquired) \(notifications + 1)"], "\(daemon.log())")
    }
}
