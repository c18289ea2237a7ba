import Control
import Foundation
import HealthModel

/// `nearby`: heartd scans for `seconds` and lists the heart-rate sensors in range it does not capture (neither
/// allowed nor captured), strongest signal first. `allow` then takes one, and `person.assign` gives it a wearer.
public enum NearbyCall: ControlCall {
    public static let method = ControlMethod.nearby

    public struct Params: Codable, Sendable, Hashable {
        /// How long to scan: `secondsRange`, default `defaultSeconds`.
        public var seconds: Double?

        public init(seconds: Double? = nil) { self.seconds = seconds }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var devices: [Sensor]
        /// How long the scan ran.
        public var seconds: Double

        public init(devices: [Sensor], seconds: Double) {
            self.devices = devices
            self.seconds = seconds
        }
    }

    /// One sensor in range.
    public struct Sensor: Codable, Sendable, Hashable {
        public var address: String
        /// The name it advertises (absent: none).
        public var name: String?
        /// Signal strength in dBm (absent: BlueZ reported none).
        public var rssi: Int?
        /// The adapter that heard it best.
        public var adapter: String
        /// The person assigned to the strap, if one is (a strap may be assigned before it is allowed).
        public var person: Person?

        public init(address: String, name: String?, rssi: Int?, adapter: String, person: Person? = nil) {
            self.address = address
            self.name = name
            self.rssi = rssi
            self.adapter = adapter
            self.person = person
        }
    }

    /// Scans of 1 to 8 seconds: long enough for a strap advertising every second or two, short enough to answer
    /// within a control client's 10 s timeout.
    public static let secondsRange = 1.0...8.0
    public static let defaultSeconds = 4.0
}
