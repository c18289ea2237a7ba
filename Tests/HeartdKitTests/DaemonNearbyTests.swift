import DBus
import Foundation
import Glibc
import Testing
import TestBus

/// `nearby` against the fake BlueZ on a private bus: heartd scans with the heart-rate filter over LE, lists the
/// heart-rate sensors in range it does not capture (name and signal strength; not the allowed one, not a keyboard),
/// and `allow` then captures one, which leaves the list.
@Suite(.serialized) struct DaemonNearbyTests {
    static let allowed = "A0:9E:1A:7C:00:01"
    static let stranger = "A0:9E:1A:7C:00:02"
    static let keyboard = "C0:11:22:33:44:55"

    func heartctl(_ daemon: DaemonProcess, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartctl"), ["--socket", daemon.socket] + arguments)
    }

    @Test(.timeLimit(.minutes(2)))
    func aScanListsTheSensorsInRangeHeartdDoesNotCaptureAndAllowTakesOne() async throws {
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: FakeBlueZControl.script, encoding: .utf8), name: "fake_bluez.py",
                              in: bus.dir, arguments: ["--address", bus.address, "--devices", "\(Self.allowed),\(Self.stranger)",
                                                       "--other-devices", Self.keyboard])
        defer { kill(fake.process.processIdentifier, SIGKILL) }
        let control = try await DBusConnection.connect(address: bus.address, logger: .init(label: "test"))
        defer { control.close() }
        let fakeControl = FakeBlueZControl(connection: control)
        #expect(await eventually { (try? await control.nameOwner("org.bluez")) ?? nil != nil })
        let dir = try TestDirectory("nearby")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, settings: ["bluetooth.allow=[\"\(Self.allowed)\"]", "bluetooth.subscribe=\"start-notify\""],
                                       mode: .bluez, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(await eventually { await fakeControl.subscribed(Self.allowed) }, "heartd did not capture the allowed strap:\n\(daemon.log())")

        // A strap may be given its wearer before it is allowed: the scan says who.
        #expect(try heartctl(daemon, ["people", "add", "--name", "Ana", "--hrmax", "185"]).status == 0)
        #expect(try heartctl(daemon, ["people", "assign", "Ana", Self.stranger.lowercased()]).status == 0)
        let scan = try heartctl(daemon, ["--json", "nearby", "--seconds", "1"])
        #expect(scan.status == 0, "\(scan)\n\(daemon.log())")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(scan.out.utf8)) as? [String: Any])
        let devices = result["devices"] as? [[String: Any]] ?? []
        #expect(devices.map { $0["address"] as? String } == [Self.stranger], "only the heart-rate sensor heartd does not take: \(scan.out)")
        #expect(devices.first?["name"] as? String == "Fake HR 2" && devices.first?["rssi"] as? Int == -60, "\(scan.out)")
        #expect(devices.first?["adapter"] as? String == "hci0")
        #expect((devices.first?["person"] as? [String: Any])?["name"] as? String == "Ana", "\(scan.out)")
        let filter = try await fakeControl.call("DiscoveryFilter", [.string("hci0")]).first?.stringKeyedDictionary ?? [:]
        #expect(filter["UUIDs"]?.string == "0000180d-0000-1000-8000-00805f9b34fb" && filter["Transport"]?.string == "le", "\(filter)")
        let table = try heartctl(daemon, ["nearby", "--seconds", "1"])
        #expect(table.status == 0 && table.out.contains("Fake HR 2") && table.out.contains("-60 dBm") && table.out.contains("Ana"), "\(table)")
        #expect(try heartctl(daemon, ["nearby", "--seconds", "30"]).status == 2, "out of range")

        // Allowed from the list: captured, and no longer listed.
        #expect(try heartctl(daemon, ["allow", Self.stranger]).status == 0)
        #expect(await eventually { await fakeControl.subscribed(Self.stranger) }, "\(daemon.log())")
        let after = try heartctl(daemon, ["--json", "nearby", "--seconds", "1"])
        let left = (try JSONSerialization.jsonObject(with: Data(after.out.utf8)) as? [String: Any])?["devices"] as? [Any]
        #expect(after.status == 0 && left?.isEmpty == true, "\(after)")
    }

    @Test func theSimulatorDoesNotScan() throws {
        let dir = try TestDirectory("nearby-sim")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1)
        let r = try heartctl(daemon, ["nearby", "--seconds", "1"])
        #expect(r.status == 1 && r.err.contains("does not scan"), "\(r)")
    }
}
