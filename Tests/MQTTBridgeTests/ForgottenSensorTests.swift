import Foundation
import Testing
import TestBus
#if canImport(Glibc)
import Glibc
#endif

/// `heartctl forget` end to end: the fake BlueZ on a private bus with one known sensor, the real heartd capturing it,
/// the real heartd-mqtt and a real mosquitto. The sensor's retained discovery config becomes empty (Home Assistant
/// removes the device), its retained states are cleared, and nothing more is published for it.
@Suite(.serialized) struct ForgottenSensorTests {
    static let address = "A0:9E:1A:7C:05:01"
    static let sensor = "heartd/a09e1a7c0501"
    static let config = "homeassistant/device/heartd_a09e1a7c0501/config"

    @Test func aForgottenSensorIsRemovedFromHomeAssistant() async throws {
        let broker = try MosquittoBroker()
        let watcher = try broker.subscriber(qos: 1)
        let dir = "/tmp/hd-forget-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["HEARTD_KEEP_TEST_DIRS"] == nil { try? FileManager.default.removeItem(atPath: dir) } }
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: FakeBlueZControl.script, encoding: .utf8), name: "fake_bluez.py",
                              in: bus.dir, arguments: ["--address", bus.address, "--devices", Self.address, "--known"])
        _ = fake
        #expect(await eventually { Self.fakeCall(bus, "Stats", "string:\(Self.address)") })  // the fake owns org.bluez

        try "[mqtt]\nhost = \"127.0.0.1\"\nport = \(broker.port)\nusername = \"\(MosquittoBroker.user)\"\npassword_file = \"\(dir)/pw\"\nkeep_alive = 2\nclient_id = \"forget-test\"\n"
            .write(toFile: dir + "/heartd.toml", atomically: true, encoding: .utf8)
        try MosquittoBroker.password.write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        let heartd = try ChildProcess(try BuiltProducts.path("heartd"), [
            "--db", dir + "/heart.db", "--socket", socket, "--config", dir + "/heartd.toml", "--set", "control.group=\"\"",
            "--allow", Self.address, "--log-target", "stderr"], output: dir + "/heartd.log", environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        defer { heartd.stop(SIGKILL) }
        let mqtt = try ChildProcess(try BuiltProducts.path("heartd-mqtt"), [
            "run", "--config", dir + "/heartd.toml", "--socket", socket, "--log-target", "stderr"], output: dir + "/heartd-mqtt.log")
        defer { mqtt.stop(SIGKILL) }
        let log = { ((try? String(contentsOfFile: dir + "/heartd-mqtt.log", encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: dir + "/heartd.log", encoding: .utf8)) ?? "") }

        // Captured and announced; a heart rate flows.
        #expect(await eventually(timeout: 20) {
            watcher.messages(topic: Self.config).last.map { !$0.payload.isEmpty } == true
                && watcher.messages(topic: Self.sensor + "/connected").last?.payload == "ON"
        }, "\(log())")
        #expect(await eventually(timeout: 10) {
            _ = Self.fakeCall(bus, "Notify", "string:\(Self.address)", "array:byte:22,71,0,4")
            return watcher.messages(topic: Self.sensor + "/bpm").contains { $0.payload == "71" }
        }, "\(log())")

        let forget = PostgresServer.run(try BuiltProducts.path("heartctl"), ["--socket", socket, "forget", Self.address])
        #expect(forget.status == 0, "\(forget.output)")

        // Removed: an empty retained config, the retained states cleared (within a few seconds: the disconnect makes
        // the live feed ask heartd's status at once).
        #expect(await eventually(timeout: 10) { watcher.messages(topic: Self.config).last?.payload == "" }, "\(log())")
        for value in ["contact", "state", "connected", "battery", "session"] {
            #expect(await eventually { watcher.messages(topic: Self.sensor + "/" + value).last.map { $0.payload.isEmpty } ?? true },
                    "\(value)")
        }
        let late = try broker.subscriber()
        #expect(await eventually { late.messages(topic: "heartd/status").first?.retained == true })
        #expect(late.messages().allSatisfy { !$0.topic.hasPrefix(Self.sensor) && $0.topic != Self.config })

        // Then nothing more for it: Home Assistant's birth message makes the bridge publish everything it knows, and
        // the forgotten sensor is not part of that.
        let removedAt = watcher.messages().count
        let statusBefore = watcher.messages(topic: "heartd/status").count
        _ = Self.fakeCall(bus, "Notify", "string:\(Self.address)", "array:byte:22,72,0,4")
        #expect(await eventually {
            try broker.publish(topic: "homeassistant/status", payload: "online")
            return watcher.messages(topic: "heartd/status").count > statusBefore
        }, "\(log())")
        let after = watcher.messages().dropFirst(removedAt)
        #expect(after.allSatisfy { !$0.topic.hasPrefix(Self.sensor) && $0.topic != Self.config }, "\(Array(after))")
    }

    /// A method of the fake's control interface through dbus-send; whether it answered.
    static func fakeCall(_ bus: PrivateBus, _ member: String, _ arguments: String...) -> Bool {
        PostgresServer.run("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=org.bluez", "/org/heartd/fake",
                                                  "org.heartd.FakeBlueZ.\(member)"] + arguments).status == 0
    }
}
