import Foundation
import Testing
@testable import HeartdConfig
import MQTTConfig

/// `[mqtt]`: parsed, validated, rendered back; the password through a file or systemd's credential.
@Suite struct ConfigurationMQTTTests {
    @Test func parsesAndRendersTheMQTTSection() throws {
        let c = try HeartdConfiguration.parse("""
            [mqtt]
            host = "broker.lan"
            ca_file = "/etc/heartd/mqtt-ca.pem"
            username = "heartd"
            base_topic = "home/heart"
            keep_alive = 10
            beats = true
            """)
        #expect(c.mqtt.host == "broker.lan" && c.mqtt.effectivePort == 8883 && c.mqtt.username == "heartd")
        #expect(c.mqtt.baseTopic == "home/heart" && c.mqtt.discoveryPrefix == "homeassistant")
        #expect(c.mqtt.keepAliveSeconds == 10 && c.mqtt.beats)
        #expect(try HeartdConfiguration.parse(c.render()) == c, "render round-trips")
        #expect(!HeartdConfiguration().mqtt.isConfigured, "MQTT is off by default")
        #expect(HeartdConfiguration().mqtt.effectivePort == 1883)
    }

    @Test func refusesBadValues() {
        func code(_ text: String) -> ConfigurationError.Code? {
            do { _ = try HeartdConfiguration.parse(text); return nil } catch { return error.code }
        }
        #expect(code("[mqtt]\nbase_topic = \"heartd/#\"") == .outOfRange)
        #expect(code("[mqtt]\nbase_topic = \"/heartd\"") == .outOfRange)
        #expect(code("[mqtt]\nbase_topic = \"\"") == .outOfRange)
        #expect(code("[mqtt]\ndiscovery_prefix = \"ha/+\"") == .outOfRange)
        #expect(code("[mqtt]\nport = 70000") == .outOfRange)
        #expect(code("[mqtt]\npassword_file = \"relative\"") == .outOfRange)
        #expect(code("[mqtt]\nhost = \"a b\"") == .outOfRange)
        #expect(code("[mqtt]\nkeep_alive = 0") == .outOfRange)
        #expect(code("[mqtt]\nbeats = \"yes\"") == .wrongType)
        #expect(code("[mqtt]\ndiscovery_prefix = \"\"") == nil, "empty: no discovery")
    }

    @Test func thePasswordComesFromTheFileOrTheCredential() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-cred-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "s3cret\nignored\n".write(toFile: dir + "/mqtt-password", atomically: true, encoding: .utf8)
        var settings = MQTTSettings()
        #expect(try settings.password(environment: [:]) == nil)
        #expect(try settings.password(environment: ["CREDENTIALS_DIRECTORY": dir]) == "s3cret")
        settings.passwordFile = dir + "/missing"
        #expect(throws: MQTTSettingsError.self) { try settings.password(environment: [:]) }
    }
}
