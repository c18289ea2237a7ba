import Foundation
import HealthModel
import LiveFeed
import Testing
@testable import MQTTBridge

/// The payloads without a broker: topic names, the discovery JSON, the state texts.
@Suite struct DiscoveryConfigTests {
    let topics = BridgeTopics(base: "heartd", discoveryPrefix: "homeassistant")

    @Test func topicsAreNamedByTheAddress() {
        #expect(BridgeTopics.sensorID("A0:9E:1A:12:34:56") == "a09e1a123456")
        #expect(topics.topic(.bpm, of: "A0:9E:1A:12:34:56") == "heartd/a09e1a123456/bpm")
        #expect(topics.discovery(of: "A0:9E:1A:12:34:56") == "homeassistant/device/heartd_a09e1a123456/config")
        #expect(topics.homeAssistantStatus == "homeassistant/status")
        #expect(BridgeTopics(base: "heartd", discoveryPrefix: nil).discovery(of: "A0:9E:1A:12:34:56") == nil)
    }

    @Test func theDeviceBlockComesFromDeviceInformationAndEscapesItsStrings() throws {
        let info = DeviceInfo(name: "Strap \"7\"/x", manufacturer: "Polar Electro Oy", model: "H10", hardwareVersion: "39044024.10",
                              firmwareVersion: "5.0.0", metadata: [MetadataKey.serialNumber: "C1234567"])
        let text = DiscoveryConfig(address: "A0:9E:1A:12:34:56", info: info, displayName: "Strap \"7\"/x", topics: topics,
                                   expireAfterSeconds: 30, version: "1.2.3").json()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let device = try #require(json["dev"] as? [String: Any])
        #expect(device["name"] as? String == "Strap \"7\"/x")
        #expect(device["manufacturer"] as? String == "Polar Electro Oy" && device["model"] as? String == "H10")
        #expect(device["serial_number"] as? String == "C1234567" && device["sw_version"] as? String == "5.0.0")
        #expect(device["hw_version"] as? String == "39044024.10")
        #expect(device["connections"] as? [[String]] == [["bluetooth", "A0:9E:1A:12:34:56"]])
        let components = try #require(json["cmps"] as? [String: [String: Any]])
        #expect(Set(components.keys) == Set(["bpm", "rmssd", "contact", "connected", "state", "battery", "session", "dfa_alpha1"]
            .map { "heartd_a09e1a123456_" + $0 }))
        let rmssd = try #require(components["heartd_a09e1a123456_rmssd"])
        #expect(rmssd["unit_of_measurement"] as? String == "ms" && rmssd["expire_after"] as? Int == 30)
        #expect(components["heartd_a09e1a123456_contact"]?["p"] as? String == "binary_sensor")
        let dfa = try #require(components["heartd_a09e1a123456_dfa_alpha1"])
        #expect(dfa["p"] as? String == "sensor" && dfa["state_topic"] as? String == "heartd/a09e1a123456/dfa_alpha1")
        #expect(dfa["state_class"] as? String == "measurement" && dfa["expire_after"] as? Int == 30)
        #expect(dfa["unit_of_measurement"] == nil && dfa["suggested_display_precision"] as? Int == 2)
        #expect(components["heartd_a09e1a123456_state"]?["options"] as? [String] == LiveDeviceState.allCases.map(\.rawValue))
        // Without device information the address names it; a second encoding gives the same bytes.
        let bare = DiscoveryConfig(address: "A0:9E:1A:12:34:56", info: nil, displayName: "A0:9E:1A:12:34:56", topics: topics,
                                   expireAfterSeconds: 0, version: "1")
        #expect(bare.json() == bare.json())
        #expect(!bare.json().contains("expire_after") && !bare.json().contains("manufacturer"))
    }

    @Test func statePayloads() {
        var device = LiveDevice(address: "A0:9E:1A:12:34:56", state: .streaming, connected: true)
        device.bpm = 64
        device.rmssdMs = 41.66
        device.contact = false
        device.batteryPercent = 85
        let values = Dictionary(uniqueKeysWithValues: SensorPayloads.values(of: device, session: "sleep").map { ($0.0, $0.1) })
        #expect(values[.bpm] == "64" && values[.rmssd] == "41.7" && values[.contact] == "OFF" && values[.battery] == "85")
        #expect(values[.state] == "streaming" && values[.connected] == "ON" && values[.session] == "sleep")
        #expect(values[.dfaAlpha1] == .some(nil), "no reading: nothing published")
        device.contact = nil
        #expect(SensorPayloads.values(of: device, session: nil).first { $0.0 == .contact }?.1 == nil)
        device.dfaAlpha1 = 0.7449
        #expect(SensorPayloads.values(of: device, session: nil).first { $0.0 == .dfaAlpha1 }?.1 == "0.74")
        #expect(!SensorValue.dfaAlpha1.isRetained)
        let beats = SensorPayloads.beats([WatchBeat(time: Date(timeIntervalSince1970: 1_764_355_200.1234), gap: true)],
                                         address: "A0:9E:1A:12:34:56")
        #expect(beats == #"{"address":"A0:9E:1A:12:34:56","beats":[{"gap":true,"t":1764355200.123}]}"#)
    }
}
