import DBus
import Foundation
import Glibc
import TestBus

/// A chest strap and a second sensor worn together: the fake BlueZ on a private bus with two known devices, and the
/// real daemon capturing both. `play` sends each its own heart rate with RR intervals at real-time pace.
final class TwoSensorLab {
    static let strap = "A0:9E:1A:7C:00:01"
    static let armband = "A0:9E:1A:7C:00:02"

    let bus: PrivateBus
    let fake: Helper
    let control: DBusConnection
    let daemon: DaemonProcess
    /// The notifications `play` sent so far, by address.
    private(set) var sent: [String: Int] = [:]

    init(dir: TestDirectory, settings: [String] = []) async throws {
        bus = try PrivateBus()
        fake = try Helper(script: try String(contentsOfFile: DaemonBlueZTests.fakeScript, encoding: .utf8), name: "fake_bluez.py",
                          in: bus.dir, arguments: ["--address", bus.address, "--devices", "\(Self.strap),\(Self.armband)", "--known"])
        control = try await DBusConnection.connect(address: bus.address, logger: .init(label: "test"))
        let deadline = Date().addingTimeInterval(10)
        while (try? await control.nameOwner("org.bluez")) ?? nil == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        // StartNotify, explicitly: `subscribed` waits for its sessions (the sessions' tests need no socket).
        daemon = try DaemonProcess(dir: dir, settings: ["bluetooth.allow=[\"\(Self.strap)\", \"\(Self.armband)\"]",
                                                        "bluetooth.subscribe=\"start-notify\""] + settings,
                                   mode: .bluez, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        for address in [Self.strap, Self.armband] {
            while !(await subscribed(address)), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            guard await subscribed(address) else {
                throw DaemonProcess.Failure(description: "heartd did not subscribe to \(address):\n\(daemon.log())")
            }
        }
    }

    func ctl(_ member: String, _ args: [DBusValue]) async throws -> [DBusValue] {
        try await FakeBlueZControl(connection: control).call(member, args)
    }

    func subscribed(_ address: String) async -> Bool { await FakeBlueZControl(connection: control).subscribed(address) }

    /// For `seconds`: the strap at 120 bpm (a beat every 0.5 s), the armband at 60 bpm (a beat every second), each
    /// notification carrying the RR interval since the previous one, as real sensors send them.
    func play(seconds: Double) async throws {
        let ticks = Int(seconds * 2)
        for i in 0..<ticks {
            _ = try await ctl("Notify", [.string(Self.strap), .bytes([0x10, 120, 0x00, 0x02])])
            sent[Self.strap, default: 0] += 1
            if i % 2 == 0 {
                _ = try await ctl("Notify", [.string(Self.armband), .bytes([0x10, 60, 0x00, 0x04])])
                sent[Self.armband, default: 0] += 1
            }
            try await Task.sleep(for: .milliseconds(500))  // the sensors' pace
        }
    }

    /// Waits until the daemon has received every value `play` sent (its reads are batched: the last values arrive
    /// up to a batching interval after they were sent); whether it did within `timeout` s.
    func everyPlayedValueArrived(timeout: Double = 10) async -> Bool {
        await eventually(timeout: timeout) {
            let received = TestJSON.notifications(inStatus: try self.daemon.client().callObject("status"))
            return self.sent.allSatisfy { received[$0.key] == $0.value }
        }
    }

    func heartctl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartctl"), ["--socket", daemon.socket] + arguments)
    }

    func stop() {
        daemon.stop()
        control.close()
        kill(fake.process.processIdentifier, SIGKILL)
        bus.kill()
    }
}
