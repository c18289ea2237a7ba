import DBus
import Foundation
import Testing
import TestBus

/// The daemon's main mode against the fake BlueZ (Tests/BlueZTests/Fixtures/fake_bluez.py) on a private bus.
@Suite(.serialized) struct DaemonBlueZTests {
    static let address = "A0:9E:1A:7C:00:01"
    static let fakeScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlueZTests/Fixtures/fake_bluez.py").path

    /// The real daemon in its main mode: discovers nothing (the sensor is known), connects, subscribes, stores the
    /// values, and on SIGTERM ends the open series as `shutdown` (the race behind this is pinned down in process by
    /// IngestServiceShutdownTests) and exits 0 without calling a normal stop a lost bus.
    @Test func sigtermFinishesLiveSeriesAsShutdown() async throws {
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: Self.fakeScript, encoding: .utf8), name: "fake_bluez.py",
                              in: bus.dir, arguments: ["--address", bus.address, "--devices", Self.address, "--known"])
        defer { kill(fake.process.processIdentifier, SIGKILL) }
        let control = try await DBusConnection.connect(address: bus.address, logger: .init(label: "test"))
        defer { control.close() }
        let fakeControl = FakeBlueZControl(connection: control)
        func ctl(_ member: String, _ args: [DBusValue]) async throws -> [DBusValue] { try await fakeControl.call(member, args) }
        func subscribed() async -> Bool { await fakeControl.subscribed(Self.address) }
        let deadline = Date().addingTimeInterval(10)
        while (try? await control.nameOwner("org.bluez")) ?? nil == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let dir = try TestDirectory("bluez-shutdown")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, settings: ["bluetooth.allow=[\"\(Self.address)\"]", "bluetooth.subscribe=\"start-notify\""], mode: .bluez,
                                       environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        while !(await subscribed()), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await subscribed(), "heartd did not subscribe:\n\(daemon.log())")
        for i in 0..<10 {  // 0x10: 8-bit HR with RR; one RR of 0.5 s each
            _ = try await ctl("Notify", [.string(Self.address), .bytes([0x10, 120, 0x00, 0x02])])
            if i == 0 { try await Task.sleep(for: .milliseconds(100)) }  // pacing: the first value alone, then a burst
        }
        // Batched reads: wait until the daemon has every value before the signal.
        let client = try daemon.client()
        #expect(await eventually { TestJSON.notifications(inStatus: try client.callObject("status"))[Self.address] == 10 },
                "\(daemon.log())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10))
        #expect(daemon.process.terminationStatus == 0, "\(daemon.log())")
        let reasons = try sqliteLines(daemon.db, """
            SELECT json_extract(metadata, '$.HeartdFinishReason') FROM samples
            WHERE type = 'HKDataTypeIdentifierHeartbeatSeries'
            """)
        #expect(reasons == ["shutdown"], "\(daemon.log())")
        #expect(!daemon.log().contains("connection was lost"), "a normal stop is not a lost bus:\n\(daemon.log())")
    }
}
