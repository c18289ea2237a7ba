import Foundation
import HealthModel
import LiveFeed

/// Home Assistant's device-based MQTT discovery payload of one sensor (`<prefix>/device/<id>/config`, retained): the
/// device block from heartd's device information, the origin, availability through heartd-mqtt's status topic (its
/// last will), and one component per entity with unique ids derived from the address.
public struct DiscoveryConfig: Encodable, Sendable, Hashable {
    public struct Device: Encodable, Sendable, Hashable {
        var identifiers: [String]
        var connections: [[String]]
        var name: String
        var manufacturer: String?
        var model: String?
        var serialNumber: String?
        var swVersion: String?
        var hwVersion: String?

        enum CodingKeys: String, CodingKey {
            case identifiers, connections, name, manufacturer, model
            case serialNumber = "serial_number", swVersion = "sw_version", hwVersion = "hw_version"
        }
    }

    public struct Origin: Encodable, Sendable, Hashable {
        var name: String
        var swVersion: String

        enum CodingKeys: String, CodingKey {
            case name, swVersion = "sw_version"
        }
    }

    public struct Component: Encodable, Sendable, Hashable {
        var platform: String
        var name: String
        var uniqueID: String
        var stateTopic: String
        var deviceClass: String?
        var stateClass: String?
        var unit: String?
        var icon: String?
        var entityCategory: String?
        var expireAfter: Int?
        var payloadOn: String?
        var payloadOff: String?
        var options: [String]?
        var suggestedDisplayPrecision: Int?

        enum CodingKeys: String, CodingKey {
            case platform = "p", name, uniqueID = "unique_id", stateTopic = "state_topic", deviceClass = "device_class"
            case stateClass = "state_class", unit = "unit_of_measurement", icon, entityCategory = "entity_category"
            case expireAfter = "expire_after", payloadOn = "payload_on", payloadOff = "payload_off", options
            case suggestedDisplayPrecision = "suggested_display_precision"
        }
    }

    var device: Device
    var origin: Origin
    var availabilityTopic: String
    var payloadAvailable = "online"
    var payloadNotAvailable = "offline"
    var components: [String: Component]

    enum CodingKeys: String, CodingKey {
        case device = "dev", origin = "o", availabilityTopic = "availability_topic", payloadAvailable = "payload_available"
        case payloadNotAvailable = "payload_not_available", components = "cmps"
    }

    /// The device's id in the discovery topic and the prefix of its entities' unique ids: `heartd_<address>`.
    public static func deviceID(_ address: String) -> String { "heartd_" + BridgeTopics.sensorID(address) }

    /// The payload for the sensor `address` described by `info` (nil: not read yet; the address is the name).
    public init(address: String, info: DeviceInfo?, displayName: String, topics: BridgeTopics, expireAfterSeconds: Int,
                version: String) {
        let id = Self.deviceID(address)
        device = Device(identifiers: [id], connections: [["bluetooth", address.uppercased()]], name: displayName,
                        manufacturer: info?.manufacturer, model: info?.model,
                        serialNumber: info?.metadata[MetadataKey.serialNumber], swVersion: info?.firmwareVersion,
                        hwVersion: info?.hardwareVersion)
        origin = Origin(name: "heartd-mqtt", swVersion: version)
        availabilityTopic = topics.availability
        let expire = expireAfterSeconds > 0 ? expireAfterSeconds : nil
        func component(_ value: SensorValue, _ platform: String, _ name: String) -> Component {
            Component(platform: platform, name: name, uniqueID: id + "_" + value.rawValue,
                      stateTopic: topics.topic(value, of: address))
        }
        var bpm = component(.bpm, "sensor", "Heart rate")
        bpm.unit = "bpm"
        bpm.stateClass = "measurement"
        bpm.icon = "mdi:heart-pulse"
        bpm.expireAfter = expire
        var rmssd = component(.rmssd, "sensor", "RMSSD")
        rmssd.unit = "ms"
        rmssd.stateClass = "measurement"
        rmssd.icon = "mdi:heart-flash"
        rmssd.expireAfter = expire
        rmssd.suggestedDisplayPrecision = 1
        var contact = component(.contact, "binary_sensor", "Skin contact")
        contact.payloadOn = "ON"
        contact.payloadOff = "OFF"
        contact.icon = "mdi:hand-back-right"
        var connected = component(.connected, "binary_sensor", "Connected")
        connected.deviceClass = "connectivity"
        connected.entityCategory = "diagnostic"
        connected.payloadOn = "ON"
        connected.payloadOff = "OFF"
        var state = component(.state, "sensor", "State")
        state.deviceClass = "enum"
        state.options = LiveDeviceState.allCases.map(\.rawValue)
        state.entityCategory = "diagnostic"
        var battery = component(.battery, "sensor", "Battery")
        battery.deviceClass = "battery"
        battery.unit = "%"
        battery.stateClass = "measurement"
        battery.entityCategory = "diagnostic"
        var session = component(.session, "sensor", "Session")
        session.icon = "mdi:tag-text"
        var dfaAlpha1 = component(.dfaAlpha1, "sensor", "DFA α1")
        dfaAlpha1.stateClass = "measurement"
        dfaAlpha1.icon = "mdi:chart-bell-curve-cumulative"
        dfaAlpha1.expireAfter = expire
        dfaAlpha1.suggestedDisplayPrecision = 2
        components = [:]
        for c in [bpm, rmssd, contact, connected, state, battery, session, dfaAlpha1] { components[c.uniqueID] = c }
    }

    /// The JSON text (keys sorted: the same device gives the same bytes).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
