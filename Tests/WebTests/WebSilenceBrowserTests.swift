import DBus
import Foundation
import Glibc
import Testing
import TestBus

/// The real path of a silent sensor: the fake BlueZ on a private bus with three sensors, heartd capturing them,
/// heartd-web and the room page in headless Chromium. Once the browser script asks for it, one sensor stops
/// notifying (its link stays up, as a strap that lost the skin's contact entirely or whose radio stalled): its tile
/// says "no signal" within 5 s, the other two keep streaming.
@Suite(.serialized) struct WebSilenceBrowserTests {
    static let sensors = ["A0:9E:1A:7C:05:01", "A0:9E:1A:7C:05:02", "A0:9E:1A:7C:05:03"]
    static let silent = "A0:9E:1A:7C:05:02"

    @Test func aSilentSensorOfHeartdShowsNoSignalWithinFiveSeconds() async throws {
        let bus = try PrivateBus()
        let fake = try Helper(script: try String(contentsOfFile: FakeBlueZControl.script, encoding: .utf8), name: "fake_bluez.py",
                              in: bus.dir, arguments: ["--address", bus.address, "--devices", Self.sensors.joined(separator: ","), "--known"])
        let connection = try await DBusConnection.connect(address: bus.address, logger: .init(label: "web-silence-test"))
        let control = FakeBlueZControl(connection: connection)
        #expect(await eventually(timeout: 10) { try await connection.nameOwner("org.bluez") != nil })
        let stack = try await WebBrowserTests.Stack(capture: Self.sensors.flatMap { ["--allow", $0] },
                                                    environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let stopFile = stack.dir + "/silence"
        let feeder = Task { await Self.feed(control, stopFile: stopFile) }
        defer {
            feeder.cancel()
            stack.stop()
            connection.close()
            kill(fake.process.processIdentifier, SIGKILL)
            bus.kill()
        }
        for address in Self.sensors {
            let subscribed = await eventually(timeout: 30) {
                let stats = await control.stats(address)
                return stats["subscribed", default: 0] + stats["fd_open", default: 0] >= 1
            }
            #expect(subscribed, "heartd did not subscribe to \(address):\n\(stack.heartd.output.suffix(3000))")
        }
        let results = try await stack.browse(["silence"], extra: ["--stop-file", stopFile, "--silent-device", Self.silent])
        #expect(results.contains(#""failed": []"#), "\(results)")
    }

    /// Every 500 ms a notification from each sensor (a heart rate and the RR since the last beat, 120 bpm), except
    /// from the silent one once `stopFile` exists.
    static func feed(_ control: FakeBlueZControl, stopFile: String) async {
        while !Task.isCancelled {
            let stopped = FileManager.default.fileExists(atPath: stopFile)
            for address in sensors where !(stopped && address == silent) {
                _ = try? await control.call("Notify", [.string(address), .bytes([0x16, 120, 0x00, 0x02])])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
