import Foundation
import Testing
import TestBus
#if canImport(Glibc)
import Glibc
#endif

/// heartd-mqtt end to end: `heartd --simulate` (its sensor 00:00:00:00:00:00), the real `heartd-mqtt` and a real
/// mosquitto, observed with `mosquitto_sub`.
@Suite(.serialized) struct HeartBridgeTests {
    static let sensor = "heartd/000000000000"
    static let config = "homeassistant/device/heartd_000000000000/config"

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test func publishesValuesDiscoveryAndAvailability() async throws {
        let broker = try MosquittoBroker()
        let watcher = try broker.subscriber(qos: 1)
        let processes = try BridgeProcesses(broker: broker)
        try processes.startBridge()
        #expect(await eventually { watcher.messages(topic: "heartd/status").last?.payload == "online" }, "\(processes.log())")
        #expect(await eventually { watcher.messages(topic: Self.sensor + "/bpm").count >= 3 }, "\(processes.log())")
        #expect(watcher.messages(topic: Self.sensor + "/bpm").allSatisfy { Int($0.payload).map { (30...220).contains($0) } == true })
        #expect(await eventually { watcher.messages(topic: Self.sensor + "/state").last?.payload == "streaming" })
        #expect(await eventually { watcher.messages(topic: Self.sensor + "/connected").last?.payload == "ON" })
        #expect(await eventually { !watcher.messages(topic: Self.sensor + "/beats").isEmpty })
        let beats = json(try #require(watcher.messages(topic: Self.sensor + "/beats").first).payload)
        #expect(beats["address"] as? String == "00:00:00:00:00:00")
        let first = try #require((beats["beats"] as? [[String: Any]])?.first)
        #expect(first["t"] is Double && first["gap"] is Bool)
        #expect(watcher.messages(topic: Self.sensor + "/beats").allSatisfy { $0.qos == 1 })

        // Discovery: the fields Home Assistant requires, the device block from heartd's device information.
        #expect(await eventually { !watcher.messages(topic: Self.config).isEmpty })
        let config = json(try #require(watcher.messages(topic: Self.config).last).payload)
        let device = try #require(config["dev"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["heartd_000000000000"])
        #expect(device["manufacturer"] as? String == "heartd" && device["model"] as? String == "SIM-1")
        #expect(device["name"] as? String == "heartd simulated sensor")
        #expect((config["o"] as? [String: Any])?["name"] as? String == "heartd-mqtt")
        #expect(config["availability_topic"] as? String == "heartd/status")
        #expect(config["payload_available"] as? String == "online" && config["payload_not_available"] as? String == "offline")
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        let bpm = try #require(components["heartd_000000000000_bpm"])
        #expect(bpm["p"] as? String == "sensor" && bpm["unit_of_measurement"] as? String == "bpm")
        #expect(bpm["state_class"] as? String == "measurement" && bpm["expire_after"] as? Int == 30)
        #expect(bpm["state_topic"] as? String == Self.sensor + "/bpm" && bpm["unique_id"] as? String == "heartd_000000000000_bpm")
        #expect(components.values.allSatisfy { $0["p"] != nil && $0["unique_id"] != nil && $0["state_topic"] != nil })

        // A late subscriber sees the retained ones: availability, discovery, states; never a stale heart rate.
        let late = try broker.subscriber()
        #expect(await eventually { late.messages().contains { $0.topic == Self.config && $0.retained } })
        #expect(late.messages(topic: "heartd/status").first?.retained == true)
        #expect(late.messages(topic: Self.sensor + "/state").first?.retained == true)
        #expect(late.messages().filter { $0.topic.hasSuffix("/bpm") }.allSatisfy { !$0.retained })
    }

    @Test func announcesAgainOnHomeAssistantsBirthMessage() async throws {
        let broker = try MosquittoBroker()
        let watcher = try broker.subscriber(topics: [Self.config])
        let processes = try BridgeProcesses(broker: broker)
        try processes.startBridge()
        // The discovery may be published again when the sensor's details change (the status's, then its events'):
        // each birth message must bring one more than there were when it was sent.
        #expect(await eventually { !watcher.messages().isEmpty }, "\(processes.log())")
        let beforeBirth = watcher.messages().count
        try broker.publish(topic: "homeassistant/status", payload: "online")
        #expect(await eventually { watcher.messages().count > beforeBirth })
        let beforeSecondBirth = watcher.messages().count
        try broker.publish(topic: "homeassistant/status", payload: "offline")
        try broker.publish(topic: "homeassistant/status", payload: "online")
        #expect(await eventually { watcher.messages().count > beforeSecondBirth })
    }

    @Test func theWillSaysOfflineWithinOneAndAHalfKeepAlivesOfAKill() async throws {
        let broker = try MosquittoBroker()
        let watcher = try broker.subscriber(topics: ["heartd/status"])
        let processes = try BridgeProcesses(broker: broker)
        try processes.startBridge()
        #expect(await eventually { watcher.messages().last?.payload == "online" }, "\(processes.log())")
        let killed = ContinuousClock.now
        processes.signalBridge(SIGKILL)
        #expect(await eventually(timeout: 3, every: .milliseconds(20)) { watcher.messages().last?.payload == "offline" })
        #expect(ContinuousClock.now - killed <= .seconds(3), "keep-alive 2 s: the will within 3 s")
    }

    @Test func aCleanStopPublishesOfflineBeforeItsDisconnect() async throws {
        let broker = try MosquittoBroker()
        let watcher = try broker.subscriber(topics: ["heartd/status"])
        let processes = try BridgeProcesses(broker: broker)
        try processes.startBridge()
        #expect(await eventually { watcher.messages().last?.payload == "online" }, "\(processes.log())")
        processes.signalBridge(SIGTERM)
        #expect(await eventually { watcher.messages().last?.payload == "offline" })
    }

    @Test func aBrokerRestartGetsEverythingAgain() async throws {
        let broker = try MosquittoBroker()  // no persistence: a restart forgets every retained message
        let processes = try BridgeProcesses(broker: broker)
        try processes.startBridge()
        let before = try broker.subscriber(topics: [Self.config, "heartd/status"])
        #expect(await eventually { !before.messages(topic: Self.config).isEmpty }, "\(processes.log())")
        broker.stop()
        try broker.start()
        let after = try broker.subscriber()
        #expect(await eventually(timeout: 10) {
            after.messages().contains { $0.topic == Self.config } && after.messages(topic: "heartd/status").last?.payload == "online"
                && after.messages().contains { $0.topic == Self.sensor + "/bpm" }
        }, "\(processes.log())")
    }

    @Test func checkExitsWithOneStatusPerReason() throws {
        let broker = try MosquittoBroker()
        let processes = try BridgeProcesses(broker: broker)
        try "wrong\n".write(toFile: processes.dir + "/wrong-password", atomically: true, encoding: .utf8)
        func expectCheck(_ settings: [String] = [], exits status: Int32) throws {
            let run = try processes.check(settings)
            #expect(run.status == status, "\(settings): \(run.output)")
        }
        try expectCheck(exits: 0)
        try expectCheck(["mqtt.password_file=\"\(processes.dir)/wrong-password\""], exits: 3)
        try expectCheck(["mqtt.port=\(PostgresServer.freePort())"], exits: 2)
        let tls = ["mqtt.port=\(broker.tlsPort)", "mqtt.tls_server_name=\"localhost\""]
        try expectCheck(tls + ["mqtt.ca_file=\"\(broker.caFile)\""], exits: 0)
        try expectCheck(tls + ["mqtt.ca_file=\"\(broker.otherCAFile)\""], exits: 4)
        try expectCheck(["mqtt.port=\(broker.tlsPort)", "mqtt.tls_server_name=\"broker.example\"", "mqtt.ca_file=\"\(broker.caFile)\""], exits: 4)
        try expectCheck(["mqtt.base_topic=\"a/#\""], exits: 64)
    }
}
